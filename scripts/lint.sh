#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the modules with W=1 and sparse (C=2), then run kernel-doc over every
# kernel source.  Any diagnostic fails: warnings are errors in this project.
set -eu
kdir=$1
top=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

rc=0
make -C "$kdir" M="$top" W=1 C=2 modules >"$log" 2>&1 || rc=$?
# sparse and gcc both report as "file:line:col: warning|error: ..."
if [ "$rc" != 0 ] || grep -Eq '(warning|error):' "$log"; then
	grep -E '(warning|error):' "$log" || tail -n 30 "$log"
	echo "lint: build with W=1 C=2 is not clean" >&2
	exit 1
fi

srcs=$(cd "$top" && git ls-files -co --exclude-standard -- '*.c' '*.h' |
	grep -Ev '^tools/' || true)
out=$(cd "$top" && "$kdir/scripts/kernel-doc" -none $srcs 2>&1 || true)
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	echo "lint: kernel-doc is not clean" >&2
	exit 1
fi
echo "lint: W=1, sparse and kernel-doc clean"
