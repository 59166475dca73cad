# SPDX-License-Identifier: GPL-2.0
#
# Drop-in: a listener bound to one address follows it through a bonding
# failover.  The server's address moves onto an active-backup bond of its
# NIC and a dummy (fail_over_mac=active, so a failover changes the bond's
# MAC), with the RDMA device on the bond, and nfsd's RDMA listener is
# bound to that address alone (netlink listener-set: Linux 6.10+, so this
# runs on the 6.12 kernel).  The client mounts and writes a file; the
# server fails over to the dummy and back.  Each failover gives the
# listener RDMA_CM_EVENT_ADDR_CHANGE: ours must listen again (its
# listener_relistens counter rises by one each time and it logs so),
# where closing the listener would leave nfsd deaf on RDMA for good.  The
# client must then read its file back over a new connection, and new
# mounts of NFSv3 and v4.1 must pass the file suite.
#
# What it does not show: with one RDMA device, on the bond, the old CM id
# would have gone on accepting, so this proves that the listener is not
# closed and that its new id works, not that it follows an address to
# another device.  The debug kernel is 6.1, which has no listener-set, so
# the relisten path runs on Debian's 6.12 only, without KASAN or lockdep.

# shellcheck source=tools/testing/tests/svcrdma-stats.inc
. "$(dirname "${BASH_SOURCE[0]}")/svcrdma-stats.inc"

TIMEOUT=900
FILE_SIZES="0 1 4095 4096 1048577 4194304"
BOND_SPARE=spare0

# bond_up: the server's address and RDMA device from eth0 onto bond0.
bond_up() {
	rdma_dev_del || { fail "cannot delete $RDMA_DEV from eth0"; return 1; }
	ip addr flush dev eth0 || return 1
	ip link set eth0 down || return 1
	modprobe bonding max_bonds=0 || return 1
	modprobe dummy numdummies=0 || return 1
	ip link add bond0 type bond mode active-backup miimon 100 \
		fail_over_mac active || return 1
	ip link add "$BOND_SPARE" type dummy || return 1
	ip link set eth0 master bond0 || return 1
	ip link set "$BOND_SPARE" master bond0 || return 1
	ip link set bond0 up || return 1
	echo eth0 >/sys/class/net/bond0/bonding/active_slave || return 1
	ip addr add "$SERVER_ADDR/24" dev bond0 || return 1
	rdma_dev_add bond0 || return 1
	log "bond0: active $(cat /sys/class/net/bond0/bonding/active_slave), mac $(cat /sys/class/net/bond0/address)"
}

relistens() {
	if svc_stats_on; then
		cat "$SVC_STATS/listener_relistens"
	else
		echo 0
	fi
}

# fail_over SLAVE: make SLAVE the bond's active port; our listener must
# listen again within 30 s (times the time scale).
fail_over() {
	local to=$1 was now i mac
	was=$(relistens)
	mac=$(cat /sys/class/net/bond0/address)
	echo "$to" >/sys/class/net/bond0/bonding/active_slave ||
		{ fail "cannot make $to active"; return 1; }
	[ "$(cat /sys/class/net/bond0/bonding/active_slave)" = "$to" ] ||
		{ fail "bond0 did not fail over to $to"; return 1; }
	log "bond0: active $to, mac $mac -> $(cat /sys/class/net/bond0/address)"
	svc_stats_on || return 0
	for ((i = 0; i < 300 * ${TIME_SCALE:-1}; i++)); do
		now=$(relistens)
		# One event may be counted twice (it can queue the work again
		# while the work runs); what matters is that it listens again.
		if [ "$now" -gt "$was" ]; then
			log "listener_relistens $was -> $now after $((i / 10)) s"
			dmesg | grep 'svcrdma: listener' | tail -2 | while read -r l; do log "$l"; done
			return 0
		fi
		sleep 0.1
	done
	fail "listener_relistens is still $was 30 s after failing over to $to"
	dmesg | grep 'svcrdma\|RDMA CM' | tail -5 | while read -r l; do log "$l"; done
	return 1
}

# listener_bound: nfsd's RDMA listener is the bound one.
listener_bound() {
	grep -q "^rdma $NFS_PORT" /proc/fs/nfsd/portlist ||
		{ fail "no rdma listener in portlist"; return 1; }
	rdma res show cm_id 2>/dev/null | grep -q "state LISTEN.*src-addr $SERVER_ADDR:$NFS_PORT" ||
		{ fail "no CM id listening on $SERVER_ADDR:$NFS_PORT: $(rdma res show cm_id | tr '\n' ';')"; return 1; }
}

test_server() {
	local rc=0
	subtest bond-up bond_up || { signal abort; return 1; }
	NFSD_RDMA=bound nfs_server_start || { signal abort; return 1; }
	subtest dropin-relisten-bound listener_bound || rc=1
	signal server-ready
	if await client-wrote 300; then
		subtest dropin-relisten-failover fail_over "$BOND_SPARE" || rc=1
		subtest dropin-relisten-failback fail_over eth0 || rc=1
		subtest dropin-relisten-still-bound listener_bound || rc=1
	else
		rc=1
	fi
	signal failed-back
	await client-done 600 || rc=1
	nfs_server_stop || rc=1
	return $rc
}

write_before() {
	nfs_client_prepare || return 1
	nfs_mount 4.2 || return 1
	head -c 2000000 /dev/urandom >/tmp/relisten.bin
	cp /tmp/relisten.bin "$MNT/relisten.bin" && sync ||
		{ fail "write before the failover failed"; return 1; }
}

# The connection the failover broke must come back through the listener.
read_after() {
	echo 3 >/proc/sys/vm/drop_caches
	timeout 300 cmp /tmp/relisten.bin "$MNT/relisten.bin" ||
		{ fail "read back after the failovers failed"; return 1; }
	rm -f "$MNT/relisten.bin"
	nfs_umount
}

test_client() {
	local rc=0 v
	await server-ready 300 || return 1
	subtest dropin-relisten-write write_before || rc=1
	signal client-wrote
	if await failed-back 300; then
		subtest dropin-relisten-reconnect read_after || rc=1
		for v in 3 4.1; do
			subtest "dropin-relisten-nfs$v-files" file_suite "$v" || rc=1
		done
	else
		rc=1
	fi
	signal client-done
	return $rc
}
