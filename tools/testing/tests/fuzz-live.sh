# SPDX-License-Identifier: GPL-2.0
#
# The live mutation fuzzer against the server (issue 9): tools/testing/
# hostile in fuzz mode (-F SEED) sends FUZZ_LIVE_MESSAGES calls of every shape
# the server parses, each mutated by tools/testing/hostile/fuzz.c, and
# every 16 of them a well-formed NULL call that must be answered (on a
# new connection if the server closed the old one, as it may for a
# message it cannot trust).  Meanwhile an honest client on the same
# server keeps verified O_DIRECT rounds going, and must complete some.
# The run ends with the line
#
#   fuzz-live: target=svcrdma messages=N splats=S
#
# N from the fuzzer, S the lines of the server's kernel log the harness
# counts as a splat (which fail the instance by themselves too).  After
# it, our server's gauges must come back to idle.  FUZZ_LIVE_SEED (1
# unless set) replays a run exactly; FUZZ_LIVE_SECONDS, if set, bounds it
# in time instead of requiring all FUZZ_LIVE_MESSAGES ('make fuzz-live').
FUZZ_LIVE_MESSAGES=${FUZZ_LIVE_MESSAGES:-100000}
FUZZ_LIVE_SECONDS=${FUZZ_LIVE_SECONDS:-0}
# A time-bounded run gets its bound and ten minutes more; a counted one
# 25 minutes.
TIMEOUT=$((FUZZ_LIVE_SECONDS > 0 ? FUZZ_LIVE_SECONDS + 600 : 1500))
IDLE_SECONDS=120
FUZZ_LIVE_SEED=${FUZZ_LIVE_SEED:-1}
# Fuzzing processes at once, each on its own connection (hostile -j).
FUZZ_LIVE_JOBS=${FUZZ_LIVE_JOBS:-4}
FUZZ_OUT=/results/fuzz-live-svcrdma.txt

# shellcheck source=tools/testing/tests/svcrdma-stats.inc
. "$(dirname "${BASH_SOURCE[0]}")/svcrdma-stats.inc"
IDLE=/tmp/svcrdma.idle

fuzz_server_target() {
	local pid rc=0 sent
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	rm -f /tmp/honest.stop
	honest_rounds "$MNT/honest" /tmp/honest.log &
	pid=$!
	"$REPO/tools/testing/hostile/build/hostile" -F "$FUZZ_LIVE_SEED" \
		-n "$FUZZ_LIVE_MESSAGES" -T "$FUZZ_LIVE_SECONDS" \
		-j "$FUZZ_LIVE_JOBS" "$SERVER_ADDR" \
		>"$FUZZ_OUT" 2>&1 || rc=1
	cat "$FUZZ_OUT"
	touch /tmp/honest.stop
	wait "$pid" || { fail "the honest client's I/O failed during the fuzzing"; rc=1; }
	log "honest rounds verified during the fuzzing: $(wc -l </tmp/honest.log)"
	[ -s /tmp/honest.log ] || { fail "the honest client verified no round"; rc=1; }
	grep -q '^fuzz-live: svcrdma: .*: ok$' "$FUZZ_OUT" ||
		{ fail "the fuzzer failed (its seed and the message that replays it are above)"; rc=1; }
	sent=$(sed -n 's/^fuzz-live: svcrdma: \([0-9]*\) mutated.*/\1/p' "$FUZZ_OUT")
	if [ "$FUZZ_LIVE_SECONDS" = 0 ] && [ "${sent:-0}" != "$FUZZ_LIVE_MESSAGES" ]; then
		fail "the fuzzer sent ${sent:-0} of $FUZZ_LIVE_MESSAGES messages"
		rc=1
	fi
	rm -rf "$MNT/honest"
	nfs_umount || rc=1
	return $rc
}

# The summary line, from the server, which sees its own kernel log.
fuzz_summary() {
	local sent splats
	sent=$(sed -n 's/^fuzz-live: svcrdma: \([0-9]*\) mutated.*/\1/p' "$FUZZ_OUT")
	splats=$(splat_count)
	echo "fuzz-live: target=svcrdma messages=${sent:-0} splats=$splats"
	[ "$splats" = 0 ] || fail "the server's kernel logged $splats splat lines"
}

test_server() {
	local rc=0
	svc_serve_counted "$IDLE" || return 1
	signal server-ready
	await client-done "$((TIMEOUT - 60))" || rc=1
	subtest fuzz-live-svcrdma-splats fuzz_summary || rc=1
	if svc_stats_on; then
		subtest svcrdma-idle-after-fuzz svc_idle_again "$IDLE" "$IDLE_SECONDS" || rc=1
	fi
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client subtest fuzz-live-svcrdma fuzz_server_target
}
