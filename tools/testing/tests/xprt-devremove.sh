# SPDX-License-Identifier: GPL-2.0
#
# Removing the RDMA device under a live mount disconnects the client
# transport cleanly (no hang, no leak); once a device is back the mount
# reconnects and the data is still there.
TIMEOUT=600

devremove_client() {
	local f=/tmp/devremove.bin v=4.1
	nfs_client_prepare || return 1
	nfs_mount "$v" || return 1
	head -c 4194304 /dev/urandom >"$f"
	cp "$f" "$MNT/devremove" && sync || { nfs_umount; fail "write"; return 1; }
	rdma link delete rxe0 || { nfs_umount; fail "rdma link delete"; return 1; }
	log "rxe0 removed: $(rdma link show 2>&1 | tr '\n' ' ')"
	rdma link add rxe0 type rxe netdev eth0 || { fail "rdma link add"; return 1; }
	local i
	for ((i = 0; i < 50; i++)); do
		rdma link show rxe0/1 2>/dev/null | grep -q 'state ACTIVE' && break
		sleep 0.2
	done
	echo 3 >/proc/sys/vm/drop_caches
	cmp "$f" "$MNT/devremove" || { nfs_umount; fail "data differs after device came back"; return 1; }
	rm -f "$MNT/devremove"
	nfs_umount
}

test_server() {
	serve_nfs 500
}

test_client() {
	as_client subtest devremove devremove_client
}
