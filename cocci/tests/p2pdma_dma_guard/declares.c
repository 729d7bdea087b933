// Guarded blocks that declare what they use (class 1 of issue 17): without
// their braces the declarations would move to the enclosing scope, where
// one redefines a variable of the function and another would shadow the
// status the code after the guard reads. The guard goes, the braces and
// so the scope of every declaration stay.
#include <linux/blk-mq.h>
#include <linux/dma-mapping.h>
#include <linux/memremap.h>
#include <linux/spinlock.h>

struct lux_dev {
	struct device *dev;
	spinlock_t lock;
	unsigned int max_simple;
	unsigned int nr_simple;
};

struct lux_iod {
	dma_addr_t addr;
	unsigned int len;
};

blk_status_t lux_map_sg(struct lux_dev *ldev, struct request *req);

static blk_status_t lux_setup_simple(struct lux_dev *ldev, struct request *req,
				     struct bio_vec *bv)
{
	struct lux_iod *iod = blk_mq_rq_to_pdu(req);

	iod->addr = dma_map_bvec(ldev->dev, bv, rq_dma_dir(req), 0);
	if (dma_mapping_error(ldev->dev, iod->addr))
		return BLK_STS_RESOURCE;
	iod->len = bv->bv_len;
	return BLK_STS_OK;
}

/* The block's own 'len' would redefine the function's. */
static blk_status_t lux_map_data(struct lux_dev *ldev, struct request *req)
{
	unsigned int len = blk_rq_payload_bytes(req);
	struct bio_vec bv = req_bvec(req);

	if (!is_pci_p2pdma_page(bv.bv_page)) {
		unsigned int len = bv.bv_offset + bv.bv_len;
		blk_status_t ret;

		if (len <= ldev->max_simple) {
			ret = lux_setup_simple(ldev, req, &bv);
			if (ret == BLK_STS_OK)
				return ret;
		}
	}
	if (!len)
		return BLK_STS_IOERR;
	return lux_map_sg(ldev, req);
}

/*
 * In a nested block: without its braces, the guarded block's 'ret' would
 * take the status of lux_map_sg() that the function returns, and the lock
 * taken with guard() would be held across lux_map_sg().
 */
static blk_status_t lux_map_locked(struct lux_dev *ldev, struct request *req)
{
	blk_status_t ret = BLK_STS_IOERR;

	if (blk_rq_nr_phys_segments(req) == 1) {
		struct bio_vec bv = req_bvec(req);

		if (!is_pci_p2pdma_page(bv.bv_page)) {
			blk_status_t ret;
			guard(spinlock)(&ldev->lock);

			ret = lux_setup_simple(ldev, req, &bv);
			if (ret == BLK_STS_OK) {
				ldev->nr_simple++;
				return ret;
			}
		}
		ret = lux_map_sg(ldev, req);
	}
	return ret;
}
