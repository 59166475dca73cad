# SPDX-License-Identifier: GPL-2.0
#
# Our modules install the way 'make install' puts them, load by name with
# modprobe (the codec module coming in as a dependency), and unload with no
# reference left behind.
TIMEOUT=300

loaded() {
	[ -d "/sys/module/$1" ]
}

load_unload() {
	local m deps
	install_ours || return 1
	modprobe xprtrdma || return 1
	modprobe svcrdma || return 1
	deps=$(modinfo -F depends xprtrdma svcrdma | tr ',' ' ')
	for m in xprtrdma svcrdma $deps; do
		loaded "$m" || fail "$m is not loaded" || return 1
	done
	for m in xprtrdma svcrdma; do
		modinfo -n "$m" | grep -q "/updates/nfsrdma/" ||
			fail "modprobe $m resolves to $(modinfo -n "$m")" || return 1
	done
	if loaded rpcrdma; then
		fail "modprobe pulled in the in-tree rpcrdma"
		return 1
	fi
	modprobe -r xprtrdma svcrdma || return 1
	# Shared dependencies (ib_core, sunrpc) may stay: rxe and nfs use them.
	for m in xprtrdma svcrdma nfsrdma_wire; do
		if loaded "$m"; then
			fail "$m is still loaded after modprobe -r"
			return 1
		fi
	done
	return 0
}

test_single() {
	subtest load-unload load_unload
}
