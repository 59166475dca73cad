# SPDX-License-Identifier: GPL-2.0
#
# The Debian package as an admin uses it, in one VM that is both server
# and client: 'apt-get install ./nfsrdma-dkms_*.deb' (make deb's, from the
# checkout's build directory), DKMS building the modules in the guest for
# the running kernel, whose headers it has, then the admin recipe unchanged: an
# RDMA listener through nfsd's portlist and a plain 'mount -o rdma' must
# load ours (from DKMS's tree), never the in-tree rpcrdma, and carry
# verified data.  'apt-get remove' must then take our modules away and the
# same recipe must load the in-tree rpcrdma, with no step in between.
# DEB_ALL_KERNELS=1 (tests-kernels.conf): DKMS builds for every Debian
# kernel installed on the host root (6.1, 6.12 and PREEMPT_RT after make
# setup-kernels), as on an admin's machine with all three, and each must
# be listed as installed and have the modules; remove takes all away.
DEB_ALL_KERNELS=${DEB_ALL_KERNELS:-0}
TIMEOUT=$((DEB_ALL_KERNELS == 1 ? 3600 : 1800))

# deb_modules_are WHICH: the modules carrying the listener and the mount.
deb_modules_are() {
	case "$1" in
	ours)
		[ -d /sys/module/svcrdma ] && [ -d /sys/module/xprtrdma ] ||
			fail "ours not loaded: $(lsmod | grep -E 'rdma' | tr '\n' ';')" || return 1
		[ -d /sys/module/rpcrdma ] && { fail "the in-tree rpcrdma was loaded"; return 1; }
		modinfo -n xprtrdma | grep -q /updates/dkms/ ||
			fail "xprtrdma resolves to $(modinfo -n xprtrdma), not DKMS's tree" || return 1
		;;
	intree)
		[ -d /sys/module/rpcrdma ] || fail "the in-tree rpcrdma was not loaded" || return 1
		[ -d /sys/module/xprtrdma ] && { fail "xprtrdma is still loaded"; return 1; }
		;;
	esac
	log "$1: $(lsmod | grep -E '^(xprtrdma|svcrdma|rpcrdma|nfsrdma_wire) ' | cut -d' ' -f1 | tr '\n' ' ')"
}

# deb_recipe WHICH: serve over RDMA, mount, write, read back, unmount,
# stop, and unload whatever the recipe loaded.
deb_recipe() {
	local rc=0 m
	AUTOLOAD=1 SERVER_TRANSPORT=none nfs_server_start || return 1
	mkdir -p "$MNT"
	if mount -t nfs -o rdma,port="$NFS_PORT",vers=4.2 "$SERVER_ADDR:/" "$MNT"; then
		head -c 1048576 /dev/urandom >/tmp/deb.data
		cp /tmp/deb.data "$MNT/deb.data" && sync &&
			echo 3 >/proc/sys/vm/drop_caches &&
			cmp /tmp/deb.data "$MNT/deb.data" || fail "data did not verify" || rc=1
		deb_modules_are "$1" || rc=1
		rm -f "$MNT/deb.data"
		umount "$MNT" || rc=1
	else
		fail "the RDMA mount failed"
		rc=1
	fi
	nfs_server_stop || rc=1
	sleep 1
	for m in xprtrdma svcrdma rpcrdma nfsrdma_wire; do
		[ -d "/sys/module/$m" ] && { modprobe -r "$m" || rc=1; }
	done
	return $rc
}

deb_install() {
	local deb k m
	# What this guest starts from must not already point at ours.
	[ ! -e /etc/modprobe.d/nfsrdma.conf ] && [ ! -e "/lib/modules/$KVER/updates/nfsrdma" ] ||
		fail "nfsrdma is already installed on the host root" || return 1
	# The newest: make deb in this checkout (make-check.sh's packaging stage).
	# shellcheck disable=SC2012
	deb=$(ls -t "$REPO"/build/deb/nfsrdma-dkms_*_all.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || fail "no package in build/deb (make deb)" || return 1
	# An admin's machine has headers for the kernels it runs; the host root
	# also carries the harness's debug kernel, and DKMS builds for every
	# kernel with a build tree (twice the 5 minutes the build takes under
	# TCG).  This guest's overlay hides the other kernels' trees.
	# With DEB_ALL_KERNELS=1 only the debug kernel's tree is hidden.
	DEB_KERNELS=()
	for k in /lib/modules/*; do
		if [ "${k##*/}" = "$KVER" ] ||
			{ [ "$DEB_ALL_KERNELS" = 1 ] && [ -e "$k/build/Makefile" ] &&
				[[ ${k##*/} != *nfsrdma-debug* ]]; }; then
			DEB_KERNELS+=("${k##*/}")
		else
			rm -f "$k/build" "$k/source"
		fi
	done
	log "installing $deb, DKMS building for: ${DEB_KERNELS[*]}"
	apt-get install -y "$deb" >/tmp/deb.log 2>&1 ||
		fail "apt-get install failed: $(tail -n 5 /tmp/deb.log | tr '\n' ' ')" || return 1
	log "dkms: $(dkms status -m nfsrdma | tr '\n' ';')"
	for k in "${DEB_KERNELS[@]}"; do
		dkms status -m nfsrdma -k "$k" | grep -q "installed" ||
			fail "DKMS does not list nfsrdma as installed for $k: $(dkms status)" || return 1
		for m in nfsrdma_wire xprtrdma svcrdma; do
			compgen -G "/lib/modules/$k/updates/dkms/$m.ko*" >/dev/null ||
				fail "no $m module for $k in DKMS's tree" || return 1
		done
	done
	[ "$DEB_ALL_KERNELS" = 1 ] && [ "${#DEB_KERNELS[@]}" -lt 3 ] &&
		{ fail "DEB_ALL_KERNELS=1 but only ${DEB_KERNELS[*]} installed (make setup-kernels)"; return 1; }
	return 0
}

deb_remove() {
	local k
	apt-get remove -y nfsrdma-dkms >/tmp/deb.log 2>&1 ||
		fail "apt-get remove failed: $(tail -n 5 /tmp/deb.log | tr '\n' ' ')" || return 1
	[ -z "$(dkms status -m nfsrdma)" ] || fail "DKMS still lists nfsrdma" || return 1
	for k in "${DEB_KERNELS[@]}"; do
		! compgen -G "/lib/modules/$k/updates/dkms/*rdma*.ko*" >/dev/null ||
			fail "our modules are still in $k's DKMS tree" || return 1
	done
	# modinfo follows the in-tree module's alias: only the name tells.
	[ "$(modinfo -F name xprtrdma 2>/dev/null)" != xprtrdma ] ||
		fail "xprtrdma is still installed: $(modinfo -n xprtrdma)" || return 1
	# The conffile stays, and must now send the kernel to the in-tree.
	[ -e /etc/modprobe.d/nfsrdma.conf ] ||
		fail "apt-get remove took the modprobe.d conffile away"
}

test_single() {
	local rc=0
	# The recipe loads what it needs on demand: nothing loaded by hand.
	SERVER_TRANSPORT=none CLIENT_TRANSPORT=none
	subtest deb-install-package deb_install || return 1
	subtest deb-install-recipe-uses-ours deb_recipe ours || rc=1
	subtest deb-install-remove deb_remove || return 1
	subtest deb-install-recipe-uses-intree deb_recipe intree || rc=1
	return $rc
}
