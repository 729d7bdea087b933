// SPDX-License-Identifier: GPL-2.0-only
///
/// Remove #include <linux/pci-p2pdma.h> where nothing of it is used
///
/// Drivers included linux/pci-p2pdma.h for pci_p2pdma_map_sg() and its
/// relatives. Those are gone, and the DMA API maps P2PDMA pages itself, so
/// a driver that only maps P2P memory needs nothing from the header: it
/// declares the provider and orchestrator API (pci_p2pdma_*(),
/// pci_p2pmem_*(), pci_alloc_p2pmem(), pci_free_p2pmem(),
/// pci_has_p2pmem()). is_pci_p2pdma_page() comes from linux/memremap.h.
///
// Confidence: High
// Copyright: (C) 2026 P2PDMA Dev.
// URL: https://coccinelle.gitlabpages.inria.fr/website
// Options: --no-includes --include-headers
// Keywords: pci-p2pdma.h
// Version min: 6.0
//

virtual context
virtual patch
virtual org
virtual report

@uses@
identifier f =~ "^(pci_p2pdma_|pci_p2pmem_|pci_alloc_p2pmem$|pci_free_p2pmem$|pci_has_p2pmem$)";
@@

(
 f(...)
|
 f
)

@depends on patch && !uses && !context && !org && !report@
@@

- #include <linux/pci-p2pdma.h>

@depends on context && !uses && !patch && !org && !report@
@@

* #include <linux/pci-p2pdma.h>

@r depends on (org || report) && !uses && !context && !patch@
position p;
@@

 #include <linux/pci-p2pdma.h>@p

@script:python depends on org@
p << r.p;
@@

coccilib.org.print_todo(p[0], "WARNING nothing of linux/pci-p2pdma.h is used: remove the #include")

@script:python depends on report@
p << r.p;
@@

coccilib.report.print_report(p[0], "WARNING: nothing of linux/pci-p2pdma.h is used: remove the #include")
