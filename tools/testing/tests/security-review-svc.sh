# SPDX-License-Identifier: GPL-2.0
#
# The server-side findings of the security review (issue 15), each as a
# hostile client (tools/testing/hostile) attacking our server while an
# honest client on the same server keeps verified I/O going.
#
# security-review-stall: the hostile client asks for unlimited RNR
# retries, posts no receives and sends 256 NULL calls.  Every reply Send
# is then retried for ever, and RC ordering holds all later work behind
# it.  The server must close that connection within a bounded time
# (svcrdma.stall_timeout, 20 s, plus the check's period), the honest
# client must complete verified rounds while the attack is on, no more
# nfsd threads than the connection's share (6 of 8) may wait on it
# meanwhile, and none may stay blocked once the attacker is gone.  The server's counters must
# show the stall close and the calls held back, and the stopped
# connection's flush marker must have completed with a flush status, no
# completion having been found lost (lost_completions unchanged).
#
# security-review-conn-flood: the hostile client opens 48 connections,
# makes each carry a call, and holds them open for 10 s.  Every one must
# be served, the honest client must keep verifying rounds, and the
# memory each connection adds to svcrdma's memory_bytes gauge must stay
# under conn_mem_bound; every gauge must be back at idle afterwards.
TIMEOUT=900
IDLE_SECONDS=120
# The attacker's own limit for the close: far past the server's bound.
STALL_WAIT_MS=90000
HONEST_SIZE=262144
# How long the honest client may take to verify its first round.
FIRST_ROUND_SECONDS=60
# How long the flood's connections stay open once all are up.
FLOOD_HOLD_MS=10000

# shellcheck source=tools/testing/tests/svcrdma-stats.inc
. "$(dirname "${BASH_SOURCE[0]}")/svcrdma-stats.inc"
IDLE=/tmp/svcrdma.idle

# rounds_between LOG FROM TO: verified rounds that ended in (FROM, TO).
rounds_between() {
	awk -v a="$2" -v b="$3" '$1 > a && $1 < b' "$1" | wc -l
}

# longest_gap LOG FROM TO: the longest time in ms without a verified
# round between FROM and TO.
longest_gap() {
	awk -v a="$2" -v b="$3" 'BEGIN { p = a; g = 0 }
		$1 > a && $1 < b { if ($1 - p > g) g = $1 - p; p = $1 }
		END { if (b - p > g) g = b - p; print g }' "$1"
}

# with_honest_io NAME CASE [OPTION...]: run hostile's CASE against the
# server while the honest client keeps verified rounds going; signals
# NAME-start and NAME-end to the server around it, sets T0 and T1 (ms)
# there, and leaves hostile's report in /results/NAME.txt.  Fails if the
# case or the honest I/O failed.
with_honest_io() {
	local name=$1 case=$2 pid rc=0 i
	shift 2
	rm -f /tmp/honest.stop
	honest_rounds "$MNT/honest" /tmp/honest.log &
	pid=$!
	# The attack starts once the honest client has proven it is served;
	# a round takes 0.2 s on Debian's kernel and seconds on the debug one.
	for ((i = 0; i < FIRST_ROUND_SECONDS; i++)); do
		[ -s /tmp/honest.log ] && break
		sleep 1
	done
	[ -s /tmp/honest.log ] ||
		{ fail "the honest client completed no round in ${FIRST_ROUND_SECONDS} s before the $name"; rc=1; }
	T0=$(now_ms)
	signal "$name-start"
	"$REPO/tools/testing/hostile/build/hostile" "$@" "$SERVER_ADDR" "$case" \
		>"/results/$name.txt" 2>&1
	T1=$(now_ms)
	signal "$name-end"
	cat "/results/$name.txt"
	grep -q "^PASS $case" "/results/$name.txt" ||
		{ fail "hostile case $case failed"; rc=1; }
	sleep 3
	touch /tmp/honest.stop
	wait "$pid" || { fail "honest client I/O failed during the $name"; rc=1; }
	return $rc
}

