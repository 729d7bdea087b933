#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-warnings.sh: the sparse and W=1 gates. Build every object whose C
# file the series touches with `make W=1 C=2`, once in the base tree and
# once in the patched tree, and fail on any warning the patched tree has
# that the base tree does not have, naming the patch that brought the line.
#
# Both builds are in their own object directories (build/obj-gate-base,
# build/obj-gate), so the test kernel in build/obj is never recompiled with
# other flags. The base tree is a git worktree of tag 'base' in
# build/linux-base. Warnings are compared by file and message, without line
# numbers, which the series shifts.
#
# Output: one line per gate with the counts, then each new warning. Exit 1
# when there is a new warning or a build fails.
set -euo pipefail
P2P_STEP=gates
. "$(dirname "$0")/lib.sh"

BASE_TREE=$P2P_BASE_TREE
JOBS=${JOBS:-$(nproc)}

"$P2P_TOP/scripts/deps.sh" build check
[ -f "$P2P_OBJ/.config" ] || die "no kernel configuration in $P2P_OBJ; run 'make kernel' first"

# touched_objects: objects of the C files the series changes that the test
# kernel builds (a C file #included by another, like a KUnit suite, has none).
touched_objects()
{
	local f
	for f in $(tree_git diff --name-only base..HEAD -- '*.c'); do
		[ -f "$P2P_OBJ/${f%.c}.o" ] && echo "${f%.c}.o"
	done
	return 0
}

# build_objects TREE OBJ LOG OBJECTS...: W=1 C=2 build of OBJECTS.
build_objects()
{
	local tree=$1 obj=$2 logf=$3
	shift 3
	mkdir -p "$obj"
	cp "$P2P_OBJ/.config" "$obj/.config"
	make -C "$tree" O="$obj" -s olddefconfig >/dev/null
	# W=1 C=2 always recompile and re-check, so the counts are complete
	rm -f "${@/#/$obj/}"
	run_with_heartbeat "$logf" "W=1 C=2 build in $(basename "$obj")" \
		make -C "$tree" O="$obj" CC="ccache gcc" -j"$JOBS" W=1 C=2 "$@"
}

# diagnostics LOG KIND: "file<TAB>line<TAB>message" of each sparse or gcc
# (W=1) warning or error in LOG. gcc's end in their [-W...] option.
diagnostics()
{
	local re='^([^ :]+):([0-9]+):[0-9]+: (warning|error): (.*)$'
	sed -nE "s#$re#\\1\t\\2\t\\3: \\4#p" "$1" |
		sed -E 's#^(\.\./)+##; s#^[^\t]*/linux-(source-6\.12|base)/##' |
		if [ "$2" = gcc ]; then grep -E '\[-W[^]]+\]$' || true; else grep -vE '\[-W[^]]+\]$' || true; fi
}

# patch_of FILE LINE: the series patch that last changed FILE:LINE.
patch_of()
{
	local commit n
	commit=$(tree_git blame -l -L "$2,$2" base..HEAD -- "$1" 2>/dev/null |
		awk '{ sub(/^\^/, "", $1); print $1 }')
	n=$(tree_git rev-list --reverse base..HEAD | grep -n "^$commit" | cut -d: -f1)
	if [ -n "$n" ]; then
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$P2P_SERIES" | sed -n "${n}p"
	else
		echo "the base tree (a header the series includes differently?)"
	fi
}

# compare KIND: print the counts and every new warning; 1 if any is new.
# A warning of the base tree excuses one identical warning of the series.
compare()
{
	local kind=$1 file line msg new=0
	diagnostics "$P2P_BUILD/logs/gate-base.log" "$kind" | sort >"$tmp/base.$kind"
	diagnostics "$P2P_BUILD/logs/gate.log" "$kind" | sort >"$tmp/series.$kind"
	awk -F'\t' 'FILENAME == ARGV[1] { seen[$1 FS $3]++; next }
		seen[$1 FS $3]-- > 0 { next }
		{ print }' "$tmp/base.$kind" "$tmp/series.$kind" >"$tmp/new.$kind"
	while IFS=$'\t' read -r file line msg; do
		new=$((new + 1))
		echo "  new: $file:$line: $msg  <- $(patch_of "$file" "$line")"
	done <"$tmp/new.$kind"
	printf '%s: base tree %d, patched tree %d, new %d\n' \
		"$([ "$kind" = gcc ] && echo "W=1" || echo sparse)" \
		"$(wc -l <"$tmp/base.$kind")" "$(wc -l <"$tmp/series.$kind")" "$new"
	[ "$new" -eq 0 ]
}

mapfile -t objects < <(touched_objects)
[ ${#objects[@]} -gt 0 ] || die "the series touches no C file that the kernel builds"
log "objects the series touches: ${objects[*]}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$P2P_BUILD/logs"

base_worktree
build_objects "$BASE_TREE" "$P2P_BUILD/obj-gate-base" "$P2P_BUILD/logs/gate-base.log" \
	"${objects[@]}" || die "the base tree does not build ${objects[*]}"
rc=0
build_objects "$P2P_TREE" "$P2P_BUILD/obj-gate" "$P2P_BUILD/logs/gate.log" "${objects[@]}" || {
	echo "build of the patched tree failed:"
	grep -E ': error: ' "$P2P_BUILD/logs/gate.log" | head -n 10 | while IFS=: read -r file line _; do
		echo "  $(grep -m1 -E "^$file:$line:" "$P2P_BUILD/logs/gate.log")  <- $(patch_of "${file##*linux-source-6.12/}" "$line")"
	done
	exit 1
}
compare sparse || rc=1
compare gcc || rc=1
exit "$rc"
