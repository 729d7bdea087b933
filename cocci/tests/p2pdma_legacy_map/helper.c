// A small helper wrapping the choice with an early return, and a
// conditional expression on an sg_table.
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

static int baz_map_sg(struct device *dev, struct scatterlist *sg, int nents,
		      enum dma_data_direction dir)
{
	if (is_pci_p2pdma_page(sg_page(sg)))
		return pci_p2pdma_map_sg(dev, sg, nents, dir);
	return dma_map_sg(dev, sg, nents, dir);
}

static int baz_map_table(struct device *dev, struct sg_table *sgt,
			 enum dma_data_direction dir)
{
	int n;

	n = is_pci_p2pdma_page(sg_page(sgt->sgl)) ?
		pci_p2pdma_map_sg(dev, sgt->sgl, sgt->orig_nents, dir) :
		dma_map_sg(dev, sgt->sgl, sgt->orig_nents, dir);
	if (!n)
		return -EIO;
	sgt->nents = n;
	return 0;
}
