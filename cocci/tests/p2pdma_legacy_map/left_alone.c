// Callers that must be left alone: is_pci_p2pdma_page() deciding something
// other than the mapping function, and a choice whose arms still differ
// after the conversion (RDMA's rw helpers in 5.x: a different device and a
// virtual-DMA check). The latter is reported on stderr.
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
