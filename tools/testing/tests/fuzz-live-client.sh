# SPDX-License-Identifier: GPL-2.0
#
# The live mutation fuzzer against the client (issue 9): the server VM
# runs tools/testing/hostile/build/hostile-server -F SEED, the proxy of
# xprt-hostile (knfsd's RDMA listener moved to port 20050), which puts 32
# mutated messages (tools/testing/hostile/fuzz.c) before its reply to
# every call that contains the marker "HOSTILE", until FUZZ_LIVE_MESSAGES
# have gone.  On an NFSv3 mount through it (stateless: a mutated reply
# the client takes costs that one call, no state recovery), the client
# VM creates and removes files whose names hold the marker, in a loop
# whose results are not judged, while honest O_DIRECT rounds on other
# files are verified.  The run ends with the line
#
#   fuzz-live: target=xprtrdma messages=N splats=S
#
# N from the proxy, S the lines of the client's kernel log the harness
# counts as a splat.  The honest rounds must verify, one of them after
# the fuzzing ended, and the mount must unmount.  FUZZ_LIVE_SEED (1
# unless set) replays a run; FUZZ_LIVE_SECONDS, if set, ends it after
# that long instead of requiring all FUZZ_LIVE_MESSAGES.
FUZZ_LIVE_MESSAGES=${FUZZ_LIVE_MESSAGES:-100000}
FUZZ_LIVE_SECONDS=${FUZZ_LIVE_SECONDS:-0}
TIMEOUT=$((FUZZ_LIVE_SECONDS > 0 ? FUZZ_LIVE_SECONDS + 600 : 1500))
FUZZ_LIVE_SEED=${FUZZ_LIVE_SEED:-1}
# Marker loops at once: more calls in flight for the proxy to answer.
FUZZ_LIVE_DRIVERS=${FUZZ_LIVE_DRIVERS:-4}
FZ_CTL=/results
FZ_LOG=/results/fuzz-live-xprtrdma.log

test_server() {
	local rc=0 pid i
	rm -f "$FZ_CTL"/hs.*
	NFS_PORT=20050 nfs_serve_prepared || { signal abort; return 1; }
	"$REPO/tools/testing/hostile/build/hostile-server" -C "$FZ_CTL" \
		-F "$FUZZ_LIVE_SEED" -n "$FUZZ_LIVE_MESSAGES" >"$FZ_LOG" 2>&1 &
	pid=$!
	for ((i = 0; i < 50; i++)); do
		grep -q 'listening on port' "$FZ_LOG" && break
		sleep 0.2
	done
	if ! kill -0 "$pid" 2>/dev/null; then
		cat "$FZ_LOG"
		fail "hostile-server did not start"
		signal abort
		return 1
	fi
	signal server-ready
	# The proxy runs until the client has unmounted (or given up).
	for ((i = 0; i < TIMEOUT - 60; i++)); do
		{ signalled client-unmounted || signalled client-done; } && break
		sleep 1
	done
	kill "$pid"
	wait "$pid"
	signal fuzz-stopped
	grep -E 'fuzz-live|accepted|closed|failed' "$FZ_LOG" | tail -50
	await client-done 300 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

fz_sent() {
	sed -n 's/^.*fuzz-live: xprtrdma: \([0-9]*\) mutated messages sent.*/\1/p' \
		"$FZ_LOG" | tail -n 1
}

# The marker's calls: CREATE, LOOKUP and REMOVE of files whose names
# hold it, in FUZZ_LIVE_DRIVERS loops at once, each in a directory of its
# own under one that holds only them (a mutated reply the client takes
# carries some directory's attributes: never the mount root's), until the
# proxy is done, FUZZ_LIVE_SECONDS pass, the server gives up, or the time
# left to the test runs short.
fz_drive() {
	local k rc=0 pids=()
	for ((k = 0; k < FUZZ_LIVE_DRIVERS; k++)); do
		fz_drive_one "$MNT/fuzz/$k" &
		pids+=($!)
	done
	for k in "${pids[@]}"; do
		wait "$k" || rc=1
	done
	return $rc
}

# fz_drive_one DIR: one loop of marker calls, on files in DIR.
fz_drive_one() {
	local i now end=$(($(date +%s) + TIMEOUT - 300))
	[ "$FUZZ_LIVE_SECONDS" != 0 ] && end=$(($(date +%s) + FUZZ_LIVE_SECONDS))
	mkdir -p "$1" || return 1
	for ((i = 0; ; i++)); do
		[ -e "$FZ_CTL/hs.fuzz.done" ] && return 0
		now=$(date +%s)
		if [ "$now" -ge "$end" ]; then
			[ "$FUZZ_LIVE_SECONDS" != 0 ] && return 0
			fail "the proxy had not sent $FUZZ_LIVE_MESSAGES mutated messages after $((TIMEOUT - 300)) s"
			return 1
		fi
		signalled abort && { fail "the server aborted"; return 1; }
		timeout -s KILL 120 touch "$1/HOSTILE-$((i % 16))" 2>/dev/null
		timeout -s KILL 120 rm -f "$1/HOSTILE-$(((i + 8) % 16))" 2>/dev/null
	done
}

# honest_round_after N SECONDS: the honest log grows past N lines within
# SECONDS (a reconnect's backoff may hold the first round up).
honest_round_after() {
	local i
	for ((i = 0; i < $2; i++)); do
		[ "$(wc -l </tmp/honest.log)" -gt "$1" ] && return 0
		sleep 1
	done
	return 1
}

fuzz_client_target() {
	local pid rc=0 sent before splats
	nfs_client_prepare || return 1
	nfs_mount 3 || return 1
	rm -f /tmp/honest.stop
	honest_rounds "$MNT/honest" /tmp/honest.log &
	pid=$!
	fz_drive || rc=1
	before=$(wc -l </tmp/honest.log)
	log "the fuzzing ended; honest rounds verified so far: $before"
	# Honest again: the mount must still carry verified I/O.
	honest_round_after "$before" 150 ||
		{ fail "no honest round verified in 150 s after the fuzzing"; rc=1; }
	touch /tmp/honest.stop
	wait "$pid" || { fail "the honest client's I/O failed or read wrong bytes"; rc=1; }
	log "honest rounds verified: $(wc -l </tmp/honest.log), $(($(wc -l </tmp/honest.log) - before)) after the fuzzing"
	grep -E '^[[:space:]]*xprt:' /proc/self/mountstats | sed 's/^/mountstats: /'
	rm -rf "$MNT/honest" "$MNT/fuzz"
	timeout 120 umount "$MNT" || { fail "umount failed"; rc=1; }
	signal client-unmounted
	# The proxy's last count, once the server has stopped it.
	await fuzz-stopped 120 || rc=1
	sent=$(fz_sent)
	if [ "$FUZZ_LIVE_SECONDS" = 0 ] && [ "${sent:-0}" != "$FUZZ_LIVE_MESSAGES" ]; then
		fail "the proxy sent ${sent:-0} of $FUZZ_LIVE_MESSAGES mutated messages"
		rc=1
	fi
	splats=$(splat_count)
	echo "fuzz-live: target=xprtrdma messages=${sent:-0} splats=$splats"
	[ "$splats" = 0 ] || { fail "the client's kernel logged $splats splat lines"; rc=1; }
	return $rc
}

test_client() {
	as_client subtest fuzz-live-xprtrdma fuzz_client_target
}
