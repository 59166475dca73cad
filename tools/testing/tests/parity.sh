# SPDX-License-Identifier: GPL-2.0
#
# Parity with TCP (issue 10): the same operations run over TCP and over
# RDMA against the same server, an ext4 export (tmpfs has no user xattrs
# on 6.1), and RDMA must give exactly what TCP gives, case by case: the
# same return of every step and the same bytes.  A case TCP itself fails
# passes if RDMA fails it the same way; TCP's and RDMA's lines are logged
# side by side.  The operations are in parity-ops.py: on NFSv4.2, user
# xattrs from 1 byte to 64 KiB (the inline threshold, page boundaries,
# the largest value NFSv4.2 carries) and 200 xattrs on one file, long
# symlink targets and names, a directory of long names, O_DIRECT and mmap
# I/O at odd sizes, SEEK_DATA/SEEK_HOLE, ALLOCATE and DEALLOCATE, COPY,
# CLONE, a byte-range lock and NFSv4 ACLs of 10 to 400 named users (a
# GETATTR reply past any inline size); on NFSv3, POSIX ACLs of 10 to 1000
# entries (the NFSACL protocol).
TIMEOUT=600
EXPORT_FS=ext4
TCP_MNT=/mnt/tcp

OPS=$(dirname "${BASH_SOURCE[0]}")/parity-ops.py

# parity_run VERS [--acl]: the operations over each transport, then one
# subtest per case comparing the two.
parity_run() {
	local v=$1 mode=${2:-} rc=0 name tcp rdma
	# One mount at a time: two NFSv4 mounts of one server share their
	# superblock, and with it the first mount's transport.
	mkdir -p "$TCP_MNT"
	mount -t nfs -o "vers=$v,proto=tcp" "$SERVER_ADDR:$(export_path "$v")" "$TCP_MNT" ||
		fail "mount vers=$v over TCP failed" || return 1
	mkdir -p "$TCP_MNT/tcp"
	# shellcheck disable=SC2086
	python3 "$OPS" $mode "$TCP_MNT/tcp" >/tmp/parity.tcp 2>&1 || rc=1
	rmdir "$TCP_MNT/tcp"
	umount "$TCP_MNT" || { fail "umount of the TCP mount failed"; return 1; }
	nfs_mount "$v" || return 1
	mkdir -p "$MNT/rdma"
	# shellcheck disable=SC2086
	python3 "$OPS" $mode "$MNT/rdma" >/tmp/parity.rdma 2>&1 || rc=1
	rmdir "$MNT/rdma"
	nfs_umount || rc=1
	paste -d'|' /tmp/parity.tcp /tmp/parity.rdma | sed 's/^/tcp|rdma: /'
	while read -r name tcp; do
		rdma=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/^ /, ""); print }' /tmp/parity.rdma)
		subtest "parity-nfs$v-$name" parity_same "$name" "$tcp" "$rdma" || rc=1
	done </tmp/parity.tcp
	return $rc
}

parity_same() {
	[ "$2" = "$3" ] || fail "$1: over TCP '$2', over RDMA '$3'"
}

test_server() {
	serve_nfs 500
}

test_client() {
	as_client parity_client
}

parity_client() {
	local rc=0
	nfs_client_prepare || return 1
	parity_run 4.2 || rc=1
	parity_run 3 --acl || rc=1
	return $rc
}
