// The 5.x-era shape: the _attrs variants, braces on both arms.
#include <linux/blk-mq.h>
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

struct bar_dev {
	struct device *dev;
};

struct bar_iod {
	struct scatterlist *sg;
	int nents;
};

static blk_status_t bar_map(struct bar_dev *dev, struct bar_iod *iod,
			    enum dma_data_direction dir)
{
	int nr_mapped;

	if (is_pci_p2pdma_page(sg_page(iod->sg))) {
		nr_mapped = pci_p2pdma_map_sg_attrs(dev->dev, iod->sg,
						    iod->nents, dir,
						    DMA_ATTR_NO_WARN);
	} else {
		nr_mapped = dma_map_sg_attrs(dev->dev, iod->sg, iod->nents,
					     dir, DMA_ATTR_NO_WARN);
	}
	if (!nr_mapped)
		return BLK_STS_RESOURCE;
	return BLK_STS_OK;
}

static void bar_unmap(struct bar_dev *dev, struct bar_iod *iod,
		      enum dma_data_direction dir)
{
	if (!is_pci_p2pdma_page(sg_page(iod->sg)))
		dma_unmap_sg_attrs(dev->dev, iod->sg, iod->nents, dir, 0);
	else
		pci_p2pdma_unmap_sg_attrs(dev->dev, iod->sg, iod->nents, dir, 0);
}
