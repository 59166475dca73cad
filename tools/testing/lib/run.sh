# SPDX-License-Identifier: GPL-2.0
#
# Running one test instance: a test body from tests/ in a topology (1vm or
# 2vm) with a transport choice per VM (intree = the kernel's rpcrdma, ours =
# nfsrdma's modules).  Emits one TAP line per subtest the guests report.

# shellcheck source=tools/testing/lib/vm.sh
. "$(dirname "${BASH_SOURCE[0]}")/vm.sh"
# shellcheck source=tools/testing/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

RESULTS=${RESULTS:-$VM_TOP/results}

# test_var TEST NAME DEFAULT: a setting a test file declares at its top
# (TIMEOUT, CAPTURE), read on the host without running the test.
test_var() {
	(
		eval "$2=\$3"
		# shellcheck source=/dev/null
		. "$VM_TOP/tools/testing/tests/$1.sh"
		eval "echo \"\$$2\""
	)
}

# capture_check PCAP: the host's own subtest for a test with CAPTURE=1:
# tshark must decode every RPC-over-RDMA message on the RoCEv2 link and
# flag nothing at or below that layer as malformed or worth a warning.
# RPC and NFS are not dissected for the verdict: tshark 4.0 calls READ
# replies whose data came by RDMA Write malformed, and knfsd's CLOSE
# replies earn a protocol warning, with the in-tree modules as with ours.
# Those counts are reported, not judged.
capture_check() {
	local pcap=$1 out=${1%.pcap}.txt sends msgs bad nfsbad
	# Ethernet-over-InfiniBand guesses mistake short RDMA Write payloads
	# (opaque data) for frames and then call them malformed.
	local -a ts=(tshark -r "$pcap" --disable-heuristic eth_over_ib
		--disable-heuristic mellanox_eoib)
	if [ ! -s "$pcap" ]; then
		echo "no capture" >"$out"
		return 1
	fi
	# RC Send opcodes that start a message: SEND_FIRST, SEND_ONLY,
	# SEND_ONLY_WITH_IMMEDIATE, SEND_ONLY_WITH_INVALIDATE.
	sends=$("${ts[@]}" -Y 'infiniband.bth.opcode in {0, 4, 5, 23}' 2>/dev/null | wc -l)
	msgs=$("${ts[@]}" --disable-protocol rpc -Y rpcordma 2>/dev/null | wc -l)
	bad=$("${ts[@]}" --disable-protocol rpc \
		-Y '(infiniband || rpcordma) && (_ws.malformed || _ws.expert.severity >= 0x00600000)' 2>&1 |
		grep -v '^Running as user')
	nfsbad=$("${ts[@]}" -Y 'nfs && (_ws.malformed || _ws.expert.severity >= 0x00600000)' 2>/dev/null | wc -l)
	{
		echo "RC Sends starting a message: $sends"
		echo "RPC-over-RDMA messages decoded: $msgs"
		echo "transport-layer frames malformed or warned: $(printf '%s' "$bad" | grep -c .)"
		[ -n "$bad" ] && printf '%s\n' "$bad" | head -n 20
		echo "NFS-layer frames malformed or warned (not judged): $nfsbad"
	} >"$out" 2>&1
	[ "$msgs" -gt 0 ] && [ "$msgs" = "$sends" ] && [ -z "$bad" ]
}

# respawn_client RUNDIR DEADLINE: for a test with RESPAWN=1: when the
# client signals kill-client, end its QEMU process the way a crash or power
# loss would, and boot a second client (role client2) on the same link.
respawn_client() {
	local rundir=$1 deadline=$2 pid
	pid=$(cat "$rundir/client.pid")
	while [ ! -e "$rundir/sync.kill-client" ] && kill -0 "$pid" 2>/dev/null &&
		! vm_boot_stalled "$rundir" server client >/dev/null &&
		[ "$(date +%s)" -lt "$deadline" ]; do
		sleep 0.5
	done
	[ -e "$rundir/sync.kill-client" ] || return 1
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	: >"$rundir/client.killed"
	: >"$rundir/sync.client-killed"
	vm_kernel_load client
	vm_start client2 client2 "$rundir" "$VM_MEM2" 1 "$(vm_link_spec "$rundir" client)"
}

# link_stalled_where RUNDIR: the guest logs in which virtio-net reported
# that its transmit queue made no progress.
link_stalled_where() {
	local f out=
	for f in "$1"/*.log; do
		grep -q 'NETDEV WATCHDOG: .*transmit queue .* timed out' "$f" 2>/dev/null &&
			out+="${out:+ }${f##*/}"
	done
	echo "$out"
}

# link_watch_tail RUNDIR: the last two rows of each guest's link counters
# (guest/lib.sh link_watch): which direction stopped moving.
link_watch_tail() {
	local f
	for f in "$1"/*-link.txt; do
		[ -e "$f" ] || continue
		tail -n 2 "$f" | sed "s|^|${f##*/}: |"
	done
}

