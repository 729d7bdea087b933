// The 4.20-era shape (nvme-pci, nvmet-rdma): an if/else on the first page
// chooses the mapping function, in the map and in the unmap.
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

struct foo_dev {
	struct device *dev;
};

static int foo_map_data(struct foo_dev *fdev, struct scatterlist *sg,
			int nents, enum dma_data_direction dir)
{
	int count;

	if (is_pci_p2pdma_page(sg_page(sg)))
		count = pci_p2pdma_map_sg(fdev->dev, sg, nents, dir);
	else
		count = dma_map_sg(fdev->dev, sg, nents, dir);
	if (!count)
		return -ENOMEM;
	return count;
}

static void foo_unmap_data(struct foo_dev *fdev, struct scatterlist *sg,
			   int nents, enum dma_data_direction dir)
{
	if (is_pci_p2pdma_page(sg_page(sg)))
		pci_p2pdma_unmap_sg(fdev->dev, sg, nents, dir);
	else
		dma_unmap_sg(fdev->dev, sg, nents, dir);
}
