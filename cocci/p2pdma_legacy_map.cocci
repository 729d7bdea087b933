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
/// a conditional expression, an early return in a helper (of a value, or
/// of nothing at the end of a void function), directly or through a local
/// variable initialised from is_pci_p2pdma_page(), which is dropped with
/// its last use.
///
/// Maps and unmaps are renamed everywhere, so a file never keeps one old
/// call. A choice is left as it is, and reported in every mode (patch mode
/// on stderr), when its arms still differ after the renaming (it may choose
/// more than the mapping function, like RDMA's 5.x helpers), when it is
/// under or cut by conditional compilation (#if, #ifdef: removing it would
/// leave an empty or unbalanced #ifdef behind), or when it goes through a
/// local variable assigned elsewhere or any other condition. The message
/// says which calls in it were renamed and what is left to do by hand.
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

@initialize:python@
@@

import re, sys

OLD = re.compile(r"\bpci_p2pdma_(un)?map_sg(_attrs)?\b")
COND = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")
TEST = re.compile(r"^is_pci_p2pdma_page\s*\(")
NAME = re.compile(r"^(!?)\s*\(?\s*([A-Za-z_]\w*)\s*\)?$")

# Every choice of the file, by the place of its condition.
choices = {}
# Locals initialised from is_pci_p2pdma_page(), and those assigned from it
# apart from their declaration: (file, function, name).
p2p_locals = set()
p2p_assigned = set()
initialised = set()
said = set()
# The choices patch mode collapsed.
done = set()
_src = {}

def key(p):
    # By line: an isomorphism may bind a condition with or without its "!".
    return (p[0].file, p[0].line)

def src(name):
    if name not in _src:
        with open(name, errors="replace") as f:
            _src[name] = f.read().split("\n")
    return _src[name]

def tidy(e):
    """An expression as spatch prints it, in the kernel's spacing."""
    e = re.sub(r"\s+", " ", e.strip())
    e = re.sub(r" ?(->|\.) ?", r"\1", e)
    e = re.sub(r"([(\[]) ", r"\1", e)
    e = re.sub(r" ([)\],])", r"\1", e)
    e = re.sub(r"(\w) ([(\[])", r"\1\2", e)
    return re.sub(r"! ", "!", e)

def called(p):
    """The name of the function called at position p."""
    line = src(p[0].file)[int(p[0].line) - 1]
    return line[int(p[0].column):int(p[0].column_end)]

def converted(s):
    """A statement as it reads once the old calls are renamed."""
    s = re.sub(r"\bpci_p2pdma_(un)?map_sg", r"dma_\1map_sg", s)
    s = re.sub(r"\s+", "", s)
    return s[1:-1] if s.startswith("{") and s.endswith("}") else s

def cpp_line(p, end):
    """The line of the conditional-compilation directive that the code
    from p to line end is under (opened in its function) or that cuts
    through it, if any."""
    lines = src(p[0].file)
    start, line = int(p[0].current_element_line), int(p[0].line)
    opened = []
    for n in range(start, line):
        m = COND.match(lines[n - 1])
        if m and m.group(1).startswith("if"):
            opened.append(n)
        elif m and m.group(1) == "endif" and opened:
            opened.pop()
    if opened:
        return opened[-1]
    for n in range(line, end + 1):
        if COND.match(lines[n - 1]):
            return n
    return None

def only_call(c):
    """Whether c is is_pci_p2pdma_page(...) or its negation, and nothing
    more (not "is_pci_p2pdma_page(a) && b")."""
    c = re.sub(r"^!\s*", "", c.strip())
    while c.startswith("(") and c.endswith(")") and only_call.balanced(c[1:-1]):
        c = re.sub(r"^!\s*", "", c[1:-1].strip())
    m = TEST.match(c)
    return bool(m) and c.endswith(")") and only_call.balanced(c[m.end():-1])

def _balanced(s):
    depth = 0
    for ch in s:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0

only_call.balanced = _balanced

def test_of(c, p):
    """How the condition c at p tests is_pci_p2pdma_page(): "" directly,
    the name of a local initialised from it, or None."""
    c = c.strip()
    if only_call(c):
        return ""
    m = NAME.match(c)
    if m and (p[0].file, p[0].current_element, m.group(2)) in p2p_locals | p2p_assigned:
        return m.group(2)
    return None

def classify(p, c, s1, s2, end, plain=False):
    """Record the choice on c at p, between s1 and s2, once."""
    k = key(p)
    var = test_of(c, p)
    calls = sorted(set(m.group(0) for m in OLD.finditer(s1 + s2)))
    if k in choices or not calls:
        return
    if var is None:
        # Some other condition: only worth a word if its arms are the same.
        if plain or converted(s1) != converted(s2):
            return
        v = "other"
    elif cpp_line(p, end):
        v = "cpp"
    elif plain:
        v = "plain"
    elif converted(s1) != converted(s2):
        v = "differs"
    elif var and (p[0].file, p[0].current_element, var) in p2p_assigned:
        v = "assigned"
    else:
        v = "same"
    choices[k] = {"v": v, "cond": tidy(c), "var": var, "calls": calls,
                  "cpp": cpp_line(p, end)}

