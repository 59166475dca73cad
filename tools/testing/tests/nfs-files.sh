# SPDX-License-Identifier: GPL-2.0
#
# Baseline: every NFS version mounted over RDMA on port 20049, proto=rdma
# checked in /proc/mounts, files of boundary sizes written, caches dropped,
# read back and compared by checksum.

TIMEOUT=1200
NFS_VERSIONS="3 4.0 4.1 4.2"

run_versions() {
	local v rc=0
	nfs_client_prepare || return 1
	for v in $NFS_VERSIONS; do
		subtest "nfs$v-files" file_suite "$v" || rc=1
	done
	return $rc
}

test_single() {
	local rc=0
	nfs_server_start || return 1
	run_versions || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_server() {
	local rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	await client-done 1100 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	local rc=0
	await server-ready 300 || return 1
	run_versions || rc=1
	signal client-done
	return $rc
}
