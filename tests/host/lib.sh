# SPDX-License-Identifier: GPL-2.0
# Helpers for host tests. A host test is an executable that prints one TAP
# result named after its file; it sets DESCRIPTION before sourcing this.
HOST_TEST=$(basename "$0")
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

pass()
{
	echo "ok 1 - $HOST_TEST: $DESCRIPTION"
	exit 0
}

fail()
{
	echo "# FAIL: $*"
	echo "not ok 1 - $HOST_TEST: $DESCRIPTION"
	exit 1
}

# show FILE: a command's output as TAP diagnostics.
show()
{
	sed 's/^/# | /' "$1"
}

# fake_tree DIR SUBLEVEL: a small git tree that looks like a prepared
# kernel tree (a top Makefile and one source file, tagged 'base').
fake_tree()
{
	mkdir -p "$1/drivers"
	printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = %s\nEXTRAVERSION =\n' "$2" >"$1/Makefile"
	printf 'int one(void)\n{\n\treturn 1;\n}\n' >"$1/drivers/one.c"
	git -C "$1" init -q -b p2pdma
	git -C "$1" add -A
	git -C "$1" -c user.name=t -c user.email=t@t commit -q -m base
	git -C "$1" tag base
}

# tgit DIR ARGS: git with an identity, in DIR.
tgit()
{
	git -C "$1" -c user.name=Test -c user.email=test@example.org "${@:2}"
}
