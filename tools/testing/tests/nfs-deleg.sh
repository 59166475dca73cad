# SPDX-License-Identifier: GPL-2.0
#
# NFSv4.1 delegation recall over the RPC-over-RDMA backchannel (RFC 8167):
# the client holds a file open for reading (and so a read delegation, which
# the server confirms in /proc/fs/nfsd), the server then writes the file locally, which makes knfsd send CB_RECALL on
# the client's forward connection.  The recall must complete: the client's
# DELEGRETURN count rises, and the server's write goes through well before
# the lease would have run out.  The link is recorded (CAPTURE=1) so the
# backchannel's messages are decoded on the wire too.
TIMEOUT=400
CAPTURE=1

deleg_client() {
	local before i rc=0
	nfs_client_prepare || return 1
	# knfsd grants no delegations during its grace period.
	await grace-over 120 || return 1
	nfs_mount 4.1 || return 1
	exec 3<"$MNT/deleg"
	cat <&3 >/dev/null
	before=$(delegreturns)
	log "holding $MNT/deleg open; DELEGRETURN so far: ${before:-0}"
	signal deleg-open
	if await deleg-modified 120; then
		for ((i = 0; i < 30; i++)); do
			[ "$(delegreturns)" -gt "${before:-0}" ] && break
			sleep 1
		done
		log "DELEGRETURN now: $(delegreturns)"
		[ "$(delegreturns)" -gt "${before:-0}" ] ||
			fail "no DELEGRETURN: the delegation was never recalled" || rc=1
		grep -q changed "$MNT/deleg" || fail "client does not see the server's write" || rc=1
	else
		rc=1
	fi
	exec 3<&-
	nfs_umount || rc=1
	return $rc
}

# Writing the exported file on the server breaks the client's lease.
deleg_server() {
	local verdict
	# No delegations while knfsd or lockd is in grace (10 s each here).
	sleep 15
	# Created here, not by the client: a read lease is refused while the
	# inode is open for write, and knfsd's file cache would keep the
	# client's write-open for a while.
	echo original >"$EXPORT_DIR/deleg" || return 1
	signal grace-over
	await deleg-open 300 || return 1
	verdict=$(nfsd_recall_by_write "$EXPORT_DIR/deleg")
	signal deleg-modified
	case $verdict in
	"granted=yes recalled=yes")
		;;
	granted=no*)
		cat /proc/fs/nfsd/clients/*/info /proc/fs/nfsd/clients/*/states
		fail "the client holds the file open but knfsd granted no delegation"
		return 1
		;;
	*)
		fail "the write did not recall the delegation ($verdict): still held, or it waited for the lease to expire"
		return 1
		;;
	esac
}

test_single() {
	local rc=0
	nfs_server_start || return 1
	deleg_server &
	subtest nfs4.1-deleg-recall deleg_client || rc=1
	wait $! || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_server() {
	local rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	subtest nfs4.1-recall-server-side deleg_server || rc=1
	await client-done 300 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client subtest nfs4.1-deleg-recall deleg_client
}
