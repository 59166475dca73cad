# SPDX-License-Identifier: GPL-2.0
#
# A hostile server for the client transport.  The server VM runs knfsd
# (its RDMA listener moved out of the way, to port 20050) and, on the NFS
# RDMA port 20049, tools/testing/hostile/build/hostile-server: a proxy
# that answers the client's RPC-over-RDMA calls honestly through knfsd's
# TCP port, and on cue answers ONE chosen call with a crafted message.
#
# First the proxy itself must carry NFSv3 and NFSv4.2 file I/O (files of
# boundary sizes written, read back and compared, a listing big enough for
# a Reply chunk).  Then, on an NFSv4.2 mount, each case is cued through
# the shared results directory (hs.cue.CASE; the proxy answers
# hs.armed.CASE and, once it has sent the crafted reply, hs.fired.CASE)
# and one syscall is made that produces the call the case selects:
#
#   m  cat of a file whose name holds the marker "HOSTILE" (LOOKUP/OPEN)
#   w  cat of an uncached 128 KiB file (a READ offering a Write chunk)
#   r  ls of a 300-entry directory (a READDIR offering a Reply chunk)
#   f  as m, but only a call that offered a Reply chunk (NFSv4 OPEN)
#   s  as m, on an NFSv3 mount of its own with timeo=50 (5 s), made for
#      the case and unmounted after it (NFSv4.0 if the cases run on v3)
#   n  a small file written with fsync, its data holding the marker: an
#      inline WRITE, which offers no Write or Reply chunk
#   e  as f, while 8 readers loop over uncached 128 KiB files, so that
#      calls queue for credits when the crafted reply grants one; every
#      read that completes must return its file's bytes, and at least
#      one must complete after the case fired
#   p  an O_DIRECT read of 5001 bytes (a READ whose data item is not a
#      whole number of XDR words, too big to come back inline) into a
#      buffer 100 bytes into pages filled with 0x55: the bytes around the
#      buffer must stay 0x55
#   g  as k up to the stall; then a LOOKUP queued behind it, its task
#      killed (an inline call, nothing to fence: its slot goes back with
#      its Send still outstanding), and the next LOOKUP, which may reuse
#      that slot, must complete within 75 s of the kill: the Send
#      watchdog fences the QP, flushing the Send it would wait for
#   k  as m; then uncached reads until the server's receives run out (the
#      case stops reposting them) and our Sends stall; then the listing
#      of a 300-entry directory opened beforehand (a synchronous READDIR
#      with a Reply chunk, queued behind the stalled Send), killed with
#      SIGKILL.  A second later the killed task must be fencing its Reply
#      chunk (its LOCAL_INV waits behind the stall), and it must be gone
#      within 50 s ("exited"): whichever ends the stall first, the
#      transport's retry limit, the 20 s fence timeout or the 30 s Send
#      watchdog
#
# The cm- and pdata- cases are cued like the rest and fire on an "m"
# call, which they never answer: the server drops that connection and
# answers the client's next connection request with a REJECT (with or
# without private data) or with crafted RFC 8797 private data (none, 4
# bytes, another format or version 2 claiming 256 KiB each way, or valid
# data of 256 KiB or 1 KiB each way).  The call must then complete on a
# later connection, and no message of ours may be longer than the receive
# size the server's private data let us assume (1 KiB without valid
# data): the server logs each as a VIOLATION, and every case checks its
# log.
#
# flap drops the connection like them, and each of the next two once it
# has sent one reply (at the call after it): the call must complete, and
# ("backoff") some reconnect after the case began must have waited: a
# connection that lasted under 3 s does not reset the backoff, so a
# server that keeps accepting and dropping gets no reconnect storm.  The
# client traces each reconnect it queues (xprtrdma_connect_scheduled).
#
# silent drops the connection like them and accepts the next, on which
# it then never answers anything ("swallowed"): the call must complete
# once the client's own RPC timer gives up on that connection and
# reconnects.  old-conn-reply drops the connection without answering and
# sends the real reply first thing on the client's next one ("stale"),
# where the call either still waits for its retransmission or has just
# been retransmitted.
#
# The bc- cases answer an "m" call honestly and then send backward-
# direction Calls of the server's own (RFC 8167; CB_NULL to the client's
# callback program): one offering a Read chunk, one whose RPC XID is not
# its header's, one 4 KiB longer than the client's receive buffer, 64 back
# to back (the client has 4 backchannel slots), and one plain.  The
# server keeps the client's Replies to them from knfsd, logs each
# ("answered"), and logs a VIOLATION for a Reply to a Call the client
# should have dropped.  After a malformed Call a good one follows, whose
# answer shows the backchannel still works.
#
# security-review-zero-retrans reads a symlink's 2000-byte target on a
# mount of its own made while rdma_max_inline_read is 16 KiB, so its
# READLINK goes without chunks.  The server drops it unanswered and
# advertises 1 KiB inline on the next connection: the retransmission
# offers a Reply chunk, memory that no earlier transmission registered,
# and the reply writes half of it while claiming all of it.
#
# Outcome "zeroed": the syscall succeeded and returned as many bytes as
# expected, each either the right byte or zero, and not all right: the
# server claimed bytes it never wrote, and the client must hand up zeros
# for them, never what its memory held before.
#
# Throughout, a second mount (NFSv4.1 straight to knfsd's RDMA listener on
# port 20050, a transport of its own) writes, reads back and compares
# 256 KiB every second: after each case's syscall it must verify another
# round, and no round may fail.
#
# The syscall's outcome must be one the case allows (ok: it succeeded and
# returned the right bytes; EIO / EPROTONOSUPPORT: it failed with that
# errno), within 50 s (the RPC timeout is 60 s), and afterwards 1 MiB must
# be written, read back uncached and compared on the same mount.  A case
# marked "log" must also make the client log a line naming the server:
# there the syscall's outcome cannot tell a rejected reply from one that
# was taken at face value.  "log:WORD" asks for a line naming the server
# that says WORD (inv-other: another failure's line names it too);
# "srv:WORD" a line of the server's, within 10 s, that says WORD; "once"
# that the call it fired on reached the server once, not retransmitted
# (an RDMA_ERROR is the server's final word: drop-in item 4, whose TAP
# lines also say "dropin").  A case may list several, comma-separated.  The harness fails the test on any
# oops, WARN, BUG or KASAN report.  On the debug kernel a case takes
# 60 to 280 s: the boot, the proxy's I/O and 41 cases filled the 4800 s
# that this times its time scale gives (2026-12-07), so tests-full.conf
# runs the list there in three boots (HS_PART).
TIMEOUT=1600
# Debian's kernels zero every page and slab object they hand out
# (INIT_ON_ALLOC_DEFAULT_ON), which would hand up zeros for bytes a
# server claimed but never wrote even if the client forgot to clear them:
# boot without that, so "zeroed" is the client's own doing.
BOOT_APPEND=init_on_alloc=0
HS_MNT_VERS=${HS_MNT_VERS:-4.2}
HS_CTL=/results
HS_RDMA_ALT_PORT=20050
HS_DIR_ENTRIES=300
# The k cases' second mount of the export (hs_client).
HS_KMNT=/mnt/nfs-k
HS_READ_SIZE=131072
HS_READERS=8
HS_SILENT_MNT=/mnt/nfs-silent
HS_SILENT_VERS=3
[ "$HS_MNT_VERS" = 3 ] && HS_SILENT_VERS=4.0
HS_HONEST_MNT=/mnt/nfs-honest
# The in-tree client (a reference run) has no such tracepoint: there the
# backoff check fails.
HS_TRACE_EVENT=xprtrdma/xprtrdma_connect_scheduled
[ "${CLIENT_TRANSPORT:-ours}" = ours ] || HS_TRACE_EVENT=
# Small enough for a userspace proxy under TCG, still past 1 MiB.
FILE_SIZES="0 1 4095 4096 1048577 4194304"
LISTING_ENTRIES=1000

