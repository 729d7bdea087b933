#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# system.sh [--rootfs]: 'make test-system', the series installed on a real Debian 12
# system as the README tells a user to install it, and used there.
#
# 1. A Debian 12 root file system from Debian's packages (mmdebstrap:
#    systemd, udev, initramfs-tools, kmod, nvme-cli, mdadm, fio, Debian's
#    own kernel and GRUB for BIOS), put into a partitioned disk image with
#    sfdisk and mke2fs -d: no loop device, no mount, nothing loaded into
#    this machine's kernel. Kept in build/system/ and made again only when
#    the package list, ROOTFS_REV or the unit file changes.
# 2. Boot 1, Debian's kernel loaded by QEMU: GRUB is installed on the disk
#    (grub-install, update-grub), as a Debian installer leaves a machine.
# 3. Boot 2, from the disk through SeaBIOS and GRUB, on the 'switch'
#    topology (two NVMe with CMBs below a PCIe switch): the README's
#    real-hardware commands, verbatim (dpkg -i of the packages, grub-reboot,
#    reboot); then, in the series' kernel, the user's checks with Debian's
#    tools (tests/system/steps); then an upgrade to a second build of the
#    packages and a reboot into it; then 'apt-get remove' of the packages
#    and a reboot into Debian's kernel, which must still come up.
#
# The packages are those of scripts/deb.sh and scripts/tools-deb.sh in
# P2P_DEB_OUT (default build/deb-system), built for the modules of
# qemu/config/system.lsmod; the second build for the upgrade in
# P2P_DEB_OUT.2. The guest gets them, and tests/system/steps, on a second
# disk that is a tar archive; it reports on the serial console, kept in
# build/logs/system/grub.log and system.log (one per QEMU run). Output: one line per step, and
# "N passed, N failed".
set -euo pipefail
P2P_STEP=system
. "$(dirname "$0")/../scripts/lib.sh"

sys=$P2P_BUILD/system
debs=${P2P_DEB_OUT:-$P2P_BUILD/deb-system}
debs2=$debs.2
logs=$P2P_LOGS/system
timeout=${P2P_SYSTEM_TIMEOUT:-3600}
# Bump ROOTFS_REV when make_rootfs's hooks change.
ROOTFS_REV=3
PACKAGES="systemd-sysv,udev,initramfs-tools,kmod,nvme-cli,mdadm,fio,linux-image-amd64,grub-pc-bin,grub2-common,e2fsprogs,procps,util-linux,xz-utils,sudo"

"$P2P_TOP/scripts/deps.sh" guest pkg:mmdebstrap pkg:fdisk pkg:e2fsprogs
mkdir -p "$sys" "$logs"

# The root file system, once per package list, hooks and unit file.
make_rootfs()
{
	local sum
	sum=$( { echo "$PACKAGES $ROOTFS_REV"; cat "$P2P_TOP/tests/system/p2p-system.service"; } | sha256sum)
	if [ -f "$sys/rootfs.sum" ] && [ "$(cat "$sys/rootfs.sum")" = "$sum" ]; then
		log "Debian 12 root file system up to date: $sys/rootfs"
		return
	fi
	rm -rf "$sys/rootfs" "$sys/rootfs.sum"
	log "making a Debian 12 root file system with mmdebstrap (a few minutes; log: $logs/mmdebstrap.log)"
	run_with_heartbeat "$logs/mmdebstrap.log" mmdebstrap \
		mmdebstrap --variant=minbase --include="$PACKAGES" \
		--customize-hook='echo p2p-debian >"$1/etc/hostname"' \
		--customize-hook='echo "LABEL=p2proot / ext4 errors=remount-ro 0 1" >"$1/etc/fstab"' \
		--customize-hook='chroot "$1" passwd -d root' \
		--customize-hook="upload $P2P_TOP/tests/system/p2p-system.service /etc/systemd/system/p2p-system.service" \
		--customize-hook='chroot "$1" systemctl enable p2p-system.service' \
		--customize-hook='chroot "$1" systemctl mask serial-getty@ttyS0.service' \
		--customize-hook='cp "$1/usr/share/grub/default/grub" "$1/etc/default/grub"' \
		--customize-hook='echo "GRUB_CMDLINE_LINUX=\"console=ttyS0,115200\"" >>"$1/etc/default/grub"' \
		--customize-hook='echo "GRUB_TERMINAL=serial" >>"$1/etc/default/grub"' \
		--customize-hook='echo "GRUB_TIMEOUT=1" >>"$1/etc/default/grub"' \
		bookworm "$sys/rootfs" ||
		die "mmdebstrap failed (log: $logs/mmdebstrap.log)"
	echo "$sum" >"$sys/rootfs.sum"
}

