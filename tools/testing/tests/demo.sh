# SPDX-License-Identifier: GPL-2.0
#
# 'make demo': a server VM exports a directory over RDMA, a client VM mounts
# it with -o rdma,port=20049, copies a file in, reads it back after a
# remount, and shows what an admin would look at: the mount line, nfs-utils'
# mountstats view of the transport, which module carries it, and (on our
# server) svcrdma's counters.  Each shown value is also checked: the data
# must match, the mount must be on RDMA with RDMA segments counted, and the
# module must be the one the demo says it is.
TIMEOUT=600
DEMO_VERS=${DEMO_VERS:-4.2}

show() {
	printf '%s\n' "$*" | sed 's/^/DEMO: /'
}

# demo_module ROLE: the loaded RPC-over-RDMA module must be the one this
# demo runs on: ours, or the in-tree rpcrdma; never both.
demo_module() {
	local want other
	if [ "$(transport_of "$1")" = ours ]; then
		want=$([ "$1" = server ] && echo svcrdma || echo xprtrdma)
		other=rpcrdma
	else
		want=rpcrdma
		other=$([ "$1" = server ] && echo svcrdma || echo xprtrdma)
	fi
	show "transport module: $want ($(modinfo -n "$want" 2>/dev/null))"
	[ -d "/sys/module/$want" ] || fail "$want is not loaded" || return 1
	[ ! -d "/sys/module/$other" ] || fail "$other is loaded too" || return 1
}

demo_client() {
	local f=/tmp/demo.bin stats
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
	[ "$(sha256sum <"$f")" = "$(sha256sum <"$MNT/demo.bin")" ] ||
		fail "the file read back differs" || return 1
	show "\$ mountstats --xprt $MNT"
	stats=$(mountstats --xprt "$MNT") || fail "mountstats failed" || return 1
	show "$stats"
	# Reading 16 MiB back comes by RDMA Write into the client's Write
	# chunks: the segments must have been counted.
	grep -q 'Transport protocol: rdma' <<<"$stats" ||
		fail "mountstats does not show an rdma transport" || return 1
	awk '/Write segments:/ { n = $3 } END { exit !(n > 0) }' <<<"$stats" ||
		fail "mountstats counted no Write segments" || return 1
	demo_module client || return 1
	nfs_umount
}

# demo_server_stats: what svcrdma counted for the demo's traffic.
demo_server_stats() {
	local d=/proc/sys/sunrpc/svcrdma n
	demo_module server || return 1
	[ "$SERVER_TRANSPORT" = ours ] || return 0
	show "\$ grep . $d/{calls_received,read_chunks,read_bytes,write_chunks,write_bytes,inline_replies,connections_accepted}"
	for n in calls_received read_chunks read_bytes write_chunks write_bytes inline_replies connections_accepted; do
		show "$d/$n:$(cat "$d/$n")"
	done
	# The 16 MiB came in by RDMA Read and went back by RDMA Write.
	[ "$(cat "$d/read_bytes")" -ge 16777216 ] ||
		fail "svcrdma read_bytes below the 16 MiB written" || return 1
	[ "$(cat "$d/write_bytes")" -ge 16777216 ] ||
		fail "svcrdma write_bytes below the 16 MiB read back" || return 1
}

test_server() {
	local rc=0
	nfs_serve_prepared || { signal abort; return 1; }
	signal server-ready
	await client-done 500 || rc=1
	subtest demo-server-counters demo_server_stats || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client subtest demo demo_client
}