# Kernel lines that say an RDMA transport or device failed: any line of
# our modules' but the routine ones (connected, device removed on purpose),
# the in-tree rpcrdma's and rxe's complaints, failed connects, work
# requests completing in error, a QP leaving RTS.
LINK_TRANSPORT_ERR='(xprtrdma|svcrdma|rpcrdma|rdma_rxe|siw): |connect to .* failed|WC error|work completion.* error|left RTS|QP event'
LINK_TRANSPORT_OK='xprtrdma: connected to|svcrdma: .* removed, closing|rdma_rxe: (loaded|unloaded)|rpcrdma: connection to .* on .*, memreg'
# Our rate-limited lines that a peer's bad message was dropped or its
# connection closed for it, or that an RDMA Read under a handle the peer
# made up was refused by the peer's device (remote access error): the
# validation working, not the transport failing.  The hostile and fuzzing
# peers draw hundreds of them, and make check saw the link stall a minute
# into fuzz-live-client's run, after our client had dropped the fuzzing
# server's malformed replies all along.
LINK_PEER_INPUT='(xprtrdma|svcrdma): (malformed (reply|message|backchannel reply) |[0-9]+-byte message from .* dropped|backchannel call from .* dropped|backward call from .* dropped|reply from .* (a call not sent on this connection, dropped|does not match its call)|[^ ]+ invalidated rkey .* which did not offer it|[^ ]+ could not use the chunks of XID|[^ ]+ speaks RPC-over-RDMA versions|backchannel reply from .* dropped|bad transport header from |reply to .* does not fit its chunks|[0-9]+ connection requests already wait on|RDMA Read from .* failed: remote access error|[^ ]+ sent RDMA_ERROR as a call, dropped|[^ ]+ sent a [0-9]+-byte message, closing)'

# guest_epoch RUNDIR ROLE: the host time (seconds since 1970) at which
# ROLE's uptime was zero, from ROLE-clock.0 to .5 (guest/lib.sh link_watch
# writes its uptime to one of them every ten seconds; the 9p server stamps
# the file's mtime with the host's clock as the write arrives).  A write
# can only arrive late, so the earliest of the files' estimates is taken.
# Nothing if the guest wrote none, or if the estimates spread over more
# than a second (a guest clock that drifts from the host's), or if every
# mtime is a whole second (a host filesystem that keeps no finer ones).
guest_epoch() {
	local f up mtime
	for f in "$1/$2"-clock.[0-5]; do
		[ -s "$f" ] && read -r up <"$f" && mtime=$(LC_ALL=C stat -c %.3Y "$f" 2>/dev/null) &&
			echo "$mtime $up"
	done | awk '
		$1 ~ /^[0-9]+(\.[0-9]+)?$/ && $2 ~ /^[0-9]+(\.[0-9]+)?$/ {
			e = $1 - $2
			if (n++ == 0 || e < lo) lo = e
			if (n == 1 || e > hi) hi = e
			if ($1 !~ /\.000$/) fine = 1
		}
		END { if (n && fine && hi - lo <= 1) printf "%.3f\n", lo }'
}

# clock_offset RUNDIR ROLE ON: what to add to ROLE's uptimes to put them
# on ON's clock (guest_epoch of each; 0 for the same guest).  Nothing if
# either epoch is unknown.
clock_offset() {
	local from to
	from=$(guest_epoch "$1" "$2")
	to=$(guest_epoch "$1" "$3")
	[ -n "$from" ] && [ -n "$to" ] || return 0
	awk -v f="$from" -v t="$to" 'BEGIN { printf "%.3f\n", f - t }'
}

# link_stall_start_of RUNDIR: "TIME ROLE": the guest uptime (seconds) at
# which the first transmit queue to be reported stalled stopped moving,
# and the guest whose clock TIME is on.  Empty if no queue stalled.  The
# watchdog's line time less the stall it reports is when the queue was
# stopped, full; it fills only with what the guest still sends after the
# emulator stopped taking frames, which was 75 s in one bench boot.  So
# when the stalled guest's link counters (guest/lib.sh link_watch) show
# it, the stall starts at the row where its tx_packets took their last
# value: virtio-net counts a frame there when the emulator has taken it,
# so none was taken after that row.  Only a value that held for at least
# one more row counts, and the earlier of the two times is the start.
# When both guests stalled, the earlier is taken on the host's clock if
# both guests' epochs are known (guest_epoch), else on their uptimes.
link_stall_start_of() {
	local rundir=$1 f role epoch
	for f in "$rundir"/*.log; do
		grep -q 'NETDEV WATCHDOG: .*transmit queue .* timed out' "$f" 2>/dev/null || continue
		role=${f##*/}
		role=${role%.log}
		epoch=$(guest_epoch "$rundir" "$role")
		tr -d '\r' <"$f" |
			sed -n 's/^\[ *\([0-9.]*\)\] .*NETDEV WATCHDOG: .*transmit queue [0-9]* timed out \([0-9]*\) ms.*/\1 \2/p' |
			awk -v r="$role" -v e="$epoch" '{ print $1 - $2 / 1000, r, e }'
		[ -e "$rundir/$role-link.txt" ] || continue
		link_tx_frozen_at "$rundir/$role-link.txt" |
			awk -v r="$role" -v e="$epoch" '{ print $1, r, e }'
	done | awk '
		BEGIN { known = 1 }
		{ t[NR] = $1; r[NR] = $2; e[NR] = $3; if ($3 == "") known = 0 }
		END {
			for (i = 1; i <= NR; i++) {
				k = known ? t[i] + e[i] : t[i] + 0
				if (best == "" || k < best) { best = k; at = i }
			}
			if (at) print t[at], r[at]
		}'
}

