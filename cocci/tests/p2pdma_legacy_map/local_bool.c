// Choices through a local bool (class 4 of issue 17). Kept for the unmap
// on a goto error path: both choices go, and the local with them. A local
// also used for something else stays. A local assigned apart from its
// declaration is left, its calls renamed, and reported in every mode.
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

struct vex {
	struct device *dev;
	unsigned int nr_p2p;
};

int vex_post(struct vex *v, struct scatterlist *sg, int count);

static int vex_submit(struct vex *v, struct scatterlist *sg, int nents)
{
	bool p2p = is_pci_p2pdma_page(sg_page(sg));
	int count, ret;

	if (p2p)
		count = pci_p2pdma_map_sg(v->dev, sg, nents, DMA_TO_DEVICE);
	else
		count = dma_map_sg(v->dev, sg, nents, DMA_TO_DEVICE);
	if (!count)
		return -EIO;

	ret = vex_post(v, sg, count);
	if (ret)
		goto unmap;
	return 0;

unmap:
	if (p2p)
		pci_p2pdma_unmap_sg(v->dev, sg, nents, DMA_TO_DEVICE);
	else
		dma_unmap_sg(v->dev, sg, nents, DMA_TO_DEVICE);
	return ret;
}

static int vex_submit_counted(struct vex *v, struct scatterlist *sg,
			      int nents)
{
	bool p2p = is_pci_p2pdma_page(sg_page(sg));
	int count;

	count = p2p ? pci_p2pdma_map_sg(v->dev, sg, nents, DMA_TO_DEVICE) :
		      dma_map_sg(v->dev, sg, nents, DMA_TO_DEVICE);
	if (!count)
		return -EIO;
	if (p2p)
		v->nr_p2p++;
	return count;
}

static int vex_submit_late(struct vex *v, struct scatterlist *sg, int nents)
{
	bool p2p;
	int count;

	if (!nents)
		return 0;
	p2p = is_pci_p2pdma_page(sg_page(sg));
	if (p2p)
		count = pci_p2pdma_map_sg(v->dev, sg, nents, DMA_TO_DEVICE);
	else
		count = dma_map_sg(v->dev, sg, nents, DMA_TO_DEVICE);
	return count ? count : -EIO;
}
