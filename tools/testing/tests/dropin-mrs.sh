# SPDX-License-Identifier: GPL-2.0
#
# Drop-in: the client's MR limits.
#
# mrs-pool-grows: with sunrpc.rdma_slot_table_entries at its lowest (4)
# a connection's MR pool starts at 8 MRs, two per slot.  MR_LISTERS
# listings of separate directories, each big enough for its READDIR
# replies to need a Reply chunk (head, pages and tail: three MRs each on
# a device without SG_GAPS), keep up to four such calls in flight: twelve
# MRs.  Every listing must come back complete, the client must not defer
# a single call for want of an MR (each deferral costs the RPC client a
# quarter of a second; tracepoint xprtrdma_send_deferred), and
# mountstats' mrs_allocated must show that the pool grew past what its
# connections started with.  The client must be ours (the tracepoint and
# the pool are ours).
#
# mrs-odd-direct: O_DIRECT reads of lengths that are not a whole number
# of XDR words, into user buffers at odd offsets, some across a page
# boundary.  The short ones come back inline; for the others (over 4 KiB,
# more than a 4 KiB inline reply holds) the Write chunk ends with a
# segment for the XDR pad (servers built to RFC 5666 write it).  Against a real server, which
# writes no pad, the bytes must come back right and the user memory
# around the buffer must be untouched.  tools/testing/tests/xprt-hostile.sh
# has the server that does write it (dropin-write-pad).
#
# mrs-registration-qp: our client on rxe registers chunks on a second RC
# QP of the connection's PD that only ever carries local work
# (xprtrdma/frwr.c).  With a mount up and a 64 KiB O_DIRECT read through
# a Write chunk checked, rdma(8)'s QP list must show, besides the
# connection's QP, one of ours in RTS pointed at itself (rqpn = lqpn);
# on any other fabric none (registrations stay behind the fence there).
#
# mrs-quiet-registration: the registration QP is only for calls posted
# while Sends are outstanding (xprtrdma/frwr.c).  MR_SERIAL 64 KiB
# O_DIRECT reads one at a time, each through a Write chunk and checked,
# must register at most a quarter of their chunked calls there
# (tracepoints xprtrdma_marshal and xprtrdma_regq_chain: a lease renewal
# or the keepalive probe may overlap a few); the same reads from
# MR_READERS threads at once, each checked, must send some there on rxe,
# where a chain behind an outstanding Send could be executed twice.  On
# any other fabric none goes there.  Neither phase may fail a work
# request (tracepoint xprtrdma_wc_error) or reconnect.

TIMEOUT=900
MR_SLOTS=4
MR_LISTERS=8
MR_ROUNDS=4
MR_DIR_ENTRIES=500
# rsize=8192 keeps each READDIR reply to 8 KiB: more calls, each with a
# Reply chunk (the inline limit is 4 KiB).
MR_MOUNT_OPTS=rsize=8192
MR_SERIAL=40
MR_READERS=8
F_CONNECTS=3
F_MRS_ALLOCATED=24

server_prepare() {
	local d i
	for ((d = 0; d < MR_LISTERS; d++)); do
		mkdir -p "$EXPORT_DIR/mrs/dir-$d"
		for ((i = 0; i < MR_DIR_ENTRIES; i++)); do
			: >"$EXPORT_DIR/mrs/dir-$d/entry-$i-with-a-name-long-enough-to-fill-replies"
		done
	done
	head -c 65536 /dev/urandom >"$EXPORT_DIR/mrs/data"
	chmod -R a+rwX "$EXPORT_DIR/mrs"
}