# link_tx_frozen_at LINKFILE: the time of the first row from which
# tx_packets never changed again, if a later row confirms it and the
# guest's rx_packets rose after it; else nothing.  A guest that receives
# under RC must acknowledge, so flat tx_packets then is the emulator not
# taking its frames; a guest that merely fell idle receives nothing, and
# its idle gap must not move the stall's start back.  A row without both
# counters (cut short as the guest died) is skipped.  Where that row says
# when the guest first saw tx_packets at that value (tx_moved_at, sampled
# every second by guest/lib.sh link_watch), that time is printed instead
# of the row's: the rows are ten seconds apart, and a bench boot's client
# met retry-exceeded between the server's last moving row and its first
# frozen one.  Only if the sample was of the row's own value (tx_seen) and
# falls after the previous row; otherwise the row's time, the later one.
link_tx_frozen_at() {
	awk '{
		tx = ""; rx = ""; moved = ""; seen = ""
		for (i = 2; i < NF; i++) {
			if ($i == "tx_packets") tx = $(i + 1)
			if ($i == "rx_packets") rx = $(i + 1)
			if ($i == "tx_seen") seen = $(i + 1)
			if ($i == "tx_moved_at") moved = $(i + 1)
		}
		if (tx == "" || rx == "") next
		if (tx != last) {
			at = $1; rows = 0; last = tx; rx0 = rx
			if (seen == tx && moved ~ /^[0-9.]+$/ && moved + 0 <= $1 + 0 &&
			    moved + 0 > prev + 0) at = moved
		} else rows++
		prev = $1
		rxn = rx
	} END { if (rows > 0 && rxn + 0 > rx0 + 0) print at }' "$1"
}

# link_error_before_stall RUNDIR: print the first transport error that
# either guest logged before the link stalled.  Errors after the stall are
# its consequences; one before it means the transport failed first.
# Except an error inside a subtest that passed and ended before the stall
# (the spans in ROLE-passed.txt, guest/lib.sh subtest): a test provoked it
# (dropin-drc blackholes the server until both ends give up the
# connection) or the transport recovered from it, and the check passed.
# An error inside one of its own guest's failed subtests (ROLE-failed.txt)
# stands whatever the other guest's spans say.  CI's make check on e02d79e
# stood an emulator stall in dropin-swap against us for dropin-drc's
# provoked retry-exceeded two minutes before.
#
# Each guest's times are its uptime, and the guests boot seconds (client2,
# minutes) apart.  Where both guests' epochs are known (guest_epoch),
# every time is moved onto the stalled guest's clock, and the other
# guest's spans are widened by half a second for the 10 ms of /proc/uptime
# and the 9p write.  Where one is not, times are compared as they are, and
# the other guest's spans (server and client only) are widened by two
# seconds: the two boot within a second or two of each other.  Either way
# an error less than a second before the stall's start is given to the
# emulator, for the second between tx_packets samples.  (Without the
# epochs, a server error up to a second plus the boots' offset before the
# client's stall was given to it too.)
link_error_before_stall() {
	local at start stalled f role peer gs ps
	at=$(link_stall_start_of "$1")
	[ -n "$at" ] || return 1
	start=${at% *}
	stalled=${at#* }
	for f in "$1"/*.log; do
		[ -e "$f" ] || continue
		role=${f##*/}
		role=${role%.log}
		case "$role" in
		server) peer=client ;;
		client) peer=server ;;
		*) peer= ;;
		esac
		gs=$(clock_offset "$1" "$role" "$stalled")
		ps=
		[ -z "$peer" ] || ps=$(clock_offset "$1" "$peer" "$stalled")
		tr -d '\r' <"$f" | grep -E "^\[ *[0-9.]+\] .*($LINK_TRANSPORT_ERR)" |
			grep -Ev "$LINK_TRANSPORT_OK|$LINK_PEER_INPUT" |
			awk -v s="$start" -v src="${f##*/}" -v gs="$gs" -v ps="$ps" \
				-v own="$(cat "$1/$role-passed.txt" 2>/dev/null)" \
				-v other="$([ -z "$peer" ] || cat "$1/$peer-passed.txt" 2>/dev/null)" \
				-v failed="$(cat "$1/$role-failed.txt" 2>/dev/null)" '
			# Times of this guest (shift gs) and of its peer (ps) on the
			# stalled guest'"'"'s clock, as far as clock_offset knows them.
			function spans(text, shift, widen, ended, b, e,   n, i, row, f, k) {
				n = split(text, row, "\n")
				for (i = 1; i <= n; i++) {
					if (split(row[i], f, " ") < 2) continue
					if (ended && f[2] + shift + widen > s) continue
					b[++k] = f[1] + shift - widen; e[k] = f[2] + shift + widen
				}
				return k
			}
			function inside(t, n, b, e,   i) {
				for (i = 1; i <= n; i++)
					if (t >= b[i] && t <= e[i]) return 1
				return 0
			}
			BEGIN {
				widen = gs != "" && ps != "" ? 0.5 : 2
				gs += 0; ps += 0
				nf = spans(failed, gs, 0, 0, fb, fe)
				np = spans(own, gs, 0, 1, pb, pz)
				no = spans(other, ps, widen, 1, ob, oe)
			}
			{
				t = substr($0, 2) + gs
				if (t >= s - 1) next
				if (!inside(t, nf, fb, fe) &&
				    (inside(t, np, pb, pz) || inside(t, no, ob, oe))) next
				print src ": " $0
				exit
			}'
	done | head -n 1 | grep .
}

