#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bypass.sh: where the payload of an NVMe -> NVMe copy goes, through the
# CMB and through a RAM buffer. Boots 'switch' with tests/guest/bypass,
# which makes both copies (64 MiB each, on separate block ranges), with
# QEMU tracing every read and write command of the NVMe model and every
# address it mapped for them. Each payload mapping is counted as CMB (in
# the provider's BAR) or RAM.
#
# Payload commands: the reads of each copy's source range once its
# destination has been filled (p2pcopy fills both ranges with different
# patterns first; earlier reads are the kernel's partition scan), and the
# writes to its destination range after its first such read. Reads of the
# destination range are the verification.
#
# Prints one line per copy and direction, and fails unless the CMB copy
# moved all its payload through the CMB and none through RAM, and the RAM
# copy the other way round.
#
# bypass.sh --raid0: the same two copies within an md RAID0 of two NVMe
# namespaces below the provider's switch ('stacked', tests/guest/
# bypass-raid0). Each member holds half of each range from its data
# offset on; a member offset is mapped back to the array's ranges
# (twice the distance from the data offset) to tell the copies apart.
set -euo pipefail
P2P_STEP=bypass
. "$(dirname "$0")/../scripts/lib.sh"
topo=switch run=bypass what="NVMe -> NVMe"
if [ "${1:-}" = --raid0 ]; then
	topo=stacked run=bypass-raid0 what="RAID0 -> RAID0"
elif [ -n "${1:-}" ]; then
	die "usage: bypass.sh [--raid0]"
fi
dir=${P2P_BYPASS_DIR:-$P2P_LOGS/$run}
log "booting '$topo': a 64 MiB $what copy through the CMB and one through RAM, traced"
"$P2P_TOP/qemu/boot.sh" "$topo" --dir "$dir" --append "p2p.run=$run" \
	--timeout 600 --trace 'pci_nvme_map_addr*,pci_nvme_read,pci_nvme_write'
res=$dir/results.tap
val() { tr -d "\r" <"$res" | sed -n "s/^$1=//p" | head -n 1; }
[ "$(val done)" = 1 ] || die "the guest did not finish: $(val error); see $dir/console.log"
for c in cmb ram; do
	[ "$(val ${c}_verified)" = yes ] || die "the $c copy did not verify: $(val ${c}_error)"
done

# copy  src range      dst range     (namespace 1 byte offsets; of the array
#  cmb  [0, 64M)       [128M, 192M)   with --raid0)
#  ram  [64M, 128M)    [192M, 256M)
gawk -v lo="$(val cmb_start)" -v hi="$(val cmb_end)" -v raid0="${run#bypass}" \
	-v doff="$(val member_offset)" '
function num(h) { return strtonum(h) }
function copy_of(off) { return off < 64 * M ? "cmb" : off < 128 * M ? "ram" : off < 192 * M ? "cmb" : "ram" }
BEGIN { M = 1048576; cur = "" }
/^pci_nvme_(read|write) / {
	cur = ""
	op = $1 == "pci_nvme_read" ? "read" : "write"
	for (i = 2; i < NF; i++) { if ($i == "nsid") nsid = $(i + 1); if ($i == "lba") off = num($(i + 1)) * 512 }
	if (nsid != 1) next
	if (raid0 != "") {
		# md superblock and anything before the data: not the copies
		if (off < doff + 0) next
		off = (off - doff) * 2
	}
	c = copy_of(off)
	src = off < 128 * M
	if (op == "write" && !src && !started[c]) filled[c] = 1
	else if (op == "read" && src && filled[c]) { cur = c " in"; started[c] = 1 }
	else if (op == "write" && !src && started[c]) cur = c " out"
	next
}
/^pci_nvme_map_addr_cmb / { next }
/^pci_nvme_map_addr / {
	if (cur == "") next
	addr = num($3); len = $5 + 0
	where = (addr >= num(lo) && addr <= num(hi)) ? "cmb" : "ram"
	bytes[cur, where] += len
}
END {
	for (c = 1; c <= 2; c++) {
		name = c == 1 ? "cmb" : "ram"
		for (d = 1; d <= 2; d++) {
			dir = d == 1 ? "in" : "out"
			printf "%s %s %d %d\n", name, dir, bytes[name " " dir, "cmb"], bytes[name " " dir, "ram"]
		}
	}
}' "$dir/trace.log" >"$dir/bypass.txt"

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
printf '\n%-40s %10s %10s\n' "payload DMA of a 64 MiB $what copy" "CMB (MiB)" "RAM (MiB)"
bad=0
while read -r copy d cmb ram; do
	what="through the $(echo "$copy" | tr a-z A-Z), $( [ "$d" = in ] && echo "read into the buffer" || echo "written out of it")"
	printf '%-40s %10s %10s\n' "$what" "$(mib "$cmb")" "$(mib "$ram")"
	want=67108864
	if [ "$copy" = cmb ]; then
		[ "$cmb" -eq $want ] && [ "$ram" -eq 0 ] || bad=1
	else
		[ "$ram" -eq $want ] && [ "$cmb" -eq 0 ] || bad=1
	fi
done <"$dir/bypass.txt"
echo
[ $bad -eq 0 ] || die "a copy's payload did not go where expected (see $dir/trace.log)"
log "CMB copy: 0 bytes of payload through guest RAM; RAM copy: 0 bytes through the CMB (logs: $dir)"
