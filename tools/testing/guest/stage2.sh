#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest stage 2: PID 1 of the guest, its root the host root
# (read-only 9p) under a tmpfs overlay.  Prepares the guest (and, in a
# two-VM test, starts logging its link's counters), runs this VM's part
# of the test, then proves the teardown was clean.
# /results is shared with the host (and with the peer VM in two-VM tests).
#
# TEST may name several tests joined by "+": they share this boot (the
# debug kernel's boots, module loads and kmemleak scans cost minutes
# apiece).  Each runs in a subshell of its own, so no test sees another's
# functions or variables, and each is followed by the teardown every test
# gets (no mount left, modules out with no reference held, kernel not
# tainted); a teardown that fails is the subtest "TEST/teardown".  The
# leak check runs once, after the last (it names the test each leaked
# object was allocated in), and a leak fails every test of the boot.  A
# guest that aborts ends the tests after it in both guests.

set -u
# shellcheck source=/dev/null
. /results/env
role=$(sed -n 's/.*nfsrdma\.role=\([^ ]*\).*/\1/p' /proc/cmdline)
# A pair may boot two kernels (KERNEL=CLIENT/SERVER): this guest's is its
# role's, and the release it runs is the one it installs modules for.
case "${KERNEL:-debian}" in
*/*) if [ "$role" = server ]; then KERNEL=${KERNEL#*/}; else KERNEL=${KERNEL%/*}; fi ;;
esac
KVER=$(uname -r)
exec >"/results/$role.out" 2>&1

here=$REPO/tools/testing
# shellcheck source=tools/testing/guest/lib.sh
. "$here/guest/lib.sh"

# run_part TEST: this VM's part of TEST, in a subshell.
run_part() (
	# shellcheck source=/dev/null
	. "$here/tests/$1.sh"
	case "$role" in
	single) test_single ;;
	server) test_server ;;
	client) test_client ;;
	client2) test_client2 ;;
	*) false ;;
	esac
)

guest_prepare "$role" || exit_guest 1 "guest preparation failed"
link_watch
rc=0
case "$TEST" in
*+*)
	for t in ${TEST//+/ }; do
		if signalled abort; then
			log "a guest aborted: $t and the tests after it do not run"
			rc=1
			break
		fi
		export CUR_TEST=$t
		TAINT_BEFORE=$(cat /proc/sys/kernel/tainted)
		log "=== test $t"
		mkdir -p /run/nfsrdma
		echo "$(cut -d' ' -f1 /proc/uptime) $t" >>/run/nfsrdma/tests-begun
		run_part "$t" || { log "test $t failed"; rc=1; }
		if ! guest_teardown; then
			echo "not ok $role $t/teardown" >>/results/subtests
			rc=1
		fi
		unset CUR_TEST TAINT_BEFORE
	done
	;;
*)
	run_part "$TEST"
	rc=$?
	[ "$rc" = 0 ] || log "test body failed with status $rc"
	guest_teardown || rc=1
	;;
esac
fabric_counters
leak_check || rc=1
exit_guest "$rc"