mrs_pool_grows() {
	local ev=xprtrdma/xprtrdma_send_deferred rc=0
	local slots d r n pids deferred connects allocated
	slots=$(sysctl -n sunrpc.rdma_slot_table_entries)
	sysctl -qw sunrpc.rdma_slot_table_entries=$MR_SLOTS ||
		{ fail "cannot set rdma_slot_table_entries to $MR_SLOTS"; return 1; }
	nfs_mount 4.2 "$MR_MOUNT_OPTS"
	rc=$?
	sysctl -qw sunrpc.rdma_slot_table_entries="$slots"
	[ "$rc" = 0 ] || return 1
	connects=$(xprt_field $F_CONNECTS)
	allocated=$(xprt_field $F_MRS_ALLOCATED)
	log "after mounting: $connects connect(s), $allocated MRs allocated"
	[ "$allocated" = $((2 * MR_SLOTS * connects)) ] || {
		fail "the pool did not start at two MRs per slot of $MR_SLOTS: another transport was reused?"
		nfs_umount
		return 1
	}
	trace_event_on $ev || { nfs_umount; return 1; }
	: >$TRACEFS/trace
	for ((r = 0; r < MR_ROUNDS; r++)); do
		echo 3 >/proc/sys/vm/drop_caches
		pids=()
		for ((d = 0; d < MR_LISTERS; d++)); do
			timeout 300 ls -f "$MNT/mrs/dir-$d" >"/tmp/mrs.list.$d" 2>&1 &
			pids+=($!)
		done
		for d in "${!pids[@]}"; do
			wait "${pids[$d]}" || { fail "round $r: listing dir-$d failed: $(tail -n 1 /tmp/mrs.list.$d)"; rc=1; }
			# ls -f lists . and .. too.
			n=$(grep -c '^entry-' "/tmp/mrs.list.$d")
			[ "$n" = "$MR_DIR_ENTRIES" ] ||
				{ fail "round $r: dir-$d listed $n entries, not $MR_DIR_ENTRIES"; rc=1; }
		done
	done
	trace_event_off $ev
	deferred=$(grep -c 'xprtrdma_send_deferred:.*MR pool' $TRACEFS/trace)
	connects=$(xprt_field $F_CONNECTS)
	allocated=$(xprt_field $F_MRS_ALLOCATED)
	log "$MR_ROUNDS rounds of $MR_LISTERS listings: $deferred calls deferred for want of an MR; $connects connect(s), $allocated MRs allocated"
	grep 'xprtrdma_send_deferred:' $TRACEFS/trace | head -3 | sed 's/^/  trace: /'
	[ "$deferred" = 0 ] || { fail "$deferred calls waited for an MR"; rc=1; }
	[ "$allocated" -gt $((2 * MR_SLOTS * connects)) ] ||
		{ fail "the pool never grew past $((2 * MR_SLOTS)) MRs per connection: the load did not need more"; rc=1; }
	nfs_umount || rc=1
	return $rc
}

# mr_direct_reads FILE WANT: odd-length O_DIRECT reads at odd buffer
# offsets, each checked, with guard bytes around the buffer.
mr_direct_reads() {
	timeout 120 python3 - "$1" "$2" <<'EOF'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
want = open(sys.argv[2], 'rb').read()
bad = 0
# (file offset, length, offset of the buffer in its page)
for off, n, at in [(0, 1001, 100), (4096, 4095, 0), (5, 2, 4093),
                   (8191, 1, 7), (100, 1001, 4000), (0, 12287, 1),
                   (40000, 3, 2048), (0, 5001, 100), (5, 8190, 4093),
                   (8191, 4097, 7), (40000, 4099, 2048)]:
    m = mmap.mmap(-1, 4 * 4096)
    m.write(b'\x55' * len(m))
    mv = memoryview(m)
    got = os.preadv(fd, [mv[at:at + n]], off)
    if got != n:
        print(f"read of {n} at {off}: {got} bytes"); bad += 1
    elif bytes(mv[at:at + n]) != want[off:off + n]:
        print(f"read of {n} at {off}: wrong bytes"); bad += 1
    elif m[:at] != b'\x55' * at or m[at + n:] != b'\x55' * (len(m) - at - n):
        print(f"read of {n} at {off} into offset {at}: memory around the buffer changed"); bad += 1
    mv.release()
    m.close()
sys.exit(1 if bad else 0)
EOF
}

mrs_odd_direct() {
	local v rc=0
	for v in 3 4.2; do
		nfs_mount "$v" || return 1
		cp "$MNT/mrs/data" /tmp/mrs.data || { fail "cannot read the data file"; nfs_umount; return 1; }
		mr_direct_reads "$MNT/mrs/data" /tmp/mrs.data ||
			{ fail "NFSv$v: odd O_DIRECT reads went wrong"; rc=1; }
		nfs_umount || rc=1
	done
	return $rc
}

# mr_regq_count: how many of xprtrdma's RC QPs in RTS point at themselves.
mr_regq_count() {
	rdma -j resource show qp 2>/dev/null | python3 -c '
import json, sys
try:
    qps = json.load(sys.stdin)
except ValueError:
    sys.exit(1)
print(sum(1 for q in qps if "xprtrdma" in str(q.get("comm", "")) and
          q.get("type") == "RC" and q.get("state") == "RTS" and
          q.get("lqpn") is not None and q.get("lqpn") == q.get("rqpn")))
'
}

mrs_registration_qp() {
	local n want=0 rc=0
	[ "$FABRIC" = rxe ] && want=1
	nfs_mount 4.2 || return 1
	cp "$MNT/mrs/data" /tmp/mrs.data || { fail "cannot read the data file"; nfs_umount; return 1; }
	dd if="$MNT/mrs/data" of=/tmp/mrs.direct bs=65536 count=1 iflag=direct 2>/dev/null &&
		cmp -s /tmp/mrs.data /tmp/mrs.direct ||
		{ fail "a 64 KiB O_DIRECT read came back wrong"; rc=1; }
	n=$(mr_regq_count) || { fail "rdma resource show qp gave nothing to read"; n=-1; }
	rdma resource show qp | sed 's/^/  rdma: /'
	log "fabric $FABRIC: $n registration QP(s), $want expected"
	[ "$n" = "$want" ] || { fail "$n registration QPs on $FABRIC, not $want"; rc=1; }
	nfs_umount || rc=1
	return $rc
}