# name selector allowed-outcomes [log]
HS_CASES="
unknown-xid               m ok
dup-reply                 m ok
bad-version               m ok|EIO
unknown-proc              m ok|EIO
msgp                      m ok|EIO
done                      m ok|EIO
credits-0                 m ok
credits-1                 m ok
credits-huge              m ok
short-header              m ok
short-fixed               m ok|EIO
lists-overrun             m ok|EIO
write-chunk-unoffered     m ok|EIO
too-many-write-chunks     w ok|EIO
seg-len-too-long          w ok|EIO
seg-count-0               w ok|EIO
len-overflow              w ok|EIO
reply-chunk-too-long      r ok|EIO
reply-chunk-foreign       f ok|EIO log
nomsg-without-reply-chunk n ok|EIO log
err-vers                  m EPROTONOSUPPORT|EIO log:ERR_VERS,once
err-vers-foreign          m EPROTONOSUPPORT|EIO log:ERR_VERS,once
err-vers-inverted         m EPROTONOSUPPORT|EIO|ok
err-chunk                 m EIO log:ERR_CHUNK,once
err-unknown               m EIO|EPROTONOSUPPORT|ok
err-short-body            m EIO|EPROTONOSUPPORT|ok
inv-foreign               m ok|EIO
inv-other                 e ok|EIO log:invalidated
reply-oversized           m ok|EIO log
unsolicited-burst         m ok
security-review-overclaim-write w zeroed|EIO
write-imm                 w ok log:non-Send
security-review-starve    k exited log
security-review-starve-inline g ok log
security-review-early-reply e ok|EIO
dropin-write-pad          p ok
bc-chunks                 m ok log:dropped,srv:answered
bc-forged-xid             m ok log:dropped,srv:answered
bc-oversized              m ok log
bc-flood                  m ok srv:answered
bc-null                   m ok srv:answered
cm-reject                 m ok log
cm-reject-pdata           m ok log
pdata-absent              m ok
pdata-short               m ok
pdata-foreign             m ok
pdata-version             m ok
pdata-huge                m ok
pdata-small               m ok
silent                    s ok srv:swallowed
flap                      m ok srv:flap,backoff
old-conn-reply            m ok srv:stale
security-review-zero-retrans l zeroed srv:over-claimed
"

hs_link_target() {
	head -c 2000 /dev/zero | tr '\0' t
}

hs_read_content() {
	yes "hostile $1" | head -c "$HS_READ_SIZE"
}

server_prepare() {
	local name sel allowed must i
	mkdir -p "$EXPORT_DIR/listing"
	for ((i = 0; i < LISTING_ENTRIES; i++)); do
		: >"$EXPORT_DIR/listing/entry-number-$i-with-a-longish-name"
	done
	while read -r name sel allowed must; do
		[ -n "$name" ] || continue
		case $sel in
		m | f | s) echo "hostile $name" >"$EXPORT_DIR/HOSTILE-$name" ;;
		e)
			echo "hostile $name" >"$EXPORT_DIR/HOSTILE-$name"
			for ((i = 0; i < HS_READERS; i++)); do
				hs_read_content "$name-$i" >"$EXPORT_DIR/read-$name-$i.bin"
			done
			;;
		k)
			echo "hostile $name" >"$EXPORT_DIR/HOSTILE-$name"
			mkdir "$EXPORT_DIR/dir-$name"
			for ((i = 0; i < HS_DIR_ENTRIES; i++)); do
				: >"$EXPORT_DIR/dir-$name/entry-$i-with-a-rather-long-name-to-fill-the-reply"
			done
			;;
		g)
			echo "hostile $name" >"$EXPORT_DIR/HOSTILE-$name"
			: >"$EXPORT_DIR/killed-$name"
			: >"$EXPORT_DIR/next-$name"
			;;
		w | p) hs_read_content "$name" >"$EXPORT_DIR/read-$name.bin" ;;
		l) ln -s "$(hs_link_target)" "$EXPORT_DIR/link-$name" ;;
		r)
			mkdir "$EXPORT_DIR/dir-$name"
			for ((i = 0; i < HS_DIR_ENTRIES; i++)); do
				: >"$EXPORT_DIR/dir-$name/entry-$i-with-a-rather-long-name-to-fill-the-reply"
			done
			;;
		esac
	done <<<"$HS_CASES"
	chmod -R a+rwX "$EXPORT_DIR"
}

