# SPDX-License-Identifier: GPL-2.0
#
# Faults under a verified write stream (NFSv4.1, hard mount): the server's
# nfsd restarted, its RDMA device deleted and added again, its netdev taken
# down and up.  After each fault the stream must make progress again; at
# the end every file is read back after a remount and must verify.
TIMEOUT=1200
FILES_MIN=12

progress() {
	cat /results/progress 2>/dev/null || echo 0
}

# await_progress SECONDS: wait until the client has written another file.
await_progress() {
	local start i
	start=$(progress)
	for ((i = 0; i < $1; i++)); do
		[ "$(progress)" -gt "$start" ] && return 0
		sleep 1
	done
	fail "no progress for $1 s after the fault (stuck at file $start)"
	# What the next reader needs to tell a dead wire from a dead
	# transport: can IP still cross, does the RDMA device still see the
	# port, whom does the neighbour table know.
	log "link: $(ip -br link show eth0) | neigh: $(ip neigh show dev eth0 | tr '\n' ';')"
	log "rdma: $(rdma link show 2>&1 | tr '\n' ';')"
	log "ping $CLIENT_ADDR: $(ping -c 2 -W 1 "$CLIENT_ADDR" 2>&1 | tail -n 2 | tr '\n' ' ')"
	return 1
}

fault_nfsd_restart() {
	rpc.nfsd 0 || return 1
	sleep 2
	rpc.nfsd 8 || return 1
	echo "rdma $NFS_PORT" >/proc/fs/nfsd/portlist
}

# Named after the fabric's device type: rxe_readd, siw_readd.
fault_rdma_readd() {
	rdma_dev_del || return 1
	sleep 2
	rdma_dev_add eth0
}

fault_link_flap() {
	ip link set eth0 down || return 1
	sleep 3
	ip link set eth0 up
}

inject_faults() {
	local f name rc=0
	await stream-started 300 || return 1
	for f in nfsd_restart rdma_readd link_flap; do
		await_progress 120 || return 1
		name=${f/rdma/$RDMA_TYPE}
		log "fault: $name (client at file $(progress))"
		"fault_$f" || fail "could not inject $name" || return 1
		subtest "recovers-after-$name" await_progress 240 || rc=1
	done
	signal faults-done
	return $rc
}

write_stream() {
	local i=0 dir=$MNT/stream
	mkdir -p "$dir" /tmp/stream || return 1
	: >/tmp/stream.sha256
	signal stream-started
	while [ "$i" -lt "$FILES_MIN" ] || ! signalled faults-done; do
		signalled abort && return 1
		head -c 4194304 /dev/urandom >"/tmp/stream/f$i"
		cp "/tmp/stream/f$i" "$dir/f$i" || fail "write of f$i failed" || return 1
		(cd /tmp/stream && sha256sum "f$i") >>/tmp/stream.sha256
		rm -f "/tmp/stream/f$i"
		i=$((i + 1))
		echo "$i" >/results/progress
		if [ "$i" -gt 400 ]; then
			fail "faults never finished"
			return 1
		fi
	done
	log "wrote $i files of 4 MiB through the faults"
	sync
	nfs_umount || return 1
	echo 3 >/proc/sys/vm/drop_caches
	nfs_mount 4.1 || return 1
	(cd "$dir" && sha256sum -c --quiet /tmp/stream.sha256) || fail "stream does not verify" || return 1
	rm -rf "$dir"
}

faults_client() {
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	subtest nfs4.1-stream-verifies write_stream || { nfs_umount; return 1; }
	nfs_umount
}

test_server() {
	local rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	if inject_faults; then
		await client-done 900 || rc=1
	else
		# The stream made no progress for 240 s after a fault: a client
		# stuck on the hard mount will not report, and the harness ends
		# it once this guest has exited.
		rc=1
		signal abort
	fi
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client faults_client
}
