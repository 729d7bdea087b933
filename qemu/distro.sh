#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# distro.sh [run.sh options]: the guest tests on the kernel and modules of
# the packages 'make deb' built (build/deb/), as a Debian system runs them.
#
# The linux-image package gives the kernel and its module tree, to which
# depmod adds its index as the package's postinst would; the
# linux-headers package is the build directory of the test modules (as
# for any out-of-tree module on Debian) and of the guest image, in which
# /init loads qemu/config/distro.modprobe with kmod's modprobe. Tests
# that need an option Debian's config leaves off (KERNEL_NEEDS, KUnit)
# are listed as not run.
set -euo pipefail
P2P_STEP=test-distro
. "$(dirname "$0")/../scripts/lib.sh"

debs=${P2P_DEB_OUT:-$P2P_BUILD/deb-guest}
root=$P2P_BUILD/distro
[ -f "$debs/release" ] || die "no packages in $debs; run 'make test-distro'"
release=$(cat "$debs/release")
shopt -s nullglob
images=("$debs"/linux-image-"$release"_*.deb)
headers=("$debs"/linux-headers-"$release"_*.deb)
[ ${#images[@]} -eq 1 ] || die "expected one linux-image-$release package in $debs, found ${#images[@]}"
[ ${#headers[@]} -eq 1 ] || die "expected one linux-headers-$release package in $debs, found ${#headers[@]}"
image=${images[0]} headers=${headers[0]}

log "unpacking $(basename "$image") and $(basename "$headers")"
rm -rf "$root"
mkdir -p "$root/image" "$root/headers"
dpkg-deb -x "$image" "$root/image"
dpkg-deb -x "$headers" "$root/headers"
hdr=$root/headers/usr/src/linux-headers-$release
[ -f "$hdr/Module.symvers" ] || die "$(basename "$headers") has no usr/src/linux-headers-$release/Module.symvers"
[ -d "$root/image/lib/modules/$release" ] || die "$(basename "$image") has no lib/modules/$release"
depmod -b "$root/image" "$release" || die "depmod failed on the modules of $(basename "$image")"
# boot.sh boots $P2P_OBJ/arch/x86/boot/bzImage
mkdir -p "$hdr/arch/x86/boot"
cp "$root/image/boot/vmlinuz-$release" "$hdr/arch/x86/boot/bzImage"

export P2P_OBJ=$hdr
P2P_GUEST_MODULES=$root/image P2P_GUEST_MODPROBE=$P2P_TOP/qemu/config/distro.modprobe \
	"$P2P_TOP/qemu/initramfs.sh"
# The package's own copy of the configuration (the headers have auto.conf).
kconfig=$root/image/boot/config-$release
[ -f "$kconfig" ] || die "$(basename "$image") has no boot/config-$release"
P2P_KCONFIG=$kconfig "$P2P_TOP/tests/run.sh" --guest-only "$@"
