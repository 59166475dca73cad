# SPDX-License-Identifier: GPL-2.0
#
# Quick check of the client transport: mount NFSv4.1 and NFSv3 over RDMA,
# list the export, write and read back small and chunk-sized files, show
# the transport's mountstats line, unmount.
TIMEOUT=600
SMOKE_VERSIONS=${SMOKE_VERSIONS:-"4.1 3"}

smoke_one() {
	local v=$1 f=/tmp/smoke.bin
	nfs_mount "$v" || return 1
	ls -la "$MNT" >/dev/null || { nfs_umount; fail "ls failed"; return 1; }
	mkdir -p "$MNT/smoke$v" || { nfs_umount; return 1; }
	echo hello >"$MNT/smoke$v/hello" || { nfs_umount; fail "small write"; return 1; }
	head -c 300000 /dev/urandom >"$f"
	cp "$f" "$MNT/smoke$v/big" && sync || { nfs_umount; fail "big write"; return 1; }
	log "mountstats: $(grep -E '^[[:space:]]*xprt:' /proc/self/mountstats)"
	nfs_umount || return 1
	echo 3 >/proc/sys/vm/drop_caches
	nfs_mount "$v" || return 1
	grep -q hello "$MNT/smoke$v/hello" || { nfs_umount; fail "small read"; return 1; }
	cmp "$f" "$MNT/smoke$v/big" || { nfs_umount; fail "big read differs"; return 1; }
	ls -la "$MNT/smoke$v" >/dev/null || { nfs_umount; return 1; }
	rm -rf "$MNT/smoke$v"
	log "mountstats: $(grep -E '^[[:space:]]*xprt:' /proc/self/mountstats)"
	nfs_umount
}

smoke() {
	local v rc=0
	nfs_client_prepare || return 1
	for v in $SMOKE_VERSIONS; do
		subtest "nfs$v-smoke" smoke_one "$v" || rc=1
	done
	return $rc
}

test_single() {
	local_nfs smoke
}

test_server() {
	serve_nfs 500
}

test_client() {
	as_client smoke
}
