#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-cocci.sh: test the semantic patches of cocci/.
#
# For every cocci/NAME.cocci:
#  - the header has the kernel's fields (SPDX, "///" description,
#    Confidence, Options) and the four virtual modes;
#  - spatch finds a grep query in every mode (without one, --use-gitgrep
#    would parse every file of the tree);
#  - every test case cocci/tests/NAME/X.c gives, run alone by spatch:
#    in patch mode X.res (in place) and, on stderr, the notes of X.notes
#    (none without that file); in report mode the lines of X.report (none
#    without it); in org mode the same lines; in context mode something
#    wherever report mode warns;
#  - X.c and X.res compile as translation units against the patched tree's
#    headers and build/obj's generated ones (gcc -fsyntax-only -Werror, see
#    kernel_cflags), X.c with cocci/tests/include/p2pdma-legacy.h (the API
#    that 6.0 removed), X.res without it, and the output of a case that
#    differs from X.res: a script that emits broken C, or keeps an old
#    call, fails here;
#  - `make coccicheck COCCI=NAME.cocci MODE=M M=cocci/tests/NAME` runs
#    without an spatch error and has something to say, for each of patch,
#    context, org and report;
#  - over the whole patched tree (make coccicheck, --use-gitgrep), patch
#    mode changes nothing: the driver patches are complete and applying
#    them again is a no-op.
#
# Then, for all three scripts at once: every .c file that mentions a P2PDMA
# name (p2pdma, p2pmem, any case) at tag 'base' and on branch p2pdma is
# copied out of git into a scratch directory (the tree is never written),
# and
#  - spatch parses them without a parse error in code that mentions a
#    P2PDMA name or a DMA mapping call the scripts match;
#  - in patch mode, no script changes a file of the patched tree, and on
#    the base tree each changes exactly the files of BASE_CHANGES and notes
#    on stderr exactly the files of BASE_NOTES.
#
# Output: one line per script, then one line for the base and patched
# trees; exit 1 on any failure.
set -euo pipefail
P2P_STEP=cocci
. "$(dirname "$0")/lib.sh"

# What patch mode does to the base tree's P2PDMA callers. Only RDMA's rw.c
# changes: it includes linux/pci-p2pdma.h and uses nothing of it (the
# series' patch 12). nvme-pci's guard is left, and noted: its block returns
# the single-segment helpers' status, so there is no fallback to the
# scatterlist path yet (the series adds it by hand first, patch 10). No file
# calls the 4.20-5.19 API any more.
declare -A BASE_CHANGES=(
	[p2pdma_dma_guard]=""
	[p2pdma_legacy_map]=""
	[p2pdma_unused_include]="drivers/infiniband/core/rw.c"
)
declare -A BASE_NOTES=(
	[p2pdma_dma_guard]="drivers/nvme/host/pci.c"
	[p2pdma_legacy_map]=""
	[p2pdma_unused_include]=""
)
P2P_NAMES='p2pdma|p2pmem'
# The branch apply-series.sh builds the series on.
PATCHED_REF=p2pdma

"$P2P_TOP/scripts/deps.sh" check
[ -f "$P2P_TREE/Makefile" ] || die "no kernel tree at $P2P_TREE; run 'make prepare'"
[ -f "$P2P_OBJ/include/generated/autoconf.h" ] ||
	die "no generated headers in $P2P_OBJ; run 'make kernel'"
tree_git rev-parse -q --verify "$PATCHED_REF^{commit}" >/dev/null ||
	die "no branch $PATCHED_REF in $P2P_TREE; run 'make apply'"
mkdir -p "$P2P_LOGS"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LEGACY_H=$P2P_TOP/cocci/tests/include/p2pdma-legacy.h

# spatch_errors FILE: lines of spatch's stderr that are errors, not the
# scripts' own notes, which all start with "FILE:LINE: ".
spatch_errors()
{
	grep -iE 'exception|traceback|fatal|parse error|error:|not found|semantic error' "$1" |
		grep -vE '^[^ :]+\.(c|h):[0-9]+: ' || true
}

