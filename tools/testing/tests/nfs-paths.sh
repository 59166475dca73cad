# SPDX-License-Identifier: GPL-2.0
#
# Each RPC-over-RDMA path forced and confirmed from the client transport's
# own counters (the xprt line of /proc/self/mountstats, whose fields our
# client keeps where the in-tree client has them): inline calls, a Read
# chunk (O_DIRECT WRITE), a Write chunk (O_DIRECT READ), a Reply chunk (a
# 2000-entry READDIR) and RDMA_NOMSG (a 300-entry NFSv3 SETACL, about
# 3.7 KB with no DDP-eligible data, with rdma_max_inline_write lowered to
# 1024 so it cannot go inline).  Then nconnect=2, on NFSv3 and NFSv4.2:
# two transports, both used (one for NFSv4 before Linux 6.9, whose NFS
# client keeps nconnect to TCP there).  With our client the inline and NOMSG
# cases are also confirmed call by call from the xprtrdma_marshal
# tracepoint.  The per-operation lines of mountstats, whose round-trip
# time and bytes sent the transport stamps, must add up for the direct
# WRITE and READ.
#
# Why not a bigger ACL at the default inline size: the NFSv3 ACL stack
# itself (client, nfsd or tmpfs, not the transport) refuses a SETACL of
# 340 or more entries with EIO, over TCP as well as over either RDMA
# transport, and 300 entries (3760 bytes) is the largest round number that
# works.  So the inline limit comes down to 1024 instead.
TIMEOUT=600

# Positions on the xprt line, counting from the first number after "rdma".
F_SENDS=6
F_READ_CHUNKS=11
F_WRITE_CHUNKS=12
F_REPLY_CHUNKS=13
F_NOMSG_CALLS=21

TRACE_OUT=/tmp/paths.trace
ACL_ENTRIES=300

server_prepare() {
	local i
	mkdir -p "$EXPORT_DIR/paths/dir"
	for ((i = 0; i < 2000; i++)); do
		: >"$EXPORT_DIR/paths/dir/entry-number-$i-with-a-longish-name"
	done
	echo small >"$EXPORT_DIR/paths/small"
	chmod -R a+rwX "$EXPORT_DIR/paths"
}

# rises FIELD NAME CMD...: CMD must move counter FIELD.
rises() {
	local field=$1 name=$2 before after
	shift 2
	before=$(xprt_field "$field")
	"$@" || fail "$name: the operation itself failed" || return 1
	after=$(xprt_field "$field")
	log "$name: field $field went from $before to $after"
	[ -n "$before" ] && [ "$after" -gt "$before" ] ||
		fail "$name: counter $field did not move ($before -> $after)"
}

# trace_calls CMD...: run CMD with the xprtrdma_marshal event on; the
# events land in $TRACE_OUT, one line per call sent.
trace_calls() {
	local ev=xprtrdma/xprtrdma_marshal rc=0
	trace_event_on $ev || return 1
	: >$TRACEFS/trace
	"$@" || rc=1
	trace_event_off $ev
	grep 'xprtrdma_marshal:' $TRACEFS/trace >$TRACE_OUT
	log "traced $(wc -l <$TRACE_OUT) calls, e.g.: $(head -n 1 $TRACE_OUT)"
	return $rc
}

# Every call the GETATTR path sent went inline: RDMA_MSG, no chunk at all.
op_inline_traced() {
	local n others
	trace_calls op_getattr || return 1
	n=$(wc -l <$TRACE_OUT)
	[ "$n" -gt 0 ] || { fail "inline: no call was traced"; return 1; }
	others=$(grep -Ev 'RDMA_MSG inline=[1-9][0-9]* read=0/0 write=0/0 reply=no/0$' $TRACE_OUT)
	[ -z "$others" ] || { fail "inline: calls with chunks: $others"; return 1; }
}

op_getattr() {
	echo 3 >/proc/sys/vm/drop_caches
	stat "$MNT/paths/small" >/dev/null
}

op_direct_write() {
	head -c 1048576 /dev/urandom >/tmp/paths.bin
	dd if=/tmp/paths.bin of="$MNT/paths/big" bs=1M oflag=direct status=none
}

op_direct_read() {
	dd if="$MNT/paths/big" of=/tmp/paths.back bs=1M iflag=direct status=none &&
		cmp /tmp/paths.bin /tmp/paths.back
}

