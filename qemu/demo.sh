#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: the main job's last step. Boot the 'switch' topology, copy 64 MiB
# NVMe -> CMB -> NVMe in the guest, and explain the result: what moved, from
# which provider, where the NVMe devices' payload DMA went (QEMU's own trace
# of the addresses the controllers used), and whether the data verified.
set -euo pipefail
P2P_STEP=demo
. "$(dirname "$0")/../scripts/lib.sh"

dir=${P2P_DEMO_DIR:-$P2P_LOGS/demo}
log "booting the 'switch' topology under QEMU (about 15 s under TCG)"
"$P2P_TOP/qemu/boot.sh" switch --dir "$dir" --append "p2p.run=demo" \
	--timeout 600 --trace 'pci_nvme_map_addr*'

res=$dir/results.tap
val() { tr -d "\r" <"$res" | sed -n "s/^$1=//p" | head -n 1; }
[ -n "$(val exit)" ] || die "the guest printed no result; see $dir/console.log"

# Classify every payload mapping the NVMe model made: into the provider's
# CMB BAR from the peer (peer-to-peer), the provider's own CMB, or RAM.
# The copy window runs from the first to the last CMB transfer; the RAM
# transfers before it (writing the test pattern) and after it (reading it
# back to verify) are not part of the copy.
read -r p2p own ram_in ram_before ram_after < <(
	gawk -v lo="$(val cmb_start)" -v hi="$(val cmb_end)" '
	function num(h) { return strtonum(h) }
	/pci_nvme_map_addr/ {
		ev = $0; sub(/^.*pci_nvme_map_addr/, "pci_nvme_map_addr", ev)
		split(ev, f, " ")
		addr = num(f[3]); len = f[5] + 0
		# QEMU traces every mapping as pci_nvme_map_addr and then, when
		# the address is in the controller'"'"'s own CMB, once more as
		# pci_nvme_map_addr_cmb: relabel the mapping just traced.
		if (f[1] == "pci_nvme_map_addr_cmb") {
			if (n && addrs[n] == addr) kind[n] = "own"
			next
		}
		if (f[1] != "pci_nvme_map_addr") next
		n++
		addrs[n] = addr; bytes[n] = len
		kind[n] = (addr >= num(lo) && addr <= num(hi)) ? "p2p" : "ram"
		if (kind[n] != "ram") { if (!first) first = n; last = n }
	}
	END {
		for (i = 1; i <= n; i++) {
			if (kind[i] == "p2p") p2p += bytes[i]
			else if (kind[i] == "own") own += bytes[i]
			else if (i < first) before += bytes[i]
			else if (i > last) after += bytes[i]
			else inside += bytes[i]
		}
		printf "%d %d %d %d %d\n", p2p, own, inside, before, after
	}' "$dir/trace.log")

mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
bytes=$(val bytes)
cat <<MSG

P2P copy offload in QEMU: topology 'switch' (two NVMe controllers under one PCIe switch)

  provider      $(val provider_pci) ($(val provider_ctrl)): CMB $(mib "$(val p2pmem_size)") of P2P memory at $(val cmb_start), published=$(val p2pmem_published)
  copy          $(val src) ($(val peer_ctrl)) -> CMB of $(val provider_ctrl) -> $(val dst), O_DIRECT, $(val chunk) byte chunks
  bytes moved   $bytes ($(mib "$bytes")) in $(val copy_ms) ms of emulated time
  decision      bus address, switch-local: the peer addressed the CMB by its PCI address
                (both controllers sit below one switch; the host bridge is not involved)
  payload DMA during the copy, from QEMU's trace of the NVMe controllers:
$(printf '                %-46s %10s\n' \
	"$(val peer_ctrl) into the CMB of $(val provider_ctrl) (peer-to-peer)" "$(mib "$p2p")" \
	"$(val provider_ctrl) out of its own CMB" "$(mib "$own")" \
	"system RAM" "$(mib "$ram_in")")
                (outside the copy: $(mib "$ram_before") writing the test pattern, $(mib "$ram_after") reading it back)
  verified      $(( $(val blocks) - $(val bad_blocks) )) of $(val blocks) 4 KiB blocks match the source pattern: $(val verified)

MSG
[ "$(val exit)" = 0 ] || die "the copy failed (p2pcopy exit $(val exit)): $(val error) in $(val error_op); see $dir/console.log"
[ "$(val verified)" = yes ] || die "the data did not verify"
[ "$p2p" -eq "$bytes" ] && [ "$ram_in" -eq 0 ] ||
	die "the payload did not move only through the CMB (see $dir/trace.log)"
log "logs: $dir (console.log, results.tap, trace.log)"