# served_during NAME FROM TO: at least three verified honest rounds ended
# between FROM and TO.
served_during() {
	local n
	n=$(rounds_between /tmp/honest.log "$2" "$3")
	log "$1 lasted $((T1 - T0)) ms; honest rounds verified meanwhile: $n; longest gap: $(longest_gap /tmp/honest.log "$2" "$3") ms"
	[ "$n" -ge 3 ] || fail "the honest client was not served during the $1 ($n rounds)"
}

stall_attack() {
	local rc=0
	# Closed within STALL_WAIT_MS, or hostile fails the case.
	with_honest_io stall rnr-stall -s "$STALL_WAIT_MS" || rc=1
	# The attacker's calls are all sent within its first second.
	served_during stall $((T0 + 1000)) "$T1" || rc=1
	[ "$(rounds_between /tmp/honest.log "$T1" 99999999999999)" -ge 1 ] ||
		{ fail "the honest client was not served after the attack"; rc=1; }
	rm -rf "$MNT/honest"
	return $rc
}

flood_attack() {
	local rc=0
	await flood-ready 300 || return 1
	with_honest_io flood conn-flood -H "$FLOOD_HOLD_MS" || rc=1
	served_during flood "$T0" "$T1" || rc=1
	rm -rf "$MNT/honest"
	return $rc
}

security_client() {
	local rc=0
	nfs_client_prepare && nfs_mount 4.1 || return 1
	subtest security-review-stall stall_attack || rc=1
	subtest security-review-conn-flood flood_attack || rc=1
	nfs_umount || rc=1
	return $rc
}

test_client() {
	as_client security_client
}

# nfsd_blocked [FUNCTION]: how many nfsd threads sleep uninterruptibly
# right now; with FUNCTION, only those whose kernel stack holds it.
nfsd_blocked() {
	local p n=0 comm state
	for p in /proc/[0-9]*; do
		read -r comm <"$p/comm" 2>/dev/null || continue
		[ "$comm" = nfsd ] || continue
		state=$(awk '{ print $3 }' "$p/stat" 2>/dev/null)
		[ "$state" = D ] || continue
		[ -z "${1:-}" ] || grep -q "$1" "$p/stack" 2>/dev/null || continue
		n=$((n + 1))
	done
	echo "$n"
}

# watch_blocked: between stall-start and stall-end, sampled every half
# second, the most nfsd threads blocked at once, and the most of them
# waiting for a send context, which only the attacker's connection runs
# out of.  Those may be no more than the connection's share, three
# quarters of the 8 threads: without it the attacker holds them all.
watch_blocked() {
	local most=0 most_send=0 b
	await stall-start 300 || return 1
	while ! signalled stall-end; do
		b=$(nfsd_blocked)
		[ "$b" -gt "$most" ] && most=$b
		b=$(nfsd_blocked svcrdma_send_get)
		[ "$b" -gt "$most_send" ] && most_send=$b
		signalled abort && break
		sleep 0.5
	done
	log "during the attack: at most $most of 8 nfsd threads blocked, $most_send of them waiting for a send context"
	[ "$most_send" -ge 1 ] || fail "no nfsd thread ever waited for the attacker's send contexts" || return 1
	[ "$most_send" -le 6 ] || fail "more than its share of nfsd threads were held by one connection"
}

# marker_flushed IDLE: the attacker's stopped connection posted its flush
# marker, which the provider completed with a flush (IB_WC_WR_FLUSH_ERR,
# 5) behind everything else; rxe loses no completion, so no waiter was
# let go without one.
marker_flushed() {
	local rc=0 was now
	trace_event_off svcrdma/svcrdma_flush_marker
	grep svcrdma_flush_marker: "$TRACEFS/trace" >/results/flush-marker.txt
	cat /results/flush-marker.txt
	grep -q 'svcrdma_flush_marker: .* status=5$' /results/flush-marker.txt ||
		{ fail "no flush marker completed with a flush status"; rc=1; }
	was=$(svc_saved "$1" lost_completions)
	now=$(svc_stat lost_completions)
	log "svcrdma lost_completions: $was -> $now"
	[ -n "$was" ] && [ "$was" = "$now" ] ||
		{ fail "lost_completions moved ($was -> $now)"; rc=1; }
	return $rc
}

