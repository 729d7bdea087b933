#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [BOOTS]: the benchmarks of Documentation/benchmarks.md.
#
# Builds two benchmark kernels, the series (build/obj-bench) and the base
# tree without it (build/obj-bench-base), both with the test configuration
# minus lockdep and the DMA API debugger (qemu/config/bench.config), then
# boots, in turn:
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
#   series stacked     bench-md  CPU per read through md RAID1 and RAID10
#   base   stacked     bench-md  (RAM buffers only on the base tree)
#
# once with QEMU counting instructions (-icount shift=0: the guest clock
# advances one nanosecond per guest instruction, so the programs' "ns" are
# instruction counts, the same from run to run), then BOOTS rounds
# (default 5) under plain TCG, whose time is wall-clock emulation time;
# and once qemu/bypass.sh (payload bytes through guest RAM). The map+unmap
# runs count with sleep=off (nothing waits on a device there); bench-io
# with sleep=on, so that an idle guest's clock follows the host's while
# the emulated NVMe works, and only its CPU figures mean instructions.
#
# Prints the tables: instructions first where they mean something (the
# map+unmap pairs and CPU per I/O), TCG time beside them; latency, IOPS
# and copy time from TCG alone. Each figure is the median over the runs
# (and rounds); ratios are of medians from the same boots. Keeps every run
# in build/logs/bench/ and the tables in build/logs/bench/tables.txt.
#
# BOOTS=0: the instruction counts alone (about 9 minutes), without TCG
# rounds or qemu/bypass.sh. P2P_BENCH_BUILD=no: boot the benchmark kernels
# as they were last built, without bringing them up to date with the trees.
set -euo pipefail
P2P_STEP=bench
. "$(dirname "$0")/../scripts/lib.sh"

boots=${1:-5}
case $boots in ''|*[!0-9]*) die "BOOTS must be a number of rounds, not '$boots'" ;; esac
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

# run CLOCK KERNEL TOPOLOGY PROGRAM [ARGS]: boot with kernel parameters
# ARGS, run /tests/PROGRAM, and append each numeric "key=value" it printed
# to $data/CLOCK-KERNEL-TOPOLOGY.key (TOPOLOGY: a name, or a topology
# file's path). CLOCK: tcg (time), ic (instructions, icount sleep=off) or
# ics (instructions, icount sleep=on).
run()
{
	local topo=${3##*/} icount=
	local dir=$out/run-$1-$2-$topo-$4

	case $1 in ic) icount=off ;; ics) icount=on ;; esac
	# kunit.enable=0: the KUnit suites register fake providers
	P2P_ICOUNT=$icount P2P_OBJ=${OBJ[$2]} "$P2P_TOP/qemu/boot.sh" "$3" --dir "$dir" --timeout 900 \
		--append "p2p.run=$4 kunit.enable=0${5:+ $5}" >/dev/null ||
		die "$2 kernel, $3, $4 ($1): the guest did not finish; see $dir/console.log"
	grep -q '^error=' "$dir/results.tap" &&
		die "$2 kernel, $3, $4 ($1): $(grep -m1 '^error=' "$dir/results.tap")"
	while IFS='=' read -r k v; do
		echo "$v" >>"$data/$1-$2-$topo.$k"
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

