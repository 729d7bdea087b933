// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmeta - NVMe metadata in peer-to-peer memory.
 *
 * Writes and reads back LBAs of an NVMe namespace formatted with separate
 * metadata (QEMU's nvme-ns ms=N,mset=0) through the passthrough ioctl
 * NVME_IOCTL_IO64_CMD, with the data in RAM and the metadata buffer in an
 * mmap of a provider's p2pmem/allocate (or in RAM, for comparison). The
 * block layer maps such a user metadata buffer with bio_integrity_map_user()
 * and nvme-pci DMA-maps it with dma_map_bvec() or dma_map_sgtable(), so the
 * P2PDMA decision of the DMA layer applies to it.
 *
 *   p2pmeta --dev /dev/nvme0n2 --nsid 2 [--provider PCI] [--meta-src p2p|ram]
 *           [--meta-dst p2p|ram] [--lba N] [--blocks N] [--lba-size B] [--ms B]
 *
 * Steps: write the blocks with metadata from --meta-src, read them back with
 * metadata into RAM, then into --meta-dst, and compare data and metadata
 * byte for byte with the patterns written. Output: key=value lines.
 * Exit status: 0 all verified, 1 mismatch, 2 setup error, 3 a command failed
 * (error=NAME, or status=0xNNNN for an NVMe status).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/nvme_ioctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define EXIT_MISMATCH	1
#define EXIT_SETUP	2
#define EXIT_CMD	3

#define NVME_CMD_WRITE	0x01
#define NVME_CMD_READ	0x02

struct opts {
	const char *dev, *provider, *meta_src, *meta_dst;
	unsigned int nsid, blocks, lba_size, ms;
	uint64_t lba;
};

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

/* errno_name: "EIO" for EIO, as the tests parse it (glibc's own table). */
static const char *errno_name(int e)
{
	const char *name = strerrorname_np(e);

	return name ? name : "OTHER";
}

/* nvme_io: one read or write command; 0, or prints why it failed. */
static int nvme_io(int fd, const struct opts *o, uint8_t opcode,
		   const char *what, void *data, void *meta)
{
	struct nvme_passthru_cmd64 cmd = {
		.opcode = opcode,
		.nsid = o->nsid,
		.addr = (uintptr_t)data,
		.data_len = o->blocks * o->lba_size,
		.metadata = (uintptr_t)meta,
		.metadata_len = o->blocks * o->ms,
		.cdw10 = (uint32_t)o->lba,
		.cdw11 = (uint32_t)(o->lba >> 32),
		.cdw12 = o->blocks - 1,
	};
	int ret = ioctl(fd, NVME_IOCTL_IO64_CMD, &cmd);

	if (ret < 0) {
		printf("%s=error\nerror=%s\nerrno=%d\n", what,
		       errno_name(errno), errno);
		return -1;
	}
	if (ret > 0) {
		printf("%s=error\nstatus=0x%04x\n", what, ret);
		return -1;
	}
	printf("%s=ok\n", what);
	return 0;
}

/* meta_buffer: the metadata buffer, in P2P memory or in RAM. */
static void *meta_buffer(const char *kind, void *p2p, size_t len)
{
	void *ram;

	if (!strcmp(kind, "p2p"))
		return p2p;
	if (posix_memalign(&ram, 4096, len))
		return NULL;
	return ram;
}

static int compare(const char *what, const void *got, const void *want,
		   size_t len)
{
	int ok = !memcmp(got, want, len);

	printf("%s_verified=%s\n", what, ok ? "yes" : "no");
	return ok ? 0 : -1;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dev", 1, 0, 'd' }, { "nsid", 1, 0, 'n' },
		{ "provider", 1, 0, 'p' }, { "meta-src", 1, 0, 's' },
		{ "meta-dst", 1, 0, 't' }, { "lba", 1, 0, 'l' },
		{ "blocks", 1, 0, 'b' }, { "lba-size", 1, 0, 'z' },
		{ "ms", 1, 0, 'm' }, { 0 }
	};
	int c;

	*o = (struct opts){ .meta_src = "p2p", .meta_dst = "p2p", .nsid = 1,
			    .blocks = 8, .lba_size = 512, .ms = 8 };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'n': o->nsid = strtoul(optarg, NULL, 0); break;
		case 'p': o->provider = optarg; break;
		case 's': o->meta_src = optarg; break;
		case 't': o->meta_dst = optarg; break;
		case 'l': o->lba = strtoull(optarg, NULL, 0); break;
		case 'b': o->blocks = strtoul(optarg, NULL, 0); break;
		case 'z': o->lba_size = strtoul(optarg, NULL, 0); break;
		case 'm': o->ms = strtoul(optarg, NULL, 0); break;
		default: return -1;
		}
	}
	if (!o->dev || !o->blocks || !o->ms || !o->lba_size)
		return -1;
	if ((!strcmp(o->meta_src, "p2p") || !strcmp(o->meta_dst, "p2p")) &&
	    !o->provider)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char *p2p = NULL, *data, *rdata, *mwant, *msrc, *mram, *mdst;
	size_t dlen, mlen;
	struct opts o;
	char path[256];
	int fd, pfd;

	if (parse(argc, argv, &o)) {
		fprintf(stderr, "usage: p2pmeta --dev DEV --nsid N [--provider PCI] [--meta-src p2p|ram] [--meta-dst p2p|ram] [--lba N] [--blocks N] [--lba-size B] [--ms B]\n");
		return EXIT_SETUP;
	}
	dlen = (size_t)o.blocks * o.lba_size;
	mlen = (size_t)o.blocks * o.ms;
	if (mlen > 2048) {
		fprintf(stderr, "p2pmeta: %zu bytes of metadata exceed 2 KiB\n", mlen);
		return EXIT_SETUP;
	}

	fd = open(o.dev, O_RDWR);
	if (fd < 0) {
		perror(o.dev);
		return EXIT_SETUP;
	}
	if (o.provider) {
		snprintf(path, sizeof(path),
			 "/sys/bus/pci/devices/%s/p2pmem/allocate", o.provider);
		pfd = open(path, O_RDWR);
		if (pfd < 0) {
			perror(path);
			return EXIT_SETUP;
		}
		/* One page: source metadata at 0, read-back metadata at 2 KiB. */
		p2p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
		if (p2p == MAP_FAILED) {
			perror("mmap p2pmem");
			return EXIT_SETUP;
		}
	}
	if (posix_memalign((void **)&data, 4096, dlen) ||
	    posix_memalign((void **)&rdata, 4096, dlen) ||
	    !(mwant = malloc(mlen)))
		return EXIT_SETUP;
	msrc = meta_buffer(o.meta_src, p2p, mlen);
	mram = meta_buffer("ram", NULL, mlen);
	mdst = meta_buffer(o.meta_dst, p2p ? p2p + 2048 : NULL, mlen);
	if (!msrc || !mram || !mdst)
		return EXIT_SETUP;

	fill(data, dlen, (unsigned int)o.lba + 1);
	fill(mwant, mlen, (unsigned int)o.lba + 1000);
	memcpy(msrc, mwant, mlen);
	memset(mdst, 0xa5, mlen);
	printf("meta_src=%s\nmeta_dst=%s\nmeta_bytes=%zu\n", o.meta_src,
	       o.meta_dst, mlen);

	if (nvme_io(fd, &o, NVME_CMD_WRITE, "write", data, msrc))
		return EXIT_CMD;

	memset(rdata, 0, dlen);
	memset(mram, 0, mlen);
	if (nvme_io(fd, &o, NVME_CMD_READ, "read_ram", rdata, mram))
		return EXIT_CMD;
	if (compare("data", rdata, data, dlen) |
	    compare("meta_ram", mram, mwant, mlen))
		return EXIT_MISMATCH;

	memset(rdata, 0, dlen);
	if (nvme_io(fd, &o, NVME_CMD_READ, "read_dst", rdata, mdst))
		return EXIT_CMD;
	if (compare("meta_dst", mdst, mwant, mlen))
		return EXIT_MISMATCH;
	return 0;
}
