#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh: build the guest image of the kernel in $P2P_OBJ,
# $P2P_OBJ/p2p-initramfs.cpio.gz, with the kernel's own usr/gen_init_cpio
# from Debian packages installed on the host (busybox-static, nvme-cli,
# iproute2's rdma, mdadm, dmsetup and their shared libraries), the
# project's guest tests and
# test programs, and its test modules built against that kernel. It is
# rebuilt only when one of its inputs changes.
#
# P2P_GUEST_BINS names more host binaries to copy in, with their libraries.
#
# For a kernel with modules (make test-distro), P2P_GUEST_MODULES names the
# root of an installed kernel's module tree (the directory holding
# lib/modules/RELEASE) and P2P_GUEST_MODPROBE a file of module names: the
# tree goes into the image with kmod's modprobe, and the guest's /init
# loads those modules with modprobe before the tests, as a Debian system
# does at boot.
set -euo pipefail
P2P_STEP=initramfs
. "$(dirname "$0")/../scripts/lib.sh"

"$P2P_TOP/scripts/deps.sh" build guest
[ -f "$P2P_TREE/usr/gen_init_cpio.c" ] || die "no kernel tree at $P2P_TREE; run 'make prepare'"

out=$P2P_OBJ/p2p-initramfs.cpio.gz
work=$P2P_BUILD/guest
modwork=$P2P_OBJ/p2p-modules
mkdir -p "$work/bin" "$modwork"
[ -f "$P2P_OBJ/Module.symvers" ] || die "no kernel built in $P2P_OBJ; run 'make kernel'"

# Host binaries copied in with their libraries. busybox provides the rest.
HOST_BINS="/bin/busybox /usr/sbin/nvme /usr/bin/rdma /usr/sbin/mdadm /usr/sbin/dmsetup"
# More host binaries for one kind of image only: qemu/bench.sh adds fio,
# whose libraries (about 60 of them) the test images do without.
HOST_BINS="$HOST_BINS ${P2P_GUEST_BINS:-}"
if [ -n "${P2P_GUEST_MODULES:-}" ]; then
	[ -d "$P2P_GUEST_MODULES/lib/modules" ] || die "P2P_GUEST_MODULES=$P2P_GUEST_MODULES has no lib/modules/"
	[ -f "${P2P_GUEST_MODPROBE:-}" ] || die "P2P_GUEST_MODULES needs P2P_GUEST_MODPROBE, a file of module names"
	HOST_BINS="$HOST_BINS /usr/bin/kmod"
fi

# Project programs, built static so that they need no library in the guest.
for src in "$P2P_TOP"/tests/prog/*.c; do
	bin=$work/bin/$(basename "$src" .c)
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] ||
	   [ -n "$(find "$P2P_TOP/tests/prog" -name '*.h' -newer "$bin")" ]; then
		gcc -O2 -Wall -Wextra -Werror -static -o "$bin" "$src" ||
			die "cannot build $src"
	fi
done
# The kernel tree's P2PDMA query tool (tools/pci/p2pdma, added by the
# series), built static by the tools Makefile with its output out of the
# tree. A base tree has none: its guests run without it.
rm -f "$work/bin/p2pdma"
if [ -f "$P2P_TREE/tools/pci/p2pdma.c" ]; then
	mkdir -p "$work/tools-pci"
	make -s -C "$P2P_TREE/tools/pci" OUTPUT="$work/tools-pci/" \
		CC=gcc LDFLAGS=-static "$work/tools-pci/p2pdma" \
		>"$work/tools-pci/build.log" 2>&1 || {
		cat "$work/tools-pci/build.log" >&2
		die "cannot build tools/pci/p2pdma from $P2P_TREE"
	}
	cp "$work/tools-pci/p2pdma" "$work/bin/p2pdma"
fi
if [ ! -x "$work/gen_init_cpio" ] || [ "$P2P_TREE/usr/gen_init_cpio.c" -nt "$work/gen_init_cpio" ]; then
	gcc -O2 -o "$work/gen_init_cpio" "$P2P_TREE/usr/gen_init_cpio.c"
fi

# Test modules (tests/modules/NAME/), built out of tree against the kernel
# in $P2P_OBJ, from a copy so that no build output lands in the repository.
for src in "$P2P_TOP"/tests/modules/*/; do
	name=$(basename "$src")
	mkdir -p "$modwork/$name"
	cp -u "$src"* "$modwork/$name/"
	make -s -C "$P2P_OBJ" CC="ccache gcc" M="$modwork/$name" W=1 modules \
		>"$modwork/$name/build.log" 2>&1 || {
		cat "$modwork/$name/build.log" >&2
		die "cannot build test module $name"
	}
	if grep -q "warning:" "$modwork/$name/build.log"; then
		cat "$modwork/$name/build.log" >&2
		die "test module $name builds with warnings"
	fi
