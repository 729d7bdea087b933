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

# edu_bench EDU CMD KEY: one run of p2p_edu's bench file for device EDU
# (CMD as the file takes it: "SRC MODE N"); prints KEY=<ps per pair>.
# Returns non-zero if the run failed.
edu_bench()
{
	dmesg -c >/dev/null
	echo "$2" >"/sys/kernel/debug/p2p_edu/$1/bench" || return 1
	dmesg | sed -n "s/.*bench: .*, \([0-9]*\) ps each.*/$3=\1/p"
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

# nvme_ctrl_of PCI: the name of the NVMe controller of a PCI function.
nvme_ctrl_of()
{
	basename "$(ls -d /sys/bus/pci/devices/"$1"/nvme/nvme* | head -n 1)"
}

# nvme_wait_live CTRL: the controller is live again within 30 s.
nvme_wait_live()
{
	local i=0
	while [ "$(cat /sys/class/nvme/$1/state)" != live ]; do
		i=$((i + 1))
		[ $i -gt 150 ] && fail "$1 not live 30 s after a reset: $(cat /sys/class/nvme/$1/state)"
		sleep 0.2
	done
}

# sysfs_reset PCI [FILE]: write 1 to the device's sysfs FILE (default
# 'reset'): 0 the reset ran, 1 it was refused with EBUSY; fails on any
# other error.
sysfs_reset()
{
	echo 1 2>/tmp/reset.err >"/sys/bus/pci/devices/$1/${2:-reset}" && return 0
	grep -q "busy" /tmp/reset.err || fail "${2:-reset} of $1: $(cat /tmp/reset.err)"
	return 1
}

# provider_resets N: reset the provider $PROV through sysfs N times,
# waiting each time for its controller to be live again.
provider_resets()
{
	local r=0 ctrl
	ctrl=$(nvme_ctrl_of "$PROV")
	while [ $r -lt "$1" ]; do
		echo 1 >/sys/bus/pci/devices/$PROV/reset ||
			fail "function reset $r of $PROV failed"
		nvme_wait_live "$ctrl"
		r=$((r + 1))
	done
}

# Stacked block devices (topology 'stacked').

# stack_devs: set PROV, the PCI name of the CMB provider; M1 and M2, the
# namespaces of the members below its switch; FAR, the namespace of the
# member across the host bridge, which cannot reach the CMB.
stack_devs()
{
	PROV=$(nvme_pci_of p2p-nvme0)
	M1=$(nvme_ns "$(nvme_pci_of p2p-nvme1)")
	M2=$(nvme_ns "$(nvme_pci_of p2p-nvme2)")
	FAR=$(nvme_ns "$(nvme_pci_of p2p-far)")
	echo "provider $PROV; members below its switch $M1 $M2; across the host bridge $FAR"
	stack_clean
}

# stack_clean: stop the arrays and remove the device-mapper devices an
# earlier test left behind (it failed half-way), so that this one starts
# from free members.
stack_clean()
{
	local md
	for md in /sys/block/md*; do
		[ -e "$md" ] || continue
		echo "cleaning up /dev/${md##*/}, left by an earlier test"
		mdadm --stop "/dev/${md##*/}" >/dev/null 2>&1
	done
	dmsetup remove_all --noudevsync 2>/dev/null
	mdadm --zero-superblock "$M1" "$M2" "$FAR" /dev/nvme*n* 2>/dev/null
	return 0
}

# md_wait_idle DEV: the array's resync, recovery or check ends within 120 s
# (one that md has yet to start, after a member was added, included).
md_wait_idle()
{
	local md=/sys/block/${1#/dev/}/md i=0
	[ -e "$md/sync_action" ] || return 0	# RAID0: no redundancy to sync
	while :; do
		case $(cat "$md/sync_action") in
		idle|frozen|none)
			grep -A2 "^${1#/dev/} " /proc/mdstat |
				grep -Eq "recovery|resync|reshape" || return 0 ;;
		esac
		i=$((i + 1))
		[ $i -gt 600 ] && fail "$1: $(cat "$md/sync_action") did not end in 120 s"
		sleep 0.2
	done
}

# mp_head [NQN]: the block device of the topology's NVMe multipath head,
# that of subsystem NQN (default: the head whose paths all reach the CMB).
mp_head()
{
	local nqn=${1:-nqn.2026-12.invalid.p2pdma:mp} s h
	for s in /sys/class/nvme-subsystem/*; do
		case $(cat "$s/subsysnqn" 2>/dev/null) in
		*"$nqn") ;;	# QEMU puts its own prefix before the NQN
		*) continue ;;
		esac
		for h in "$s"/nvme*n*; do
			[ -e "$h" ] && { echo "/dev/${h##*/}"; return; }
		done
	done
	fail "no NVMe multipath head of $nqn"
}

# md_create DEV LEVEL MDADM_OPTION... -- MEMBER...: a new array, its
# initial resync done, so that its copies start out identical.
md_create()
{
	local dev=$1 level=$2 opts=""
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	echo "+ mdadm --create $dev --level=$level$opts $*"
	mdadm --create "$dev" --run --quiet --metadata=1.2 --level="$level" \
		--raid-devices=$# $opts "$@" ||
		fail "mdadm --create $dev --level=$level $* failed"
	md_wait_idle "$dev"
}

