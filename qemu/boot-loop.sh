#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot-loop.sh TOPOLOGY BOOTS [--label NAME] [--append ARGS] [--without-cmb]:
# boot the test
# kernel BOOTS times on TOPOLOGY, each boot powering off as soon as the
# kernel has reached the guest runner (p2p.run=boot), and count how each
# boot ended:
#
#   ok      powered off after the guest runner said "booted", with no
#           kernel report (BUG, Oops, WARNING, panic) on the console
#   panic   the console has "Kernel panic"
#   reset   the guest reset itself without a word (a triple fault: QEMU
#           runs with -no-reboot, so it exits)
#   report  another kernel report, or the runner never spoke
#   hang    killed at the timeout
#   qemu    QEMU itself failed (boot.sh's status neither 0, 1 nor 124)
#
# A boot that is not ok keeps its run directory, with the oops decoded by
# the tree's scripts/decode_stacktrace.sh (decoded.txt); ok boots keep one
# line in boots.txt; the QEMU command line of the first boot is kept as
# qemu.cmd. Ends with one line of counts, also appended to
# build/logs/boot-loop/summary.txt, and exits 1 if any boot was not ok.
#
# --without-cmb boots the topology with every NVMe's CMB removed: no P2P
# provider registers, so the series' static key is never enabled.
#
# What varies between runs comes from the environment boot.sh reads:
# P2P_OBJ (which kernel: its tree is P2P_TREE), P2P_SMP (vCPUs),
# P2P_TCG_THREAD (single or multi), P2P_KVM.
set -euo pipefail
P2P_STEP=boot-loop
. "$(dirname "$0")/../scripts/lib.sh"

topo=${1:?usage: boot-loop.sh TOPOLOGY BOOTS [--label NAME] [--append ARGS]}
boots=${2:?usage: boot-loop.sh TOPOLOGY BOOTS [--label NAME] [--append ARGS]}
shift 2
label=$topo append="" nocmb=0
while [ $# -gt 0 ]; do
	case "$1" in
	--label) label=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--without-cmb) nocmb=1; shift ;;
	*) die "unknown option $1" ;;
	esac
done
case $boots in ''|*[!0-9]*|0) die "BOOTS must be a positive number, not '$boots'" ;; esac
[ -f "$P2P_OBJ/vmlinux" ] || die "no kernel at $P2P_OBJ; run 'make kernel'"

out=$P2P_LOGS/boot-loop/$label
rm -rf "$out"
mkdir -p "$out"
if [ "$nocmb" = 1 ]; then
	[ -f "$P2P_TOP/qemu/topologies/$topo" ] || die "no topology '$topo'"
	sed -E 's/,cmb_size_mb=[0-9]+//' "$P2P_TOP/qemu/topologies/$topo" >"$out/$topo-without-cmb"
	topo=$out/$topo-without-cmb
fi
declare -A count=([ok]=0 [panic]=0 [reset]=0 [report]=0 [hang]=0 [qemu]=0)
REPORT='Kernel panic|BUG:|Oops|general protection fault|WARNING:|Call Trace:|UBSAN:|KASAN:'

# classify DIR RC: how the boot in DIR ended.
classify()
{
	if [ "$2" = 124 ]; then
		echo hang
	elif [ "$2" != 0 ] && [ "$2" != 1 ] || [ ! -f "$1/console.log" ]; then
		echo qemu
	elif grep -q "Kernel panic" "$1/console.log"; then
		echo panic
	elif ! grep -qE "reboot: Power down|p2p-guest: done" "$1/console.log" &&
	     ! grep -qE "$REPORT" "$1/console.log"; then
		echo reset
	elif grep -qE "$REPORT" "$1/console.log" ||
	     ! tr -d '\r' <"$1/results.tap" 2>/dev/null | grep -q '^booted '; then
		echo report
	else
		echo ok
	fi
}

log "$label: $boots boots of ${topo##*/}, kernel $P2P_OBJ, smp ${P2P_SMP:-default}, tcg thread ${P2P_TCG_THREAD:-single}"
start=$(date +%s)
for i in $(seq 1 "$boots"); do
	dir=$out/boot-$i rc=0
	"$P2P_TOP/qemu/boot.sh" "$topo" --dir "$dir" --timeout 120 \
		--append "p2p.run=boot $append" >/dev/null 2>"$dir.err" || rc=$?
	kind=$(classify "$dir" "$rc")
	count[$kind]=$(( ${count[$kind]} + 1 ))
	line="boot $i: $kind $(cat "$dir/seconds" 2>/dev/null)s $(tr -d '\r' <"$dir/results.tap" 2>/dev/null | grep -E '^(booted|flipped) ' | xargs || true)"
	echo "$line" >>"$out/boots.txt"
	[ "$i" = 1 ] && cp "$dir/qemu.cmd" "$out/qemu.cmd" 2>/dev/null
	if [ "$kind" = ok ]; then
		rm -rf "$dir" "$dir.err"
	else
		log "$label: $line (kept: $dir)"
		"$P2P_TREE/scripts/decode_stacktrace.sh" "$P2P_OBJ/vmlinux" "$P2P_TREE" "$P2P_OBJ" \
			<"$dir/console.log" >"$dir/decoded.txt" 2>&1 || true
	fi
	(( i % 10 == 0 )) && log "$label: $i/$boots boots, ${count[ok]} ok, $(( $(date +%s) - start ))s"
done
summary="$label: $boots boots of ${topo##*/}: ${count[ok]} ok, ${count[panic]} panic, ${count[reset]} reset, ${count[report]} report, ${count[hang]} hang, ${count[qemu]} qemu error ($(( $(date +%s) - start ))s)"
echo "$summary" | tee -a "$P2P_LOGS/boot-loop/summary.txt"
[ "${count[ok]}" = "$boots" ]