def collapsible(p):
    c = choices.get(key(p))
    return c is not None and c["v"] == "same"

def note(p):
    """Patch mode: a word on stderr for every choice it left."""
    k = key(p)
    if k in choices and k not in done and k not in said:
        said.add(k)
        sys.stderr.write("%s:%s: %s\n" % (p[0].file, p[0].line, message(p, True)))

def say(p, out, tag):
    """Org and report modes: every choice, once."""
    k = key(p)
    if k in choices and k not in said:
        said.add(k)
        out(p[0], tag + message(p, False))

def renamed(c):
    return ", ".join("%s() to %s()" % (n, n.replace("pci_p2pdma_", "dma_"))
                     for n in c["calls"])

def message(p, patch):
    """What patch mode did or does with the choice at p, and what is left
    to do by hand."""
    c = choices[key(p)]
    what = "is_pci_p2pdma_page()"
    if c["var"]:
        what = "is_pci_p2pdma_page(), through '%s'," % c["var"]
    if patch:
        did = "choice left as it is, its calls renamed (%s)" % renamed(c)
    else:
        did = "patch mode only renames its calls (%s)" % renamed(c)
    if c["v"] == "same":
        if patch:
            return ("%s only chooses the mapping function, in a shape patch "
                    "mode does not rewrite: %s; drop the choice by hand" % (what, did))
        drop = "drop the choice"
        if c["var"]:
            drop += ", and '%s' once nothing else uses it" % c["var"]
        return ("%s only chooses the mapping function, and the DMA API maps "
                "P2PDMA pages itself: %s (patch mode does)" % (what, drop))
    if c["v"] == "assigned":
        if patch:
            return ("%s which is assigned apart from its declaration, only "
                    "chooses the mapping function: %s; drop the choice, and "
                    "'%s' once nothing else uses it, by hand" % (what, did, c["var"]))
        return ("%s which is assigned apart from its declaration, only "
                "chooses the mapping function: drop the choice, and '%s' once "
                "nothing else uses it (%s)" % (what, c["var"], did))
    if c["v"] == "differs":
        return ("%s chooses between different code, not only a mapping "
                "function: %s; check by hand" % (what, did))
    if c["v"] == "cpp":
        d = c["cpp"]
        return ("%s choice under conditional compilation (line %d: %s): %s; "
                "remove the choice and its conditional compilation by hand"
                % (what, d, src(p[0].file)[d - 1].strip(), did))
    if c["v"] == "plain":
        did = did.replace("choice left", "test left")
        return ("%s guards an old call with no other arm: %s; check by hand "
                "whether the test is still needed" % (what, did))
    return ("the choice on '%s' has the same arms once its calls are "
            "renamed: %s; drop the choice by hand if its condition has no "
            "side effect" % (c["cond"], did))

// Only files that call the old functions. Spelled out, not an identifier
// set, so that spatch can pick the files to parse with a grep for these
// names (--use-gitgrep).
@old@
@@

(
 pci_p2pdma_map_sg_attrs(...)
|
 pci_p2pdma_map_sg(...)
|
 pci_p2pdma_unmap_sg_attrs(...)
|
 pci_p2pdma_unmap_sg(...)
)

// ---- every choice, before the code changes ----------------------------

@pv depends on old@
type T;
identifier x;
expression P;
position q;
@@

 T x@q = \(is_pci_p2pdma_page(P)\|!is_pci_p2pdma_page(P)\);

@script:python depends on old@
x << pv.x;
q << pv.q;
@@

p2p_locals.add((q[0].file, q[0].current_element, x))
initialised.add((q[0].file, q[0].line, q[0].column))

@pa depends on old@
identifier x;
expression P;
position q;
@@

 x@q = \(is_pci_p2pdma_page(P)\|!is_pci_p2pdma_page(P)\)

@script:python depends on old@
x << pa.x;
q << pa.q;
@@

# An assignment pattern also matches the initialiser of a declaration.
if (q[0].file, q[0].line, q[0].column) not in initialised:
    p2p_assigned.add((q[0].file, q[0].current_element, x))

// An early return of nothing at the end of a void function.
@void_return depends on old@
identifier fn;
expression C;
statement S1, S2;
position p, pe;
@@

fn(...) {
  ...
  if (C@p) {
    S1
    return;
  }
  S2@pe
}

@script:python depends on old@
p << void_return.p;
c << void_return.C;
s1 << void_return.S1;
s2 << void_return.S2;
pe << void_return.pe;
@@

classify(p, c, s1, s2, int(pe[0].line_end))

@ifelse depends on old@
expression C;
statement S1, S2;
position p, pe;
@@

 if (C@p) S1 else S2@pe

@script:python depends on old@
p << ifelse.p;
c << ifelse.C;
s1 << ifelse.S1;
s2 << ifelse.S2;
pe << ifelse.pe;
@@

classify(p, c, s1, s2, int(pe[0].line_end))

// An early return of a value: the arm that returns, and the statement
// after it.
@early_return depends on old@
expression C;
statement S1, S2;
position p, pe;
@@

 if (C@p) S1
 S2@pe

