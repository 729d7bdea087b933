#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-patches.sh: the checkpatch and commit message gates, on the patch
# files of series/series.
#
# checkpatch: `scripts/checkpatch.pl --strict` on every patch, run from the
# top of the kernel tree (run from elsewhere it misreads the patches). Any
# error, warning or check fails, except the message types that
# series/checkpatch-exceptions allows for a patch, each with its reason.
#
# Commit messages: the subject starts with the prefix the kernel uses for
# the subsystem the patch touches, the body says why in at least a short
# paragraph, and the patch is signed off.
#
# Output: one line per patch with its counts; exit 1 on any failure.
set -euo pipefail
P2P_STEP=gates
. "$(dirname "$0")/lib.sh"

EXCEPTIONS=$P2P_TOP/series/checkpatch-exceptions
[ -x "$P2P_TREE/scripts/checkpatch.pl" ] || die "no kernel tree at $P2P_TREE; run 'make prepare'"

# The prefixes the subsystems' own logs use.
PREFIXES='PCI/P2PDMA|tools: PCI|dma-mapping|dma-direct|iommu/dma|nvme-pci|nvme|nvme-multipath|nvmet|nvmet-rdma|RDMA/rw|RDMA/core|block|md|md/raid0|md/raid1|md/raid10|md/raid5|dm'

# exceptions PATCH: the checkpatch types allowed for PATCH, comma separated.
exceptions()
{
	[ -f "$EXCEPTIONS" ] || return 0
	sed -e 's/#.*//' "$EXCEPTIONS" | awk -v p="$1" '$1 == p { print $2 }' | paste -sd, -
}

# check_message PATCH: the subject prefix, a body and a sign-off.
check_message()
{
	local patch=$1 subject body
	# the Subject header, unfolded
	subject=$(awk '/^Subject: / { s = $0; f = 1; next } f && /^ / { s = s $0; next } f { exit }
		END { print s }' "$patch" | sed 's/^Subject: \[PATCH[^]]*\] //')
	[[ $subject =~ ^($PREFIXES):\  ]] || {
		echo "subject '$subject' lacks a subsystem prefix ($PREFIXES)"
		return 1
	}
	# PCI subjects are capitalised after the prefix, the others are not
	if [[ $subject == PCI/* ]] && ! [[ ${subject#*: } =~ ^[A-Z] ]]; then
		echo "PCI subject '$subject' should be capitalised after the prefix"
		return 1
	fi
	body=$(awk '/^$/ && !b { b = 1; next } b && /^---$/ { exit } b' "$patch" |
		grep -vE '^(Signed-off-by|Reviewed-by|Acked-by|Tested-by|Link|Cc):' | grep -c '[a-z]' || true)
	[ "$body" -ge 4 ] || {
		echo "the commit message has $body lines of text; say why the change is needed"
		return 1
	}
	grep -qE '^Signed-off-by: .+ <.+@.+>$' "$patch" || {
		echo "no Signed-off-by"
		return 1
	}
}

rc=0 n=0 allowed=""
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$P2P_SERIES")
for p in "${patches[@]}"; do
	n=$((n + 1))
	[ -f "$P2P_PATCHES/$p" ] || { echo "$p: missing"; rc=1; continue; }
	ign=$(exceptions "$p")
	out=$(cd "$P2P_TREE" && scripts/checkpatch.pl --strict --show-types \
		${ign:+--ignore "$ign"} "$P2P_PATCHES/$p" 2>&1) || true
	total=$(grep -m1 '^total: ' <<<"$out" || echo "total: ? errors, ? warnings, ? checks")
	if ! grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$out"; then
		echo "$p: checkpatch $total"
		grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" | sed 's/^/    /'
		rc=1
	else
		echo "$p: checkpatch 0 errors, 0 warnings, 0 checks${ign:+ (allowed: $ign)}"
	fi
	[ -z "$ign" ] || allowed="$allowed $p:$ign"
	if ! why=$(check_message "$P2P_PATCHES/$p"); then
		echo "$p: commit message: $why"
		rc=1
	fi
done
echo "checkpatch --strict on $n patches; exceptions:${allowed:- none}"
exit "$rc"
