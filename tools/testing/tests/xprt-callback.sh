# SPDX-License-Identifier: GPL-2.0
#
# The NFSv4.1 backchannel (RFC 8167) over the client transport: the
# server must see the callback path UP, and a delegation the client holds
# must be recalled promptly when the file changes on the server.
TIMEOUT=600

callback_client() {
	local rc=0
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	echo before >"$MNT/cbfile" || { nfs_umount; return 1; }
	nfs_umount || return 1
	nfs_mount 4.1 || return 1
	# A read open of an unshared file is what earns a read delegation.
	exec 3<"$MNT/cbfile"
	cat <&3 >/dev/null
	signal client-opened
	await server-wrote 120 || rc=1
	exec 3<&-
	grep -q after "$MNT/cbfile" || { fail "server's change not visible"; rc=1; }
	grep -E '^[[:space:]]*(xprt|DELEGRETURN|OPEN):' /proc/self/mountstats |
		sed 's/^/mountstats: /'
	nfs_umount || rc=1
	return $rc
}

callback_server() {
	local t0 t1 state rc=0
	await client-opened 300 || return 1
	state=$(cat /proc/fs/nfsd/clients/*/info 2>/dev/null | grep -i 'callback state')
	log "server sees: $state"
	case "$state" in
	*UP*) ;;
	*) fail "callback path is not UP: $state"; rc=1 ;;
	esac
	t0=$(date +%s.%N)
	echo after >"$EXPORT_DIR/cbfile" || rc=1
	t1=$(date +%s.%N)
	log "local write needing a recall took $(echo "$t1 - $t0" | bc) s"
	if [ "$(echo "$t1 - $t0 > 8" | bc)" = 1 ]; then
		fail "delegation recall took too long (callback not answered?)"
		rc=1
	fi
	signal server-wrote
	return $rc
}

test_server() {
	local rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	subtest callback-server callback_server || rc=1
	await client-done 300 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client subtest callback-client callback_client
}
