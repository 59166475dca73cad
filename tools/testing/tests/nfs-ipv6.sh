# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA on IPv6 (netid rdma6): the server listens on an IPv6
# address next to its IPv4 one, the client mounts by a bracketed IPv6
# address, /proc/mounts says proto=rdma6, and data written over it reads
# back the same after the caches are dropped.  Addresses come from the
# documentation prefix; the link joins only the two VMs.
TIMEOUT=900

V6_PREFIX=2001:db8:4791
# The same prefix as the GID table prints it: every group in four digits.
V6_GID_PREFIX=2001:0db8:4791:
NFS_HOST="[$V6_PREFIX::1]"

# add_v6 SUFFIX: an IPv6 address on the RDMA link, usable at once (no DAD)
# and present in the rxe GID table before anyone connects.
add_v6() {
	local i
	ip -6 addr add "$V6_PREFIX::$1/64" dev eth0 nodad || return 1
	for ((i = 0; i < 50; i++)); do
		cat /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null |
			grep -qi "^$V6_GID_PREFIX" && return 0
		sleep 0.2
	done
	fail "no rxe GID for $V6_PREFIX::$1"
}

server_prepare() {
	add_v6 1
}

run_versions() {
	local v rc=0
	add_v6 2 || return 1
	nfs_client_prepare || return 1
	for v in 3 4.1; do
		subtest "nfs$v-ipv6" file_suite "$v" || rc=1
	done
	return $rc
}

test_server() {
	serve_nfs 800
}

test_client() {
	as_client run_versions
}
