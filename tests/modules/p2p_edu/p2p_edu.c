// SPDX-License-Identifier: GPL-2.0
/*
 * p2p_edu - a real DMA client for P2PDMA tests: QEMU's "edu" device.
 *
 * The edu device has a 4 KiB buffer and a DMA engine that copies between
 * that buffer and a bus address. This driver uses it the way any driver
 * would use its DMA engine: it maps memory with the ordinary streaming DMA
 * API (dma_map_page() or dma_map_sgtable()) and hands the device the
 * resulting addresses. The memory is P2P memory allocated from a provider
 * (an NVMe CMB), so the tests see what the DMA API does with P2PDMA pages
 * for a plain client, and check every byte that lands in the CMB.
 *
 * Interface (debugfs): write "page|sg PROVIDER LENGTH" to
 * /sys/kernel/debug/p2p_edu/<edu PCI name>/transfer. The write moves a
 * pattern RAM -> edu -> P2P memory and another P2P memory -> edu -> RAM,
 * verifies both, and returns LENGTH on success or the mapping's error.
 * Each run logs the DMA addresses it used and its verdict. Ownership of
 * every mapping passes with dma_sync_*_for_device() before the transfer and
 * dma_sync_*_for_cpu() after it, as in any driver. What the device wrote
 * into P2P memory is checked twice: right after dma_sync_*_for_cpu(), while
 * the buffer is still mapped (a driver may read it then and keep the
 * mapping), and after the unmap. When an IOMMU translates edu's DMA, each
 * P2P mapping's line also gives the physical address its IOVA translates
 * to ("-> phys ADDR"): the provider's BAR, unless the mapping was bounced
 * through swiotlb.
 *
 * Writing to .../bench times map+unmap pairs of RAM or P2P pages, single
 * (dma_map_page()) or in a list (dma_map_sgtable()); see bench_write().
 *
 * Writing "PROVIDER LENGTH" to .../hold allocates LENGTH bytes of the
 * provider's P2P memory and maps them for the edu device, and keeps both,
 * as a driver with a transfer in flight would; "release" unmaps and frees
 * them. Reading it tells what is held and whether the DMA layer still
 * recognises the mapping as a P2PDMA bus address. This is how the tests
 * remove a provider while a driver holds its memory.
 *
 * Writing PCI names to /sys/kernel/debug/p2p_edu/find asks the orchestrator,
 * pci_p2pmem_find_many(), for the provider closest to all of those clients;
 * reading it gives the answer ("none" when there is none).
 *
 * Writing "PCI-NAME BITS" to /sys/kernel/debug/p2p_edu/dma_mask sets the DMA
 * mask of any PCI device, as a driver of a device with fewer address bits
 * would. The tests give an NVMe member of an array a mask that its peer's
 * CMB lies beyond: a mapping the DMA core refuses although the pair's
 * decision is a bus address.
 *
 * Writing "PROVIDER BLOCKDEV LENGTH MSECS" to /sys/kernel/debug/p2p_edu/bio
 * writes LENGTH bytes of the provider's P2P memory, allocated by the
 * kernel (as nvmet allocates its p2pmem buffers, not held by any process),
 * to the start of BLOCKDEV, one bio at a time, for MSECS milliseconds;
 * reading it gives the outcome as "writes=N ok=N refused=N again=N
 * error=N last=ERRNO". The tests reset the provider meanwhile: a fenced
 * provider's memory that user space does not hold is refused by the DMA
 * mapping.
 *
 * Writing "PROVIDER BLOCKDEV" to /sys/kernel/debug/p2p_edu/merge writes one
 * page of RAM and one page of the provider's P2P memory to adjacent
 * sectors of BLOCKDEV, as two bios under one plug, so that the block layer
 * may merge them into one request, first RAM then P2P memory and then the
 * other way round; reading it gives each bio's outcome, "ram_first: ram=E
 * p2p=E p2p_first: p2p=E ram=E" (errnos, 0 for success).
 *
 * When an IOMMU translates edu's DMA, each transfer also logs the IOMMU
 * protection that the IOMMU driver was asked to map the provider's BAR
 * with ("IOMMU prot 0x.. (MMIO)"): while a transfer runs, edu's domain takes
 * its mappings through prot_map_pages(), which notes the prot of those in
 * the BAR and hands the call on.
 *
 * QEMU's edu must be given dma_mask=0xffffffffffffffff: its default 28-bit
 * mask cannot reach a BAR.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/iopoll.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_COUNT	0x90
#define EDU_REG_DMA_CMD		0x98
#define EDU_DMA_START		0x01
#define EDU_DMA_TO_RAM		0x02
#define EDU_BUFFER		0x40000
/*
 * QEMU 7.2's edu rejects, and stops the machine on, a transfer that ends
 * exactly at the end of its 4 KiB buffer: keep every transfer below it.
 */
#define EDU_MAX_TRANSFER	(4096 - 2)
#define EDU_DMA_TIMEOUT_US	(5 * USEC_PER_SEC)
#define BENCH_MAX_ENTS		32
/* the BAR of QEMU's NVMe that holds its CMB */
#define P2P_BAR			2

