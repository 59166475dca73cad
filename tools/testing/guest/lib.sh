# SPDX-License-Identifier: GPL-2.0
#
# Helpers for test bodies running inside a guest (sourced by stage2.sh).
#
# Environment from /results/env: TEST (one test, or several joined by "+"
# that share this boot), TOPOLOGY (1vm|2vm), REPO, KVER, KERNEL
# (debian|debug), FABRIC (rxe|siw), CLIENT_TRANSPORT and SERVER_TRANSPORT
# (intree|ours), NFS_PORT, TIME_SCALE (what the harness multiplied the
# test's TIMEOUT by for this kernel).  stage2.sh sets CUR_TEST to the test running now
# when the boot is shared: its rendezvous names and subtest names are then
# its own, so one test's "client-done" never releases the next test's
# server.

SERVER_ADDR=192.0.2.1
CLIENT_ADDR=192.0.2.2
CLIENT2_ADDR=192.0.2.3
EXPORT_DIR=/srv/nfs
MNT=/mnt/nfs
NFS_PORT=${NFS_PORT:-20049}

# bash's own strftime: no date(1) forked for every line, which the
# debug kernel makes slow.
log() {
	printf '[%(%T)T] %s\n' -1 "$*"
}

fail() {
	log "FAIL: $*"
	return 1
}

# The tracing filesystem: tests read our modules' tracepoints there.
TRACEFS=/sys/kernel/tracing

# tracefs_mount: mount tracefs at $TRACEFS unless it is mounted already.
tracefs_mount() {
	mountpoint -q $TRACEFS || mount -t tracefs nodev $TRACEFS ||
		fail "cannot mount tracefs"
}

# trace_event_on EVENT: record EVENT ("system/event", or "system" for all
# of a system's events) from now on, mounting tracefs first if need be.
# Fails, saying so, where the loaded modules have no such tracepoint.
trace_event_on() {
	tracefs_mount || return 1
	[ -e "$TRACEFS/events/$1/enable" ] || fail "no ${1##*/} tracepoint" || return 1
	echo 1 >"$TRACEFS/events/$1/enable"
}

# trace_event_off EVENT: stop recording EVENT.
trace_event_off() {
	echo 0 >"$TRACEFS/events/$1/enable"
}

# exit_guest RC [why]: record this VM's verdict for the host and power off.
# We are PID 1: returning would panic the kernel.
exit_guest() {
	[ -n "${2:-}" ] && log "$2"
	echo "$1" >"/results/$role.rc"
	echo "NFSRDMA-EXIT: $1" >/dev/console
	sync
	/bin/busybox poweroff -f
}

# In a shared boot, what prefixes this test's subtest and rendezvous names.
test_ns() {
	[ -n "${CUR_TEST:-}" ] && echo "$CUR_TEST/"
}

# subtest NAME CMD...: run one named check; the host turns each into a TAP line.
# Each check also leaves its span of uptime ("BEGIN END NAME") in
# ROLE-passed.txt or ROLE-failed.txt: transport errors inside a passed one
# were provoked or survived, and the host's link-stall rule (lib/run.sh
# link_error_before_stall) does not hold them against a later stall;
# errors inside a failed one always stand.
subtest() {
	local name=$1 begin end
	shift
	log "--- subtest $(test_ns)$name"
	read -r begin _ </proc/uptime
	if "$@"; then
		echo "ok $role $(test_ns)$name" >>/results/subtests
		read -r end _ </proc/uptime
		echo "$begin $end $(test_ns)$name" >>"/results/$role-passed.txt"
		return 0
	fi
	echo "not ok $role $(test_ns)$name" >>/results/subtests
	read -r end _ </proc/uptime
	echo "$begin $end $(test_ns)$name" >>"/results/$role-failed.txt"
	return 1
}

# sync_path NAME: set SYNC_PATH to the file a rendezvous NAME is, in this
# test's namespace; "abort" is the boot's: a guest that gives up ends
# every test after it.  No subshell, unlike $(sync_file NAME): the waits
# below poll it, and a fork is slow on the debug kernel.
sync_path() {
	if [ "$1" = abort ] || [ -z "${CUR_TEST:-}" ]; then
		SYNC_PATH=/results/sync.$1
	else
		SYNC_PATH=/results/sync.$CUR_TEST.$1
	fi
}

# sync_file NAME: print that file's name.
sync_file() {
	sync_path "$1"
	echo "$SYNC_PATH"
}

# signal NAME / await NAME [SECONDS]: rendezvous between the two VMs through
# the shared results directory.  signalled NAME: whether NAME was signalled.
signal() {
	sync_path "$1"
	: >"$SYNC_PATH"
}

signalled() {
	sync_path "$1"
	[ -e "$SYNC_PATH" ]
}

