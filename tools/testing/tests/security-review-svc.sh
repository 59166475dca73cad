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
# client must complete verified rounds while the attack is on, never
# more than half the nfsd threads may be blocked meanwhile, and none may
# stay blocked once the attacker is gone.  The server's counters must
# show the stall close and the calls held back.
TIMEOUT=900
IDLE_SECONDS=120
# The attacker's own limit for the close: far past the server's bound.
STALL_WAIT_MS=90000
HONEST_SIZE=262144

# shellcheck source=tools/testing/tests/svcrdma-stats.inc
. "$(dirname "${BASH_SOURCE[0]}")/svcrdma-stats.inc"
IDLE=/tmp/svcrdma.idle

now_ms() {
	date +%s%3N
}

# honest_rounds DIR LOG: write, re-read with O_DIRECT (so the server
# answers every time) and compare, logging each verified round's end time
# in ms, until /tmp/honest.stop appears.
honest_rounds() {
	local dir=$1 log=$2 i sum
	mkdir -p "$dir" || return 1
	: >"$log"
	for ((i = 0; ; i++)); do
		[ -e /tmp/honest.stop ] && return 0
		head -c "$HONEST_SIZE" /dev/urandom >/tmp/honest.bin
		sum=$(sha256sum </tmp/honest.bin)
		dd if=/tmp/honest.bin of="$dir/f$((i % 4))" bs=65536 oflag=direct \
			status=none || return 1
		[ "$(dd if="$dir/f$((i % 4))" bs=65536 iflag=direct status=none |
			sha256sum)" = "$sum" ] || { log "round $i: data differs"; return 1; }
		now_ms >>"$log"
	done
}

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

stall_attack() {
	local pid rc=0 t0 t1 n gap
	rm -f /tmp/honest.stop
	honest_rounds "$MNT/honest" /tmp/honest.log &
	pid=$!
	sleep 3
	[ -s /tmp/honest.log ] || { fail "the honest client completed no round before the attack"; rc=1; }
	t0=$(now_ms)
	signal attack-start
	"$REPO/tools/testing/hostile/build/hostile" -s "$STALL_WAIT_MS" \
		"$SERVER_ADDR" rnr-stall >/results/stall.txt 2>&1 || rc=1
	t1=$(now_ms)
	signal attack-end
	cat /results/stall.txt
	grep -q '^PASS rnr-stall' /results/stall.txt ||
		{ fail "the stalled connection was not closed within $STALL_WAIT_MS ms"; rc=1; }
	sleep 3
	touch /tmp/honest.stop
	wait "$pid" || { fail "honest client I/O failed during the attack"; rc=1; }
	# The attacker's calls are all sent within its first second.
	n=$(rounds_between /tmp/honest.log $((t0 + 1000)) "$t1")
	gap=$(longest_gap /tmp/honest.log $((t0 + 1000)) "$t1")
	log "attack lasted $((t1 - t0)) ms; honest rounds verified meanwhile: $n; longest gap: $gap ms"
	[ "$n" -ge 3 ] || { fail "the honest client was not served during the attack ($n rounds)"; rc=1; }
	n=$(rounds_between /tmp/honest.log "$t1" 99999999999999)
	[ "$n" -ge 1 ] || { fail "the honest client was not served after the attack"; rc=1; }
	rm -rf "$MNT/honest"
	return $rc
}

test_client() {
	as_client subtest security-review-stall \
		eval 'nfs_client_prepare && nfs_mount 4.1 && stall_attack && nfs_umount'
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

# watch_blocked: between attack-start and attack-end, sampled every half
# second, the most nfsd threads blocked at once, and the most of them
# waiting for a send context, which only the attacker's connection runs
# out of.  Those may be no more than the connection's share, half of
# the 8 threads: without it the attacker holds them all.
watch_blocked() {
	local most=0 most_send=0 b
	await attack-start 300 || return 1
	while [ ! -e /results/sync.attack-end ]; do
		b=$(nfsd_blocked)
		[ "$b" -gt "$most" ] && most=$b
		b=$(nfsd_blocked svcrdma_send_get)
		[ "$b" -gt "$most_send" ] && most_send=$b
		[ -e /results/sync.abort ] && break
		sleep 0.5
	done
	log "during the attack: at most $most of 8 nfsd threads blocked, $most_send of them waiting for a send context"
	[ "$most_send" -ge 1 ] || fail "no nfsd thread ever waited for the attacker's send contexts" || return 1
	[ "$most_send" -le 4 ] || fail "more than half the nfsd threads were held by one connection"
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

test_server() {
	local rc=0
	svc_serve_counted "$IDLE" || return 1
	signal server-ready
	subtest security-review-stall-threads watch_blocked || rc=1
	subtest security-review-stall-unblocked none_blocked || rc=1
	await client-done 600 || rc=1
	if svc_stats_on; then
		subtest security-review-stall-counters svc_stats_rose "$IDLE" \
			stall_closes throttled || rc=1
		subtest security-review-idle-after svc_idle_again "$IDLE" "$IDLE_SECONDS" || rc=1
	fi
	nfs_server_stop || rc=1
	return $rc
}
