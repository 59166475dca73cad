# SPDX-License-Identifier: GPL-2.0
#
# A hostile client (tools/testing/hostile) throws malformed RPC-over-RDMA
# messages at the server while an honest client keeps verified I/O going
# on an NFS mount of the same server.  Every hostile case must get the
# protocol's error reply or a closed connection, the honest I/O must finish
# and verify, and (through the harness) neither kernel may splat.
TIMEOUT=900

# honest_io DIR ROUNDS: write, re-read and compare files until told to stop.
honest_io() {
	local dir=$1 i sum
	mkdir -p "$dir" || return 1
	for ((i = 0; i < $2; i++)); do
		head -c 4194304 /dev/urandom >/tmp/honest.bin
		sum=$(sha256sum </tmp/honest.bin)
		cp /tmp/honest.bin "$dir/f$i" || return 1
		[ "$(sha256sum <"$dir/f$i")" = "$sum" ] || return 1
		rm -f "$dir/f$i"
		[ -e /tmp/honest.stop ] && break
	done
	return 0
}

hostile_run() {
	local pid rc=0
	nfs_client_prepare || return 1
	nfs_mount 4.1 || return 1
	honest_io "$MNT/honest" 1000 &
	pid=$!
	"$REPO/tools/testing/hostile/build/hostile" "$SERVER_ADDR" \
		>/results/hostile.txt 2>&1 || rc=1
	cat /results/hostile.txt
	touch /tmp/honest.stop
	wait "$pid" || { fail "honest client I/O failed during the attack"; rc=1; }
	rm -rf "$MNT/honest"
	nfs_umount || rc=1
	return $rc
}

test_server() {
	serve_nfs 800
}

test_client() {
	as_client subtest hostile-cases hostile_run
}
