# SPDX-License-Identifier: GPL-2.0
#
# A hostile client (tools/testing/hostile) throws malformed RPC-over-RDMA
# messages at the server while an honest client keeps verified I/O going
# on an NFS mount of the same server.  Well-formed but rare messages go
# with them: an RDMA_NOMSG WRITE whose data is a Read chunk beside the
# Position-zero chunk, and four at once whose data chunks have 260
# segments each; their bytes are then read back and compared.  Every hostile case must get the
# protocol's error reply or a closed connection, the honest I/O must finish
# and verify, and (through the harness) neither kernel may splat.  On our
# server the counters must show the ERR_VERS, ERR_CHUNK and closes it
# answered with; after every case its connection must be gone (only the
# honest mount's left, no request pending) and, with the honest client
# paused between two rounds, every gauge as it was with the honest mount
# alone before the first case, so a leak is pinned on the case that
# caused it; its gauges must come back to idle afterwards; its
# tracepoints must have recorded the accepts, the errors (the bogus-handle
# case makes an RDMA Read fail) and the replies.
TIMEOUT=900
IDLE_SECONDS=120

# shellcheck source=tools/testing/tests/svcrdma-stats.inc
. "$(dirname "${BASH_SOURCE[0]}")/svcrdma-stats.inc"
# shellcheck source=tools/testing/tests/hostile.inc
. "$(dirname "${BASH_SOURCE[0]}")/hostile.inc"
IDLE=/tmp/svcrdma.idle

# HOSTILE_STEP=0 (a tests.conf word) runs the cases back to back and
# checks the gauges only after them all: make check's line on the debug
# kernel, where the check after each case would cost about 270 s.  The
# lines of check-full and check-kernels check after each case.
HOSTILE_STEP=${HOSTILE_STEP:-1}

# Bytes the honest client writes and reads back per round: one RPC of
# the largest size each way, and a round short enough (a few seconds on
# the debug kernel) that a pause after each case costs little.
HONEST_BYTES=1048576

# honest_pause_point: between two rounds, while the server asks
# (honest-pause), stop, saying so (honest-paused): it reads its gauges
# with the honest connection idle.
honest_pause_point() {
	local i
	signalled honest-pause || return 0
	signal honest-paused
	for ((i = 0; i < 3000 * ${TIME_SCALE:-1}; i++)); do
		signalled honest-pause || break
		[ -e /tmp/honest.stop ] && break
		signalled abort && break
		sleep 0.2
	done
	rm -f "$(sync_file honest-paused)"
}

# honest_io DIR: write, re-read and compare files until told to stop;
# honest-done says the loop has ended (its connection idle for good).
honest_io() {
	local rc=0
	honest_loop "$1" || rc=1
	signal honest-done
	return $rc
}

honest_loop() {
	local dir=$1 i sum
	mkdir -p "$dir" || return 1
	for ((i = 0; ; i++)); do
		honest_pause_point
		[ -e /tmp/honest.stop ] && break
		head -c "$HONEST_BYTES" /dev/urandom >/tmp/honest.bin
		sum=$(sha256sum </tmp/honest.bin)
		cp /tmp/honest.bin "$dir/f$i" || return 1
		[ "$(sha256sum <"$dir/f$i")" = "$sum" ] || return 1
		rm -f "$dir/f$i"
	done
	return 0
}

