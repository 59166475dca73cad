#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh KDIR [build|doc|all]: build the modules with W=1 and sparse (C=2),
# and run kernel-doc over every kernel source.  Any diagnostic fails:
# warnings are errors in this project.
set -eu
kdir=$1
what=${2:-all}
top=$(cd "$(dirname "$0")/.." && pwd)

lint_build() {
	log=$(mktemp)
	rc=0
	make -C "$kdir" M="$top" W=1 C=2 modules >"$log" 2>&1 || rc=$?
	# gcc and sparse both report as "file:line:col: warning|error: ..."
	if [ "$rc" != 0 ] || grep -Eq '(warning|error):' "$log"; then
		grep -E '(warning|error):' "$log" || tail -n 30 "$log"
		rm -f "$log"
		echo "lint: build with W=1 C=2 is not clean" >&2
		return 1
	fi
	rm -f "$log"
	echo "lint: W=1 and sparse clean"
}

lint_doc() {
	srcs=$(cd "$top" && git ls-files -co --exclude-standard -- '*.c' '*.h' |
		grep -Ev '^tools/' || true)
	# shellcheck disable=SC2086
	out=$(cd "$top" && "$kdir/scripts/kernel-doc" -none $srcs 2>&1 || true)
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
		echo "lint: kernel-doc is not clean" >&2
		return 1
	fi
	echo "lint: kernel-doc clean"
}

case "$what" in
build) lint_build ;;
doc) lint_doc ;;
all) lint_build && lint_doc ;;
*) echo "usage: lint.sh KDIR [build|doc|all]" >&2; exit 2 ;;
esac
