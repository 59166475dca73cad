# SPDX-License-Identifier: GPL-2.0
#
# Benchmark body for tools/testing/make-bench.sh, two VMs only.  The host says
# what this boot measures through BENCH_* lines in the env file, so that one
# body serves every column of the table:
#
#   BENCH_MODE      nfs (fio on an NFSv4.2 mount) or perftest (bare rxe)
#   BENCH_PROTO     rdma or tcp, for BENCH_MODE=nfs
#   BENCH_RUNTIME   seconds each fio job measures, after BENCH_RAMP
#   BENCH_RAMP      seconds each fio job runs before it starts measuring
#   BENCH_FILE_MB   size of the file every fio job works on
#   BENCH_PT_SECS   seconds each perftest bandwidth test runs
#   BENCH_PT_BW_OPTS  extra options for ib_write_bw and ib_read_bw
#                   (e.g. "-q 4 -s 262144" to try more QPs, larger messages)
#   BENCH_LOADS     the fio jobs (and "meta") to run, all by default
#   NET_MTU         the link's MTU (guest/lib.sh); with 9000 the test
#                   checks that rxe took a 4096-byte path MTU
#   BENCH_PROFILE   1: a flat perf profile of each fio job on both VMs,
#                   profile-{client,server}-<job>.txt (see prof_report)
#   BENCH_TRACE     tracepoints ("system" or "system/event", space
#                   separated) to record on both VMs while the jobs run,
#                   trace-{client,server}.txt (see trace_start)
#
# Without them (vmtest.sh bench 2vm intree intree) it runs the NFS-over-RDMA
# column once, which is a quick way to try a change to this file.  Raw
# outputs go to /results, which is results/bench/raw/<column>/<rep>/ on the
# host.

BENCH_MODE=${BENCH_MODE:-nfs}
BENCH_PROTO=${BENCH_PROTO:-rdma}
BENCH_RUNTIME=${BENCH_RUNTIME:-20}
BENCH_RAMP=${BENCH_RAMP:-2}
BENCH_FILE_MB=${BENCH_FILE_MB:-256}
BENCH_PT_SECS=${BENCH_PT_SECS:-5}
BENCH_PT_BW_OPTS=${BENCH_PT_BW_OPTS:-}
BENCH_LOADS=${BENCH_LOADS:-seq-write seq-read rand-read rand-write qd1-read qd1-write meta}
BENCH_PROFILE=${BENCH_PROFILE:-0}
BENCH_TRACE=${BENCH_TRACE:-}

# 300 s for the boots and the server's setup, and 30 s beyond each of the
# six fio jobs' and the metadata load's own time for start-up under TCG.
# The host uses the same figure as its deadline.
TIMEOUT=$((300 + 7 * (BENCH_RUNTIME + BENCH_RAMP + 30)))
# perf's start-up and report take about a minute a job under TCG.
[ "$BENCH_PROFILE" = 1 ] && TIMEOUT=$((TIMEOUT + 7 * 120))

BENCH_FILE=bench.dat

# shellcheck source=tools/testing/tests/svcrdma-stats.inc
. "$(dirname "${BASH_SOURCE[0]}")/svcrdma-stats.inc"

# name rw bs iodepth.  Depths keep a few RPCs in flight without letting one
# job's queue outlast its runtime on a ~15 MB/s link.  The QD1 jobs measure
# one RPC's latency with nothing queued beside it.
BENCH_JOBS="seq-write write 1M 8
seq-read read 1M 8
rand-read randread 4k 16
rand-write randwrite 4k 16
qd1-read randread 4k 1
qd1-write randwrite 4k 1"

# perftest programs: bandwidth in both RDMA directions (the server pulls
# NFS WRITE payloads with RDMA Read and pushes READ payloads with RDMA
# Write), and the latency of a small Send, which bounds an RPC's.
BENCH_PERFTESTS="ib_write_bw ib_read_bw ib_send_lat"

