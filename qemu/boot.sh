#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh TOPOLOGY [options]: boot the test kernel and guest image on a QEMU
# q35 machine with the devices of qemu/topologies/TOPOLOGY, under TCG (KVM
# only where /dev/kvm works). The kernel console goes to console.log, the
# guest's TAP output (second serial port) to results.tap, both in the run
# directory, which is kept.
#
#   --dir DIR          run directory (default build/logs/manual/TOPOLOGY)
#   --append ARGS      extra kernel command line
#   --only A,B         run only these guest tests
#   --timeout SECONDS  kill a guest that has not powered off (default 600)
#   --trace PATTERNS   QEMU trace events to trace.log, comma-separated
#                      (e.g. pci_nvme_map_addr*,pci_nvme_read)
#
# Environment: P2P_OBJ (the kernel's build directory), P2P_SMP (vCPUs,
# default the topology's, 2), P2P_TCG_THREAD (single or multi), P2P_KVM=no,
# P2P_QEMU_LOG (see below), P2P_ICOUNT=off|on: count instructions instead
# of timing them (TCG only): the guest's clocks advance one nanosecond per
# guest instruction, with sleep=off or sleep=on (an idle guest's clock
# jumps to the next timer, or follows the host's).
#
# Host requests: the guest's third serial port (ttyS2) is a channel to the
# host. A line "device_del ID" there is passed to QEMU's monitor, so that a
# guest test can hot-unplug a device the way an operator would (the
# monitor's answers go to monitor.log, the requests to host-requests.log).
#
# Exit status: 0 the guest powered off, 124 it was killed at the timeout,
# other: QEMU failed. On a timeout the tail of the console is printed.
set -euo pipefail
P2P_STEP=qemu
. "$(dirname "$0")/../scripts/lib.sh"

topo=${1:?usage: boot.sh TOPOLOGY [--dir DIR] [--append ARGS] [--only TESTS] [--timeout S] [--trace EVENTS]}
shift
dir=$P2P_LOGS/manual/${topo##*/} append="" only="" timeout=600 trace=""
while [ $# -gt 0 ]; do
	case "$1" in
	--dir) dir=$2; shift 2 ;;
	--append) append="$append $2"; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--trace) trace=$2; shift 2 ;;
	*) die "unknown option $1" ;;
	esac
done

