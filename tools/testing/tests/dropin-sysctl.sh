# SPDX-License-Identifier: GPL-2.0
#
# Drop-in: every sysctl an admin may have set for the in-tree rpcrdma works
# with the transports under test.  A sysctl.conf-style file with each of
# the in-tree's settings at the low end, the high end and the default of
# the in-tree's range must load with 'sysctl -p' and read back as written;
# a value past either end must be refused as the in-tree refuses it.  The
# ranges are the in-tree's as measured black-box on Debian's 6.1 kernel
# (the same test with client=intree server=intree, in make check-full, is
# the reference).  Then the settings must take effect for a new
# connection: with the server at max_requests=16 and max_req_size=12288 and
# the client's inline sizes at 12288, our server grants 16 credits and our
# client sends 12 KiB inline (neither is a default of ours or the
# in-tree's, so only the settings can have made them); a slot table of 300 (beyond what our client
# uses) still mounts and moves data.
#
# In two VMs each side loads the settings its own module has (the client's
# sunrpc.rdma_*, the server's sunrpc.svc_rdma.*), so ours is checked
# against the in-tree peer: our client must see the in-tree server's
# max_requests=16 as a grant of 16 credits, and our server must grant the
# in-tree client 16 and hear its 12 KiB inline sizes in the RFC 8797 private
# data (our server's accept tracepoint).  A side with nothing of ours says
# so in its log; its TAP line then only proves the mount and the data.

TIMEOUT=600
CREDITS_EVENT=xprtrdma/xprtrdma_credits

# name low high default
SETTINGS="
sunrpc.rdma_slot_table_entries 4 16384 128
sunrpc.rdma_max_inline_read 1024 65536 4096
sunrpc.rdma_max_inline_write 1024 65536 4096
sunrpc.rdma_inline_write_padding 0 4096 0
sunrpc.rdma_memreg_strategy 0 6 5
sunrpc.svc_rdma.max_requests 4 16384 64
sunrpc.svc_rdma.max_req_size 4096 65536 4096
sunrpc.svc_rdma.max_outbound_read_requests 1 255 16
"

# role_settings ROLE: the SETTINGS lines of one role's module (client:
# sunrpc.rdma_*, server: sunrpc.svc_rdma.*), or all of them (both).
role_settings() {
	case $1 in
	client) echo "$SETTINGS" | grep '^sunrpc\.rdma_' ;;
	server) echo "$SETTINGS" | grep '^sunrpc\.svc_rdma\.' ;;
	*) echo "$SETTINGS" | grep . ;;
	esac
}

# settings_file COLUMN ROLE: that role's settings with the value from
# column COLUMN (2 low, 3 high, 4 default), as an admin's /etc/sysctl.d
# file.
settings_file() {
	role_settings "$2" | awk -v c="$1" -v r="$2" '{ print $1 " = " $c }
		END { if (r != "server") print "sunrpc.rdma_pad_optimize = 1" }'
}

# save_settings ROLE: the role's settings as they are now, name=value,
# for restore_settings.  The tests that share a boot with this one must
# run at the loaded module's own defaults (ours differ from the in-tree's
# for the inline sizes), not at whatever this test wrote last.
save_settings() {
	local name rest
	role_settings "$1" | while read -r name rest; do
		echo "$name=$(sysctl -n "$name")"
	done
}

# restore_settings SAVED: write back what save_settings found.
restore_settings() {
	# shellcheck disable=SC2086
	sysctl -q -w $1 || fail "cannot restore the settings found: $1"
}

# load_settings COLUMN [ROLE]
load_settings() {
	local col=$1 role=${2:-both} f=/tmp/rpcrdma-$1.conf name lo hi def want got rc=0
	settings_file "$col" "$role" >"$f"
	sysctl -q -p "$f" || fail "sysctl -p of the in-tree settings (column $col) failed" || return 1
	while read -r name lo hi def; do
		[ -n "$name" ] || continue
		case $col in 2) want=$lo ;; 3) want=$hi ;; *) want=$def ;; esac
		got=$(sysctl -n "$name") || { fail "$name is missing"; rc=1; continue; }
		[ "$got" = "$want" ] || { fail "$name reads $got after writing $want"; rc=1; }
	done < <(role_settings "$role")
	return $rc
}