await() {
	local i
	# The harness stretches a test's own timeout on slow kernels (the
	# debug kernel's KASAN and lockdep); a wait for the peer stretches
	# with it, or it would give up while the peer is still on time.
	for ((i = 0; i < ${2:-600} * ${TIME_SCALE:-1}; i++)); do
		signalled "$1" && return 0
		if signalled abort; then
			fail "peer aborted while waiting for $1"
			return 1
		fi
		sleep 1
	done
	fail "timed out waiting for $1"
}

# nfs_serve_prepared: start serving, then run the test's server_prepare
# hook (content the server creates locally) if it defines one.
nfs_serve_prepared() {
	nfs_server_start || return 1
	if declare -F server_prepare >/dev/null; then
		server_prepare || fail "server_prepare failed" || return 1
	fi
}

# serve_nfs SECONDS: the server VM's whole part in a two-VM NFS test:
# serve until the client says it is done (or SECONDS pass), then stop.
serve_nfs() {
	local rc=0
	nfs_serve_prepared || { signal abort; return 1; }
	signal server-ready
	await client-done "$1" || rc=1
	nfs_server_stop || rc=1
	return $rc
}

# as_client CMD...: the client VM's part: wait for the server, run CMD,
# and release the server whatever CMD returned.
as_client() {
	local rc=0
	await server-ready 300 || return 1
	"$@" || rc=1
	signal client-done
	return $rc
}

# local_nfs CMD...: one VM plays both parts: serve, run CMD as the client,
# stop serving.
local_nfs() {
	local rc=0
	nfs_serve_prepared || return 1
	"$@" || rc=1
	nfs_server_stop || rc=1
	return $rc
}

transport_of() {
	if [ "$1" = server ]; then echo "$SERVER_TRANSPORT"; else echo "$CLIENT_TRANSPORT"; fi
}

# install_ours: put our modules into the guest's module tree (a tmpfs
# overlay) as 'make install' laid them out on the host, module index and
# modprobe configuration included.
install_ours() {
	local src=$REPO/build/modroot-$KVER
	[ -e /etc/modprobe.d/nfsrdma.conf ] && return 0
	cp -r "$src/lib/modules/$KVER/updates" "/lib/modules/$KVER/" || return 1
	cp "$src/lib/modules/$KVER"/modules.* "/lib/modules/$KVER/" || return 1
	cp "$src/etc/modprobe.d/nfsrdma.conf" /etc/modprobe.d/
}

# load_transport ROLE: load the RPC-over-RDMA transport the test chose for
# this role (client, server, or both in one VM).  SVCRDMA_PARAMS=NAME=VALUE,...
# and XPRTRDMA_PARAMS=NAME=VALUE,... (tests.conf words) give our server and
# client modules parameters.
load_transport() {
	local t list
	local -a params
	t=$(transport_of "$1")
	case "$t" in
	intree)
		modprobe rpcrdma || return 1
		;;
	ours)
		install_ours || return 1
		if [ "$1" = server ]; then
			list=${SVCRDMA_PARAMS:-}
			read -ra params <<<"${list//,/ }"
			modprobe svcrdma "${params[@]}" || return 1
		else
			list=${XPRTRDMA_PARAMS:-}
			read -ra params <<<"${list//,/ }"
			modprobe xprtrdma "${params[@]}" || return 1
		fi
		;;
	*)
		fail "unknown transport '$t'"
		;;
	esac
	rdma_sysctls
}