op_readdir() {
	echo 3 >/proc/sys/vm/drop_caches
	[ "$(ls "$MNT/paths/dir" | wc -l)" = 2000 ]
}

acl_spec() {
	local i spec=
	for ((i = 0; i < ACL_ENTRIES; i++)); do
		spec+="${spec:+,}u:$((20000 + i)):r"
	done
	echo "$spec"
}

# A SETACL too large for the 1024-byte inline limit and with nothing the
# upper layer marks DDP-eligible: it can only go as RDMA_NOMSG.  The ACL
# must read back whole.
op_setacl() {
	local f=$MNT/paths/acl n
	: >"$f" || return 1
	setfacl -m "$(acl_spec)" "$f" || { fail "setfacl failed"; return 1; }
	n=$(getfacl -n "$f" | grep -c '^user:2[0-9]*:r--')
	log "setacl: $n named-user entries read back"
	[ "$n" = "$ACL_ENTRIES" ] ||
		{ fail "setacl: $n of $ACL_ENTRIES entries read back"; return 1; }
}

op_setacl_traced() {
	trace_calls op_setacl || return 1
	grep -Eq 'RDMA_NOMSG inline=0 read=[1-9][0-9]*/(3[5-9]|[4-9])[0-9]{2} ' $TRACE_OUT ||
		{ fail "setacl: no ~3.7 KB RDMA_NOMSG call traced"; return 1; }
}

# op_stats: the RPC core's per-operation statistics of the mount, after
# the 1 MiB direct WRITE and READ above.  Part of each comes from the
# transport (the time the call went out, the bytes it sent), and
# mountstats and nfsiostat show them to admins: the WRITE's megabyte was
# counted as sent, and no operation's round trips add up to more than
# its executions (a transport that never stamps the send time reports
# the uptime as every RTT).
op_stats() {
	local op rc=0
	local -a f
	for op in WRITE READ; do
		read -ra f <<<"$(mount_op_line "$op")"
		log "per-op statistics: ${f[*]}"
		# OP: ops trans timeouts bytes_sent bytes_recv queue rtt execute
		[ "${f[1]:-0}" -gt 0 ] ||
			{ fail "$op: no operation counted"; rc=1; continue; }
		[ "${f[7]}" -le "${f[8]}" ] ||
			fail "$op: RTT ${f[7]} ms over ${f[1]} calls exceeds their execution, ${f[8]} ms" ||
			rc=1
		case $op in
		WRITE) [ "${f[4]}" -ge 1048576 ] ||
			fail "WRITE: ${f[4]} bytes sent for a 1 MiB write" || rc=1 ;;
		READ) [ "${f[5]}" -ge 1048576 ] ||
			fail "READ: ${f[5]} bytes received for a 1 MiB read" || rc=1 ;;
		esac
	done
	return $rc
}

# The sysctls the in-tree client has are ours too, and refuse nonsense.
check_sysctls() {
	local d=/proc/sys/sunrpc n
	for n in rdma_slot_table_entries rdma_max_inline_read rdma_max_inline_write; do
		[ -w "$d/$n" ] || { fail "no writable $d/$n"; return 1; }
		log "$n = $(cat $d/$n)"
	done
	if echo 512 >$d/rdma_max_inline_write 2>/dev/null; then
		fail "rdma_max_inline_write accepted 512"
		return 1
	fi
	if echo 1 >$d/rdma_slot_table_entries 2>/dev/null; then
		fail "rdma_slot_table_entries accepted 1"
		return 1
	fi
	[ "$(cat $d/rdma_slot_table_entries)" = "$(cat /sys/module/xprtrdma/parameters/max_slots)" ] ||
		{ fail "max_slots and rdma_slot_table_entries disagree"; return 1; }
}

# RDMA_NOMSG, forced by a small inline send limit on a fresh transport.
paths_nomsg() {
	local knob=/proc/sys/sunrpc/rdma_max_inline_write old rc=0
	old=$(cat $knob) || { fail "no $knob"; return 1; }
	echo 1024 >$knob || { fail "cannot set $knob to 1024"; return 1; }
	if ! nfs_mount 3; then
		echo "$old" >$knob
		return 1
	fi
	if [ "$CLIENT_TRANSPORT" = ours ]; then
		dmesg | grep -q 'xprtrdma: connected to .*(inline send 1024,' ||
			{ fail "the new transport did not take inline send 1024"; rc=1; }
		subtest nfs3-nomsg rises $F_NOMSG_CALLS nomsg op_setacl_traced || rc=1
	else
		subtest nfs3-nomsg rises $F_NOMSG_CALLS nomsg op_setacl || rc=1
	fi
	rm -f "$MNT/paths/acl"
	nfs_umount || rc=1
	echo "$old" >$knob || rc=1
	return $rc
}