# splat_besides_watchdog STALL LOG...: print the first kernel report in the
# given guest logs (RUNDIR/ROLE.log) that is not the transmit watchdog's
# own WARNING and trace, STALL being when the link stalled and on whose
# clock (link_stall_start_of's "TIME ROLE"; empty if it did not).  A
# checker's report, an oops, a lockup or a hung task is a finding
# whenever it came, and may itself be what stalled the queue.
# One exception: rxe's WARNING that a QP's cleanup timed out waiting for
# its references (__rxe_cleanup, under a QP destroy), when it came after
# the link stalled: the frames stuck in the dead NIC's transmit queue hold
# those references, so any QP destroyed then warns, ours or the in-tree's.
# The same WARNING before the stall is a finding.  A log's times are
# moved onto the stalled guest's clock where both epochs are known
# (guest_epoch), as link_error_before_stall does.
splat_besides_watchdog() {
	local start='' stalled='' f role off
	[ -z "$1" ] || { start=${1% *}; stalled=${1#* }; }
	shift
	for f in "$@"; do
		role=${f##*/}
		role=${role%.log}
		off=
		[ -z "$stalled" ] || off=$(clock_offset "${f%/*}" "$role" "$stalled")
		tr -d '\r' <"$f" 2>/dev/null | grep -E "$VM_SPLAT" |
			grep -Ev 'Call Trace:|WARNING: .* (dev_watchdog|net/sched/sch_generic\.c)' |
			awk -v s="$start" -v sh="${off:-0}" '
				/WARNING: .* at drivers\/infiniband\/sw\/rxe\/rxe_pool\.c:[0-9]+ __rxe_cleanup/ &&
				s != "" && substr($0, 2) + sh > s { next }
				{ print }'
	done | head -n 1 | grep .
}

# link_splat_besides_watchdog RUNDIR: splat_besides_watchdog over both
# guests' logs.
link_splat_besides_watchdog() {
	splat_besides_watchdog "$(link_stall_start_of "$1")" "$1"/*.log
}

# link_stalled RUNDIR TOPOLOGY EXPECT WHY: a two-VM run failed and a guest's
# virtio-net transmit watchdog fired, so QEMU's link between the VMs
# stopped carrying frames (seen about once in forty boots, with the in-tree
# transports at both ends as well), no transport error came before it in
# either guest's log and neither kernel reported anything else: the
# emulator's fault, not a guest's.  Otherwise the failure stands.
link_stalled() {
	[ "$2" = 2vm ] && [ -z "$3" ] || return 1
	[ -n "$4" ] || grep -q '^not ok' "$1/subtests" 2>/dev/null || return 1
	[ -n "$(link_stalled_where "$1")" ] || return 1
	! link_splat_besides_watchdog "$1" >/dev/null || return 1
	! link_error_before_stall "$1" >/dev/null
}

# boot_stalled RUNDIR: a guest's kernel stopped before its test began
# (vm_wait found it so and ended the run) and no guest's log has a kernel
# report: nothing of ours had been loaded in that guest, so the stall is
# the emulated machine's or the kernel's own boot, not a finding.  A
# report anywhere, even in the other guest, makes the failure stand.
boot_stalled() {
	[ -e "$1/boot.stalled" ] || return 1
	! cat "$1"/*.log 2>/dev/null | tr -d '\r' | grep -qE "$VM_SPLAT"
}

# The in-tree client re-registering an MR that is still valid, which rxe
# refuses; the client then stalls (our own client fences its REG_MR chains
# against exactly this).
INCUMBENT_RXE_DEFECT='rdma_rxe: rxe_reg_fast_mr: .* not free'

# incumbent_failed RUNDIR CLIENT SERVER EXPECT WHY: a run that should have
# passed failed where nothing of ours can be at fault, so it is run once
# more like an emulator stall, and the second verdict stands.  Print why,
# or fail if the failure may be ours:
# - the in-tree transport at both ends: none of our modules was loaded
#   (the in-tree pair itself fails on rxe now and then: a WARNING in
#   rxe's QP cleanup under the in-tree server's transport free, then a
#   hung mount);
# - a guest running the in-tree transport logged rxe's refusal of its
#   fast-register (INCUMBENT_RXE_DEFECT), and no guest running ours logged
#   that refusal or any kernel report but those a stalled link brings
#   (splat_besides_watchdog): the in-tree client hangs its mount after
#   the refusal, and CI's make check on 583f4b6 saw QEMU's link stall
#   during such a hang, after which a guest's transmit queue timed out.
incumbent_failed() {
	local rundir=$1 client=$2 server=$3 expect=$4 why=$5 f role t start hit=
	[ -z "$expect" ] || return 1
	[ -n "$why" ] || grep -q '^not ok' "$rundir/subtests" 2>/dev/null || return 1
	if [ "$client" = intree ] && [ "$server" = intree ]; then
		echo "the in-tree transport failed at both ends, with nothing of ours loaded"
		return 0
	fi
	start=$(link_stall_start_of "$rundir")
	for f in "$rundir"/*.log; do
		role=${f##*/}
		role=${role%.log}
		case "$role" in
		server) t=$server ;;
		client | client2) t=$client ;;
		*) continue ;;
		esac
		if [ "$t" = intree ]; then
			tr -d '\r' <"$f" | grep -qE "$INCUMBENT_RXE_DEFECT" && hit=$role
		elif tr -d '\r' <"$f" | grep -qE "$INCUMBENT_RXE_DEFECT" ||
			splat_besides_watchdog "$start" "$f" >/dev/null; then
			return 1
		fi
	done
	[ -n "$hit" ] || return 1
	echo "the in-tree $hit hit rxe's fast-register defect ($(tr -d '\r' <"$rundir/$hit.log" | grep -m1 -oE "$INCUMBENT_RXE_DEFECT")), and our side reported nothing"
}

