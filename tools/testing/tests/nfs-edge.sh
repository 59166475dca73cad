# SPDX-License-Identifier: GPL-2.0
#
# The cases that force each RPC-over-RDMA path, on every NFS version:
# a 10,000-entry directory listed completely (Reply chunks), a symlink with
# a 4000-byte target (READLINK into a Write chunk), writes and reads at
# unaligned offsets and lengths, buffered and O_DIRECT (inline, Read and
# Write chunks of odd sizes); then fio random read/write with
# verify=crc32c for FIO_SECONDS on NFSv4.2.
TIMEOUT=1500
# The debug tier's shared boot in make check takes NFS_VERSIONS=3,4.2.
NFS_VERSIONS=${NFS_VERSIONS:-3 4.0 4.1 4.2}
NFS_VERSIONS=${NFS_VERSIONS//,/ }
# make check runs 20 s; make check-full, FIO_SECONDS=60.
FIO_SECONDS=${FIO_SECONDS:-20}
# Each job's file: fio writes it whole before it starts, which takes
# minutes for the default on the debug kernel (about 1 MB/s there).
FIO_SIZE=${FIO_SIZE:-64m}
# The debug tier's shared boot takes fewer: creating each file costs
# about 15 ms on that kernel under TCG, and 3,000 still need several
# READDIRs, each with a Reply chunk.
DIR_ENTRIES=${DIR_ENTRIES:-10000}

ENTRY_FMT='entry-%05d-padding-to-make-names-longer\n'

link_target() {
	printf 't%.0s' $(seq 1 3999)
	echo -n /
}

entry_names() {
	# shellcheck disable=SC2046
	printf "$ENTRY_FMT" $(seq 0 $((DIR_ENTRIES - 1)))
}

# The server builds the big directory and the symlink locally: creating
# 10,000 files over the wire under TCG would take minutes and test
# nothing the listing does not.
server_prepare() {
	local name
	mkdir -p "$EXPORT_DIR/big"
	# Split, not read: bash's read (and mapfile) take a byte per system
	# call from a pipe.  The names hold no blank and no glob character.
	# shellcheck disable=SC2046
	for name in $(entry_names); do
		: >"$EXPORT_DIR/big/$name"
	done
	ln -s "$(link_target)" "$EXPORT_DIR/link4000"
}

list_big_dir() {
	local got
	got=$(ls -f "$MNT/big" | grep -c '^entry-')
	[ "$got" = "$DIR_ENTRIES" ] || fail "listed $got of $DIR_ENTRIES entries" || return 1
	[ "$(ls "$MNT/big" | sha256sum)" = "$(entry_names | sha256sum)" ] ||
		fail "directory listing has the wrong names"
}

read_long_link() {
	[ "$(readlink "$MNT/link4000")" = "$(link_target)" ] ||
		fail "symlink target differs (got $(readlink "$MNT/link4000" | wc -c) bytes)"
}

# (offset length) pairs straddling page, inline-threshold and 1 MiB edges.
UNALIGNED="1 1  4095 3  4097 4095  65535 4097  131071 131073  1048575 1048577  3000001 65537"

unaligned_io() {
	local f=$MNT/unaligned ref=/tmp/unaligned.ref flag=$1 off len
	rm -f "$f"
	head -c 4194304 /dev/zero >"$ref"
	cp "$ref" "$f" || return 1
	set -- $UNALIGNED
	while [ $# -ge 2 ]; do
		off=$1 len=$2
		shift 2
		head -c "$len" /dev/urandom >/tmp/piece
		dd if=/tmp/piece of="$ref" bs="$len" seek="$off" oflag=seek_bytes conv=notrunc status=none
		dd if=/tmp/piece of="$f" bs="$len" seek="$off" oflag=seek_bytes$flag conv=notrunc status=none ||
			fail "write of $len at $off failed" || return 1
	done
	sync
	echo 3 >/proc/sys/vm/drop_caches
	cmp "$ref" "$f" || fail "file differs after unaligned writes" || return 1
	set -- $UNALIGNED
	while [ $# -ge 2 ]; do
		off=$1 len=$2
		shift 2
		cmp <(dd if="$ref" bs="$len" skip="$off" count=1 iflag=skip_bytes status=none) \
			<(dd if="$f" bs="$len" skip="$off" count=1 iflag=skip_bytes$flag status=none) ||
			fail "read of $len at $off differs" || return 1
	done
	rm -f "$f"
}

edge_version() {
	local v=$1 rc=0
	nfs_mount "$v" || return 1
	subtest "nfs$v-readdir-$DIR_ENTRIES" list_big_dir || rc=1
	subtest "nfs$v-symlink-4000" read_long_link || rc=1
	subtest "nfs$v-unaligned-buffered" unaligned_io "" || rc=1
	subtest "nfs$v-unaligned-direct" unaligned_io ",direct" || rc=1
	nfs_umount || rc=1
	return $rc
}

fio_verify() {
	local rc=0
	nfs_mount 4.2 || return 1
	fio_verify_mounted || rc=1
	nfs_umount || rc=1
	return $rc
}

edge_client() {
	local v rc=0
	nfs_client_prepare || return 1
	for v in $NFS_VERSIONS; do
		edge_version "$v" || rc=1
	done
	subtest "fio-randrw-verify-${FIO_SECONDS}s" fio_verify || rc=1
	return $rc
}

test_single() {
	local_nfs edge_client
}

test_server() {
	serve_nfs 1400
}

test_client() {
	as_client edge_client
}
