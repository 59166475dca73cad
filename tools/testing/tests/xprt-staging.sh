# SPDX-License-Identifier: GPL-2.0
#
# Our client's staging buffers (module parameter staging; xprtrdma/stage.c).
# Every case mounts with the client's inline sizes at 1 KiB, so that a
# 4 KiB READ needs a Write chunk and a 4 KiB WRITE a Read chunk against
# any server, ours (8 KiB inline) as much as the in-tree (4 KiB).
#
# staged-direct-io: staging on; 4 KiB O_DIRECT writes at random blocks of
# a file, then an O_DIRECT read of every block written, each compared
# with what was last written there.  mountstats must show the chunks
# (read and write chunk counts each grow by at least one per I/O) and
# that they were staged: the MR pool recycled, and the client invalidated,
# at most one MR per ten I/Os (the chunks of the calls around them).
#
# retransmitted-staged: staging on; four O_DIRECT readers keep staged
# READs in flight while the client's link drops every packet for longer
# than RDMA's retries.  The connection fails, the calls are sent again on
# a new one, and each reply to a call sent twice must retire its staged
# key (local_inv_needed grows; a clean exchange never invalidates one).
# Every read is checked, before, across and after the cut.
#
# unstaged-control: the first case's I/O with staging off, on NFSv3 (a
# transport of its own, created after the parameter changed): every
# chunk now costs an MR, so the first case's low count measured staging,
# not a load that needed no MRs.
TIMEOUT=900
ST_BLOCKS=256
ST_IOS=200
ST_READERS=4
ST_CUT_SECONDS=20
F_CONNECTS=3
F_READ_CHUNKS=11
F_WRITE_CHUNKS=12
F_MRS_RECYCLED=22
F_LOCAL_INVS=25
ST_PARAM=/sys/module/xprtrdma/parameters/staging

server_prepare() {
	mkdir -p "$EXPORT_DIR/staging"
	head -c $((ST_BLOCKS * 4096)) /dev/urandom >"$EXPORT_DIR/staging/data"
	chmod -R a+rwX "$EXPORT_DIR/staging"
}

# st_direct_io FILE: ST_IOS 4 KiB O_DIRECT writes at random blocks, then
# a checked read of each block written.  Prints "writes W reads R".
st_direct_io() {
	timeout 300 python3 - "$1" "$ST_BLOCKS" "$ST_IOS" <<'EOF'
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
	timeout 600 python3 - "$1" "$2" "$3" <<'EOF'
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

# st_mount VERS STAGING: mount with 1 KiB inline sizes and staging on (1)
# or off (0) for the transport the mount creates.
st_mount() {
	local rd wr rc=0
	rd=$(sysctl -n sunrpc.rdma_max_inline_read)
	wr=$(sysctl -n sunrpc.rdma_max_inline_write)
	echo "$2" >$ST_PARAM || { fail "cannot set staging=$2"; return 1; }
	sysctl -qw sunrpc.rdma_max_inline_read=1024 sunrpc.rdma_max_inline_write=1024 ||
		{ fail "cannot lower the inline sizes"; return 1; }
	nfs_mount "$1" || rc=1
	sysctl -qw sunrpc.rdma_max_inline_read="$rd" sunrpc.rdma_max_inline_write="$wr"
	echo 0 >$ST_PARAM
	return $rc
}

# st_counts: read chunks, write chunks, MRs recycled, LOCAL_INVs.
st_counts() {
	echo "$(xprt_field $F_READ_CHUNKS) $(xprt_field $F_WRITE_CHUNKS)" \
		"$(xprt_field $F_MRS_RECYCLED) $(xprt_field $F_LOCAL_INVS)"
}

# st_io_case VERS STAGING: the direct I/O and its counts; staged or not.
st_io_case() {
	local out r0 w0 m0 i0 r1 w1 m1 i1 writes reads dm di rc=0
	st_mount "$1" "$2" || return 1
	read -r r0 w0 m0 i0 <<<"$(st_counts)"
	out=$(st_direct_io "$MNT/staging/data") || { fail "direct I/O failed: $out"; rc=1; }
	read -r r1 w1 m1 i1 <<<"$(st_counts)"
	nfs_umount || rc=1
	[ $rc = 0 ] || return 1
	read -r _ writes _ reads <<<"$out"
	dm=$((m1 - m0))
	di=$((i1 - i0))
	log "$out; read chunks +$((r1 - r0)), write chunks +$((w1 - w0)), MRs recycled +$dm, LOCAL_INVs +$di"
	((r1 - r0 >= writes)) || { fail "only $((r1 - r0)) Read chunks for $writes WRITEs: no chunks to stage"; rc=1; }
	((w1 - w0 >= reads)) || { fail "only $((w1 - w0)) Write chunks for $reads READs: no chunks to stage"; rc=1; }
	if [ "$2" = 1 ]; then
		((dm * 10 <= writes + reads)) || { fail "$dm MRs recycled for $((writes + reads)) staged I/Os"; rc=1; }
		((di * 10 <= writes + reads)) || { fail "$di LOCAL_INVs for $((writes + reads)) staged I/Os"; rc=1; }
	else
		((dm >= writes + reads)) || { fail "only $dm MRs recycled for $((writes + reads)) unstaged I/Os"; rc=1; }
	fi
	return $rc
}

st_retransmitted() {
	local stop=/tmp/staging.stop copy=/tmp/staging.copy
	local c0 c1 i0 i1 i pids=() rc=0
	st_mount 4.2 1 || return 1
	cp "$MNT/staging/data" $copy || { fail "cannot copy the data file"; nfs_umount; return 1; }
	c0=$(xprt_field $F_CONNECTS)
	i0=$(xprt_field $F_LOCAL_INVS)
	rm -f $stop
	for ((i = 0; i < ST_READERS; i++)); do
		st_reader "$MNT/staging/data" $copy $stop >"/tmp/staging.reader.$i" 2>&1 &
		pids+=($!)
	done
	sleep 5
	log "cutting the client's link for $ST_CUT_SECONDS s"
	tc qdisc add dev eth0 root netem loss 100% || { fail "cannot cut the link"; rc=1; }
	sleep $ST_CUT_SECONDS
	tc qdisc del dev eth0 root 2>/dev/null
	# Until the readers have come back and gone on for a while.
	for ((i = 0; i < 180 * ${TIME_SCALE:-1}; i++)); do
		c1=$(xprt_field $F_CONNECTS)
		((c1 > c0)) && break
		sleep 1
	done
	sleep 20
	touch $stop
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { fail "reader $i: $(tail -n 1 /tmp/staging.reader.$i)"; rc=1; }
		log "reader $i: $(tail -n 1 /tmp/staging.reader.$i)"
	done
	c1=$(xprt_field $F_CONNECTS)
	i1=$(xprt_field $F_LOCAL_INVS)
	log "connects $c0 -> $c1, LOCAL_INVs $i0 -> $i1"
	((c1 > c0)) || { fail "the cut did not make the client reconnect"; rc=1; }
	((i1 > i0)) || { fail "no staged key was retired after the retransmissions"; rc=1; }
	nfs_umount || rc=1
	return $rc
}

st_cases() {
	local rc=0
	nfs_client_prepare || return 1
	[ -w $ST_PARAM ] || { fail "our client has no staging parameter"; return 1; }
	subtest staged-direct-io st_io_case 4.2 1 || rc=1
	subtest retransmitted-staged st_retransmitted || rc=1
	subtest unstaged-control st_io_case 3 0 || rc=1
	return $rc
}

test_server() {
	serve_nfs 800
}

test_client() {
	as_client st_cases
}
