#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stall-check.sh: the host-side rules that let a run be rerun as the
# emulator's fault, checked against made-up guest logs: a stalled link
# alone is the emulator's; a stall that a transport error came before is
# the transport's, and its failure must stand, unless the error came inside
# a subtest that passed.  Likewise a guest whose boot
# stalled before its test began is the emulator's only while no guest's
# log has a kernel report; and the in-tree transport's own failures (both
# ends in-tree, or its rxe fast-register defect while our side stayed
# quiet but for a stalled link's watchdog) are not ours.  rxe's QP cleanup warning is the stall's consequence
# only after it.  A stall starts when the stalled guest's link counters
# stopped moving, if that came before its watchdog; both guests' times
# are set on one clock when their clock files give their boot times.  And a guest whose peer failed is ended after
# VM_ABORT_GRACE, one whose peer passed is not.  Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/testing/lib/run.sh
. "$here/lib/run.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

WATCHDOG='[  384.100000] virtio_net virtio1 eth0: NETDEV WATCHDOG: eth0 (virtio_net): transmit queue 0 timed out 5100 ms'
# The WARNING the watchdog comes with: not a finding of its own.
WATCHDOG_WARN=('[  384.100100] WARNING: CPU: 0 PID: 0 at net/sched/sch_generic.c:525 dev_watchdog+0x207/0x210'
	'[  384.100200] Call Trace:')

# ruled TITLE RULED DIR: DIR holds a failed 2vm run whose client failed a
# check; link_stalled must answer RULED (emulator or transport).
ruled() {
	local got
	echo "not ok client nfs-files" >"$3/subtests"
	if link_stalled "$3" 2vm "" "client: guest exit status '1'"; then got=emulator; else got=transport; fi
	if [ "$got" = "$2" ]; then
		tap_result ok "$1: $2"
	else
		tap_result fail "$1: ruled $got, want $2"
	fi
}

# case NAME RULED CLIENT-LINE...: a failed 2vm run whose server log has the
# stall and whose client log has the given lines; RULED is what
# link_stalled must answer (emulator or transport).
case_() {
	local name=$1 want=$2 d=$tmp/$1
	shift 2
	mkdir -p "$d"
	printf '%s\n' '[    1.000000] Linux version 6.1' "$WATCHDOG" "${WATCHDOG_WARN[@]}" >"$d/server.log"
	printf '%s\n' '[    1.000000] Linux version 6.1' "$@" >"$d/client.log"
	[ -z "${SERVER_LINK:-}" ] || printf '%s\n' "$SERVER_LINK" >"$d/server-link.txt"
	[ -z "${CLIENT_LINK:-}" ] || printf '%s\n' "$CLIENT_LINK" >"$d/client-link.txt"
	[ -z "${CLIENT_PASSED:-}" ] || printf '%s\n' "$CLIENT_PASSED" >"$d/client-passed.txt"
	[ -z "${SERVER_PASSED:-}" ] || printf '%s\n' "$SERVER_PASSED" >"$d/server-passed.txt"
	[ -z "${CLIENT_FAILED:-}" ] || printf '%s\n' "$CLIENT_FAILED" >"$d/client-failed.txt"
	[ -z "${CLIENT2_PASSED:-}" ] || printf '%s\n' "$CLIENT2_PASSED" >"$d/client2-passed.txt"
	ruled "link stall: $name" "$want" "$d"
}

case_ "stall alone" emulator
case_ "routine lines before it" emulator \
	'[   20.000000] rdma_rxe: loaded' \
	'[   30.000000] xprtrdma: connected to 192.0.2.1:20049 (inline send 4096, recv 4096)'
case_ "errors only after it" emulator \
	'[  384.500000] xprtrdma: connect to 192.0.2.1:20049 failed in address resolution: -113'
case_ "rxe error before it" transport \
	'[  102.000000] rdma_rxe: rxe_reg_fast_mr: mr->lkey = 0x1073 not free'
case_ "failed connects before it" transport \
	'[  175.000000] xprtrdma: connect to 192.0.2.1:20049 failed in address resolution: -113'
