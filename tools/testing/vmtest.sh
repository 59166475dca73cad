#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vmtest.sh [--conf FILE] [PATTERN]: run the VM test instances from
# tests.conf (or FILE, relative to this directory) whose line matches
# PATTERN (all of them by default), or one ad-hoc instance with
# vmtest.sh TEST TOPOLOGY CLIENT SERVER.  Prints TAP and "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
conf=$here/tests.conf
if [ "${1:-}" = --conf ]; then
	conf=$here/$2
	shift 2
fi
# shellcheck source=tools/testing/lib/run.sh
. "$here/lib/run.sh"

vm_initramfs || exit 1
if [ $# -ge 4 ]; then
	run_instance "$@"
else
	while read -r t topo c s expect; do
		case "$t" in '#'* | '') continue ;; esac
		if [ -n "${1:-}" ] && ! echo "$t $topo $c $s $expect" | grep -q -- "$1"; then
			continue
		fi
		run_instance "$t" "$topo" "$c" "$s" "$expect"
	done <"$conf"
fi
tap_summary
