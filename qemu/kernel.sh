#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel.sh: configure and build the guest kernel out of tree, incrementally.
#
# The configuration is `make tinyconfig` plus the fragments in
# $P2P_FRAGMENTS (default: qemu/config/p2pdma.config, debian.config and
# series.config),
# merged with the kernel's merge_config.sh. It is regenerated only when a
# fragment or the tree's Kconfig files change, and every option a fragment
# sets must be in the final .config: Kconfig drops an option whose
# dependencies are off without a word. The one exception: an option of
# series.config that the tree does not define yet, because the patch that
# adds it comes later in the series (a bisection build).
set -euo pipefail
P2P_STEP=kernel
. "$(dirname "$0")/../scripts/lib.sh"

P2P_FRAGMENTS=${P2P_FRAGMENTS:-$P2P_TOP/qemu/config/p2pdma.config $P2P_TOP/qemu/config/debian.config $P2P_TOP/qemu/config/series.config}
JOBS=${JOBS:-$(nproc)}
KMAKE=(make -C "$P2P_TREE" O="$P2P_OBJ" CC="ccache gcc" -j"$JOBS")

"$P2P_TOP/scripts/deps.sh" build
[ -f "$P2P_TREE/Makefile" ] || die "no kernel tree at $P2P_TREE; run 'make prepare'"

# defined_in_tree LINE: whether the option LINE sets has a Kconfig entry.
defined_in_tree()
{
	local sym

	sym=$(sym_of "$1")
	grep -rqsE --include='Kconfig*' "^(menu)?config ${sym#CONFIG_}\$" "$P2P_TREE"
}

# sym_of LINE: the option a fragment line sets ("CONFIG_FOO=y" or
# "# CONFIG_FOO is not set" -> CONFIG_FOO).
sym_of()
{
	local sym=${1#\# }

	echo "${sym%%[= ]*}"
}

# set_later FRAG SYM: whether a fragment merged after FRAG sets SYM too (as
# bench.config turns off the checkers p2pdma.config turns on); the last one
# merged wins, as in merge_config.sh.
set_later()
{
	local f after=0

	for f in $P2P_FRAGMENTS; do
		if [ "$after" = 1 ] && grep -qE "^(# )?$2[= ]" "$f"; then
			return 0
		fi
		[ "$f" = "$1" ] && after=1
	done
	return 1
}

# check_config: every line a fragment sets must appear verbatim in .config.
check_config()
{
	local frag line bad=0
	for frag in $P2P_FRAGMENTS; do
		while read -r line; do
			grep -qxF "$line" "$P2P_OBJ/.config" && continue
			set_later "$frag" "$(sym_of "$line")" && continue
			if [ "$(basename "$frag")" = series.config ] &&
			   ! defined_in_tree "$line"; then
				log "series.config: '$line' is not in this tree yet (added by a later patch)"
				continue
			fi
			log "$(basename "$frag"): '$line' did not survive olddefconfig (a dependency is off)"
			bad=1
		done < <(grep -E '^(CONFIG_|# CONFIG_.* is not set)' "$frag")
	done
	return "$bad"
}

configure()
{
	local frag
	log "configuring: tinyconfig + $(for frag in $P2P_FRAGMENTS; do basename "$frag"; done | xargs)"
	mkdir -p "$P2P_OBJ"
	"${KMAKE[@]}" -s tinyconfig >/dev/null
	# shellcheck disable=SC2086
	"$P2P_TREE/scripts/kconfig/merge_config.sh" -m -O "$P2P_OBJ" \
		"$P2P_OBJ/.config" $P2P_FRAGMENTS >/dev/null
	"${KMAKE[@]}" -s olddefconfig >/dev/null
	check_config || die "kernel configuration is incomplete (see above)"
}

# kconfig_blobs: the tree's Kconfig files as git has them (mode, blob, path)
# and any uncommitted change to them, so that the configuration is redone
# only when one of them changes: a bisection that checks out each commit of
# the series reconfigures at the one patch that adds an option, not at
# every commit. Outside git, the files' own checksums.
kconfig_blobs()
{
	local kconfigs=':(glob)**/Kconfig*'

	{ git -C "$P2P_TREE" ls-files -s -- "$kconfigs" &&
	  git -C "$P2P_TREE" diff HEAD -- "$kconfigs"; } 2>/dev/null ||
		find "$P2P_TREE" -name 'Kconfig*' -type f -exec sha256sum {} + | sort -k2
}

# shellcheck disable=SC2086
cfg_hash=$( { cat $P2P_FRAGMENTS; kconfig_blobs; } | sha256sum | cut -d' ' -f1)
if [ ! -f "$P2P_OBJ/.config" ] || [ "$(cat "$P2P_OBJ/.p2p-config" 2>/dev/null)" != "$cfg_hash" ]; then
	configure
	echo "$cfg_hash" >"$P2P_OBJ/.p2p-config"
fi

mkdir -p "$P2P_LOGS"
start=$(date +%s)
log "building bzImage and modules in $P2P_OBJ with $JOBS jobs (a fresh build took 10 minutes on 2 cores, a minute or two after a small change)"
run_with_heartbeat "$P2P_LOGS/kernel-build-$(basename "$P2P_OBJ").log" "kernel build" \
	"${KMAKE[@]}" bzImage modules ||
	die "kernel build failed; full log: $P2P_LOGS/kernel-build-$(basename "$P2P_OBJ").log"
log "kernel $(cat "$P2P_OBJ/include/config/kernel.release") built in $(( $(date +%s) - start ))s: $P2P_OBJ/arch/x86/boot/bzImage"
