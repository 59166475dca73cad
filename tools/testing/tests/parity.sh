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
# entries (the NFSACL protocol).  On NFSv4.2 also a read delegation: the
# client holds a file open for reading, the server writes it locally,
# and the recall (CB_RECALL on the backchannel, RFC 8167 over RDMA) must
# end as over TCP: the delegation granted, returned, the write seen.
TIMEOUT=600
EXPORT_FS=ext4
TCP_MNT=/mnt/tcp
# What the delegation case prints when all went as it should.
DELEG_OK="granted=yes recalled=yes returned=yes seen=1"

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
	python3 "$OPS" $mode "$TCP_MNT/tcp" >/tmp/parity.tcp 2>&1 ||
		{ fail "parity-ops.py over TCP exited with $?"; rc=1; }
	[ "$v" = 3 ] || deleg_case "$TCP_MNT" tcp >>/tmp/parity.tcp
	rmdir "$TCP_MNT/tcp"
	umount "$TCP_MNT" || { fail "umount of the TCP mount failed"; return 1; }
	nfs_mount "$v" || return 1
	mkdir -p "$MNT/rdma"
	# shellcheck disable=SC2086
	python3 "$OPS" $mode "$MNT/rdma" >/tmp/parity.rdma 2>&1 ||
		{ fail "parity-ops.py over RDMA exited with $?"; rc=1; }
	[ "$v" = 3 ] || deleg_case "$MNT" rdma >>/tmp/parity.rdma
	rmdir "$MNT/rdma"
	nfs_umount || rc=1
	paste -d'|' /tmp/parity.tcp /tmp/parity.rdma | sed 's/^/tcp|rdma: /'
	while read -r name tcp; do
		rdma=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/^ /, ""); print }' /tmp/parity.rdma)
		subtest "parity-nfs$v-$name" parity_same "$name" "$tcp" "$rdma" || rc=1
	done </tmp/parity.tcp
	# The delegation case proves the backchannel only where TCP shows a
	# delegation granted and recalled: anything less there, and RDMA
	# failing the same way would pass as parity.
	[ "$v" = 3 ] || subtest "parity-nfs$v-deleg-tcp-reference" \
		grep -qx "deleg $DELEG_OK" /tmp/parity.tcp || rc=1
	return $rc
}

parity_same() {
	[ "$2" = "$3" ] || fail "$1: over TCP '$2', over RDMA '$3'"
}

# deleg_case MNT T: the client's half of the delegation case over
# transport T (tcp or rdma), printed as parity-ops.py prints a case: the
# server's findings, whether the client returned the delegation, and
# whether it then reads the server's write.
deleg_case() {
	local m=$1 t=$2 f=$1/parity-deleg-$2 before n=0 i verdict
	await "deleg-$t-ready" 120 || { echo "deleg no-server"; return; }
	exec 3<"$f" || { echo "deleg open-failed"; return; }
	cat <&3 >/dev/null
	before=$(delegreturns "$m")
	signal "deleg-$t-open"
	if await "deleg-$t-written" 120; then
		for ((i = 0; i < 30; i++)); do
			n=$(delegreturns "$m")
			[ "${n:-0}" -gt "${before:-0}" ] && break
			sleep 1
		done
		sync_path "deleg-$t-verdict"
		verdict=$(<"$SYNC_PATH")
		echo "deleg $verdict returned=$([ "${n:-0}" -gt "${before:-0}" ] && echo yes || echo no)" \
			"seen=$(grep -c changed "$f")"
	else
		echo "deleg no-recall"
	fi
	exec 3<&-
}

# deleg_serve: the server's half, for TCP and then RDMA: once the client
# holds the file open, whether knfsd granted it a delegation, then a local
# write, which must wait for the recall (a lease of 10 s runs out after
# 10 s: a recall that worked is faster) and leave no delegation behind.
deleg_serve() {
	local t verdict
	# knfsd grants no delegations in its grace period (10 s here).
	sleep 15
	for t in tcp rdma; do
		signal "deleg-$t-ready"
		await "deleg-$t-open" 400 || return 1
		verdict=$(nfsd_recall_by_write "$EXPORT_DIR/parity-deleg-$t")
		log "deleg over $t: $verdict"
		sync_path "deleg-$t-verdict"
		echo "$verdict" >"$SYNC_PATH"
		signal "deleg-$t-written"
	done
}

# Created here, not by the client: knfsd refuses a read lease on a file
# open for write, and its file cache would keep a client's write-open.
server_prepare() {
	local t
	for t in tcp rdma; do
		echo original >"$EXPORT_DIR/parity-deleg-$t" || return 1
	done
}

test_server() {
	local rc=0 pid
	nfs_serve_prepared || { signal abort; return 1; }
	deleg_serve &
	pid=$!
	signal server-ready
	await client-done 500 || rc=1
	kill "$pid" 2>/dev/null
	wait "$pid" || log "the server's half of the delegation case ended with $?"
	nfs_server_stop || rc=1
	return $rc
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