tfile=$P2P_TOP/qemu/topologies/$topo
# A path names a topology file of its own (qemu/boot-loop.sh derives some).
case $topo in */*) tfile=$topo topo=$(basename "$topo") ;; esac
[ -f "$tfile" ] || die "no topology '$topo' (known: $(ls "$P2P_TOP/qemu/topologies" | xargs))"
QEMU_CPU=qemu64 QEMU_SMP=2 QEMU_MACHINE=q35 QEMU_APPEND="" QEMU_DRIVES="" QEMU_DEVICES=() QEMU_TCG_THREAD=""
QEMU_ACPI_TABLES=()
# shellcheck source=topologies/switch
. "$tfile"

kernel=$P2P_OBJ/arch/x86/boot/bzImage
initrd=$P2P_OBJ/p2p-initramfs.cpio.gz
[ -f "$kernel" ] || die "no kernel at $kernel; run 'make kernel'"
[ -f "$initrd" ] || die "no guest image at $initrd; run 'make initramfs'"

# ACPI tables the topology adds to QEMU's own (QEMU_ACPI_TABLES: ASL
# sources relative to qemu/), compiled by iasl into build/acpi/ at every
# boot and passed with -acpitable.
acpi=()
if [ ${#QEMU_ACPI_TABLES[@]} -gt 0 ]; then
	command -v iasl >/dev/null ||
		die "topology '$topo' adds ACPI tables, and iasl is missing: install acpica-tools ('scripts/deps.sh guest' as root, or apt-get)"
	mkdir -p "$P2P_BUILD/acpi"
	for asl in "${QEMU_ACPI_TABLES[@]}"; do
		src=$P2P_TOP/qemu/$asl aml=$P2P_BUILD/acpi/$(basename "$asl" .asl)
		[ -f "$src" ] || die "topology '$topo': no ACPI table source $src"
		if ! iasl -p "$aml" "$src" >"$aml.log" 2>&1; then
			tail -n 20 "$aml.log" | sed 's/^/    /' >&2
			die "iasl could not compile $src (log: $aml.log)"
		fi
		acpi+=(-acpitable "file=$aml.aml")
	done
fi

rm -rf "$dir"
mkdir -p "$dir"

# Fresh, sparse backing images for every drive: tests start from zeroes.
drives=()
for d in $QEMU_DRIVES; do
	name=${d%%:*} size=${d#*:}
	truncate -s "$size" "$dir/$name.img"
	drives+=(-drive "file=$dir/$name.img,if=none,id=$name,format=raw,cache=unsafe")
done

# kvm_works: whether a KVM guest really runs here. /dev/kvm may exist while
# guests hang (nested virtualisation), so boot the kernel once under KVM
# without an initrd: it must reach its "cannot mount root" panic within 20 s.
# The answer, and why not, is cached per QEMU version, and said once per
# boot in one line. QEMU aborts where KVM does not work, and bash reports
# that on the stderr of the command group around the probe: discarded.
kvm_works()
{
	local cache=$P2P_BUILD/kvm-probe qv probe why=""
	qv=$(qemu-system-x86_64 --version | head -n 1)
	if [ ! -f "$cache" ] || [ "$(sed -n 1p "$cache")" != "$qv" ]; then
		probe=$(mktemp)
		if [ ! -e /dev/kvm ]; then
			why="no /dev/kvm"
		elif [ ! -w /dev/kvm ]; then
			why="/dev/kvm is not writable"
		elif ! { timeout -k 5 20 qemu-system-x86_64 -machine q35 \
			-accel kvm -cpu host -m 256M -nodefaults -display none \
			-no-reboot -bios /usr/share/qemu/qboot.rom -kernel "$kernel" \
			-append "console=ttyS0 panic=-1" -serial "file:$probe" \
			>/dev/null 2>&1; } 2>/dev/null ||
		     ! grep -q "VFS: Unable to mount root" "$probe"; then
			why="a test guest did not boot under KVM (nested virtualisation?)"
		fi
		rm -f "$probe"
		printf '%s\n%s\n%s\n' "$qv" "$([ -z "$why" ] && echo yes || echo no)" \
			"$why" >"$cache"
	fi
	[ "$(sed -n 2p "$cache")" = yes ] && return 0
	KVM_WHY=$(sed -n 3p "$cache")
	return 1
}

# One host thread runs every vCPU in turn (P2P_TCG_THREAD=multi: one
# each, QEMU's default). Multi-threaded TCG breaks the kernel's x86 code
# patching: a vCPU may execute an int3 that text_poke_bp() has already
# removed, and the kernel oopses at a jump label or static call site being
# patched (Documentation/testing.md, "Jump labels and the early-boot
# panic"). KVM guests are not affected.
accel=(-accel "tcg,thread=${P2P_TCG_THREAD:-${QEMU_TCG_THREAD:-single}}")
icount=()
case ${P2P_ICOUNT:-} in
"") ;;
off|on) icount=(-icount "shift=0,align=off,sleep=$P2P_ICOUNT") P2P_KVM=no ;;
*) die "P2P_ICOUNT=$P2P_ICOUNT: expected off or on (icount's sleep=)" ;;
esac
if [ "${P2P_KVM:-auto}" = no ]; then
	log "KVM: not used (P2P_KVM=no); QEMU emulates the CPU (TCG, thread=${P2P_TCG_THREAD:-${QEMU_TCG_THREAD:-single}})"
elif kvm_works; then
	accel=(-accel kvm)
	log "KVM: used"
else
	log "KVM: not used ($KVM_WHY); QEMU emulates the CPU (TCG, thread=${P2P_TCG_THREAD:-${QEMU_TCG_THREAD:-single}})"
fi

# Single-threaded TCG emits no host barrier for the guest's (its vCPUs
# take turns in one thread), but QEMU's main loop, which runs the emulated
# NVMe controllers, runs beside that thread on another host CPU. The
# guest's NVMe shadow doorbell protocol (store the queue tail, mb(), load
# the controller's event index) then races with the controller's (store
# the event index, barrier, load the tail): both can miss the other's
# store, the guest skips the doorbell write, and the queue stalls until an
# I/O timeout resets the controller (seen once in CI, during a RAID10 copy).
# On one host CPU the two never run at once, and a context switch orders
# their memory accesses: QEMU is pinned to one (P2P_PIN_QEMU=no: not).
pin=()
if [ "${accel[1]}" != kvm ] && [[ ${accel[1]} == *thread=single* ]] &&
   [ "${P2P_PIN_QEMU:-yes}" != no ]; then
	pin=(taskset -c "$(taskset -cp $$ | sed 's/.*: //; s/[-,].*//')")
	log "QEMU pinned to host CPU ${pin[2]} (single-threaded TCG: see boot.sh)"