# coccicheck DIR SCRIPT MODE [M]: run make coccicheck in DIR. spatch's
# parallel workers keep their output in directories that would otherwise be
# made in DIR, the kernel tree, which this script never writes.
coccicheck()
{
	make -s -C "$1" coccicheck COCCI="$2" MODE="$3" ${4:+M="$4"} \
		SPFLAGS="--use-gitgrep --tmp-dir $tmp/spatch" 2>"$tmp/err" >"$tmp/out" ||
		echo "coccicheck exited $?" >>"$tmp/err"
	# coccicheck prints spatch's exceptions on stdout
	grep -iE '^exception|fatal error|coccicheck failed' "$tmp/out" >>"$tmp/err" || true
	grep -vE '^$|^Please check|^When using|^/usr/bin/spatch' "$tmp/out" || true
}

# The compiler flags of a driver file of build/obj (.pci.o.cmd of
# nvme-pci), reduced to what a syntax check needs: the kernel's include
# paths (source, then generated), kconfig.h (which includes the generated
# autoconf.h) and compiler_types.h, __KERNEL__, the C dialect and char
# signedness, -fcf-protection when the config has IBT
# (arch/x86/include/asm/ibt.h uses nocf_check, an error without it), the
# names kbuild defines for a module; and as errors -Wall (unused and
# set-but-unused variables included, W=1's stricter choice) with the
# kernel's prototype checks and its -Wno-pointer-sign, but not unused
# static functions: a test case is a fragment of a driver whose callers it
# omits. Code generation flags do not matter to -fsyntax-only.
kernel_cflags()
{
	local t=$P2P_TREE o=$P2P_OBJ
	KCFLAGS=(-fsyntax-only -nostdinc
		-I"$t/arch/x86/include" -I"$o/arch/x86/include/generated"
		-I"$t/include" -I"$o/include"
		-I"$t/arch/x86/include/uapi" -I"$o/arch/x86/include/generated/uapi"
		-I"$t/include/uapi" -I"$o/include/generated/uapi"
		-include "$t/include/linux/kconfig.h"
		-include "$t/include/linux/compiler_types.h"
		-D__KERNEL__ -std=gnu11 -funsigned-char
		'-DKBUILD_MODFILE="cocci/test"' '-DKBUILD_BASENAME="test"'
		'-DKBUILD_MODNAME="cocci_test"'
		-Wall -Wundef -Wstrict-prototypes -Wmissing-prototypes
		-Wno-pointer-sign -Wno-unused-function -Werror)
	if grep -q '^CONFIG_X86_KERNEL_IBT=y' "$o/include/config/auto.conf" 2>/dev/null; then
		KCFLAGS+=(-fcf-protection=branch)
	fi
}

# compiles FILE [GCC ARGS...]: FILE builds as C against the patched tree;
# prints the first errors otherwise.
compiles()
{
	local f=$1
	shift
	if ! gcc "${KCFLAGS[@]}" "$@" -x c "$f" -o /dev/null >"$tmp/cc" 2>&1; then
		grep -m 3 -E 'error' "$tmp/cc" | sed "s|^$tmp/||; s|^|    |"
		return 1
	fi
}

check_header()
{
	local s=$1
	head -n 1 "$s" | grep -q '^// SPDX-License-Identifier: ' || echo "no SPDX line"
	grep -q '^/// [A-Z]' "$s" || echo "no /// description"
	grep -q '^// Confidence: \(High\|Moderate\|Low\)' "$s" || echo "no Confidence line"
	grep -q '^// Options:' "$s" || echo "no Options line"
	for m in context patch org report; do
		grep -qx "virtual $m" "$s" || echo "no 'virtual $m'"
	done
}

# org_as_report: org mode's lines in report mode's form.
org_as_report()
{
	sed -E 's/^\* TODO \[\[view:([^:]+)::face=[^:]+::linb=([0-9]+)::colb=([0-9]+)::cole=([0-9]+)\]\[(WARNING|INFO) (.*)\]\]$/\1:\2:\3-\4: \5: \6/'
}

# by_place: sort FILE:LINE:... lines by file and line.
by_place()
{
	sort -t: -k1,1 -k2,2n -k3,3n -s
}