test_server() {
	local rc=0 pid i
	rm -f "$HS_CTL"/hs.*
	NFS_PORT=$HS_RDMA_ALT_PORT nfs_serve_prepared || { signal abort; return 1; }
	"$REPO/tools/testing/hostile/build/hostile-server" -v -C "$HS_CTL" \
		-p "$NFS_PORT" >/results/hostile-server.log 2>&1 &
	pid=$!
	for ((i = 0; i < 50; i++)); do
		grep -q 'listening on port' /results/hostile-server.log && break
		sleep 0.2
	done
	if ! kill -0 "$pid" 2>/dev/null; then
		cat /results/hostile-server.log
		fail "hostile-server did not start"
		signal abort
		return 1
	fi
	log "hostile-server (pid $pid) on RDMA port $NFS_PORT; knfsd: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
	signal server-ready
	await client-done 1100 || rc=1
	kill "$pid"
	wait "$pid"
	grep -E 'fires on|accepted|closed|disconnect|fits no|exceeds|undecodable|failed' \
		/results/hostile-server.log | tail -200
	nfs_server_stop || rc=1
	return $rc
}

# The proxy is honest: ordinary file I/O through it works.  Its files are
# this test's FILE_SIZES, kept apart from those of a test before it in
# the same boot (nfs-files leaves a 64 MiB stream in /tmp/files, which
# the proxy, a userspace relay to knfsd over TCP, carries at a few MB/s).
hs_proxy_io() {
	FILES_DIR=/tmp/files-proxy file_suite "$1" || return 1
	[ "$1" = 3 ] && return 0
	local n
	nfs_mount "$1" || return 1
	echo 3 >/proc/sys/vm/drop_caches
	n=$(ls "$MNT/listing" | wc -l)
	nfs_umount || return 1
	[ "$n" = "$LISTING_ENTRIES" ] || fail "listing has $n entries, not $LISTING_ENTRIES"
}

# hs_wait FILE SECONDS
hs_wait() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.2
	done
	return 1
}

# What one syscall did: ok, EIO, EPROTONOSUPPORT, hang, wrong-data, or
# other:MESSAGE.
hs_outcome() {
	local rc=$1
	if [ "$rc" = 0 ]; then
		if cmp -s /tmp/hs.got /tmp/hs.want; then
			echo ok
		elif [ "$(stat -c %s /tmp/hs.got)" = "$(stat -c %s /tmp/hs.want)" ] &&
			cmp -l /tmp/hs.want /tmp/hs.got | awk '$3 != 0 { bad = 1 } END { exit bad }'; then
			echo zeroed
		else
			echo wrong-data
		fi
	elif [ "$rc" = exited ]; then
		echo exited
	elif [ "$rc" = 124 ]; then
		echo hang
	elif grep -q 'Input/output error' /tmp/hs.err; then
		echo EIO
	elif grep -q 'Protocol not supported' /tmp/hs.err; then
		echo EPROTONOSUPPORT
	else
		echo "other:$(head -c 200 /tmp/hs.err | tr '\n' ' ')"
	fi
}