# rerun_reason RUNDIR TOPOLOGY CLIENT SERVER EXPECT WHY: a failed run that
# is no finding, by the rules above (boot_stalled, link_stalled,
# incumbent_failed): print why, for make check's TAP output and make
# bench's stalled/ directory.  Fails if the failure may be ours.
rerun_reason() {
	if boot_stalled "$1"; then
		echo "the boot of $(cat "$1/boot.stalled") stalled before its test began"
	elif link_stalled "$1" "$2" "$5" "$6"; then
		echo "the emulated link stalled ($(link_stalled_where "$1"))"
	else
		incumbent_failed "$1" "$3" "$4" "$5" "$6"
	fi
}

# stall_stands RUNDIR: for a failure that stands although the link
# stalled, print the line that says which transport error came first.
stall_stands() {
	local line
	[ -n "$(link_stalled_where "$1")" ] && line=$(link_error_before_stall "$1") || return 1
	echo "the emulated link stalled ($(link_stalled_where "$1")) only after a transport error, so the failure stands: $line"
}

# expect_pattern WORD: what the failure report of a self-test expecting
# WORD must contain (two patterns, tab-separated, when both must appear).
expect_pattern() {
	case "$1" in
	crash) echo 'sysrq: Trigger a crash' ;;
	timeout) echo 'timed out and was killed' ;;
	status) echo "guest exit status '3'" ;;
	kasan) printf '%s\t%s\n' 'BUG: KASAN: slab-out-of-bounds' 'BUG: KASAN: use-after-free' ;;
	ubsan) echo 'UBSAN: array-index-out-of-bounds' ;;
	lockdep) echo 'possible circular locking dependency' ;;
	kmemleak) echo 'nfsrdma-kmemleak: .*nfsrdma_selftest' ;;
	dma) echo 'DMA-API: .* frees DMA memory with different size' ;;
	list) echo 'list_add corruption' ;;
	sleep) echo 'BUG: sleeping function called from invalid context' ;;
	rcu) echo 'WARNING: suspicious RCU usage' ;;
	*) return 1 ;;
	esac
}