# rdma_sysctls: RDMA_SYSCTLS=NAME=VALUE,... (a tests.conf or bench word)
# set after the transport loaded, so before any connection: those this
# VM's modules have (a client's, a server's), the others skipped.
rdma_sysctls() {
	local kv name
	[ -n "${RDMA_SYSCTLS:-}" ] || return 0
	for kv in ${RDMA_SYSCTLS//,/ }; do
		name=${kv%%=*}
		if [ ! -e "/proc/sys/${name//.//}" ]; then
			log "sysctl $name: not on this VM's modules, skipped"
			continue
		fi
		sysctl -w "$kv" || { fail "sysctl -w $kv failed"; return 1; }
	done
}

# The RDMA device the fabric puts on the NIC: soft-RoCE (rxe) or
# soft-iWARP (siw, the debug kernel only: Debian's does not build it).
RDMA_TYPE=${FABRIC:-rxe}
RDMA_DEV=${RDMA_TYPE}0

# rdma_dev_add NETDEV: put $RDMA_DEV on NETDEV and wait until it is ACTIVE.
rdma_dev_add() {
	local i mod=rdma_rxe
	[ "$RDMA_TYPE" = siw ] && mod=siw
	modprobe "$mod" || return 1
	rdma link add "$RDMA_DEV" type "$RDMA_TYPE" netdev "$1" || return 1
	for ((i = 0; i < 50; i++)); do
		rdma link show "$RDMA_DEV/1" 2>/dev/null | grep -q 'state ACTIVE' && return 0
		sleep 0.2
	done
	rdma link show
	fail "$RDMA_DEV did not become ACTIVE"
}

# rdma_dev_del: take $RDMA_DEV away, as an admin's 'rdma link delete' does.
rdma_dev_del() {
	rdma link delete "$RDMA_DEV"
}

# log_rdma_state: the RDMA device's view, for a test that finds its
# transport stuck: its port counters (does it still take packets in and
# send any out), and the QPs and CM ids it holds.
log_rdma_state() {
	log "rdma counters: $(grep -H . "/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters/"* 2>/dev/null | sed 's|.*/||' | tr '\n' ' ')"
	log "rdma qps: $(rdma res show qp 2>&1 | tr '\n' ';')"
	log "rdma cm ids: $(rdma res show cm_id 2>&1 | tr '\n' ';')"
	log "rdma gids: $(cd "/sys/class/infiniband/$RDMA_DEV/ports/1/gids" 2>/dev/null &&
		grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$' -H -- * 2>/dev/null | tr '\n' ' ')"
}

# net_up: bring up the RDMA fabric on a dummy netdev in one VM, on the
# virtio NIC that joins the two VMs otherwise.  Addresses come from the
# documentation range: these links reach nothing but the other test VM.
net_up() {
	local dev addr
	ip link set lo up
	if [ "$TOPOLOGY" = 1vm ]; then
		modprobe dummy numdummies=0 || return 1
		ip link add eth0 type dummy || return 1
		dev=eth0 addr=$SERVER_ADDR
	else
		modprobe virtio_net || return 1
		dev=eth0
		case "$role" in
		server) addr=$SERVER_ADDR ;;
		client) addr=$CLIENT_ADDR ;;
		*) addr=$CLIENT2_ADDR ;;
		esac
	fi
	ip addr add "$addr/24" dev "$dev" || return 1
	# NET_MTU (make bench's jumbo columns): set before the RDMA device
	# appears, which takes its path MTU from the netdev's.
	if [ -n "${NET_MTU:-}" ]; then
		ip link set "$dev" mtu "$NET_MTU" || return 1
	fi
	ip link set "$dev" up || return 1
	rdma_dev_add "$dev"
}

# link_counts DEV: DEV's packet and drop counters, so that a run whose
# link stops shows which direction stopped first and whether the guest
# dropped.
link_counts() {
	local d=/sys/class/net/$1/statistics n v out=
	for n in rx_packets rx_dropped tx_packets tx_dropped; do
		read -r v 2>/dev/null <"$d/$n" || v='?'
		out+="$n $v "
	done
	echo "${out% }"
}

# link_watch: in a two-VM guest, eth0's counters, the bytes its transmit
# queue holds, the packets its queueing discipline dropped and the
# kernel's UDP receive errors (rxe's input) every 10 s into
# /results/ROLE-link.txt.  The emulated link between the VMs has stopped
# now and then (README), in either direction, and both guests' rows side
# by side say which queue stopped moving first and whether a guest was
# dropping what it received.  rxe's responder sends an RDMA Read's
# response packets without waiting for the device, so a burst longer than
# the qdisc's queue would be dropped there, before eth0 counts it:
# qdisc_drops.  (So far it has stayed 0; the loss was in the host's UDP
# buffer between the QEMUs, seen as one guest's tx_packets running ahead
# of the other's rx_packets.)
#
# tx_packets alone is read every second, and each row ends with the last
# value so read (tx_seen; the row's own tx_packets is read later, and a
# frame may go out in between) and tx_moved_at, the uptime at which that
# value was first seen:
# when the emulator stops taking a guest's frames, that says within a
# second when (lib/run.sh link_tx_frozen_at), where the rows alone leave
# ten; a transport with a 268 ms RC timeout gives up on its peer about two
# seconds in.  The second's wait is a nap, so the sampling forks nothing.
#
# With each row, the uptime alone is written over one of six files,
# /results/ROLE-clock.0 to .5 in turn: the host stamps a file's mtime with
# its own clock as the write arrives (the results mount is uncached), so
# each gives the host time of the guest's boot, late by however long the
# write took, and the host takes the earliest of the last minute's six to
# set one guest's log times against the other's (lib/run.sh guest_epoch).
# Builtins only: no fork between the read and the write.
link_watch() {
	local q=/sys/class/net/eth0/queues/tx-0/byte_queue_limits/inflight inflight udp qd
	local tx last='' moved='?' n=0 up
	[ "$TOPOLOGY" = 2vm ] || return 0
	(
		while :; do
			nap 1
			read -r tx 2>/dev/null </sys/class/net/eth0/statistics/tx_packets || tx='?'
			[ "$tx" = "$last" ] || { last=$tx; read -r moved _ </proc/uptime; }
			(((n += 1) % 10)) && continue
			# One read of the clock for the clock file and the row,
			# so the row's time is the one the host's epoch rests on.
			if read -r up _ </proc/uptime; then
				echo "$up" >"/results/$role-clock.$((n / 10 % 6))"
			else
				up='?'
			fi
			read -r inflight 2>/dev/null <"$q" || inflight='?'
			udp=$(awk '$1 == "Udp:" && $2 ~ /^[0-9]/ { print "udp_in " $2 " udp_in_errors " $4 " udp_rcvbuf_errors " $6 }' /proc/net/snmp)
			qd=$(qdisc_drops eth0)
			echo "$up $(link_counts eth0) tx_inflight $inflight qdisc_drops ${qd:-?} $udp tx_seen $last tx_moved_at $moved"
		done >>"/results/$role-link.txt" 2>/dev/null
	) &
}

