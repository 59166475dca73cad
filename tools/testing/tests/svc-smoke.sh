# SPDX-License-Identifier: GPL-2.0
#
# Quick svcrdma check: NFSv4.1 and NFSv3 over RDMA, a directory listing and
# a small and a medium file written, caches dropped, read back and compared.
# Meant for fast iteration on the server transport; nfs-files is the suite.

TIMEOUT=600

smoke() {
	local v=$1 d
	nfs_mount "$v" || return 1
	d=$MNT/smoke$v
	rm -rf "$d"
	mkdir "$d" || { nfs_umount; return 1; }
	ls -la "$MNT" >/dev/null || { fail "ls failed"; nfs_umount; return 1; }
	echo "hello over rdma" >"$d/small" || { fail "small write failed"; nfs_umount; return 1; }
	head -c 300000 /dev/urandom >/tmp/medium
	cp /tmp/medium "$d/medium" || { fail "medium write failed"; nfs_umount; return 1; }
	sync
	nfs_umount || return 1
	echo 3 >/proc/sys/vm/drop_caches
	nfs_mount "$v" || return 1
	[ "$(cat "$d/small")" = "hello over rdma" ] || { fail "small read back differs"; nfs_umount; return 1; }
	cmp /tmp/medium "$d/medium" || { fail "medium read back differs"; nfs_umount; return 1; }
	rm -rf "$d"
	nfs_umount
}

run_smoke() {
	nfs_client_prepare || return 1
	subtest nfs4.1-smoke smoke 4.1 || return 1
	subtest nfs3-smoke smoke 3
}

test_server() {
	local rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	await client-done 500 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	local rc=0
	await server-ready 300 || return 1
	run_smoke || rc=1
	signal client-done
	return $rc
}
