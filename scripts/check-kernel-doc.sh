#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-kernel-doc.sh: the kernel-doc gate. In every C file and header the
# series touches:
#  - every exported function that the series adds or changes has a
#    kernel-doc comment, and `scripts/kernel-doc -none -Wall` finds nothing
#    to say about it;
#  - `scripts/kernel-doc -none` gives no warning the base tree does not give.
#
# Output: the counts and each problem; exit 1 on any.
set -euo pipefail
P2P_STEP=gates
. "$(dirname "$0")/lib.sh"

KDOC=$P2P_TREE/scripts/kernel-doc
[ -x "$KDOC" ] || die "no kernel tree at $P2P_TREE; run 'make prepare'"

# changed_lines FILE: the line numbers of FILE that the series adds or edits.
changed_lines()
{
	tree_git diff -U0 base..HEAD -- "$1" |
		sed -nE 's/^@@ -[0-9,]+ \+([0-9]+)(,([0-9]+))? @@.*/\1 \3/p' |
		awk '{ n = ($2 == "") ? 1 : $2; if (n == 0) n = 1; for (i = 0; i < n; i++) print $1 + i }'
}

# changed_exports FILE: exported functions of FILE whose definition, from
# its first line to the EXPORT_SYMBOL line, holds a line the series changed.
changed_exports()
{
	local file=$1
	awk -v lines="$(changed_lines "$file" | paste -sd, -)" '
		BEGIN { n = split(lines, l, ","); for (i = 1; i <= n; i++) changed[l[i]] = 1 }
		/^[a-zA-Z_].*\(/ && !/;[[:space:]]*$/ { start = NR; head = $0 }
		/^EXPORT_SYMBOL(_GPL)?\(/ {
			name = $0; sub(/^EXPORT_SYMBOL(_GPL)?\(/, "", name); sub(/\).*/, "", name)
			if (!index(head, name "("))
				next	# an exported variable
			for (i = start; i <= NR; i++) if (i in changed) { print name; break }
		}' "$P2P_TREE/$file"
}

# kdoc_warnings TREE FILE: kernel-doc's warnings on FILE, without line numbers.
kdoc_warnings()
{
	(cd "$1" && "$KDOC" -none "$2" 2>&1) | grep -i 'warning' |
		sed -E 's/:[0-9]+: /: /' | sort || true
}

rc=0 nexp=0 nfiles=0
mapfile -t files < <(tree_git diff --name-only base..HEAD -- '*.c' '*.h')
for f in "${files[@]}"; do
	nfiles=$((nfiles + 1))
	for fn in $(changed_exports "$f"); do
		nexp=$((nexp + 1))
		if (cd "$P2P_TREE" && "$KDOC" -rst -function "$fn" "$f" 2>&1) | grep -q "'$fn' not found"; then
			echo "$f: $fn() is exported and changed by the series but has no kernel-doc"
			rc=1
			continue
		fi
		w=$(cd "$P2P_TREE" && "$KDOC" -none -Wall "$f" 2>&1 | grep -F "'$fn'" || true)
		[ -z "$w" ] || { echo "$w"; rc=1; }
	done
	base=$( [ -n "$(tree_git ls-tree base -- "$f")" ] &&
		tree_git show "base:$f" >"$P2P_BUILD/kdoc-base.tmp" &&
		kdoc_warnings "$P2P_BUILD" kdoc-base.tmp | sed "s#kdoc-base.tmp#$f#" || true)
	new=$(comm -13 <(echo "$base") <(kdoc_warnings "$P2P_TREE" "$f"))
	[ -z "$new" ] || { echo "$new" | sed 's/^/new: /'; rc=1; }
done
rm -f "$P2P_BUILD/kdoc-base.tmp"
echo "kernel-doc: $nfiles files, $nexp exported functions added or changed, $([ "$rc" = 0 ] && echo "all documented, no new warning" || echo "problems above")"
exit "$rc"
