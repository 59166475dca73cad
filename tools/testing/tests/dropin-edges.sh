# SPDX-License-Identifier: GPL-2.0
#
# Drop-in: the server edges of issue 14 item 6 that Debian's 6.1 can
# reach (the fourth, a listener that follows its address, is
# dropin-relisten, 6.10+).
#
# - A Long Call whose data is a Read chunk of its own beside the
#   Position-zero chunk (RFC 8166 section 3.5.3): the hostile requester's
#   nomsg-data-chunk, an NFSv4.0 WRITE of 5001 bytes, must be served, and
#   the file read back through an honest mount must hold those bytes.
# - Send With Invalidate only when one key covers every chunk of the
#   call: the requester's swi-two-keys welcomes it in its private data,
#   then offers a Write chunk and a Reply chunk under two keys; the reply
#   must be a plain Send.  Where one key covers them all, the server
#   should use it: with our server, its svcrdma_reply trace must show
#   Send With Invalidate for the honest mount (which welcomes it), and
#   never for a connection that did not.
# - rdma_rw contexts sized with the device's MR factor: the server
#   grants 8 credits (sunrpc.svc_rdma.max_requests, as an admin may set
#   it), as many as it runs nfsd threads, and the client keeps 32 1 MiB
#   direct reads and writes in flight, verified, so every credit is in
#   use by a full-size transfer.  Our server must close nothing (no
#   completion error, no bad-input or stall close) and, with our client,
#   the connection must survive: the in-tree client on Debian's 6.1
#   reconnects under this load on soft-RoCE by itself (its REG_MR of an
#   MR that rxe still holds valid fails, "rxe_reg_fast_mr: ... not
#   free" in its log, measured 2026-11-27), so with it a reconnect is
#   logged, not failed, and the in-tree client mounts with
#   incumbent_load_opts (guest/lib.sh) so that its defect's stall stays
#   under the hung-task limit.  On soft-iWARP every RDMA Read the server
#   issues takes MRs from the pool it sized per credit times the MR
#   factor (fabric=siw); on soft-RoCE none does, and the load is only a
#   load.

# shellcheck source=tools/testing/tests/svcrdma-stats.inc
. "$(dirname "${BASH_SOURCE[0]}")/svcrdma-stats.inc"
# shellcheck source=tools/testing/tests/hostile.inc
. "$(dirname "${BASH_SOURCE[0]}")/hostile.inc"

TIMEOUT=900
EDGE_CREDITS=8
MAX_REQUESTS=/proc/sys/sunrpc/svc_rdma/max_requests
EDGE_COUNTERS="wc_errors bad_input_closes stall_closes lost_completions"

# swi_where_welcome: per connection (peer address and port), what its
# accept said of Send With Invalidate and how many replies used it.  At
# least one connection that welcomed it must have had some (the honest
# mount's reads), and none that did not may have had any.
swi_where_welcome() {
	local rc=0
	trace_event_off svcrdma
	cat "$TRACEFS/trace" >/results/svcrdma-trace.txt
	awk '
	/svcrdma_accept:/ {
		peer = ""; swi = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^peer=/) peer = substr($i, 6)
			if ($i ~ /^send_with_inv=/) swi = substr($i, 15)
		}
		welcome[peer] = swi
	}
	/svcrdma_reply:/ {
		peer = ""; swi = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^peer=/) peer = substr($i, 6)
			if ($i ~ /^send_with_inv=/) swi = substr($i, 15)
		}
		replies[peer]++
		if (swi == "yes") used[peer]++
	}
	END {
		for (p in replies)
			printf "%s welcome=%s replies=%d send_with_inv=%d\n",
				p, (p in welcome) ? welcome[p] : "?", replies[p], used[p] + 0
	}' /results/svcrdma-trace.txt >/results/swi-by-connection.txt
	cat /results/swi-by-connection.txt
	grep -q 'welcome=yes .* send_with_inv=[1-9]' /results/swi-by-connection.txt ||
		{ fail "no reply used Send With Invalidate, though a client welcomed it"; rc=1; }
	if grep 'welcome=no .* send_with_inv=[1-9]' /results/swi-by-connection.txt; then
		fail "Send With Invalidate to a client that did not welcome it"
		rc=1
	fi
	return $rc
}

