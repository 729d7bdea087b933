#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools-deb.sh [OUTDIR]: build the Debian package p2pdma-tools, the
# user-space half of the series for a Debian machine: the kernel tree's
# P2PDMA query tool (tools/pci/p2pdma, in /usr/sbin, as it reads debugfs
# and needs root) and the project's copy and read programs (p2pcopy,
# p2pread, in /usr/bin), each with a manual page.
#
# Its version is the series' kernel release and the build date, as the
# kernel packages of scripts/deb.sh have, so that a rebuilt series is an
# upgrade of the installed tools too. Output: OUTDIR (default build/deb)
# /p2pdma-tools_VERSION_amd64.deb.
set -euo pipefail
P2P_STEP=tools-deb
. "$(dirname "$0")/lib.sh"

out=${1:-${P2P_DEB_OUT:-$P2P_BUILD/deb}}
"$P2P_TOP/scripts/deps.sh" build pkg:dpkg-dev
[ -f "$P2P_TREE/tools/pci/p2pdma.c" ] ||
	die "no tools/pci/p2pdma.c in $P2P_TREE: the series is not applied (run 'make apply')"

work=$P2P_BUILD/tools-deb
rm -rf "$work"
root=$work/root
mkdir -p "$root/DEBIAN" "$root/usr/sbin" "$root/usr/bin" \
	"$root/usr/share/man/man1" "$root/usr/share/man/man8" \
	"$root/usr/share/doc/p2pdma-tools"

mkdir -p "$work/tools-pci"
make -s -C "$P2P_TREE/tools/pci" OUTPUT="$work/tools-pci/" CC=gcc \
	"$work/tools-pci/p2pdma" >"$work/tools-pci.log" 2>&1 || {
	tail -n 20 "$work/tools-pci.log" >&2
	die "cannot build tools/pci/p2pdma (log: $work/tools-pci.log)"
}
install -m 0755 "$work/tools-pci/p2pdma" "$root/usr/sbin/p2pdma"
for p in p2pcopy p2pread; do
	gcc -O2 -Wall -Wextra -Werror -o "$root/usr/bin/$p" "$P2P_TOP/tests/prog/$p.c" ||
		die "cannot build tests/prog/$p.c"
done
strip "$root/usr/sbin/p2pdma" "$root/usr/bin/p2pcopy" "$root/usr/bin/p2pread"
for m in "$P2P_TOP"/Documentation/man/*.[18]; do
	gzip -9n -c "$m" >"$root/usr/share/man/man${m##*.}/$(basename "$m").gz"
done
cat >"$root/usr/share/doc/p2pdma-tools/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: p2pdma-tools

Files: *
License: GPL-2
 On Debian systems, the complete text of the GNU General Public License
 version 2 can be found in /usr/share/common-licenses/GPL-2.
EOF

release=$(make -s -C "$P2P_TREE" kernelversion)-p2pdma
version=$release-$(date -u +%Y%m%d%H%M%S)
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: p2pdma-tools
Version: $version
Architecture: amd64
Maintainer: P2PDMA Dev <dev@p2pdma.invalid>
Installed-Size: $size
Depends: libc6
Recommends: linux-image-$release
Section: admin
Priority: optional
Description: ask whether two PCI devices can do P2P DMA, and copy through P2P memory
 p2pdma reads the P2PDMA report of a kernel with the P2PDMA series
 (debugfs, root only) and says whether and how a provider of P2P memory
 and a client device can do peer-to-peer DMA, and why not.
 p2pcopy copies between two block devices through a buffer in a
 provider's P2P memory (or RAM) and verifies every byte; p2pread reads a
 block device into P2P memory.
EOF
mkdir -p "$out"
rm -f "$out"/p2pdma-tools_*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$out/p2pdma-tools_${version}_amd64.deb" >/dev/null ||
	die "dpkg-deb could not build p2pdma-tools"
log "built $out/p2pdma-tools_${version}_amd64.deb"
