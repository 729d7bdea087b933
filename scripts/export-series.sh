#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# export-series.sh: write the tree's commits (base..HEAD) back to the patch
# files, so that patches are edited as commits in the tree and exported.
#
# Each commit goes to the file series/series lists at its position; new
# commits past the end of the list go to the directory named by the commit
# subject's prefix (PCI/P2PDMA and its Documentation -> core/, dma-*/iommu ->
# dma-mapping/, other -> drivers/) under git format-patch's stable name, and are appended to
# series/series.
set -euo pipefail
P2P_STEP=export
. "$(dirname "$0")/lib.sh"

# dir_for SUBJECT: the layout directory for a new patch.
dir_for()
{
	case "$1" in
	PCI*|"Documentation: PCI"*|"tools: PCI"*) echo core ;;
	dma-*|dma:*|swiotlb*|iommu*) echo dma-mapping ;;
	*) echo drivers ;;
	esac
}

[ -z "$(tree_git status --porcelain --untracked-files=no)" ] ||
	die "$P2P_TREE has uncommitted changes; commit them first"

mapfile -t listed < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$P2P_SERIES")
mapfile -t commits < <(tree_git rev-list --reverse base..HEAD)
[ ${#commits[@]} -ge ${#listed[@]} ] ||
	die "the tree has ${#commits[@]} commits on base but series/series lists ${#listed[@]} patches; re-apply or edit series/series"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# One format-patch run, so that subjects read "[PATCH i/N]" as mailed.
mapfile -t files < <(tree_git format-patch --numbered --no-signature \
	--zero-commit -o "$out" base..HEAD)
[ ${#files[@]} -eq ${#commits[@]} ] || die "format-patch wrote ${#files[@]} files for ${#commits[@]} commits"
i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	f=${files[$((i - 1))]}
	if [ "$i" -le ${#listed[@]} ]; then
		dest=${listed[$((i - 1))]}
	else
		dest=$(dir_for "$(tree_git log -1 --format=%s "$c")")/$(basename "$f")
		echo "$dest" >>"$P2P_SERIES"
	fi
	mkdir -p "$P2P_PATCHES/$(dirname "$dest")"
	if ! cmp -s "$f" "$P2P_PATCHES/$dest"; then
		cp "$f" "$P2P_PATCHES/$dest"
		log "wrote $dest"
	fi
done

# The tree now matches the patch files: record it as applied.
"$P2P_TOP/scripts/apply-series.sh" --record
log "exported $i patches"