/* fill_pattern() seeds of the data a transfer moves in each direction */
#define SEED_TO_P2P		0x11
#define SEED_FROM_P2P		0x5a

/* " -> phys " and a %pa */
#define PHYS_STR_LEN		32

struct p2p_edu {
	struct pci_dev *pdev;
	void __iomem *bar;
	struct dentry *dir;
	struct mutex lock;	/* one transfer at a time; the hold */
	struct p2p_edu_hold {
		struct pci_dev *provider;
		void *p2p;
		size_t len;
		dma_addr_t addr;
	} hold;
};

static struct dentry *p2p_edu_root;

#define FIND_MAX_CLIENTS	4
static DEFINE_MUTEX(find_lock);
static char find_result[32] = "none";

/* edu_dma - run one DMA between the edu buffer and @addr, and wait for it. */
static int edu_dma(struct p2p_edu *edu, dma_addr_t addr, u32 buf_off, u32 len,
		   bool to_ram)
{
	u64 cmd;

	writeq(to_ram ? EDU_BUFFER + buf_off : addr, edu->bar + EDU_REG_DMA_SRC);
	writeq(to_ram ? addr : EDU_BUFFER + buf_off, edu->bar + EDU_REG_DMA_DST);
	writeq(len, edu->bar + EDU_REG_DMA_COUNT);
	writeq(EDU_DMA_START | (to_ram ? EDU_DMA_TO_RAM : 0),
	       edu->bar + EDU_REG_DMA_CMD);
	return readq_poll_timeout(edu->bar + EDU_REG_DMA_CMD, cmd,
				  !(cmd & EDU_DMA_START), 1000,
				  EDU_DMA_TIMEOUT_US);
}

static void fill_pattern(u8 *p, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = seed + i * 7 + (i >> 8);
}

static int check_pattern(struct p2p_edu *edu, const char *what, const u8 *p,
			 size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		u8 want = seed + i * 7 + (i >> 8);

		if (p[i] != want) {
			pci_err(edu->pdev, "%s: byte %zu is %#x, expected %#x\n",
				what, i, p[i], want);
			return -EILSEQ;
		}
	}
	return 0;
}

/*
 * iommu_phys_str - " -> phys ADDR", where ADDR is the physical address that
 * the IOMMU translates @addr of edu to, or "" when no IOMMU translates edu's
 * DMA. For P2P memory ADDR must be in the provider's BAR; a RAM address
 * means that the mapping was bounced through swiotlb.
 */
static const char *iommu_phys_str(struct p2p_edu *edu, dma_addr_t addr,
				  char *buf, size_t size)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(&edu->pdev->dev);
	phys_addr_t phys;

	if (!domain || !(domain->type & __IOMMU_DOMAIN_PAGING))
		return "";
	phys = iommu_iova_to_phys(domain, addr);
	snprintf(buf, size, " -> phys %pa", &phys);
	return buf;
}

/*
 * The IOMMU protection of the mappings of a provider's BAR during one
 * transfer: edu's domain gets a copy of its ops whose map_pages() notes the
 * prot of every mapping inside [prot_bar_lo, prot_bar_hi]. Transfers are
 * serialised by prot_lock, and the domain's own ops are back before it is
 * dropped.
 */
static DEFINE_MUTEX(prot_lock);
static const struct iommu_domain_ops *prot_orig_ops;
static struct iommu_domain_ops prot_ops;
static phys_addr_t prot_bar_lo, prot_bar_hi;
static int prot_bar_seen, prot_bar_maps;

static int prot_map_pages(struct iommu_domain *domain, unsigned long iova,
			  phys_addr_t paddr, size_t pgsize, size_t pgcount,
			  int prot, gfp_t gfp, size_t *mapped)
{
	if (paddr >= prot_bar_lo && paddr <= prot_bar_hi) {
		prot_bar_seen |= prot;
		prot_bar_maps++;
	}
	return prot_orig_ops->map_pages(domain, iova, paddr, pgsize, pgcount,
					prot, gfp, mapped);
}

/* prot_watch_start - watch edu's mappings of @provider's BAR @bar. */
static struct iommu_domain *prot_watch_start(struct p2p_edu *edu,
					     struct pci_dev *provider, int bar)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(&edu->pdev->dev);

	if (!domain || !(domain->type & __IOMMU_DOMAIN_PAGING) ||
	    !domain->ops->map_pages)
		return NULL;
	mutex_lock(&prot_lock);
	prot_bar_lo = pci_resource_start(provider, bar);
	prot_bar_hi = pci_resource_end(provider, bar);
	prot_bar_seen = 0;
	prot_bar_maps = 0;
	prot_orig_ops = domain->ops;
	prot_ops = *domain->ops;
	prot_ops.map_pages = prot_map_pages;
	WRITE_ONCE(domain->ops, &prot_ops);
	return domain;
}

