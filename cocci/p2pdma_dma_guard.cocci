// SPDX-License-Identifier: GPL-2.0-only
///
/// Do not keep P2PDMA pages off a path that maps them with the DMA API
///
/// dma_map_page(), dma_map_bvec() and dma_map_single() used to treat a
/// P2PDMA page like RAM: the CPU physical address of a BAR, no check that
/// the device can reach it. Drivers therefore kept such pages off their
/// single-page paths with "if (!is_pci_p2pdma_page(page))" around them, and
/// sent them down the scatterlist path instead (nvme-pci's single-segment
/// fast path). Every streaming DMA call now maps P2PDMA pages, or fails
/// cleanly, so the guard only slows P2P I/O down: drop it when the code it
/// guards calls a function of the same file that maps with one of those
/// calls.
///
/// A test of is_pci_p2pdma_page() that does something else, such as
/// nvmet's REQ_NOMERGE on bios of P2P memory, is left alone; report mode
/// lists it for review. So is a guarded block that always returns: without
/// the guard the code after it would never run.
///
// Confidence: Moderate
// Copyright: (C) 2026 P2PDMA Dev.
// URL: https://coccinelle.gitlabpages.inria.fr/website
// Options: --no-includes --include-headers
// Keywords: is_pci_p2pdma_page, dma_map_bvec, dma_map_page
// Version min: 6.12 with the P2PDMA backend of the streaming DMA API
//

virtual context
virtual patch
virtual org
virtual report

// Functions of the file that map a single page with the DMA API.
@mapper@
identifier f;
@@

f(...) {
  <+... \(dma_map_bvec(...)\|dma_map_page(...)\|dma_map_page_attrs(...)\|dma_map_single(...)\|dma_map_single_attrs(...)\) ...+>
}

// A guarded block that always returns: without the guard, the code after
// it would be left for nothing; reported, not rewritten.
@always_returns@
identifier mapper.f;
expression P, E;
position p;
@@

 if (!is_pci_p2pdma_page@p(P)) {
  <+... f(...) ...+>
  return E;
 }

@script:python depends on patch && !context && !org && !report@
p << always_returns.p;
@@

import sys
sys.stderr.write("%s:%s: the guarded block always returns; dropping the guard would leave the code after it unused: not converted, check by hand\n" % (p[0].file, p[0].line))

@guard depends on patch && !context && !org && !report@
identifier mapper.f;
expression P;
position p != always_returns.p;
@@

- if (!is_pci_p2pdma_page@p(P)) {
  <+... f(...) ...+>
- }

@depends on context && !patch && !org && !report@
identifier mapper.f;
expression P;
@@

* if (!is_pci_p2pdma_page(P)) {
  <+... f(...) ...+>
  }

@r depends on (org || report) && !context && !patch@
identifier mapper.f;
expression P;
position p;
@@

 if (!is_pci_p2pdma_page@p(P)) {
  <+... f(...) ...+>
 }

// Other tests of is_pci_p2pdma_page(), for review only.
@other depends on (org || report) && !context && !patch@
expression P;
position q != r.p;
@@

 is_pci_p2pdma_page@q(P)

@script:python depends on org@
p << r.p;
f << mapper.f;
@@

coccilib.org.print_todo(p[0], "WARNING the guard keeps P2PDMA pages off %s(), whose DMA mapping now handles them" % f)

@script:python depends on report@
p << r.p;
f << mapper.f;
@@

coccilib.report.print_report(p[0], "WARNING: the guard keeps P2PDMA pages off %s(), whose DMA mapping now handles them" % f)

@initialize:python@
@@

import re

# The P2PDMA backend and the layers that implement it test P2PDMA pages by
# design; only drivers are this script's business.
BACKEND = re.compile(r"(^|/)(kernel/dma|mm|block|include|drivers/iommu)/|(^|/)drivers/pci/p2pdma")

@script:python depends on org@
q << other.q;
@@

if not BACKEND.search(q[0].file):
    coccilib.org.print_safe_todo(q[0], "INFO is_pci_p2pdma_page() test left alone: check whether the DMA API backend makes it unnecessary")

@script:python depends on report@
q << other.q;
@@

if not BACKEND.search(q[0].file):
    coccilib.report.print_report(q[0], "INFO: is_pci_p2pdma_page() test left alone: check whether the DMA API backend makes it unnecessary")
