#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-cocci.sh: test the semantic patches of cocci/.
#
# For every cocci/NAME.cocci:
#  - the header has the kernel's fields (SPDX, "///" description,
#    Confidence, Options) and the four virtual modes;
#  - every cocci/tests/NAME/X.c, patched in place by spatch, equals X.res;
#  - `make coccicheck COCCI=NAME.cocci MODE=M M=cocci/tests/NAME` runs
#    without an spatch error and has something to say, for each of patch,
#    context, org and report;
#  - over the whole patched tree (--use-gitgrep), patch mode changes
#    nothing: the driver patches are complete and applying them again is a
#    no-op.
#
# Output: one line per script; exit 1 on any failure.
set -euo pipefail
P2P_STEP=cocci
. "$(dirname "$0")/lib.sh"

"$P2P_TOP/scripts/deps.sh" check
[ -f "$P2P_TREE/Makefile" ] || die "no kernel tree at $P2P_TREE; run 'make prepare'"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# spatch_errors FILE: lines of spatch's stderr that are errors, not the
# scripts' own "check by hand" notes.
spatch_errors()
{
	grep -iE 'exception|traceback|fatal|parse error|error:|not found|semantic error' "$1" |
		grep -v 'check by hand' || true
}

# coccicheck DIR SCRIPT MODE [M]: run make coccicheck in DIR.
coccicheck()
{
	make -s -C "$1" coccicheck COCCI="$2" MODE="$3" ${4:+M="$4"} \
		SPFLAGS="--use-gitgrep" 2>"$tmp/err" >"$tmp/out" || echo "coccicheck exited $?" >>"$tmp/err"
	# coccicheck prints spatch's exceptions on stdout
	grep -iE '^exception|fatal error|coccicheck failed' "$tmp/out" >>"$tmp/err" || true
	grep -vE '^$|^Please check|^When using|^/usr/bin/spatch' "$tmp/out" || true
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

rc=0
for s in "$P2P_TOP"/cocci/*.cocci; do
	name=$(basename "$s" .cocci) bad=() ncases=0
	mapfile -t bad < <(check_header "$s")

	cases=("$P2P_TOP/cocci/tests/$name"/*.c)
	[ -e "${cases[0]}" ] || bad+=("no tests in cocci/tests/$name")
	for c in "${cases[@]}"; do
		[ -e "$c" ] || continue
		ncases=$((ncases + 1))
		cp "$c" "$tmp/case.c"
		spatch --very-quiet --sp-file "$s" -D patch --no-includes --include-headers \
			--in-place "$tmp/case.c" >/dev/null 2>"$tmp/err" || bad+=("spatch failed on $(basename "$c")")
		[ -z "$(spatch_errors "$tmp/err")" ] || bad+=("spatch error on $(basename "$c"): $(spatch_errors "$tmp/err" | head -n 1)")
		if ! diff -u "${c%.c}.res" "$tmp/case.c" >"$tmp/diff"; then
			bad+=("$(basename "$c"): output differs from $(basename "${c%.c}.res")")
			sed 's/^/    /' "$tmp/diff" | head -n 30
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
		echo "$name: $ncases cases match, 4 modes run, patched tree complete ($nrep report lines left)"
	else
		printf '%s: %s\n' "$name" "${bad[@]}"
		rc=1
	fi
done
exit "$rc"