/* prot_watch_stop - give @domain its ops back and log what was seen. */
static void prot_watch_stop(struct p2p_edu *edu, struct iommu_domain *domain,
			    const char *mode)
{
	if (!domain)
		return;
	WRITE_ONCE(domain->ops, prot_orig_ops);
	if (prot_bar_maps)
		pci_info(edu->pdev, "%s: %d IOMMU mappings of the provider's BAR, IOMMU prot %#x (%s)\n",
			 mode, prot_bar_maps, prot_bar_seen,
			 prot_bar_seen & IOMMU_MMIO ? "MMIO" : "not MMIO");
	mutex_unlock(&prot_lock);
}

/* ram_dma - move @len bytes between a RAM buffer and the edu buffer. */
static int ram_dma(struct p2p_edu *edu, void *ram, size_t len, bool to_ram)
{
	struct device *dev = &edu->pdev->dev;
	enum dma_data_direction dir = to_ram ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	dma_addr_t addr;
	int ret;

	addr = dma_map_single(dev, ram, len, dir);
	if (dma_mapping_error(dev, addr))
		return -ENOMEM;
	ret = edu_dma(edu, addr, 0, len, to_ram);
	dma_unmap_single(dev, addr, len, dir);
	return ret;
}

/*
 * p2p_dma_page - move @len bytes between P2P memory and the edu buffer,
 * mapped with dma_map_page() as a driver maps any page. @seed is the
 * pattern P2P memory holds after the transfer: when the device wrote it
 * (@to_p2p), it is checked as soon as the CPU owns the buffer again.
 */
static int p2p_dma_page(struct p2p_edu *edu, void *p2p, size_t len,
			bool to_p2p, u8 seed)
{
	struct device *dev = &edu->pdev->dev;
	enum dma_data_direction dir = to_p2p ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	char phys[PHYS_STR_LEN];
	dma_addr_t addr;
	int ret;

	addr = dma_map_page(dev, virt_to_page(p2p), offset_in_page(p2p), len,
			    dir);
	if (dma_mapping_error(dev, addr))
		return -EIO;
	pci_info(edu->pdev, "page: %zu bytes of P2P memory at %pad for DMA%s\n",
		 len, &addr, iommu_phys_str(edu, addr, phys, sizeof(phys)));
	/* Ownership passes as for any streaming mapping. */
	dma_sync_single_for_device(dev, addr, len, dir);
	ret = edu_dma(edu, addr, 0, len, to_p2p);
	dma_sync_single_for_cpu(dev, addr, len, dir);
	if (!ret && to_p2p)
		ret = check_pattern(edu, "page: RAM -> P2P after sync_for_cpu",
				    p2p, len, seed);
	dma_unmap_page(dev, addr, len, dir);
	return ret;
}

/*
 * p2p_dma_sg - the same through dma_map_sgtable(), with the buffer split in
 * two scatterlist entries so that the device sees more than one segment.
 */
static int p2p_dma_sg(struct p2p_edu *edu, void *p2p, size_t len, bool to_p2p,
		      u8 seed)
{
	struct device *dev = &edu->pdev->dev;
	enum dma_data_direction dir = to_p2p ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	size_t half = len / 2, done = 0;
	char phys[PHYS_STR_LEN];
	struct scatterlist *sg;
	struct sg_table sgt;
	int i, ret;

	ret = sg_alloc_table(&sgt, 2, GFP_KERNEL);
	if (ret)
		return ret;
	sg_set_page(sgt.sgl, virt_to_page(p2p), half, offset_in_page(p2p));
	sg_set_page(sg_next(sgt.sgl), virt_to_page(p2p + half), len - half,
		    offset_in_page(p2p + half));
	ret = dma_map_sgtable(dev, &sgt, dir, 0);
	if (ret)
		goto free;
	dma_sync_sgtable_for_device(dev, &sgt, dir);
	for_each_sgtable_dma_sg(&sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);

		pci_info(edu->pdev, "sg: segment %d, %u bytes at %pad%s\n",
			 i, sg_dma_len(sg), &addr,
			 iommu_phys_str(edu, addr, phys, sizeof(phys)));
		ret = edu_dma(edu, addr, done, sg_dma_len(sg), to_p2p);
		if (ret)
			break;
		done += sg_dma_len(sg);
	}
	dma_sync_sgtable_for_cpu(dev, &sgt, dir);
	if (!ret && to_p2p)
		ret = check_pattern(edu, "sg: RAM -> P2P after sync_for_cpu",
				    p2p, len, seed);
	dma_unmap_sgtable(dev, &sgt, dir, 0);
free:
	sg_free_table(&sgt);
	return ret;
}

static int p2p_dma(struct p2p_edu *edu, bool sg, void *p2p, size_t len,
		   bool to_p2p, u8 seed)
{
	return sg ? p2p_dma_sg(edu, p2p, len, to_p2p, seed) :
		    p2p_dma_page(edu, p2p, len, to_p2p, seed);
}

