# SPDX-License-Identifier: GPL-2.0
#
# A client VM dies mid-write (the host kills its QEMU process: RESPAWN=1)
# and a second client boots on the same link.  The server must drop the
# dead client's RDMA connection: its connected rdma_cm ids return to what
# they were before the first client came and, on our server, so do the
# svcrdma gauges (connections, credits, contexts, memory).  Only then does
# the second client mount, and it must be served; once it unmounts, the
# gauges must be back at idle again.
TIMEOUT=900
RESPAWN=1
DEAD_PEER_SECONDS=${DEAD_PEER_SECONDS:-300}
# An orderly unmount disconnects at once; this only bounds a hang.
UNMOUNT_FREE_SECONDS=${UNMOUNT_FREE_SECONDS:-120}

# shellcheck source=tools/testing/tests/svcrdma-stats.inc
. "$(dirname "${BASH_SOURCE[0]}")/svcrdma-stats.inc"

IDLE=/tmp/svcrdma.idle
WRITING=/tmp/svcrdma.writing

# idle_again BASE SECONDS: wait until the cm_ids and (ours) the gauges are
# back where they were before any client; true if they got there.
idle_again() {
	local base=$1 i
	for ((i = 0; i < $2; i++)); do
		if [ "$(rdma_connections)" -le "$base" ] &&
			{ ! svc_stats_on || svc_gauges_at "$IDLE"; }; then
			log "idle again after ${i} s: cm_ids $(rdma_connections) (base $base); $(svc_stats_line)"
			return 0
		fi
		sleep 1
	done
	log "not idle after ${i} s: cm_ids $(rdma_connections) (base $base); $(svc_stats_line)"
	rdma resource show cm_id
	[ "$(rdma_connections)" -le "$base" ] ||
		fail "the connection is still held after $2 s"
	if svc_stats_on; then
		svc_gauges_report "$IDLE"
	fi
	return 1
}

killed_server() {
	local n rc=0
	BASE=$(rdma_connections)
	if svc_stats_on; then
		svc_stats_save "$IDLE" || { signal abort; return 1; }
	fi
	log "before any client: cm_ids $BASE; $(svc_stats_line)"
	signal server-ready
	await client-writing 600 || return 1
	# One quick pass, then let the client go on to be killed mid-write;
	# the values are checked afterwards.
	if svc_stats_on; then
		svc_stats_save "$WRITING" || rc=1
	fi
	signal server-sampled
	log "client writing: cm_ids $(rdma_connections); $(svc_stats_line)"
	if svc_stats_on; then
		for n in $SVC_CONN_GAUGES connections_accepted calls_received; do
			svc_saved_rose "$IDLE" "$WRITING" "$n" || rc=1
		done
	fi
	await client-killed 600 || return 1
	log "client killed; cm_ids $(rdma_connections); $(svc_stats_line)"
	rdma resource show cm_id
	idle_again "$BASE" "$DEAD_PEER_SECONDS" || rc=1
	return $rc
}

unmounted_server() {
	await client2-done 600 || return 1
	idle_again "$BASE" "$UNMOUNT_FREE_SECONDS"
}

test_server() {
	local rc=0
	nfs_serve_prepared || { signal abort; return 1; }
	subtest dead-client-freed killed_server || rc=1
	# The second client waits for this either way; on failure it still
	# shows whether a new client can be served.
	signal server-freed
	subtest unmounted-client-freed unmounted_server || rc=1
	nfs_server_stop || rc=1
	return $rc
}

# The first client: start a long write, let the server look at it, then
# ask the host to kill us, and record that the write was still going: a
# write that had finished would make this an idle client's death.
test_client() {
	local pid
	await server-ready 300 || return 1
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	dd if=/dev/urandom of="$MNT/doomed" bs=1M count=400 status=none &
	pid=$!
	sleep 2
	signal client-writing
	await server-sampled 120
	subtest killed-mid-write kill -0 "$pid"
	log "writing; asking the host to kill this VM"
	signal kill-client
	sleep 600
}

second_client() {
	await server-freed "$((DEAD_PEER_SECONDS + 120))" || return 1
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	head -c 16777216 /dev/urandom >/tmp/after.bin
	cp /tmp/after.bin "$MNT/after" || return 1
	nfs_umount || return 1
	echo 3 >/proc/sys/vm/drop_caches
	nfs_mount 4.1 || return 1
	cmp /tmp/after.bin "$MNT/after" || fail "second client's data differs" || return 1
	rm -f "$MNT/after" "$MNT/doomed"
	nfs_umount
}

test_client2() {
	subtest second-client-served second_client
	local rc=$?
	signal client2-done
	return $rc
}
