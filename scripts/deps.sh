#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh GROUP|pkg:NAME...: install the Debian packages a step needs, only
# those that are missing. Groups: tree, build, guest, check; pkg:NAME names
# one package. Stops naming every package that apt-get could not install.
set -euo pipefail
P2P_STEP=deps
. "$(dirname "$0")/lib.sh"

declare -A GROUP=(
	[tree]="$LINUX_PACKAGE xz-utils git"
	[build]="build-essential gawk flex bison bc libelf-dev libssl-dev cpio kmod ccache python3 dwarves linux-config-$LINUX_VERSION"
	[guest]="qemu-system-x86 qemu-system-data busybox-static nvme-cli iproute2 acpica-tools mdadm dmsetup"
	[check]="sparse coccinelle"
)

is_installed()
{
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

want=()
for g in "$@"; do
	case "$g" in
	pkg:*) pkgs=${g#pkg:} ;;
	*)	[ -n "${GROUP[$g]:-}" ] || die "unknown package group '$g' (known: ${!GROUP[*]})"
		pkgs=${GROUP[$g]} ;;
	esac
	for p in $pkgs; do
		is_installed "$p" || want+=("$p")
	done
done
[ ${#want[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || die "missing packages: ${want[*]}; run as root or install them with apt-get"
# apt's progress lines and the maintainer scripts' debconf and invoke-rc.d
# warnings (a container has no init and no apt-utils) go to a log; the
# screen gets one line per step and a heartbeat.
mkdir -p "$P2P_LOGS"
aptlog=$P2P_LOGS/apt-$(date +%Y%m%d%H%M%S)-$$
log "installing missing packages: ${want[*]} (logs: $aptlog.{update,install})"
export DEBIAN_FRONTEND=noninteractive
run_with_heartbeat "$aptlog.update" "apt-get update" apt-get update ||
	die "apt-get update failed; cannot install ${want[*]} (log: $aptlog.update)"
if ! run_with_heartbeat "$aptlog.install" "apt-get install" \
	apt-get install -y --no-install-recommends "${want[@]}"; then
	failed=()
	for p in "${want[@]}"; do is_installed "$p" || failed+=("$p"); done
	die "apt-get could not install: ${failed[*]:-${want[*]}} (log: $aptlog.install)"
fi
for p in "${want[@]}"; do
	is_installed "$p" || die "package $p is still not installed after apt-get install"
done
log "installed ${#want[@]} package(s)"
