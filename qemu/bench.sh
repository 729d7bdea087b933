#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [BOOTS]: the benchmarks of Documentation/p2pdma-benchmarks.rst.
#
# Builds two benchmark kernels, the series (build/obj-bench) and the base
# tree without it (build/obj-bench-base), both with the test configuration
# minus lockdep and the DMA API debugger (qemu/config/bench.config), then
# boots BOOTS rounds (default 5) of, in turn:
#
#   series noprovider  bench     RAM map+unmap, no provider registered
#   base   noprovider  bench     the same without the series
#   series switch      bench     RAM and P2P bus-address map+unmap (dma-direct)
#   base   switch      bench     RAM map+unmap with the same providers registered
#   series iommu-amd   bench     RAM and P2P map+unmap through intel-iommu
#   series switch      bench-io  4 KiB O_DIRECT reads, fio 4 KiB random reads
#   base   switch      bench-io  and writes, and a 64 MiB copy, CMB and RAM
#   series windows     bench-windows  map+unmap with 1 to 64 P2P windows
#                                (qemu/bench/windows, intel-iommu)
#
# and once qemu/bypass.sh (payload bytes through guest RAM). Prints the
# tables, each figure the median over the rounds (and over the runs within
# a boot), ratios from the same rounds; keeps every run in build/logs/bench/
# and the tables in build/logs/bench/tables.txt.
#
# All figures are from QEMU under TCG: emulation figures, of which only the
# ratios measured side by side mean anything.
set -euo pipefail
P2P_STEP=bench
. "$(dirname "$0")/../scripts/lib.sh"

boots=${1:-5}
out=$P2P_LOGS/bench
data=$out/data
cfg=$P2P_TOP/qemu/config
frags="$cfg/p2pdma.config $cfg/debian.config $cfg/series.config $cfg/bench.config"
declare -A OBJ=([series]=$P2P_BUILD/obj-bench [base]=$P2P_BUILD/obj-bench-base)

# build KERNEL TREE: the benchmark kernel and guest image of TREE.
build()
{
	log "$1 kernel: $2"
	P2P_TREE=$2 P2P_OBJ=${OBJ[$1]} P2P_FRAGMENTS=$frags "$P2P_TOP/qemu/kernel.sh"
	P2P_TREE=$2 P2P_OBJ=${OBJ[$1]} P2P_FRAGMENTS=$frags P2P_GUEST_BINS=/usr/bin/fio \
		"$P2P_TOP/qemu/initramfs.sh"
}

# run KERNEL TOPOLOGY PROGRAM [ARGS]: boot with kernel parameters ARGS, run
# /tests/PROGRAM, and append each numeric "key=value" it printed to
# $data/KERNEL-TOPOLOGY.key (TOPOLOGY: a name, or a topology file's path).
run()
{
	local topo=${2##*/}
	local dir=$out/run-$1-$topo-$3 line

	# kunit.enable=0: the KUnit suites register fake providers
	P2P_OBJ=${OBJ[$1]} "$P2P_TOP/qemu/boot.sh" "$2" --dir "$dir" --timeout 900 \
		--append "p2p.run=$3 kunit.enable=0${4:+ $4}" >/dev/null ||
		die "$1 kernel, $2, $3: the guest did not finish; see $dir/console.log"
	grep -q '^error=' "$dir/results.tap" &&
		die "$1 kernel, $2, $3: $(grep -m1 '^error=' "$dir/results.tap")"
	while IFS='=' read -r k v; do
		echo "$v" >>"$data/$1-$topo.$k"
	done < <(tr -d '\r' <"$dir/results.tap" | grep -E '^[a-z0-9_]+=[0-9]+$')
}

median()
{
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# fig RUN KEY [DIV]: median of a figure, divided by DIV (default 1), or "-".
fig()
{
	[ -s "$data/$1.$2" ] || { echo -; return; }
	median <"$data/$1.$2" | awk -v d="${3:-1}" '{ printf "%.0f", $1 / d }'
}

ratio()
{
	case "$1$2" in *-*) echo - ;; *) awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3fx", a / b }' ;; esac
}

row()
{
	printf '%-34s %12s %12s %9s\n' "$@"
}

# pair_row LABEL RUN_A KEY_A RUN_B KEY_B [DIV]: a row of figure A, figure B
# and B/A, each divided by DIV.
pair_row()
{
	local a b

	a=$(fig "$2" "$3" "${6:-1}")
	b=$(fig "$4" "$5" "${6:-1}")
	row "$1" "$a" "$b" "$(ratio "$b" "$a")"
}

# ram_table TOPOLOGY WHAT: RAM map+unmap, series against base tree, booted
# in TOPOLOGY.
ram_table()
{
	local m

	echo
	echo "DMA map+unmap of RAM pages, $2, ns per pair"
	row "mode" "base tree" "series" "series/base"
	for m in page sg1 sg8 sg32; do
		pair_row "$m" "base-$1" "bench_ps_ram_$m" "series-$1" "bench_ps_ram_$m" 1000
	done
}

