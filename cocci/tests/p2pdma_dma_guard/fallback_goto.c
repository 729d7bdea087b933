// A single-page fast path whose failure falls through to the scatterlist
// path (the fallback the script needs, which it cannot prove: it says so),
// with goto error paths on both. The guard goes; the braces too, as the
// block declares nothing.
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/scatterlist.h>

struct mux_dev {
	struct device *dev;
};

struct mux_req {
	struct page *page;
	unsigned int len;
	dma_addr_t addr;
	bool mapped_sg;
	struct sg_table sgt;
};

int mux_post(struct mux_dev *m, struct mux_req *r);
void mux_unmap(struct mux_dev *m, struct mux_req *r);

static int mux_map_one(struct mux_dev *m, struct mux_req *r)
{
	r->addr = dma_map_page(m->dev, r->page, 0, r->len, DMA_TO_DEVICE);
	if (dma_mapping_error(m->dev, r->addr))
		return -ENOMEM;
	r->mapped_sg = false;
	return 0;
}

static int mux_queue(struct mux_dev *m, struct mux_req *r)
{
	int ret = -ENOMEM;

	if (!is_pci_p2pdma_page(r->page)) {
		if (r->len <= PAGE_SIZE)
			ret = mux_map_one(m, r);
		if (!ret)
			goto post;
	}

	ret = sg_alloc_table(&r->sgt, 1, GFP_ATOMIC);
	if (ret)
		return ret;
	sg_set_page(r->sgt.sgl, r->page, r->len, 0);
	ret = dma_map_sgtable(m->dev, &r->sgt, DMA_TO_DEVICE, 0);
	if (ret)
		goto free_table;
	r->mapped_sg = true;
post:
	ret = mux_post(m, r);
	if (ret)
		goto unmap;
	return 0;

unmap:
	mux_unmap(m, r);
	if (!r->mapped_sg)
		return ret;
free_table:
	sg_free_table(&r->sgt);
	return ret;
}