hostile_run() {
	local pid rc=0
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	: >"$MNT/p0-target" && chmod 666 "$MNT/p0-target" || rc=1
	: >"$MNT/p0-many" && chmod 666 "$MNT/p0-many" || rc=1
	honest_io "$MNT/honest" &
	pid=$!
	# The server first reads its gauges with only the honest mount, idle.
	if ! await baseline-taken 300; then
		rc=1
	elif [ "$HOSTILE_STEP" = 1 ]; then
		# One process pauses after each case until the server has looked.
		"$HOSTILE" -w "$HOSTILE_WAIT_MS" -S "$(sync_file '')" -X "$(sync_file abort)" \
			"$SERVER_ADDR" >/results/hostile.txt 2>&1 || rc=1
	else
		"$HOSTILE" -w "$HOSTILE_WAIT_MS" "$SERVER_ADDR" >/results/hostile.txt 2>&1 || rc=1
	fi
	cat /results/hostile.txt
	touch /tmp/honest.stop
	wait "$pid" || { fail "honest client I/O failed during the attack"; rc=1; }
	rm -rf "$MNT/honest"
	p0_target_written || rc=1
	p0_many_written || rc=1
	rm -f "$MNT/p0-target" "$MNT/p0-many"
	nfs_umount || rc=1
	return $rc
}

# Each event the attack must have produced, with the client's address
# copied in; the whole trace is kept with the results.
trace_check() {
	local pat rc=0 peer="peer=${CLIENT_ADDR//./\\.}:[0-9]"
	trace_event_off svcrdma
	cat "$TRACEFS/trace" >/results/svcrdma-trace.txt
	for pat in "svcrdma_accept: $peer.* credits=" \
		"svcrdma_err_sent: $peer.* ERR_VERS" \
		"svcrdma_err_sent: $peer.* ERR_CHUNK" \
		"svcrdma_bad_input: $peer.* closing" \
		"svcrdma_disconnect: $peer" \
		"svcrdma_reply: $peer.* write_bytes="; do
		if grep -m1 -E "$pat" /results/svcrdma-trace.txt; then
			continue
		fi
		fail "no trace event matching '$pat'"
		rc=1
	done
	# bogus-handle's RDMA Read must have been refused.  On soft-RoCE it
	# completes in error.  On soft-iWARP the client's RNIC answers the
	# unknown steering tag with a TERMINATE (RDMAP layer, remote
	# protection error) and the connection ends, which flushes the Read:
	# no completion error, but the TERMINATE in the server's kernel log
	# (seen so on the first siw run, 2026-11-27).
	# Only lines after this test's mark count: in a boot shared with
	# other tests an earlier one may have left such a line.
	if [ "$RDMA_TYPE" = siw ]; then
		pat='siw: got TERMINATE\. layer 0, type 1,'
		dmesg | awk -v m="$HOSTILE_KMSG_MARK" 'on; index($0, m) { on = 1 }' |
			grep -m1 -E "$pat" ||
			{ fail "no kernel line matching '$pat' after '$HOSTILE_KMSG_MARK'"; rc=1; }
	else
		pat="svcrdma_wc_error: $peer.* op=RDMA Read status=[a-z]"
		grep -m1 -E "$pat" /results/svcrdma-trace.txt ||
			{ fail "no trace event matching '$pat'"; rc=1; }
	fi
	# A string the reader may not dereference (another module's) is
	# shown so, and warned about once.
	! grep -m1 UNSAFE /results/svcrdma-trace.txt ||
		fail "a trace event points outside its record" || rc=1
	return $rc
}

# The honest client stops between two rounds while honest-pause is
# signalled, saying so with honest-paused, which it removes once it goes
# on; honest-done means its loop has ended.
#
# honest_pause_wait: 0 once its connection is idle (paused, or done), 1
# if it did not pause within 60 s (times the kernel's time scale).
honest_pause_wait() {
	local i scale=${TIME_SCALE:-1}
	for ((i = 0; i < 600 * scale; i++)); do
		{ signalled honest-paused || signalled honest-done; } && return 0
		signalled abort && break
		sleep 0.1
	done
	fail "the honest client did not pause within $((60 * scale)) s"
	return 1
}

# honest_pause_release: let it go on, and wait until it has, so that the
# next pause never sees this one's honest-paused.
honest_pause_release() {
	local i scale=${TIME_SCALE:-1}
	rm -f "$(sync_file honest-pause)"
	for ((i = 0; i < 300 * scale; i++)); do
		signalled honest-paused || return 0
		signalled honest-done && return 0
		sleep 0.1
	done
	fail "the honest client did not go on within $((30 * scale)) s"
	return 1
}

