#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh: build Debian packages (linux-image, linux-headers) of the patched
# tree with Debian's own configuration, for a Debian machine with real
# hardware, and for 'make test-distro'.
#
# The configuration is Debian's config.amd64_none_amd64 (package
# linux-config-6.12) or DEB_CONFIG=FILE (say /boot/config-$(uname -r)),
# trimmed by the kernel's 'make localmodconfig' to the modules in
# LSMOD=FILE (lsmod's output; default: this machine's running lsmod), then:
#
#   PCI_P2PDMA=y                 Debian's config has it off
#   LOCALVERSION="-p2pdma"       the release says it is this series
#   DEBUG_INFO_NONE=y            no debug info: a third of the build time,
#                                and no -dbg package of several GiB
#   MODULE_SIG_ALL=y             modules signed with a key generated at
#                                build time and built into the kernel
#
# Built out of tree in build/obj-deb-host (incremental; P2P_DEB_OBJ) with
# the kernel's 'make bindeb-pkg'; the packages land in build/deb/
# (P2P_DEB_OUT). 'make test-distro' uses directories of its own, so that it
# never replaces the packages built for this machine.
set -euo pipefail
P2P_STEP=deb
. "$(dirname "$0")/lib.sh"

JOBS=${JOBS:-$(nproc)}
obj=${P2P_DEB_OBJ:-$P2P_BUILD/obj-deb-host}
out=${P2P_DEB_OUT:-$P2P_BUILD/deb}
deb_config=${DEB_CONFIG:-/usr/src/linux-config-$LINUX_VERSION/config.amd64_none_amd64.xz}
lsmod_file=${LSMOD:-}
KMAKE=(make -C "$P2P_TREE" O="$obj" CC="ccache gcc" LOCALVERSION= -j"$JOBS")

# bindeb-pkg checks the build dependencies its debian/control declares.
pkgs="build pkg:dpkg-dev pkg:debhelper pkg:rsync pkg:openssl"
[ -z "${DEB_CONFIG:-}" ] && pkgs="$pkgs pkg:linux-config-$LINUX_VERSION"
# shellcheck disable=SC2086
"$P2P_TOP/scripts/deps.sh" $pkgs
[ -f "$P2P_TREE/Makefile" ] || die "no kernel tree at $P2P_TREE; run 'make apply'"
[ -f "$deb_config" ] || die "no Debian kernel config at $deb_config"
if [ -n "$lsmod_file" ]; then
	[ -f "$lsmod_file" ] || die "LSMOD=$lsmod_file: no such file"
	# localmodconfig reads it from the build directory
	lsmod_file=$(realpath "$lsmod_file")
	head -n 1 "$lsmod_file" | grep -q '^Module' ||
		die "LSMOD=$lsmod_file is not lsmod output (its first line is not 'Module  Size  Used by')"
else
	lsmod_file=$obj/lsmod.running
	mkdir -p "$obj"
	lsmod >"$lsmod_file" || die "cannot run lsmod (package kmod); give LSMOD=FILE"
fi

# configure: Debian's config, localmodconfig, then the series' changes.
# Redone only when one of its inputs changed.
configure()
{
	local sum
	sum=$( { cat "$lsmod_file"; case $deb_config in *.xz) xz -dc "$deb_config" ;; *) cat "$deb_config" ;; esac
		 sha256sum "$0" "$P2P_TREE/Makefile"; git -C "$P2P_TREE" rev-parse HEAD 2>/dev/null; } | sha256sum)
	if [ -f "$obj/.config" ] && [ "$(cat "$obj/.config.p2p-sum" 2>/dev/null)" = "$sum" ]; then
		log "configuration up to date: $obj/.config"
		return
	fi
	mkdir -p "$obj"
	case $deb_config in
	*.xz) xz -dc "$deb_config" >"$obj/.config" ;;
	*) cp "$deb_config" "$obj/.config" ;;
	esac
	log "localmodconfig: Debian's config trimmed to the $(($(wc -l <"$lsmod_file") - 1)) modules of $lsmod_file"
	"${KMAKE[@]}" LSMOD="$lsmod_file" localmodconfig </dev/null >"$obj/localmodconfig.log" 2>&1 ||
		{ tail -n 20 "$obj/localmodconfig.log" >&2; die "localmodconfig failed (log: $obj/localmodconfig.log)"; }
	"$P2P_TREE/scripts/config" --file "$obj/.config" \
		--enable PCI_P2PDMA \
		--set-str LOCALVERSION "-p2pdma" \
		--disable LOCALVERSION_AUTO \
		--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5 \
		--enable DEBUG_INFO_NONE \
		--enable MODULE_SIG_ALL \
		--set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str SYSTEM_REVOCATION_KEYS ""
	"${KMAKE[@]}" olddefconfig >>"$obj/localmodconfig.log" 2>&1 ||
		die "olddefconfig failed (log: $obj/localmodconfig.log)"
	grep -qx 'CONFIG_PCI_P2PDMA=y' "$obj/.config" ||
		die "CONFIG_PCI_P2PDMA did not survive olddefconfig (is ZONE_DEVICE off in $deb_config?)"
	grep -qx 'CONFIG_DEBUG_INFO_NONE=y' "$obj/.config" || die "debug info is still on"
	echo "$sum" >"$obj/.config.p2p-sum"
}

configure
# The release the build will have (kernelrelease needs a prepared tree):
# the tree's version and the config's local version.
release=$("${KMAKE[@]}" -s --no-print-directory kernelversion)$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$obj/.config")
[ "${release%-p2pdma}" != "$release" ] || die "kernel release '$release' does not end in -p2pdma"
# A new Debian version for every build, so that apt sees a rebuilt series
# as an upgrade of the installed one.
pkgversion=$release-$(date -u +%Y%m%d%H%M%S)
log "building linux-image-$release and linux-headers-$release with $JOBS jobs (15 to 25 minutes on 2 cores from scratch)"
start=$(date +%s)
# bindeb-pkg writes the packages next to the build directory.
rm -f "$(dirname "$obj")"/linux-*"$release"*.deb
run_with_heartbeat "$obj/bindeb-pkg.log" "bindeb-pkg" \
	"${KMAKE[@]}" KDEB_CHANGELOG_DIST=bookworm KDEB_PKGVERSION="$pkgversion" bindeb-pkg ||
	die "make bindeb-pkg failed (log: $obj/bindeb-pkg.log)"
mkdir -p "$out"
rm -f "$out"/*.deb
mv "$(dirname "$obj")"/linux-*"$release"*.deb "$out/"
rm -f "$(dirname "$obj")"/linux-upstream_* 2>/dev/null || true
log "built in $(( $(date +%s) - start ))s:"
ls -1 "$out"/*.deb | sed 's/^/    /' >&2
echo "$release" >"$out/release"
