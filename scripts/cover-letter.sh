#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cover-letter.sh [--check]: bring series/cover-letter up to date with the
# series, in the form `git format-patch --cover-letter` gives it, so that
# `git send-email series/cover-letter <patches>` mails the series as is.
#
# The text between the headers and the shortlog is written by hand. This
# script rewrites the rest: the From line, To (people) and Cc (lists) from
# the kernel's scripts/get_maintainer.pl on the patches, the "[PATCH 0/N]"
# count, and the shortlog and diffstat of base..HEAD in the tree.
#
# With --check it changes nothing and fails if the file is not up to date.
set -euo pipefail
P2P_STEP=cover
. "$(dirname "$0")/lib.sh"

COVER=$P2P_TOP/series/cover-letter
FROM="P2PDMA Dev <dev@p2pdma.invalid>"

[ -f "$COVER" ] || die "no $COVER"
[ -x "$P2P_TREE/scripts/get_maintainer.pl" ] || die "no kernel tree at $P2P_TREE; run 'make prepare'"
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$P2P_SERIES")
[ ${#patches[@]} -gt 0 ] || die "the series is empty"

subject=$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$COVER" | head -n 1)
[ -n "$subject" ] || die "$COVER has no 'Subject: [PATCH 0/N] ...' line"

# The hand-written body: after the headers, up to the shortlog.
body=$(awk 'h && /^[^ ].* \([0-9]+\):$/ { exit } h { print } /^$/ { h = 1 }' "$COVER")

maintainers=$(cd "$P2P_TREE" && scripts/get_maintainer.pl --no-rolestats \
	--no-git --no-git-fallback --no-tree "${patches[@]/#/$P2P_PATCHES/}")
to=$(grep '<' <<<"$maintainers" | paste -sd, - | sed 's/,/, /g')
cc=$(grep -v '<' <<<"$maintainers" | paste -sd, - | sed 's/,/, /g')

new=$(mktemp)
trap 'rm -f "$new"' EXIT
{
	echo "From: $FROM"
	echo "To: $to"
	echo "Cc: $cc"
	echo "Subject: [PATCH 0/${#patches[@]}] $subject"
	echo
	printf '%s\n' "$body" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
	echo
	tree_git shortlog base..HEAD
	tree_git diff --stat --summary base..HEAD | sed 's/^/ /' | sed 's/^  / /'
	echo
	# not the hash of 'base': prepare-tree.sh makes that commit on each
	# machine, so it differs from one clone to the next
	echo "-- "
	echo "base: Linux $LINUX_TESTED, Debian $LINUX_PACKAGE"
} >"$new"

if [ "${1:-}" = --check ]; then
	diff -u "$COVER" "$new" >&2 || die "series/cover-letter is not up to date with the series; run 'make export'"
	echo "cover letter: ${#patches[@]} patches, To: $(grep -c '<' <<<"$maintainers") maintainers, Cc: $(grep -vc '<' <<<"$maintainers") lists, shortlog and diffstat current"
	exit 0
fi
cmp -s "$COVER" "$new" || { cp "$new" "$COVER"; log "updated series/cover-letter"; }
