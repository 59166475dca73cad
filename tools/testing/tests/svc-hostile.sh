# SPDX-License-Identifier: GPL-2.0
#
# svcrdma against a hostile client: tools/testing/svcrdma/hostile.c sends
# transport headers no correct client would (wrong version, unknown and
# retired procedures, truncated and oversized chunk lists, a message too
# short to carry an XID, a Read chunk with a bogus steering tag) and
# checks each gets the RFC 8166 answer, that the connection survives what
# it should and is closed otherwise, and that the server still serves a
# new connection.  tools/testing/tests/hostile.sh is the wider suite.  The harness fails the run on any
# oops or WARN, and on a module that will not unload.

TIMEOUT=600

hostile_run() {
	gcc -O2 -o /tmp/hostile "$REPO/tools/testing/svcrdma/hostile.c" \
		-lrdmacm -libverbs || { fail "cannot build hostile.c"; return 1; }
	/tmp/hostile "$SERVER_ADDR" "$NFS_PORT"
}

test_server() {
	local rc=0
	nfs_server_start || { signal abort; return 1; }
	signal server-ready
	await client-done 500 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	local rc=0
	await server-ready 300 || return 1
	nfs_client_prepare || rc=1
	subtest hostile-headers hostile_run || rc=1
	signal client-done
	return $rc
}
