// nvme-pci's shape before the series (class 2 of issue 17): the guarded
// block returns the status of the single-segment helpers to the caller, so
// a P2P mapping that fails there never reaches the scatterlist path and the
// request is requeued forever. Left alone, and reported.
#include <linux/blk-mq.h>
#include <linux/dma-mapping.h>
#include <linux/memremap.h>

#define QUX_PAGE_SIZE	4096

struct qux_dev {
	struct device *dev;
	bool sgl_supported;
};

struct qux_iod {
	dma_addr_t first_dma;
	unsigned int nents;
};

blk_status_t qux_map_sg(struct qux_dev *dev, struct request *req);

static blk_status_t qux_setup_prp_simple(struct qux_dev *dev,
					 struct request *req,
					 struct bio_vec *bv)
{
	struct qux_iod *iod = blk_mq_rq_to_pdu(req);

	iod->first_dma = dma_map_bvec(dev->dev, bv, rq_dma_dir(req), 0);
	if (dma_mapping_error(dev->dev, iod->first_dma))
		return BLK_STS_RESOURCE;
	return BLK_STS_OK;
}

static blk_status_t qux_setup_sgl_simple(struct qux_dev *dev,
					 struct request *req,
					 struct bio_vec *bv)
{
	struct qux_iod *iod = blk_mq_rq_to_pdu(req);

	iod->first_dma = dma_map_bvec(dev->dev, bv, rq_dma_dir(req), 0);
	if (dma_mapping_error(dev->dev, iod->first_dma))
		return BLK_STS_RESOURCE;
	iod->nents = 1;
	return BLK_STS_OK;
}

static blk_status_t qux_map_data(struct qux_dev *dev, struct request *req)
{
	struct qux_iod *iod = blk_mq_rq_to_pdu(req);

	if (blk_rq_nr_phys_segments(req) == 1) {
		struct bio_vec bv = req_bvec(req);

		if (!is_pci_p2pdma_page(bv.bv_page)) {
			if (bv.bv_offset + bv.bv_len <= QUX_PAGE_SIZE * 2)
				return qux_setup_prp_simple(dev, req, &bv);

			if (dev->sgl_supported)
				return qux_setup_sgl_simple(dev, req, &bv);
		}
	}

	iod->nents = 0;
	return qux_map_sg(dev, req);
}