# expect WHAT EXPECTED-FILE ACTUAL-FILE: compare, an absent expected file
# meaning no output; adds to bad[] and shows the difference.
expect()
{
	local what=$1 want=$2 got=$3
	[ -f "$want" ] || want=/dev/null
	if ! diff -u "$want" "$got" >"$tmp/diff"; then
		bad+=("$what")
		sed '1,2d; s/^/    /' "$tmp/diff" | head -n 20
	fi
}

kernel_cflags
# The flags must build the kernel's own driver code: nvme-pci, which
# includes the headers the test cases use.
compiles "$P2P_TREE/drivers/nvme/host/pci.c" -I"$P2P_TREE/drivers/nvme/host" ||
	die "the syntax-check flags do not build drivers/nvme/host/pci.c; fix kernel_cflags"

rc=0
for s in "$P2P_TOP"/cocci/*.cocci; do
	name=$(basename "$s" .cocci) bad=() ncases=0
	mapfile -t bad < <(check_header "$s")

	# Without a grep query, spatch parses every file of the tree.
	for m in patch context org report; do
		spatch --parse-cocci "$s" -D "$m" 2>&1 | grep -q '^Grep query' ||
			bad+=("MODE=$m: no grep query, spatch would parse every file")
	done

	cases=("$P2P_TOP/cocci/tests/$name"/*.c)
	[ -e "${cases[0]}" ] || bad+=("no tests in cocci/tests/$name")
	for c in "${cases[@]}"; do
		[ -e "$c" ] || continue
		ncases=$((ncases + 1))
		x=$(basename "$c") base=${c%.c}
		rm -rf "$tmp/case"
		mkdir "$tmp/case"
		cp "$c" "$tmp/case/$x"
		# patch mode: the result, and the notes on stderr
		(cd "$tmp/case" && spatch --very-quiet --sp-file "$s" -D patch --no-includes \
			--include-headers --in-place "$x" >/dev/null 2>"$tmp/err") ||
			bad+=("spatch failed on $x")
		[ -z "$(spatch_errors "$tmp/err")" ] || bad+=("spatch error on $x: $(spatch_errors "$tmp/err" | head -n 1)")
		[ -f "$base.res" ] || bad+=("$x: no ${x%.c}.res")
		expect "$x: output differs from ${x%.c}.res" "$base.res" "$tmp/case/$x"
		if [ -f "$base.res" ] && ! cmp -s "$base.res" "$tmp/case/$x"; then
			compiles "$tmp/case/$x" || bad+=("$x: the output does not compile against the patched tree")
		fi
		grep -E '^[^ :]+\.c:[0-9]+: ' "$tmp/err" | by_place >"$tmp/notes" || true
		expect "$x: patch mode's notes differ from ${x%.c}.notes" "$base.notes" "$tmp/notes"
		# report, org and context modes
		cp "$c" "$tmp/case/$x"
		for m in report org context; do
			(cd "$tmp/case" && spatch --very-quiet --sp-file "$s" -D "$m" --no-includes \
				--include-headers "$x" >"$tmp/$m" 2>"$tmp/err") ||
				bad+=("spatch -D $m failed on $x")
			[ -z "$(spatch_errors "$tmp/err")" ] || bad+=("spatch -D $m error on $x: $(spatch_errors "$tmp/err" | head -n 1)")
		done
		by_place <"$tmp/report" >"$tmp/report.sorted"
		expect "$x: report mode differs from ${x%.c}.report" "$base.report" "$tmp/report.sorted"
		org_as_report <"$tmp/org" | by_place >"$tmp/org.sorted"
		expect "$x: org mode does not say what report mode says" "$tmp/report.sorted" "$tmp/org.sorted"
		# context mode's diff marks lines with "-"
		if grep -q ': WARNING: ' "$tmp/report" && ! grep -qE '^-([^-]|$)' "$tmp/context"; then
			bad+=("$x: context mode marks nothing where report mode warns")
		fi
		# both compile against the patched tree
		compiles "$c" -include "$LEGACY_H" || bad+=("$x does not compile against the patched tree")
		if [ -f "$base.res" ]; then
			compiles "$base.res" || bad+=("${x%.c}.res does not compile against the patched tree")
		fi
	done

	for m in patch context org report; do
		out=$(coccicheck "$P2P_TREE" "$s" "$m" "$P2P_TOP/cocci/tests/$name")
		[ -z "$(spatch_errors "$tmp/err")" ] || bad+=("MODE=$m: $(spatch_errors "$tmp/err" | head -n 1)")
		[ -n "$out" ] || bad+=("MODE=$m says nothing about cocci/tests/$name")
	done

	# the whole patched tree: nothing left to convert
	out=$(coccicheck "$P2P_TREE" "$s" patch)
	[ -z "$(spatch_errors "$tmp/err")" ] || bad+=("whole tree: $(spatch_errors "$tmp/err" | head -n 1)")
	if grep -q '^diff -u -p' <<<"$out"; then
		bad+=("the patched tree still changes: $(grep '^diff -u -p' <<<"$out" | awk '{print $NF}' | xargs)")
	fi
	coccicheck "$P2P_TREE" "$s" report >"$P2P_LOGS/cocci-report-$name.txt"
	nrep=$(grep -c ': \(WARNING\|INFO\)' "$P2P_LOGS/cocci-report-$name.txt" || true)

	if [ ${#bad[@]} -eq 0 ]; then
		echo "$name: $ncases cases match and compile, 4 modes run, patched tree complete ($nrep report lines left)"
	else
		for b in "${bad[@]}"; do echo "$name: $b"; done
		rc=1
	fi
done

# ---- the P2PDMA callers of the base and patched trees ------------------

bad=() summary=()
for rev in base "$PATCHED_REF"; do
	mkdir -p "$tmp/$rev"
	mapfile -t files < <(tree_git grep -l -i -E "$P2P_NAMES" "$rev" -- '*.c' | sed "s|^$rev:||")
	[ ${#files[@]} -gt 0 ] || bad+=("$rev: no .c file mentions a P2PDMA name")
	tree_git archive --format=tar "$rev" -- "${files[@]}" | tar -x -C "$tmp/$rev"

	# parse errors in code that mentions what the scripts look for
	spatch --parse-c "$tmp/$rev" >"$tmp/parse" 2>&1 || bad+=("$rev: spatch --parse-c failed")
	nerr=$(grep -c '^parse error' "$tmp/parse" || true)
	awk '/^parse error/ { f = 1; next } f && /^(bad|BAD):/ { print; next } { f = 0 }' "$tmp/parse" |
		grep -iE "$P2P_NAMES|dma_(un)?map_(sg|bvec|page|single)" >"$tmp/bad" || true
	[ ! -s "$tmp/bad" ] || bad+=("$rev: spatch cannot parse: $(head -n 1 "$tmp/bad")")

	for s in "$P2P_TOP"/cocci/*.cocci; do
		name=$(basename "$s" .cocci)
		(cd "$tmp/$rev" && spatch --very-quiet --sp-file "$s" -D patch --no-includes \
			--include-headers --dir . >"$tmp/out" 2>"$tmp/err") || bad+=("$rev: $name: spatch failed")
		[ -z "$(spatch_errors "$tmp/err")" ] || bad+=("$rev: $name: $(spatch_errors "$tmp/err" | head -n 1)")
		changed=$(sed -n 's|^+++ b/||p' "$tmp/out" | sort | xargs)
		noted=$(grep -oE '^[^ :]+\.(c|h):[0-9]+: ' "$tmp/err" | cut -d: -f1 | sed 's|^\./||' | sort -u | xargs || true)
		if [ "$rev" = base ]; then
			[ "$changed" = "${BASE_CHANGES[$name]}" ] ||
				bad+=("base: $name changes '$changed', expected '${BASE_CHANGES[$name]}'")
			[ "$noted" = "${BASE_NOTES[$name]}" ] ||
				bad+=("base: $name notes '$noted', expected '${BASE_NOTES[$name]}'")
		else
			[ -z "$changed" ] || bad+=("$rev: $name still changes $changed")
		fi
	done
	summary+=("$rev: ${#files[@]} files, $nerr parse errors elsewhere")
done
if [ ${#bad[@]} -eq 0 ]; then
	echo "P2PDMA callers: ${summary[0]}; ${summary[1]}; 3 scripts leave the patched tree unchanged and change only $(echo "${BASE_CHANGES[@]}" | xargs) in the base tree"
else
	for b in "${bad[@]}"; do echo "P2PDMA callers: $b"; done
	rc=1
fi
exit "$rc"