# nap SECONDS: sleep without a fork.  On the debug kernel under TCG a fork
# and exec take a second or more, so a poll loop built of sleep(1), grep(1)
# or date(1) samples far more slowly than it says.  The wait is a read
# timing out on the FIFO guest_prepare made, which nobody writes (opened
# read-write, so the open does not block).  Without that FIFO, or if the
# read ends any other way than by its timeout (status above 128), it
# sleeps instead, so that a caller's loop cannot spin.
NAP_FIFO=/run/nfsrdma/nap
nap() {
	if [ -p "$NAP_FIFO" ]; then
		read -r -t "$1" _ 2>/dev/null <>"$NAP_FIFO"
		(($? > 128)) && return 0
	fi
	sleep "$1"
}

# qdisc_drops DEV: packets DEV's root queueing discipline has dropped
# (for a multiqueue device, its queues' sum), or nothing if tc cannot say.
qdisc_drops() {
	tc -s qdisc show dev "$1" 2>/dev/null |
		awk '/dropped/ { gsub(/[(),]/, ""); for (i = 1; i < NF; i++) if ($i == "dropped") { print $(i + 1); exit } }'
}

guest_prepare() {
	local d
	# Fresh /run and /tmp hide the host's runtime state, but must not hide
	# the checkout itself (CI may clone under /tmp).  Writes land in the
	# overlay's tmpfs either way.
	for d in /run /tmp; do
		case "$REPO/" in
		"$d"/*) ;;
		*) mount -t tmpfs tmpfs "$d" ;;
		esac
	done
	mkdir -p /dev/pts /dev/shm
	mount -t devpts devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	# devtmpfs has no /dev/fd; bash process substitution needs it.
	ln -sfn /proc/self/fd /dev/fd
	hostname "$1"
	# A task blocked this long in a test VM is a bug, and the log scanner
	# fails the test on the report.
	sysctl -qw kernel.hung_task_timeout_secs=60
	sysctl -qw kernel.panic_on_oops=1
	[ -p "$NAP_FIFO" ] || { mkdir -p "${NAP_FIFO%/*}" && mkfifo "$NAP_FIFO"; }
	log "guest $1: kernel $(uname -r), test $TEST ($TOPOLOGY, client=$CLIENT_TRANSPORT server=$SERVER_TRANSPORT)"
	if [ "${KERNEL:-debian}" = debug ]; then
		debug_prepare || return 1
	fi
	net_up
}

# debug_prepare: on the debug kernel, have every load of one of our
# modules recorded for the leak check at the end (guest/kmemleak.sh).
debug_prepare() {
	local m
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug || return 1
	for m in xprtrdma svcrdma nfsrdma_wire; do
		echo "install $m /sbin/modprobe --ignore-install $m \$CMDLINE_OPTS && /bin/bash $REPO/tools/testing/guest/kmemleak.sh record $m"
	done >/etc/modprobe.d/nfsrdma-kmemleak.conf
}

# fabric_counters: the RDMA devices' own counters that moved during the
# boot (retries, sequence errors, RNR NAKs), for reading a slow or
# stalled run; a diagnostic only, it never fails.
fabric_counters() {
	local f v
	for f in /sys/class/infiniband/*/ports/*/hw_counters/*; do
		[ -r "$f" ] || continue
		read -r v 2>/dev/null <"$f" || continue
		[ "$v" != 0 ] && log "fabric: ${f#/sys/class/infiniband/} $v"
	done
	return 0
}

# leak_check: on the debug kernel, after the teardown: no unreferenced
# object allocated through our modules.
leak_check() {
	[ "${KERNEL:-debian}" = debug ] || return 0
	bash "$REPO/tools/testing/guest/kmemleak.sh" check "$role" ||
		fail "kmemleak: objects allocated through our modules leaked"
}

# export_fs_mount: the export's file system at $EXPORT_DIR: a tmpfs, or
# with EXPORT_FS=ext4 an ext4 on a loop device (user xattrs of up to
# 64 KiB through ea_inode, POSIX ACLs), for what tmpfs lacks.
export_fs_mount() {
	if [ "${EXPORT_FS:-tmpfs}" = ext4 ]; then
		modprobe loop && modprobe ext4 &&
			truncate -s 512M /tmp/export.img &&
			mkfs.ext4 -q -F -O ea_inode /tmp/export.img &&
			mount -o loop,user_xattr,acl /tmp/export.img "$EXPORT_DIR"
	else
		mount -t tmpfs -o size=600m tmpfs "$EXPORT_DIR"
	fi
}

# nfs_server_start: knfsd exporting a tmpfs, listening on TCP 2049 and on
# RDMA $NFS_PORT, the way an admin's recipe does it: the RDMA listener is
# added through the portlist or, with NFSD_RDMA=conf, by rpc.nfsd from
# /etc/nfs.conf.  NFSD_RDMA=bound binds it to $SERVER_ADDR alone, through
# nfsd's netlink listener-set (Linux 6.10+), as nfsdctl would.  With
# AUTOLOAD=1 nothing loads the transport by hand: nfsd must have it loaded
# on demand.
nfs_server_start() {
	if [ "${AUTOLOAD:-0}" = 1 ]; then
		[ "$SERVER_TRANSPORT" = ours ] && { install_ours || return 1; }
	else
		load_transport server || return 1
	fi
	modprobe nfsd || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	mkdir -p "$EXPORT_DIR" /var/lib/nfs/v4recovery /run/rpcbind
	export_fs_mount || return 1
	chmod 1777 "$EXPORT_DIR"
	# fsid=0 makes the export the NFSv4 root: mountd cannot build a v4
	# pseudo-root over the guest's overlayfs root, which is not exportable.
	# EXPORT_OPTS: a test's own export options (sec=krb5:krb5i:krb5p).
	echo "$EXPORT_DIR *(rw,no_root_squash,insecure,no_subtree_check,fsid=0${EXPORT_OPTS:+,$EXPORT_OPTS})" >/etc/exports
	rpcbind || return 1
	exportfs -ra || return 1
	rpc.mountd || return 1
	rpc.statd --no-notify 2>/dev/null
	# The NFSv4 grace period would stall every first OPEN for 90 s, and
	# lockd's (50 s by default) holds back delegations as long.
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	sysctl -qw fs.nfs.nlm_grace_period=10
	if [ "${NFSD_RDMA:-portlist}" = conf ]; then
		# Kept for nfs_server_stop: in a shared boot the next test's
		# rpc.nfsd would open the listener itself and its portlist
		# write would then fail.
		[ -e /run/nfsrdma-nfs.conf ] || cp /etc/nfs.conf /run/nfsrdma-nfs.conf
		grep -q '^\[nfsd\]' /etc/nfs.conf || echo '[nfsd]' >>/etc/nfs.conf
		sed -i "/^\\[nfsd\\]/a rdma=y\\nrdma-port=$NFS_PORT" /etc/nfs.conf
		rpc.nfsd 8 || return 1
	elif [ "${NFSD_RDMA:-portlist}" = bound ]; then
		# Listeners only while nfsd has no threads; the threads then
		# start on them, as rpc.nfsd would after opening its own.
		python3 "$REPO/tools/testing/guest/nfsd-listeners.py" \
			tcp:0.0.0.0:2049 "rdma:$SERVER_ADDR:$NFS_PORT" || return 1
		echo 8 >/proc/fs/nfsd/threads || return 1
	else
		rpc.nfsd 8 || return 1
		echo "rdma $NFS_PORT" >/proc/fs/nfsd/portlist || return 1
	fi
	grep -q "^rdma $NFS_PORT" /proc/fs/nfsd/portlist || fail "no rdma listener in portlist"
	log "nfsd listening: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
}

# nfsd_restart [PAUSE]: stop every nfsd thread, which closes each RDMA
# connection (the clients reconnect and retransmit), wait PAUSE seconds
# (3 by default), start 8 threads again and listen on RDMA again.
nfsd_restart() {
	rpc.nfsd 0 || return 1
	sleep "${1:-3}"
	rpc.nfsd 8 || return 1
	echo "rdma $NFS_PORT" >/proc/fs/nfsd/portlist
}

nfs_server_stop() {
	local pid i
	rpc.nfsd 0 &
	pid=$!
	# An nfsd thread that never comes back from a transport hangs the
	# stop for good, and the hung-task report names only rpc.nfsd: say
	# where each nfsd thread is while it can still be seen.
	for ((i = 0; i < 60 * ${TIME_SCALE:-1}; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
	done
	kill -0 "$pid" 2>/dev/null && nfsd_threads_dump "$i"
	wait "$pid" || return 1
	if [ -e /run/nfsrdma-nfs.conf ]; then
		cp /run/nfsrdma-nfs.conf /etc/nfs.conf && rm /run/nfsrdma-nfs.conf
	fi
	exportfs -ua
	# One pkill: each reads all of /proc, seconds on the debug kernel.
	pkill -x 'rpc\.mountd|rpc\.statd|rpcbind'
	umount "$EXPORT_DIR" || return 1
	umount /proc/fs/nfsd || return 1
}

# nfsd_threads_dump SECONDS: each nfsd thread's kernel stack, to the
# test's log, and every blocked task's to the kernel log (sysrq w).
nfsd_threads_dump() {
	local p comm
	log "rpc.nfsd 0 has waited $1 s for the nfsd threads; their stacks:"
	for p in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$p/comm" || continue
		[ "$comm" = nfsd ] || continue
		echo "${p#/proc/} nfsd:"
		cat "$p/stack" 2>/dev/null
	done
	echo w >/proc/sysrq-trigger
}

nfs_client_prepare() {
	if [ "${AUTOLOAD:-0}" = 1 ]; then
		[ "$CLIENT_TRANSPORT" = ours ] && { install_ours || return 1; }
	else
		load_transport client || return 1
	fi
	mkdir -p "$MNT" /run/rpcbind
	pgrep -x rpcbind >/dev/null || rpcbind
	pgrep -x rpc.statd >/dev/null || rpc.statd --no-notify 2>/dev/null
	return 0
}

# export_path VERS: the export's path as a client of that version names it.
export_path() {
	if [ "$1" = 3 ]; then echo "$EXPORT_DIR"; else echo /; fi
}

# incumbent_load_opts: the mount options for a load on the in-tree client
# over soft-RoCE, nothing otherwise.  Under a load it re-registers an MR
# that rxe still holds valid ("rxe_reg_fast_mr: ... not free" in its log),
# and then waits out a whole RPC timeout before it reconnects: 60 s at
# the default timeo, exactly our guests' hung-task limit (measured: a
# 65 MB copy took 63 s instead of 7, dropin-edges' fio blocked 60 s per
# refusal, and CI's make check on 7f2f001 failed on the hung-task report).
# With timeo=100 a refusal stalls it 10 s (a second one for the same call
# 20 s).  timeo is also how long a call may wait for its reply before the
# client breaks the connection, so a slower kernel (TIME_SCALE: the debug
# kernel's copies run at about 1 MB/s) gets it scaled, up to the default.
# Nothing of the server under test changes; our client keeps the default.
incumbent_load_opts() {
	local t=$((100 * ${TIME_SCALE:-1}))
	((t > 600)) && t=600
	if [ "$CLIENT_TRANSPORT" = intree ] && [ "${FABRIC:-rxe}" = rxe ]; then
		echo "timeo=$t"
	fi
}

# nfs_mount VERS [OPTIONS]: mount the export over RDMA and prove it is on
# RDMA.  NFS_HOST names the server (an IPv6 address in brackets mounts
# over rdma6); the default is the server VM's IPv4 address.
# NFS_MOUNT_OPTS adds options to every mount (sec=krb5p).
nfs_mount() {
	local line host=${NFS_HOST:-$SERVER_ADDR} proto=rdma
	# mount.nfs takes "rdma" as IPv4 only; IPv6 needs the rdma6 netid.
	[[ $host == \[* ]] && proto=rdma6
	mount -t nfs -o "vers=$1,proto=$proto,port=$NFS_PORT${NFS_MOUNT_OPTS:+,$NFS_MOUNT_OPTS}${2:+,$2}" \
		"$host:$(export_path "$1")" "$MNT" ||
		fail "mount vers=$1 over rdma failed" || return 1
	line=$(awk -v m="$MNT" '$2 == m' /proc/mounts)
	log "mounted: $line"
	case "$line" in
	*proto=$proto,*) ;;
	*) fail "mount of $MNT is not proto=$proto: $line" || return 1 ;;
	esac
	case "$line" in
	*port=$NFS_PORT,*) ;;
	*) fail "mount of $MNT is not on port $NFS_PORT: $line" || return 1 ;;
	esac
	case "$1" in
	3) [[ $line == *" nfs "*vers=3,* ]] || fail "not NFSv3: $line" ;;
	*) [[ $line == *" nfs4 "*vers=$1,* ]] || fail "not NFSv$1: $line" ;;
	esac
}

# xprt_fields N: field N of each RDMA transport line of $MNT's mountstats,
# a line each (nconnect gives a mount more than one), counting from the
# first number after "rdma" (the field numbers of Documentation/xprtrdma.rst).
xprt_fields() {
	awk -v m="$MNT" -v n="$1" '
		$1 == "device" { cur = ($5 == m) }
		cur && $1 == "xprt:" && $2 == "rdma" { print $(n + 2) }
	' /proc/self/mountstats
}

# xprt_field N: the same field of $MNT's first RDMA transport.
xprt_field() {
	xprt_fields "$1" | sed -n 1p
}

nfs_umount() {
	umount "$MNT" || fail "umount $MNT failed"
}

# mount_op_line OP [MNT]: the per-operation line of OP (READ, WRITE,
# DELEGRETURN, ...) for the mount on MNT ($MNT by default), from the
# client's mountstats: "OP: ops trans timeouts bytes_sent bytes_recv
# queue rtt execute ...", or nothing.
mount_op_line() {
	awk -v m="${2:-$MNT}" -v op="$1:" '$1 == "device" { cur = ($5 == m) }
		cur && $1 == op { print; exit }' /proc/self/mountstats
}

# delegreturns [MNT]: the DELEGRETURN count of the NFSv4 mount on MNT
# ($MNT by default), from the client's mountstats.
delegreturns() {
	mount_op_line DELEGRETURN "$@" | awk '{ print $2 }'
}

# nfsd_delegation_held [NAME]: the server's side: knfsd lists each
# client's state, a delegation with its file's name; true if one is held
# (on a file named NAME, if given).
nfsd_delegation_held() {
	grep -qs "type: deleg.*${1:-}" /proc/fs/nfsd/clients/*/states
}