case_ "a QP leaving RTS before it" transport \
	'[  166.000000] xprtrdma: connection to 192.0.2.1 left RTS: Receive flushed; reconnecting'
case_ "a KASAN report after it" transport \
	'[  390.000000] BUG: KASAN: use-after-free in xprtrdma_reply_done+0x10/0x20 [xprtrdma]'
case_ "a soft lockup after it" transport \
	'[  400.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [kworker/0:1:17]'
# A bench boot (ours at both ends): the server's link counters show QEMU
# took no frame from it after 300 s, but its queue filled and the watchdog
# fired only at 379 s; our client's Send met retry-exceeded in between.
link_rows() { # FROZEN-AT [RX-STEP]: rows every 10 s from 280 s, tx_packets flat from FROZEN-AT, rx_packets rising by RX-STEP (6)
	local t v=100 r=7
	for t in 280 290 300 310 320 330; do
		[ "$t" -le "$1" ] && v=$((v + 50))
		r=$((r + ${2:-6}))
		echo "$t.00 rx_packets $r rx_dropped 0 tx_packets $v tx_dropped 0 tx_inflight 0 qdisc_drops 0"
	done
}
SERVER_LINK=$(link_rows 300)
case_ "errors after the counters froze, before the queue filled" emulator \
	'[  310.000000] xprtrdma: Send for 192.0.2.1 failed: transport retry counter exceeded (status 12, vendor error 0); reconnecting'
case_ "errors before the counters froze" transport \
	'[  250.000000] xprtrdma: Send for 192.0.2.1 failed: transport retry counter exceeded (status 12, vendor error 0); reconnecting'
SERVER_LINK=$(link_rows 300 0)
case_ "counters of a guest that fell idle, then stalled" transport \
	'[  310.000000] xprtrdma: Send for 192.0.2.1 failed: transport retry counter exceeded (status 12, vendor error 0); reconnecting'
SERVER_LINK=$(link_rows 330)
case_ "counters that moved until the last row" transport \
	'[  310.000000] xprtrdma: Send for 192.0.2.1 failed: transport retry counter exceeded (status 12, vendor error 0); reconnecting'
SERVER_LINK=
CLIENT_LINK=$(link_rows 300)
case_ "frozen counters of the guest whose queue did not stall" transport \
	'[  310.000000] xprtrdma: Send for 192.0.2.1 failed: transport retry counter exceeded (status 12, vendor error 0); reconnecting'
CLIENT_LINK=

# Seen in make check (dropin-swap ours/intree): the link died at 21 s, the
# transport was closed at 85 s and rxe warned that the QP's cleanup timed
# out, the stuck frames holding its references.
RXE_CLEANUP='WARNING: CPU: 0 PID: 24 at drivers/infiniband/sw/rxe/rxe_pool.c:255 __rxe_cleanup+0x118/0x160 [rdma_rxe]'
case_ "rxe QP cleanup warning after it" emulator \
	"[  390.000000] $RXE_CLEANUP" '[  390.000100] Call Trace:'
case_ "rxe QP cleanup warning before it" transport \
	"[  300.000000] $RXE_CLEANUP" '[  300.000100] Call Trace:'
case_ "a server error before it" transport \
	'[  150.000000] svcrdma: send to 192.0.2.2:40000 failed: transport retry counter exceeded'
