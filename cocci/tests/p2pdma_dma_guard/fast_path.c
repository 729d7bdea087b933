// nvme-pci's shape in 6.12 with the series' fallback: a single-segment fast
// path kept off P2PDMA pages, whose helper maps the page with
// dma_map_bvec(), and a failed mapping retried on the scatterlist path.
#include <linux/blk-mq.h>
#include <linux/dma-mapping.h>
#include <linux/memremap.h>

#define FOO_PAGE_SIZE	4096

struct foo_dev {
	struct device *dev;
};

struct foo_iod {
	dma_addr_t first_dma;
};

blk_status_t foo_map_sg(struct foo_dev *dev, struct request *req);

static blk_status_t foo_setup_simple(struct foo_dev *dev, struct request *req,
				     struct bio_vec *bv)
{
	struct foo_iod *iod = blk_mq_rq_to_pdu(req);

	iod->first_dma = dma_map_bvec(dev->dev, bv, rq_dma_dir(req), 0);
	if (dma_mapping_error(dev->dev, iod->first_dma))
		return BLK_STS_RESOURCE;
	return BLK_STS_OK;
}

static blk_status_t foo_map_data(struct foo_dev *dev, struct request *req)
{
	blk_status_t ret = BLK_STS_RESOURCE;

	if (blk_rq_nr_phys_segments(req) == 1) {
		struct bio_vec bv = req_bvec(req);

		if (!is_pci_p2pdma_page(bv.bv_page)) {
			if (bv.bv_offset + bv.bv_len <= FOO_PAGE_SIZE * 2)
				ret = foo_setup_simple(dev, req, &bv);
		}
		if (ret != BLK_STS_RESOURCE)
			return ret;
	}
	return foo_map_sg(dev, req);
}
