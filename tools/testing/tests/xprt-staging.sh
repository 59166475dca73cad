# SPDX-License-Identifier: GPL-2.0
#
# Our client's staging buffers (module parameter staging; xprtrdma/stage.c).
# Every case mounts with the client's inline sizes at 1 KiB, so that a
# 4 KiB READ needs a Write chunk and a 4 KiB WRITE a Read chunk against
# any server, ours (8 KiB inline) as much as the in-tree (4 KiB).  The
# parameter is read whenever a connection is made, so it stays set from
# before a mount until after its unmount.
#
# unstaged-control: staging off, NFSv3.  4 KiB O_DIRECT writes at random
# blocks of a file, then an O_DIRECT read of every block written, each
# compared with what was last written there.  mountstats must show the
# chunks (Read chunks grow by one per WRITE at least, and Write and Reply
# chunks together by one per READ: a READ whose reply header does not
# fit 1 KiB takes a Reply chunk) and that each cost an MR (MRs recycled
# grow by one per I/O at least).
#
# staged-direct-io: the same I/O with staging on, on NFSv4.2 (a transport
# of its own, made after the parameter changed).  The chunks must be
# counted as before, but the MR pool must recycle, and the client
# invalidate, at most one MR per ten I/Os: the chunks were staged.  (An
# NFSv4 WRITE's reply buffer needs a Reply chunk at 1 KiB inline; it is
# staged beside the WRITE's Read chunk.)
#
# retransmitted-staged: staging on, NFSv3 (no grace period after a
# restart).  Four O_DIRECT readers, every read checked, keep staged READs
# in flight while the server restarts knfsd, which drops the connection
# on any fabric.  The calls in flight are sent again on the next
# connection, and the reply to each must retire its staged key: the
# client's xprtrdma_stage tracepoint must show a "retire" (after up to
# three restarts: a restart may find no READ in flight), and the readers
# must go on reading the right bytes afterwards.
TIMEOUT=1200
ST_BLOCKS=256
ST_IOS=200
ST_READERS=4
ST_RESTARTS=3
F_CONNECTS=3
F_READ_CHUNKS=11
F_WRITE_CHUNKS=12
F_REPLY_CHUNKS=13
F_MRS_RECYCLED=22
F_LOCAL_INVS=25
ST_PARAM=/sys/module/xprtrdma/parameters/staging
ST_SYSCTLS="sunrpc.rdma_max_inline_read sunrpc.rdma_max_inline_write"

server_prepare() {
	mkdir -p "$EXPORT_DIR/staging"
	head -c $((ST_BLOCKS * 4096)) /dev/urandom >"$EXPORT_DIR/staging/data"
	chmod -R a+rwX "$EXPORT_DIR/staging"
}