# hs_stack PID: the kernel stack of PID, in HS_STACK on one line, read
# with builtins only.  The k and g selectors' poll loops fork nothing
# either (they use this, kill -0, nap from guest/lib.sh and EPOCHREALTIME):
# on the debug kernel under TCG a fork takes a second or more, and all
# they do must fit inside the stall of about 5 s (hs_stall).
hs_stack() {
	HS_STACK=""
	read -r -d '' HS_STACK <"/proc/$1/stack" 2>/dev/null || :
	HS_STACK=${HS_STACK//$'\n'/ }
}

# The reader loop of hs_stall: O_DIRECT reads of argv[1] in a thread
# until /tmp/hs.stop exists (or 2000 reads); the main thread prints one
# line once the reads have stalled, then waits for the stop.  A stall is
# no read finished for argv[2] seconds while argv[3], the fabric's count
# of RNR NAKs received, has risen since the last read to finish began: a
# Send of ours met no receive, which is what the case does and what a
# slow guest alone never does (an honest peer keeps a receive posted for
# every credit it grants, and the counter is the device's, so another
# connection's honest traffic adds nothing).  Without that counter (a
# fabric that has none) a stall is a pause of ten times the mean of the
# last 16 reads, at least argv[2] and at most argv[4] seconds.  One
# process, so that the moment of the stall is measured, not the cost of
# a fork per read.
HS_READ_LOOP='import mmap, os, sys, threading, time
path, quiet, rnr_path, most = sys.argv[1], float(sys.argv[2]), sys.argv[3], float(sys.argv[4])
def rnr():
    try:
        with open(rnr_path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None
# (RNR count when the last finished read began, when it finished): one
# tuple, so that the main thread never pairs the count of one read with
# the time of another.
state = {"n": 0, "took": [], "mark": (rnr(), time.monotonic())}
def reader():
    # 512 bytes, as dd(1) reads by default: an inline READ, no chunk.
    buf = memoryview(mmap.mmap(-1, 4096))[:512]
    while state["n"] < 2000 and not os.path.exists("/tmp/hs.stop"):
        before, t0 = rnr(), time.monotonic()
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        try:
            os.preadv(fd, [buf], 0)
        finally:
            os.close(fd)
        end = time.monotonic()
        state["took"] = (state["took"] + [end - t0])[-16:]
        state["n"] += 1
        state["mark"] = (before, end)
# Returns (seconds without a read, RNR count then, RNR count now) once
# the reads have stalled, else None.  A count that cannot be read, or
# that went down (the device was re-added), falls back to the pause.
def stalled():
    seen, last = state["mark"]
    quiet_for = time.monotonic() - last
    if quiet_for < quiet:
        return None
    now = rnr()
    if seen is not None and now is not None and now >= seen:
        return (quiet_for, seen, now) if now > seen else None
    took = state["took"]
    limit = min(most, max(quiet, 10 * sum(took) / len(took))) if took else 30
    return (quiet_for, seen, now) if quiet_for >= limit else None
t = threading.Thread(target=reader, daemon=True)
t.start()
seen = None
while t.is_alive():
    seen = stalled()
    if seen:
        break
    time.sleep(0.05)
if seen:
    print("reads stalled after %d of them (none for %.2f s; the last %d took %.3f s on average; RNR NAKs %s -> %s)" %
          ((state["n"], seen[0], len(state["took"]),
            sum(state["took"]) / max(1, len(state["took"]))) + seen[1:]), flush=True)
else:
    print("reads ended, never stalled, after %d of them" % state["n"], flush=True)
sys.stdout.close()
while t.is_alive() and not os.path.exists("/tmp/hs.stop"):
    time.sleep(0.1)
t.join()'

# hs_stall NAME: the cued call (the case starves the connection once it
# has answered it), then uncached reads in a loop (its pid in HS_LOOP;
# /tmp/hs.stop ends it) until none has finished for 1.5 s and the fabric
# has counted an RNR NAK since the last one to finish began: our Sends
# have stalled behind the server's missing receives.  The pause alone is
# not enough: on the debug kernel under a busy host a read can take a
# second and the guest can pause for several, while the stall lasts only
# until the fabric's transport retry limit fails the QP (about 5 s after
# the last read on 6.12's rxe and on the debug kernel's), and everything
# the callers do inside it must fit before that.  So it must not take
# longer to see than 1.5 s: waiting for 3 s, one case in three on 6.12 saw
# the QP fail, and its call complete on a new connection, before its kill.
# (Only on a fabric without rcvd_rnr_err is the pause alone taken, at most
# 3 s long; the tests run xprt-hostile on rxe, which counts it.)  Returns 1
# if the reads never stalled.
hs_stall() {
	local name=$1 line=""
	timeout 55 cat "$MNT/HOSTILE-$name" >/dev/null 2>/tmp/hs.err || return 1
	rm -f /tmp/hs.stop /tmp/hs.stall
	mkfifo /tmp/hs.stall || return 1
	python3 -c "$HS_READ_LOOP" "$MNT/HOSTILE-$name" 1.5 \
		"/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters/rcvd_rnr_err" 3 >/tmp/hs.stall &
	HS_LOOP=$!
	read -r -t 300 line </tmp/hs.stall
	log "$name: ${line:-no word from the reader loop in 300 s}"
	[[ $line == "reads stalled"* ]]
}

# hs_starve NAME: the k selector.  Succeeds if the killed listing was gone
# within 50 s after its Reply chunk's fence waited out the stall; returns
# 124 if it was not gone, 2 if the kill never had to wait.
# /tmp/hs.killed gets the time of the kill.
hs_starve() {
	local name=$1 loop ls i stack="" killed deadline
	date +%s.%N >/tmp/hs.killed
	# The directory opened now, its listing read on cue: no lookup or
	# revalidation stands between the cue and the READDIR.
	rm -f /tmp/hs.go
	mkfifo /tmp/hs.go || return 1
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
open(sys.argv[2]).read()
os.listdir(fd)' "$HS_KMNT/dir-$name" /tmp/hs.go &
	ls=$!
	if ! hs_stall "$name"; then
		touch /tmp/hs.stop
		echo go >/tmp/hs.go
		return 1
	fi
	loop=$HS_LOOP
	echo go >/tmp/hs.go
	# Kill soon after the READDIR sleeps in the RPC layer, sent (its chunk
	# registered and its Send posted in the task's own context before it
	# sleeps for the reply), not after a fixed pause that could outlast
	# the stall.
	for ((i = 0; i < 30 * ${TIME_SCALE:-1}; i++)); do
		hs_stack "$ls"
		[[ $HS_STACK == *rpc_wait_bit_killable* ]] && break
		nap 0.1
	done
	nap 0.2
	hs_stack "$ls"
	log "$name: the listing waits in: $HS_STACK"
	kill -9 "$ls"
	killed=$EPOCHREALTIME
	echo "$killed" >/tmp/hs.killed
	# Where the killed task waits, sampled every tenth of a second until
	# it is gone or 50 s have passed: on 6.12's rxe the QP's retry limit
	# can end the stall, and with it the fence's wait, within a second of
	# the kill, so one look a second later can miss a wait that happened.
	deadline=$((${killed/./} + 50000000))
	while kill -0 "$ls" 2>/dev/null && ((${EPOCHREALTIME/./} < deadline)); do
		hs_stack "$ls"
		if [ -z "$stack" ] && [[ $HS_STACK == *xprtrdma_invalidate* ]]; then
			stack=$HS_STACK
			log "$name: after the kill it waits in: $stack"
		fi
		nap 0.1
	done
	touch /tmp/hs.stop
	if kill -0 "$ls" 2>/dev/null; then
		hs_stack "$ls"
		log "$name: the killed listing is still there: $HS_STACK"
		kill -9 "$loop"
		return 124
	fi
	log "$name: the killed listing was gone after $(echo "$EPOCHREALTIME - $killed" | bc) s"
	timeout 120 tail --pid="$loop" -f /dev/null
	kill -9 "$loop" 2>/dev/null
	[[ $stack == *xprtrdma_invalidate* ]] ||
		{ log "$name: the kill never waited on a fence"; return 2; }
}

# hs_starve_inline NAME: the g selector.  As k, the case starves the
# connection and reads run until our Sends stall; then a LOOKUP (an
# inline call: no chunk to fence) is queued behind them and its task
# killed, so its slot goes back while its Send is still outstanding; the
# next call (another LOOKUP) may take that slot and must then not wait
# for that Send for ever: the Send watchdog fences the QP.  Returns the
# next call's status (/tmp/hs.got says "stat done" if it succeeded);
# /tmp/hs.killed gets the time of the kill.
hs_starve_inline() {
	local name=$1 loop st i rc
	date +%s.%N >/tmp/hs.killed
	if ! hs_stall "$name"; then
		touch /tmp/hs.stop
		return 1
	fi
	loop=$HS_LOOP
	stat "$MNT/killed-$name" >/dev/null 2>&1 &
	st=$!
	nap 2
	kill -9 "$st"
	date +%s.%N >/tmp/hs.killed
	# Polled, not waited for: a call stuck in an uninterruptible wait
	# would outlast any timeout(1).
	stat "$MNT/next-$name" >/dev/null 2>/tmp/hs.err &
	st=$!
	for ((i = 0; i < 500; i++)); do
		kill -0 "$st" 2>/dev/null || break
		nap 0.2
	done
	if kill -0 "$st" 2>/dev/null; then
		hs_stack "$st"
		log "$name: the next call still waits in: $HS_STACK"
		rc=124
	elif wait "$st"; then
		echo "stat done" >/tmp/hs.got
		rc=0
	else
		rc=1
	fi
	log "$name: the next call ended ($rc) $(echo "$(date +%s.%N) - $(cat /tmp/hs.killed)" | bc) s after the kill"
	touch /tmp/hs.stop
	timeout 120 tail --pid="$loop" -f /dev/null
	kill -9 "$loop" 2>/dev/null
	return $rc
}

# hs_readers NAME: the e selector.  HS_READERS loops of O_DIRECT reads,
# each of its own file, each read compared, run around the cued syscall
# until the proxy says its early replies are over (hs.done.NAME: the last
# sent, or their connection closed) or 60 s.
# Returns the cued syscall's status, its times in /tmp/hs.t0 and
# /tmp/hs.t1; the readers' own verdict goes to /tmp/hs.readers ("ok" or
# what went wrong), judged by hs_case apart from the outcome.
hs_readers() {
	local name=$1 i pids=() bad rounds failed rc
	rm -f /tmp/hs.stop /tmp/hs.bad.* /tmp/hs.rounds.* /tmp/hs.bgerr "$HS_CTL/hs.done.$name"
	for ((i = 0; i < HS_READERS; i++)); do
		hs_read_content "$name-$i" >"/tmp/hs.want.$i"
		(
			while [ ! -e /tmp/hs.stop ]; do
				if timeout 55 dd if="$MNT/read-$name-$i.bin" of="/tmp/hs.got.$i" \
					bs=128k iflag=direct status=none 2>>/tmp/hs.bgerr; then
					cmp -s "/tmp/hs.got.$i" "/tmp/hs.want.$i" || echo "$i" >>"/tmp/hs.bad.$i"
					[ -e "$HS_CTL/hs.fired.$name" ] && echo x >>"/tmp/hs.rounds.$i"
				fi
			done
		) &
		pids+=($!)
	done
	sleep 2
	date +%s.%N >/tmp/hs.t0
	timeout 55 cat "$MNT/HOSTILE-$name" >/tmp/hs.got 2>/tmp/hs.err
	rc=$?
	date +%s.%N >/tmp/hs.t1
	# Until the proxy's early replies are over (a rejected one may have
	# cost a reconnect), or 60 s.
	for ((i = 0; i < 60; i++)); do
		[ -e "$HS_CTL/hs.done.$name" ] && break
		sleep 1
	done
	touch /tmp/hs.stop
	for i in "${pids[@]}"; do
		timeout 60 tail --pid="$i" -f /dev/null
	done
	bad=$(cat /tmp/hs.bad.* 2>/dev/null | wc -l)
	rounds=$(cat /tmp/hs.rounds.* 2>/dev/null | wc -l)
	failed=$(cat /tmp/hs.bgerr 2>/dev/null | wc -l)
	log "$name: $rounds reads completed after the case fired, $bad returned wrong bytes, $failed failed;" \
		"early replies $([ -e "$HS_CTL/hs.done.$name" ] && echo over || echo "not over")"
	[ "$failed" = 0 ] || head -n 3 /tmp/hs.bgerr | sed 's/^/  reader: /'
	if [ "$bad" != 0 ]; then
		echo "$bad background reads returned wrong bytes" >/tmp/hs.readers
	elif [ "$rounds" = 0 ]; then
		echo "no background read completed after the case fired" >/tmp/hs.readers
	else
		echo ok >/tmp/hs.readers
	fi
	return $rc
}

# hs_stale_fill: leave 64 MiB of freed memory holding 0xa5 bytes, so that
# the pages and slab objects the next call gets are likely to hold them:
# a byte the server claimed but never wrote then reaches user space as
# 0xa5 ("wrong-data") unless the client cleared it (with init_on_alloc=0;
# see BOOT_APPEND).
hs_stale_fill() {
	head -c $((64 << 20)) /dev/zero | tr '\0' '\245' >/tmp/hs.stale
	rm -f /tmp/hs.stale
}

# The honest mount: NFSv4.1 (4.2 if the cases run on 4.1: a mount of the
# same minor version would be merged into theirs) straight to knfsd's own
# RDMA listener, a transport of its own beside the proxy's, carrying a
# 256 KiB O_DIRECT write, read-back and compare every half second while the
# cases run.  /tmp/hs.honest.n counts the verified rounds (replaced whole,
# never rewritten in place); /tmp/hs.honest.fail says what went wrong,
# and ends the loop.
hs_honest_loop() {
	local f=$HS_HONEST_MNT/honest.bin n=0
	head -c 262144 /dev/urandom >/tmp/hs.honest.src
	while [ ! -e /tmp/hs.honest.stop ]; do
		if ! timeout 60 dd if=/tmp/hs.honest.src of="$f" bs=256k oflag=direct \
			conv=fsync status=none; then
			echo "round $((n + 1)): the write failed" >/tmp/hs.honest.fail
			return
		fi
		if ! timeout 60 dd if="$f" bs=256k iflag=direct status=none |
			cmp -s - /tmp/hs.honest.src; then
			echo "round $((n + 1)): the read-back failed or differs" >/tmp/hs.honest.fail
			return
		fi
		n=$((n + 1))
		echo "$n" >/tmp/hs.honest.n.new && mv /tmp/hs.honest.n.new /tmp/hs.honest.n
		# Every case waits for the next round (hs_honest_moved).
		sleep 0.5
	done
}

hs_honest_rounds() {
	local n=0
	[ -e /tmp/hs.honest.n ] && read -r n </tmp/hs.honest.n
	echo "${n:-0}"
}

hs_honest_start() {
	local v=4.1
	[ "$HS_MNT_VERS" = 4.1 ] && v=4.2
	rm -f /tmp/hs.honest.*
	mkdir -p "$HS_HONEST_MNT"
	if ! NFS_PORT=$HS_RDMA_ALT_PORT MNT=$HS_HONEST_MNT nfs_mount "$v"; then
		mountpoint -q "$HS_HONEST_MNT" && timeout 60 umount "$HS_HONEST_MNT"
		return 1
	fi
	hs_honest_loop &
	HS_HONEST_PID=$!
}

# hs_honest_moved SINCE: the honest mount verified a round after round
# SINCE (waiting up to 30 s for it) and nothing failed there.
hs_honest_moved() {
	local i
	for ((i = 0; i < 60; i++)); do
		[ -e /tmp/hs.honest.fail ] && break
		(($(hs_honest_rounds) > $1)) && return 0
		sleep 0.5
	done
	if [ -e /tmp/hs.honest.fail ]; then
		fail "the honest mount: $(cat /tmp/hs.honest.fail)"
	else
		fail "the honest mount verified nothing in 30 s (round $(hs_honest_rounds))"
	fi
	return 1
}

hs_honest_stop() {
	local rc=0
	touch /tmp/hs.honest.stop
	wait "$HS_HONEST_PID"
	log "the honest mount: $(hs_honest_rounds) rounds verified"
	[ -e /tmp/hs.honest.fail ] && { fail "the honest mount: $(cat /tmp/hs.honest.fail)"; rc=1; }
	timeout 60 rm -f "$HS_HONEST_MNT/honest.bin"
	timeout 120 umount "$HS_HONEST_MNT" || { fail "umount of $HS_HONEST_MNT failed"; rc=1; }
	rm -f /tmp/hs.honest.*
	return $rc
}

# Write 1 MiB, read it back past the page cache, compare; then a symlink
# whose 2000-byte target makes its call longer than 1 KiB, the inline
# size a server without RFC 8797 private data gets.  The data is new for
# every case (a reply or page reused from the case before must not
# compare equal); the target is made without a program: each costs a
# tenth of a second in these guests, and this runs after every case.
hs_usable() {
	local f=$MNT/after-$1 target
	head -c 1048576 /dev/urandom >/tmp/hs.after
	printf -v target '%2000s' ''
	target=${target// /t}
	timeout 150 cp /tmp/hs.after "$f" || { fail "write after $1 failed"; return 1; }
	timeout 150 sync || { fail "sync after $1 failed"; return 1; }
	echo 3 >/proc/sys/vm/drop_caches
	timeout 150 cmp /tmp/hs.after "$f" || { fail "read-back after $1 differs or failed"; return 1; }
	rm -f "$f"
	timeout 150 ln -s "$target" "$f.link" || { fail "a long symlink after $1 failed"; return 1; }
	echo 3 >/proc/sys/vm/drop_caches
	[ "$(timeout 150 readlink "$f.link")" = "$target" ] ||
		{ fail "the long symlink after $1 reads back wrong"; return 1; }
	rm -f "$f.link"
}

# hs_must NAME MUSTS SRVLINES: the case's comma-separated musts, checked
# against the client's log since the case began (/tmp/hs.dmesg) and the
# server's log after its first SRVLINES lines.
hs_must() {
	local name=$1 srvlines=$3 m rc=0 i xid
	local -a musts
	IFS=, read -ra musts <<<"$2"
	for m in "${musts[@]}"; do
		case $m in
		log)
			grep -q "xprtrdma: .*${SERVER_ADDR//./\\.}" /tmp/hs.dmesg && continue
			fail "$name: the client logged no line naming $SERVER_ADDR: the reply was taken at face value"
			;;
		backoff)
			# A reconnect queued since the case began waited.
			awk -v m="hs-case $name\$" '
				$0 ~ m { on = 1; next }
				on && /xprtrdma_connect_scheduled: peer=[^ ]*:20049 / {
					print "  trace: " $0 > "/dev/stderr"
					if ($0 !~ /delay_ms=0 /) ok = 1
				}
				END { exit !ok }' $TRACEFS/trace && continue
			fail "$name: every reconnect since the case began was immediate: a reconnect storm"
			;;
		log:*)
			# A line naming the server must also say WORD.
			grep -q "xprtrdma: .*${SERVER_ADDR//./\\.}.*${m#log:}" /tmp/hs.dmesg && continue
			fail "$name: the client logged no line naming $SERVER_ADDR that says '${m#log:}'"
			;;
		once)
			# The call the case fired on reached the server once: the
			# client failed it at once instead of retransmitting it.
			xid=$(tail -n +"$((srvlines + 1))" "$HS_CTL/hostile-server.log" |
				sed -n "s/.* $name fires on xid \([0-9a-f]*\).*/\1/p" | head -n 1)
			if [ -z "$xid" ]; then
				fail "$name: the server logged no XID it fired on"
			else
				i=$(tail -n +"$((srvlines + 1))" "$HS_CTL/hostile-server.log" |
					grep -c "call xid $xid:")
				log "$name: XID $xid reached the server $i time(s)"
				[ "$i" = 1 ] && continue
				fail "$name: XID $xid reached the server $i times, not once"
			fi
			;;
		srv:*)
			# The server must log a line saying WORD, within 10 s.
			for ((i = 0; i < 20; i++)); do
				tail -n +"$((srvlines + 1))" "$HS_CTL/hostile-server.log" |
					grep -q -- "${m#srv:}" && break
				sleep 0.5
			done
			((i < 20)) && continue
			fail "$name: the server logged no line that says '${m#srv:}'"
			;;
		*)
			fail "$name: unknown check '$m'"
			;;
		esac
		rc=1
	done
	return $rc
}

