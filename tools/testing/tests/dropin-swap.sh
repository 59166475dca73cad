# SPDX-License-Identifier: GPL-2.0
#
# Drop-in: swap over NFS on an RDMA mount.  swapon of a swap file on the
# mount activates the transport's swap hooks (a missing hook is a NULL
# call); then a process in a memory cgroup fills more than its limit, with
# a pattern that names each page, so the kernel must page out to the NFS
# swap file, and reads it all back, so the pages come back in; every page
# is checked.  swapoff must bring whatever is still out back in.  The
# vmstat counters prove paging happened through the file.

TIMEOUT=720
# make check pages about 80 MiB through the file; make check-full sets
# SWAP_MB=256 HOG_LIMIT_MB=64 HOG_MB=192, the run that first proved swap.
SWAP_MB=${SWAP_MB:-128}
# The hog's memory limit and size: what does not fit goes to swap.
HOG_LIMIT_MB=${HOG_LIMIT_MB:-48}
HOG_MB=${HOG_MB:-128}

# hog MiB: fill MiB of anonymous memory, one 8-byte tag per 4 KiB page,
# then read every tag back.  The interpreter first locks what it has
# mapped, so that only the tagged data pages (see in_memcg).
hog() {
	python3 - "$1" <<-'EOF'
		import ctypes, mmap, sys
		libc = ctypes.CDLL(None, use_errno=True)
		if libc.mlockall(1) != 0:  # MCL_CURRENT: what is mapped now
		    print(f"hog: mlockall: errno {ctypes.get_errno()}")
		    sys.exit(2)
		size = int(sys.argv[1]) << 20
		m = mmap.mmap(-1, size)
		for off in range(0, size, 4096):
		    m[off:off + 8] = off.to_bytes(8, "little")
		bad = sum(1 for off in range(0, size, 4096)
		          if int.from_bytes(m[off:off + 8], "little") != off)
		print(f"hog: {size >> 20} MiB, {size // 4096} pages, {bad} bad")
		sys.exit(1 if bad else 0)
	EOF
}

# in_memcg LIMIT_MB CMD...: run CMD in a memory cgroup whose memory.high
# is LIMIT_MB.
#
# memory.high, not memory.max.  Over high, the task reclaims on its way
# back to user space, with GFP_KERNEL, so it pages out to the swap file at
# whatever pace the transport sustains.  At max, a charge must free memory
# at once: with its pages still under writeback to NFS the cgroup is
# OOM-killed; and a charge made under NOFS (the readahead of a fault on
# python's own code) may not write to a swap file on a filesystem at all
# (may_enter_fs() refuses SWP_FS_OPS swap), so reclaim only drops clean
# code pages that the next instruction fetch reads back: a livelock with
# the transport idle and no RPC outstanding, whatever the transport (it
# hung a make check run).
in_memcg() {
	local cg=/sys/fs/cgroup limit=$1
	shift
	mountpoint -q $cg || mount -t cgroup2 none $cg || return 1
	grep -qw memory $cg/cgroup.subtree_control ||
		echo +memory >$cg/cgroup.subtree_control || return 1
	mkdir -p $cg/hog || return 1
	echo "${limit}M" >$cg/hog/memory.high || return 1
	(echo "$BASHPID" >$cg/hog/cgroup.procs && "$@")
}

# swap_watch: while the hog runs, log the paging every 30 s, so a run that
# stops making progress shows where; after 7 minutes (times TIME_SCALE: on
# the debug kernel the same paging takes about 9 minutes) have every CPU
# and every blocked task print its stack to the console (which fails the
# run).
swap_watch() {
	local t psi scale=${TIME_SCALE:-1}
	for ((t = 30; t <= 900 * scale; t += 30)); do
		sleep 30
		psi=$(sed -n 's/^full avg10=\([^ ]*\).*/\1/p' /proc/pressure/memory 2>/dev/null)
		log "after ${t} s: pswpout $(vmstat_of pswpout) pswpin $(vmstat_of pswpin)" \
			"memory full avg10 ${psi:-?}" \
			"hog $(tr '\n' ' ' </sys/fs/cgroup/hog/memory.events 2>/dev/null)" \
			"eth0 $(link_counts eth0)"
		if [ "$t" = $((420 * scale)) ]; then
			log "no end after $t s: stacks to the console"
			echo 1 >/proc/sys/kernel/sysrq
			echo w >/proc/sysrq-trigger
			echo l >/proc/sysrq-trigger
		fi
	done
}

vmstat_of() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat
}

swap_over_nfs() {
	local f=$MNT/swapfile out0 in0 out1 in1 watch rc=0
	nfs_mount 4.2 || return 1
	rm -f "$f"
	dd if=/dev/zero of="$f" bs=1M count="$SWAP_MB" status=none ||
		fail "cannot write the swap file" || { nfs_umount; return 1; }
	chmod 600 "$f"
	mkswap "$f" >/dev/null || fail "mkswap failed" || { nfs_umount; return 1; }
	swapon "$f" || fail "swapon on the RDMA mount failed" || { nfs_umount; return 1; }
	log "swaps: $(tail -n +2 /proc/swaps | tr -s ' ')"
	out0=$(vmstat_of pswpout)
	in0=$(vmstat_of pswpin)
	log "filling $HOG_MB MiB in a $HOG_LIMIT_MB MiB memory cgroup"
	swap_watch &
	watch=$!
	in_memcg "$HOG_LIMIT_MB" hog "$HOG_MB" ||
		{ fail "memory came back wrong through NFS swap"; rc=1; }
	kill "$watch" 2>/dev/null
	wait "$watch" 2>/dev/null
	out1=$(vmstat_of pswpout)
	in1=$(vmstat_of pswpin)
	log "pages swapped out $((out1 - out0)), in $((in1 - in0))"
	[ $((out1 - out0)) -gt 1000 ] || fail "only $((out1 - out0)) pages went to swap" || rc=1
	[ $((in1 - in0)) -gt 1000 ] || fail "only $((in1 - in0)) pages came back from swap" || rc=1
	swapoff "$f" || fail "swapoff failed" || rc=1
	grep -q "$f" /proc/swaps && { fail "the swap file is still active"; rc=1; }
	rm -f "$f"
	nfs_umount || rc=1
	return $rc
}

test_single() {
	fail "dropin-swap needs the 2vm topology"
}

test_server() {
	serve_nfs 1400
}

test_client() {
	nfs_client_prepare || { signal abort; return 1; }
	as_client subtest swap-over-rdma swap_over_nfs
}
