# SPDX-License-Identifier: GPL-2.0
#
# svcrdma and the in-tree rpcrdma both register svc_xprt class "rdma":
# with rpcrdma loaded, loading svcrdma must fail cleanly with one message
# saying what to do; with rpcrdma gone it must load and unload.
TIMEOUT=300

exclusive() {
	install_ours || return 1
	# Our modprobe.conf points "rpcrdma" at xprtrdma; bypass it.
	modprobe -C /dev/null rpcrdma || return 1
	[ -d /sys/module/rpcrdma ] || { fail "in-tree rpcrdma did not load"; return 1; }
	modprobe nfsrdma_wire || return 1
	# modprobe, as an admin would: it must report the failure, which it
	# does not for EEXIST ("already loaded").
	if modprobe svcrdma 2>/dev/null; then
		fail "modprobe svcrdma succeeded next to rpcrdma"
		return 1
	fi
	[ -d /sys/module/svcrdma ] && { fail "svcrdma loaded next to rpcrdma"; return 1; }
	[ "$(dmesg | grep -c 'svcrdma: .*modprobe -r rpcrdma')" = 1 ] ||
		{ fail "not exactly one hint to unload rpcrdma in the kernel log"; return 1; }
	rmmod rpcrdma || return 1
	modprobe svcrdma || { fail "svcrdma does not load once rpcrdma is gone"; return 1; }
	[ -d /sys/module/svcrdma ] || { fail "svcrdma is not loaded"; return 1; }
	modprobe -r svcrdma nfsrdma_wire || return 1
}

test_single() {
	subtest exclusive exclusive
}