hs_case() {
	local name=$1 sel=$2 allowed=$3 must=$4 rc t0 t1 secs got lines violations
	local srvlines honest silent_left="" limit inl
	violations=$(grep -c VIOLATION "$HS_CTL/hostile-server.log")
	srvlines=$(wc -l <"$HS_CTL/hostile-server.log")
	rm -f "$HS_CTL/hs.armed.$name" "$HS_CTL/hs.fired.$name"
	lines=$(dmesg | wc -l)
	echo "hs-case $name" >$TRACEFS/trace_marker
	: >"$HS_CTL/hs.cue.$name"
	hs_wait "$HS_CTL/hs.armed.$name" 20 || { fail "the server did not arm $name"; return 1; }
	: >/tmp/hs.err
	[ "$sel" != w ] || hs_stale_fill
	t0=$EPOCHREALTIME
	case $sel in
	m | f)
		echo "hostile $name" >/tmp/hs.want
		timeout 55 cat "$MNT/HOSTILE-$name" >/tmp/hs.got 2>/tmp/hs.err
		rc=$?
		;;
	w)
		hs_read_content "$name" >/tmp/hs.want
		timeout 55 cat "$MNT/read-$name.bin" >/tmp/hs.got 2>/tmp/hs.err
		rc=$?
		;;
	p)
		hs_read_content "$name" | head -c 5001 >/tmp/hs.want
		timeout 55 python3 -c 'import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