/* run_transfer - RAM -> edu -> P2P and P2P -> edu -> RAM, both verified. */
static int run_transfer(struct p2p_edu *edu, bool sg, struct pci_dev *provider,
			size_t len)
{
	void *ram, *p2p;
	int ret;

	ram = kmalloc(len, GFP_KERNEL);
	p2p = pci_alloc_p2pmem(provider, len);
	if (!ram || !p2p) {
		ret = -ENOMEM;
		goto out;
	}

	fill_pattern(ram, len, SEED_TO_P2P);
	memset(p2p, 0, len);
	ret = ram_dma(edu, ram, len, false);
	if (!ret)
		ret = p2p_dma(edu, sg, p2p, len, true, SEED_TO_P2P);
	if (!ret)
		ret = check_pattern(edu, "RAM -> P2P", p2p, len, SEED_TO_P2P);
	if (ret)
		goto out;

	fill_pattern(p2p, len, SEED_FROM_P2P);
	memset(ram, 0, len);
	ret = p2p_dma(edu, sg, p2p, len, false, SEED_FROM_P2P);
	if (!ret)
		ret = ram_dma(edu, ram, len, true);
	if (!ret)
		ret = check_pattern(edu, "P2P -> RAM", ram, len, SEED_FROM_P2P);
out:
	if (p2p)
		pci_free_p2pmem(provider, p2p, len);
	kfree(ram);
	return ret;
}

static struct pci_dev *find_provider(const char *name)
{
	unsigned int domain, bus, slot, fn;

	if (sscanf(name, "%x:%x:%x.%x", &domain, &bus, &slot, &fn) != 4)
		return NULL;
	return pci_get_domain_bus_and_slot(domain, bus, PCI_DEVFN(slot, fn));
}

/* user_cmd - the command written to a debugfs file, NUL-terminated. */
static int user_cmd(char *buf, size_t size, const char __user *ubuf,
		    size_t count)
{
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	return 0;
}

static ssize_t transfer_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct p2p_edu *edu = file_inode(file)->i_private;
	char buf[64], mode[8], name[32];
	struct iommu_domain *domain;
	struct pci_dev *provider;
	size_t len;
	int ret;

	ret = user_cmd(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "%7s %31s %zu", mode, name, &len) != 3 ||
	    (strcmp(mode, "page") && strcmp(mode, "sg")) ||
	    !len || len > EDU_MAX_TRANSFER || len % 2)
		return -EINVAL;

	provider = find_provider(name);
	if (!provider)
		return -ENODEV;

	mutex_lock(&edu->lock);
	domain = prot_watch_start(edu, provider, P2P_BAR);
	ret = run_transfer(edu, !strcmp(mode, "sg"), provider, len);
	prot_watch_stop(edu, domain, mode);
	mutex_unlock(&edu->lock);
	pci_info(edu->pdev, "%s transfer of %zu bytes with P2P memory of %s: %s (%d)\n",
		 mode, len, name, ret ? "failed" : "verified", ret);
	pci_dev_put(provider);
	return ret ? ret : count;
}

/*
 * Benchmark buffers: @nents pages of RAM (each allocated on its own, as a
 * driver's pages would be) or of one provider's P2P memory.
 */
struct bench_buf {
	struct pci_dev *provider;	/* NULL: RAM */
	struct page *pages[BENCH_MAX_ENTS];
	void *p2p;
	unsigned int nents;
};

static void bench_buf_free(struct bench_buf *b)
{
	unsigned int i;

	if (b->provider) {
		if (b->p2p)
			pci_free_p2pmem(b->provider, b->p2p, b->nents * PAGE_SIZE);
		return;
	}
	for (i = 0; i < b->nents; i++)
		if (b->pages[i])
			__free_page(b->pages[i]);
}

static int bench_buf_alloc(struct bench_buf *b)
{
	unsigned int i;

	if (b->provider) {
		b->p2p = pci_alloc_p2pmem(b->provider, b->nents * PAGE_SIZE);
		if (!b->p2p)
			return -ENOMEM;
		for (i = 0; i < b->nents; i++)
			b->pages[i] = virt_to_page(b->p2p + i * PAGE_SIZE);
		return 0;
	}
	for (i = 0; i < b->nents; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL);
		if (!b->pages[i])
			return -ENOMEM;
	}
	return 0;
}

/* bench_page - @n dma_map_page() + dma_unmap_page() pairs of one page. */
static int bench_page(struct device *dev, struct bench_buf *b, unsigned int n)
{
	dma_addr_t addr;
	unsigned int i;

	for (i = 0; i < n; i++) {
		addr = dma_map_page(dev, b->pages[0], 0, PAGE_SIZE, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, addr))
			return -EIO;
		dma_unmap_page(dev, addr, PAGE_SIZE, DMA_TO_DEVICE);
	}
	return 0;
}

/*
 * The price of one function call and return, as a mapping path pays it
 * for each out-of-line step: under TCG a return is an indirect jump,
 * resolved through a lookup, and so are the kernel's return thunks.
 */
static noinline int bench_nop(int i)
{
	barrier();
	return i;
}

/* bench_calls - @n calls of an empty out-of-line function. */
static int bench_calls(unsigned int n)
{
	unsigned int i;
	int sum = 0;

	for (i = 0; i < n; i++)
		sum += bench_nop(i);
	return sum & 0;
}

