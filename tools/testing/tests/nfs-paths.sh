# SPDX-License-Identifier: GPL-2.0
#
# Each RPC-over-RDMA path forced and confirmed from the client transport's
# own counters (the xprt line of /proc/self/mountstats, whose fields our
# client keeps where the in-tree client has them): inline calls, a Read
# chunk (O_DIRECT WRITE), a Write chunk (O_DIRECT READ) and a Reply chunk
# (a 2000-entry READDIR).  RDMA_NOMSG is not here yet: the large non-DDP
# call we tried (an NFSv3 SETACL of 400 entries) fails with EIO against the
# in-tree server from either client, inline-sized ones pass.
TIMEOUT=600

# Positions on the xprt line, counting from the first number after "rdma".
F_SENDS=6
F_READ_CHUNKS=11
F_WRITE_CHUNKS=12
F_REPLY_CHUNKS=13

server_prepare() {
	local i
	mkdir -p "$EXPORT_DIR/paths/dir"
	for ((i = 0; i < 2000; i++)); do
		: >"$EXPORT_DIR/paths/dir/entry-number-$i-with-a-longish-name"
	done
	echo small >"$EXPORT_DIR/paths/small"
	chmod -R a+rwX "$EXPORT_DIR/paths"
}

xprt_field() {
	awk -v m="$MNT" -v n="$1" '
		$1 == "device" { cur = ($5 == m) }
		cur && $1 == "xprt:" && $2 == "rdma" { print $(n + 2); exit }
	' /proc/self/mountstats
}

# rises FIELD NAME CMD...: CMD must move counter FIELD.
rises() {
	local field=$1 name=$2 before after
	shift 2
	before=$(xprt_field "$field")
	"$@" || fail "$name: the operation itself failed" || return 1
	after=$(xprt_field "$field")
	log "$name: field $field went from $before to $after"
	[ -n "$before" ] && [ "$after" -gt "$before" ] ||
		fail "$name: counter $field did not move ($before -> $after)"
}

op_getattr() {
	echo 3 >/proc/sys/vm/drop_caches
	stat "$MNT/paths/small" >/dev/null
}

op_direct_write() {
	head -c 1048576 /dev/urandom >/tmp/paths.bin
	dd if=/tmp/paths.bin of="$MNT/paths/big" bs=1M oflag=direct status=none
}

op_direct_read() {
	dd if="$MNT/paths/big" of=/tmp/paths.back bs=1M iflag=direct status=none &&
		cmp /tmp/paths.bin /tmp/paths.back
}

op_readdir() {
	echo 3 >/proc/sys/vm/drop_caches
	[ "$(ls "$MNT/paths/dir" | wc -l)" = 2000 ]
}

paths_version() {
	local v=$1 rc=0
	nfs_mount "$v" || return 1
	subtest "nfs$v-inline" rises $F_SENDS inline op_getattr || rc=1
	subtest "nfs$v-read-chunk" rises $F_READ_CHUNKS "read chunk" op_direct_write || rc=1
	subtest "nfs$v-write-chunk" rises $F_WRITE_CHUNKS "write chunk" op_direct_read || rc=1
	subtest "nfs$v-reply-chunk" rises $F_REPLY_CHUNKS "reply chunk" op_readdir || rc=1
	rm -f "$MNT/paths/big"
	nfs_umount || rc=1
	return $rc
}

paths_client() {
	local rc=0
	nfs_client_prepare || return 1
	paths_version 3 || rc=1
	paths_version 4.1 || rc=1
	return $rc
}

test_single() {
	local_nfs paths_client
}

test_server() {
	serve_nfs 500
}

test_client() {
	as_client paths_client
}
