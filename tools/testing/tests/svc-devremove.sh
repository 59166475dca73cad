# SPDX-License-Identifier: GPL-2.0
#
# RDMA device removal under a live NFS/RDMA mount.  While the client has
# a v4.1 mount open, the server deletes its rxe device: svcrdma's
# ib_client must close every connection on it and give back its PD, CQs
# and QPs so the removal completes (it hangs otherwise).  The device is
# then added back; the wildcard listener follows it, the client
# reconnects on its own and reads its file back intact.

TIMEOUT=600

remove_device() {
	timeout 90 rdma link delete rxe0 || { fail "rdma link delete failed or hung"; return 1; }
	log "rxe0 removed: $(dmesg | grep -c 'svcrdma: rxe0 removed') svcrdma notice(s)"
}

add_device() {
	local i
	rdma link add rxe0 type rxe netdev eth0 || return 1
	for ((i = 0; i < 50; i++)); do
		rdma link show rxe0/1 2>/dev/null | grep -q 'state ACTIVE' && return 0
		sleep 0.2
	done
	fail "rxe0 did not come back ACTIVE"
}

test_server() {
	local rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	if await client-mounted 300; then
		subtest rxe-remove-under-mount remove_device || rc=1
		subtest rxe-add-back add_device || rc=1
	else
		rc=1
	fi
	signal device-back
	await client-done 400 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

write_file() {
	nfs_mount 4.1 || return 1
	head -c 200000 /dev/urandom >/tmp/devfile
	cp /tmp/devfile "$MNT/devfile" && sync || { fail "write failed"; return 1; }
}

read_back() {
	timeout 200 cmp /tmp/devfile "$MNT/devfile" || { fail "read back after reconnect failed"; return 1; }
}

test_client() {
	local rc=0
	await server-ready 300 || return 1
	nfs_client_prepare || rc=1
	subtest nfs4.1-write write_file || rc=1
	signal client-mounted
	await device-back 300 || rc=1
	subtest nfs4.1-read-after-reconnect read_back || rc=1
	rm -f "$MNT/devfile"
	nfs_umount || rc=1
	signal client-done
	return $rc
}