/* bench_sg - @n dma_map_sgtable() + dma_unmap_sgtable() of all the pages. */
static int bench_sg(struct device *dev, struct bench_buf *b, unsigned int n)
{
	struct sg_table sgt;
	unsigned int i;
	int ret;

	ret = sg_alloc_table_from_pages_segment(&sgt, b->pages, b->nents, 0,
						b->nents * PAGE_SIZE, PAGE_SIZE,
						GFP_KERNEL);
	if (ret)
		return ret;
	for (i = 0; i < n && !ret; i++) {
		ret = dma_map_sgtable(dev, &sgt, DMA_TO_DEVICE, 0);
		if (!ret)
			dma_unmap_sgtable(dev, &sgt, DMA_TO_DEVICE, 0);
	}
	sg_free_table(&sgt);
	return ret;
}

/*
 * Whether @addr..@addr+@len-1 is a PCI bus address inside one of
 * @provider's memory BARs, as a switch-local P2P mapping is. The DMA core's
 * own lookup is not exported: no in-tree module needs it.
 */
static bool edu_is_bus_addr(struct pci_dev *provider, dma_addr_t addr,
			    size_t len)
{
	int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		pci_bus_addr_t start = pci_bus_address(provider, bar);

		if ((pci_resource_flags(provider, bar) & IORESOURCE_MEM) &&
		    addr >= start &&
		    addr + len - 1 <= start + pci_resource_len(provider, bar) - 1)
			return true;
	}
	return false;
}

/*
 * bench_write - time N map+unmap pairs, for what mapping P2P pages costs
 * against RAM pages and what the P2PDMA checks cost RAM:
 *
 *   "N"                        one RAM page, dma_map_page()
 *   "ram|PROVIDER page N"      one page, dma_map_page()
 *   "ram|PROVIDER sgE N"       E pages (1 to 32) in a list, dma_map_sgtable()
 *   "ram call N"               N calls of an empty function, for scale
 *
 * The pages of a list are one entry each (max_segment PAGE_SIZE), so that
 * RAM and P2P lists have the same E entries whatever their addresses.
 */
static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct p2p_edu *edu = file_inode(file)->i_private;
	struct device *dev = &edu->pdev->dev;
	struct bench_buf b = { .nents = 1 };
	char buf[64], src[32], mode[8];
	unsigned int n;
	bool sg = false;
	u64 start, ns;
	int ret;

	ret = user_cmd(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "%31s %7s %u", src, mode, &n) != 3) {
		if (kstrtouint(strim(buf), 0, &n))
			return -EINVAL;
		strscpy(src, "ram", sizeof(src));
		strscpy(mode, "page", sizeof(mode));
	}
	if (!strncmp(mode, "sg", 2)) {
		sg = true;
		if (kstrtouint(mode + 2, 10, &b.nents))
			return -EINVAL;
	} else if (strcmp(mode, "page") && strcmp(mode, "call")) {
		return -EINVAL;
	}
	if (!n || n > 10000000 || !b.nents || b.nents > BENCH_MAX_ENTS)
		return -EINVAL;
	if (strcmp(src, "ram")) {
		b.provider = find_provider(src);
		if (!b.provider)
			return -ENODEV;
	}

	ret = bench_buf_alloc(&b);
	if (!ret) {
		start = ktime_get_ns();
		if (!strcmp(mode, "call"))
			ret = bench_calls(n);
		else
			ret = sg ? bench_sg(dev, &b, n) : bench_page(dev, &b, n);
		ns = ktime_get_ns() - start;
	}
	bench_buf_free(&b);
	pci_dev_put(b.provider);
	if (ret)
		return ret;
	pci_info(edu->pdev, "bench: %s %s: %u map+unmap, %llu ps each\n",
		 src, mode, n, div_u64(ns * 1000, n));
	return count;
}

/* find_clients - pci_p2pmem_find_many() for the PCI devices named in @buf. */
static int find_clients(char *buf)
{
	struct device *clients[FIND_MAX_CLIENTS];
	struct pci_dev *pdev, *found;
	int n = 0, i, ret = 0;
	char *name;

	while ((name = strsep(&buf, " \n")) && n < FIND_MAX_CLIENTS) {
		if (!*name)
			continue;
		pdev = find_provider(name);
		if (!pdev) {
			ret = -ENODEV;
			goto put;
		}
		clients[n++] = &pdev->dev;
	}
	if (!n || (name && *name)) {
		ret = -EINVAL;
		goto put;
	}
	found = pci_p2pmem_find_many(clients, n);
	strscpy(find_result, found ? pci_name(found) : "none",
		sizeof(find_result));
	pci_dev_put(found);
put:
	for (i = 0; i < n; i++)
		pci_dev_put(to_pci_dev(clients[i]));
	return ret;
}

static ssize_t find_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char buf[160];
	int ret;

	ret = user_cmd(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	mutex_lock(&find_lock);
	ret = find_clients(buf);
	mutex_unlock(&find_lock);
	return ret ? ret : count;
}

static ssize_t find_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	char buf[40];
	int n;

	mutex_lock(&find_lock);
	n = scnprintf(buf, sizeof(buf), "%s\n", find_result);
	mutex_unlock(&find_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations find_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= find_read,
	.write	= find_write,
};