# none_blocked: after the attack no nfsd thread stays blocked: ten
# samples in a row, a second apart, within a minute.
none_blocked() {
	local i clean=0 b
	for ((i = 0; i < 60 && clean < 10; i++)); do
		b=$(nfsd_blocked)
		if [ "$b" = 0 ]; then clean=$((clean + 1)); else clean=0; fi
		sleep 1
	done
	[ "$clean" -ge 10 ] || fail "nfsd threads still blocked a minute after the attack ($b)"
}

# conn_mem_bound: what one idle connection may pin.  It posts twice its
# credits in receives and has as many send contexts as credits, each with
# a max_req_size buffer: 3 * credits * size, plus a quarter for the
# descriptors.  Measured with the defaults (64 credits): about 820 KiB at
# 4096 bytes, 1,348,425 bytes at 8192.  Read from the server's sysctls,
# so the bound follows whatever defaults the module under test has.
conn_mem_bound() {
	local credits size
	credits=$(cat /proc/sys/sunrpc/svc_rdma/max_requests)
	size=$(cat /proc/sys/sunrpc/svc_rdma/max_req_size)
	echo $((3 * credits * size * 5 / 4))
}

# watch_flood: while the flood is on, the most connections, pending
# requests and memory at once; the memory each connection added must stay
# under conn_mem_bound.
watch_flood() {
	local conns mem base_conns base_mem most_conns=0 most_mem=0 most_pend=0 pend per bound
	if ! svc_stats_on; then
		signal flood-ready
		await flood-end 600
		return
	fi
	base_conns=$(svc_stat connections_active)
	base_mem=$(svc_stat memory_bytes)
	signal flood-ready
	await flood-start 600 || return 1
	while ! signalled flood-end; do
		conns=$(svc_stat connections_active)
		mem=$(svc_stat memory_bytes)
		pend=$(svc_stat requests_pending)
		[ "$conns" -gt "$most_conns" ] && most_conns=$conns
		[ "$mem" -gt "$most_mem" ] && most_mem=$mem
		[ "$pend" -gt "$most_pend" ] && most_pend=$pend
		signalled abort && break
		sleep 0.5
	done
	[ "$most_conns" -gt "$base_conns" ] || fail "no flood connection was ever seen" || return 1
	per=$(((most_mem - base_mem) / (most_conns - base_conns)))
	bound=$(conn_mem_bound)
	log "flood: up to $most_conns connections ($base_conns before), $most_pend requests pending, memory_bytes $base_mem -> $most_mem: $per bytes per connection (bound $bound)"
	[ "$per" -le "$bound" ] ||
		fail "a connection pins $per bytes, more than $bound"
}

test_server() {
	local rc=0
	svc_serve_counted "$IDLE" || return 1
	if svc_stats_on; then
		trace_event_on svcrdma/svcrdma_flush_marker || return 1
	fi
	signal server-ready
	subtest security-review-stall-threads watch_blocked || rc=1
	subtest security-review-stall-unblocked none_blocked || rc=1
	subtest security-review-conn-memory watch_flood || rc=1
	await client-done 600 || rc=1
	if svc_stats_on; then
		subtest security-review-stall-counters svc_stats_rose "$IDLE" \
			stall_closes throttled || rc=1
		subtest security-review-stall-marker marker_flushed "$IDLE" || rc=1
		subtest security-review-idle-after svc_idle_again "$IDLE" "$IDLE_SECONDS" || rc=1
	fi
	nfs_server_stop || rc=1
	return $rc
}