# st_direct_io FILE: ST_IOS 4 KiB O_DIRECT writes at random blocks, then
# a checked read of each block written.  Prints "writes W reads R".
st_direct_io() {
	timeout $((300 * ${TIME_SCALE:-1})) python3 - "$1" "$ST_BLOCKS" "$ST_IOS" <<'EOF'
import mmap, os, random, sys
path, blocks, ios = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fd = os.open(path, os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
last = {}
for _ in range(ios):
    b = random.randrange(blocks)
    data = os.urandom(4096)
    buf[:] = data
    if os.pwrite(fd, buf, b * 4096) != 4096:
        sys.exit(f"short write at block {b}")
    last[b] = data
bad = 0
for b, data in last.items():
    buf[:] = b'\x55' * 4096
    if os.preadv(fd, [buf], b * 4096) != 4096 or buf[:] != data:
        print(f"block {b} read back wrong"); bad += 1
print(f"writes {ios} reads {len(last)}")
sys.exit(1 if bad else 0)
EOF
}

# st_reader FILE COPY STOP: checked 4 KiB O_DIRECT reads at random blocks
# until STOP exists.  Prints the count.
st_reader() {
	timeout $((900 * ${TIME_SCALE:-1})) python3 - "$1" "$2" "$3" <<'EOF'
import mmap, os, random, sys
path, copy, stop = sys.argv[1:4]
want = open(copy, 'rb').read()
fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
n = 0
while not os.path.exists(stop):
    b = random.randrange(len(want) // 4096)
    buf[:] = b'\x55' * 4096
    if os.preadv(fd, [buf], b * 4096) != 4096 or buf[:] != want[b * 4096:(b + 1) * 4096]:
        sys.exit(f"block {b} read back wrong after {n} good reads")
    n += 1
print(f"{n} reads")
EOF
}

# st_mount VERS STAGING: set staging (1 or 0) and 1 KiB inline sizes,
# then mount; st_umount undoes all three.
st_mount() {
	local k
	ST_SAVED=
	for k in $ST_SYSCTLS; do
		ST_SAVED+=" $k=$(sysctl -n "$k")"
	done
	echo "$2" >$ST_PARAM || { fail "cannot set staging=$2"; return 1; }
	# shellcheck disable=SC2086
	if ! sysctl -qw ${ST_SYSCTLS// /=1024 }=1024; then
		fail "cannot lower the inline sizes"
		st_restore
		return 1
	fi
	nfs_mount "$1" || { st_restore; return 1; }
}

st_restore() {
	# shellcheck disable=SC2086
	[ -z "$ST_SAVED" ] || sysctl -qw $ST_SAVED
	echo 0 >$ST_PARAM
}

st_umount() {
	local rc=0
	nfs_umount || rc=1
	st_restore
	return $rc
}

# st_counts: Read chunks, Write plus Reply chunks, MRs recycled,
# LOCAL_INVs.
st_counts() {
	echo "$(xprt_field $F_READ_CHUNKS)" \
		"$(($(xprt_field $F_WRITE_CHUNKS) + $(xprt_field $F_REPLY_CHUNKS)))" \
		"$(xprt_field $F_MRS_RECYCLED) $(xprt_field $F_LOCAL_INVS)"
}

# st_io_case VERS STAGING: the direct I/O and its counts; staged or not.
st_io_case() {
	local out r0 w0 m0 i0 r1 w1 m1 i1 writes reads dm di rc=0
	st_mount "$1" "$2" || return 1
	read -r r0 w0 m0 i0 <<<"$(st_counts)"
	out=$(st_direct_io "$MNT/staging/data") || { fail "direct I/O failed: $out"; rc=1; }
	read -r r1 w1 m1 i1 <<<"$(st_counts)"
	st_umount || rc=1
	[ $rc = 0 ] || return 1
	read -r _ writes _ reads <<<"$out"
	dm=$((m1 - m0))
	di=$((i1 - i0))
	log "NFSv$1, staging=$2: $out; Read chunks +$((r1 - r0)), Write and Reply chunks +$((w1 - w0)), MRs recycled +$dm, LOCAL_INVs +$di"
	((r1 - r0 >= writes)) || { fail "only $((r1 - r0)) Read chunks for $writes WRITEs: no chunks to stage"; rc=1; }
	((w1 - w0 >= reads)) || { fail "only $((w1 - w0)) Write and Reply chunks for $reads READs: no chunks to stage"; rc=1; }
	if [ "$2" = 1 ]; then
		((dm * 10 <= writes + reads)) || { fail "$dm MRs recycled for $((writes + reads)) staged I/Os"; rc=1; }
		((di * 10 <= writes + reads)) || { fail "$di LOCAL_INVs for $((writes + reads)) staged I/Os"; rc=1; }
	else
		((dm >= writes + reads)) || { fail "only $dm MRs recycled for $((writes + reads)) unstaged I/Os"; rc=1; }
	fi
	return $rc
}

st_retransmitted() {
	local ev=xprtrdma/xprtrdma_stage stop=/tmp/staging.stop
	local copy=/tmp/staging.copy c0 c1 i n retires=0 pids=() rc=0
	st_mount 3 1 || return 1
	cp "$MNT/staging/data" $copy || { fail "cannot copy the data file"; st_umount; return 1; }
	trace_event_on $ev || { st_umount; return 1; }
	: >$TRACEFS/trace
	c0=$(xprt_field $F_CONNECTS)
	c1=$c0
	rm -f $stop
	for ((i = 0; i < ST_READERS; i++)); do
		st_reader "$MNT/staging/data" $copy $stop >"/tmp/staging.reader.$i" 2>&1 &
		pids+=($!)
	done
	for ((n = 1; n <= ST_RESTARTS && retires == 0; n++)); do
		sleep 5
		signal "restart-$n"
		await "restarted-$n" 120 || { rc=1; break; }
		# Until the connection is back and the readers have gone on.
		for ((i = 0; i < 120 * ${TIME_SCALE:-1}; i++)); do
			c1=$(xprt_field $F_CONNECTS)
			((c1 >= c0 + n)) && break
			sleep 1
		done
		sleep 10
		retires=$(grep -c 'xprtrdma_stage:.* retire$' $TRACEFS/trace)
		log "restart $n: connects $c0 -> $c1, $retires staged key(s) retired"
	done
	signal restarts-done
	touch $stop
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { fail "reader $i: $(tail -n 1 /tmp/staging.reader.$i)"; rc=1; }
		log "reader $i: $(tail -n 1 /tmp/staging.reader.$i)"
	done
	trace_event_off $ev
	grep 'xprtrdma_stage:' $TRACEFS/trace | head -n 8 | sed 's/^/  trace: /'
	((c1 > c0)) || { fail "the restarts did not make the client reconnect"; rc=1; }
	((retires > 0)) || { fail "no staged key was retired after $ST_RESTARTS restarts"; rc=1; }
	st_umount || rc=1
	return $rc
}

st_cases() {
	local rc=0
	nfs_client_prepare || return 1
	[ -w $ST_PARAM ] || { fail "our client has no staging parameter"; return 1; }
	subtest unstaged-control st_io_case 3 0 || rc=1
	subtest staged-direct-io st_io_case 4.2 1 || rc=1
	subtest retransmitted-staged st_retransmitted || rc=1
	return $rc
}

test_server() {
	local n rc=0
	nfs_serve_prepared || { signal abort; return 1; }
	signal server-ready
	# Each restart the client asks for, until it has seen enough.
	for ((n = 1; n <= ST_RESTARTS; n++)); do
		until signalled "restart-$n"; do
			if signalled restarts-done || signalled client-done ||
				signalled abort; then
				break 2
			fi
			sleep 1
		done
		nfsd_restart || { fail "nfsd restart $n failed"; rc=1; }
		signal "restarted-$n"
	done
	await client-done $((1000 * ${TIME_SCALE:-1})) || rc=1
	nfs_server_stop || rc=1
	return $rc
}

test_client() {
	as_client st_cases
}
