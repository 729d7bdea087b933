#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [BOOTS] [TOPOLOGY...]: time DMA map+unmap pairs on the edu
# device (tests/guest/bench) in each topology, BOOTS boots each (default 3),
# interleaved, with the DMA API debugger off: RAM pages and, where a
# provider registers, P2P pages, single (dma_map_page) and in lists of 1, 8
# and 32 (dma_map_sgtable). Prints the median per topology and mode in ns
# per pair with the P2P/RAM ratio, and keeps every run in build/logs/bench/.
#
# The figures are TCG emulation figures on a kernel with lockdep: only
# ratios measured in one run mean anything.
set -euo pipefail
P2P_STEP=bench
. "$(dirname "$0")/../scripts/lib.sh"

boots=${1:-3}
shift || true
topos=${*:-noprovider switch}
out=$P2P_LOGS/bench
mkdir -p "$out"

median()
{
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

keys="ram_page p2p_page ram_sg1 p2p_sg1 ram_sg8 p2p_sg8 ram_sg32 p2p_sg32"
for t in $topos; do rm -f "$out/$t".*.ps; done
for ((b = 1; b <= boots; b++)); do
	for t in $topos; do
		# kunit.enable=0: the KUnit suites register fake providers
		"$P2P_TOP/qemu/boot.sh" "$t" --dir "$out/run-$t" --timeout 900 \
			--append "p2p.run=bench dma_debug=off kunit.enable=0" >/dev/null
		for k in $keys; do
			tr -d '\r' <"$out/run-$t/results.tap" | sed -n "s/^bench_ps_$k=//p" >>"$out/$t.$k.ps"
		done
		log "boot $b/$boots, $t: RAM page $(median <"$out/$t.ram_page.ps" | awk '{printf "%.0f", $1 / 1000}') ns median so far"
	done
done
ns() { [ -s "$1" ] && median <"$1" | awk '{printf "%.0f", $1 / 1000}'; }
printf '\n%-12s %-6s %10s %10s %8s\n' topology mode "RAM ns" "P2P ns" P2P/RAM
for t in $topos; do
	[ -s "$out/$t.ram_page.ps" ] || die "no figure from topology $t; see $out/run-$t/console.log"
	for m in page sg1 sg8 sg32; do
		r=$(ns "$out/$t.ram_$m.ps") p=$(ns "$out/$t.p2p_$m.ps")
		printf '%-12s %-6s %10s %10s %8s\n' "$t" "$m" "$r" "${p:--}" \
			"$( [ -n "$p" ] && awk -v p="$p" -v r="$r" 'BEGIN {printf "%.2fx", p / r}' || echo -)"
	done
done
echo "(median ns per map+unmap over $boots boot(s) of each topology, interleaved; runs in $out)"