# nfsd_recall_by_write FILE: the server's side of a recall: wait up to
# 20 s for knfsd to hold a delegation on FILE (a path in the export), then
# append to FILE locally, which must recall it first.  Prints
# "granted=yes|no recalled=yes|no" and logs (to stderr) how long the write
# waited.  Recalled: no delegation is left and the write waited under
# 8 s, since a lease of 10 s runs out by itself after 10 s.
nfsd_recall_by_write() {
	local f=$1 name=${1##*/} granted=no recalled=no i t0 ms
	for ((i = 0; i < 20; i++)); do
		nfsd_delegation_held "$name" && { granted=yes; break; }
		sleep 1
	done
	t0=$(now_ms)
	echo changed >>"$f" || log "cannot write $f" >&2
	ms=$(($(now_ms) - t0))
	log "granted=$granted; the local write to $name waited $ms ms" >&2
	! nfsd_delegation_held "$name" && [ "$ms" -lt 8000 ] && recalled=yes
	echo "granted=$granted recalled=$recalled"
}

now_ms() {
	date +%s%3N
}

# honest_rounds DIR LOG: write HONEST_SIZE random bytes (256 KiB unless the
# test says), re-read them with O_DIRECT (so the server answers every time)
# and compare, logging each verified round's end time in ms, until
# /tmp/honest.stop appears.  For tests that attack a server while an
# honest client uses it.
honest_rounds() {
	local dir=$1 log=$2 i sum
	mkdir -p "$dir" || return 1
	: >"$log"
	for ((i = 0; ; i++)); do
		[ -e /tmp/honest.stop ] && return 0
		head -c "${HONEST_SIZE:-262144}" /dev/urandom >/tmp/honest.bin
		sum=$(sha256sum </tmp/honest.bin)
		dd if=/tmp/honest.bin of="$dir/f$((i % 4))" bs=65536 oflag=direct \
			status=none || return 1
		[ "$(dd if="$dir/f$((i % 4))" bs=65536 iflag=direct status=none |
			sha256sum)" = "$sum" ] || { log "round $i: data differs"; return 1; }
		now_ms >>"$log"
	done
}

# splat_count: lines of this guest's kernel log, since the current test
# began (in a boot that several tests share), that the harness counts as
# a splat (VM_SPLAT, the one definition, in tools/testing/lib/vm.sh).
splat_count() {
	local re since=0
	re=$(sed -n "s/^VM_SPLAT='\(.*\)'\$/\1/p" "$REPO/tools/testing/lib/vm.sh")
	[ -n "$re" ] || { fail "cannot read VM_SPLAT" >&2; echo 1; return 1; }
	[ -s /run/nfsrdma/tests-begun ] &&
		since=$(tail -n 1 /run/nfsrdma/tests-begun | cut -d' ' -f1)
	dmesg | grep -E "$re" |
		awk -v s="$since" '{ t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t) }
			t + 0 >= s + 0 { n++ } END { print n + 0 }'
}

# Files that straddle every boundary the transport cares about: empty, one
# byte, one short of a page, a page, one past 1 MiB, and a long stream
# (64 MiB; the debug-kernel lines of check-full, where KASAN makes every copy
# slow, set STREAM_BYTES=16777216: still 64 full Read and Write chunks).
FILE_SIZES="0 1 4095 4096 1048577 ${STREAM_BYTES:-67108864}"

make_files() {
	local dir=$1 s
	mkdir -p "$dir"
	for s in $FILE_SIZES; do
		[ -e "$dir/f$s" ] && continue
		head -c "$s" /dev/urandom >"$dir/f$s" || return 1
	done
	(cd "$dir" && sha256sum f*) >"$dir.sha256"
}

# file_suite VERS: write the files, drop every cache, read back, compare.
# FILES_DIR: where the sources are kept (a test that sets its own
# FILE_SIZES in a shared boot keeps them apart from the others').
file_suite() {
	local v=$1 src=${FILES_DIR:-/tmp/files} dst t0 t1
	make_files "$src" || return 1
	nfs_mount "$v" "$(incumbent_load_opts)" || return 1
	dst=$MNT/v$v
	rm -rf "$dst"
	mkdir "$dst" || { nfs_umount; return 1; }
	t0=$(date +%s.%N)
	cp "$src"/f* "$dst"/ || { fail "write failed"; nfs_umount; return 1; }
	sync
	t1=$(date +%s.%N)
	log "v$v: wrote $(du -sb "$src" | cut -f1) bytes in $(echo "$t1 - $t0" | bc) s"
	nfs_umount || return 1
	echo 3 >/proc/sys/vm/drop_caches
	nfs_mount "$v" "$(incumbent_load_opts)" || return 1
	t0=$(date +%s.%N)
	if ! (cd "$dst" && sha256sum -c --quiet "$src.sha256"); then
		nfs_umount
		fail "v$v: read-back checksums differ"
		return 1
	fi
	t1=$(date +%s.%N)
	log "v$v: read back and verified in $(echo "$t1 - $t0" | bc) s"
	rm -rf "$dst"
	nfs_umount
}

# fio_verify_mounted: fio random read/write with verify=crc32c on the
# mount for FIO_SECONDS (files of FIO_SIZE, direct I/O, 4 KiB to 256 KiB),
# failing on any I/O or verify error.
fio_verify_mounted() {
	local rc=0
	fio --name=verify --directory="$MNT" --rw=randrw --bs=4k-256k --bsrange=4k-256k \
		--size="${FIO_SIZE:-64m}" --ioengine=psync --direct=1 --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --time_based --runtime="${FIO_SECONDS:-20}" \
		--numjobs=2 --output=/tmp/fio.out || rc=1
	grep -E 'READ:|WRITE:|err=' /tmp/fio.out
	grep -q 'err= 0' /tmp/fio.out || rc=1
	rm -f "$MNT"/verify.*
	return $rc
}

# rdma_connections: established RDMA connections of this VM (rdma_cm ids
# in the connected state; listeners are not counted).
rdma_connections() {
	rdma resource show cm_id 2>/dev/null | grep -c 'state CONNECT'
}

# unload_transports: every RPC-over-RDMA module must come out with a zero
# reference count; anything else is a leak the test reports.
unload_transports() {
	local m rc=0
	for m in xprtrdma svcrdma rpcrdma nfsrdma_wire; do
		[ -d "/sys/module/$m" ] || continue
		if [ "$(cat "/sys/module/$m/refcnt")" != 0 ]; then
			fail "module $m still has refcnt $(cat "/sys/module/$m/refcnt")"
			rc=1
			continue
		fi
		rmmod "$m" || { fail "rmmod $m failed"; rc=1; }
	done
	return $rc
}

# guest_teardown: what must hold after every test, whatever it did.
guest_teardown() {
	local rc=0 t
	if grep -qE ' nfs4? ' /proc/mounts; then
		fail "an NFS mount was left behind"
		# Lazy: a forced unmount of a hard mount whose server is gone
		# waits out the RPC timeouts, minutes under TCG.
		umount -a -t nfs,nfs4 -l
		rc=1
	fi
	if [ -d /proc/fs/nfsd ] && mountpoint -q /proc/fs/nfsd; then
		nfs_server_stop || rc=1
	fi
	pkill rpc.statd
	pkill rpcbind
	# Unmounting hands the transports back asynchronously.
	sleep 1
	unload_transports || rc=1
	t=$(cat /proc/sys/kernel/tainted)
	# M(16) B(32) D(128) W(512) L(16384): machine check, bad page, oops,
	# warning, soft lockup.  Out-of-tree and unsigned taints are expected.
	# In a shared boot only what this test added counts (TAINT_BEFORE):
	# the flags stay set, and the boot has already failed on the first.
	if (((t & ~${TAINT_BEFORE:-0} & (16 | 32 | 128 | 512 | 16384)) != 0)); then
		fail "kernel tainted: $t"
		rc=1
	fi
	return $rc
}