# counters_unchanged FILE: the counters of EDGE_COUNTERS as saved in FILE,
# and with our client connections_accepted too.
counters_unchanged() {
	local n was now rc=0 names=$EDGE_COUNTERS
	if [ "$CLIENT_TRANSPORT" = ours ]; then
		names+=" connections_accepted"
	else
		log "connections_accepted: $(svc_saved "$1" connections_accepted) -> $(svc_stat connections_accepted) (the in-tree client may reconnect)"
	fi
	for n in $names; do
		was=$(svc_saved "$1" "$n")
		now=$(svc_stat "$n")
		log "$n: $was -> $now"
		[ "$was" = "$now" ] || { fail "$n changed under the load: $was -> $now"; rc=1; }
	done
	return $rc
}

test_server() {
	local rc=0 credits
	nfs_server_start || { signal abort; return 1; }
	if svc_stats_on; then
		svcrdma_trace_on svcrdma/svcrdma_accept svcrdma/svcrdma_reply || { fail "cannot trace svcrdma"; rc=1; }
	fi
	# Before the client connects: the sysctl applies to new connections.
	if ! credits=$(cat "$MAX_REQUESTS") ||
		! echo "$EDGE_CREDITS" >"$MAX_REQUESTS"; then
		fail "cannot set max_requests to $EDGE_CREDITS"
		signal abort
		return 1
	fi
	signal server-ready
	if await load-start 600; then
		svc_stats_on && svc_stats_save /tmp/edges.before
		signal load-go
		if await load-done 900; then
			if svc_stats_on; then
				subtest dropin-edges-connection-survived \
					counters_unchanged /tmp/edges.before || rc=1
				subtest dropin-edges-swi-where-welcome swi_where_welcome || rc=1
			fi
		else
			rc=1
		fi
	else
		rc=1
	fi
	signal server-checked
	await client-done 300 || rc=1
	echo "$credits" >"$MAX_REQUESTS" || rc=1
	nfs_server_stop || rc=1
	return $rc
}

# The two crafted calls, on connections of their own, beside the mount.
crafted_calls() {
	local rc=0
	: >"$MNT/p0-target" && chmod 666 "$MNT/p0-target" || return 1
	"$HOSTILE" -w "$HOSTILE_WAIT_MS" "$SERVER_ADDR" nomsg-data-chunk swi-two-keys \
		>/results/hostile.txt 2>&1 || rc=1
	cat /results/hostile.txt
	[ $rc = 0 ] || fail "a crafted call was not served as it must be"
	p0_target_written || rc=1
	rm -f "$MNT/p0-target"
	return $rc
}

# 1 MiB direct I/O, 16 in flight per job: four times the server's
# credits, each call moving a full-size rdma_rw context's worth.
big_io_load() {
	local rc=0
	fio --name=edges --directory="$MNT" --rw=randrw --bs=1m \
		--size=32m --ioengine=libaio --iodepth=16 --direct=1 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --time_based \
		--runtime=20 --numjobs=2 --output=/tmp/fio.out || rc=1
	grep -E 'READ:|WRITE:|err=' /tmp/fio.out
	grep -q 'err= 0' /tmp/fio.out || rc=1
	rm -f "$MNT"/edges.*
	return $rc
}

test_client() {
	local rc=0
	await server-ready 300 || return 1
	if ! nfs_client_prepare || ! nfs_mount 4.1 "$(incumbent_load_opts)"; then
		signal abort
		return 1
	fi
	subtest dropin-edges-crafted crafted_calls || rc=1
	signal load-start
	if await load-go 300; then
		subtest dropin-edges-rw-load big_io_load || rc=1
	else
		rc=1
	fi
	signal load-done
	await server-checked 600 || rc=1
	nfs_umount || rc=1
	signal client-done
	return $rc
}
