# SPDX-License-Identifier: GPL-2.0
#
# A hostile client (tools/testing/hostile) throws malformed RPC-over-RDMA
# messages at the server while an honest client keeps verified I/O going
# on an NFS mount of the same server.  One well-formed but rare message
# goes with them: an RDMA_NOMSG WRITE whose data is a Read chunk beside
# the Position-zero chunk, whose bytes are then read back and compared.  Every hostile case must get the
# protocol's error reply or a closed connection, the honest I/O must finish
# and verify, and (through the harness) neither kernel may splat.  On our
# server the counters must show the ERR_VERS, ERR_CHUNK and closes it
# answered with, and its gauges must come back to idle afterwards; its
# tracepoints must have recorded the accepts, the errors (the bogus-handle
# case makes an RDMA Read fail) and the replies.
TIMEOUT=900
IDLE_SECONDS=120

# shellcheck source=tools/testing/tests/svcrdma-stats.inc
. "$(dirname "${BASH_SOURCE[0]}")/svcrdma-stats.inc"
IDLE=/tmp/svcrdma.idle
TRACEFS=/sys/kernel/tracing

# honest_io DIR ROUNDS: write, re-read and compare files until told to stop.
honest_io() {
	local dir=$1 i sum
	mkdir -p "$dir" || return 1
	for ((i = 0; i < $2; i++)); do
		head -c 4194304 /dev/urandom >/tmp/honest.bin
		sum=$(sha256sum </tmp/honest.bin)
		cp /tmp/honest.bin "$dir/f$i" || return 1
		[ "$(sha256sum <"$dir/f$i")" = "$sum" ] || return 1
		rm -f "$dir/f$i"
		[ -e /tmp/honest.stop ] && break
	done
	return 0
}

HOSTILE=$(dirname "${BASH_SOURCE[0]}")/../hostile/build/hostile

# p0_target_written: the file nomsg-data-chunk WRITEs (its data in a Read
# chunk beside the Position-zero chunk) holds exactly the bytes sent, as
# read back through the honest mount.
p0_target_written() {
	echo 3 >/proc/sys/vm/drop_caches
	cmp <("$HOSTILE" -D) "$MNT/p0-target" ||
		fail "p0-target does not hold what nomsg-data-chunk wrote"
}

hostile_run() {
	local pid rc=0
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	: >"$MNT/p0-target" && chmod 666 "$MNT/p0-target" || rc=1
	honest_io "$MNT/honest" 1000 &
	pid=$!
	"$HOSTILE" "$SERVER_ADDR" >/results/hostile.txt 2>&1 || rc=1
	cat /results/hostile.txt
	touch /tmp/honest.stop
	wait "$pid" || { fail "honest client I/O failed during the attack"; rc=1; }
	rm -rf "$MNT/honest"
	p0_target_written || rc=1
	rm -f "$MNT/p0-target"
	nfs_umount || rc=1
	return $rc
}

trace_on() {
	mountpoint -q "$TRACEFS" || mount -t tracefs nodev "$TRACEFS" || return 1
	echo 4096 >"$TRACEFS/buffer_size_kb" || return 1
	: >"$TRACEFS/trace"
	echo 1 >"$TRACEFS/events/svcrdma/enable"
}

# Each event the attack must have produced, with the client's address
# copied in; the whole trace is kept with the results.
trace_check() {
	local pat rc=0 peer="peer=${CLIENT_ADDR//./\\.}:[0-9]"
	echo 0 >"$TRACEFS/events/svcrdma/enable"
	cat "$TRACEFS/trace" >/results/svcrdma-trace.txt
	for pat in "svcrdma_accept: $peer.* credits=" \
		"svcrdma_err_sent: $peer.* ERR_VERS" \
		"svcrdma_err_sent: $peer.* ERR_CHUNK" \
		"svcrdma_bad_input: $peer.* closing" \
		"svcrdma_disconnect: $peer" \
		"svcrdma_wc_error: $peer.* op=RDMA Read status=[a-z]" \
		"svcrdma_reply: $peer.* write_bytes="; do
		if grep -m1 -E "$pat" /results/svcrdma-trace.txt; then
			continue
		fi
		fail "no trace event matching '$pat'"
		rc=1
	done
	# A string the reader may not dereference (another module's) is
	# shown so, and warned about once.
	! grep -m1 UNSAFE /results/svcrdma-trace.txt ||
		fail "a trace event points outside its record" || rc=1
	return $rc
}

test_server() {
	local rc=0
	svc_serve_counted "$IDLE" || return 1
	if svc_stats_on; then
		trace_on || { fail "cannot enable the svcrdma tracepoints"; rc=1; }
	fi
	signal server-ready
	await client-done 800 || rc=1
	if svc_stats_on; then
		subtest svcrdma-error-counters svc_stats_rose "$IDLE" \
			err_vers_sent err_chunk_sent bad_input_closes \
			connections_accepted calls_received || rc=1
		subtest svcrdma-idle-after-attack svc_idle_again "$IDLE" "$IDLE_SECONDS" || rc=1
		subtest svcrdma-tracepoints trace_check || rc=1
	fi
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client subtest hostile-cases hostile_run
}