# kernel_before MAJOR MINOR: the guest's kernel is older than MAJOR.MINOR.
kernel_before() {
	local major minor
	IFS=. read -r major minor _ <<<"$(uname -r)"
	minor=${minor%%[!0-9]*}
	((major < $1 || (major == $1 && minor < $2)))
}

# nconnect=2 on NFSv$1: the calls of 1 MiB of direct I/O, 64 KiB apiece,
# spread over two RDMA transports, each of which must carry some, and the
# bytes read back whole.  NFSv3 does so on every kernel.  For NFSv4 it is
# the NFS client, not the transport, that decides: 6.1's applies nconnect
# to NFSv4 over TCP only, so there the mount must keep one transport;
# from 6.9 ("NFS: enable nconnect for RDMA") it applies it over RDMA too,
# so 6.12's mount has two.  A stable 6.1 that took that change would fail
# here loudly, with two transports where one was expected.
paths_nconnect() {
	local v=$1 want=2 sends n s rc=0
	if [ "$v" != 3 ] && kernel_before 6 9; then
		want=1
	fi
	if ! nfs_mount "$v" nconnect=2; then
		# Mounted but not as asked: do not leave it under the next
		# case.
		mountpoint -q "$MNT" && umount "$MNT"
		return 1
	fi
	head -c 1048576 /dev/urandom >/tmp/nconnect.bin
	if ! dd if=/tmp/nconnect.bin of="$MNT/paths/nconnect" bs=64k oflag=direct status=none ||
		! dd if="$MNT/paths/nconnect" of=/tmp/nconnect.back bs=64k iflag=direct status=none ||
		! cmp /tmp/nconnect.bin /tmp/nconnect.back; then
		fail "nconnect: 1 MiB did not read back whole over NFSv$v"
		rc=1
	fi
	sends=$(xprt_fields "$F_SENDS")
	n=$(grep -c . <<<"$sends")
	log "nconnect=2 NFSv$v on $(uname -r): $n RDMA transports, Sends: ${sends//$'\n'/ }"
	if [ "$n" != "$want" ]; then
		fail "nconnect: NFSv$v has $n RDMA transports, not $want"
		rc=1
	elif [ "$want" = 2 ]; then
		for s in $sends; do
			[ "$s" -gt 0 ] ||
				{ fail "nconnect: a transport carried no call (${sends//$'\n'/ })"; rc=1; }
		done
	fi
	rm -f "$MNT/paths/nconnect" /tmp/nconnect.bin /tmp/nconnect.back
	nfs_umount || rc=1
	return $rc
}

paths_version() {
	local v=$1 rc=0
	nfs_mount "$v" || return 1
	if [ "$CLIENT_TRANSPORT" = ours ]; then
		subtest "nfs$v-inline" rises $F_SENDS inline op_inline_traced || rc=1
	else
		subtest "nfs$v-inline" rises $F_SENDS inline op_getattr || rc=1
	fi
	subtest "nfs$v-read-chunk" rises $F_READ_CHUNKS "read chunk" op_direct_write || rc=1
	subtest "nfs$v-write-chunk" rises $F_WRITE_CHUNKS "write chunk" op_direct_read || rc=1
	subtest "nfs$v-op-stats" op_stats || rc=1
	subtest "nfs$v-reply-chunk" rises $F_REPLY_CHUNKS "reply chunk" op_readdir || rc=1
	rm -f "$MNT/paths/big"
	nfs_umount || rc=1
	return $rc
}

paths_client() {
	local rc=0
	nfs_client_prepare || return 1
	if [ "$CLIENT_TRANSPORT" = ours ]; then
		subtest sysctls check_sysctls || rc=1
	fi
	paths_version 3 || rc=1
	paths_version 4.1 || rc=1
	paths_nomsg || rc=1
	subtest nfs3-nconnect paths_nconnect 3 || rc=1
	subtest nfs4.2-nconnect paths_nconnect 4.2 || rc=1
	return $rc
}

test_single() {
	local_nfs paths_client
}

test_server() {
	serve_nfs 500
}

test_client() {
	as_client paths_client
}
