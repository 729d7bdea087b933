#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [-t TEST,...] [-T TOPOLOGY,...] [--host-only] [--guest-only]:
# run the host tests (tests/host/*) and the guest tests (tests/guest/cases/*)
# in one QEMU boot per topology, print one row per topology x test, and end
# with "N passed, N failed". Exit status 1 when anything failed.
#
# A guest test that gives no result (the guest hung, panicked or QEMU failed)
# counts as failed, and the reason is printed.
#
# P2P_KCONFIG=FILE (make test-distro): the .config of the kernel under test.
# A guest test whose KERNEL_NEEDS options are not built in there, and the
# KUnit suites where CONFIG_KUNIT is off, are not run: they are listed as
# such, and counted neither passed nor failed.
set -uo pipefail
P2P_STEP=test
. "$(dirname "$0")/../scripts/lib.sh"

only="" topos="" host=1 guest=1
while [ $# -gt 0 ]; do
	case "$1" in
	-t) only=$2; shift 2 ;;
	-T) topos=$2; shift 2 ;;
	--host-only) guest=0; shift ;;
	--guest-only) host=0; shift ;;
	*) die "usage: run.sh [-t TEST,...] [-T TOPOLOGY,...] [--host-only] [--guest-only]" ;;
	esac
done

run_id=$(date +%Y%m%d-%H%M%S)
rundir=$P2P_LOGS/runs/$run_id
mkdir -p "$rundir"
ln -sfn "runs/$run_id" "$P2P_LOGS/latest"
passed=0 failed=0 notrun=0
declare -a ROWS
[ -z "${P2P_KCONFIG:-}" ] || [ -f "$P2P_KCONFIG" ] || die "P2P_KCONFIG=$P2P_KCONFIG: no such file"

# record RESULT NAME DESCRIPTION: one row of the report.
record()
{
	if [ "$1" = ok ]; then
		passed=$((passed + 1))
		ROWS+=("PASS  $2  $3")
	else
		failed=$((failed + 1))
		ROWS+=("FAIL  $2  $3")
	fi
	printf '%-4s %s  %s\n' "$([ "$1" = ok ] && echo PASS || echo FAIL)" "$2" "$3"
}

# not_run NAME WHY: a row for a test this kernel cannot run.
not_run()
{
	notrun=$((notrun + 1))
	ROWS+=("SKIP  $1  not run: $2")
	printf '%-4s %s  not run: %s\n' SKIP "$1" "$2"
}

# kernel_lacks OPTION...: the options that the kernel of P2P_KCONFIG has
# neither built in nor as a module (none when it is unset: the test
# kernels have them all).
kernel_lacks()
{
	local opt
	[ -n "${P2P_KCONFIG:-}" ] || return 0
	for opt in "$@"; do
		grep -qE "^$opt=[ym]\$" "$P2P_KCONFIG" || echo "$opt"
	done
}

# header FIELD FILE: a FIELD="..." line of a test file.
header()
{
	sed -n "s/^$1=\"\\(.*\\)\"$/\\1/p" "$2"
}

# wanted NAME: whether -t selects this test.
wanted()
{
	[ -z "$only" ] || [[ ",$only," == *",$1,"* ]]
}

# parse_tap PREFIX FILE EXPECTED...: record every result of a TAP stream;
# expected tests with no result are failures. Diagnostics of failed tests
# are printed.
parse_tap()
{
	local prefix=$1 file=$2 line name desc diag=() seen=" "
	shift 2
	while IFS= read -r line; do
		line=${line%$'\r'}	# the guest's serial line ends in CR LF
		case "$line" in
		"# "*) diag+=("$line") ;;
		"ok "*|"not ok "*)
			name=${line#*- } desc=${name#*: } name=${name%%:*}
			seen="$seen$name "
			if [[ $line == "not ok"* ]]; then
				printf '%s\n' "${diag[@]}" | tail -n 40 | sed 's/^/      /'
				record fail "$prefix/$name" "$desc"
			else
				record ok "$prefix/$name" "$desc"
			fi
			diag=() ;;
		esac
	done <"$file"
	for name in "$@"; do
		[[ $seen == *" $name "* ]] && continue
		record fail "$prefix/$name" "no result: ${NORESULT:-the test did not report}"
	done
}

