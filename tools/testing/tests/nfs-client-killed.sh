# SPDX-License-Identifier: GPL-2.0
#
# A client VM dies mid-write (the host kills its QEMU process: RESPAWN=1)
# and a second client boots on the same link.  The second client must be
# served, and the server must eventually drop the dead client's RDMA
# connection: its connected rdma_cm ids return to what they were before
# the first client came.
TIMEOUT=900
RESPAWN=1
DEAD_PEER_SECONDS=${DEAD_PEER_SECONDS:-300}


killed_server() {
	local base i rc=0
	base=$(rdma_connections)
	log "connected cm_ids before any client: $base"
	signal server-ready
	await client-killed 600 || return 1
	log "client killed; connected cm_ids: $(rdma_connections)"
	rdma resource show cm_id
	await client2-done 600 || rc=1
	for ((i = 0; i < DEAD_PEER_SECONDS; i++)); do
		[ "$(rdma_connections)" -le "$base" ] && break
		sleep 1
	done
	log "after ${i} s: connected cm_ids $(rdma_connections), base $base"
	rdma resource show cm_id
	[ "$(rdma_connections)" -le "$base" ] ||
		fail "the dead client's connection is still held after $DEAD_PEER_SECONDS s" || rc=1
	return $rc
}

test_server() {
	local rc=0
	nfs_serve_prepared || { signal abort; return 1; }
	subtest dead-client-freed killed_server || rc=1
	nfs_server_stop || rc=1
	return $rc
}

# The first client: start a long write, then ask the host to kill us.
test_client() {
	await server-ready 300 || return 1
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	dd if=/dev/urandom of="$MNT/doomed" bs=1M count=256 status=none &
	sleep 5
	log "writing; asking the host to kill this VM"
	signal kill-client
	sleep 600
}

second_client() {
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