m = mmap.mmap(-1, 8192)
m.write(b"\x55" * 8192)
mv = memoryview(m)
got = os.preadv(fd, [mv[100:5101]], 0)
if m[:100] != b"\x55" * 100 or m[5101:] != b"\x55" * (8192 - 5101):
    sys.exit("memory around the buffer changed")
open(sys.argv[2], "wb").write(bytes(mv[100:100 + got]))' \
			"$MNT/read-$name.bin" /tmp/hs.got 2>/tmp/hs.err
		rc=$?
		;;
	s)
		# Its own mount (NFSv3, or NFSv4.0 if the cases run on v3:
		# its own transport), whose RPC timer runs out after 5 s:
		# the reconnect that ends the silence is then the client's
		# own doing, well within the limit.
		echo "hostile $name" >/tmp/hs.want
		mkdir -p "$HS_SILENT_MNT"
		if MNT=$HS_SILENT_MNT nfs_mount "$HS_SILENT_VERS" timeo=50; then
			# The syscall's time, not the mount's: a debug
			# kernel's mount takes up to a minute.
			t0=$EPOCHREALTIME
			timeout 55 cat "$HS_SILENT_MNT/HOSTILE-$name" >/tmp/hs.got 2>/tmp/hs.err
			rc=$?
		else
			rc=mount
		fi
		if mountpoint -q "$HS_SILENT_MNT" && ! timeout 60 umount "$HS_SILENT_MNT"; then
			silent_left="umount of $HS_SILENT_MNT failed"
		fi
		;;
	l)
		# Its own mount, as for s, whose transport is created while
		# rdma_max_inline_read is 16 KiB: replies of up to 16 KiB
		# come inline, so its READLINK offers no chunk until the
		# case's reconnect lowers the inline size to 1 KiB.
		# readlink(2) stops at the first zero byte, so a target cut
		# short stands for zeros after it.
		hs_link_target >/tmp/hs.want
		mkdir -p "$HS_SILENT_MNT"
		inl=$(cat /proc/sys/sunrpc/rdma_max_inline_read)
		echo 16384 >/proc/sys/sunrpc/rdma_max_inline_read
		if MNT=$HS_SILENT_MNT nfs_mount "$HS_SILENT_VERS"; then
			echo "$inl" >/proc/sys/sunrpc/rdma_max_inline_read
			hs_stale_fill
			# As for s; the fill alone took 85 s on a debug kernel.
			t0=$EPOCHREALTIME
			timeout 55 python3 -c 'import os, sys
