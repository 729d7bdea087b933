#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apply-series.sh: reset the kernel tree to 'base' and apply series/series
# with git am, one commit per patch. A patch that does not apply stops the
# run naming the patch file and the hunk that failed.
#
# Nothing is re-applied when the tree already holds exactly this series, so
# incremental kernel builds stay incremental. Commits made in the tree that
# were not exported ('make export') are never thrown away.
#
#   apply-series.sh                   apply (or confirm) the series
#   apply-series.sh --check-exported  exit 1 if the tree has unexported work
#   apply-series.sh --record          mark the tree as holding the series
#                                     (after 'make export')
set -euo pipefail
P2P_STEP=series
. "$(dirname "$0")/lib.sh"

stamp=$P2P_TREE/.git/p2p-applied

# series_patches: the patch files of series/series, in order.
series_patches()
{
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$P2P_SERIES"
}

# series_hash: what the applied tree must correspond to.
series_hash()
{
	local p
	{
		series_patches
		series_patches | while read -r p; do cat "$P2P_PATCHES/$p"; done
	} | sha256sum | cut -d' ' -f1
}

# check_exported: succeed when the tree holds nothing but base plus the
# series as last applied or exported.
check_exported()
{
	local head since
	[ -d "$P2P_TREE/.git" ] || return 0
	if [ -n "$(tree_git status --porcelain --untracked-files=no)" ]; then
		log "$P2P_TREE has uncommitted changes:"
		tree_git status --short --untracked-files=no | head -20 >&2
		return 1
	fi
	head=$(tree_git rev-parse HEAD)
	[ "$head" = "$(tree_git rev-parse -q --verify base)" ] && return 0
	[ -f "$stamp" ] && [ "$head" = "$(sed -n 2p "$stamp")" ] && return 0
	# List what came after the last apply or export (after base if none).
	since=$(sed -n 2p "$stamp" 2>/dev/null)
	log "$P2P_TREE has commits that are not in the patch files:"
	tree_git log --oneline "${since:-base}..HEAD" | head -20 >&2
	return 1
}

# apply_one FILE: git am one patch; on failure show the hunk and stop.
apply_one()
{
	local f=$1
	[ -f "$P2P_PATCHES/$f" ] || die "series/series lists $f, which does not exist"
	if ! tree_git am -q --keep-cr "$P2P_PATCHES/$f" >/dev/null 2>&1; then
		tree_git am --abort >/dev/null 2>&1 || true
		log "patch $f does not apply to the tree; git apply says:"
		tree_git apply --check -v "$P2P_PATCHES/$f" 2>&1 | grep -v '^Checking patch' | head -40 >&2 || true
		die "stopped at $f (the tree is left at the patch before it)"
	fi
}

case "${1:-}" in
--check-exported)
	check_exported
	exit ;;
--record)
	printf '%s\n%s\n' "$(series_hash)" "$(tree_git rev-parse HEAD)" >"$stamp"
	exit 0 ;;
esac

tree_git rev-parse -q --verify base >/dev/null ||
	die "$P2P_TREE is not prepared; run scripts/prepare-tree.sh (make prepare)"
want=$(series_hash)
n=$(series_patches | wc -l)
if [ -f "$stamp" ] && [ "$(sed -n 1p "$stamp")" = "$want" ] &&
   [ "$(tree_git rev-parse HEAD)" = "$(sed -n 2p "$stamp")" ] &&
   [ -z "$(tree_git status --porcelain --untracked-files=no)" ]; then
	log "series already applied ($n patches)"
	exit 0
fi

[ -d "$P2P_TREE/.git/rebase-apply" ] && tree_git am --abort >/dev/null 2>&1
check_exported || die "refusing to reset $P2P_TREE; run 'make export' to keep that work, or 'git -C $P2P_TREE reset --hard' to drop it"

# reset --hard rewrites only the files that differ, so the object tree
# rebuilds only what the series touches.
tree_git checkout -q -B p2pdma base
rm -f "$stamp"
series_patches | while read -r p; do
	apply_one "$p"
done
printf '%s\n%s\n' "$want" "$(tree_git rev-parse HEAD)" >"$stamp"
log "applied $n patches on $(tree_git describe --tags --always base)"