# perftest_gid ADDR: rxe0's GID index for ADDR as RoCE v2.  rxe puts the
# IPv6 link-local GID first; the index of the IPv4-mapped one depends on
# what the netdev had when rxe0 appeared, so look rather than hard-code it.
perftest_gid() {
	local gid f i
	# shellcheck disable=SC2086
	gid=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${1//./ })
	while read -r f; do
		i=${f##*/}
		if [ "$(cat "/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i")" = "RoCE v2" ]; then
			echo "$i"
			return 0
		fi
	# Not < <(...): the guest's /dev has no /dev/fd.
	done <<<"$(grep -lx "$gid" /sys/class/infiniband/rxe0/ports/1/gids/*)"
	# Our stdout is the caller's value: the reason goes to the log.
	fail "no RoCE v2 GID for $1 on rxe0" >&2
}

# perftest_args NAME GID: the options both sides of NAME take.
# -F: a guest has no cpufreq and perftest would otherwise refuse to run.
# -u 17: an ack timeout of 0.5 s, what rdma_cm gives the kernel's RoCE
# connections (packet lifetime 16, plus one).  perftest's own default,
# 67 ms, is shorter than a busy TCG host's scheduling delays: rxe then
# retransmits whole windows it did not need to and the "ceiling" collapses
# far below what NFS gets through the same link.
perftest_args() {
	echo "-d rxe0 -x $2 -F -u 17"
	case "$1" in
	*_bw) echo "-D $BENCH_PT_SECS $BENCH_PT_BW_OPTS" ;;
	# Enough round trips for a stable median at ~2 ms each under TCG.
	*_lat) echo "-n 1000" ;;
	esac
}

# perftest_client NAME GID: one program against the server's listener.
perftest_client() {
	# shellcheck disable=SC2046
	"$1" $(perftest_args "$1" "$2") "$SERVER_ADDR" \
		>"/results/perftest-$1.txt" 2>&1 ||
		fail "$1 exited with $? (see perftest-$1.txt)"
}

perftest_server() {
	local gid t pid i rc=0
	gid=$(perftest_gid "$SERVER_ADDR") || { signal abort; return 1; }
	for t in $BENCH_PERFTESTS; do
		# shellcheck disable=SC2046
		"$t" $(perftest_args "$t" "$gid") \
			>"/results/server-perftest-$t.txt" 2>&1 &
		pid=$!
		# The client gives up at once if nobody listens yet: wait for
		# the out-of-band TCP port before telling it to go.
		for ((i = 0; i < 100; i++)); do
			ss -Hltn 'sport = :18515' | grep -q . && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		signal "pt-$t-ready"
		await "pt-$t-done" 300 || rc=1
		# A listener whose client failed would wait for ever.
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		kill "$pid" 2>/dev/null
		wait "$pid" || { fail "server $t exited with $?"; rc=1; }
	done
	return $rc
}

perftest_clients() {
	local gid t rc=0
	gid=$(perftest_gid "$CLIENT_ADDR") || return 1
	for t in $BENCH_PERFTESTS; do
		await "pt-$t-ready" 300 || return 1
		subtest "$t" perftest_client "$t" "$gid" || rc=1
		signal "pt-$t-done"
	done
	return $rc
}

# bench_layout: write the test file on the server's tmpfs directly, so no
# boot spends minutes laying it out over a ~15 MB/s link.  Random bytes,
# not zeros, in case a transport or server ever treats zeros specially.
bench_layout() {
	dd if=/dev/urandom of="$EXPORT_DIR/$BENCH_FILE" bs=1M \
		count="$BENCH_FILE_MB" status=none || fail "layout of $BENCH_FILE failed"
}

