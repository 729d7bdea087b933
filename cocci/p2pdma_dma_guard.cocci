// SPDX-License-Identifier: GPL-2.0-only
///
/// Do not keep P2PDMA pages off a path that maps them with the DMA API
///
/// dma_map_page(), dma_map_bvec() and dma_map_single() used to treat a
/// P2PDMA page like RAM: the CPU physical address of a BAR, no check that
/// the device can reach it. Drivers therefore kept such pages off their
/// single-page paths with "if (!is_pci_p2pdma_page(page))" around them, and
/// sent them down the scatterlist path instead (nvme-pci's single-segment
/// fast path). With the P2PDMA backend of the streaming DMA API every
/// streaming DMA call maps P2PDMA pages, or fails cleanly, so the guard only
/// slows P2P I/O down: drop it when the code it guards calls a function of
/// the same file that maps with one of those calls.
///
/// Dropping a guard is right only under two preconditions, which every
/// message repeats (patch mode's on stderr, org's and report's; context
/// mode only marks the guards):
///  1. the kernel has the P2PDMA backend of the streaming DMA API (the
///     series this script comes with). The script sees one driver file and
///     cannot check it.
///  2. a failed single-page mapping falls back to the scatterlist path. A
///     single-page mapping cannot say whether it failed for a full IOMMU or
///     bounce pool (retry later) or for P2PDMA memory the device can never
///     reach; dma_map_sgtable() can (-EREMOTEIO). Without the fallback a
///     refused P2P request is requeued forever. The script checks what a
///     file shows: a guarded block that returns the mapping function's
///     status to the caller ("return f(...)", nvme-pci's shape before the
///     series) certainly has no fallback and is left alone and reported.
///     That the status of any other shape reaches the scatterlist path on a
///     mapping failure depends on the values the function returns, which it
///     cannot check: it drops the guard and says so.
///
/// A guarded block that declares anything (a variable, a guard() lock)
/// keeps its braces without the if, so that the declarations keep their
/// scope: merge it into the enclosing block by hand if no name clashes.
/// A guarded block that always returns is left alone and reported: without
/// the guard the code after it would never run. A test of
/// is_pci_p2pdma_page() that does something else, such as nvmet's
/// REQ_NOMERGE on bios of P2P memory, is left alone; report mode lists it
/// for review.
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

@initialize:python@
@@

import re, sys

# The P2PDMA backend and the layers that implement it test P2PDMA pages by
# design; only drivers are this script's business.
BACKEND = re.compile(r"(^|/)(kernel/dma|mm|block|include|drivers/iommu)/|(^|/)drivers/pci/p2pdma")

# Every guard of the file, by place: the mapping functions it guards and
# what keeps it from being dropped.
guards = {}
said = set()
# The guards patch mode rewrote.
done = set()

def key(p):
    return (p[0].file, p[0].line, p[0].column)

def guard(p):
    return guards.setdefault(key(p), {"f": [], "why": None, "decl": []})

def funcs(g):
    return "/".join("%s()" % f for f in g["f"])

def verdict(p):
    """What patch mode does with the guard at p: drop, unbrace, or keep."""
    g = guards.get(key(p))
    if g is None or g["why"]:
        return "keep"
    return "unbrace" if g["decl"] else "drop"

def message(p, patch):
    """Why, in the words of patch mode (patch) or of report and org."""
    g = guard(p)
    f = funcs(g)
    need = ("the P2PDMA backend of the streaming DMA API and a fallback to "
            "the scatterlist path when a mapping in %s fails" % f)
    if g["why"] == "returns":
        return ("the guarded block always returns; dropping the guard would "
                "leave the code after it unused: guard left, check by hand "
                "(dropping a guard also needs %s)" % need)
    if g["why"] == "no fallback":
        return ("the guarded block returns the status of %s to the caller, so "
                "a refused P2P mapping would not fall back to the scatterlist "
                "path: guard left; add that fallback, then drop the guard by "
                "hand (on a kernel with the P2PDMA backend of the streaming "
                "DMA API)" % f)
    if patch and key(p) not in done:
        return ("the guard keeps P2PDMA pages off %s, in a shape patch mode "
                "does not rewrite: guard left; drop it by hand if the kernel "
                "has %s" % (f, need))
    kept = ""
    if g["decl"]:
        kept = ", keeping the braces without the if: the block declares %s" % ", ".join(g["decl"])
    if patch:
        return ("guard dropped%s; that is correct only on a kernel with the "
                "P2PDMA backend of the streaming DMA API and if a failed "
                "mapping in %s falls back to the scatterlist path: check both "
                "by hand" % (kept, f))
    return ("the guard keeps P2PDMA pages off %s: drop it (as patch mode does%s) "
            "if the kernel has the P2PDMA backend of the streaming DMA API and "
            "a failed mapping in %s falls back to the scatterlist path" % (f, kept, f))

