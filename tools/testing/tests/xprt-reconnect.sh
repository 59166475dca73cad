# SPDX-License-Identifier: GPL-2.0
#
# The client transport survives the server going away mid-I/O: the server
# restarts knfsd (closing every RDMA connection) while the client writes a
# file; the client must reconnect, retransmit, and the file must read back
# intact after a remount.
TIMEOUT=900
RECONNECT_VERSIONS=${RECONNECT_VERSIONS:-"3 4.1"}

restart_nfsd() {
	rpc.nfsd 0 || return 1
	sleep 3
	rpc.nfsd 8 || return 1
	echo "rdma $NFS_PORT" >/proc/fs/nfsd/portlist
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

reconnect_client() {
	local v rc=0
	nfs_client_prepare || return 1
	for v in $RECONNECT_VERSIONS; do
		subtest "nfs$v-reconnect" reconnect_one "$v" || rc=1
	done
	return $rc
}

test_server() {
	local v rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	for v in $RECONNECT_VERSIONS; do
		await "restart-$v" 300 || { rc=1; break; }
		restart_nfsd || rc=1
		signal "restarted-$v"
	done
	await client-done 600 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client reconnect_client
}