# bench_mount: NFSv4.2 over the transport of this column, checked in
# /proc/mounts like nfs_mount checks RDMA.
bench_mount() {
	local line
	if [ "$BENCH_PROTO" = rdma ]; then
		if ! nfs_mount 4.2; then
			mountpoint -q "$MNT" && nfs_umount
			return 1
		fi
	else
		mount -t nfs -o vers=4.2,proto=tcp,port=2049 "$SERVER_ADDR:/" "$MNT" ||
			fail "mount vers=4.2 over tcp failed" || return 1
		line=$(awk -v m="$MNT" '$2 == m' /proc/mounts)
		log "mounted: $line"
		# /proc/mounts leaves out port= when it is the default 2049.
		if [[ $line != *" nfs4 "*vers=4.2,*proto=tcp,* ]] ||
			{ [[ $line == *,port=* ]] && [[ $line != *,port=2049,* ]]; }; then
			# Unmount before the server goes away, or the
			# teardown's unmount waits out the RPC timeouts.
			nfs_umount
			fail "mount of $MNT is not NFSv4.2 on tcp port 2049: $line"
			return 1
		fi
	fi
	awk -v m="$MNT" '$2 == m' /proc/mounts >/results/mount.txt
}

# wire_bytes: what the mount has moved over the wire so far, in bytes: the
# server read and write bytes of its mountstats "bytes:" line, which count
# what the RPCs carried rather than what the application asked for.
wire_bytes() {
	awk -v m="$MNT" '
		$1 == "device" { here = ($5 == m) }
		here && $1 == "bytes:" { print $6 + $7; exit }
	' /proc/self/mountstats
}

# cpu_mark NAME EDGE: ask the host (make-bench.sh) to read both QEMU
# processes' CPU time now, and wait until it has, so that the interval it
# measures brackets exactly the work between two marks.  EDGE is start or
# end; the mount's wire bytes at the same moment go to /results/wire.NAME.
# Without a host that answers (vmtest.sh bench) the load runs unmeasured.
cpu_mark() {
	local i
	: >"/results/cpumark.$1.$2"
	for ((i = 0; i < 50; i++)); do
		[ -e "/results/cpuack.$1.$2" ] && break
		sleep 0.1
	done
	[ -e "/results/cpuack.$1.$2" ] ||
		log "no host answered the CPU mark $1.$2; CPU time not measured"
	echo "$2 $(wire_bytes)" >>"/results/wire.$1"
}

# prof_start TAG / prof_stop: with BENCH_PROFILE=1, sample every CPU of
# this VM (cpu-clock, which TCG guests have) while a job runs.  perf needs
# tens of seconds under TCG to read the kernel's and the modules' symbols
# before it samples anything, so it starts with its events disabled and
# prof_start returns only once perf has acknowledged enabling them.  The
# report waits for prof_report, after the last job, so that perf's own
# work never lands inside another job's interval.
prof_start() {
	local ack
	[ "$BENCH_PROFILE" = 1 ] || return 0
	PROF_TAG=$1
	rm -f /tmp/prof.ctl /tmp/prof.ack
	mkfifo /tmp/prof.ctl /tmp/prof.ack || return 1
	perf record -a -c 2000000 -e cpu-clock -D -1 \
		--control=fifo:/tmp/prof.ctl,/tmp/prof.ack -o "/tmp/perf-$1.data" \
		</dev/null >"/results/perf-$1.log" 2>&1 &
	PROF_PID=$!
	# Opening a FIFO blocks until perf opens its end: bounded, so that a
	# perf that failed to start cannot hang the job.
	ack=$(timeout 300 sh -c 'echo enable >/tmp/prof.ctl && read -r a </tmp/prof.ack && echo "$a"')
	[ "$ack" = ack ] || log "perf for $1 did not acknowledge enable: '$ack' (see perf-$1.log)"
}

prof_stop() {
	[ "$BENCH_PROFILE" = 1 ] && [ -n "${PROF_PID:-}" ] || return 0
	kill -INT "$PROF_PID" 2>/dev/null
	wait "$PROF_PID" || log "perf record for $PROF_TAG exited with $?"
	PROF_PID=
	PROF_DONE="${PROF_DONE:-} $PROF_TAG"
}

