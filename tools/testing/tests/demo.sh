# SPDX-License-Identifier: GPL-2.0
#
# 'make demo': a server VM exports a directory over RDMA, a client VM mounts
# it with -o rdma,port=20049, copies a file in, reads it back, and shows the
# mount line and the RPC-over-RDMA transport statistics.
TIMEOUT=600
DEMO_VERS=${DEMO_VERS:-4.2}

show() {
	printf '%s\n' "$*" | sed 's/^/DEMO: /'
}

demo_client() {
	local f=/tmp/demo.bin
	nfs_client_prepare || return 1
	head -c 16777216 /dev/urandom >"$f"
	show "\$ mount -t nfs -o vers=$DEMO_VERS,rdma,port=$NFS_PORT $SERVER_ADDR:$(export_path "$DEMO_VERS") $MNT"
	nfs_mount "$DEMO_VERS" || return 1
	show "\$ grep $MNT /proc/mounts"
	show "$(grep " $MNT " /proc/mounts)"
	show "\$ cp demo.bin $MNT/ (16 MiB)"
	cp "$f" "$MNT/" && sync || return 1
	nfs_umount || return 1
	echo 3 >/proc/sys/vm/drop_caches
	nfs_mount "$DEMO_VERS" || return 1
	show "\$ sha256sum demo.bin $MNT/demo.bin   (after remount, caches dropped)"
	show "$(sha256sum "$f" "$MNT/demo.bin")"
	[ "$(sha256sum <"$f")" = "$(sha256sum <"$MNT/demo.bin")" ] || return 1
	show "\$ grep -A1 'xprt:' /proc/self/mountstats"
	show "$(grep -E '^[[:space:]]*xprt:' /proc/self/mountstats)"
	show "transport module: $(for m in xprtrdma rpcrdma; do [ -d /sys/module/$m ] && echo "$m ($(modinfo -n $m))"; done)"
	nfs_umount
}

test_server() {
	serve_nfs 500
}

test_client() {
	as_client subtest demo demo_client
}
