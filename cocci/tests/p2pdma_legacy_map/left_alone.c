// Callers that must be left alone: is_pci_p2pdma_page() deciding something
// other than the mapping function, a choice whose arms still differ after
// the conversion (RDMA's rw helpers in 5.x: a different device and a
// virtual-DMA check), a test with no other arm, and a choice on a flag set
// elsewhere. Their old calls are renamed; the choices are reported in
// every mode.
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

static int quux_copy(struct page *page, void *buf, size_t len)
{
	if (is_pci_p2pdma_page(page))
		return -EINVAL;	/* the CPU must not memcpy from a BAR */
	memcpy(buf, page_address(page), len);
	return 0;
}

static int rdma_rw_map_sg(struct ib_device *dev, struct scatterlist *sg,
			  u32 sg_cnt, enum dma_data_direction dir)
{
	if (is_pci_p2pdma_page(sg_page(sg))) {
		if (WARN_ON_ONCE(ib_uses_virt_dma(dev)))
			return 0;
		return pci_p2pdma_map_sg(dev->dma_device, sg, sg_cnt, dir);
	}
	return ib_dma_map_sg(dev, sg, sg_cnt, dir);
}

static void rdma_rw_unmap_sg(struct ib_device *dev, struct scatterlist *sg,
			     u32 sg_cnt, enum dma_data_direction dir)
{
	if (is_pci_p2pdma_page(sg_page(sg)))
		pci_p2pdma_unmap_sg(dev->dma_device, sg, sg_cnt, dir);
	else
		ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
}

/* Only the P2P arm unmaps here (the other one elsewhere): reported. */
static void quux_unmap_p2p(struct device *dev, struct scatterlist *sg,
			   int nents)
{
	if (is_pci_p2pdma_page(sg_page(sg)))
		pci_p2pdma_unmap_sg(dev, sg, nents, DMA_TO_DEVICE);
}

/* A choice on a flag of the request, set elsewhere: left, and reported. */
struct quux_req {
	struct device *dev;
	struct scatterlist *sg;
	int nents;
	bool p2p;
};

static void quux_unmap(struct quux_req *r)
{
	if (r->p2p)
		pci_p2pdma_unmap_sg(r->dev, r->sg, r->nents, DMA_BIDIRECTIONAL);
	else
		dma_unmap_sg(r->dev, r->sg, r->nents, DMA_BIDIRECTIONAL);
}