# prof_report: each profile as the share of samples per module (rxe, ours,
# the in-tree rpcrdma, the kernel) and per symbol, in /results.
prof_report() {
	local t
	for t in ${PROF_DONE:-}; do
		perf report -i "/tmp/perf-$t.data" --stdio --no-children \
			--sort dso >"/results/profile-$t.txt" 2>/dev/null
		perf report -i "/tmp/perf-$t.data" --stdio --no-children \
			--sort dso,sym --percent-limit 0.1 \
			>>"/results/profile-$t.txt" 2>/dev/null ||
			log "perf report for $t exited with $?"
	done
}

# prof_server: the server's side of BENCH_PROFILE, following the client's
# jobs through prof-<job>-start and -end signals.  A client that stopped
# before a job (a failed mount) never starts it: client-done ends the wait.
prof_server() {
	local name rest
	while read -r name rest; do
		wanted "$name" || continue
		until signalled "prof-$name-start"; do
			signalled client-done && break 2
			sleep 1
		done
		prof_start "server-$name"
		signal "prof-$name-ready"
		await "prof-$name-end" "$TIMEOUT"
		prof_stop
	done <<<"$BENCH_JOBS"
	prof_report
}

# trace_start: record the BENCH_TRACE tracepoints from now on, in a ring
# large enough for a few thousand RPCs' events.  Called once the transport
# modules are loaded (the client's mount, the server's listener), since a
# module's events exist only then.  The two sides load different modules
# (the in-tree's events are "rpcrdma", ours "xprtrdma" and "svcrdma"), so
# each enables the names it has and says which it lacks; a side that has
# none of them fails.
trace_start() {
	local ev n=0
	[ -n "$BENCH_TRACE" ] || return 0
	tracefs_mount || return 1
	echo 65536 >"$TRACEFS/buffer_size_kb" || fail "cannot size the trace ring" || return 1
	for ev in $BENCH_TRACE; do
		if [ -e "$TRACEFS/events/$ev/enable" ]; then
			echo 1 >"$TRACEFS/events/$ev/enable" || return 1
			n=$((n + 1))
		else
			log "no tracepoint $ev on this side"
		fi
	done
	[ "$n" -gt 0 ] || fail "none of BENCH_TRACE ($BENCH_TRACE) exists on this side"
}

# trace_save ROLE: what trace_start recorded, as trace-ROLE.txt.
trace_save() {
	[ -n "$BENCH_TRACE" ] || return 0
	cat "$TRACEFS/trace" >"/results/trace-$1.txt"
}

# run_fio NAME RW BS IODEPTH: one job on the file the server laid out.
# O_DIRECT keeps the client's page cache out of the numbers; the file
# already has its full size, so fio writes over it rather than extending it.
# The CPU marks bracket the whole job, its ramp included; the wire bytes
# of the same interval, not fio's post-ramp count, are what the CPU time
# is divided by.
run_fio() {
	local rc
	if [ "$BENCH_PROFILE" = 1 ]; then
		signal "prof-$1-start"
		prof_start "client-$1"
		await "prof-$1-ready" 300
	fi
	cpu_mark "$1" start
	fio --name="$1" --filename="$MNT/$BENCH_FILE" --size="${BENCH_FILE_MB}M" \
		--rw="$2" --bs="$3" --iodepth="$4" --ioengine=libaio --direct=1 \
		--fallocate=none --time_based --runtime="$BENCH_RUNTIME" \
		--ramp_time="$BENCH_RAMP" --output-format=json \
		--output="/results/fio-$1.json"
	rc=$?
	prof_stop
	[ "$BENCH_PROFILE" = 1 ] && signal "prof-$1-end"
	[ "$rc" = 0 ] || fail "fio $1 exited with $rc" || return 1
	cpu_mark "$1" end
}