# make check's fuzz-live-client: our client dropped a fuzzing server's bad
# replies all along, then the link stalled.
case_ "our drops of a peer's bad messages before it" emulator \
	'[  176.987899] xprtrdma: malformed reply (-22) from 192.0.2.1, XID 0x0dcb1dff' \
	'[  177.000000] xprtrdma: malformed message (-22) with unknown XID from 192.0.2.1 dropped' \
	'[  178.000000] xprtrdma: 4-byte message from 192.0.2.1 dropped' \
	'[  178.100000] xprtrdma: backchannel call from 192.0.2.1 dropped (no callback service)' \
	'[  178.200000] xprtrdma: backward call from 192.0.2.1 with chunks or a mismatched XID dropped' \
	'[  179.311618] xprtrdma: reply from 192.0.2.1 to XID 0x4ecb1dff, a call not sent on this connection, dropped' \
	'[  179.400000] svcrdma: 192.0.2.2:46169 sent a 1-byte message, closing' \
	'[  179.500000] svcrdma: backchannel reply from 192.0.2.2:56150 (xid 0x8902c785) dropped: no matching call' \
	'[  179.600000] svcrdma: 192.0.2.2:46169 sent RDMA_ERROR as a call, dropped' \
	'[  179.700000] svcrdma: bad transport header from 192.0.2.2:32823 (xid 0x1c9756ce): -22' \
	'[  179.800000] xprtrdma: reply from 192.0.2.1 does not match its call (-5), XID 0x1c9756ce' \
	'[  179.900000] xprtrdma: 192.0.2.1 could not use the chunks of XID 0x1c9756ce (ERR_CHUNK)' \
	'[   17.941775] svcrdma: RDMA Read from 192.0.2.2:52821 failed: remote access error'
case_ "an RDMA Read failing otherwise, before it" transport \
	'[  179.000000] svcrdma: RDMA Read from 192.0.2.2:52821 failed: transport retry counter exceeded'
case_ "a drop that says a Send never completed, before it" transport \
	'[  179.000000] xprtrdma: reply from 192.0.2.1 to XID 0x4ecb1dff dropped: its call'"'"'s Send never completed'
case_ "a drop, then a QP event, before it" transport \
	'[  179.000000] xprtrdma: 4-byte message from 192.0.2.1 dropped' \
	'[  180.000000] svcrdma: QP event IB_EVENT_QP_FATAL on 192.0.2.2:40000, closing'
# A bench boot on 3fe217d: the server's rows, 10 s apart, show tx_packets
# last moving between 71 s and 82 s; our client's Send met retry-exceeded
# at 78.6 s, two seconds after the server's last frame, which the
# per-second sample (tx_moved_at) puts at 76.4 s.
BENCH_ERR='[   78.646781] xprtrdma: Send for 192.0.2.1 failed: transport retry counter exceeded (status 12, vendor error 0); reconnecting'
SERVER_LINK=$'71.14 rx_packets 445017 tx_packets 586214 tx_seen 586214 tx_moved_at 71.02\n81.93 rx_packets 461563 tx_packets 635421 tx_seen 635421 tx_moved_at 76.40\n92.22 rx_packets 461566 tx_packets 635421 tx_seen 635421 tx_moved_at 76.40\n102.57 rx_packets 461569 tx_packets 635421 tx_seen 635421 tx_moved_at 76.40'
case_ "an error between the frozen rows, after the second's sample" emulator "$BENCH_ERR"
case_ "an error between the frozen rows, before the second's sample" transport \
	'[   74.000000] xprtrdma: Send for 192.0.2.1 failed: transport retry counter exceeded (status 12, vendor error 0); reconnecting'
# A frame went out between the second's sample and the row's own read:
# the sample's time is of an older value, and must not move the start.
SERVER_LINK=$'71.14 rx_packets 445017 tx_packets 586214 tx_seen 586214 tx_moved_at 60.00\n81.93 rx_packets 461563 tx_packets 586215 tx_seen 586214 tx_moved_at 60.00\n92.22 rx_packets 461566 tx_packets 586215 tx_seen 586215 tx_moved_at 82.10\n102.57 rx_packets 461569 tx_packets 586215 tx_seen 586215 tx_moved_at 82.10'
case_ "a sample of another value than the row's" transport \
	'[   70.000000] xprtrdma: Send for 192.0.2.1 failed: transport retry counter exceeded (status 12, vendor error 0); reconnecting'