got = os.readlink(sys.argv[1].encode())
want = int(sys.argv[3])
open(sys.argv[2], "wb").write(got + b"\0" * (want - len(got)))' \
				"$HS_SILENT_MNT/link-$name" /tmp/hs.got 2000 2>/tmp/hs.err
			rc=$?
		else
			echo "$inl" >/proc/sys/sunrpc/rdma_max_inline_read
			rc=mount
		fi
		if mountpoint -q "$HS_SILENT_MNT" && ! timeout 60 umount "$HS_SILENT_MNT"; then
			silent_left="umount of $HS_SILENT_MNT failed"
		fi
		;;
	n)
		echo "HOSTILE $name" >/tmp/hs.want
		timeout 55 dd of="$MNT/new-$name" conv=fsync status=none \
			</tmp/hs.want 2>/tmp/hs.err
		rc=$?
		[ "$rc" = 0 ] && timeout 55 cat "$MNT/new-$name" >/tmp/hs.got
		;;
	e)
		echo "hostile $name" >/tmp/hs.want
		echo "did not run" >/tmp/hs.readers
		hs_readers "$name"
		rc=$?
		t0=$(cat /tmp/hs.t0)
		;;
	k)
		if hs_starve "$name"; then rc=exited; else rc=$?; fi
		t0=$(cat /tmp/hs.killed)
		;;
	g)
		echo "stat done" >/tmp/hs.want
		hs_starve_inline "$name"
		rc=$?
		t0=$(cat /tmp/hs.killed)
		;;
	r)
		echo "$HS_DIR_ENTRIES" >/tmp/hs.want
		timeout 55 ls "$MNT/dir-$name" >/tmp/hs.list 2>/tmp/hs.err
		rc=$?
		wc -l </tmp/hs.list >/tmp/hs.got
		;;
	esac
	t1=$EPOCHREALTIME
	honest=$(hs_honest_rounds)
	[ "$sel" = e ] && t1=$(cat /tmp/hs.t1)
	secs=$(echo "$t1 - $t0" | bc)
	got=$(hs_outcome "$rc")
	log "$name: outcome $got in $secs s (allowed: $allowed)"
	dmesg | tail -n +"$((lines + 1))" >/tmp/hs.dmesg
	grep -E 'xprtrdma|rpcrdma|nfs:|RPC' /tmp/hs.dmesg | head -20 | sed 's/^/  dmesg: /'
	rc=0
	if [ "$sel" = e ] && [ "$(cat /tmp/hs.readers)" != ok ]; then
		fail "$name: the readers beside it: $(cat /tmp/hs.readers)"
		rc=1
	fi
	hs_must "$name" "$must" "$srvlines" || rc=1
	[ -z "$silent_left" ] || { fail "$name: $silent_left"; rc=1; }
	if ! hs_wait "$HS_CTL/hs.fired.$name" 5; then
		: >"$HS_CTL/hs.cue.none"
		fail "$name never fired: no call matched its selector"
		rc=1
	fi
	case "|$allowed|" in
	*"|$got|"*) ;;
	*) fail "$name: outcome $got, allowed $allowed"; rc=1 ;;
	esac
	# g waits for the Send watchdog: 30 s without progress, noticed on
	# the next keepalive tick (30 s).
	limit=50
	[ "$sel" = g ] && limit=75
	if (($(echo "$secs > $limit" | bc))); then
		fail "$name: the syscall took $secs s"
		rc=1
	fi
	hs_usable "$name" || rc=1
	hs_honest_moved "$honest" || rc=1
	if [ "$(grep -c VIOLATION "$HS_CTL/hostile-server.log")" != "$violations" ]; then
		fail "$name: the server logged a VIOLATION: $(grep VIOLATION "$HS_CTL/hostile-server.log" | tail -n 1)"
		rc=1
	fi
	return $rc
}

