#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vmtest.sh [--conf FILE] [--kernel debian|debug] [PATTERN]: run the VM
# test instances from tests.conf (or FILE, relative to this directory) whose
# line matches PATTERN (all of them by default), or one ad-hoc instance with
# vmtest.sh TEST TOPOLOGY CLIENT SERVER [kernel=debug].  --kernel (or
# RUN_KERNEL=) boots every instance on that kernel, whatever its line says.
# Prints TAP and "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
conf=$here/tests.conf
while :; do
	case "${1:-}" in
	--conf) conf=$here/$2 ;;
	--kernel) export RUN_KERNEL=$2 ;;
	*) break ;;
	esac
	shift 2
done
# shellcheck source=tools/testing/lib/run.sh
. "$here/lib/run.sh"

vm_initramfs || exit 1
if [ $# -ge 4 ]; then
	run_instance "$@"
else
	while read -r t topo c s rest; do
		case "$t" in '#'* | '') continue ;; esac
		if [ -n "${1:-}" ] && ! echo "$t $topo $c $s $rest" | grep -q -- "$1"; then
			continue
		fi
		# shellcheck disable=SC2086
		run_instance "$t" "$topo" "$c" "$s" $rest
	done <"$conf"
fi
tap_summary