fi

cmdline="console=ttyS0 edd=off panic=-1 oops=panic loglevel=6 p2p.topology=$topo"
[ -n "$only" ] && cmdline="$cmdline p2p.only=$only"
cmdline="$cmdline${QEMU_APPEND:+ $QEMU_APPEND}$append"

qemu=(qemu-system-x86_64 -machine "$QEMU_MACHINE" "${accel[@]}" "${icount[@]}" -cpu "$QEMU_CPU"
	-smp "${P2P_SMP:-$QEMU_SMP}" -m 1G -nodefaults -display none -no-reboot
	-bios /usr/share/qemu/qboot.rom
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-serial "file:$dir/console.log" -serial "file:$dir/results.tap"
	-serial "pipe:$dir/req" -monitor "pipe:$dir/mon"
	"${acpi[@]}" "${drives[@]}" "${QEMU_DEVICES[@]}")
# P2P_QEMU_LOG=ITEMS: QEMU's own log (-d ITEMS) to qemu-debug.log, e.g.
# cpu_reset,guest_errors: the CPU state at every reset, which is the only
# trace a triple fault leaves.
# QEMU has one log file (-D): with --trace too, both go to trace.log.
[ -n "${P2P_QEMU_LOG:-}" ] && qemu+=(-d "$P2P_QEMU_LOG")
if [ -n "$trace" ]; then
	IFS=, read -ra events <<<"$trace"
	for t in "${events[@]}"; do qemu+=(-trace "$t"); done
	qemu+=(-D "$dir/trace.log")
elif [ -n "${P2P_QEMU_LOG:-}" ]; then
	qemu+=(-D "$dir/qemu-debug.log")
fi
printf '%q ' "${qemu[@]}" >"$dir/qemu.cmd"
echo >>"$dir/qemu.cmd"

# host_requests: pass the guest's requests on ttyS2 to the monitor. Only
# "device_del ID" with a plain id is passed on; anything else is logged and
# ignored, so a guest cannot drive the rest of the monitor.
host_requests()
{
	local line
	exec 3>"$dir/mon.in"
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"device_del "*[!A-Za-z0-9_-]*|"device_del ")
			echo "$(date +%T) refused: $line" >>"$dir/host-requests.log" ;;
		"device_del "*)
			echo "$(date +%T) $line" >>"$dir/host-requests.log"
			echo "$line" >&3 ;;
		*)
			echo "$(date +%T) ignored: $line" >>"$dir/host-requests.log" ;;
		esac
	done <"$dir/req.out"
}

mkfifo "$dir/req.in" "$dir/req.out" "$dir/mon.in" "$dir/mon.out"
start=$(date +%s)
rc=0
timeout -k 10 "$timeout" "${pin[@]}" "${qemu[@]}" >"$dir/qemu.out" 2>&1 &
qpid=$!
cat "$dir/mon.out" >"$dir/monitor.log" &
mpid=$!
host_requests &
hpid=$!
wait "$qpid" || rc=$?
kill "$hpid" "$mpid" 2>/dev/null || true
wait "$hpid" "$mpid" 2>/dev/null || true
rm -f "$dir/req.in" "$dir/req.out" "$dir/mon.in" "$dir/mon.out"
echo "$(( $(date +%s) - start ))" >"$dir/seconds"
rm -f "$dir"/*.img
case $rc in
0) ;;
124|137)
	log "$topo: guest did not power off within ${timeout}s and was killed; last console lines ($dir/console.log):"
	tail -n 20 "$dir/console.log" | sed 's/^/    /' >&2
	exit 124 ;;
*)
	log "$topo: QEMU exited $rc:"
	tail -n 20 "$dir/qemu.out" | sed 's/^/    /' >&2
	exit "$rc" ;;
esac
if grep -q "Kernel panic" "$dir/console.log"; then
	log "$topo: the guest kernel panicked; last console lines ($dir/console.log):"
	tail -n 30 "$dir/console.log" | sed 's/^/    /' >&2
	exit 1
fi