# The per-case checks below run once per case (41 of them), on the debug
# kernel too, where every fork and exec is slow (KASAN, lockdep): they
# read the gauges with the shell's own read, into associative arrays,
# and fork only to sleep.

# gauges_read ARRAY: every gauge's value now, into the associative array
# named ARRAY.
gauges_read() {
	local -n _into=$1
	local n v
	for n in $SVC_GAUGES; do
		read -r v <"$SVC_STATS/$n" || return 1
		_into["$n"]=$v
	done
}

# gauges_equal A B: the two arrays hold the same value for every gauge.
gauges_equal() {
	local -n _a=$1 _b=$2
	local n
	for n in $SVC_GAUGES; do
		[ "${_a[$n]}" = "${_b[$n]}" ] || return 1
	done
}

# gauges_differ A B: the gauges that differ, as name=A's(B's).
gauges_differ() {
	local -n _a=$1 _b=$2
	local n out=
	for n in $SVC_GAUGES; do
		[ "${_a[$n]-?}" = "${_b[$n]-?}" ] || out+="$n=${_a[$n]-?}(${_b[$n]-?}) "
	done
	echo "${out:-none}"
}

# gauges_save_settled: every gauge into BASE_G once two readings 1 s
# apart agree (an NFSv4 CLOSE may still be on its way out), within 10 s
# (times the time scale); the last reading otherwise, and 1.
declare -gA BASE_G NOW_G
gauges_save_settled() {
	local i n
	local -A prev
	gauges_read BASE_G || return 1
	for ((i = 0; i < 10 * ${TIME_SCALE:-1}; i++)); do
		sleep 1
		prev=()
		# shellcheck disable=SC2034 # read through gauges_equal's nameref
		for n in $SVC_GAUGES; do prev["$n"]=${BASE_G[$n]}; done
		gauges_read BASE_G || return 1
		gauges_equal prev BASE_G && return 0
	done
	return 1
}

# gauges_idle: every gauge as in BASE_G (saved with the honest mount
# alone and idle), within 10 s (times the kernel's time scale): a call the
# honest client made last may still be on its way out.  NOW_G holds the
# last reading.
gauges_idle() {
	local i
	for ((i = 0; i < 20 * ${TIME_SCALE:-1}; i++)); do
		gauges_read NOW_G || return 1
		gauges_equal NOW_G BASE_G && return 0
		sleep 0.5
	done
	return 1
}

# case_freed: the connection a hostile case made is gone: as many
# connections as in BASE_G (the honest mount's, and any an earlier case
# kept), and no connection request pending.
case_freed() {
	local conns pending
	read -r conns <"$SVC_STATS/connections_active" || return 1
	read -r pending <"$SVC_STATS/requests_pending" || return 1
	[ "$conns" = "${BASE_G[connections_active]}" ] &&
		[ "$pending" = "${BASE_G[requests_pending]}" ]
}

# case_check NAME: judge one finished case, the honest client asked to
# pause; its verdict line goes into VERDICT (no subshell: see above).
# Returns 0 for a case that freed everything, 1 for one that kept
# something, 2 when it could not be judged.
case_check() {
	local c=$1 i scale=${TIME_SCALE:-1}
	for ((i = 0; i < CASE_SECONDS * scale; i++)); do
		case_freed && break
		sleep 1
	done
	if ! honest_pause_wait; then
		VERDICT="$c unchecked: the honest client did not pause"
		return 2
	fi
	if ! case_freed; then
		VERDICT="$c kept: $(svc_stats_line)"
		return 1
	fi
	if gauges_idle; then
		VERDICT="$c ok after ${i} s: connections_active=${NOW_G[connections_active]}, every gauge idle"
		return 0
	fi
	VERDICT="$c kept: $(gauges_differ NOW_G BASE_G)"
	return 1
}