hs_client() {
	local rc=0 name sel allowed must tap rd wr
	nfs_client_prepare || return 1
	# The cases were written against the in-tree's 4 KiB inline: several
	# select a call by the Reply or Write chunk it carries (a READDIR or a
	# 4 KiB READ), which our 8 KiB default would send without one.  Pin
	# both sizes at 4 KiB for the run, and put back what was found.
	rd=$(cat /proc/sys/sunrpc/rdma_max_inline_read)
	wr=$(cat /proc/sys/sunrpc/rdma_max_inline_write)
	echo 4096 >/proc/sys/sunrpc/rdma_max_inline_read
	echo 4096 >/proc/sys/sunrpc/rdma_max_inline_write
	hs_cases_run
	rc=$?
	echo "$rd" >/proc/sys/sunrpc/rdma_max_inline_read
	echo "$wr" >/proc/sys/sunrpc/rdma_max_inline_write
	return $rc
}

# hs_cases_run: hs_client's mounts and cases, at the inline sizes it set.
hs_cases_run() {
	local rc=0 name sel allowed must tap i=0 n k=1 parts=1 first last
	# HS_PART=K/N: only the K-th of N equal runs of the case list, the
	# proxy's I/O in the first.  The debug kernel takes about 100 s a
	# case, so the whole list outlasts any one boot's timeout there.
	if [ -n "${HS_PART:-}" ]; then
		if [[ ! $HS_PART =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] ||
			((BASH_REMATCH[1] > BASH_REMATCH[2])); then
			fail "HS_PART=$HS_PART is not K/N with 1 <= K <= N"
			return 1
		fi
		k=${BASH_REMATCH[1]} parts=${BASH_REMATCH[2]}
	fi
	n=$(grep -c '[^[:space:]]' <<<"$HS_CASES")
	first=$(((k - 1) * n / parts)) last=$((k * n / parts))
	if [ -z "${HS_ONLY:-}" ] && [ "$k" = 1 ]; then
		subtest hostile-server-proxy-nfs3 hs_proxy_io 3 || rc=1
		subtest "hostile-server-proxy-nfs$HS_MNT_VERS" hs_proxy_io "$HS_MNT_VERS" || rc=1
	fi
	# Our client's reconnects, for the flap case's backoff check; the
	# cases' markers go to the trace either way.
	tracefs_mount || return 1
	if [ -n "$HS_TRACE_EVENT" ]; then
		trace_event_on $HS_TRACE_EVENT || return 1
		: >$TRACEFS/trace
	fi
	nfs_mount "$HS_MNT_VERS" || return 1
	# The k cases list, on cue, a directory they opened before the
	# stall.  On the debug kernel the stall outlasts the directory
	# attribute cache (acdirmax, 60 s by default), and the listing then
	# starts with an inline GETATTR instead of the READDIR whose Reply
	# chunk the kill must fence.  So they list through a second mount of
	# the same export that keeps directory attributes for an hour:
	# nosharecache keeps its superblock apart, while the NFS client, and
	# with it the transport the stall starves, stays the one $MNT uses.
	mkdir -p "$HS_KMNT"
	if ! MNT=$HS_KMNT nfs_mount "$HS_MNT_VERS" nosharecache,acdirmin=3600,acdirmax=3600; then
		timeout 120 umount "$MNT"
		return 1
	fi
	if ! hs_honest_start; then
		timeout 120 umount "$HS_KMNT"
		timeout 120 umount "$MNT"
		return 1
	fi
	while read -r name sel allowed must; do
		[ -n "$name" ] || continue
		i=$((i + 1))
		((i > first && i <= last)) || continue
		# HS_ONLY=REGEX: only the matching cases (development, and make
		# check's ours/ours boot, which runs the RDMA_ERROR cases alone).
		[ -z "${HS_ONLY:-}" ] || [[ $name =~ $HS_ONLY ]] || continue
		# RDMA_ERROR is also a drop-in item: the in-tree client retries
		# such a reply as garbage before it fails the call.
		tap="hostile-server-$name"
		case $name in
		err-vers | err-vers-foreign | err-chunk) tap="$tap (dropin: RDMA_ERROR fails the call at once)" ;;
		esac
		subtest "$tap" hs_case "$name" "$sel" "$allowed" "$must" || rc=1
	done <<<"$HS_CASES"
	grep -E '^[[:space:]]*xprt:' /proc/self/mountstats | sed 's/^/mountstats: /'
	[ -z "$HS_TRACE_EVENT" ] || trace_event_off $HS_TRACE_EVENT
	hs_honest_stop || rc=1
	timeout 120 umount "$HS_KMNT" || { fail "umount of $HS_KMNT failed"; rc=1; }
	timeout 120 umount "$MNT" || { fail "umount failed"; rc=1; }
	return $rc
}

test_client() {
	as_client hs_client
}
