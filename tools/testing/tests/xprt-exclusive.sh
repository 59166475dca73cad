# SPDX-License-Identifier: GPL-2.0
#
# xprtrdma and the in-tree rpcrdma claim the same transport name: with
# rpcrdma loaded, loading xprtrdma must fail cleanly with one message
# saying what to do; with rpcrdma gone it must load and unload.
TIMEOUT=300

exclusive() {
	install_ours || return 1
	# Our modprobe.conf points "rpcrdma" at xprtrdma; bypass it.
	modprobe -C /dev/null rpcrdma || return 1
	[ -d /sys/module/rpcrdma ] || { fail "in-tree rpcrdma did not load"; return 1; }
	modprobe nfsrdma_wire || return 1
	if insmod "$(modinfo -n xprtrdma)" 2>/dev/null; then
		fail "xprtrdma loaded next to rpcrdma"
		return 1
	fi
	dmesg | grep -q 'xprtrdma: .*modprobe -r rpcrdma' ||
		{ fail "no hint to unload rpcrdma in the kernel log"; return 1; }
	if modprobe xprtrdma 2>/dev/null; then
		fail "modprobe xprtrdma reported success next to rpcrdma"
		return 1
	fi
	rmmod rpcrdma || return 1
	modprobe xprtrdma || { fail "xprtrdma does not load once rpcrdma is gone"; return 1; }
	[ -d /sys/module/xprtrdma ] || { fail "xprtrdma is not loaded"; return 1; }
	modprobe -r xprtrdma nfsrdma_wire || return 1
}

test_single() {
	subtest exclusive exclusive
}
