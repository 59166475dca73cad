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
# connection: with the server at max_requests=16 and max_req_size=8192 and
# the client's inline sizes at 8192, our server grants 16 credits and our
# client sends 8 KiB inline; a slot table of 300 (beyond what our client
# uses) still mounts and moves data.

TIMEOUT=600

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

# settings_file COLUMN: the settings with the value from column COLUMN
# (2 low, 3 high, 4 default), as an admin's /etc/sysctl.d file.
settings_file() {
	echo "$SETTINGS" | awk -v c="$1" 'NF { print $1 " = " $c }
		END { print "sunrpc.rdma_pad_optimize = 1" }'
}

load_settings() {
	local col=$1 f=/tmp/rpcrdma-$1.conf name lo hi def want got rc=0
	settings_file "$col" >"$f"
	sysctl -q -p "$f" || fail "sysctl -p of the in-tree settings (column $col) failed" || return 1
	while read -r name lo hi def; do
		[ -n "$name" ] || continue
		case $col in 2) want=$lo ;; 3) want=$hi ;; *) want=$def ;; esac
		got=$(sysctl -n "$name") || { fail "$name is missing"; rc=1; continue; }
		[ "$got" = "$want" ] || { fail "$name reads $got after writing $want"; rc=1; }
	done <<<"$SETTINGS"
	return $rc
}

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
	done <<<"$SETTINGS"
	return $rc
}

# The settings reach new connections.
takes_effect() {
	local f rc=0 credits
	sysctl -q -w sunrpc.svc_rdma.max_requests=16 sunrpc.svc_rdma.max_req_size=8192 \
		sunrpc.rdma_max_inline_read=8192 sunrpc.rdma_max_inline_write=8192 \
		sunrpc.rdma_slot_table_entries=300 || fail "cannot set the test values" || return 1
	dmesg -C
	nfs_mount 3 || return 1
	head -c 3000000 /dev/urandom >/tmp/effect.bin
	cp /tmp/effect.bin "$MNT/effect.bin" || { fail "write failed"; rc=1; }
	echo 3 >/proc/sys/vm/drop_caches
	cmp -s /tmp/effect.bin "$MNT/effect.bin" || { fail "data came back wrong"; rc=1; }
	if [ "$SERVER_TRANSPORT" = ours ]; then
		credits=$(cat /proc/sys/sunrpc/svcrdma/credits_in_use)
		log "server credits in use with one connection: $credits"
		[ "$credits" = 16 ] || { fail "max_requests=16 granted $credits credits"; rc=1; }
	fi
	if [ "$CLIENT_TRANSPORT" = ours ]; then
		f=$(dmesg | grep 'xprtrdma: connected to')
		log "client: $f"
		[[ $f == *"inline send 8192, recv 8192"* ]] ||
			{ fail "inline sizes of 8192 did not take effect: $f"; rc=1; }
	fi
	rm -f "$MNT/effect.bin"
	nfs_umount || rc=1
	return $rc
}

sysctl_cases() {
	local rc=0
	nfs_client_prepare || return 1
	subtest sysctl-low load_settings 2 || rc=1
	subtest sysctl-high load_settings 3 || rc=1
	subtest sysctl-default load_settings 4 || rc=1
	subtest sysctl-out-of-range out_of_range || rc=1
	subtest sysctl-takes-effect takes_effect || rc=1
	load_settings 4 >/dev/null || rc=1
	return $rc
}

test_single() {
	local_nfs sysctl_cases
}

test_server() {
	fail "dropin-sysctl runs in the 1vm topology"
}

test_client() {
	fail "dropin-sysctl runs in the 1vm topology"
}
