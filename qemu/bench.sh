#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [BOOTS] [TOPOLOGY...]: time dma_map_page() + dma_unmap_page() of
# a RAM page on the edu device (tests/guest/bench) in each topology, BOOTS
# boots each (default 3), interleaved, 7 rounds of 200000 pairs per boot,
# with the DMA API debugger off. Prints the median over all rounds per
# topology in ns per pair, and every round in build/logs/bench/.
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

for t in $topos; do : >"$out/$t.ps"; done
for ((b = 1; b <= boots; b++)); do
	for t in $topos; do
		# kunit.enable=0: the KUnit suites register fake providers
		"$P2P_TOP/qemu/boot.sh" "$t" --dir "$out/run-$t" --timeout 600 \
			--append "p2p.run=bench dma_debug=off kunit.enable=0" >/dev/null
		tr -d '\r' <"$out/run-$t/results.tap" | sed -n 's/^bench_ps=//p' >>"$out/$t.ps"
		log "boot $b/$boots, $t: $(tail -n 7 "$out/$t.ps" | median | awk '{printf "%.0f", $1 / 1000}') ns median"
	done
done
for t in $topos; do
	[ -s "$out/$t.ps" ] || die "no figure from topology $t; see $out/run-$t/console.log"
	printf '%-12s %6.0f ns per map+unmap of a RAM page (median of %d rounds)\n' \
		"$t" "$(median <"$out/$t.ps" | awk '{print $1 / 1000}')" "$(wc -l <"$out/$t.ps")"
done
