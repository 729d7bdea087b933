// SPDX-License-Identifier: GPL-2.0
/*
 * p2phold - hold an mmap of a provider's p2pmem/allocate and keep using it,
 * for the provider removal tests.
 *
 *   p2phold PROVIDER SIZE SECONDS [DEV OFFSET]
 *
 * Maps SIZE bytes of P2P memory, fills them with a pattern, prints
 * "mapped", then reads the mapping back every 10 ms for up to SECONDS.
 * When the provider goes away the kernel tears the mapping down, and the
 * next access raises SIGBUS: the program then prints "sigbus after N ms"
 * and exits 0. A pattern mismatch prints "mismatch" and exits 1; a mapping
 * that outlives SECONDS prints "no-fault" and exits 1.
 *
 * With DEV, the mapping is instead kept busy with O_DIRECT I/O: the pattern
 * is written from it to DEV at OFFSET, then read back into it (cleared
 * first) and checked, over and over, so that a read into the P2P memory is
 * in flight nearly all the time. A failing read or write prints "io error
 * ERRNO after N ms" and exits 0, with the count of verified reads; reads
 * that all verify until SECONDS print "no-fault, N reads verified" and
 * exit 0 too; a mismatch exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static struct timespec start;

static long elapsed_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start.tv_sec) * 1000 +
	       (now.tv_nsec - start.tv_nsec) / 1000000;
}

static void on_sigbus(int sig)
{
	char msg[64];
	int n = snprintf(msg, sizeof(msg), "sigbus after %ld ms\n",
			 elapsed_ms());

	(void)sig;
	write(STDOUT_FILENO, msg, n);
	_exit(0);
}

static int pattern_ok(volatile unsigned char *p, unsigned long size,
		      unsigned long step)
{
	unsigned long i;

	for (i = 0; i < size; i += step)
		if (p[i] != (unsigned char)(i * 13 + (i >> 12))) {
			printf("mismatch at %lu\n", i);
			return 0;
		}
	return 1;
}

/* busy_io: O_DIRECT reads of DEV into the mapping until one fails. */
static int busy_io(unsigned char *p, unsigned long size, const char *dev,
		   off_t off, long seconds)
{
	unsigned long reads = 0;
	int fd = open(dev, O_RDWR | O_DIRECT);

	if (fd < 0) {
		perror(dev);
		return 2;
	}
	if (pwrite(fd, p, size, off) != (ssize_t)size) {
		printf("io error %d after %ld ms (first write), 0 reads verified\n",
		       errno, elapsed_ms());
		return 0;
	}
	while (elapsed_ms() < seconds * 1000) {
		memset(p, 0, size);
		if (pread(fd, p, size, off) != (ssize_t)size) {
			printf("io error %d after %ld ms, %lu reads verified\n",
			       errno, elapsed_ms(), reads);
			return 0;
		}
		if (!pattern_ok(p, size, 1))
			return 1;
		reads++;
	}
	printf("no-fault, %lu reads verified\n", reads);
	return 0;
}

int main(int argc, char **argv)
{
	volatile unsigned char *p;
	unsigned long size, i;
	char path[256];
	long seconds;
	int fd;

	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: p2phold PROVIDER SIZE SECONDS [DEV OFFSET]\n");
		return 2;
	}
	size = strtoul(argv[2], NULL, 0);
	seconds = strtol(argv[3], NULL, 0);
	snprintf(path, sizeof(path),
		 "/sys/bus/pci/devices/%s/p2pmem/allocate", argv[1]);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	close(fd);
	for (i = 0; i < size; i++)
		p[i] = (unsigned char)(i * 13 + (i >> 12));
	signal(SIGBUS, on_sigbus);
	clock_gettime(CLOCK_MONOTONIC, &start);
	printf("mapped %lu bytes\n", size);
	fflush(stdout);

	if (argc == 6)
		return busy_io((unsigned char *)p, size, argv[4],
			       strtoll(argv[5], NULL, 0), seconds);
	while (elapsed_ms() < seconds * 1000) {
		if (!pattern_ok(p, size, 4096))
			return 1;
		usleep(10000);
	}
	printf("no-fault\n");
	return 1;
}
