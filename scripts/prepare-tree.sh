#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prepare-tree.sh: turn Debian's linux-source package into the git tree the
# series applies to, at $P2P_TREE (an ignored directory under build/).
#
# The tree is reused when it was extracted from the package version that is
# installed now. Its version is checked against the pin in series/base: a
# different major.minor stops; a different point release is reported.
set -euo pipefail
P2P_STEP=tree
. "$(dirname "$0")/lib.sh"

"$P2P_TOP/scripts/deps.sh" tree

# P2P_TARBALL and P2P_PKGVER stand in for the package in the host tests.
tarball=${P2P_TARBALL:-/usr/src/$LINUX_PACKAGE.tar.xz}
[ -f "$tarball" ] || die "$tarball is missing although $LINUX_PACKAGE is installed"
pkgver=${P2P_PKGVER:-$(dpkg-query -W -f='${Version}' "$LINUX_PACKAGE")}
stamp=$P2P_TREE/.git/p2p-source

# tree_version DIR: "major.minor.sublevel" from the tree's top Makefile.
tree_version()
{
	awk -F' = ' '$1=="VERSION"{v=$2} $1=="PATCHLEVEL"{p=$2} $1=="SUBLEVEL"{s=$2}
		END {print v "." p "." s}' "$1/Makefile"
}

# check_version DIR: refuse a tree of another major.minor than the pin.
check_version()
{
	local v
	v=$(tree_version "$1")
	case "$v" in
	"$LINUX_VERSION".*) ;;
	*) die "$tarball holds Linux $v, but series/base pins $LINUX_VERSION; install $LINUX_PACKAGE for Linux $LINUX_VERSION or update the pin";;
	esac
	if [ "$v" != "$LINUX_TESTED" ]; then
		log "note: tree is Linux $v; the series was last tested on $LINUX_TESTED"
	fi
	echo "$v"
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkgver" ] &&
   tree_git rev-parse -q --verify base >/dev/null; then
	v=$(check_version "$P2P_TREE")
	log "reusing $P2P_TREE (Linux $v from $LINUX_PACKAGE $pkgver)"
	exit 0
fi

if [ -d "$P2P_TREE/.git" ]; then
	# Another package version, or a half-made tree. Never throw away
	# commits that were not exported to patch files.
	"$P2P_TOP/scripts/apply-series.sh" --check-exported ||
		die "$P2P_TREE has work that is not exported; run 'make export' or move the tree away"
fi

log "extracting $tarball ($LINUX_PACKAGE $pkgver)"
mkdir -p "$P2P_BUILD"
tmp=$(mktemp -d "$P2P_BUILD/extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xf "$tarball"
src=$tmp/$LINUX_PACKAGE
[ -f "$src/Makefile" ] || die "$tarball does not contain $LINUX_PACKAGE/Makefile"
v=$(check_version "$src")

# Debian's packaging adds a section to the top-level .gitignore that ignores
# every top-level entry ("/*"), which would hide every file from git. Drop
# it: it is not part of the kernel, and the series never touches .gitignore.
sed -i '/^# Debian packaging/,$d' "$src/.gitignore"
sed -i '${/^#$/d}' "$src/.gitignore"

rm -rf "$P2P_TREE"
mv "$src" "$P2P_TREE"
log "committing the pristine tree as 'base' (about a minute)"
tree_git init -q -b p2pdma
tree_git add -A
tree_git commit -q -m "Linux $v from Debian $LINUX_PACKAGE $pkgver" \
	-m "Pristine tree the P2PDMA series applies to; the Debian packaging section of .gitignore is dropped so that git sees the tree."
tree_git tag -f base >/dev/null
echo "$pkgver" >"$stamp"
log "tree ready: $P2P_TREE (Linux $v)"
