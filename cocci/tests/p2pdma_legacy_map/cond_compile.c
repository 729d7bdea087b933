// Conditional compilation (class 4 of issue 17): an early-return unmap
// under #ifdef CONFIG_PCI_P2PDMA, an #ifdef that cuts an if/else between
// its "else" and its second arm, and an #if IS_ENABLED() around an early
// return. Dropping any of these choices would leave an empty or a dangling
// #ifdef behind: they are left, their calls renamed, and reported in every
// mode. A choice in a function that is itself under #ifdef goes.
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

struct wyn {
	struct device *dev;
};

static void wyn_unmap(struct wyn *w, struct scatterlist *sg, int nents)
{
#ifdef CONFIG_PCI_P2PDMA
	if (is_pci_p2pdma_page(sg_page(sg))) {
		pci_p2pdma_unmap_sg(w->dev, sg, nents, DMA_FROM_DEVICE);
		return;
	}
#endif
	dma_unmap_sg(w->dev, sg, nents, DMA_FROM_DEVICE);
}

static int wyn_map(struct wyn *w, struct scatterlist *sg, int nents)
{
	int count;

#ifdef CONFIG_PCI_P2PDMA
	if (is_pci_p2pdma_page(sg_page(sg)))
		count = pci_p2pdma_map_sg(w->dev, sg, nents, DMA_FROM_DEVICE);
	else
#endif
		count = dma_map_sg(w->dev, sg, nents, DMA_FROM_DEVICE);
	return count ? count : -EIO;
}

static int wyn_map_nowarn(struct wyn *w, struct scatterlist *sg, int nents)
{
#if IS_ENABLED(CONFIG_PCI_P2PDMA)
	if (is_pci_p2pdma_page(sg_page(sg)))
		return pci_p2pdma_map_sg_attrs(w->dev, sg, nents,
					       DMA_FROM_DEVICE,
					       DMA_ATTR_NO_WARN);
#endif
	return dma_map_sg_attrs(w->dev, sg, nents, DMA_FROM_DEVICE,
				DMA_ATTR_NO_WARN);
}

#ifdef CONFIG_PCI_P2PDMA
static void wyn_unmap_to(struct wyn *w, struct scatterlist *sg, int nents)
{
	if (is_pci_p2pdma_page(sg_page(sg)))
		pci_p2pdma_unmap_sg(w->dev, sg, nents, DMA_TO_DEVICE);
	else
		dma_unmap_sg(w->dev, sg, nents, DMA_TO_DEVICE);
}
#endif