# parse_ktap TOPOLOGY SUITES...: record every KUnit case that the guest
# kernel reported on its console, as parsed by the kernel's own KUnit tool
# (tools/testing/kunit/kunit.py parse). An expected suite that did not run,
# or ran no case, is a failure.
parse_ktap()
{
	local topo=$1 dir=$rundir/$1 suite status name seen=" "
	shift
	python3 "$P2P_TREE/tools/testing/kunit/kunit.py" parse \
		--json="$dir/kunit.json" "$dir/console.log" >"$dir/kunit.txt" 2>&1
	while read -r status name; do
		suite=${name%%.*}
		[[ " $* " == *" $suite "* ]] || continue
		seen="$seen$suite "
		if [ "$status" = PASS ]; then
			record ok "$topo/kunit/$name" "KUnit case"
		else
			grep -F "${name#*.}" "$dir/kunit.txt" | head -n 12 | sed "s/^/      /"
			record fail "$topo/kunit/$name" "KUnit case: $status"
		fi
	done < <(python3 - "$dir/kunit.json" <<-'PY' 2>/dev/null
		import json, sys
		def walk(group):
		    for case in group.get("test_cases", []):
		        print(case["status"], group["name"] + "." + case["name"])
		    for sub in group.get("sub_groups", []):
		        walk(sub)
		walk(json.load(open(sys.argv[1])))
		PY
	)
	for suite in "$@"; do
		[[ $seen == *" $suite "* ]] ||
			record fail "$topo/kunit/$suite" "KUnit suite did not run (see $dir/kunit.txt)"
	done
}

# Host tests: executables printing TAP, each with DESCRIPTION in a header.
if [ "$host" = 1 ]; then
	for t in "$P2P_TOP"/tests/host/*; do
		[ -x "$t" ] || continue
		wanted "$(basename "$t")" || continue
		log "host test $(basename "$t")"
		"$t" >"$rundir/host-$(basename "$t").tap" 2>"$rundir/host-$(basename "$t").err"
		rc=$?
		NORESULT="exited $rc; see $rundir/host-$(basename "$t").err" \
			parse_tap host "$rundir/host-$(basename "$t").tap" "$(basename "$t")"
	done
fi

# Guest tests, grouped into one boot per topology.
if [ "$guest" = 1 ]; then
	declare -A BY_TOPO SKIPPED
	for t in "$P2P_TOP"/tests/guest/cases/*; do
		name=$(basename "$t")
		wanted "$name" || continue
		[ -n "$(header DESCRIPTION "$t")" ] || die "$t has no DESCRIPTION line"
		# shellcheck disable=SC2046
		lacks=$(kernel_lacks $(header KERNEL_NEEDS "$t") | xargs)
		for tp in $(header TOPOLOGIES "$t"); do
			[ -z "$topos" ] || [[ ",$topos," == *",$tp,"* ]] || continue
			if [ -n "$lacks" ]; then
				not_run "$tp/$name" "the kernel lacks $lacks"
				SKIPPED[$tp]=1
				continue
			fi
			BY_TOPO[$tp]="${BY_TOPO[$tp]:-} $name"
		done
	done
	for tp in $(printf '%s\n' "${!BY_TOPO[@]}" | sort); do
		# shellcheck disable=SC2086
		set -- ${BY_TOPO[$tp]}
		log "booting topology '$tp' for $# test(s): $*"
		bootopt=()
		# The guest runs every test of its topology unless told which.
		[ -n "$only" ] || [ -n "${SKIPPED[$tp]:-}" ] &&
			bootopt=(--only "$(echo "$*" | tr ' ' ,)")
		rc=0
		"$P2P_TOP/qemu/boot.sh" "$tp" --dir "$rundir/$tp" \
			--timeout "${P2P_TIMEOUT:-900}" "${bootopt[@]}" || rc=$?
		log "topology '$tp': guest ran $(cat "$rundir/$tp/seconds" 2>/dev/null || echo '?')s"
		case $rc in
		0) why="the guest powered off without reporting it" ;;
		124) why="the guest timed out (console: $rundir/$tp/console.log)" ;;
		*) why="the boot failed with status $rc (console: $rundir/$tp/console.log)" ;;
		esac
		touch "$rundir/$tp/results.tap"
		NORESULT=$why parse_tap "$tp" "$rundir/$tp/results.tap" kernel-boot "$@"
		suites=$(sed -n 's/^KUNIT_SUITES="\(.*\)"$/\1/p' "$P2P_TOP/qemu/topologies/$tp")
		if [ -n "$suites" ] && [ -n "$(kernel_lacks CONFIG_KUNIT)" ]; then
			for suite in $suites; do
				not_run "$tp/kunit/$suite" "the kernel lacks CONFIG_KUNIT"
			done
		elif [ -n "$suites" ]; then
			# shellcheck disable=SC2086
			parse_ktap "$tp" $suites
		fi
	done
fi

{
	printf '%s\n' "${ROWS[@]}"
	[ "$notrun" -eq 0 ] || echo "$notrun not run (counted neither passed nor failed)"
	echo "$passed passed, $failed failed"
} >"$rundir/summary"
log "logs: $rundir"
[ "$notrun" -eq 0 ] || echo "$notrun not run (counted neither passed nor failed)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