@script:python depends on old@
p << early_return.p;
c << early_return.C;
s1 << early_return.S1;
s2 << early_return.S2;
pe << early_return.pe;
@@

if re.search(r"\breturn\b", s1):
    classify(p, c, s1, s2, int(pe[0].line_end))

@condexpr depends on old@
expression C, E1, E2;
position p, pe;
@@

 C@p ? E1 : E2@pe

@script:python depends on old@
p << condexpr.p;
c << condexpr.C;
e1 << condexpr.E1;
e2 << condexpr.E2;
pe << condexpr.pe;
@@

classify(p, c, e1, e2, int(pe[0].line_end))

// Anything else: a test whose only arm holds an old call.
@plain depends on old@
expression C;
statement S1;
position p, pe;
@@

 if (C@p) S1@pe

@script:python depends on old@
p << plain.p;
c << plain.C;
s1 << plain.S1;
pe << plain.pe;
@@

classify(p, c, s1, "", int(pe[0].line_end), plain=True)

// ---- patch -------------------------------------------------------------

// Every collapse in one rule, before the renaming: positions are those of
// the original file only until the first rule that changes it. The arms
// are the same once renamed, so keeping the second and renaming it after
// gives the converted code.
@collapse depends on old && patch && !context && !org && !report@
expression C, E1, E2;
statement S1, S2;
position p : script:python() { collapsible(p) };
@@
(
- if (C@p) {
-	S1
- } else {
	S2
- }
|
- if (C@p)
-	S1
- else
	S2
|
- if (C@p) {
-	S1
-	return;
- }
  S2
|
- if (C@p)
-	S1
  S2
|
- C@p ? E1 : E2
+ E2
)

@script:python depends on old && patch && !context && !org && !report@
p << collapse.p;
@@

done.add(key(p))

// A local that only chose the mapping function: gone with its last use.
@depends on old && patch && !context && !org && !report@
type T;
identifier x;
expression P;
@@

- T x = \(is_pci_p2pdma_page(P)\|!is_pci_p2pdma_page(P)\);
  ... when != x

@rename depends on old && patch && !context && !org && !report@
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

// Every choice not collapsed is reported, whatever kept it.
@script:python depends on old && patch && !context && !org && !report@
p << void_return.p;
@@

note(p)

@script:python depends on old && patch && !context && !org && !report@
p << ifelse.p;
@@

note(p)

@script:python depends on old && patch && !context && !org && !report@
p << early_return.p;
@@

note(p)

@script:python depends on old && patch && !context && !org && !report@
p << condexpr.p;
@@

note(p)

@script:python depends on old && patch && !context && !org && !report@
p << plain.p;
@@

note(p)

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

// The tests of is_pci_p2pdma_page() in a function that calls them.
@ctx depends on context && !patch && !org && !report@
identifier fn;
@@

fn(...) {
  <+... \(pci_p2pdma_map_sg_attrs\|pci_p2pdma_map_sg\|pci_p2pdma_unmap_sg_attrs\|pci_p2pdma_unmap_sg\)(...) ...+>
}

@depends on context && !patch && !org && !report@
identifier ctx.fn;
expression P;
@@

fn(...) {
  <...
* is_pci_p2pdma_page(P)
  ...>
}

// ---- org and report ----------------------------------------------------

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

@script:python depends on old && org@
p << call.p;
@@

old = called(p)
coccilib.org.print_todo(p[0], "WARNING %s() was removed in Linux 6.0: use %s() with the same arguments" % (old, old.replace("pci_p2pdma_", "dma_")))

@script:python depends on old && org@
p << void_return.p;
@@

say(p, coccilib.org.print_todo, "WARNING ")

@script:python depends on old && org@
p << ifelse.p;
@@

say(p, coccilib.org.print_todo, "WARNING ")

@script:python depends on old && org@
p << early_return.p;
@@

say(p, coccilib.org.print_todo, "WARNING ")

@script:python depends on old && org@
p << condexpr.p;
@@

say(p, coccilib.org.print_todo, "WARNING ")

@script:python depends on old && org@
p << plain.p;
@@

say(p, coccilib.org.print_todo, "WARNING ")


@script:python depends on old && report@
p << call.p;
@@

old = called(p)
coccilib.report.print_report(p[0], "WARNING: %s() was removed in Linux 6.0: use %s() with the same arguments" % (old, old.replace("pci_p2pdma_", "dma_")))

@script:python depends on old && report@
p << void_return.p;
@@

say(p, coccilib.report.print_report, "WARNING: ")

@script:python depends on old && report@
p << ifelse.p;
@@

say(p, coccilib.report.print_report, "WARNING: ")

@script:python depends on old && report@
p << early_return.p;
@@

say(p, coccilib.report.print_report, "WARNING: ")

@script:python depends on old && report@
p << condexpr.p;
@@

say(p, coccilib.report.print_report, "WARNING: ")

@script:python depends on old && report@
p << plain.p;
@@

say(p, coccilib.report.print_report, "WARNING: ")
