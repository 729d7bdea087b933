# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the host-side scripts. Source it; do not run it.

# Repository root, whatever the caller's working directory.
P2P_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
P2P_BUILD=${P2P_BUILD:-$P2P_TOP/build}
P2P_OBJ=${P2P_OBJ:-$P2P_BUILD/obj}
P2P_LOGS=${P2P_LOGS:-$P2P_BUILD/logs}

# The pin: which package and which kernel major.minor the series targets.
# shellcheck source=../series/base
. "$P2P_TOP/series/base"
P2P_TREE=${P2P_TREE:-$P2P_BUILD/$LINUX_PACKAGE}
P2P_BASE_TREE=$P2P_BUILD/linux-base
# The series list, and the directory its patch paths are relative to (the
# host tests point both at scratch copies).
P2P_SERIES=${P2P_SERIES:-$P2P_TOP/series/series}
P2P_PATCHES=${P2P_PATCHES:-$P2P_TOP}

# Progress goes to stderr so that a caller may capture stdout.
log()  { printf '[%s] %s\n' "${P2P_STEP:-p2p}" "$*" >&2; }
die()  { printf '[%s] error: %s\n' "${P2P_STEP:-p2p}" "$*" >&2; exit 1; }

# run_with_heartbeat LOG LABEL CMD...: run a long command with its output in
# LOG, printing a line every 30 s so that CI and humans see it is alive. On
# failure the tail of LOG is shown and the command's status returned.
run_with_heartbeat()
{
	local logf=$1 label=$2 pid start rc
	shift 2
	start=$(date +%s)
	"$@" >"$logf" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		if (( ($(date +%s) - start) % 30 < 5 )) && kill -0 "$pid" 2>/dev/null; then
			log "$label: $(( $(date +%s) - start ))s, $(wc -l <"$logf") lines of output"
		fi
	done
	wait "$pid"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		log "$label failed (exit $rc); last lines of $logf:"
		tail -n 25 "$logf" >&2
	else
		log "$label: done in $(( $(date +%s) - start ))s"
	fi
	return "$rc"
}

# tree_git ARGS...: git in the kernel tree, with a fixed identity so that
# applying and exporting never depend on the user's configuration.
tree_git()
{
	git -C "$P2P_TREE" -c user.name="${GIT_AUTHOR_NAME:-p2pdma}" \
		-c user.email="${GIT_AUTHOR_EMAIL:-p2pdma@localhost}" "$@"
}

# base_worktree: tag 'base' of the tree checked out in $P2P_BASE_TREE, a git
# worktree created once, for the gates and benchmarks that compare with it.
base_worktree()
{
	if [ ! -d "$P2P_BASE_TREE" ]; then
		log "checking out tag 'base' into $P2P_BASE_TREE (once)"
		tree_git worktree add -q --detach "$P2P_BASE_TREE" base
	fi
	git -C "$P2P_BASE_TREE" checkout -q --detach base
}