SERVER_LINK=$'71.14 rx_packets 445017 tx_packets 586214 tx_seen 586214 tx_moved_at ?\n81.93 rx_packets 461563 tx_packets 635421 tx_seen 635421 tx_moved_at ?\n92.22 rx_packets 461566 tx_packets 635421 tx_seen 635421 tx_moved_at ?'
case_ "a sample without a time" transport "$BENCH_ERR"
SERVER_LINK=$'71.14 rx_packets 445017 tx_packets 586214\n81.93 rx_packets 461563 tx_packets 635421\n92.22 rx_packets 461566 tx_packets 635421\n102.57 rx_packets 461569 tx_packets 635421'
case_ "the same without the second's sample" transport "$BENCH_ERR"
SERVER_LINK=

# CI's make check on e02d79e: dropin-drc blackholed the server until our
# client's Send met retry-exceeded, and that subtest passed; two minutes
# later, in dropin-swap, the emulator stopped taking the client's frames.
DRC_ERR='[  135.167021] xprtrdma: Send for 192.0.2.1 failed: transport retry counter exceeded (status 12, vendor error 0); reconnecting'
CLIENT_PASSED=$'120.50 139.20 dropin-drc/drc-mkdir\n139.30 147.00 dropin-drc/drc-rename'
case_ "an error inside a subtest that passed" emulator "$DRC_ERR"
case_ "errors inside and outside passed subtests" transport "$DRC_ERR" \
	'[  150.000000] svcrdma: QP event IB_EVENT_QP_FATAL on 192.0.2.2:40000, closing'
# The other guest's passed span covers it, give or take the two seconds
# the guests' clocks may differ.
CLIENT_PASSED=
SERVER_PASSED='136.40 160.00 dropin-drc/drc-mkdir'
case_ "an error inside the other guest's passed subtest" emulator "$DRC_ERR"
SERVER_PASSED='137.50 160.00 dropin-drc/drc-mkdir'
case_ "an error before a passed subtest began" transport "$DRC_ERR"
SERVER_PASSED='100.00 133.00 dropin-drc/drc-mkdir'
case_ "an error after a passed subtest ended" transport "$DRC_ERR"
SERVER_PASSED=
case_ "an error inside a subtest that failed" transport "$DRC_ERR"
# The client's drc-mkdir failed while the server's passed: the client's
# own failed span wins.
SERVER_PASSED='128.70 148.10 dropin-drc/drc-mkdir'
CLIENT_FAILED='130.50 148.00 dropin-drc/drc-mkdir'
case_ "an error in its guest's failed subtest, inside the other's passed one" transport "$DRC_ERR"
SERVER_PASSED='' CLIENT_FAILED=''
# A guest's own span is not widened: an error just after it came in the
# next check.
CLIENT_PASSED='100.00 134.50 dropin-drc/drc-mkdir'
case_ "an error a second after its guest's passed subtest" transport "$DRC_ERR"
# A check that passed across the stall proves no recovery.
CLIENT_PASSED='120.00 390.00 dropin-drc/drc-mkdir'
case_ "an error inside a passed subtest that outlasted the stall" transport "$DRC_ERR"
CLIENT_PASSED=
# client2 boots minutes after the server: its clock is not the server's.
CLIENT2_PASSED='120.00 140.00 nfs-client-killed/after-respawn'
case_ "an error inside client2's passed subtest" transport "$DRC_ERR"
CLIENT2_PASSED=

# clock_files DIR ROLE EPOCH [LATE...]: ROLE's clock files as guest/lib.sh
# writes them, the first arriving on time, one more per LATE (seconds).
clock_files() {
	local d=$1 role=$2 epoch=$3 i=0 late
	shift 3
	for late in 0 "$@"; do
		echo "50$i.00" >"$d/$role-clock.$i"
		touch -d "@$(awk -v e="$epoch" -v i="$i" -v l="$late" 'BEGIN { printf "%.3f", e + 500 + i + l }')" "$d/$role-clock.$i"
		i=$((i + 1))
	done
}

