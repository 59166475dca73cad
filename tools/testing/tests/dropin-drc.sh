# SPDX-License-Identifier: GPL-2.0
#
# Drop-in: nfsd's duplicate-reply cache across a reconnect.  An NFSv3
# MKDIR, RENAME or REMOVE reaches the server and runs, but every frame the
# server sends is dropped (netem on its link), so the reply never arrives
# and both ends give up on the connection.  Then the link is restored: the
# client reconnects, from a new RDMA-CM port, and retransmits the call.
# The server must answer it from the duplicate-reply cache, so the call
# runs once and the application sees success; run twice, it would fail
# with EEXIST or ENOENT.  The server's DRC hit counter must rise.
#
# NFSv4.0 is not covered here: nfsd does not cache COMPOUND replies
# (RC_NOCACHE), over any transport.  NFSv4.1 and later use the session's
# slot table instead.

TIMEOUT=1200
DRC_DIR=drc

# drc_hits: cache hits from the "rc hits misses nocache" line of the
# server's RPC statistics.
drc_hits() {
	awk '$1 == "rc" { print $2 }' /proc/net/rpc/nfsd
}

server_prepare() {
	mkdir -p "$EXPORT_DIR/$DRC_DIR"
	echo renamed >"$EXPORT_DIR/$DRC_DIR/old-name"
	echo removed >"$EXPORT_DIR/$DRC_DIR/doomed"
	chmod -R a+rwX "$EXPORT_DIR/$DRC_DIR"
}

# wait_until SECONDS CMD...: poll CMD once a second.
wait_until() {
	local i
	for ((i = 0; i < $1; i++)); do
		"${@:2}" && return 0
		sleep 1
	done
	return 1
}

no_rdma_connections() {
	[ "$(rdma_connections)" = 0 ]
}

# server_case NAME CHECK...: the server's part of one case.  CHECK tells
# from the export whether the call has run.
server_case() {
	local name=$1 hits0 hits1 rc=0
	shift
	await "$name-ready" 600 || return 1
	hits0=$(drc_hits)
	tc qdisc add dev eth0 root netem loss 100% ||
		fail "cannot drop the server's frames" || return 1
	signal "$name-blackhole"
	# The call must arrive and run while its reply cannot get out;
	# otherwise this case proves nothing.
	if ! wait_until 120 "$@"; then
		fail "$name: the call did not reach the server while its replies were dropped"
		rc=1
	fi
	# Both ends must give up on the connection before the link returns,
	# so that the client retransmits on a new one.
	wait_until 120 no_rdma_connections ||
		fail "$name: connection still up after 120 s without replies" || rc=1
	log "$name: connection gone; restoring the link"
	tc qdisc del dev eth0 root || rc=1
	signal "$name-restored"
	await "$name-done" 600 || rc=1
	hits1=$(drc_hits)
	log "$name: DRC hits $hits0 -> $hits1"
	[ "$rc" = 0 ] || return 1
	[ "$hits1" -gt "$hits0" ] ||
		fail "$name: the retransmission missed the duplicate-reply cache"
}

# client_case NAME CMD...: the client's part: CMD runs while the server's
# replies are dropped and must succeed once the link is back.
client_case() {
	local name=$1 pid rc
	shift
	signal "$name-ready"
	await "$name-blackhole" 600 || return 1
	"$@" &
	pid=$!
	await "$name-restored" 600 || { signal "$name-done"; return 1; }
	wait "$pid"
	rc=$?
	signal "$name-done"
	[ "$rc" = 0 ] || fail "$name: '$*' failed ($rc) after the reconnect: the call ran twice"
}

server_cases() {
	subtest drc-mkdir server_case mkdir test -d "$EXPORT_DIR/$DRC_DIR/new-dir" &&
		subtest drc-rename server_case rename test -e "$EXPORT_DIR/$DRC_DIR/new-name" &&
		subtest drc-remove server_case remove test ! -e "$EXPORT_DIR/$DRC_DIR/doomed"
}

# Warm the client's caches (attributes, access, positive and negative
# lookups) so that the only call each case sends is the one under test.
warm() {
	local f
	ls -la "$MNT/$DRC_DIR" >/dev/null
	for f in old-name doomed new-dir new-name; do
		stat "$MNT/$DRC_DIR/$f" >/dev/null 2>&1
	done
	return 0
}

client_cases() {
	local rc=0
	nfs_mount 3 "actimeo=600" || return 1
	warm
	subtest drc-mkdir client_case mkdir mkdir "$MNT/$DRC_DIR/new-dir" || rc=1
	[ "$rc" = 0 ] && warm
	[ "$rc" = 0 ] && { subtest drc-rename client_case rename \
		mv "$MNT/$DRC_DIR/old-name" "$MNT/$DRC_DIR/new-name" || rc=1; }
	[ "$rc" = 0 ] && warm
	[ "$rc" = 0 ] && { subtest drc-remove client_case remove \
		rm "$MNT/$DRC_DIR/doomed" || rc=1; }
	# The server waits for each case in turn: let it stop waiting.
	[ "$rc" = 0 ] || signal abort
	if [ "$rc" = 0 ]; then
		# Each call ran exactly once: the tree is as one run leaves it.
		[ -d "$MNT/$DRC_DIR/new-dir" ] && [ ! -e "$MNT/$DRC_DIR/old-name" ] &&
			[ "$(cat "$MNT/$DRC_DIR/new-name")" = renamed ] &&
			[ ! -e "$MNT/$DRC_DIR/doomed" ] ||
			fail "the export does not show each operation applied once" || rc=1
	fi
	nfs_umount || rc=1
	# After reconnects the client's transport lets go of its module a
	# while after the unmount; the harness then checks that it did.
	wait_until 60 transport_released ||
		log "transport module still referenced 60 s after the unmount"
	return $rc
}

transport_released() {
	local m=xprtrdma
	[ "$CLIENT_TRANSPORT" = intree ] && m=rpcrdma
	[ "$(cat "/sys/module/$m/refcnt")" = 0 ]
}

test_single() {
	fail "dropin-drc needs the 2vm topology"
}

test_server() {
	local rc=0 i
	nfs_serve_prepared || { signal abort; return 1; }
	signal server-ready
	if server_cases; then
		await client-done 600 || rc=1
	else
		# A failed case ends the server's run of them; the client would
		# otherwise wait ten minutes for the next one.  The abort is
		# ours: wait for the client to wind up without await, which
		# would put it down to the peer.
		rc=1
		signal abort
		for ((i = 0; i < 600 * ${TIME_SCALE:-1}; i++)); do
			signalled client-done && break
			sleep 1
		done
	fi
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	nfs_client_prepare || { signal abort; return 1; }
	as_client client_cases
}