# out_of_range [ROLE]
out_of_range() {
	local name lo hi def v got rc=0
	while read -r name lo hi def; do
		[ -n "$name" ] || continue
		for v in $((lo - 1)) $((hi + 1)); do
			if sysctl -q -w "$name=$v" 2>/dev/null; then
				fail "$name accepted $v, outside the in-tree's $lo-$hi"
				rc=1
			fi
			got=$(sysctl -n "$name")
			[ "$got" = "$def" ] || { fail "$name changed to $got on a refused write"; rc=1; }
		done
	done < <(role_settings "${1:-both}")
	return $rc
}

# range_cases ROLE: the settings file at the three columns, then refusals.
# In two VMs the TAP names carry the role.
range_cases() {
	local rc=0 sfx=
	[ "$1" = both ] || sfx=-$1
	subtest "sysctl-low$sfx" load_settings 2 "$1" || rc=1
	subtest "sysctl-high$sfx" load_settings 3 "$1" || rc=1
	subtest "sysctl-default$sfx" load_settings 4 "$1" || rc=1
	subtest "sysctl-out-of-range$sfx" out_of_range "$1" || rc=1
	return $rc
}

# The values takes_effect sets, per role.
SERVER_EFFECT="sunrpc.svc_rdma.max_requests=16 sunrpc.svc_rdma.max_req_size=12288"
CLIENT_EFFECT="sunrpc.rdma_max_inline_read=12288 sunrpc.rdma_max_inline_write=12288 sunrpc.rdma_slot_table_entries=300"
ACCEPT_EVENT=svcrdma/svcrdma_accept

# server_trace: our server records each connection it accepts (its own
# sizes and credits, and what the client's private data offered).
server_trace() {
	[ "$SERVER_TRANSPORT" = ours ] || return 0
	trace_event_on $ACCEPT_EVENT
}

# server_effect_check: our server grants max_requests=16, receives 12 KiB
# (max_req_size), and heard 12 KiB inline both ways from the client, ours
# or the in-tree, on every connection it accepted.
server_effect_check() {
	local credits accepts rc=0
	[ "$SERVER_TRANSPORT" = ours ] || { log "server: in-tree, nothing of ours to check"; return 0; }
	trace_event_off $ACCEPT_EVENT
	credits=$(cat /proc/sys/sunrpc/svcrdma/credits_in_use)
	log "server credits in use with one connection: $credits"
	[ "$credits" = 16 ] || { fail "max_requests=16 granted $credits credits"; rc=1; }
	accepts=$(grep 'svcrdma_accept:' $TRACEFS/trace)
	log "server accepted: $accepts"
	[ -n "$accepts" ] || { fail "no connection was accepted"; return 1; }
	if grep -v 'credits=16 recv_size=12288 .*peer_send=12288 peer_recv=12288 ' <<<"$accepts" | grep -q .; then
		fail "a connection did not take max_requests=16, max_req_size=12288 and the client's 12 KiB inline"
		rc=1
	fi
	return $rc
}

# client_mount_io: with the client's values set, mount and move 3 MB
# both ways (a slot table of 300 must still work).  Our client's credit
# tracepoint records the server's grant.  Returns 2 if nothing is mounted.
client_mount_io() {
	local rc=0
	dmesg -C
	if [ "$CLIENT_TRANSPORT" = ours ]; then
		trace_event_on $CREDITS_EVENT || return 2
	fi
	! mountpoint -q $TRACEFS || : >$TRACEFS/trace
	nfs_mount 3 || return 2
	head -c 3000000 /dev/urandom >/tmp/effect.bin
	cp /tmp/effect.bin "$MNT/effect.bin" || { fail "write failed"; rc=1; }
	echo 3 >/proc/sys/vm/drop_caches
	cmp -s /tmp/effect.bin "$MNT/effect.bin" || { fail "data came back wrong"; rc=1; }
	return $rc
}

