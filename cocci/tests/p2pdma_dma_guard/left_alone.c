// Tests of is_pci_p2pdma_page() that are not about a DMA mapping, and a
// guard whose code maps nothing: all left alone.
#include <linux/bio.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

struct baz;

void baz_submit_bio(struct baz *z, struct scatterlist *sg, blk_opf_t opf);

static void baz_submit(struct baz *z, struct scatterlist *sg, blk_opf_t opf)
{
	if (is_pci_p2pdma_page(sg_page(sg)))
		opf |= REQ_NOMERGE;
	baz_submit_bio(z, sg, opf);
}

static int baz_copy(struct baz *z, struct page *page, void *buf)
{
	if (!is_pci_p2pdma_page(page)) {
		memcpy(buf, page_address(page), PAGE_SIZE);
		return 0;
	}
	return -EINVAL;
}
