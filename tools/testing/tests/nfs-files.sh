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
	local_nfs run_versions
}

test_server() {
	serve_nfs 1100
}

test_client() {
	as_client run_versions
}