# The disk: an MBR with one bootable Linux partition from 1 MiB, the root
# file system written into it by mke2fs -d at that offset.
make_disk()
{
	local size=4G
	rm -f "$sys/disk.img"
	truncate -s "$size" "$sys/disk.img"
	printf 'label: dos\nstart=2048, type=83, bootable\n' |
		sfdisk -q "$sys/disk.img" >"$logs/sfdisk.log" 2>&1 ||
		die "sfdisk could not partition $sys/disk.img (log: $logs/sfdisk.log)"
	mke2fs -q -F -t ext4 -L p2proot -E offset=$((2048 * 512)) -d "$sys/rootfs" \
		"$sys/disk.img" $((4 * 1024 * 1024 - 1024))k >"$logs/mke2fs.log" 2>&1 ||
		die "mke2fs could not write the root file system (log: $logs/mke2fs.log)"
	log "disk image: $sys/disk.img ($size, root file system from $sys/rootfs)"
}

# The second disk: a tar archive of the packages and the test steps.
make_payload()
{
	local stage=$sys/payload
	rm -rf "$stage"
	mkdir -p "$stage/deb" "$stage/deb.2"
	cp "$debs"/*.deb "$stage/deb/"
	cp "$debs2"/*.deb "$stage/deb.2/"
	cp "$P2P_TOP/tests/system/steps" "$stage/steps"
	echo "$release" >"$stage/release"
	tar -C "$stage" -cf "$sys/payload.tar" .
}

# boot NAME QEMU-ARGS...: one QEMU run until the guest powers off, its
# console in $logs/NAME.log.
boot()
{
	local name=$1
	shift
	log "boot '$name' (TCG; console: $logs/$name.log)"
	run_with_heartbeat "$logs/$name.log" "$name" \
		timeout "$timeout" qemu-system-x86_64 -machine q35 -cpu qemu64 -smp 2 -m 2G \
		-nographic -no-user-config -nodefaults -serial stdio \
		-drive "file=$sys/disk.img,if=virtio,format=raw,cache=unsafe" \
		-drive "file=$sys/payload.tar,if=virtio,format=raw,readonly=on" \
		"$@" || die "boot '$name' failed or timed out (console: $logs/$name.log)"
}

# The devices of the 'switch' topology: two NVMe with CMBs below a switch.
switch_devices()
{
	local QEMU_DRIVES QEMU_DEVICES d name size
	QEMU_DEVICES=()
	. "$P2P_TOP/qemu/topologies/switch"
	devices=()
	for d in $QEMU_DRIVES; do
		name=${d%%:*} size=${d#*:}
		rm -f "$sys/$name.img"
		truncate -s "$size" "$sys/$name.img"
		devices+=(-drive "file=$sys/$name.img,if=none,id=$name,format=raw,cache=unsafe")
	done
	devices+=("${QEMU_DEVICES[@]}")
}

# summary LOG: the guest's verdicts, one line each, and the counts.
summary()
{
	grep -a 'P2P-SYSTEM: \(ok\|FAIL\|DONE\)' "$1" | sed 's/\r$//; s/^.*P2P-SYSTEM: /    /' >&2 || true
}

start=$(date +%s)
make_rootfs
[ "${1:-}" != --rootfs ] || exit 0
for d in "$debs" "$debs2"; do
	[ -f "$d/release" ] || die "no packages in $d; run 'make test-system' (it builds them)"
done
release=$(cat "$debs/release")
make_disk
make_payload
shopt -s nullglob
dkernel=("$sys"/rootfs/boot/vmlinuz-*-amd64)
dinitrd=("$sys"/rootfs/boot/initrd.img-*-amd64)
[ ${#dkernel[@]} -eq 1 ] && [ ${#dinitrd[@]} -eq 1 ] ||
	die "expected one Debian kernel and initramfs in $sys/rootfs/boot"
boot grub -kernel "${dkernel[0]}" -initrd "${dinitrd[0]}" \
	-append "root=/dev/vda1 rw console=ttyS0,115200"
summary "$logs/grub.log"
grep -aq 'P2P-SYSTEM: ok GRUB installed' "$logs/grub.log" ||
	die "GRUB was not installed in the first boot (console: $logs/grub.log)"
switch_devices
boot system "${devices[@]}"
summary "$logs/system.log"
done_line=$(grep -a 'P2P-SYSTEM: DONE' "$logs/system.log" | tail -n 1 | sed 's/\r$//; s/^.*DONE //')
[ -n "$done_line" ] || die "the system did not finish its stages (console: $logs/system.log)"
passed=${done_line%% passed*}
failed=${done_line#*, }
failed=${failed%% failed*}
log "test-system took $(( $(date +%s) - start ))s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
