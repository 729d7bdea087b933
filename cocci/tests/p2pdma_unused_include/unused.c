// Included for pci_p2pdma_map_sg(), which the file no longer calls.
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

static int foo_map(struct device *dev, struct scatterlist *sg, int n)
{
	return dma_map_sg(dev, sg, n, DMA_TO_DEVICE);
}