tables()
{
	local m r p w

	echo "DMA map+unmap of P2P pages against RAM pages, ns per pair (series kernel)"
	row "path, mode" "RAM" "P2P" "P2P/RAM"
	for t in switch iommu-amd; do
		for m in page sg1 sg8 sg32; do
			pair_row "$( [ $t = switch ] && echo "dma-direct, bus address" || echo "intel-iommu, host bridge"), $m" \
				"series-$t" "bench_ps_ram_$m" "series-$t" "bench_ps_p2p_$m" 1000
		done
	done
	echo
	echo "DMA map+unmap of one page against the number of P2P memory windows"
	echo "(series kernel, intel-iommu: the unmap searches the windows), ns per pair"
	row "windows registered" "RAM" "P2P" "P2P/P2P(1)"
	for w in 1 4 16 64; do
		r=$(fig series-windows "bench_ps_w${w}_ram_page" 1000)
		p=$(fig series-windows "bench_ps_w${w}_p2p_page" 1000)
		row "$(fig series-windows "windows_$w") ($w on ivshmem)" "$r" "$p" \
			"$(ratio "$p" "$(fig series-windows bench_ps_w1_p2p_page 1000)")"
	done
	echo "(an empty out-of-line call and return, which each out-of-line step of a path pays: $(fig series-switch bench_ps_call 1000) ns)"
	ram_table noprovider "no provider registered"
	ram_table switch "providers registered ('switch')"
	echo
	echo "4 KiB O_DIRECT reads, NVMe -> buffer ('switch'); base: scatterlist path, series: single segment"
	row "buffer, figure" "base tree" "series" "series/base"
	for b in p2p ram; do
		for k in lat_median_ns iops cpu_ns_per_read; do
			pair_row "$( [ $b = p2p ] && echo CMB || echo RAM), $k" \
				base-switch "read_${b}_$k" series-switch "read_${b}_$k"
		done
	done
	echo
	echo "fio, 4 KiB random O_DIRECT I/O at queue depth 1 (psync), NVMe <-> buffer ('switch')"
	row "buffer, I/O, figure" "base tree" "series" "series/base"
	for b in p2p ram; do
		for rw in randread randwrite; do
			for k in iops clat_p50_ns clat_p99_ns cpu_ns_per_io; do
				pair_row "$( [ $b = p2p ] && echo CMB || echo RAM), ${rw#rand}, $k" \
					base-switch "fio_${b}_${rw}_$k" series-switch "fio_${b}_${rw}_$k"
			done
		done
	done
	echo
	echo "fio 4 KiB random reads: CMB buffer against RAM buffer, same boot"
	row "kernel, figure" "RAM" "CMB" "CMB/RAM"
	for k in series base; do
		for f in iops cpu_ns_per_io; do
			pair_row "$k, $f" "$k-switch" "fio_ram_randread_$f" "$k-switch" "fio_p2p_randread_$f"
		done
	done
	echo
	echo "64 MiB NVMe -> NVMe copy ('switch'), verified"
	row "kernel, figure" "RAM buffer" "CMB buffer" "CMB/RAM"
	for k in series base; do
		for f in copy_ms copy_cpu_ms; do
			pair_row "$k, $f" "$k-switch" "copy_ram_$f" "$k-switch" "copy_p2p_$f"
		done
	done
	echo
	echo "Payload of the copy through guest RAM and through the CMB (qemu/bypass.sh, series kernel)"
	sed 's/^/  /' "$out/bypass.txt"
	echo
	echo "(medians over $boots round(s); TCG emulation figures: only the ratios mean anything)"
}

"$P2P_TOP/scripts/deps.sh" pkg:fio
build series "$P2P_TREE"
base_worktree
build base "$P2P_BASE_TREE"

rm -rf "$data"
mkdir -p "$data"
for ((b = 1; b <= boots; b++)); do
	for r in "series noprovider bench" "base noprovider bench" "series switch bench" \
		 "base switch bench p2p.bench=ram" "series iommu-amd bench" \
		 "series switch bench-io" "base switch bench-io" \
		 "series $P2P_TOP/qemu/bench/windows bench-windows"; do
		# shellcheck disable=SC2086
		run $r
	done
	log "round $b/$boots: RAM page $(fig series-noprovider bench_ps_ram_page 1000) ns with the series, $(fig base-noprovider bench_ps_ram_page 1000) ns without; with providers $(fig series-switch bench_ps_ram_page 1000) ns and $(fig base-switch bench_ps_ram_page 1000) ns"
done
log "payload bytes through RAM: qemu/bypass.sh"
P2P_OBJ=${OBJ[series]} P2P_BYPASS_DIR=$out/bypass "$P2P_TOP/qemu/bypass.sh" >"$out/bypass.txt" ||
	die "qemu/bypass.sh failed: $(tail -n 3 "$out/bypass.txt")"
tables | tee "$out/tables.txt"