done

# libs_of BIN: the shared libraries BIN loads, dynamic loader included.
libs_of()
{
	ldd "$1" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib/{print $1}'
}

# entry GUEST_PATH HOST_PATH MODE: one file line, with its parent dirs.
declare -A DIRS
entry()
{
	local d=${1%/*}
	local parts=()
	while [ -n "$d" ] && [ -z "${DIRS[$d]:-}" ]; do
		DIRS[$d]=1
		parts=("$d" "${parts[@]}")
		d=${d%/*}
	done
	for d in "${parts[@]}"; do echo "dir $d 755 0 0"; done
	echo "file $1 $2 $3 0 0"
}

gen_list()
{
	local b l f
	echo "dir /dev 755 0 0"
	echo "nod /dev/console 600 0 0 c 5 1"
	for d in /proc /sys /tmp /run /root; do echo "dir $d 755 0 0"; done
	entry /init "$P2P_TOP/tests/guest/init" 755
	for b in $HOST_BINS; do
		[ -x "$b" ] || die "$b is missing (package not installed?)"
		entry "$b" "$b" 755
		for l in $(libs_of "$b"); do
			entry "$l" "$(readlink -f "$l")" 755
		done
	done
	for f in "$work"/bin/*; do
		entry "/usr/local/bin/$(basename "$f")" "$f" 755
	done
	for f in "$modwork"/*/*.ko; do
		[ -f "$f" ] && entry "/lib/modules/p2p/$(basename "$f")" "$f" 644
	done
	if [ -n "${P2P_GUEST_MODULES:-}" ]; then
		while read -r f; do
			entry "${f#"$P2P_GUEST_MODULES"}" "$f" 644
		done < <(find "$P2P_GUEST_MODULES/lib/modules" -type f | sort)
		entry /etc/p2p-modprobe "$P2P_GUEST_MODPROBE" 644
		echo "slink /usr/local/bin/modprobe /usr/bin/kmod 777 0 0"
		echo "slink /usr/local/bin/lsmod /usr/bin/kmod 777 0 0"
	fi
	entry /tests/run-guest "$P2P_TOP/tests/guest/run-guest" 755
	entry /tests/lib.sh "$P2P_TOP/tests/guest/lib.sh" 644
	for f in "$P2P_TOP"/tests/guest/cases/* "$P2P_TOP"/tests/guest/demo "$P2P_TOP"/tests/guest/bench "$P2P_TOP"/tests/guest/bench-io "$P2P_TOP"/tests/guest/bench-windows "$P2P_TOP"/tests/guest/bench-md "$P2P_TOP"/tests/guest/bypass "$P2P_TOP"/tests/guest/bypass-raid0 "$P2P_TOP"/tests/guest/boot; do
		[ -f "$f" ] || continue
		case "$f" in */cases/*) g=/tests/cases/${f##*/} ;; *) g=/tests/${f##*/} ;; esac
		entry "$g" "$f" 755
	done
}

gen_list | awk '!seen[$0]++' >"$work/initramfs.list"
# The image depends on the list and on the content of every file in it.
sum=$( { cat "$work/initramfs.list"; awk '$1=="file"{print $3}' "$work/initramfs.list" |
	xargs sha256sum; } | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.sum" 2>/dev/null)" = "$sum" ]; then
	log "guest image up to date: $out"
	exit 0
fi
"$work/gen_init_cpio" "$work/initramfs.list" | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "$sum" >"$out.sum"
log "guest image: $out ($(du -k "$out" | cut -f1) KiB, $(grep -c '^file' "$work/initramfs.list") files)"
