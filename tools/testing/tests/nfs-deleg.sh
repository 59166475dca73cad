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
	local t0 t1 i
	# No delegations while knfsd or lockd is in grace (10 s each here).
	sleep 15
	# Created here, not by the client: a read lease is refused while the
	# inode is open for write, and knfsd's file cache would keep the
	# client's write-open for a while.
	echo original >"$EXPORT_DIR/deleg" || return 1
	signal grace-over
	await deleg-open 300 || return 1
	for ((i = 0; i < 20; i++)); do
		nfsd_delegation_held && break
		sleep 1
	done
	if ! nfsd_delegation_held; then
		cat /proc/fs/nfsd/clients/*/info /proc/fs/nfsd/clients/*/states
		signal deleg-modified
		fail "the client holds the file open but knfsd granted no delegation"
		return 1
	fi
	t0=$(date +%s%N)
	echo changed >>"$EXPORT_DIR/deleg" || return 1
	t1=$(date +%s%N)
	log "local write waited $(((t1 - t0) / 1000000)) ms for the recall"
	signal deleg-modified
	if nfsd_delegation_held; then
		fail "the delegation is still held after the write"
		return 1
	fi
	# A lease of 10 s runs out after 10 s: a recall that worked is faster.
	[ $(((t1 - t0) / 1000000)) -lt 8000 ] ||
		fail "the write waited for the lease to expire: recall did not complete"
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
