// A guard around a direct dma_map_page() call in a helper of the file,
// whose block always returns: dropping the guard would leave the
// scatterlist path after it unused. Left alone, and reported.
#include <linux/dma-mapping.h>
#include <linux/memremap.h>

struct bar {
	struct device *dev;
	dma_addr_t addr;
};

int bar_queue_sg(struct bar *b, struct page *page);

static dma_addr_t bar_map_one(struct device *dev, struct page *page)
{
	return dma_map_page(dev, page, 0, PAGE_SIZE, DMA_TO_DEVICE);
}

static int bar_queue(struct bar *b, struct page *page)
{
	if (!is_pci_p2pdma_page(page)) {
		b->addr = bar_map_one(b->dev, page);
		if (dma_mapping_error(b->dev, b->addr))
			return -ENOMEM;
		return 0;
	}
	return bar_queue_sg(b, page);
}
