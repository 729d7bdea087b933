// SPDX-License-Identifier: GPL-2.0
/*
 * p2premap - map a provider's P2P memory, read into it, check it and unmap
 * it, over and over, for the tests of resets racing with users of the
 * memory (provider-reset-concurrent).
 *
 *   p2premap PROVIDER SIZE SECONDS DEV OFFSET [GAP_MS]
 *
 * First writes a pattern of SIZE bytes to DEV at OFFSET (O_DIRECT, from
 * RAM) and prints "started". Then, until SECONDS have passed, one round
 * after the other:
 *
 *  - mmap()s SIZE bytes of PROVIDER's p2pmem/allocate; a refusal with
 *    EBUSY (the provider is being reset) is counted and retried after 2 ms;
 *  - fills the mapping with the complement of the pattern, so that data
 *    that never arrives cannot pass;
 *  - reads the pattern from DEV into the mapping with O_DIRECT (a P2P DMA
 *    write by DEV's controller into the provider's BAR when the path
 *    allows it);
 *  - copies the mapping to RAM with 8-byte loads and compares every byte;
 *  - munmap()s it and waits GAP_MS (default 10), holding nothing, so that
 *    a reset finds no user at its check about half the time.
 *
 * Prints key=value facts at the end: result (ok, wrong-data, io-error or
 * mmap-error), reads_verified, mmaps_refused, and for a failure the read
 * it happened in, the time since the start and a detail. Exit status:
 * 0 every read verified, 1 a read returned wrong data, 2 usage or setup
 * error (or an mmap() error other than EBUSY), 3 a read failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"

#define SEED	0x70327072656d6170ULL	/* "p2premap" */

static uint64_t t0;
static unsigned long reads_verified, mmaps_refused;

/* The pattern's 64-bit word @w: never 0 or all-ones in practice. */
static uint64_t pat(uint64_t w)
{
	return ((w + 1) * 0x9e3779b97f4a7c15ULL) ^ SEED;
}

static unsigned long elapsed_ms(void)
{
	return (now_ns() - t0) / 1000000;
}

static void report(const char *result, unsigned long round)
{
	printf("result=%s\nreads_verified=%lu\nmmaps_refused=%lu\n",
	       result, reads_verified, mmaps_refused);
	if (round)
		printf("read=%lu\nafter_ms=%lu\n", round, elapsed_ms());
}

/*
 * What wrong data looks like: the fill still there (the read's data never
 * arrived), all-ones or zeroes (the BAR did not decode), or other data.
 */
static const char *looks_like(uint64_t got, uint64_t want)
{
	if (got == ~want)
		return "the fill, the read's data never arrived";
	if (got == ~0ULL)
		return "all-ones";
	if (!got)
		return "zeroes";
	return "other data";
}

/* check: compare the RAM copy of round @round's mapping with the pattern. */
static int check(const uint64_t *copy, uint64_t words, unsigned long round)
{
	uint64_t w, bad = 0, first = 0;

	for (w = 0; w < words; w++)
		if (copy[w] != pat(w) && !bad++)
			first = w;
	if (!bad)
		return 0;
	report("wrong-data", round);
	printf("detail=%" PRIu64 " of %" PRIu64 " words differ, first at byte %" PRIu64
	       " (got 0x%016" PRIx64 ", want 0x%016" PRIx64 ": %s)\n",
	       bad, words, first * 8, copy[first], pat(first),
	       looks_like(copy[first], pat(first)));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long round = 0;
	uint64_t size, words, w, *ram;
	volatile uint64_t *p;
	long seconds, gap_ms = 10;
	char path[256];
	off_t off;
	int fd, dev;
	ssize_t n;

	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: p2premap PROVIDER SIZE SECONDS DEV OFFSET [GAP_MS]\n");
		return 2;
	}
	size = strtoull(argv[2], NULL, 0);
	seconds = strtol(argv[3], NULL, 0);
	off = strtoll(argv[5], NULL, 0);
	if (argc == 7)
		gap_ms = strtol(argv[6], NULL, 0);
	if (!size || size % 4096 || off % 4096 || seconds <= 0 || gap_ms < 0) {
		fprintf(stderr, "p2premap: SIZE and OFFSET in 4 KiB units, SECONDS > 0\n");
		return 2;
	}
	words = size / 8;
	snprintf(path, sizeof(path),
		 "/sys/bus/pci/devices/%s/p2pmem/allocate", argv[1]);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	dev = open(argv[4], O_RDWR | O_DIRECT);
	if (dev < 0) {
		perror(argv[4]);
		return 2;
	}
	if (posix_memalign((void **)&ram, 4096, size)) {
		fprintf(stderr, "p2premap: no memory\n");
		return 2;
	}
	for (w = 0; w < words; w++)
		ram[w] = pat(w);
	if (pwrite(dev, ram, size, off) != (ssize_t)size) {
		perror("p2premap: writing the pattern");
		return 2;
	}
	t0 = now_ns();
	printf("started\n");
	fflush(stdout);

	while (elapsed_ms() < (unsigned long)seconds * 1000) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			if (errno != EBUSY) {
				report("mmap-error", round + 1);
				printf("detail=mmap: %s\n", strerror(errno));
				return 2;
			}
			mmaps_refused++;
			usleep(2000);
			continue;
		}
		round++;
		for (w = 0; w < words; w++)
			p[w] = ~pat(w);
		n = pread(dev, (void *)p, size, off);
		if (n != (ssize_t)size) {
			report("io-error", round);
			printf("detail=%s\n", n < 0 ? strerror(errno) : "short read");
			return 3;
		}
		for (w = 0; w < words; w++)
			ram[w] = p[w];
		if (check(ram, words, round))
			return 1;
		reads_verified++;
		munmap((void *)p, size);
		if (gap_ms)
			usleep(gap_ms * 1000);
	}
	report("ok", 0);
	return 0;
}