# client_effect: our client sent and received 12 KiB inline and followed
# the server's grant of 16 credits (either server's max_requests=16).
client_effect() {
	local f grants rc=0
	[ "$CLIENT_TRANSPORT" = ours ] || { log "client: in-tree, nothing of ours to check"; return 0; }
	trace_event_off $CREDITS_EVENT
	f=$(dmesg | grep 'xprtrdma: connected to')
	log "client: $f"
	[[ $f == *"inline send 12288, recv 12288"* ]] ||
		{ fail "inline sizes of 12288 did not take effect: $f"; rc=1; }
	grants=$(grep -o 'granted=[0-9]*' $TRACEFS/trace | sort -u | tr '\n' ' ')
	log "client: credit grants seen: $grants"
	[ "$grants" = "granted=16 " ] ||
		{ fail "the server's max_requests=16 reached the client as: ${grants:-no grant}"; rc=1; }
	return $rc
}

client_unmount() {
	rm -f "$MNT/effect.bin"
	nfs_umount
}

# The settings reach new connections (one VM: both roles' values first).
takes_effect() {
	local rc=0 io
	# shellcheck disable=SC2086
	sysctl -q -w $SERVER_EFFECT $CLIENT_EFFECT || fail "cannot set the test values" || return 1
	server_trace || return 1
	client_mount_io
	io=$?
	[ $io = 2 ] && return 1
	[ $io = 0 ] || rc=1
	server_effect_check || rc=1
	client_effect || rc=1
	client_unmount || rc=1
	return $rc
}

sysctl_cases() {
	local rc=0 saved
	nfs_client_prepare || return 1
	saved=$(save_settings both)
	range_cases both || rc=1
	subtest sysctl-takes-effect takes_effect || rc=1
	restore_settings "$saved" || rc=1
	return $rc
}

test_single() {
	local_nfs sysctl_cases
}

# Two VMs: the server's values are set before it serves, so the client's
# connection is the new one they must reach; the server counts its
# credits while the client holds the mount.  Every client exit signals
# client-mounted (mounted or not), so the server never waits out its
# timeout for a client that gave up.
server_effect() {
	local rc=0
	await client-mounted 600 || rc=1
	if signalled mount-failed; then
		log "server: the client could not mount; nothing to count"
		rc=1
	elif [ $rc = 0 ]; then
		server_effect_check || rc=1
	fi
	signal server-counted
	return $rc
}

test_server() {
	local rc=0 saved
	load_transport server || { signal abort; return 1; }
	saved=$(save_settings server)
	range_cases server || rc=1
	# shellcheck disable=SC2086
	sysctl -q -w $SERVER_EFFECT || { fail "cannot set the test values"; signal abort; return 1; }
	server_trace || { signal abort; return 1; }
	! mountpoint -q $TRACEFS || : >$TRACEFS/trace
	nfs_serve_prepared || { signal abort; return 1; }
	signal server-ready
	subtest sysctl-takes-effect-server server_effect || rc=1
	await client-done 600 || rc=1
	nfs_server_stop || rc=1
	restore_settings "$saved" || rc=1
	return $rc
}

# client_gave_up: tell the server there is no mount to count.
client_gave_up() {
	signal mount-failed
	signal client-mounted
	return 1
}

client_takes_effect() {
	local rc=0 io
	# shellcheck disable=SC2086
	sysctl -q -w $CLIENT_EFFECT || { fail "cannot set the test values"; client_gave_up; return 1; }
	await server-ready 300 || { client_gave_up; return 1; }
	client_mount_io
	io=$?
	[ $io = 2 ] && { client_gave_up; return 1; }
	[ $io = 0 ] || rc=1
	signal client-mounted
	await server-counted 600 || rc=1
	client_effect || rc=1
	client_unmount || rc=1
	return $rc
}

test_client() {
	local rc=0 saved
	nfs_client_prepare || { client_gave_up; signal client-done; return 1; }
	saved=$(save_settings client)
	range_cases client || rc=1
	subtest sysctl-takes-effect-client client_takes_effect || rc=1
	signal client-done
	restore_settings "$saved" || rc=1
	return $rc
}
