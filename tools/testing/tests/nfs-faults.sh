# SPDX-License-Identifier: GPL-2.0
#
# Faults under a verified write stream (NFSv4.1, hard mount): the server's
# nfsd restarted, its RDMA device deleted and added again, and its link
# cut for longer than RC's retries last, so that both ends lose the
# connection and must make a new one.  After each fault the stream must
# make progress again; at the end every file is read back after a remount
# and must verify.
#
# The link is cut by dropping every frame the server sends, not by taking
# its netdev down (link_flap, still here for FAULTS=link_flap): on
# Debian's 6.1 kernel, a netdev taken down under rxe while a QP has a
# packet to send can leave that rxe unable to answer any connection
# request afterwards.  rxe fails that send for want of a route, which
# errors the QP (its debug log shows it for the GSI QP too), and the
# server then sends no RoCE frame at all, not even a CM reply, until its
# rxe device is added again.  The in-tree rpcrdma at both ends hangs that
# way on the first flap (FAULTS=link_flap ROUNDS=12, 2026-11-25); ours
# on the third to eighth, with either server.  A link that stops carrying
# frames is the outage a cable pull or a switch failure causes, and is
# what the transports have to survive.
TIMEOUT=1200
FILES_MIN=12
# Which faults, in order, and how many rounds of them: comma-separated
# from a tests.conf word (FAULTS=link_cut ROUNDS=10 hammers one fault).
# The host reads TIMEOUT without those words: a round takes under half a
# minute, so TIMEOUT holds about thirty.
FAULTS=${FAULTS:-nfsd_restart,rdma_readd,link_cut}
FAULTS=${FAULTS//,/ }
ROUNDS=${ROUNDS:-1}

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
	log_rdma_state
	# Twice: whether packets still pass the device's checks.
	sleep 20
	log_rdma_state
	return 1
}

fault_nfsd_restart() {
	nfsd_restart 2
}

# Named after the fabric's device type: rxe_readd, siw_readd.
fault_rdma_readd() {
	rdma_dev_del || return 1
	sleep 2
	rdma_dev_add eth0
}

# Longer than a Send's retries (seven tries about 2.3 s apart on rxe).
LINK_CUT_SECONDS=${LINK_CUT_SECONDS:-20}
fault_link_cut() {
	tc qdisc add dev eth0 root netem loss 100% || return 1
	sleep "$LINK_CUT_SECONDS"
	tc qdisc del dev eth0 root
}

fault_link_flap() {
	ip link set eth0 down || return 1
	sleep 3
	ip link set eth0 up
}

inject_faults() {
	local f name r
	[[ "$ROUNDS" =~ ^[0-9]+$ ]] && ((10#$ROUNDS >= 1)) ||
		fail "ROUNDS=$ROUNDS is not a count" || return 1
	[ -n "${FAULTS// /}" ] || fail "FAULTS names no fault" || return 1
	for f in $FAULTS; do
		declare -F "fault_$f" >/dev/null || fail "no fault named $f" || return 1
	done
	await stream-started 300 || return 1
	for ((r = 1; r <= 10#$ROUNDS; r++)); do
		for f in $FAULTS; do
			await_progress 120 || return 1
			name=${f/rdma/$RDMA_TYPE}
			((10#$ROUNDS > 1)) && name+="-$r"
			log "fault: $name (client at file $(progress))"
			"fault_$f" || fail "could not inject $name" || return 1
			# A stream still stuck would only fail the next fault too.
			subtest "recovers-after-$name" await_progress 240 || return 1
		done
	done
	signal faults-done
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

# stuck_report: once the server gives up on the stream, say where this
# client is stuck before the harness ends it.  The blocked tasks' stacks,
# the transport's counters and its last log lines tell a reply that never
# came from a reconnect that never finished.
stuck_report() {
	local p
	# Until the stream is over (faults_client ends this): a hang in the
	# final sync, remount or verify deserves the same report.
	while ! signalled abort; do
		sleep 2
	done
	log "stuck: transport: $(grep -h -A1 'xprt:.*rdma' /proc/self/mountstats | tr '\n' ' ')"
	for p in /proc/[0-9]*; do
		grep -q '^State:.*D' "$p/status" 2>/dev/null || continue
		log "stuck: $(cat "$p/comm") in $(tr '\n' ' ' <"$p/stack" 2>/dev/null)"
	done
	log_rdma_state
	log "stuck: kernel log: $(dmesg | grep -i 'rdma\|rpc\|nfs' | tail -n 15 | tr '\n' ';')"
}

faults_client() {
	local watcher rc=0
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	stuck_report &
	watcher=$!
	subtest nfs4.1-stream-verifies write_stream || rc=1
	kill "$watcher" 2>/dev/null
	wait "$watcher" 2>/dev/null
	nfs_umount || rc=1
	return $rc
}

test_server() {
	local rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	if inject_faults; then
		await client-done 900 || rc=1
	else
		# The stream made no progress for 240 s after a fault (or a
		# fault could not be injected): a client stuck on the hard
		# mount will not report, and the harness ends it once this
		# guest has exited.
		rc=1
		signal abort
	fi
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client faults_client
}
