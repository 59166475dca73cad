# SPDX-License-Identifier: GPL-2.0
#
# The server goes silent under an idle mount (its link is taken down: no
# Disconnect, no error, nothing in flight).  xprtrdma's keepalive probe
# must notice within DEAD_PEER_SECONDS, say so naming the server, and drop
# the connection; once the server is back the mount must carry verified
# data again over a new connection.  NFSv3 keeps the mount truly idle: no
# lease renewals that a timeout could catch first.
#
# The verdict must also come within the ACK timeout's retry time: a probe
# is posted within KEEPALIVE s of the link going down, and fails after 7
# tries of 268 ms (ack_timeout=16, include/nfsrdma/rc.h), about 2 s; with
# 6.1's rdma_cm timeout (2.1 s) the retries alone take about 15 s.  RETRY_SECONDS allows four
# times that, scaled for a slow kernel.
TIMEOUT=600
KEEPALIVE=5
DEAD_PEER_SECONDS=${DEAD_PEER_SECONDS:-90}

test_server() {
	local rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	await client-idle 300 || rc=1
	ip link set eth0 down || rc=1
	log "link down; waiting for the client to notice"
	await client-noticed $((DEAD_PEER_SECONDS + 30)) || rc=1
	ip link set eth0 up || rc=1
	signal server-back
	await client-done 300 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

noticed() {
	local i
	for ((i = 0; i < DEAD_PEER_SECONDS; i++)); do
		if dmesg | grep -q "xprtrdma: $SERVER_ADDR stopped answering" &&
			[ "$(rdma_connections)" -eq 0 ]; then
			log "dead server noticed after $i s"
			NOTICED_AFTER=$i
			return 0
		fi
		sleep 1
	done
	dmesg | grep xprtrdma | tail -5
	fail "no keepalive verdict within $DEAD_PEER_SECONDS s (connections: $(rdma_connections))"
}

# Noticed within one keepalive period plus the RC retry time: the module's
# ack_timeout, not rdma_cm's, was on the connection's QP.
retry_time() {
	local RETRY_SECONDS=$((8 * ${TIME_SCALE:-1}))
	[ -n "${NOTICED_AFTER:-}" ] || { fail "the dead server was not noticed"; return 1; }
	[ "$(cat /sys/module/xprtrdma/parameters/ack_timeout)" = 16 ] ||
		{ fail "ack_timeout is $(cat /sys/module/xprtrdma/parameters/ack_timeout), not the default 16"; return 1; }
	[ "$NOTICED_AFTER" -le $((KEEPALIVE + RETRY_SECONDS)) ] ||
		fail "noticed after $NOTICED_AFTER s; a probe fails within $KEEPALIVE + $RETRY_SECONDS s with a 268 ms ACK timeout"
}

served_again() {
	await server-back 200 || return 1
	head -c 2000000 /dev/urandom >/tmp/deadpeer.bin
	cp /tmp/deadpeer.bin "$MNT/deadpeer" || { fail "write after the server came back failed"; return 1; }
	echo 3 >/proc/sys/vm/drop_caches
	cmp /tmp/deadpeer.bin "$MNT/deadpeer" || { fail "read-back differs"; return 1; }
	rm -f "$MNT/deadpeer"
	log "served again; connections: $(rdma_connections)"
}

client_part() {
	local rc=0
	nfs_client_prepare || return 1
	echo "$KEEPALIVE" >/sys/module/xprtrdma/parameters/keepalive || return 1
	nfs_mount 3 || return 1
	ls "$MNT" >/dev/null
	[ "$(rdma_connections)" -eq 1 ] || { fail "expected one connection, have $(rdma_connections)"; rc=1; }
	signal client-idle
	subtest keepalive-notices noticed || rc=1
	subtest ack-timeout retry_time || rc=1
	signal client-noticed
	subtest served-again served_again || rc=1
	nfs_umount || rc=1
	return $rc
}

test_client() {
	as_client client_part
}
