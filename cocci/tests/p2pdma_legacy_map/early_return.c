// Early returns (class 3 of issue 17). A helper that returns the P2P call
// in one arm and the plain one after it, and a void unmap that returns
// early at its end, lose the choice. An early return followed by more code
// than the other arm is left as it is, its call renamed, and reported in
// every mode as such (not as "not converted").
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

struct zed {
	struct device *dev;
	unsigned int nr_unmapped;
};

static int zed_map(struct zed *z, struct scatterlist *sg, int nents,
		   enum dma_data_direction dir)
{
	if (is_pci_p2pdma_page(sg_page(sg)))
		return pci_p2pdma_map_sg_attrs(z->dev, sg, nents, dir,
					       DMA_ATTR_NO_WARN);
	return dma_map_sg_attrs(z->dev, sg, nents, dir, DMA_ATTR_NO_WARN);
}

static void zed_unmap(struct zed *z, struct scatterlist *sg, int nents,
		      enum dma_data_direction dir)
{
	if (is_pci_p2pdma_page(sg_page(sg))) {
		pci_p2pdma_unmap_sg(z->dev, sg, nents, dir);
		return;
	}
	dma_unmap_sg(z->dev, sg, nents, dir);
}

/* The early return also skips the count: more than a mapping function. */
static void zed_unmap_counted(struct zed *z, struct scatterlist *sg,
			      int nents, enum dma_data_direction dir)
{
	if (is_pci_p2pdma_page(sg_page(sg))) {
		pci_p2pdma_unmap_sg(z->dev, sg, nents, dir);
		return;
	}
	dma_unmap_sg(z->dev, sg, nents, dir);
	z->nr_unmapped++;
}