/* hold_release - unmap and free what hold_write() took; edu->lock held. */
static void hold_release(struct p2p_edu *edu)
{
	struct p2p_edu_hold *h = &edu->hold;

	if (!h->provider)
		return;
	dma_unmap_page(&edu->pdev->dev, h->addr, h->len, DMA_BIDIRECTIONAL);
	pci_free_p2pmem(h->provider, h->p2p, h->len);
	pci_info(edu->pdev, "hold: released %zu bytes of P2P memory of %s\n",
		 h->len, pci_name(h->provider));
	pci_dev_put(h->provider);
	memset(h, 0, sizeof(*h));
}

/* hold_take - allocate and map @len bytes of @provider; edu->lock held. */
static int hold_take(struct p2p_edu *edu, struct pci_dev *provider,
		     size_t len)
{
	struct device *dev = &edu->pdev->dev;
	struct p2p_edu_hold *h = &edu->hold;

	if (h->provider)
		return -EBUSY;
	h->p2p = pci_alloc_p2pmem(provider, len);
	if (!h->p2p)
		return -ENOMEM;
	h->addr = dma_map_page(dev, virt_to_page(h->p2p), offset_in_page(h->p2p),
			       len, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, h->addr)) {
		pci_free_p2pmem(provider, h->p2p, len);
		return -EIO;
	}
	h->provider = pci_dev_get(provider);
	h->len = len;
	pci_info(edu->pdev, "hold: %zu bytes of P2P memory of %s mapped at %pad\n",
		 len, pci_name(provider), &h->addr);
	return 0;
}

static ssize_t hold_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	struct p2p_edu *edu = file_inode(file)->i_private;
	struct pci_dev *provider;
	char buf[64], name[32];
	size_t len;
	int ret;

	ret = user_cmd(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sysfs_streq(buf, "release")) {
		mutex_lock(&edu->lock);
		hold_release(edu);
		mutex_unlock(&edu->lock);
		return count;
	}
	if (sscanf(buf, "%31s %zu", name, &len) != 2 || !len ||
	    len > SZ_256M)
		return -EINVAL;
	provider = find_provider(name);
	if (!provider)
		return -ENODEV;
	mutex_lock(&edu->lock);
	ret = hold_take(edu, provider, len);
	mutex_unlock(&edu->lock);
	pci_dev_put(provider);
	return ret ? ret : count;
}

static ssize_t hold_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	struct p2p_edu *edu = file_inode(file)->i_private;
	struct p2p_edu_hold *h = &edu->hold;
	char buf[160];
	int n;

	mutex_lock(&edu->lock);
	if (h->provider)
		n = scnprintf(buf, sizeof(buf),
			      "provider=%s len=%zu dma=%pad bus_addr=%s\n",
			      pci_name(h->provider), h->len, &h->addr,
			      edu_is_bus_addr(h->provider, h->addr, h->len) ?
			      "yes" : "no");
	else
		n = scnprintf(buf, sizeof(buf), "none\n");
	mutex_unlock(&edu->lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations hold_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= hold_read,
	.write	= hold_write,
};

static const struct file_operations bench_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= bench_write,
};

static const struct file_operations transfer_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= transfer_write,
};

/*
 * dma_mask_write - "PCI-NAME BITS": set the DMA mask of a PCI device, as
 * the driver of a device with BITS address bits would (1 to 64).
 */
static ssize_t dma_mask_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct pci_dev *pdev;
	char buf[64], name[32];
	unsigned int bits;
	int ret;

	ret = user_cmd(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "%31s %u", name, &bits) != 2 || !bits || bits > 64)
		return -EINVAL;
	pdev = find_provider(name);
	if (!pdev)
		return -ENODEV;
	ret = dma_set_mask(&pdev->dev, DMA_BIT_MASK(bits));
	if (!ret)
		pci_info(pdev, "p2p_edu: DMA mask set to %u bits\n", bits);
	pci_dev_put(pdev);
	return ret ? ret : count;
}

static const struct file_operations dma_mask_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= dma_mask_write,
};

/* The outcome of the last run of the bio file. */
static DEFINE_MUTEX(bio_lock);
static struct {
	unsigned int writes, ok, refused, again, error;
	int last;
} bio_result;

/* bio_write_p2p - one write of @len bytes at @p2p to the start of @bdev. */
static int bio_write_p2p(struct block_device *bdev, void *p2p, size_t len)
{
	unsigned int i, nr = len >> PAGE_SHIFT;
	struct bio *bio;
	int ret;

	bio = bio_alloc(bdev, nr, REQ_OP_WRITE | REQ_SYNC, GFP_KERNEL);
	for (i = 0; i < nr; i++)
		__bio_add_page(bio, virt_to_page(p2p + i * PAGE_SIZE),
			       PAGE_SIZE, 0);
	bio->bi_iter.bi_sector = 0;
	ret = submit_bio_wait(bio);
	bio_put(bio);
	return ret;
}

static void bio_count(int ret)
{
	bio_result.writes++;
	bio_result.last = ret;
	if (!ret)
		bio_result.ok++;
	else if (ret == -EREMOTEIO)
		bio_result.refused++;
	else if (ret == -EAGAIN)
		bio_result.again++;
	else
		bio_result.error++;
}

