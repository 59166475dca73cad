# SPDX-License-Identifier: GPL-2.0
#
# The hostile client's connection cases (no private data, short, foreign,
# another version, the largest and the smallest sizes; a NULL call; one
# sent twice), ACCEPT_ROUNDS rounds of them, each sending its call the
# moment the connection is established, beside honest NFS I/O: every
# call must be answered within the wait.  This is what found siw's
# passive side leaving a first message in the socket until the peer's
# next segment (scripts/debug-kernel-siw-accept.patch): about one
# connection in 200, so one hostile.sh round rarely shows it.  The
# server's svc and svcrdma events are kept with the results; a call that
# goes unanswered is found there (its receive, or none, and when).
TIMEOUT=3000

# shellcheck source=tools/testing/tests/hostile.inc
. "$(dirname "${BASH_SOURCE[0]}")/hostile.inc"

ACCEPT_ROUNDS=${ACCEPT_ROUNDS:-40}
ACCEPT_CASES="pdata-absent pdata-short pdata-foreign pdata-version pdata-huge
	pdata-small null dup-call"

accept_rounds() {
	local rc=0 i pid n want rounds
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	# An earlier test in the same boot may have left its stop file.
	rm -f /tmp/honest.stop
	honest_rounds "$MNT/honest" /tmp/honest.rounds &
	pid=$!
	n=$(wc -w <<<"$ACCEPT_CASES")
	want="hostile: $n cases, 0 failed"
	for ((i = 0; i < ACCEPT_ROUNDS; i++)); do
		# shellcheck disable=SC2086 # one word per case
		"$HOSTILE" -w "$HOSTILE_WAIT_MS" "$SERVER_ADDR" $ACCEPT_CASES \
			>"/results/hostile-accept-$i.txt" 2>&1
		# Every case named must have run (hostile skips a name it does
		# not know), and none failed.
		if ! grep -qx "$want" "/results/hostile-accept-$i.txt"; then
			cat "/results/hostile-accept-$i.txt"
			fail "round $i of $ACCEPT_ROUNDS: not '$want'"
			rc=1
			break
		fi
	done
	touch /tmp/honest.stop
	wait "$pid" || { fail "honest I/O failed beside the cases"; rc=1; }
	rounds=$(wc -l </tmp/honest.rounds)
	log "$i rounds of $n cases; $rounds honest rounds beside them"
	[ "$rounds" -gt 0 ] || { fail "no honest round ran beside the cases"; rc=1; }
	rm -rf "$MNT/honest"
	nfs_umount || rc=1
	return $rc
}

test_server() {
	local e rc=0
	nfs_serve_prepared || { signal abort; return 1; }
	tracefs_mount || { signal abort; nfs_server_stop; return 1; }
	echo 16384 >"$TRACEFS/buffer_size_kb"
	: >"$TRACEFS/trace"
	for e in svcrdma sunrpc/svc_xprt_enqueue sunrpc/svc_xprt_dequeue \
		sunrpc/svc_xprt_accept sunrpc/svc_process sunrpc/svc_send \
		sunrpc/svc_xprt_detach; do
		# The in-tree server has no svcrdma system: what there is.
		[ -e "$TRACEFS/events/$e/enable" ] && echo 1 >"$TRACEFS/events/$e/enable"
	done
	signal server-ready
	await client-done "$((TIMEOUT - 100))" || rc=1
	echo 0 >"$TRACEFS/tracing_on"
	cat "$TRACEFS/trace" >/results/server-trace.txt
	echo 1 >"$TRACEFS/tracing_on"
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client subtest hostile-accept accept_rounds
}
