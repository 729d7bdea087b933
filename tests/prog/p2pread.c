// SPDX-License-Identifier: GPL-2.0
/*
 * p2pread - time small O_DIRECT reads from a block device into a buffer of
 * peer-to-peer memory (an mmap of a provider's p2pmem/allocate) or of RAM,
 * for the latency benchmark of 'make bench'.
 *
 *   p2pread DEV BS COUNT [PROVIDER]
 *
 * Reads COUNT blocks of BS bytes one at a time, at consecutive offsets from
 * the start of DEV (wrapping at 64 MiB), into the same buffer. Prints
 * "key=value" lines: the median and 99th percentile latency of one read in
 * ns, reads per second, and the CPU time (user + system) the reads took.
 * Exit status: 0 done, 2 usage or setup error, 3 a read failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#define SPAN	(64ULL << 20)

static void *buffer(const char *provider, size_t size)
{
	char path[256];
	void *p;
	int fd;

	if (!provider)
		return posix_memalign(&p, 4096, size) ? NULL : p;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/p2pmem/allocate",
		 provider);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint64_t i, count, bs, t0, c0, total, *lat;
	void *buf;
	int fd;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: p2pread DEV BS COUNT [PROVIDER]\n");
		return 2;
	}
	bs = strtoull(argv[2], NULL, 0);
	count = strtoull(argv[3], NULL, 0);
	if (!bs || bs % 512 || SPAN % bs || !count) {
		fprintf(stderr, "p2pread: BS must divide 64 MiB in 512-byte units, COUNT > 0\n");
		return 2;
	}
	lat = calloc(count, sizeof(*lat));
	buf = buffer(argc == 5 ? argv[4] : NULL, bs);
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (!lat || !buf || fd < 0) {
		fprintf(stderr, "p2pread: setup: %s\n", strerror(errno));
		return 2;
	}

	c0 = cpu_ns();
	t0 = now_ns();
	for (i = 0; i < count; i++) {
		uint64_t start = now_ns();

		if (pread(fd, buf, bs, (i * bs) % SPAN) != (ssize_t)bs) {
			printf("error=%s\n", strerrorname_np(errno) ?: "short-read");
			return 3;
		}
		lat[i] = now_ns() - start;
	}
	total = now_ns() - t0;
	c0 = cpu_ns() - c0;

	qsort(lat, count, sizeof(*lat), cmp_u64);
	printf("buffer=%s\nreads=%" PRIu64 "\nlat_median_ns=%" PRIu64
	       "\nlat_p99_ns=%" PRIu64 "\niops=%" PRIu64 "\ncpu_ns_per_read=%" PRIu64 "\n",
	       argc == 5 ? "p2pmem" : "ram", count, lat[count / 2],
	       lat[count * 99 / 100], (uint64_t)(count * 1000000000ULL / total), c0 / count);
	return 0;
}
