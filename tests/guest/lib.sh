# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests (busybox sh). Sourced by every test case.

# QEMU's NVMe controller, found by vendor:device rather than by bus number,
# which differs between firmwares.
QEMU_NVME_ID="0x1b36 0x0010"

fail()
{
	echo "FAIL: $*"
	exit 1
}

# qemu_nvme_devs: PCI names of the emulated NVMe controllers, in bus order.
qemu_nvme_devs()
{
	local d
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor") $(cat "$d/device")" = "$QEMU_NVME_ID" ] &&
			basename "$d"
	done
}

# nvme_ns PCI_NAME [NSID]: the block device of the controller's namespace
# NSID (default 1). Found by NSID: the kernel numbers a controller's disks
# in the order its scan finishes, so nvme0n1 need not be namespace 1.
nvme_ns()
{
	local ns
	for ns in /sys/bus/pci/devices/"$1"/nvme/nvme*/nvme*n*; do
		[ "$(cat "$ns/nsid" 2>/dev/null)" = "${2:-1}" ] &&
			{ echo "/dev/$(basename "$ns")"; return; }
	done
	fail "no namespace ${2:-1} under $1"
}

# nvme_pci_of SERIAL: the PCI name of the NVMe controller with this serial
# (topologies give each controller serial p2p-nvmeN for its QEMU id ctrlN).
nvme_pci_of()
{
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' <"$c/serial")" = "$1" ] &&
			{ basename "$(readlink -f "$c/device")"; return; }
	done
	fail "no NVMe controller with serial $1"
}

# bar_size PCI_NAME BAR: the size of a BAR, from sysfs' resource table.
bar_size()
{
	set -- $(sed -n "$(($2 + 1))p" "/sys/bus/pci/devices/$1/resource")
	[ $(($2)) -eq 0 ] && { echo 0; return; }
	echo $(($2 - $1 + 1))
}

# p2pmem PCI_NAME ATTR: one attribute of the provider's p2pmem directory.
p2pmem()
{
	cat "/sys/bus/pci/devices/$1/p2pmem/$2"
}

# copy ARGS...: run p2pcopy, show its output, keep it in /tmp/copy.out.
copy()
{
	echo "+ p2pcopy $*"
	p2pcopy "$@" >/tmp/copy.out
	COPY_RC=$?
	sed 's/^/  /' /tmp/copy.out
	return $COPY_RC
}

# copy_value KEY: a key=value fact of the last copy.
copy_value()
{
	sed -n "s/^$1=//p" /tmp/copy.out
}

# expect_copy_ok ARGS...: the copy succeeds and every block verifies.
expect_copy_ok()
{
	copy "$@" || fail "p2pcopy $* exited $COPY_RC"
	[ "$(copy_value verified)" = yes ] || fail "destination does not verify"
	[ "$(copy_value bad_blocks)" = 0 ] || fail "$(copy_value bad_blocks) bad blocks"
}

# edu_dev: the PCI name of QEMU's edu device, the DMA client of the tests.
edu_dev()
{
	local d
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor") $(cat "$d/device")" = "0x1234 0x11e8" ] &&
			{ basename "$d"; return; }
	done
	fail "no edu device in this topology"
}

# load_p2p_edu: load the edu test driver (once per boot).
load_p2p_edu()
{
	[ -d /sys/module/p2p_edu ] || insmod /lib/modules/p2p/p2p_edu.ko ||
		fail "cannot load p2p_edu.ko"
}

# known_report LOG HEADLINE WANT...: LOG holds at most one report starting
# with HEADLINE, and if it does, that report is a known one of the base
# kernel: every WANT (a grep pattern) is in LOG and P2PDMA is not. Returns
# 1 when LOG holds no such report. Tests that expect one list HEADLINE in
# ALLOW_DMESG and call this to pin it down.
known_report()
{
	local log=$1 head=$2 n want
	shift 2
	n=$(grep -c -- "$head" "$log")
	[ "$n" -eq 0 ] && return 1
	[ "$n" -eq 1 ] || fail "$n reports '$head'"
	for want; do
		grep -q -- "$want" "$log" ||
			fail "the report '$head' is not the known one (no '$want')"
	done
	grep -iq "p2pdma\|p2pmem" "$log" && fail "P2PDMA appears in the report '$head'"
	return 0
}

# NVME_FREEZE_REPORT: the lockdep report 6.12's nvme-pci reset path gives,
# for tests that reset an NVMe through sysfs to let through in ALLOW_DMESG.
NVME_FREEZE_REPORT="WARNING: lock held when returning to user space!"

# check_nvme_freeze_report: a lockdep report of a task leaving the kernel
# with locks held, if the test's log has one, is nvme's own:
# nvme_start_freeze() takes the queues' usage counters in reset_prepare
# and the reset work, another task, drops them. Upstream fixed it in nvme
# core with blk_freeze_queue_start_non_owner() (Ming Lei, 2024); this tree
# has the blk-mq half of that fix only. Lockdep is off for the rest of the
# boot after the first report.
check_nvme_freeze_report()
{
	dmesg >/tmp/freeze.dmesg
	known_report /tmp/freeze.dmesg "$NVME_FREEZE_REPORT" \
		"is leaving the kernel with locks still held" \
		"(&q->q_usage_counter(io)" "at: nvme_start_freeze" || return 0
	echo "lockdep: nvme_start_freeze's q_usage_counter report, as on any 6.12 nvme sysfs reset"
}