# mr_chain_counts: "CHUNKED REGQ" from the trace: calls marshalled with any
# chunk, and chains sent to the registration QP.
mr_chain_counts() {
	echo "$(grep -cE 'xprtrdma_marshal:.* (read=[1-9]|write=[1-9]|reply=yes)' $TRACEFS/trace)" \
		"$(grep -c 'xprtrdma_regq_chain:' $TRACEFS/trace)"
}

# mr_reads_checked THREADS N: THREADS threads of one process each make N
# 64 KiB O_DIRECT reads of the data file, each compared with the copy in
# /tmp/mrs.data.
mr_reads_checked() {
	timeout 300 python3 - "$MNT/mrs/data" /tmp/mrs.data "$1" "$2" <<'EOF'
import mmap, os, sys, threading
path, want = sys.argv[1], open(sys.argv[2], 'rb').read()[:65536]
threads, n = int(sys.argv[3]), int(sys.argv[4])
bad = []
def reader():
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    m = mmap.mmap(-1, 65536)
    for _ in range(n):
        if os.preadv(fd, [m], 0) != 65536 or m[:] != want:
            bad.append(1)
    m.close()
    os.close(fd)
ts = [threading.Thread(target=reader) for _ in range(threads)]
for t in ts:
    t.start()
for t in ts:
    t.join()
if bad:
    print(f"{len(bad)} of {threads * n} reads came back wrong")
sys.exit(1 if bad else 0)
EOF
}

mrs_quiet_registration() {
	local m=xprtrdma/xprtrdma_marshal q=xprtrdma/xprtrdma_regq_chain
	local e=xprtrdma/xprtrdma_wc_error
	local rc=0 chunked regq connects errors
	nfs_mount 4.2 || return 1
	cp "$MNT/mrs/data" /tmp/mrs.data || { fail "cannot read the data file"; nfs_umount; return 1; }
	connects=$(xprt_field $F_CONNECTS)
	trace_event_on $m && trace_event_on $q && trace_event_on $e ||
		{ nfs_umount; return 1; }
	: >$TRACEFS/trace
	mr_reads_checked 1 $MR_SERIAL || { fail "64 KiB O_DIRECT reads one at a time went wrong"; rc=1; }
	read -r chunked regq < <(mr_chain_counts)
	log "$MR_SERIAL reads one at a time: $chunked chunked calls, $regq registered on the registration QP"
	[ "$chunked" -ge $MR_SERIAL ] || { fail "only $chunked chunked calls for $MR_SERIAL reads"; rc=1; }
	if [ "$FABRIC" = rxe ]; then
		[ $((regq * 4)) -le "$chunked" ] ||
			{ fail "$regq of $chunked lone calls waited for the registration QP"; rc=1; }
	else
		[ "$regq" = 0 ] || { fail "$regq chains on a registration QP on $FABRIC"; rc=1; }
	fi
	errors=$(grep -c 'xprtrdma_wc_error:' $TRACEFS/trace)
	: >$TRACEFS/trace
	mr_reads_checked $MR_READERS $MR_SERIAL ||
		{ fail "64 KiB O_DIRECT reads from $MR_READERS threads went wrong"; rc=1; }
	read -r chunked regq < <(mr_chain_counts)
	log "$MR_READERS readers at once: $chunked chunked calls, $regq registered on the registration QP"
	if [ "$FABRIC" = rxe ]; then
		[ "$regq" -gt 0 ] ||
			{ fail "with $MR_READERS readers no chain went to the registration QP"; rc=1; }
	else
		[ "$regq" = 0 ] || { fail "$regq chains on a registration QP on $FABRIC"; rc=1; }
	fi
	errors=$((errors + $(grep -c 'xprtrdma_wc_error:' $TRACEFS/trace)))
	trace_event_off $e
	trace_event_off $q
	trace_event_off $m
	[ "$errors" = 0 ] || { fail "$errors work requests failed"; rc=1; }
	[ "$(xprt_field $F_CONNECTS)" = "$connects" ] ||
		{ fail "the transport reconnected: $connects, then $(xprt_field $F_CONNECTS) connects"; rc=1; }
	nfs_umount || rc=1
	return $rc
}

mrs_cases() {
	local rc=0
	nfs_client_prepare || return 1
	if [ "$CLIENT_TRANSPORT" = ours ]; then
		subtest mrs-pool-grows mrs_pool_grows || rc=1
		subtest mrs-registration-qp mrs_registration_qp || rc=1
		subtest mrs-quiet-registration mrs_quiet_registration || rc=1
	fi
	subtest mrs-odd-direct mrs_odd_direct || rc=1
	return $rc
}

test_single() {
	local_nfs mrs_cases
}

test_server() {
	serve_nfs 800
}

test_client() {
	as_client mrs_cases
}
