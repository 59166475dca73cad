# SPDX-License-Identifier: GPL-2.0
#
# Every RPC-over-RDMA path on a recorded link: small inline calls, NFS
# WRITE and READ payloads (Read and Write chunks), a long directory
# listing (Reply chunk), a long symlink target.  The host then requires
# tshark to decode every message with nothing malformed (CAPTURE=1).
TIMEOUT=600
CAPTURE=1

# Keep the capture small: it is decoded three times on the host.
exercise() {
	local v=$1 d i
	nfs_mount "$v" || return 1
	d=$MNT/cap$v
	mkdir -p "$d" || return 1
	echo hello >"$d/small" || return 1
	head -c 1048577 /dev/urandom >/tmp/cap.bin
	cp /tmp/cap.bin "$d/big" || return 1
	mkdir "$d/dir"
	for ((i = 0; i < 600; i++)); do : >"$d/dir/entry-with-a-long-name-$i"; done
	ln -s "$(printf 'x%.0s' $(seq 1 1000))" "$d/link" || return 1
	nfs_umount || return 1
	echo 3 >/proc/sys/vm/drop_caches
	nfs_mount "$v" || return 1
	[ "$(cat "$d/small")" = hello ] || fail "small file differs" || return 1
	cmp /tmp/cap.bin "$d/big" || fail "1 MiB file differs" || return 1
	[ "$(ls "$d/dir" | wc -l)" = 600 ] || fail "directory listing short" || return 1
	[ "$(readlink "$d/link" | wc -c)" = 1001 ] || fail "symlink target wrong" || return 1
	rm -rf "$d"
	nfs_umount
}

capture_run() {
	nfs_client_prepare || return 1
	subtest nfs3-paths exercise 3 && subtest nfs4.1-paths exercise 4.1
}

test_server() {
	serve_nfs 500
}

test_client() {
	as_client capture_run
}
