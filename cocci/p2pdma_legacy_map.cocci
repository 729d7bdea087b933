// SPDX-License-Identifier: GPL-2.0-only
///
/// Map P2PDMA memory with the streaming DMA API, not pci_p2pdma_map_sg()
///
/// From Linux 4.20 to 5.19 a driver had to map PCI peer-to-peer memory with
/// pci_p2pdma_map_sg() or pci_p2pdma_map_sg_attrs() and unmap it with
/// pci_p2pdma_unmap_sg() or pci_p2pdma_unmap_sg_attrs(), usually choosing
/// between those and dma_map_sg() on is_pci_p2pdma_page(). Those functions
/// are gone; the DMA API maps P2PDMA pages itself, with the same return
/// values. Call dma_map_sg(), dma_map_sg_attrs(), dma_unmap_sg() and
/// dma_unmap_sg_attrs() with the same arguments, and drop the
/// is_pci_p2pdma_page() choice where both arms become the same: an if/else,
/// a conditional expression, or an early return in a helper.
///
/// Maps and unmaps are converted together, so a file never keeps one old
/// call. A branch on is_pci_p2pdma_page() whose arms still differ after the
/// conversion is reported, not rewritten: it may choose more than the
/// mapping function.
///
// Confidence: High
// Copyright: (C) 2026 P2PDMA Dev.
// URL: https://coccinelle.gitlabpages.inria.fr/website
// Options: --no-includes --include-headers
// Keywords: pci_p2pdma_map_sg, pci_p2pdma_unmap_sg, is_pci_p2pdma_page
// Version min: 6.0
//

virtual context
virtual patch
virtual org
virtual report

// ---- patch -------------------------------------------------------------

@initialize:python@
@@

import re, sys

reported = set()

def converted(s):
    """A statement as it reads once the old calls are renamed."""
    s = re.sub(r"\bpci_p2pdma_(un)?map_sg", r"dma_\1map_sg", s)
    s = re.sub(r"\s+", "", s)
    return s[1:-1] if s.startswith("{") and s.endswith("}") else s

def called(p):
    """The name of the function called at position p."""
    with open(p[0].file) as f:
        line = f.readlines()[int(p[0].line) - 1]
    return line[int(p[0].column):int(p[0].column_end)]

def choice_message(s1, s2):
    if converted(s1) == converted(s2):
        return "is_pci_p2pdma_page() only chooses the mapping function: drop the choice, the DMA API maps P2PDMA pages itself"
    return "is_pci_p2pdma_page() chooses between different code, not only a mapping function: check by hand"

def first_time(p):
    """Each place is reported once, whichever isomorphism matched it."""
    key = (p[0].file, p[0].line, p[0].column)
    if key in reported:
        return False
    reported.add(key)
    return True

def check_choice(p, s1, s2):
    """Report a choice whose two arms differ once converted."""
    if converted(s1) == converted(s2) or not first_time(p):
        return
    sys.stderr.write("%s:%s: is_pci_p2pdma_page() chooses between different code, not only a mapping function: not converted, check by hand\n" % (p[0].file, p[0].line))

// Every choice, before the code changes (an if/else, or an if that returns
// and the statement after it): those whose arms differ once the old calls
// are renamed are reported on stderr, at their place in the file.
@choice depends on patch && !context && !org && !report@
expression P;
statement S1, S2;
position p;
@@

if (\(is_pci_p2pdma_page@p(P)\|!is_pci_p2pdma_page@p(P)\)) S1 else S2

@script:python depends on patch && !context && !org && !report@
p << choice.p;
s1 << choice.S1;
s2 << choice.S2;
@@

if "pci_p2pdma_" in s1 + s2:
    check_choice(p, s1, s2)

@early_return depends on patch && !context && !org && !report@
expression P;
statement S1, S2;
position p;
@@

if (\(is_pci_p2pdma_page@p(P)\|!is_pci_p2pdma_page@p(P)\)) S1
S2

@script:python depends on patch && !context && !org && !report@
p << early_return.p;
s1 << early_return.S1;
s2 << early_return.S2;
@@

if "pci_p2pdma_" in s1 and "return" in s1:
    check_choice(p, s1, s2)

@rename depends on patch && !context && !org && !report@
expression list args;
@@
(
- pci_p2pdma_map_sg_attrs(args)
+ dma_map_sg_attrs(args)
|
- pci_p2pdma_map_sg(args)
+ dma_map_sg(args)
|
- pci_p2pdma_unmap_sg_attrs(args)
+ dma_unmap_sg_attrs(args)
|
- pci_p2pdma_unmap_sg(args)
+ dma_unmap_sg(args)
)

@collapse depends on patch && !context && !org && !report@
expression P, E;
statement S;
@@
(
- if (\(is_pci_p2pdma_page(P)\|!is_pci_p2pdma_page(P)\)) {
-	S
- } else {
	S
- }
|
- if (\(is_pci_p2pdma_page(P)\|!is_pci_p2pdma_page(P)\))
-	S
- else
	S
|
- if (\(is_pci_p2pdma_page(P)\|!is_pci_p2pdma_page(P)\))
-	return E;
  return E;
|
- \(is_pci_p2pdma_page(P)\|!is_pci_p2pdma_page(P)\) ? E : E
+ E
)

// ---- context -----------------------------------------------------------

@depends on context && !patch && !org && !report@
expression list args;
@@

(
* pci_p2pdma_map_sg_attrs(args)
|
* pci_p2pdma_map_sg(args)
|
* pci_p2pdma_unmap_sg_attrs(args)
|
* pci_p2pdma_unmap_sg(args)
)

// ---- org and report ----------------------------------------------------

// Spelled out, not an identifier set, so that spatch can pick the files to
// parse with a grep for these names (--use-gitgrep).
@call depends on (org || report) && !context && !patch@
expression list args;
position p;
@@

(
 pci_p2pdma_map_sg_attrs@p(args)
|
 pci_p2pdma_map_sg@p(args)
|
 pci_p2pdma_unmap_sg_attrs@p(args)
|
 pci_p2pdma_unmap_sg@p(args)
)

@branch depends on (org || report) && !context && !patch@
expression P;
statement S1, S2;
position p;
@@

 if (\(is_pci_p2pdma_page@p(P)\|!is_pci_p2pdma_page@p(P)\)) S1 else S2

@script:python depends on org@
p << call.p;
@@

old = called(p)
coccilib.org.print_todo(p[0], "WARNING %s() was removed in Linux 6.0: use %s() with the same arguments" % (old, old.replace("pci_p2pdma_", "dma_")))

@script:python depends on org@
p << branch.p;
s1 << branch.S1;
s2 << branch.S2;
@@

if "pci_p2pdma_" in s1 + s2 and first_time(p):
    coccilib.org.print_todo(p[0], "WARNING " + choice_message(s1, s2))

@script:python depends on report@
p << call.p;
@@

old = called(p)
coccilib.report.print_report(p[0], "WARNING: %s() was removed in Linux 6.0: use %s() with the same arguments" % (old, old.replace("pci_p2pdma_", "dma_")))

@script:python depends on report@
p << branch.p;
s1 << branch.S1;
s2 << branch.S2;
@@

if "pci_p2pdma_" in s1 + s2 and first_time(p):
    coccilib.report.print_report(p[0], "WARNING: " + choice_message(s1, s2))
