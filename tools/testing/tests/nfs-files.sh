# SPDX-License-Identifier: GPL-2.0
#
# Baseline: every NFS version mounted over RDMA on port 20049, proto=rdma
# checked in /proc/mounts, files of boundary sizes written, caches dropped,
# read back and compared by checksum.  One directory listing large enough
# to need a Reply chunk.  On our server, its counters must show the calls,
# the Read chunks (WRITE), the Write chunks (READ) and the Reply chunks
# (READDIR) that traffic takes.

TIMEOUT=1200
# Comma-separated from a tests.conf word: NFS_VERSIONS=3,4.2.
NFS_VERSIONS=${NFS_VERSIONS:-3 4.0 4.1 4.2}
NFS_VERSIONS=${NFS_VERSIONS//,/ }
LISTING_ENTRIES=1000

# shellcheck source=tools/testing/tests/svcrdma-stats.inc
. "$(dirname "${BASH_SOURCE[0]}")/svcrdma-stats.inc"
BEFORE=/tmp/svcrdma.before

server_prepare() {
	local i
	mkdir -p "$EXPORT_DIR/listing"
	for ((i = 0; i < LISTING_ENTRIES; i++)); do
		: >"$EXPORT_DIR/listing/entry-number-$i-with-a-longish-name"
	done
}

# A READDIR reply of this size does not fit a 4 KiB inline reply.
big_listing() {
	local n
	nfs_mount 4.2 || return 1
	echo 3 >/proc/sys/vm/drop_caches
	n=$(ls "$MNT/listing" | wc -l)
	nfs_umount || return 1
	[ "$n" = "$LISTING_ENTRIES" ] || fail "listing has $n entries, not $LISTING_ENTRIES"
}

run_versions() {
	local v rc=0
	nfs_client_prepare || return 1
	for v in $NFS_VERSIONS; do
		subtest "nfs$v-files" file_suite "$v" || rc=1
	done
	subtest nfs4.2-listing big_listing || rc=1
	return $rc
}

stats_before() {
	svc_stats_on || return 0
	svc_stats_save "$BEFORE" || return 1
	log "svcrdma before: $(svc_stats_line)"
}

stats_after() {
	local rc=0
	svc_stats_on || return 0
	log "svcrdma after: $(svc_stats_line)"
	subtest svcrdma-counters svc_stats_rose "$BEFORE" calls_received \
		read_chunks read_bytes write_chunks write_bytes reply_chunks \
		reply_bytes inline_replies || rc=1
	# No nfsd thread waited for the client to acknowledge a reply's
	# RDMA Writes: every reply's pages were ones nfsd drops, and no
	# connection came near 16 MiB of them in flight.
	subtest svcrdma-writes-unwaited svc_stats_same "$BEFORE" write_waits || rc=1
	return $rc
}

test_single() {
	local rc=0
	nfs_serve_prepared || return 1
	stats_before || rc=1
	run_versions || rc=1
	stats_after || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_server() {
	local rc=0
	nfs_serve_prepared || { signal abort; return 1; }
	stats_before || { signal abort; return 1; }
	signal server-ready
	await client-done 1100 || rc=1
	stats_after || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client run_versions
}
