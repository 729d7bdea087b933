/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The P2PDMA mapping API of Linux 4.20 to 5.19, as <linux/pci-p2pdma.h>
 * declared it until 6.0 removed it: the test inputs of
 * p2pdma_legacy_map.cocci call it. scripts/check-cocci.sh -includes this
 * file when it compiles a test input against the patched tree, never when
 * it compiles an expected result, which must therefore keep no old call.
 */
#ifndef _COCCI_TESTS_P2PDMA_LEGACY_H
#define _COCCI_TESTS_P2PDMA_LEGACY_H

#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>

int pci_p2pdma_map_sg_attrs(struct device *dev, struct scatterlist *sg,
			    int nents, enum dma_data_direction dir,
			    unsigned long attrs);
void pci_p2pdma_unmap_sg_attrs(struct device *dev, struct scatterlist *sg,
			       int nents, enum dma_data_direction dir,
			       unsigned long attrs);

static inline int pci_p2pdma_map_sg(struct device *dev,
				    struct scatterlist *sg, int nents,
				    enum dma_data_direction dir)
{
	return pci_p2pdma_map_sg_attrs(dev, sg, nents, dir, 0);
}

static inline void pci_p2pdma_unmap_sg(struct device *dev,
				       struct scatterlist *sg, int nents,
				       enum dma_data_direction dir)
{
	pci_p2pdma_unmap_sg_attrs(dev, sg, nents, dir, 0);
}

#endif
