# SPDX-License-Identifier: GPL-2.0
#
# An idle client dies (the host kills its QEMU process: RESPAWN=1) with
# nothing in flight, so no failing RDMA operation can tell the server.
# svcrdma's keepalive probe (a zero-length RDMA Write every 30 s) must
# find the dead peer and drop the connection within DEAD_PEER_SECONDS,
# long before nfsd would age the transport out; a second client on the
# same link must be served meanwhile.
TIMEOUT=600
RESPAWN=1
DEAD_PEER_SECONDS=${DEAD_PEER_SECONDS:-120}


idle_dead_freed() {
	local i
	await client-killed 300 || return 1
	log "idle client killed; connected cm_ids: $(rdma_connections)"
	await client2-done 300 || return 1
	for ((i = 0; i < DEAD_PEER_SECONDS; i++)); do
		[ "$(rdma_connections)" -eq 0 ] && break
		sleep 1
	done
	log "after ${i} s more: connected cm_ids $(rdma_connections)"
	[ "$(rdma_connections)" -eq 0 ] ||
		fail "the dead client's connection is still held after $DEAD_PEER_SECONDS s"
}

test_server() {
	local rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	subtest idle-dead-client-freed idle_dead_freed || rc=1
	nfs_server_stop || rc=1
	return $rc
}

# The first client mounts, goes quiet, and asks the host to kill it.
test_client() {
	await server-ready 300 || return 1
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	ls "$MNT" >/dev/null
	sleep 3
	log "idle; asking the host to kill this VM"
	signal kill-client
	sleep 600
}

second_client() {
	nfs_client_prepare || return 1
	nfs_mount 3 || return 1
	ls "$MNT" >/dev/null || return 1
	nfs_umount
}

test_client2() {
	subtest second-client-served second_client
	local rc=$?
	signal client2-done
	return $rc
}