# boot_var TESTS NAME DEFAULT: test_var across the tests ("+"-joined) that
# share one boot: the sum for TIMEOUT, the first non-empty value otherwise.
boot_var() {
	local t v out=
	for t in ${1//+/ }; do
		# A file that does not load: its error is TIMEOUT's, never
		# a CAPTURE or SELFTEST_MOD of it.
		if [ "$2" = TIMEOUT ]; then
			v=$(test_var "$t" "$2" "$3" 2>&1)
		else
			v=$(test_var "$t" "$2" "$3" 2>/dev/null)
		fi
		if [ "$2" = TIMEOUT ]; then
			case "$v" in '' | *[!0-9]*) echo "$t: $v"; return ;; esac
			out=$((${out:-0} + v))
		elif [ -z "$out" ]; then
			out=$v
		fi
	done
	echo "$out"
}

# run_instance TEST TOPOLOGY CLIENT SERVER [WORD...]
# TEST may be several tests joined by "+": they run one after the other in
# the same boot (guest/stage2.sh), each with its own TAP lines, named as if
# it had run alone.  That is for the debug kernel, whose boots and kmemleak
# scans cost minutes; a test that kills or respawns a guest, or captures
# the link, needs a boot of its own.
# Each WORD is kernel=debian|6.12|rt|debug (the kernel the guests boot;
# Debian's 6.1 by default, or RUN_KERNEL's when that is set; in a two-VM
# run kernel=CLIENT/SERVER boots one kernel in each, for the interop of
# our modules on one kernel with the in-tree on another), fabric=rxe|siw (soft-RoCE by
# default; soft-iWARP needs the debug kernel, Debian's lacks siw), NAME=VALUE
# (an upper-case setting the test reads from its environment, such as a
# shorter soak for make check than for make check-full; it is named in the
# TAP line), or what the harness's failure report must contain for a
# self-test that must fail: crash, timeout, status, or the checker the
# debug kernel must fire (kasan, lockdep, kmemleak, dma, ubsan, list,
# sleep, rcu), several
# joined by "+" when one boot commits each checker's fault in turn: one
# TAP line per checker.
run_instance() {
	local test=$1 topo=$2 client=$3 server=$4 expect='' kernel=debian fabric=rxe w
	local suffix="$topo/client=$client,server=$server" id t
	local rundir="$RESULTS/vm/$test-$topo-$client-$server"
	local deadline timeout capture respawn boot_append selftest_mod why vms st st2 name line attempt t0 stalled seen
	local ckernel skernel role k tr scale VM_TEST_APPEND=
	local -a settings=()
	shift 4
	for w in "$@"; do
		case "$w" in
		kernel=*) kernel=${w#kernel=} ;;
		fabric=*) fabric=${w#fabric=} ;;
		*=*)
			# An environment variable of the test's own: never one
			# the harness sets itself.
			case "${w%%=*}" in
			TEST | TOPOLOGY | REPO | KVER | KERNEL | FABRIC | CLIENT_TRANSPORT | SERVER_TRANSPORT | TIME_SCALE) ;;
			*)
				if [[ ${w%%=*} =~ ^[A-Z_][A-Z0-9_]*$ ]]; then
					settings+=("$w")
					continue
				fi
				;;
			esac
			tap_result fail "$id: '$w' is not a setting a test may take"
			return
			;;
		*) expect=$w ;;
		esac
	done
	kernel=${RUN_KERNEL:-$kernel}
	ckernel=${kernel%/*} skernel=${kernel#*/}
	if [ -z "$ckernel" ] || [ -z "$skernel" ] || [[ $skernel == */* ]]; then
		tap_result fail "$test/$suffix: kernel=$kernel is not KERNEL or CLIENT/SERVER"
		return
	fi
	[ "$ckernel" = "$skernel" ] && kernel=$ckernel
	t0=$(date +%s)
	# Debian's kernel on rxe keeps the ids and directories it always had;
	# any other kernel or fabric names both kernel and fabric in both.
	if [ "$kernel" != debian ] || [ "$fabric" != rxe ]; then
		suffix+="/kernel=$kernel/$fabric"
		rundir+="-${kernel//\//-}"
		[ "$fabric" = rxe ] || rundir+="-$fabric"
	fi
	for w in "${settings[@]}"; do
		suffix+="/$w"
		# QEMU's -virtfs takes the directory inside a comma-separated
		# option list: no comma, nor anything else odd, in its name.
		rundir+="-${w//[^A-Za-z0-9._=-]/_}"
	done
	id="$test/$suffix"
	for t in ${test//+/ }; do
		if [ ! -e "$VM_TOP/tools/testing/tests/$t.sh" ]; then
			tap_result fail "$id: no test '$t'"
			return
		fi
	done
	if [ "$test" != "${test//+/}" ]; then
		if [ "$(tr + '\n' <<<"$test" | sort | uniq -d)" ]; then
			tap_result fail "$id: a test may run once per boot"
			return
		fi
		if [ -n "$expect" ]; then
			tap_result fail "$id: a self-test needs a boot of its own"
			return
		fi
		if [ "$topo" = 2vm ] && { [ -n "$(boot_var "$test" CAPTURE "")" ] ||
			[ -n "$(boot_var "$test" RESPAWN "")" ]; }; then
			tap_result fail "$id: a test that captures the link or respawns the client needs a boot of its own"
			return
		fi
	fi
	for k in "$ckernel" "$skernel"; do
		case "$fabric/$k" in
		rxe/* | siw/debug) ;;
		*)
			tap_result fail "$id: no fabric '$fabric' on the $k kernel"
			return
			;;
		esac
	done
	if [ "$ckernel" != "$skernel" ] && [ "$topo" != 2vm ]; then
		tap_result fail "$id: one VM boots one kernel"
		return
	fi
	if [ "$ckernel" != "$skernel" ] && { [ -n "$expect" ] ||
		[ -n "$(boot_var "$test" SELFTEST_MOD "")" ]; }; then
		tap_result fail "$id: a self-test boots one kernel"
		return
	fi

	if [ "$topo" = 1vm ] && [ "$client" != "$server" ]; then
		tap_result fail "$id: one VM cannot mix transports"
		return
	fi
	rm -rf "$rundir"
	mkdir -p "$rundir"
	vm_kernel_forget
	if [ "$ckernel" != "$skernel" ]; then
		# Each guest its own kernel, and our modules built for it if
		# it runs them; timeouts stretch for the slower of the two.
		: >"$rundir/kernel.log"
		scale=1
		for role in server client; do
			if [ "$role" = server ]; then k=$skernel tr=$server; else k=$ckernel tr=$client; fi
			if ! vm_use_kernel "$k" >>"$rundir/kernel.log" 2>&1 ||
				! vm_initramfs >>"$rundir/kernel.log" 2>&1; then
				tap_result fail "$id: no $k kernel to boot"
				tap_diag "$(tail -n 20 "$rundir/kernel.log")"
				return
			fi
			if [ "$tr" = ours ] && ! vm_stage_ours >>"$rundir/stage-ours.log" 2>&1; then
				tap_result fail "$id: 'make install' into the guest image failed"
				tap_diag "$(tail -n 20 "$rundir/stage-ours.log")"
				return
			fi
			((VM_TIME_SCALE > scale)) && scale=$VM_TIME_SCALE
			vm_kernel_save "$role"
		done
		VM_TIME_SCALE=$scale
	elif ! vm_use_kernel "$kernel" >"$rundir/kernel.log" 2>&1 ||
		! vm_initramfs >>"$rundir/kernel.log" 2>&1; then
		tap_result fail "$id: no $kernel kernel to boot"
		tap_diag "$(tail -n 20 "$rundir/kernel.log")"
		return
	fi
	cat >"$rundir/env" <<-EOT
		TEST=$test
		TOPOLOGY=$topo
		REPO=$VM_TOP
		KVER=$VM_KVER
		KERNEL=$kernel
		FABRIC=$fabric
		CLIENT_TRANSPORT=$client
		SERVER_TRANSPORT=$server
		TIME_SCALE=$VM_TIME_SCALE
	EOT
	for w in "${settings[@]}"; do
		printf '%s=%q\n' "${w%%=*}" "${w#*=}" >>"$rundir/env"
	done
	if [ "$ckernel" = "$skernel" ] && { [ "$client" = ours ] || [ "$server" = ours ]; }; then
		if ! vm_stage_ours >"$rundir/stage-ours.log" 2>&1; then
			tap_result fail "$id: 'make install' into the guest image failed"
			tap_diag "$(tail -n 20 "$rundir/stage-ours.log")"
			return
		fi
	fi
	selftest_mod=$(boot_var "$test" SELFTEST_MOD "")
	if [ -n "$selftest_mod" ] && ! vm_build_selftest_mod >"$rundir/selftest-mod.log" 2>&1; then
		tap_result fail "$id: the self-test module does not build"
		tap_diag "$(tail -n 20 "$rundir/selftest-mod.log")"
		return
	fi
	timeout=$(boot_var "$test" TIMEOUT 300)
	case "$timeout" in
	'' | *[!0-9]*)
		tap_result fail "$id: a test file does not load: $timeout"
		return
		;;
	esac
	timeout=$((timeout * VM_TIME_SCALE))
	capture=$(boot_var "$test" CAPTURE "")
	respawn=$(boot_var "$test" RESPAWN "")
	# Kernel parameters a test boots with, such as init_on_alloc=0 so
	# that memory the transport forgets to clear holds old bytes, not
	# the zeros Debian's kernels give every allocation by default.
	boot_append=$(boot_var "$test" BOOT_APPEND "")
	if [[ ! $boot_append =~ ^[A-Za-z0-9_.,=\ -]*$ ]]; then
		tap_result fail "$id: BOOT_APPEND '$boot_append' is not a list of kernel parameters"
		return
	fi
	VM_TEST_APPEND=$boot_append
	for attempt in 1 2; do
		deadline=$(($(date +%s) + timeout))
		if [ -n "$capture" ] && [ "$topo" = 2vm ]; then
			export VM_CAPTURE=$rundir/link.pcap
		else
			unset VM_CAPTURE
		fi
		if [ "$topo" = 1vm ]; then
			vms="single"
			vm_start single single "$rundir" "$VM_MEM1" 2
		else
			vms="server client"
			vm_start_pair "$rundir" "$deadline"
		fi
		if [ -n "$respawn" ] && [ "$topo" = 2vm ]; then
			respawn_client "$rundir" "$deadline" && vms="server client2"
		fi
		# shellcheck disable=SC2086
		vm_wait "$rundir" "$deadline" $vms

		# shellcheck disable=SC2086
		why=$(vm_verdicts "$rundir" $vms)
		# A client killed on purpose cannot report, but it must not
		# have splatted before it died.
		if [ -e "$rundir/client.killed" ]; then
			why=$(printf '%s\n%s' "$why" "$(vm_splats "$rundir" client)" | sed '/^$/d')
		fi
		if ! stalled=$(rerun_reason "$rundir" "$topo" "$client" "$server" "$expect" "$why"); then
			if [ -n "$why" ] && line=$(stall_stands "$rundir"); then
				why+=$'\n'"$line"
				[ -z "$(link_watch_tail "$rundir")" ] || why+=$'\n'"$(link_watch_tail "$rundir")"
			fi
			break
		fi
		[ "$attempt" = 2 ] && break
		# The emulated wire itself died (QEMU stopped moving frames
		# between the VMs, which no guest can cause or recover from),
		# a kernel stalled in its boot before anything of ours was
		# loaded, or the in-tree transport failed where ours cannot be
		# at fault.  Keep the evidence and run the instance once more;
		# the second run's verdict is the result, whatever it is.
		rm -rf "$rundir.stalled"
		mv "$rundir" "$rundir.stalled"
		mkdir -p "$rundir"
		cp "$rundir.stalled/env" "$rundir/"
		[ -e "$rundir.stalled/stage-ours.log" ] && cp "$rundir.stalled/stage-ours.log" "$rundir/"
		tap_diag "$id: first run discarded: $stalled; logs: $rundir.stalled; running it again"
		[ -z "$(link_watch_tail "$rundir.stalled")" ] || tap_diag "$(link_watch_tail "$rundir.stalled")"
	done
	if [ -n "${VM_CAPTURE:-}" ] && [ -z "$why" ]; then
		if capture_check "$VM_CAPTURE"; then
			echo "ok host wire-decode" >>"$rundir/subtests"
		else
			echo "not ok host wire-decode" >>"$rundir/subtests"
			tap_diag "$(cat "$rundir/link.txt")"
		fi
	fi

	if [ -n "$expect" ]; then
		for w in ${expect//+/ }; do
			if ! st=$(expect_pattern "$w"); then
				tap_result fail "$id: unknown expect word '$w'"
				continue
			fi
			st2=${st#*$'\t'}
			st=${st%%$'\t'*}
			if printf '%s\n' "$why" | grep -q -- "$st" &&
				printf '%s\n' "$why" | grep -q -- "$st2"; then
				tap_result ok "$id: harness reports the failure ($w)"
			else
				tap_result fail "$id: harness did not report the expected $w failure"
				tap_diag "$why" "logs: $rundir"
			fi
		done
		tap_diag "$id: $(($(date +%s) - t0)) s"
		return
	fi

	# One TAP line per subtest a guest reported ("ROLE NAME", or in a
	# shared boot "ROLE TEST/NAME", named as if the test had run alone);
	# a test that reported none gets one line, the run's verdict.  A run
	# that failed as a whole says why first, where a reader of the first
	# "not ok" looks, and a subtest its guest passed says so, so that the
	# one that broke the run stands out.
	[ -e "$rundir/subtests" ] || : >"$rundir/subtests"
	if [ -n "$why" ]; then
		tap_diag "$id: the run failed: $why" "logs: $rundir"
	fi
	for t in ${test//+/ }; do
		seen=
		while read -r line; do
			case "$line" in
			"ok "*) st=ok name=${line#ok } ;;
			*) st=fail name=${line#not ok } ;;
			esac
			name=${name#* }
			if [ "$test" != "$t" ]; then
				[ "${name%%/*}" = "$t" ] || continue
				name=${name#*/}
			fi
			seen=1
			if [ -n "$why" ] && [ "$st" = ok ]; then
				st=fail
				name+=" (passed in the guest; the run failed)"
			fi
			tap_result "$st" "$t/$suffix: $name"
		done <"$rundir/subtests"
		if [ -z "$seen" ]; then
			if [ -n "$why" ]; then st=fail; else st=ok; fi
			tap_result "$st" "$t/$suffix"
		fi
	done
	tap_diag "$id: $(($(date +%s) - t0)) s"
}
