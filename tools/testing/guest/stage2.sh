#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest stage 2: PID 1 of the guest, its root the host root
# (read-only 9p) under a tmpfs overlay.  Prepares the guest,
# runs this VM's part of the test, then proves the teardown was clean.
# /results is shared with the host (and with the peer VM in two-VM tests).

set -u
# shellcheck source=/dev/null
. /results/env
role=$(sed -n 's/.*nfsrdma\.role=\([^ ]*\).*/\1/p' /proc/cmdline)
exec >"/results/$role.out" 2>&1

here=$REPO/tools/testing
# shellcheck source=tools/testing/guest/lib.sh
. "$here/guest/lib.sh"
# shellcheck source=/dev/null
. "$here/tests/$TEST.sh"

guest_prepare "$role" || exit_guest 1 "guest preparation failed"
case "$role" in
single) test_single ;;
server) test_server ;;
client) test_client ;;
client2) test_client2 ;;
*) false ;;
esac
rc=$?
[ "$rc" = 0 ] || log "test body failed with status $rc"
guest_teardown || rc=1
leak_check || rc=1
exit_guest "$rc"
