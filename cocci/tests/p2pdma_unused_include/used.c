// Uses the orchestrator and provider API, directly and as a pointer: kept.
#include <linux/pci-p2pdma.h>

static int bar_pick(struct pci_dev *provider, struct device *client)
{
	return pci_p2pdma_distance(provider, client, true);
}

static void *(*bar_alloc)(struct pci_dev *, size_t) = pci_alloc_p2pmem;

static void *bar_get(struct pci_dev *provider, size_t size)
{
	return bar_alloc(provider, size);
}