def declared(d):
    """A short name for what a declaration declares."""
    if not d:
        return "a guard()"
    d = re.sub(r"\s+", " ", d.split("=")[0].strip().rstrip(";")).strip()
    return "'%s'" % d

// Functions of the file that map a single page with the DMA API.
@mapper@
identifier f;
@@

f(...) {
  <+... \(dma_map_bvec(...)\|dma_map_page(...)\|dma_map_page_attrs(...)\|dma_map_single(...)\|dma_map_single_attrs(...)\) ...+>
}

// Every guard around a call of one of them.
@r@
identifier mapper.f;
expression P;
position p;
@@

 if (!is_pci_p2pdma_page@p(P)) {
  <+... f(...) ...+>
 }

@script:python@
p << r.p;
f << mapper.f;
@@

if f not in guard(p)["f"]:
    guard(p)["f"].append(f)

// A guarded block that always returns: without the guard, the code after
// it would be left for nothing.
@always_returns@
identifier mapper.f;
expression P, E;
position p;
@@

 if (!is_pci_p2pdma_page@p(P)) {
  <+... f(...) ...+>
(
  return E;
|
  return;
)
 }

@script:python@
p << always_returns.p;
@@

guard(p)["why"] = "returns"

// A guarded block that returns the mapping function's status to the
// caller: no fallback to the scatterlist path (precondition 2).
@no_fallback@
identifier mapper.f;
expression P;
position p;
@@

 if (!is_pci_p2pdma_page@p(P)) {
  <+... return <+... f(...) ...+>; ...+>
 }

@script:python@
p << no_fallback.p;
@@

if not guard(p)["why"]:
    guard(p)["why"] = "no fallback"

// A guarded block that declares something at its top level: a variable,
// or a lock held to the end of the block with guard().
@declares@
declaration d;
expression P;
position p, pd;
@@

 if (!is_pci_p2pdma_page@p(P)) {
  ... when any
(
  d@pd
|
  guard@pd(...)(...);
)
  ... when any
 }

@script:python@
p << declares.p;
pd << declares.pd;
d << declares.d = "";
@@

name = declared(d)
if key(p) in guards and name not in guards[key(p)]["decl"]:
    guards[key(p)]["decl"].append(name)

// ---- patch -------------------------------------------------------------

// One rule for both rewrites: positions are those of the original file
// only until the first rule that changes it.
@strip depends on patch && !context && !org && !report@
expression P;
statement S;
position p : script:python() { verdict(p) == "drop" };
position p2 : script:python() { verdict(p2) != "keep" };
@@
(
- if (!is_pci_p2pdma_page@p(P)) {
  ...
- }
|
// The block declares something: keep its braces, and so its scope. Also a
// guard without braces.
- if (!is_pci_p2pdma_page@p2(P))
  S
)

@script:python depends on patch && !context && !org && !report@
p << strip.p;
@@

done.add(key(p))

@script:python depends on patch && !context && !org && !report@
p << strip.p2;
@@

done.add(key(p))

@script:python depends on patch && !context && !org && !report@
p << r.p;
@@

if key(p) not in said:
    said.add(key(p))
    sys.stderr.write("%s:%s: %s\n" % (p[0].file, p[0].line, message(p, True)))

// ---- context -----------------------------------------------------------

@depends on context && !patch && !org && !report@
identifier mapper.f;
expression P;
@@

* if (!is_pci_p2pdma_page(P)) {
  <+... f(...) ...+>
  }

// ---- org and report ----------------------------------------------------

// Other tests of is_pci_p2pdma_page(), for review only.
@other depends on (org || report) && !context && !patch@
expression P;
position q != r.p;
@@

 is_pci_p2pdma_page@q(P)

@script:python depends on org@
p << r.p;
@@

if key(p) not in said:
    said.add(key(p))
    coccilib.org.print_todo(p[0], "WARNING " + message(p, False))

@script:python depends on report@
p << r.p;
@@

if key(p) not in said:
    said.add(key(p))
    coccilib.report.print_report(p[0], "WARNING: " + message(p, False))

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