static ssize_t bio_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[128], name[32], path[64];
	unsigned int msecs;
	struct pci_dev *provider;
	struct file *bdev_file;
	ktime_t deadline;
	size_t len;
	void *p2p;
	int ret;

	ret = user_cmd(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "%31s %63s %zu %u", name, path, &len, &msecs) != 4 ||
	    !len || len % PAGE_SIZE || len > BIO_MAX_VECS * PAGE_SIZE ||
	    !msecs || msecs > 60 * MSEC_PER_SEC)
		return -EINVAL;
	provider = find_provider(name);
	if (!provider)
		return -ENODEV;
	bdev_file = bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE,
					   NULL, NULL);
	if (IS_ERR(bdev_file)) {
		ret = PTR_ERR(bdev_file);
		goto put_provider;
	}
	p2p = pci_alloc_p2pmem(provider, len);
	if (!p2p) {
		ret = -ENOMEM;
		goto close;
	}
	fill_pattern(p2p, len, SEED_TO_P2P);

	mutex_lock(&bio_lock);
	memset(&bio_result, 0, sizeof(bio_result));
	deadline = ktime_add_ms(ktime_get(), msecs);
	while (ktime_before(ktime_get(), deadline)) {
		bio_count(bio_write_p2p(file_bdev(bdev_file), p2p, len));
		cond_resched();
	}
	mutex_unlock(&bio_lock);
	pci_free_p2pmem(provider, p2p, len);
	ret = 0;
close:
	fput(bdev_file);
put_provider:
	pci_dev_put(provider);
	return ret ? ret : count;
}

static ssize_t bio_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	char buf[128];
	int n;

	mutex_lock(&bio_lock);
	n = scnprintf(buf, sizeof(buf),
		      "writes=%u ok=%u refused=%u again=%u error=%u last=%d\n",
		      bio_result.writes, bio_result.ok, bio_result.refused,
		      bio_result.again, bio_result.error, bio_result.last);
	mutex_unlock(&bio_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations bio_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= bio_read,
	.write	= bio_write,
};

/* One bio of a merge run and its outcome. */
struct merge_io {
	struct completion done;
	int err;
};

static void merge_end_io(struct bio *bio)
{
	struct merge_io *io = bio->bi_private;

	io->err = blk_status_to_errno(bio->bi_status);
	bio_put(bio);
	complete(&io->done);
}

static void merge_submit(struct block_device *bdev, struct page *page,
			 sector_t sector, struct merge_io *io)
{
	struct bio *bio = bio_alloc(bdev, 1, REQ_OP_WRITE, GFP_KERNEL);

	init_completion(&io->done);
	__bio_add_page(bio, page, PAGE_SIZE, 0);
	bio->bi_iter.bi_sector = sector;
	bio->bi_private = io;
	bio->bi_end_io = merge_end_io;
	submit_bio(bio);
}

/*
 * Two adjacent writes of @first and @second at @sector under one plug:
 * the second may be merged into the request of the first.
 */
static void merge_pair(struct block_device *bdev, struct page *first,
		       struct page *second, sector_t sector,
		       struct merge_io io[2])
{
	struct blk_plug plug;

	blk_start_plug(&plug);
	merge_submit(bdev, first, sector, &io[0]);
	merge_submit(bdev, second, sector + (PAGE_SIZE >> SECTOR_SHIFT),
		     &io[1]);
	blk_finish_plug(&plug);
	wait_for_completion(&io[0].done);
	wait_for_completion(&io[1].done);
}

static DEFINE_MUTEX(merge_lock);
static char merge_result[96] = "none";

static ssize_t merge_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct merge_io ram_first[2], p2p_first[2];
	char buf[128], name[32], path[64];
	struct pci_dev *provider;
	struct file *bdev_file;
	struct page *ram;
	void *p2p;
	int ret;

	ret = user_cmd(buf, sizeof(buf), ubuf, count);
	if (ret)
		return ret;
	if (sscanf(buf, "%31s %63s", name, path) != 2)
		return -EINVAL;
	provider = find_provider(name);
	if (!provider)
		return -ENODEV;
	bdev_file = bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE,
					   NULL, NULL);
	if (IS_ERR(bdev_file)) {
		ret = PTR_ERR(bdev_file);
		goto put_provider;
	}
	ram = alloc_page(GFP_KERNEL);
	p2p = pci_alloc_p2pmem(provider, PAGE_SIZE);
	if (!ram || !p2p) {
		ret = -ENOMEM;
		goto free;
	}
	fill_pattern(page_address(ram), PAGE_SIZE, SEED_TO_P2P);
	fill_pattern(p2p, PAGE_SIZE, SEED_FROM_P2P);

	merge_pair(file_bdev(bdev_file), ram, virt_to_page(p2p), 0, ram_first);
	merge_pair(file_bdev(bdev_file), virt_to_page(p2p), ram, 16,
		   p2p_first);
	mutex_lock(&merge_lock);
	snprintf(merge_result, sizeof(merge_result),
		 "ram_first: ram=%d p2p=%d p2p_first: p2p=%d ram=%d\n",
		 ram_first[0].err, ram_first[1].err, p2p_first[0].err,
		 p2p_first[1].err);
	mutex_unlock(&merge_lock);