# run_meta: small-file metadata rates (create, stat, rename, unlink) in a
# directory of its own, for BENCH_RUNTIME seconds.
run_meta() {
	local dir=$MNT/bench-meta
	mkdir -p "$dir" || fail "cannot create $dir" || return 1
	python3 "$REPO/tools/testing/bench-meta.py" "$dir" "$BENCH_RUNTIME" \
		>/results/meta.json || fail "bench-meta.py exited with $?" || return 1
	cat /results/meta.json
	rm -rf "$dir"
}

# wanted LOAD: whether BENCH_LOADS names LOAD.
wanted() {
	case " $BENCH_LOADS " in *" $1 "*) return 0 ;; esac
	return 1
}

# jumbo_checked: with NET_MTU=9000, rxe's port must run the 4096-byte IB
# MTU that a jumbo-frame RoCE deployment gets, or the column measures
# nothing new.
jumbo_checked() {
	local mtu
	[ "${NET_MTU:-}" = 9000 ] || return 0
	mtu=$(ibv_devinfo -d "$RDMA_DEV" 2>/dev/null | awk '$1 == "active_mtu:" { print $2 }')
	log "link MTU $NET_MTU: $RDMA_DEV active_mtu $mtu"
	[ "$mtu" = 4096 ] || fail "$RDMA_DEV active_mtu is '$mtu', not 4096, on an MTU 9000 link"
}

fio_clients() {
	local rc=0 name rw bs qd
	nfs_client_prepare || return 1
	subtest link-mtu jumbo_checked || return 1
	bench_mount || return 1
	trace_start || return 1
	while read -r name rw bs qd; do
		wanted "$name" || continue
		subtest "fio-$name" run_fio "$name" "$rw" "$bs" "$qd" || rc=1
	done <<<"$BENCH_JOBS"
	if wanted meta; then
		subtest meta run_meta || rc=1
	fi
	# The transport's own counters (the xprt: line), to tell what a
	# column's RPCs cost on the wire: chunks, invalidations, waits.
	cp /proc/self/mountstats /results/mountstats.client.txt 2>/dev/null
	trace_save client
	nfs_umount || rc=1
	prof_report
	return $rc
}

# rxe_counters ROLE: rxe's port counters after the run, to tell a slow number
# caused by retransmissions (completer_retry_err, duplicate_request) from
# one caused by the host being busy.
rxe_counters() {
	grep -H . /sys/class/infiniband/rxe0/ports/1/hw_counters/* |
		sed 's|.*/||' >"/results/rxe-counters.$1.txt"
}

test_single() {
	fail "bench needs the 2vm topology"
}

test_server() {
	local rc=0
	case "$BENCH_MODE" in
	perftest)
		perftest_server || rc=1
		;;
	nfs)
		nfs_server_start || { signal abort; return 1; }
		bench_layout || { signal abort; nfs_server_stop; return 1; }
		trace_start || { signal abort; nfs_server_stop; return 1; }
		signal server-ready
		if [ "$BENCH_PROFILE" = 1 ]; then
			prof_server &
			PROF_SERVER=$!
		fi
		await client-done "$TIMEOUT" || rc=1
		# Our server's counters for the whole boot: Read turns, calls
		# parked at the thread share, stall closes.
		svc_stats_on && svc_stats_line >/results/svcrdma-stats.server.txt
		trace_save server
		[ -n "${PROF_SERVER:-}" ] && { wait "$PROF_SERVER" || rc=1; }
		nfs_server_stop || rc=1
		;;
	*)
		signal abort
		fail "unknown BENCH_MODE '$BENCH_MODE'"
		;;
	esac
	rxe_counters server
	return $rc
}

test_client() {
	local rc=0
	case "$BENCH_MODE" in
	perftest)
		perftest_clients || rc=1
		;;
	nfs)
		await server-ready 300 || return 1
		fio_clients || rc=1
		# Whatever happened here, the server must not wait out its
		# timeout for us.
		signal client-done
		;;
	*)
		fail "unknown BENCH_MODE '$BENCH_MODE'"
		;;
	esac
	rxe_counters client
	return $rc
}
