# SPDX-License-Identifier: GPL-2.0
#
# Nothing loaded by hand: after 'make install', the admin's own steps must
# bring our modules in on demand, never the in-tree rpcrdma.  The server
# gets svcrdma from a portlist write and then, after a full stop and
# unload, from rpc.nfsd reading rdma=y from /etc/nfs.conf.  The client
# gets xprtrdma from a plain 'mount -o rdma' (the kernel asks modprobe for
# "rpcrdma", which our modprobe.d install command resolves).
TIMEOUT=600

# on_demand MODULE: MODULE came in, from our install, and rpcrdma did not.
on_demand() {
	[ -d "/sys/module/$1" ] || { fail "$1 was not loaded on demand"; return 1; }
	[ -d /sys/module/rpcrdma ] && { fail "the in-tree rpcrdma was loaded"; return 1; }
	modinfo -n "$1" | grep -q /updates/nfsrdma/ ||
		{ fail "$1 resolves to $(modinfo -n "$1")"; return 1; }
	log "$1 loaded on demand, refcnt $(cat "/sys/module/$1/refcnt")"
}

not_loaded() {
	local m
	for m in "$@"; do
		[ -d "/sys/module/$m" ] && { fail "$m is loaded before the test"; return 1; }
	done
	return 0
}

# unload_soon MODULE: the last user let go (transports are freed from
# work items, so allow a few seconds) and modprobe -r takes it out.
unload_soon() {
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(cat "/sys/module/$1/refcnt")" = 0 ] && break
		sleep 0.1
	done
	modprobe -r "$1" || { fail "$1 cannot be unloaded (refcnt $(cat "/sys/module/$1/refcnt"))"; return 1; }
}

listening() {
	grep -qx "rdma $NFS_PORT" /proc/fs/nfsd/portlist ||
		{ fail "no rdma $NFS_PORT in the portlist"; return 1; }
}

# serve_phase NAME: serve until the client is done with phase NAME.
serve_phase() {
	on_demand svcrdma && listening || { signal abort; return 1; }
	signal "server-ready-$1"
	await "client-done-$1" 400 || return 1
	nfs_server_stop
}

# An unload between the phases proves the listener let go of the module
# and that the second phase loads it afresh.
server_phases() {
	not_loaded svcrdma xprtrdma rpcrdma &&
		AUTOLOAD=1 nfs_server_start &&
		subtest portlist serve_phase portlist || return 1
	unload_soon svcrdma || return 1
	not_loaded svcrdma &&
		AUTOLOAD=1 NFSD_RDMA=conf nfs_server_start &&
		subtest nfs-conf serve_phase nfs-conf
}

# client_phase NAME VERS: mount with nothing loaded, write, drop caches,
# read back and compare, unmount, unload.
client_phase() {
	local rc=0
	await "server-ready-$1" 300 || return 1
	not_loaded xprtrdma rpcrdma || rc=1
	if [ $rc = 0 ] && nfs_mount "$2"; then
		on_demand xprtrdma || rc=1
		head -c 3000000 /dev/urandom >/tmp/autoload.bin
		cp /tmp/autoload.bin "$MNT/autoload-$1" || { fail "write failed"; rc=1; }
		nfs_umount || rc=1
		echo 3 >/proc/sys/vm/drop_caches
		nfs_mount "$2" || rc=1
		cmp /tmp/autoload.bin "$MNT/autoload-$1" || { fail "read-back differs"; rc=1; }
		rm -f "$MNT/autoload-$1"
		nfs_umount || rc=1
		unload_soon xprtrdma || rc=1
	else
		rc=1
	fi
	signal "client-done-$1"
	return $rc
}

client_phases() {
	local rc=0
	AUTOLOAD=1 nfs_client_prepare || return 1
	subtest mount-v3 client_phase portlist 3 || rc=1
	subtest mount-v4.1 client_phase nfs-conf 4.1 || rc=1
	return $rc
}

test_server() {
	server_phases || { signal abort; return 1; }
}

test_client() {
	client_phases
}
