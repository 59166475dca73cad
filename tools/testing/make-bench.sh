#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-bench.sh: 'make bench'.  Boots the two-VM topology once per column and
# repetition, runs tests/bench.sh in it (fio and a small-file metadata load
# on an NFSv4.2 mount, or perftest on the bare rxe link), reads both QEMU
# processes' CPU time at the marks the guest sets around each fio job,
# keeps every raw output under results/bench/raw/<column>/<rep>/ and hands
# them to bench_report.py for results/bench/bench.md, bench.png and
# summary.json.  Documentation/benchmarks.rst says what the numbers mean.
#
# Environment: BENCH_REPS (3), BENCH_RUNTIME (20 s per fio job),
# BENCH_OURS=0 drops the rdma-ours-client, rdma-ours-server and
# rdma-ours columns, BENCH_COLUMNS="tcp rxe" runs a
# subset, BENCH_FILE_MB (256) and BENCH_PT_SECS (5) size the work,
# BENCH_PT_BW_OPTS adds options to the perftest bandwidth tests,
# BENCH_LOADS="rand-read qd1-read" runs a subset of the NFS loads (a quick
# look at one workload; a full table needs them all).
#
# Any guest that fails, splats or times out stops the run with a non-zero
# status and no report: a number from a broken kernel is worse than none.
# The one exception is make check's: a boot whose emulated link or kernel
# boot stalled, with nothing of a finding in either guest's log, or in
# which the in-tree transport failed where ours cannot be at fault
# (lib/run.sh), is kept under stalled/ and booted once more; bench.md
# names it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/testing/lib/run.sh
. "$here/lib/run.sh"

RESULTS=${RESULTS:-$VM_TOP/results}
BENCH=$RESULTS/bench
REPS=${BENCH_REPS:-3}
RUNTIME=${BENCH_RUNTIME:-20}
FILE_MB=${BENCH_FILE_MB:-256}
PT_SECS=${BENCH_PT_SECS:-5}
PT_BW_OPTS=${BENCH_PT_BW_OPTS:-}

# The configurations, one column of the report each:
# name  mode  proto  client-transport  server-transport
# A new column is one more line here and, if it needs a new kind of boot,
# one more BENCH_MODE in tests/bench.sh.
columns() {
	cat <<-EOT
		rxe          perftest  -     intree  intree
		rdma-intree  nfs       rdma  intree  intree
		tcp          nfs       tcp   intree  intree
		rdma-intree-jumbo  nfs-jumbo  rdma  intree  intree
	EOT
	# They stage a 'make install' of the working tree.  One
	# column per direction, so a gain or loss is pinned on the client
	# (xprtrdma) or the server (svcrdma), and one with ours at both ends.
	if [ "${BENCH_OURS:-1}" = 1 ]; then
		echo "rdma-ours-client  nfs  rdma  ours    intree"
		echo "rdma-ours-server  nfs  rdma  intree  ours"
		echo "rdma-ours         nfs  rdma  ours    ours"
		echo "rdma-ours-jumbo   nfs-jumbo  rdma  ours  ours"
	fi
	# On request only (BENCH_COLUMNS names it): ours at both ends with
	# the in-tree's 4 KiB inline each way instead of our 8 KiB default,
	# so that what the larger default buys is measured, not assumed.
	case " ${BENCH_COLUMNS:-} " in
	*" rdma-ours-inline4k "*) echo "rdma-ours-inline4k  nfs-inline4k  rdma  ours  ours" ;;
	esac
	# On request only: our client with staging buffers (staging=1)
	# against the in-tree server, beside rdma-ours-client.
	case " ${BENCH_COLUMNS:-} " in
	*" rdma-ours-client-staged "*) echo "rdma-ours-client-staged  nfs-staged  rdma  ours  intree" ;;
	esac
	# On request only: ours at both ends with staging on, beside rdma-ours:
	# what staging (and offering no remote invalidation) costs where our
	# 8 KiB inline leaves it nothing to stage, before it may be a default.
	case " ${BENCH_COLUMNS:-} " in
	*" rdma-ours-staged "*) echo "rdma-ours-staged  nfs-staged  rdma  ours  ours" ;;
	esac
	# On request only: ours at both ends with rdma_cm's own RC ACK
	# timeout (ack_timeout=0 on both), beside rdma-ours and its 268 ms.
	case " ${BENCH_COLUMNS:-} " in
	*" rdma-ours-ack0 "*) echo "rdma-ours-ack0  nfs-ack0  rdma  ours  ours" ;;
	esac
	# On request only: our server reading a large call's Read chunks all
	# at once on rxe (rxe_read_piece=0), as before it read them 64 KiB at
	# a time, beside rdma-ours-server and rdma-ours.
	case " ${BENCH_COLUMNS:-} " in
	*" rdma-ours-server-unpaced "*) echo "rdma-ours-server-unpaced  nfs-unpaced  rdma  intree  ours" ;;
	esac
	case " ${BENCH_COLUMNS:-} " in
	*" rdma-ours-unpaced "*) echo "rdma-ours-unpaced  nfs-unpaced  rdma  ours  ours" ;;
	esac
}