# clock_case NAME RULED STALLED ERROR-ROLE ERROR-LINE [SERVER-EPOCH
# CLIENT-EPOCH [SERVER-PASSED]]: one guest (STALLED) hit the watchdog at
# 384.1 s, its stall starting at 379.0 s on its own clock, and ERROR-ROLE
# logged ERROR-LINE; with the epochs, each guest's clock file says when it
# booted on the host's clock (guest_epoch), as guest/lib.sh writes it.
# CLOCK_CLIENT_PASSED and CLOCK_CLIENT_FAILED give the client's spans.
clock_case() {
	local name=$1 want=$2 stalled=$3 errs=$4 line=$5 sep=${6:-} cep=${7:-} d r e
	d=$tmp/clock-${name// /-}
	mkdir -p "$d"
	for r in server client; do
		echo '[    1.000000] Linux version 6.1' >"$d/$r.log"
	done
	printf '%s\n' "$WATCHDOG" "${WATCHDOG_WARN[@]}" >>"$d/$stalled.log"
	printf '%s\n' "$line" >>"$d/$errs.log"
	[ -z "${8:-}" ] || printf '%s\n' "$8" >"$d/server-passed.txt"
	[ -z "${CLOCK_CLIENT_PASSED:-}" ] || printf '%s\n' "$CLOCK_CLIENT_PASSED" >"$d/client-passed.txt"
	[ -z "${CLOCK_CLIENT_FAILED:-}" ] || printf '%s\n' "$CLOCK_CLIENT_FAILED" >"$d/client-failed.txt"
	[ -z "$sep" ] || clock_files "$d" server "$sep"
	[ -z "$cep" ] || clock_files "$d" client "$cep"
	ruled "link stall, clocks: $name" "$want" "$d"
}

# The server boots first: here its clock runs 2 s ahead of the client's.
SERVER_EPOCH=1796000000.125 CLIENT_EPOCH=1796000002.125
RETRY='xprtrdma: Send to 192.0.2.1:20049 failed: transport retry counter exceeded'
SRETRY='svcrdma: Send to 192.0.2.2:40000 failed: transport retry counter exceeded'
# epoch_case NAME WANT EPOCH [LATE...]: guest_epoch over clock_files.
epoch_case() {
	local name=$1 want=$2 d=$tmp/epoch-$3 got
	mkdir -p "$d"
	shift 2
	[ "$1" = none ] || clock_files "$d" g "$@"
	got=$(guest_epoch "$d" g)
	if [ "$got" = "$want" ]; then
		tap_result ok "guest_epoch: $name: ${want:-none}"
	else
		tap_result fail "guest_epoch: $name: got '$got', want '$want'"
	fi
}
epoch_case "no clock files" "" none
epoch_case "one file: its mtime less the uptime in it" 1796000000.250 1796000000.250
# A write arrives late, never early: the earliest estimate is the best.
epoch_case "the earliest of six, five late" 1796000000.250 1796000000.250 0.3 0.05 0.8 0.1 0.02
# Estimates that spread over more than a second: a drifting clock.
epoch_case "spread over a second" "" 1796000001.250 0.3 1.5
# Whole-second mtimes: a host filesystem that keeps nothing finer.
epoch_case "whole-second mtimes" "" 1796000001
# The client's stall starts at 379.0 s, 381.0 s on the server's clock; the
# server's error at 378.5 s came 2.5 s before it.
clock_case "server error before the client's stall" transport client server \
	"[  378.500000] $SRETRY" "$SERVER_EPOCH" "$CLIENT_EPOCH"
# Without clock files the uptimes are compared as they are: the hole the
# epochs close, kept only for runs that wrote none.
clock_case "the same without clocks" emulator client server "[  378.500000] $SRETRY"
# The server's stall starts at 379.0 s; the client's error at 377.5 s is
# 379.5 s on the server's clock, after it.
clock_case "client error after the server's stall" emulator server client \
	"[  377.500000] $RETRY" "$SERVER_EPOCH" "$CLIENT_EPOCH"
clock_case "the same without clocks, before it" transport server client "[  377.500000] $RETRY"
# The server's passed span 360-370 s ends at 368 s on the client's clock:
# a client error at 369.0 s (371.0 s on the server's) is outside it even
# widened by half a second; without clocks, the 2 s widening took it in.
clock_case "just after the other guest's span" transport server client \
	"[  369.000000] $RETRY" "$SERVER_EPOCH" "$CLIENT_EPOCH" '360.00 370.00 dropin-drc/drc-mkdir'
clock_case "inside the other guest's span" emulator server client \
	"[  366.000000] $RETRY" "$SERVER_EPOCH" "$CLIENT_EPOCH" '360.00 370.00 dropin-drc/drc-mkdir'
clock_case "just after it, without clocks" emulator server client \
	"[  369.000000] $RETRY" "" "" '360.00 370.00 dropin-drc/drc-mkdir'
# The client's passed span 360-368 s is 362-370 s on the server's clock:
# a server error at 370.3 s is inside it, widened by half a second.
# Without the client's clock, the span is taken as it is, widened by two
# seconds, and the error is outside it.
CLOCK_CLIENT_PASSED='360.00 368.00 dropin-drc/drc-mkdir'
clock_case "inside the client's span on the server's clock" emulator server server \
	"[  370.300000] $SRETRY" "$SERVER_EPOCH" "$CLIENT_EPOCH"
clock_case "the same with the server's clock alone" transport server server \
	"[  370.300000] $SRETRY" "$SERVER_EPOCH" ""
clock_case "within two seconds of it, the server's clock alone" emulator server server \
	"[  369.000000] $SRETRY" "$SERVER_EPOCH" ""
# The client's own span moves with its errors: 367.5 s is 369.5 s on the
# server's clock, inside 362-370 s.
clock_case "inside the guest's own span" emulator server client \
	"[  367.500000] $RETRY" "$SERVER_EPOCH" "$CLIENT_EPOCH"
# So does its failed span, which stands against the server's passed one.
CLOCK_CLIENT_PASSED='' CLOCK_CLIENT_FAILED='360.00 368.00 nfs-files/io'
clock_case "inside the guest's own failed span" transport server client \
	"[  367.500000] $RETRY" "$SERVER_EPOCH" "$CLIENT_EPOCH" '360.00 375.00 dropin-drc/drc-mkdir'
CLOCK_CLIENT_FAILED=
# The server's span 370-380.5 s ends at 378.5 s on the client's clock,
# before the client's stall at 379.0 s, so a client error at 372 s inside
# it is excused; without clocks, the span outlasts the stall and counts
# for nothing.
clock_case "a span that ended before the stall on its clock" emulator client client \
	"[  372.000000] $RETRY" "$SERVER_EPOCH" "$CLIENT_EPOCH" '370.00 380.50 dropin-drc/drc-mkdir'
clock_case "the same span without clocks" transport client client \
	"[  372.000000] $RETRY" "" "" '370.00 380.50 dropin-drc/drc-mkdir'
# rxe's QP cleanup warning is the stall's consequence only after it: the
# server's at 380.5 s is 378.5 s on the client's clock, before the
# client's stall at 379.0 s, so it is a finding; compared as uptimes, it
# came after.
clock_case "rxe QP cleanup warning before the stall on its clock" transport client server \
	"[  380.500000] $RXE_CLEANUP" "$SERVER_EPOCH" "$CLIENT_EPOCH"
clock_case "the same warning without clocks" emulator client server \
	"[  380.500000] $RXE_CLEANUP"
# Both guests' queues timed out: the client's at 377.9 s of its uptime is
# 379.9 s on the server's clock, after the server's at 379.0 s.
d=$tmp/clock-both
mkdir -p "$d"
printf '%s\n' '[    1.000000] Linux version 6.1' "$WATCHDOG" >"$d/server.log"
printf '%s\n' '[    1.000000] Linux version 6.1' "${WATCHDOG/384.100000/383.000000}" >"$d/client.log"
clock_files "$d" server "$SERVER_EPOCH"
clock_files "$d" client "$CLIENT_EPOCH"
got=$(link_stall_start_of "$d")
rm "$d"/*-clock.?
got2=$(link_stall_start_of "$d")
if [ "$got" = "379 server" ] && [ "$got2" = "377.9 client" ]; then
	tap_result ok "link stall, clocks: both stalled: the earlier on the host's clock"
else
	tap_result fail "link stall, clocks: both stalled: got '$got' and without clocks '$got2', want '379 server' and '377.9 client'"
fi


# boot_case NAME RULED SERVER-LINE...: a run that vm_wait ended because
# the client's boot stalled; the server's log has the given lines.
boot_case() {
	local name=$1 want=$2 d=$tmp/boot-$1 got
	shift 2
	mkdir -p "$d"
	printf '%s\n' '[    1.000000] Linux version 6.1' "$@" >"$d/server.log"
	printf '%s\n' '[    1.000000] Linux version 6.1' \
		'[    1.077407] Running RCU-tasks wait API self tests' >"$d/client.log"
	echo client >"$d/boot.stalled"
	if boot_stalled "$d"; then got=emulator; else got=finding; fi
	if [ "$got" = "$want" ]; then
		tap_result ok "boot stall: $name: $want"
	else
		tap_result fail "boot stall: $name: ruled $got, want $want"
	fi
}

boot_case "stall alone" emulator \
	'[   60.000000] svcrdma: listening on 0.0.0.0:20049'
boot_case "a KASAN report in the other guest" finding \
	'[   60.000000] BUG: KASAN: slab-out-of-bounds in svcrdma_recvfrom+0x10/0x20 [svcrdma]'
boot_case "a hung task in the other guest" finding \
	'[  300.000000] INFO: task nfsd:512 blocked for more than 120 seconds.'

# vm_boot_stalled: only a live guest that has not begun its test, and only
# once VM_BOOT_SECONDS have passed since it started.
boot_detect() {
	local name=$1 want=$2 age=$3 out=$4 alive=$5 d=$tmp/detect-$1 got pid
	mkdir -p "$d"
	if [ "$alive" = alive ]; then
		sleep 60 &
		pid=$!
	else
		pid=999999
	fi
	echo "$pid" >"$d/client.pid"
	echo $(($(date +%s) - age)) >"$d/client.started"
	[ "$out" = out ] && : >"$d/client.out"
	got=$(VM_BOOT_SECONDS=300 vm_boot_stalled "$d" client) || got=none
	[ "$alive" = alive ] && kill "$pid" 2>/dev/null
	if [ "$got" = "$want" ]; then
		tap_result ok "boot stall detection: $name: $want"
	else
		tap_result fail "boot stall detection: $name: got $got, want $want"
	fi
}

boot_detect "no test line after 301 s" client 301 no-out alive
boot_detect "no test line after 10 s" none 10 no-out alive
boot_detect "test begun" none 301 out alive
boot_detect "guest already gone" none 301 no-out dead
# inc_case NAME RULED CLIENT SERVER EXPECT CLIENT-LINE SERVER-LINE: a failed
# 2vm run whose guests logged the given lines (empty: none).
inc_case() {
	local name=$1 want=$2 d=$tmp/inc-$1 got
	mkdir -p "$d"
	printf '%s\n' '[    1.000000] Linux version 6.1' ${6:+"$6"} >"$d/client.log"
	printf '%s\n' '[    1.000000] Linux version 6.1' ${7:+"$7"} >"$d/server.log"
	echo "not ok client nfs3-files" >"$d/subtests"
	if incumbent_failed "$d" "$3" "$4" "$5" "client: guest exit status '1'" >/dev/null; then
		got=incumbent
	else
		got=finding
	fi
	if [ "$got" = "$want" ]; then
		tap_result ok "incumbent: $name: $want"
	else
		tap_result fail "incumbent: $name: ruled $got, want $want"
	fi
}

NOT_FREE='[  102.000000] rdma_rxe: rxe_reg_fast_mr: mr->lkey = 0x1073 not free'
RXE_WARN='[  140.542991] WARNING: CPU: 0 PID: 17 at drivers/infiniband/sw/rxe/rxe_pool.c:255 __rxe_cleanup+0x118/0x160 [rdma_rxe]'
inc_case "in-tree at both ends" incumbent intree intree "" "" "$RXE_WARN"
inc_case "in-tree at both ends, a self-test" finding intree intree crash "" "$RXE_WARN"
inc_case "in-tree client's defect, our server quiet" incumbent intree ours "" "$NOT_FREE" ""
inc_case "in-tree client's defect, our server warned" finding intree ours "" "$NOT_FREE" "$RXE_WARN"
inc_case "in-tree client failed without the defect" finding intree ours "" "" ""
inc_case "our client logged the defect" finding ours intree "" "$NOT_FREE" ""
inc_case "ours at both ends" finding ours ours "" "$NOT_FREE" ""
inc_case "both clients' defect: ours too" finding ours intree "" "$NOT_FREE" "$NOT_FREE"
# CI's make check on 583f4b6: the in-tree client's refusal, then the link
# stalled and our server's transmit watchdog fired.
SERVER_STALL=$(printf '%s\n' "$WATCHDOG" "${WATCHDOG_WARN[@]}")
inc_case "in-tree client's defect, then our server's link stalled" incumbent intree ours "" \
	"$NOT_FREE" "$SERVER_STALL"
inc_case "in-tree client's defect, our server's stall and rxe cleanup after it" incumbent intree ours "" \
	"$NOT_FREE" "$SERVER_STALL"$'\n'"[  390.000000] $RXE_CLEANUP"
inc_case "in-tree client's defect, our server's stall and a KASAN report" finding intree ours "" \
	"$NOT_FREE" "$SERVER_STALL"$'\n''[  390.000000] BUG: KASAN: use-after-free in svcrdma_recvfrom+0x10/0x20 [svcrdma]'
inc_case "in-tree client's defect, our server's stall and a hung task" finding intree ours "" \
	"$NOT_FREE" "$SERVER_STALL"$'\n''[  500.000000] INFO: task nfsd:512 blocked for more than 120 seconds.'
inc_case "in-tree client's defect, our server's rxe warning before the stall" finding intree ours "" \
	"$NOT_FREE" "$RXE_WARN"$'\n'"$SERVER_STALL"
inc_case "our client's stall after the in-tree server's defect" incumbent ours intree "" \
	"$SERVER_STALL" "$NOT_FREE"

# abort_case NAME SERVER-EXIT WANT: vm_wait on two stand-in guests (shell
# processes, not QEMU): the server exits at once with the given console
# status line, the client would run for a minute.  WANT: "killed" (the
# client is ended VM_ABORT_GRACE after a failed peer) or "waited" (a clean
# peer exit leaves the client to finish or meet its deadline).
abort_case() {
	local name=$1 exitline=$2 want=$3 d=$tmp/abort-$1 got t0 secs
	mkdir -p "$d"
	printf '%s\n' '[    1.000000] Linux version 6.1' "$exitline" >"$d/server.log"
	: >"$d/client.log"
	: >"$d/server.out"
	: >"$d/client.out"
	true &
	echo $! >"$d/server.pid"
	sleep 60 &
	echo $! >"$d/client.pid"
	t0=$(date +%s)
	VM_ABORT_GRACE=2 vm_wait "$d" $((t0 + 8)) server client
	secs=$(($(date +%s) - t0))
	if grep -q 'after its peer failed' "$d/client.timeout" 2>/dev/null; then
		# Not at once: after the grace.
		if [ "$secs" -ge 2 ] && [ "$secs" -lt 8 ]; then got=killed; else got="killed after $secs s"; fi
	elif [ -e "$d/client.timeout" ]; then
		got=waited
	else
		got="left alone"
	fi
	kill "$(cat "$d/client.pid")" 2>/dev/null
	if [ "$got" = "$want" ]; then
		tap_result ok "abort grace: $name: $want ($(($(date +%s) - t0)) s)"
	else
		tap_result fail "abort grace: $name: $got, want $want"
	fi
}

abort_case "peer failed" 'NFSRDMA-EXIT: 1' killed
abort_case "peer passed" 'NFSRDMA-EXIT: 0' waited
tap_summary
