#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect-build.sh: build every prefix of the series, as `git bisect` would
# meet it: check out each commit of base..HEAD in turn and build the test
# kernel (bzImage and modules) incrementally in build/obj. A prefix that
# does not build, or whose build prints a compiler warning, stops the run
# and is named. The tree is put back at its branch head and rebuilt at the
# end, whatever happens, so the test kernel matches the series again.
#
# --from N starts at prefix N (the earlier ones are known to build).
#
# Output: one line per prefix with its build time and warning count.
set -euo pipefail
P2P_STEP=bisect
. "$(dirname "$0")/lib.sh"

from=1
[ "${1:-}" != --from ] || from=${2:?--from needs a prefix number}

branch=$(tree_git symbolic-ref --short HEAD 2>/dev/null) ||
	die "$P2P_TREE is not on a branch (an interrupted bisection?); check it out first"
[ -z "$(tree_git status --porcelain --untracked-files=no)" ] ||
	die "$P2P_TREE has uncommitted changes; commit or export them first"
mapfile -t commits < <(tree_git rev-list --reverse base..HEAD)
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$P2P_SERIES")
[ ${#commits[@]} -gt 0 ] || die "the series is empty"

restore()
{
	tree_git checkout -q "$branch"
	log "tree back at $branch; rebuilding the test kernel"
	"$P2P_TOP/qemu/kernel.sh" >/dev/null
}
trap restore EXIT

start=$(date +%s)
for i in "${!commits[@]}"; do
	[ $((i + 1)) -ge "$from" ] || continue
	c=${commits[$i]} name=${patches[$i]:-$(tree_git log -1 --format=%s "$c")}
	tree_git checkout -q --detach "$c"
	t0=$(date +%s)
	if ! "$P2P_TOP/qemu/kernel.sh" >/dev/null 2>"$P2P_LOGS/bisect-$((i + 1)).err"; then
		tail -n 30 "$P2P_LOGS/bisect-$((i + 1)).err" >&2
		die "prefix $((i + 1))/${#commits[@]} does not build: $name"
	fi
	# warnings of the base tree's own code, which a prefix recompiles when
	# it changes a header (series/base-warnings), are not the prefix's
	grep -E ': warning: ' "$P2P_LOGS/kernel-build-$(basename "$P2P_OBJ").log" |
		grep -vFf <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$P2P_TOP/series/base-warnings") \
		>"$P2P_LOGS/bisect-$((i + 1)).warnings" || true
	warnings=$(grep -c . "$P2P_LOGS/bisect-$((i + 1)).warnings" || true)
	printf 'prefix %d/%d built in %4ds, %d warnings: %s\n' "$((i + 1))" "${#commits[@]}" \
		"$(( $(date +%s) - t0 ))" "$warnings" "$name"
	if [ "$warnings" -gt 0 ]; then
		cat "$P2P_LOGS/bisect-$((i + 1)).warnings" >&2
		die "prefix $((i + 1)) builds with warnings: $name"
	fi
done
echo "every prefix of ${#commits[@]} builds without warnings in $(( $(date +%s) - start ))s"