# server_case_checks: until the client is done, answer each case the
# hostile client has finished (its file case-NAME) with a verdict line in
# hostile-gauges.txt (case_check), then signal checked-NAME, which lets
# the client go on.  A case that keeps anything fails, and the gauges are
# saved again so that the cases after it are judged against what is
# left: each verdict names its own case.  On the in-tree server, which
# has no gauges, every case is "ok (no gauges)".
CASE_SECONDS=60
server_case_checks() {
	local f c n rc=0 scale=${TIME_SCALE:-1}
	local end=$((SECONDS + 650 * scale)) pre
	pre=$(sync_file case-)
	: >/results/hostile-gauges.txt
	while ! signalled client-done; do
		if signalled abort; then
			fail "peer aborted during the hostile cases"
			return 1
		fi
		if ((SECONDS > end)); then
			fail "the hostile cases did not end within $((650 * scale)) s"
			signal abort
			return 1
		fi
		for f in "$pre"*; do
			[ -e "$f" ] || continue
			c=${f#"$pre"}
			if ! svc_stats_on; then
				VERDICT="$c ok (no gauges)"
			else
				# Asked now, the honest round ends while the
				# case's connection is being freed.
				signal honest-pause
				case_check "$c"
				case $? in
				0) ;;
				1)	fail "the server kept something after case $c: ${VERDICT#* kept: }"
					# Judge the next cases against what is left.
					gauges_save_settled
					rc=1 ;;
				*)	fail "case $c unchecked: the honest client did not pause"
					rc=1 ;;
				esac
				honest_pause_release || rc=1
			fi
			echo "$VERDICT" >>/results/hostile-gauges.txt
			# Answered: the client never reads its file again.
			rm -f "$f"
			signal "checked-$c"
		done
		sleep 0.5
	done
	# Every case the client ran was answered, no more and no fewer.
	n=$(awk '/^hostile: [0-9]+ cases/ { print $2 }' /results/hostile.txt)
	if [ -z "$n" ] || [ "$(wc -l </results/hostile-gauges.txt)" != "$n" ]; then
		fail "hostile ran ${n:-an unknown number of} cases, $(wc -l </results/hostile-gauges.txt) were checked"
		rc=1
	fi
	return $rc
}

test_server() {
	local rc=0
	svc_serve_counted "$IDLE" || return 1
	if svc_stats_on; then
		svcrdma_trace_on svcrdma || { fail "cannot enable the svcrdma tracepoints"; rc=1; }
	fi
	HOSTILE_KMSG_MARK="hostile: attack starts ($EPOCHREALTIME)"
	echo "$HOSTILE_KMSG_MARK" >/dev/kmsg
	signal server-ready
	# Every gauge with only the honest mount, idle: what each case must
	# leave behind (the cases start once this is taken).
	if svc_stats_on && [ "$HOSTILE_STEP" = 1 ]; then
		signal honest-pause
		if honest_pause_wait && gauges_save_settled &&
			honest_pause_release; then
			:
		else
			fail "no baseline of the gauges with the honest mount idle"
			signal abort
			return 1
		fi
	fi
	signal baseline-taken
	# Without our gauges (the in-tree server) the loop still releases
	# the client after each case, but proves nothing: no subtest then.
	if [ "$HOSTILE_STEP" != 1 ]; then
		await client-done 800 || rc=1
	elif svc_stats_on; then
		subtest svcrdma-freed-after-each-case server_case_checks || rc=1
	else
		server_case_checks || rc=1
	fi
	if svc_stats_on; then
		subtest svcrdma-error-counters svc_stats_rose "$IDLE" \
			err_vers_sent err_chunk_sent bad_input_closes \
			connections_accepted calls_received read_turns || rc=1
		subtest svcrdma-idle-after-attack svc_idle_again "$IDLE" "$IDLE_SECONDS" || rc=1
		subtest svcrdma-tracepoints trace_check || rc=1
	fi
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client subtest hostile-cases hostile_run
}
