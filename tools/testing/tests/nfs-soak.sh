# SPDX-License-Identifier: GPL-2.0
#
# Soak: 4 KiB random writes and reads at a high queue depth, every block
# verified; for the first passes the client's link drops one frame in a
# thousand, so that rxe's RC retries run all the time.  At the default
# 4 KiB inline size each 4 KiB write needs a Read chunk and each 4 KiB
# read a Write chunk, so every call registers an MR while
# earlier Sends may still be unacknowledged: the load under which rxe
# re-executed a REG_MR behind a retried Send and stalled the mount.
#
# Fails on a fio error or a verify mismatch, on any line the client's
# transport or rxe logs about a failed work request, a REG_MR of a valid
# MR or a QP leaving RTS, on a reconnect, on any call the transport could
# not carry, and if the rxe counters show that no retry happened (the
# test would then prove nothing).  Our client on rxe registers a call's
# chunks unfenced in front of its Send when no Send is outstanding, and
# on its registration QP otherwise (xprtrdma/frwr.c): where the lossy
# passes carry chunks, both ways must have run under the retries
# (tracepoint xprtrdma_regq_chain against the chunk segments counted in
# mountstats).

TIMEOUT=1200
SOAK_LOSSY_LOOPS=${SOAK_LOSSY_LOOPS:-2}
# Clean passes after the lossy ones: make check runs one, make check-full
# six (SOAK_LOOPS=6), the load that first stalled the mount.
SOAK_LOOPS=${SOAK_LOOPS:-1}
SOAK_MB=16
SOAK_JOBS=2
SOAK_QD=32
SOAK_LOSS=0.1%

# Lines that mean a work request or the QP failed under us.  A clean soak
# has none: it never disconnects.
SOAK_BAD='rdma_rxe: .*(not free|doesn.t match|No MR)|xprtrdma: .*(failed|left RTS|has not completed)|rxe_.*: qp#[0-9]+ .*err'

# rxe_counter NAME: one of rxe0's port counters.
rxe_counter() {
	cat "/sys/class/infiniband/rxe0/ports/1/hw_counters/$1"
}

rxe_retry_counters() {
	local d=/sys/class/infiniband/rxe0/ports/1/hw_counters c out=
	for c in completer_retry_err retry_exceeded_err rcvd_rnr_err \
		rcvd_seq_err send_rnr_err duplicate_request out_of_seq_request; do
		[ -r "$d/$c" ] && out+="$c=$(cat "$d/$c") "
	done
	echo "$out"
}

# soak_fio NAME LOOPS: each loop writes every block of each job's file in
# random order and then reads all of them back, checking a crc32c and a
# header that names the block's offset.
soak_fio() {
	if ! fio --name="soak-$1" --directory="$MNT" --size="${SOAK_MB}M" \
		--numjobs="$SOAK_JOBS" --rw=randwrite --bs=4k \
		--iodepth="$SOAK_QD" --ioengine=libaio --direct=1 \
		--fallocate=none --loops="$2" --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --group_reporting \
		--output="/results/fio-soak-$1.txt"; then
		tail -n 30 "/results/fio-soak-$1.txt"
		fail "fio ($1) reported an I/O or verify error"
		return 1
	fi
	grep -E 'IOPS|err=' "/results/fio-soak-$1.txt" | head -n 4
}

# soak_chunk_segs: Read and Write chunk segments our client has sent.
soak_chunk_segs() {
	echo $(($(xprt_field 11) + $(xprt_field 12)))
}

soak() {
	local dmesg0 bad connects0 connects1 failed bad_replies retries0 retries
	local q=xprtrdma/xprtrdma_regq_chain segs0 segs regq rc=0
	dmesg0=$(dmesg | wc -l)
	nfs_mount 4.2 || return 1
	connects0=$(xprt_field 3)
	segs0=$(soak_chunk_segs)
	if [ "$FABRIC" = rxe ]; then
		trace_event_on $q || { nfs_umount; return 1; }
		echo 8192 >"$TRACEFS/buffer_size_kb"
		: >"$TRACEFS/trace"
	fi
	log "rxe before: $(rxe_retry_counters)"
	retries0=$(($(rxe_counter rcvd_seq_err) + $(rxe_counter completer_retry_err)))
	tc qdisc add dev eth0 root netem loss "$SOAK_LOSS" ||
		fail "cannot make the link lossy" || { nfs_umount; return 1; }
	soak_fio lossy "$SOAK_LOSSY_LOOPS" || { tc qdisc del dev eth0 root; nfs_umount; return 1; }
	tc qdisc del dev eth0 root
	retries=$(($(rxe_counter rcvd_seq_err) + $(rxe_counter completer_retry_err) - retries0))
	log "rxe after the lossy passes: $(rxe_retry_counters)"
	if [ "$FABRIC" = rxe ]; then
		trace_event_off $q
		segs=$(($(soak_chunk_segs) - segs0))
		regq=$(grep -c 'xprtrdma_regq_chain:' "$TRACEFS/trace")
		log "lossy passes: $segs chunk segments, $regq calls registered on the registration QP"
		if [ "$segs" -gt 0 ]; then
			[ "$regq" -gt 0 ] ||
				fail "no call behind outstanding Sends went to the registration QP" ||
				rc=1
			[ "$segs" -gt "$regq" ] ||
				fail "every chunked call went to the registration QP: the unfenced chain did not run" ||
				rc=1
		fi
	fi
	soak_fio clean "$SOAK_LOOPS" || { nfs_umount; return 1; }
	log "rxe after: $(rxe_retry_counters)"
	connects1=$(xprt_field 3)
	failed=$(xprt_field 19)
	bad_replies=$(xprt_field 20)
	log "connect_count $connects0 -> $connects1, failed_marshal $failed, bad_reply $bad_replies"
	rm -f "$MNT"/soak-*
	nfs_umount || return 1
	bad=$(dmesg | tail -n "+$((dmesg0 + 1))" | grep -E "$SOAK_BAD")
	[ -z "$bad" ] || fail "the transport failed under load: $bad" || return 1
	[ "$connects1" = "$connects0" ] ||
		fail "the connection was re-established during the soak" || return 1
	[ "$failed" = 0 ] || fail "$failed calls could not be marshaled" || return 1
	[ "$bad_replies" = 0 ] || fail "$bad_replies replies were rejected" || return 1
	log "rxe retried $retries times during the lossy passes"
	[ "$retries" -gt 0 ] ||
		fail "no RC retry happened: the soak did not test what it is for" ||
		return 1
	return $rc
}

test_single() {
	fail "nfs-soak needs the 2vm topology"
}

test_server() {
	serve_nfs 1100
}

test_client() {
	nfs_client_prepare || { signal client-done; return 1; }
	as_client subtest soak-4k-random-verify soak
}
