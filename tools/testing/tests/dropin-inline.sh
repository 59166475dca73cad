# SPDX-License-Identifier: GPL-2.0
#
# Drop-in: the client's inline sysctls at both ends of their range.  With
# sunrpc.rdma_max_inline_read above what the server sends inline (RFC 8797
# private data), a reply larger than the server's send size but smaller
# than our receive buffers must still get a Reply chunk: the client has to
# use the smaller of the two sizes in each direction.  At the lower bound
# (1024) nearly every reply and many calls need chunks.  Mounted with
# rsize=8192, so that directory listings come back in READDIR replies of
# up to 8 KiB: medium replies, larger than a 4 KiB inline send and smaller
# than a 16 KiB receive buffer.  Files around each size and a long symlink
# target are written, read back and compared, on NFSv3 and NFSv4.2.

TIMEOUT=1500
LISTING_ENTRIES=600
INLINE_SIZES="16384 1024"
SIZES="1000 3000 4000 4097 6000 9000 12000 16384 20000"

server_prepare() {
	local i
	mkdir -p "$EXPORT_DIR/listing"
	for ((i = 0; i < LISTING_ENTRIES; i++)); do
		: >"$EXPORT_DIR/listing/a-fairly-long-file-name-to-fill-replies-$i"
	done
}

inline_case() {
	local isz=$1 v=$2 s src=/tmp/inline dst target n
	sysctl -qw sunrpc.rdma_max_inline_read="$isz" sunrpc.rdma_max_inline_write="$isz" ||
		fail "cannot set the inline sysctls to $isz" || return 1
	[ "$(sysctl -n sunrpc.rdma_max_inline_read)" = "$isz" ] ||
		fail "rdma_max_inline_read did not take $isz" || return 1
	mkdir -p "$src"
	for s in $SIZES; do
		[ -e "$src/f$s" ] || head -c "$s" /dev/urandom >"$src/f$s"
	done
	nfs_mount "$v" rsize=8192,wsize=8192 || return 1
	dst=$MNT/inline-$isz-v$v
	rm -rf "$dst"
	mkdir "$dst" || { nfs_umount; return 1; }
	cp "$src"/f* "$dst"/ || { fail "writes failed"; nfs_umount; return 1; }
	target=$(head -c 3000 /dev/zero | tr '\0' t)
	ln -s "$target" "$dst/link" || { fail "symlink failed"; nfs_umount; return 1; }
	nfs_umount || return 1
	echo 3 >/proc/sys/vm/drop_caches
	nfs_mount "$v" rsize=8192,wsize=8192 || return 1
	for s in $SIZES; do
		cmp -s "$src/f$s" "$dst/f$s" || { fail "f$s differs"; nfs_umount; return 1; }
	done
	[ "$(readlink "$dst/link")" = "$target" ] ||
		{ fail "the symlink target came back wrong"; nfs_umount; return 1; }
	n=$(ls -l "$MNT/listing" | grep -c 'a-fairly-long')
	[ "$n" = "$LISTING_ENTRIES" ] ||
		{ fail "listing has $n entries, not $LISTING_ENTRIES"; nfs_umount; return 1; }
	rm -rf "$dst"
	nfs_umount
}

inline_cases() {
	local isz v rc=0 rd wr
	nfs_client_prepare || return 1
	rd=$(sysctl -n sunrpc.rdma_max_inline_read)
	wr=$(sysctl -n sunrpc.rdma_max_inline_write)
	for isz in $INLINE_SIZES; do
		for v in 3 4.2; do
			subtest "inline-$isz-nfs$v" inline_case "$isz" "$v" || rc=1
		done
	done
	# What was found, not the in-tree's 4096: ours defaults to 8192.
	sysctl -qw sunrpc.rdma_max_inline_read="$rd" sunrpc.rdma_max_inline_write="$wr"
	return $rc
}

test_single() {
	local_nfs inline_cases
}

test_server() {
	serve_nfs 1400
}

test_client() {
	as_client inline_cases
}