selected() {
	[ -z "${BENCH_COLUMNS:-}" ] && return 0
	case " $BENCH_COLUMNS " in *" $1 "*) return 0 ;; esac
	return 1
}

# jumbo_loads: what a jumbo-frame column runs, the sequential loads (of
# those BENCH_LOADS names, if it is set); nothing means skip the column.
jumbo_loads() {
	local l out=
	for l in ${BENCH_LOADS:-seq-write seq-read}; do
		case "$l" in seq-*) out+="${out:+ }$l" ;; esac
	done
	echo "$out"
}

die() {
	echo "bench: $*" >&2
	exit 1
}

# Our guests only, by the PIDs vm_start recorded, if we are interrupted.
current=
stop_guests() {
	local f
	[ -n "$current" ] || return 0
	: >"$current/cpu.stop"
	for f in "$current"/*.pid; do
		[ -e "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
}
trap 'stop_guests; exit 130' INT TERM

# qemu_ticks PIDFILE: the user plus system CPU time, in clock ticks, of the
# QEMU process PIDFILE names: under TCG all of its guest's work, the
# emulated rxe and NIC included.
qemu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$(cat "$1")/stat" 2>/dev/null || echo -1
}

# cpu_sampler RUNDIR: answer the guests' CPU marks (tests/bench.sh
# cpu_mark) until RUNDIR/cpu.stop appears: for each new
# RUNDIR/cpumark.LOAD.EDGE, append "LOAD EDGE CLIENT_TICKS SERVER_TICKS"
# to RUNDIR/cpu.txt, then create the cpuack file the guest waits for.
cpu_sampler() {
	local rundir=$1 m mark
	while [ ! -e "$rundir/cpu.stop" ]; do
		for m in "$rundir"/cpumark.*; do
			[ -e "$m" ] || continue
			mark=${m#"$rundir"/cpumark.}
			[ -e "$rundir/cpuack.$mark" ] && continue
			echo "${mark%.*} ${mark##*.} $(qemu_ticks "$rundir/client.pid")" \
				"$(qemu_ticks "$rundir/server.pid")" >>"$rundir/cpu.txt"
			: >"$rundir/cpuack.$mark"
		done
		sleep 0.05
	done
}

# run_pair COLUMN MODE PROTO CLIENT SERVER REP: one boot of the VM pair.
run_pair() {
	local col=$1 mode=$2 proto=$3 client=$4 server=$5 rep=$6
	local rundir=$BENCH/raw/$col/$rep timeout deadline why t0 name sampler stalled line
	local loads=${BENCH_LOADS:-} mtu='' sysctls='' xparams='' sparams=''

	rm -rf "$rundir"
	mkdir -p "$rundir"
	current=$rundir
	# A jumbo-frame link (rxe then runs a 4096-byte path MTU, as RoCE
	# deployments do): the sequential loads only, where it matters.
	if [ "$mode" = nfs-jumbo ]; then
		mode=nfs mtu=9000 loads=$(jumbo_loads)
	fi
	if [ "$mode" = nfs-inline4k ]; then
		mode=nfs
		sysctls=sunrpc.rdma_max_inline_read=4096,sunrpc.rdma_max_inline_write=4096,sunrpc.svc_rdma.max_req_size=4096
	fi
	if [ "$mode" = nfs-staged ]; then
		mode=nfs xparams=staging=1
	fi
	if [ "$mode" = nfs-ack0 ]; then
		mode=nfs xparams=ack_timeout=0 sparams=ack_timeout=0
	fi
	if [ "$mode" = nfs-unpaced ]; then
		mode=nfs sparams=rxe_read_piece=0
	fi
	cat >"$rundir/env" <<-EOT
		TEST=bench
		TOPOLOGY=2vm
		REPO=$VM_TOP
		KVER=$VM_KVER
		CLIENT_TRANSPORT=$client
		SERVER_TRANSPORT=$server
		BENCH_COLUMN=$col
		BENCH_REP=$rep
		BENCH_MODE=$mode
		BENCH_PROTO=$proto
		BENCH_RUNTIME=$RUNTIME
		BENCH_FILE_MB=$FILE_MB
		BENCH_PT_SECS=$PT_SECS
		BENCH_PT_BW_OPTS="$PT_BW_OPTS"
	EOT
	[ -n "$mtu" ] && echo "NET_MTU=$mtu" >>"$rundir/env"
	[ -n "$loads" ] && echo "BENCH_LOADS=\"$loads\"" >>"$rundir/env"
	[ -n "$sysctls" ] && echo "RDMA_SYSCTLS=$sysctls" >>"$rundir/env"
	[ -n "$xparams" ] && echo "XPRTRDMA_PARAMS=$xparams" >>"$rundir/env"
	[ -n "$sparams" ] && echo "SVCRDMA_PARAMS=$sparams" >>"$rundir/env"
	# The body's own TIMEOUT, worked out from the same variables it sees.
	timeout=$(
		BENCH_RUNTIME=$RUNTIME
		# shellcheck source=tools/testing/tests/bench.sh
		. "$here/tests/bench.sh"
		echo "$TIMEOUT"
	)
	t0=$(date +%s)
	deadline=$((t0 + timeout))
	# The test harness's own two-VM topology: a bench guest is a test guest.
	vm_start_pair "$rundir" "$deadline"
	cpu_sampler "$rundir" &
	sampler=$!
	vm_wait "$rundir" "$deadline" server client
	: >"$rundir/cpu.stop"
	wait "$sampler"
	current=

	why=$(vm_verdicts "$rundir" server client)
	if grep -q '^not ok' "$rundir/subtests" 2>/dev/null; then
		why=$(printf '%s\n%s' "$why" "$(grep '^not ok' "$rundir/subtests")" | sed '/^$/d')
	fi
	# The emulated link stopped, a kernel stopped in its boot, or the
	# in-tree transport failed where nothing of ours can be at fault, by
	# the rules make check reruns an instance by (lib/run.sh): not a
	# finding, and no number came of it.  Keep the logs aside, with the
	# reason for bench.md, and boot once more.
	if [ -n "$why" ] && [ "$attempt" = 1 ] &&
		stalled=$(rerun_reason "$rundir" 2vm "$client" "$server" "" "$why"); then
		stalled+=" ($(printf '%s\n' "$why" | head -n 1))"
		mkdir -p "$BENCH/stalled"
		rm -rf "$BENCH/stalled/$col-$rep"
		mv "$rundir" "$BENCH/stalled/$col-$rep"
		echo "$stalled" >"$BENCH/stalled/$col-$rep/WHY"
		echo "bench: $col rep $rep: $stalled; logs in $BENCH/stalled/$col-$rep; booting it once more"
		[ -z "$(link_watch_tail "$BENCH/stalled/$col-$rep")" ] ||
			link_watch_tail "$BENCH/stalled/$col-$rep" | sed 's/^/bench:   /'
		return 2
	fi
	if [ -n "$why" ]; then
		{
			echo "bench: FAILED: $col rep $rep; no report was written."
			printf '%s\n' "$why" | sed 's/^/bench:   /'
			! line=$(stall_stands "$rundir") || echo "bench:   $line"
			echo "bench: logs: $rundir"
		} >&2
		exit 1
	fi
	# bench_report.py reads only repetitions that carry this mark.
	echo "$(($(date +%s) - t0))" >"$rundir/PASS"
	echo "bench: $col rep $rep done in $(cat "$rundir/PASS") s"
}

case "$REPS" in '' | *[!0-9]* | 0) die "BENCH_REPS must be a positive integer" ;; esac
case "$RUNTIME" in '' | *[!0-9]* | 0) die "BENCH_RUNTIME must be a positive integer" ;; esac
# Every boot's export is a 600 MiB tmpfs (guest/lib.sh).
case "$FILE_MB" in '' | *[!0-9]* | 0) die "BENCH_FILE_MB must be a positive integer" ;; esac
[ "$FILE_MB" -le 512 ] || die "BENCH_FILE_MB must fit the server's 600 MiB tmpfs export"

# Read once, up front: QEMU must not inherit a loop's stdin.
plan=()
cols=
ours=0
while read -r col mode proto client server; do
	selected "$col" || continue
	[ "$mode" = nfs-jumbo ] && [ -z "$(jumbo_loads)" ] && continue
	plan+=("$col $mode $proto $client $server")
	cols+="${cols:+ }$col"
	if [ "$client" = ours ] || [ "$server" = ours ]; then
		ours=1
	fi
done < <(columns)
[ -n "$cols" ] || die "BENCH_COLUMNS selects no column"

vm_initramfs || die "cannot build the guest initramfs"
# Packet capture costs the emulated link CPU time it would then not spend
# on the measured traffic.
unset VM_CAPTURE
# Numbers are only comparable within one run: never mix runs in raw/.
rm -rf "$BENCH/raw" "$BENCH/stalled" "$BENCH/bench.md" "$BENCH/bench.png" "$BENCH/plot"
mkdir -p "$BENCH/raw"
if [ "$ours" = 1 ]; then
	# Once for the whole run: every rdma-ours boot measures the same build.
	vm_stage_ours >"$BENCH/raw/stage-ours.log" 2>&1 ||
		die "'make install' into the guest image failed; see $BENCH/raw/stage-ours.log"
fi
start=$(date +%s)
cat >"$BENCH/raw/meta" <<-EOT
	date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	kernel=$VM_KVER
	commit=$(git -C "$VM_TOP" describe --always --dirty 2>/dev/null || echo unknown)
	reps=$REPS
	runtime=$RUNTIME
	file_mb=$FILE_MB
	pt_secs=$PT_SECS
	pt_bw_opts=$PT_BW_OPTS
	columns=$cols
	loads=${BENCH_LOADS:-all}
	host_cpus=$(nproc)
	clk_tck=$(getconf CLK_TCK)
	host_load_start=$(cut -d' ' -f1-3 /proc/loadavg)
EOT

echo "bench: columns: $cols; $REPS repetition(s), fio ${RUNTIME} s per job"
# Repetitions outermost: another job on the machine then slows every column
# a little rather than one column a lot.
boots=$((REPS * ${#plan[@]}))
booted=0
for ((rep = 1; rep <= REPS; rep++)); do
	for p in "${plan[@]}"; do
		# The time left, from the boots so far (columns differ, so
		# this settles after the first repetition).
		left=
		if [ "$booted" -gt 0 ]; then
			left="; about $((($(date +%s) - start) * (boots - booted) / booted / 60 + 1)) min left"
		fi
		echo "bench: boot $((booted + 1))/$boots: ${p%% *}, repetition $rep/$REPS$left"
		attempt=1
		# shellcheck disable=SC2086
		if ! run_pair $p "$rep"; then
			attempt=2
			# shellcheck disable=SC2086
			run_pair $p "$rep"
		fi
		booted=$((booted + 1))
	done
done

{
	echo "host_load_end=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "wall_s=$(($(date +%s) - start))"
} >>"$BENCH/raw/meta"
echo "bench: all boots done in $(($(date +%s) - start)) s"
python3 "$here/bench_report.py" "$BENCH" || die "bench_report.py failed"