# md_stop DEV MEMBER...: stop the array and wipe its members' superblocks.
md_stop()
{
	local dev=$1
	shift
	mdadm --stop "$dev" >/dev/null || fail "mdadm --stop $dev failed"
	mdadm --zero-superblock "$@" || fail "mdadm --zero-superblock $* failed"
}

# md_healthy DEV N: the array has N working members and none faulty.
md_healthy()
{
	local md=/sys/block/${1#/dev/}/md d bad=""
	for d in "$md"/dev-*; do
		grep -q faulty "$d/state" && bad="$bad ${d##*/dev-}"
	done
	[ -z "$bad" ] || fail "$1: faulty members:$bad"
	[ "$(cat "$md/degraded")" = 0 ] || fail "$1: degraded $(cat "$md/degraded")"
	[ "$(cat "$md/raid_disks")" = "$2" ] ||
		fail "$1: $(cat "$md/raid_disks") members, expected $2"
}

# md_check DEV: a check pass reads every copy and finds no mismatch.
md_check()
{
	local md=/sys/block/${1#/dev/}/md
	echo check >"$md/sync_action" || fail "$1: cannot start a check"
	md_wait_idle "$1"
	[ "$(cat "$md/mismatch_cnt")" = 0 ] ||
		fail "$1: the check found $(cat "$md/mismatch_cnt") sectors that differ between copies"
	echo "$1: check pass, copies identical"
}

# md_no_damage DEV N: N working members, all In_sync, none with bad blocks
# or a write error on record, none faulty or wanting a replacement.
md_no_damage()
{
	local d
	for d in /sys/block/${1#/dev/}/md/dev-*; do
		[ -z "$(cat "$d/bad_blocks")" ] ||
			fail "$1: bad blocks recorded on ${d##*/dev-}: $(cat "$d/bad_blocks" | tr '\n' ' ')"
		grep -Eq "faulty|want_replacement|write_error" "$d/state" &&
			fail "$1: ${d##*/dev-} is '$(cat "$d/state")'"
		grep -q in_sync "$d/state" ||
			fail "$1: ${d##*/dev-} is '$(cat "$d/state")', not in_sync"
	done
	md_healthy "$1" "$2"
}

# md_swap OUT IN: IN, a spare of /dev/md0, recovers in the place of OUT,
# which is failed, removed and wiped. md starts the recovery from its
# thread once OUT has left its slot, so an idle array right after --fail
# does not mean it is done: wait (60 s) for IN to be In_sync.
md_swap()
{
	local st=/sys/block/md0/md/dev-${2#/dev/}/state i=0
	mdadm /dev/md0 --fail "$1" >/dev/null || fail "cannot fail $1"
	until grep -q in_sync "$st" && [ "$(cat /sys/block/md0/md/degraded)" = 0 ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && fail "$2 did not recover into /dev/md0 in 60 s: $(cat "$st")"
		sleep 0.2
	done
	md_wait_idle /dev/md0
	mdadm /dev/md0 --remove "$1" >/dev/null || fail "cannot remove $1"
	mdadm --zero-superblock "$1" || fail "cannot wipe $1"
}

# md_freeze_report: nvme's lockdep report of a sysfs reset is the known
# one (check_nvme_freeze_report), with md's refusal messages and their
# rate limits, which name P2PDMA, left out of the log it reads.
md_freeze_report()
{
	dmesg | grep -v "md/raid1\|P2PDMA memory\|callbacks suppressed" >/tmp/freeze.dmesg
	known_report /tmp/freeze.dmesg "$NVME_FREEZE_REPORT" \
		"is leaving the kernel with locks still held" \
		"(&q->q_usage_counter(io)" "at: nvme_start_freeze" || return 0
	echo "lockdep: nvme_start_freeze's q_usage_counter report, as on any 6.12 nvme sysfs reset"
}

# stack_copy DEV: copies within DEV through the provider's CMB and through
# a RAM buffer, at 4 KiB and 16 MiB, every byte verified.
stack_copy()
{
	local size
	for size in 4K 16M; do
		expect_copy_ok --provider "$PROV" --src "$1" --dst "$1" \
			--size $size --dst-off 32M
		expect_copy_ok --src "$1" --dst "$1" --size $size \
			--src-off 16M --dst-off 48M
	done
}

# copy_started OUT: wait (up to 60 s) until the p2pcopy writing to OUT in
# the background has filled its ranges and started copying.
copy_started()
{
	local i=0
	until grep -q "^filled=yes" "$1"; do
		i=$((i + 1))
		[ $i -gt 300 ] && fail "p2pcopy did not start copying in 60 s: $(cat "$1")"
		sleep 0.2
	done
}

# p2p_back DEV: DEV takes P2P memory again within 10 s (md decides it
# from a work item once a member has left).
p2p_back()
{
	local i=0
	until p2pcopy --provider "$PROV" --src "$1" --dst "$1" --size 4K \
		--dst-off 32M >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 50 ] && fail "$1 does not take P2P memory 10 s after the member left"
		sleep 0.2
	done
}

# expect_copy_refused ARGS...: p2pcopy fails with EREMOTEIO.
expect_copy_refused()
{
	copy "$@" && fail "p2pcopy $* succeeded; it must be refused"
	[ "$COPY_RC" -eq 3 ] || fail "p2pcopy exited $COPY_RC, expected an I/O error (3)"
	[ "$(copy_value error)" = EREMOTEIO ] ||
		fail "error $(copy_value error), expected EREMOTEIO"
}