# row LABEL A B A/B [A' B' A'/B']: a table row; the primed columns, TCG
# time beside instruction counts, where there are any.
row()
{
	if [ $# -gt 4 ]; then
		printf '%-34s %10s %10s %8s | %9s %9s %8s\n' "$@"
	else
		printf '%-34s %10s %10s %8s\n' "$@"
	fi
}

# pair_row CLOCK LABEL RUN_A KEY_A RUN_B KEY_B [DIV]: figure A, figure B
# and B/A, each divided by DIV, counted (CLOCK: ic or ics) and timed
# (TCG); RUN: KERNEL-TOPOLOGY.
pair_row()
{
	local c a b ta tb

	c=$1
	shift
	a=$(fig "$c-$2" "$3" "${6:-1}")
	b=$(fig "$c-$4" "$5" "${6:-1}")
	ta=$(fig "tcg-$2" "$3" "${6:-1}")
	tb=$(fig "tcg-$4" "$5" "${6:-1}")
	row "$1" "$a" "$b" "$(ratio "$b" "$a")" "$ta" "$tb" "$(ratio "$tb" "$ta")"
}

# tcg_row LABEL RUN_A KEY_A RUN_B KEY_B: figure A, B and B/A, TCG only.
tcg_row()
{
	local a b

	a=$(fig "tcg-$2" "$3")
	b=$(fig "tcg-$4" "$5")
	row "$1" "$a" "$b" "$(ratio "$b" "$a")"
}

# ram_table TOPOLOGY WHAT: RAM map+unmap, series against base tree, booted
# in TOPOLOGY.
ram_table()
{
	local m

	echo
	echo "DMA map+unmap of RAM pages, $2, per pair"
	row "" "instructions" "" "" "TCG ns" "" ""
	row "mode" "base tree" "series" "ser/base" "base" "series" "ser/base"
	for m in page sg1 sg8 sg32; do
		pair_row ic "$m" "base-$1" "bench_ps_ram_$m" "series-$1" "bench_ps_ram_$m" 1000
	done
}

# spread: the largest spread (max - min) / median of the counted map+unmap
# figures over the runs of their boot, and which figure it is. icount makes
# a run's count exact; runs differ only where the work does (the IOVA
# allocator's caches between intel-iommu runs).
spread()
{
	local f

	for f in "$data"/ic-*.bench_ps_*; do
		[ -s "$f" ] || continue
		sort -n "$f" | awk -v f="${f##*/}" '{ v[NR] = $1 }
			END { m = v[int((NR + 1) / 2)]; printf "%.2f%% %s\n", m ? (v[NR] - v[1]) / m * 100 : 0, f }'
	done | sort -n | tail -n 1
}

tables()
{
	local m r p w t k f b rw a

	echo "DMA map+unmap of P2P pages against RAM pages, per pair (series kernel)"
	row "" "instructions" "" "" "TCG ns" "" ""
	row "path, mode" "RAM" "P2P" "P2P/RAM" "RAM" "P2P" "P2P/RAM"
	for t in switch iommu-amd; do
		for m in page sg1 sg8 sg32; do
			pair_row ic "$( [ $t = switch ] && echo "dma-direct, bus address" || echo "intel-iommu, host bridge"), $m" \
				"series-$t" "bench_ps_ram_$m" "series-$t" "bench_ps_p2p_$m" 1000
		done
	done
	echo
	echo "DMA map+unmap of one page against the number of P2P memory windows"
	echo "(series kernel, intel-iommu: the unmap searches the windows), per pair"
	row "" "instructions" "" "" "TCG ns" "" ""
	row "windows registered" "RAM" "P2P" "P2P/P2P(1)" "RAM" "P2P" "P2P/P2P(1)"
	for w in 1 4 16 64; do
		row "$(fig ic-series-windows "windows_$w") ($w on ivshmem)" \
			"$(fig ic-series-windows "bench_ps_w${w}_ram_page" 1000)" \
			"$(fig ic-series-windows "bench_ps_w${w}_p2p_page" 1000)" \
			"$(ratio "$(fig ic-series-windows "bench_ps_w${w}_p2p_page" 1000)" "$(fig ic-series-windows bench_ps_w1_p2p_page 1000)")" \
			"$(fig tcg-series-windows "bench_ps_w${w}_ram_page" 1000)" \
			"$(fig tcg-series-windows "bench_ps_w${w}_p2p_page" 1000)" \
			"$(ratio "$(fig tcg-series-windows "bench_ps_w${w}_p2p_page" 1000)" "$(fig tcg-series-windows bench_ps_w1_p2p_page 1000)")"
	done
	echo "(an empty out-of-line call and return: $(fig ic-series-switch bench_ps_call 1000) instructions, $(fig tcg-series-switch bench_ps_call 1000) TCG ns)"
	ram_table noprovider "no provider registered"
	ram_table switch "providers registered ('switch')"
	echo
	echo "4 KiB O_DIRECT reads, NVMe -> buffer ('switch'); base: scatterlist path, series: single segment"
	echo "(CPU per read: instructions counted with icount sleep=on, TCG ns beside; the rest TCG)"
	row "buffer, figure" "base tree" "series" "ser/base"
	for b in p2p ram; do
		pair_row ics "$( [ $b = p2p ] && echo CMB || echo RAM), cpu per read" \
			base-switch "read_${b}_cpu_ns_per_read" series-switch "read_${b}_cpu_ns_per_read"
		for k in lat_median_ns iops; do
			tcg_row "$( [ $b = p2p ] && echo CMB || echo RAM), $k" \
				base-switch "read_${b}_$k" series-switch "read_${b}_$k"
		done
	done
	echo
	echo "fio, 4 KiB random O_DIRECT I/O at queue depth 1 (psync), NVMe <-> buffer ('switch')"
	row "buffer, I/O, figure" "base tree" "series" "ser/base"
	for b in p2p ram; do
		for rw in randread randwrite; do
			pair_row ics "$( [ $b = p2p ] && echo CMB || echo RAM), ${rw#rand}, cpu per I/O" \
				base-switch "fio_${b}_${rw}_cpu_ns_per_io" series-switch "fio_${b}_${rw}_cpu_ns_per_io"
			for k in iops clat_p50_ns clat_p99_ns; do
				tcg_row "$( [ $b = p2p ] && echo CMB || echo RAM), ${rw#rand}, $k" \
					base-switch "fio_${b}_${rw}_$k" series-switch "fio_${b}_${rw}_$k"
			done
		done
	done
	echo
	echo "fio 4 KiB random reads: CMB buffer against RAM buffer, same boot"
	row "kernel, figure" "RAM" "CMB" "CMB/RAM"
	for k in series base; do
		pair_row ics "$k, cpu per I/O" "$k-switch" fio_ram_randread_cpu_ns_per_io "$k-switch" fio_p2p_randread_cpu_ns_per_io
		tcg_row "$k, iops" "$k-switch" fio_ram_randread_iops "$k-switch" fio_p2p_randread_iops
	done
	echo
	echo "64 MiB NVMe -> NVMe copy ('switch'), verified (CPU: million instructions, TCG ms beside)"
	row "kernel, figure" "RAM buffer" "CMB buffer" "CMB/RAM"
	for k in series base; do
		pair_row ics "$k, copy cpu" "$k-switch" copy_ram_copy_cpu_ms "$k-switch" copy_p2p_copy_cpu_ms
		tcg_row "$k, copy_ms" "$k-switch" copy_ram_copy_ms "$k-switch" copy_p2p_copy_ms
	done
	echo
	echo "CPU per O_DIRECT read through md, instructions ('stacked', a provider registered;"
	echo "icount sleep=on): what the stacked P2PDMA checks cost a RAM bio"
	row "device, buffer, block size" "base tree" "series" "ser/base"
	for t in raid1 raid10 bare; do
		for b in ram p2p; do
			for k in 4k 128k; do
				a=$(fig ics-base-stacked "md_${t}_${b}_$k")
				p=$(fig ics-series-stacked "md_${t}_${b}_$k")
				row "$t, $([ $b = p2p ] && echo CMB || echo RAM), $k" "$a" "$p" "$(ratio "$p" "$a")"
			done
		done
	done
	echo
	echo "Payload of the copy through guest RAM and through the CMB (qemu/bypass.sh, series kernel)"
	sed 's/^/  /' "$out/bypass.txt"
	echo
	echo "(instructions: one icount boot each, the median of its runs; the runs of a boot"
	echo " differed by at most $(spread) of their median. TCG: medians over $boots round(s),"
	echo " emulation time: only ratios measured side by side mean anything)"
}

"$P2P_TOP/scripts/deps.sh" pkg:fio
if [ "${P2P_BENCH_BUILD:-yes}" = no ]; then
	for k in series base; do
		[ -f "${OBJ[$k]}/p2p-initramfs.cpio.gz" ] ||
			die "P2P_BENCH_BUILD=no, but there is no $k benchmark kernel in ${OBJ[$k]}"
	done
	log "P2P_BENCH_BUILD=no: the benchmark kernels as last built"
else
	build series "$P2P_TREE"
	base_worktree
	build base "$P2P_BASE_TREE"
fi

rm -rf "$data"
mkdir -p "$data"
counted=("series noprovider bench" "base noprovider bench" "series switch bench"
	 "base switch bench p2p.bench=ram" "series iommu-amd bench"
	 "series $P2P_TOP/qemu/bench/windows bench-windows")
io=("series switch bench-io" "base switch bench-io")
timed=("${counted[@]}" "${io[@]}")
log "instructions: ${#counted[@]} boots under icount (sleep=off), 4 (sleep=on)"
for r in "${counted[@]}"; do
	# shellcheck disable=SC2086
	run ic $r
done
for r in "${io[@]}" "series stacked bench-md" "base stacked bench-md p2p.bench=ram"; do
	# shellcheck disable=SC2086
	run ics $r
done
log "instructions: RAM page $(fig ic-series-noprovider bench_ps_ram_page 1000) with the series, $(fig ic-base-noprovider bench_ps_ram_page 1000) without; with providers $(fig ic-series-switch bench_ps_ram_page 1000) and $(fig ic-base-switch bench_ps_ram_page 1000)"
for ((b = 1; b <= boots; b++)); do
	for r in "${timed[@]}"; do
		# shellcheck disable=SC2086
		run tcg $r
	done
	log "round $b/$boots: RAM page $(fig tcg-series-noprovider bench_ps_ram_page 1000) ns with the series, $(fig tcg-base-noprovider bench_ps_ram_page 1000) ns without; with providers $(fig tcg-series-switch bench_ps_ram_page 1000) ns and $(fig tcg-base-switch bench_ps_ram_page 1000) ns"
done
if [ "$boots" -gt 0 ]; then
	log "payload bytes through RAM: qemu/bypass.sh"
	P2P_OBJ=${OBJ[series]} P2P_BYPASS_DIR=$out/bypass "$P2P_TOP/qemu/bypass.sh" >"$out/bypass.txt" ||
		die "qemu/bypass.sh failed: $(tail -n 3 "$out/bypass.txt")"
else
	echo "(not run: BOOTS=0)" >"$out/bypass.txt"
fi
tables | tee "$out/tables.txt"
