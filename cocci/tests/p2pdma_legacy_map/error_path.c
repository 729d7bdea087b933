// A driver that only ever maps P2P memory, with its unmap on an error path.
#include <linux/dma-mapping.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

struct qux {
	struct device *dev;
};

int qux_post(struct qux *q, struct scatterlist *sg, int count);

static int qux_submit(struct qux *q, struct scatterlist *sg, int nents)
{
	int count, ret;

	count = pci_p2pdma_map_sg(q->dev, sg, nents, DMA_FROM_DEVICE);
	if (!count)
		return -EIO;

	ret = qux_post(q, sg, count);
	if (ret)
		goto unmap;
	return 0;

unmap:
	pci_p2pdma_unmap_sg(q->dev, sg, nents, DMA_FROM_DEVICE);
	return ret;
}
