// SPDX-License-Identifier: GPL-2.0
/*
 * p2pcopy - copy between two block devices through a peer-to-peer memory
 * buffer (an mmap of a provider's p2pmem/allocate) or a RAM buffer, with
 * O_DIRECT, and verify every byte that lands on the destination.
 *
 * The source range is first written with a pseudo-random pattern derived
 * from a seed and each 4 KiB block's index, and the destination range with
 * a different one, so that a copy that moved nothing, moved the wrong
 * blocks or moved stale data cannot pass. Verification compares every byte.
 *
 * Output is one "key=value" line per fact, for the test scripts to parse.
 * Exit status: 0 copied and verified, 1 data mismatch, 2 usage or setup
 * error, 3 an I/O call failed (its errno is printed as error=NAME).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#define BLOCK		4096UL
#define EXIT_MISMATCH	1
#define EXIT_SETUP	2
#define EXIT_IO		3

struct opts {
	const char *src, *dst, *provider;
	uint64_t size, chunk, src_off, dst_off, seed;
	int fill;
};

/* errno_name: "EIO" for EIO, as the tests parse it (glibc's own table). */
static const char *errno_name(int e)
{
	const char *name = strerrorname_np(e);

	return name ? name : "OTHER";
}

/* splitmix64: a full-period generator, so each block's stream is distinct. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* fill_block: the expected content of block @blk for @seed. */
static void fill_block(uint64_t *p, uint64_t seed, uint64_t blk)
{
	uint64_t s = mix(seed ^ mix(blk));
	size_t i;

	for (i = 0; i < BLOCK / sizeof(*p); i++) {
		s = mix(s);
		p[i] = s;
	}
}

/* parse_num: a byte count with an optional K, M or G suffix. */
static uint64_t parse_num(const char *s, int allow_zero)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	}
	if (*end || (!v && !allow_zero)) {
		fprintf(stderr, "p2pcopy: bad size '%s'\n", s);
		exit(EXIT_SETUP);
	}
	return v;
}

static void io_fail(const char *what, const char *dev, uint64_t off, int e)
{
	printf("error=%s\nerror_op=%s\nerror_dev=%s\nerror_offset=%" PRIu64 "\n",
	       errno_name(e), what, dev, off);
	fprintf(stderr, "p2pcopy: %s %s at offset %" PRIu64 ": %s\n",
		what, dev, off, strerror(e));
	exit(EXIT_IO);
}

static int open_direct(const char *path)
{
	int fd = open(path, O_RDWR | O_DIRECT);

	if (fd < 0) {
		fprintf(stderr, "p2pcopy: open %s: %s\n", path, strerror(errno));
		exit(EXIT_SETUP);
	}
	return fd;
}

static void *ram_buffer(uint64_t size)
{
	void *p;

	if (posix_memalign(&p, BLOCK, size)) {
		fprintf(stderr, "p2pcopy: cannot allocate %" PRIu64 " bytes\n", size);
		exit(EXIT_SETUP);
	}
	return p;
}

/* p2p_buffer: @size bytes of the provider's P2P memory, mapped. */
static void *p2p_buffer(const char *provider, uint64_t size)
{
	char path[256];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/p2pmem/allocate",
		 provider);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "p2pcopy: open %s: %s\n", path, strerror(errno));
		exit(EXIT_SETUP);
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("error=%s\nerror_op=mmap\n", errno_name(errno));
		fprintf(stderr, "p2pcopy: mmap %" PRIu64 " bytes of %s: %s\n",
			size, path, strerror(errno));
		exit(EXIT_IO);
	}
	close(fd);
	return p;
}

static void xfer(int write_op, int fd, const char *dev, void *buf,
		 uint64_t len, uint64_t off)
{
	ssize_t n = write_op ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);

	if (n < 0)
		io_fail(write_op ? "write" : "read", dev, off, errno);
	if ((uint64_t)n != len)
		io_fail(write_op ? "short-write" : "short-read", dev, off, EIO);
}

/* write_pattern: fill [off, off+size) of @dev with @seed's pattern from RAM. */
static void write_pattern(int fd, const char *dev, uint64_t off,
			  uint64_t size, uint64_t chunk, uint64_t seed)
{
	char *buf = ram_buffer(chunk);
	uint64_t done, b;

	for (done = 0; done < size; done += chunk) {
		uint64_t len = size - done < chunk ? size - done : chunk;

		for (b = 0; b < len / BLOCK; b++)
			fill_block((uint64_t *)(buf + b * BLOCK), seed,
				   (done / BLOCK) + b);
		xfer(1, fd, dev, buf, len, off + done);
	}
	free(buf);
}