free:
	if (p2p)
		pci_free_p2pmem(provider, p2p, PAGE_SIZE);
	if (ram)
		__free_page(ram);
	fput(bdev_file);
put_provider:
	pci_dev_put(provider);
	return ret ? ret : count;
}

static ssize_t merge_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&merge_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, merge_result,
				      strlen(merge_result));
	mutex_unlock(&merge_lock);
	return ret;
}

static const struct file_operations merge_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= merge_read,
	.write	= merge_write,
};

static int p2p_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct p2p_edu *edu;
	int ret;

	edu = devm_kzalloc(&pdev->dev, sizeof(*edu), GFP_KERNEL);
	if (!edu)
		return -ENOMEM;
	edu->pdev = pdev;
	mutex_init(&edu->lock);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	pci_set_master(pdev);
	edu->bar = pcim_iomap(pdev, 0, 0);
	if (!edu->bar)
		return -ENOMEM;

	edu->dir = debugfs_create_dir(pci_name(pdev), p2p_edu_root);
	debugfs_create_file("transfer", 0200, edu->dir, edu, &transfer_fops);
	debugfs_create_file("bench", 0200, edu->dir, edu, &bench_fops);
	debugfs_create_file("hold", 0600, edu->dir, edu, &hold_fops);
	pci_set_drvdata(pdev, edu);
	return 0;
}

static void p2p_edu_remove(struct pci_dev *pdev)
{
	struct p2p_edu *edu = pci_get_drvdata(pdev);

	debugfs_remove_recursive(edu->dir);
	mutex_lock(&edu->lock);
	hold_release(edu);
	mutex_unlock(&edu->lock);
}

static const struct pci_device_id p2p_edu_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },
	{ }
};
MODULE_DEVICE_TABLE(pci, p2p_edu_ids);

static struct pci_driver p2p_edu_driver = {
	.name		= "p2p_edu",
	.id_table	= p2p_edu_ids,
	.probe		= p2p_edu_probe,
	.remove		= p2p_edu_remove,
};

/*
 * For qemu/bench.sh's "windows" topology: bound to an ivshmem-plain
 * device, register @windows windows of P2P memory of 2 MiB each (a memory
 * hotplug subsection, the smallest window there can be) in its memory BAR,
 * so that the DMA core's bus-address lookup can be timed against the
 * number of windows. They go when the driver is unbound (devres).
 */
static unsigned int windows;
module_param(windows, uint, 0444);
MODULE_PARM_DESC(windows, "P2P memory windows of 2 MiB to register on an ivshmem device");

#define WINDOWS_BAR	2

static int p2p_windows_probe(struct pci_dev *pdev,
			     const struct pci_device_id *id)
{
	unsigned int i;
	int ret;

	if (!windows)
		return -ENODEV;
	if ((u64)windows * SZ_2M > pci_resource_len(pdev, WINDOWS_BAR))
		return -ENOSPC;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	for (i = 0; i < windows; i++) {
		ret = pci_p2pdma_add_resource(pdev, WINDOWS_BAR, SZ_2M,
					      (u64)i * SZ_2M);
		if (ret)
			return ret;
	}
	pci_info(pdev, "%u P2P memory windows of 2 MiB\n", windows);
	return 0;
}

static const struct pci_device_id p2p_windows_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },	/* ivshmem */
	{ }
};

static struct pci_driver p2p_windows_driver = {
	.name		= "p2p_edu_windows",
	.id_table	= p2p_windows_ids,
	.probe		= p2p_windows_probe,
};

static int __init p2p_edu_init(void)
{
	int ret;

	p2p_edu_root = debugfs_create_dir("p2p_edu", NULL);
	debugfs_create_file("find", 0600, p2p_edu_root, NULL, &find_fops);
	debugfs_create_file("dma_mask", 0200, p2p_edu_root, NULL,
			    &dma_mask_fops);
	debugfs_create_file("bio", 0600, p2p_edu_root, NULL, &bio_fops);
	debugfs_create_file("merge", 0600, p2p_edu_root, NULL, &merge_fops);
	ret = pci_register_driver(&p2p_windows_driver);
	if (ret)
		goto out;
	ret = pci_register_driver(&p2p_edu_driver);
	if (ret)
		pci_unregister_driver(&p2p_windows_driver);
out:
	if (ret)
		debugfs_remove_recursive(p2p_edu_root);
	return ret;
}
module_init(p2p_edu_init);

static void __exit p2p_edu_exit(void)
{
	pci_unregister_driver(&p2p_edu_driver);
	pci_unregister_driver(&p2p_windows_driver);
	debugfs_remove_recursive(p2p_edu_root);
}
module_exit(p2p_edu_exit);

MODULE_DESCRIPTION("QEMU edu device as a DMA client of P2P memory, for tests");
MODULE_LICENSE("GPL");
