# SPDX-License-Identifier: GPL-2.0
#
# The client transport survives the server going away mid-I/O: the server
# restarts knfsd (closing every RDMA connection) while the client writes a
# file; the client must reconnect, retransmit, and the file must read back
# intact after a remount.  With our client, its reconnect backoff is also
# checked: each restart comes after a connection that carried replies and
# lasted, so the first reconnect after it must be scheduled at once,
# however long the failed attempts of the restart before it made the
# backoff grow.
TIMEOUT=900
RECONNECT_VERSIONS=${RECONNECT_VERSIONS:-"3 4.1"}
BACKOFF_RESTARTS=3

# await_either A B SECONDS: until the peer signals A or B.
await_either() {
	local i
	for ((i = 0; i < $3 * ${TIME_SCALE:-1}; i++)); do
		{ signalled "$1" || signalled "$2"; } && return 0
		signalled abort && { fail "peer aborted while waiting for $1"; return 1; }
		sleep 1
	done
	fail "timed out waiting for $1"
}

reconnect_one() {
	local v=$1 f=/tmp/reconnect.bin pid rc=0
	nfs_mount "$v" || return 1
	head -c 33554432 /dev/urandom >"$f"
	cp "$f" "$MNT/reconnect$v" &
	pid=$!
	sleep 1
	signal "restart-$v"
	await "restarted-$v" 120 || rc=1
	wait $pid || { fail "write across the restart failed"; rc=1; }
	sync
	grep -E '^[[:space:]]*xprt:' /proc/self/mountstats | sed 's/^/mountstats: /'
	nfs_umount || return 1
	echo 3 >/proc/sys/vm/drop_caches
	nfs_mount "$v" || return 1
	cmp "$f" "$MNT/reconnect$v" || { fail "file differs after reconnect"; rc=1; }
	rm -f "$MNT/reconnect$v"
	nfs_umount || rc=1
	return $rc
}

# Our client traces every connection attempt it queues with its delay.
# NFSv3, so that no grace period stretches the restarts.
backoff_check() {
	local ev=xprtrdma/xprtrdma_connect_scheduled
	local out=/tmp/backoff.trace i pid rc=0
	trace_event_on $ev || return 1
	nfs_mount 3 || return 1
	: >$TRACEFS/trace
	for ((i = 1; i <= BACKOFF_RESTARTS; i++)); do
		# Replies on this connection before the server goes away.
		head -c 1048576 /dev/urandom >"$MNT/backoff" && sync ||
			{ fail "write before restart $i failed"; rc=1; }
		# Replies reset the backoff only on a connection that has
		# lasted 3 s (XPRTRDMA_INIT_REEST_TO): this one has come up
		# moments ago, at the end of the restart before.
		sleep 4
		echo "backoff-restart-$i" >$TRACEFS/trace_marker
		# Calls kept in flight through the outage make the client try,
		# and fail, to reconnect while nfsd is down: the backoff grows.
		rm -f /tmp/backoff.stop
		(while [ ! -e /tmp/backoff.stop ]; do
			timeout -s KILL 300 dd if=/dev/zero of="$MNT/backoff" \
				bs=65536 count=1 conv=fsync status=none || exit 1
		done) &
		pid=$!
		signal "backoff-restart-$i"
		await "backoff-restarted-$i" 120 || rc=1
		touch /tmp/backoff.stop
		wait $pid || { fail "write across restart $i failed"; rc=1; }
		[ $rc = 0 ] || break
	done
	trace_event_off $ev
	grep -E 'tracing_mark_write: backoff-restart-|xprtrdma_connect_scheduled:' \
		$TRACEFS/trace >$out
	sed 's/^/trace: /' $out | tail -n 20
	# After each marker, the first attempt queued waits 0 ms.
	awk -v n=$BACKOFF_RESTARTS '
		/tracing_mark_write/ { m++; first = 1; next }
		m && first {
			first = 0; seen++
			if ($0 !~ /delay_ms=0 /) { bad++; print "late: " $0 }
		}
		END {
			if (seen != n || bad) {
				printf "%d of %d restarts reconnected at once\n", \
					seen - bad, n
				exit 1
			}
		}' $out || { fail "a reconnect after useful traffic waited"; rc=1; }
	rm -f "$MNT/backoff"
	nfs_umount || rc=1
	return $rc
}

reconnect_client() {
	local v rc=0
	nfs_client_prepare || return 1
	for v in $RECONNECT_VERSIONS; do
		subtest "nfs$v-reconnect" reconnect_one "$v" || rc=1
	done
	if [ "$CLIENT_TRANSPORT" = ours ]; then
		subtest reconnect-backoff-reset backoff_check || rc=1
	fi
	return $rc
}

test_server() {
	local v i rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	for v in $RECONNECT_VERSIONS; do
		await "restart-$v" 300 || { rc=1; break; }
		nfsd_restart || rc=1
		signal "restarted-$v"
	done
	if [ "$CLIENT_TRANSPORT" = ours ]; then
		# Until the client asks for every restart, or gives up.
		for ((i = 1; i <= BACKOFF_RESTARTS; i++)); do
			await_either "backoff-restart-$i" client-done 300 ||
				{ rc=1; break; }
			signalled client-done && break
			# Without nfsd the client's writes would wait for ever.
			nfsd_restart || { fail "nfsd restart failed"; signal abort; rc=1; break; }
			signal "backoff-restarted-$i"
		done
	fi
	await client-done 600 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client reconnect_client
}