/* verify: count the blocks of @dev that differ from @seed's pattern. */
static uint64_t verify(int fd, const char *dev, uint64_t off, uint64_t size,
		       uint64_t chunk, uint64_t seed)
{
	char *buf = ram_buffer(chunk);
	uint64_t expect[BLOCK / sizeof(uint64_t)];
	uint64_t done, b, bad = 0;

	for (done = 0; done < size; done += chunk) {
		uint64_t len = size - done < chunk ? size - done : chunk;

		xfer(0, fd, dev, buf, len, off + done);
		for (b = 0; b < len / BLOCK; b++) {
			fill_block(expect, seed, (done / BLOCK) + b);
			if (memcmp(buf + b * BLOCK, expect, BLOCK)) {
				if (!bad)
					printf("first_bad_block=%" PRIu64 "\n",
					       done / BLOCK + b);
				bad++;
			}
		}
	}
	free(buf);
	return bad;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: p2pcopy --src DEV --dst DEV --size N[K|M|G]\n"
		"               [--provider PCI_NAME] [--chunk N] [--src-off N]\n"
		"               [--dst-off N] [--seed N] [--no-fill]\n"
		"Copy SIZE bytes from SRC to DST through a buffer of CHUNK bytes of\n"
		"PROVIDER's P2P memory (RAM when no provider is given), O_DIRECT,\n"
		"and verify the destination.\n");
	exit(EXIT_SETUP);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "src", 1, NULL, 's' }, { "dst", 1, NULL, 'd' },
		{ "provider", 1, NULL, 'p' }, { "size", 1, NULL, 'n' },
		{ "chunk", 1, NULL, 'c' }, { "src-off", 1, NULL, 'S' },
		{ "dst-off", 1, NULL, 'D' }, { "seed", 1, NULL, 'r' },
		{ "no-fill", 0, NULL, 'F' }, { NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->chunk = 1 << 20;
	o->fill = 1;
	o->seed = now_ns() ^ getpid();
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': o->src = optarg; break;
		case 'd': o->dst = optarg; break;
		case 'p': o->provider = optarg; break;
		case 'n': o->size = parse_num(optarg, 0); break;
		case 'c': o->chunk = parse_num(optarg, 0); break;
		case 'S': o->src_off = parse_num(optarg, 1); break;
		case 'D': o->dst_off = parse_num(optarg, 1); break;
		case 'r': o->seed = strtoull(optarg, NULL, 0); break;
		case 'F': o->fill = 0; break;
		default: usage();
		}
	}
	if (!o->src || !o->dst || !o->size)
		usage();
	if (o->chunk > o->size)
		o->chunk = o->size;
	if (o->size % BLOCK || o->chunk % BLOCK || o->src_off % BLOCK ||
	    o->dst_off % BLOCK) {
		fprintf(stderr, "p2pcopy: sizes and offsets must be multiples of %lu\n",
			BLOCK);
		exit(EXIT_SETUP);
	}
}

int main(int argc, char **argv)
{
	uint64_t done, t0, c0, ns, bad;
	struct opts o;
	int sfd, dfd;
	char *buf;

	parse_opts(argc, argv, &o);
	sfd = open_direct(o.src);
	dfd = open_direct(o.dst);
	printf("src=%s\ndst=%s\nprovider=%s\nbuffer=%s\nsize=%" PRIu64
	       "\nchunk=%" PRIu64 "\n", o.src, o.dst,
	       o.provider ? o.provider : "none", o.provider ? "p2pmem" : "ram",
	       o.size, o.chunk);
	fflush(stdout);

	if (o.fill) {
		write_pattern(sfd, o.src, o.src_off, o.size, o.chunk, o.seed);
		write_pattern(dfd, o.dst, o.dst_off, o.size, o.chunk, ~o.seed);
		/* Tests that act during the copy wait for this line. */
		printf("filled=yes\n");
		fflush(stdout);
	}

	buf = o.provider ? p2p_buffer(o.provider, o.chunk) : ram_buffer(o.chunk);
	c0 = cpu_ns();
	t0 = now_ns();
	for (done = 0; done < o.size; done += o.chunk) {
		uint64_t len = o.size - done < o.chunk ? o.size - done : o.chunk;

		xfer(0, sfd, o.src, buf, len, o.src_off + done);
		xfer(1, dfd, o.dst, buf, len, o.dst_off + done);
	}
	if (fdatasync(dfd))
		io_fail("fdatasync", o.dst, 0, errno);
	ns = now_ns() - t0;
	printf("bytes=%" PRIu64 "\ncopy_ms=%" PRIu64 "\ncopy_cpu_ms=%" PRIu64 "\n",
	       done, ns / 1000000, (cpu_ns() - c0) / 1000000);

	bad = verify(dfd, o.dst, o.dst_off, o.size, o.chunk, o.seed);
	printf("blocks=%" PRIu64 "\nbad_blocks=%" PRIu64 "\nverified=%s\n",
	       o.size / BLOCK, bad, bad ? "no" : "yes");
	return bad ? EXIT_MISMATCH : 0;
}
