# SPDX-License-Identifier: GPL-2.0
#
# Booting test guests: Debian's 6.1 kernel, or the debug tier's, under QEMU
# TCG (KVM is not usable on our machines; no_timer_check because a loaded
# host makes the emulated IO-APIC timer look broken and the kernel panics at
# boot), the host root shared read-only over 9p, one results directory
# shared read-write.  Guests have no NIC to the outside world; the
# two-VM topology joins them to each other only, over a unix socket.

VM_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
VM_BUILD=$VM_TOP/build

# Kernel lines (they carry a printk timestamp) that fail any test: oops,
# BUG (KASAN, sleeping in atomic context and the like report as BUG), WARN
# (lockdep, suspicious RCU usage, DMA-API and list corruption report as
# WARNING too, and are also named), panic, hung task, lockups, RCU stalls,
# UBSAN, kmemleak's own failures and the leaks stage2 attributes to our
# modules.  kmemleak's routine "N new suspected memory leaks" is not here:
# the whole kernel's leaks are not ours; stage2 judges the report itself.
# Userspace output never reaches the console, so no false hits.
VM_SPLAT='^\[ *[0-9]+\.[0-9]+\] (.*[^A-Za-z])?(Oops|BUG:|kernel BUG at|WARNING:|Kernel panic|INFO: task .* blocked for more than|soft lockup|hard LOCKUP|general protection fault|KASAN|UBSAN|circular locking|recursive locking|inconsistent lock state|suspicious RCU usage|list_(add|del) corruption|sleeping function called from invalid context|DMA-API: [^ ]+ [^ ]+: |DMA-API: debugging out of memory|kmemleak: (Cannot|Memory pool empty|Kernel memory leak detector disabled)|nfsrdma-kmemleak:|detected stall|Call Trace:|sysrq: Trigger a crash)'

# vm_use_kernel debian|6.12|rt|debug: the kernel the next guests boot.
# debian (the default) is Debian's 6.1, the one our users run: KVER, or the
# one scripts/kver.sh finds.  6.12 and rt are Debian 12's other kernels, its
# 6.12 and its PREEMPT_RT 6.1 (installed by scripts/setup.sh --kernels).
# debug is the debug-tier kernel that
# scripts/debug-kernel.sh built and cached (KASAN, lockdep, kmemleak,
# DMA-API debugging, UBSAN): it runs slower and needs more memory, and our
# modules are built against its own tree.  VM_KDIR is the tree our modules
# build against, VM_MEM1/VM_MEM2 a guest's memory (MB) in one- and two-VM
# runs, VM_TIME_SCALE what test timeouts are multiplied by.
vm_use_kernel() {
	local dir
	VM_KIND=$1
	case "$1" in
	debian)
		VM_KVER=${KVER:-$("$VM_TOP/scripts/kver.sh")}
		VM_KERNEL=/boot/vmlinuz-$VM_KVER
		VM_KDIR=/lib/modules/$VM_KVER/build
		VM_MEM1=2048 VM_MEM2=1536 VM_TIME_SCALE=1
		VM_APPEND=
		;;
	6.12 | rt)
		# Debian 12's other kernels (scripts/setup.sh --kernels).
		VM_KVER=$("$VM_TOP/scripts/kver.sh" "$1") || return 1
		VM_KERNEL=/boot/vmlinuz-$VM_KVER
		VM_KDIR=/lib/modules/$VM_KVER/build
		VM_MEM1=2048 VM_MEM2=1536 VM_TIME_SCALE=1
		VM_APPEND=
		;;
	debug)
		dir=$("$VM_TOP/scripts/debug-kernel.sh" --dir) || {
			echo "no debug kernel for this fragment: run scripts/debug-kernel.sh" >&2
			return 1
		}
		VM_KVER=$(cat "$dir/release")
		VM_KERNEL=$dir/bzImage
		VM_KDIR=$dir/src
		# KASAN's shadow is an eighth of memory, and its quarantine,
		# kmemleak's and lockdep's tables take more on top.
		VM_MEM1=3072 VM_MEM2=2048 VM_TIME_SCALE=3
		VM_APPEND=$VM_DEBUG_APPEND
		;;
	*)
		echo "unknown kernel '$1' (debian, 6.12, rt or debug)" >&2
		return 1
		;;
	esac
	VM_INITRD=$VM_BUILD/initramfs-$VM_KVER.cpio.gz
	VM_MODROOT=$VM_BUILD/modroot-$VM_KVER
}

# vm_kernel_save ROLE / vm_kernel_load ROLE: what vm_use_kernel chose,
# remembered for ROLE's guest (server or client) and chosen again just
# before that guest boots, so that the two guests of a pair may run
# different kernels (a run's kernel=CLIENT/SERVER).  vm_kernel_load is a
# no-op for a role nothing was saved for; vm_kernel_forget drops every
# saved choice.
VM_KERNEL_VARS="VM_KIND VM_KVER VM_KERNEL VM_KDIR VM_MEM1 VM_MEM2 VM_TIME_SCALE VM_APPEND VM_INITRD VM_MODROOT"
vm_kernel_save() {
	local v n
	for v in $VM_KERNEL_VARS; do
		n=VM_SAVED_${1}_$v
		printf -v "$n" '%s' "${!v}"
	done
}

vm_kernel_load() {
	local v n
	for v in $VM_KERNEL_VARS; do
		n=VM_SAVED_${1}_$v
		[ -n "${!n+set}" ] || return 0
		printf -v "$v" '%s' "${!n}"
	done
}

vm_kernel_forget() {
	local n
	for n in ${!VM_SAVED_*}; do
		unset "$n"
	done
}

# Boot options for the debug kernel: KASAN reports every bug it sees,
# not only the first, so one report cannot hide a second; and 4-level
# paging (no5lvl).  QEMU's "max" CPU has LA57, and with 5-level paging
# 6.1's KASAN judges a direct-map address by pgtable_l5_enabled(), which
# reads the boot CPU's feature bits; identify_cpu() clears those while it
# re-reads them, and a timer interrupt in that window made KASAN report
# wild-memory-access on every lock it took (seen at 0.004 s and 1.7 s of
# boot, about one debug boot in ten, each time an endless flood before
# any module of ours was loaded).  4-level paging has no such window, and
# boots faster under TCG.
VM_DEBUG_APPEND="kasan_multi_shot no5lvl"

vm_use_kernel debian || exit 1

vm_initramfs() {
	mkdir -p "$VM_BUILD"
	if [ ! -e "$VM_INITRD" ] || [ "$VM_TOP/tools/testing/vm/init" -nt "$VM_INITRD" ] ||
		[ "$VM_TOP/tools/testing/vm/initramfs.sh" -nt "$VM_INITRD" ] ||
		[ "$VM_KERNEL" -nt "$VM_INITRD" ]; then
		"$VM_TOP/tools/testing/vm/initramfs.sh" "$VM_KVER" "$VM_INITRD"
	fi
}

# vm_stage_ours: install our modules with 'make install' into a staging
# root (VM_MODROOT, one per kernel release) whose kernel/ links to the real
# module tree, so the module index is built once on the host (depmod takes
# minutes under TCG, a second here).  Guests copy the result over their own
# module tree.  For Debian's kernel the checkout itself is built, as 'make'
# does; for any other kernel a copy of it is, so the objects of the two
# builds never overwrite each other in the working tree.
vm_stage_ours() {
	local d=$VM_MODROOT/lib/modules/$VM_KVER f src=$VM_TOP
	rm -rf "$VM_MODROOT"
	mkdir -p "$d"
	for f in /lib/modules/"$VM_KVER"/*; do
		case "$f" in
		*/build | */source | */modules.*) ;;
		*) ln -s "$f" "$d/" ;;
		esac
	done
	cp /lib/modules/"$VM_KVER"/modules.builtin* /lib/modules/"$VM_KVER"/modules.order "$d/"
	if [ "$VM_KIND" != debian ]; then
		src=$VM_BUILD/src-$VM_KVER
		vm_copy_tree "$VM_TOP" "$src" || return 1
	fi
	make -s -C "$src" install DESTDIR="$VM_MODROOT" KVER="$VM_KVER" KDIR="$VM_KDIR" >/dev/null
}

# vm_copy_tree FROM TO: mirror the checkout's files (tracked, and new ones
# not ignored: what 'make' would build) into TO.  rsync keeps the copies'
# times, so an unchanged file is not rebuilt.
vm_copy_tree() {
	local list
	list=$(mktemp) || return 1
	# An empty or failed listing would leave an old copy to be built.
	if ! git -C "$1" ls-files -z --cached --others --exclude-standard >"$list" ||
		[ ! -s "$list" ]; then
		echo "vm_copy_tree: cannot list the files of $1" >&2
		rm -f "$list"
		return 1
	fi
	mkdir -p "$2"
	rsync -a --delete-missing-args --from0 --files-from="$list" "$1/" "$2/"
	local rc=$?
	rm -f "$list"
	return $rc
}

# vm_build_selftest_mod: the debug tier's negative controls' module
# (tools/testing/selftest-mod), built against the guests' kernel outside
# the checkout.  Only the self-tests load it; nothing installs it.
vm_build_selftest_mod() {
	local d=$VM_BUILD/selftest-mod-$VM_KVER
	mkdir -p "$d"
	rsync -a "$VM_TOP/tools/testing/selftest-mod/" "$d/" &&
		make -C "$VM_KDIR" M="$d" modules
}

vm_mac() {
	case "$1" in
	server) echo 52:54:00:12:34:01 ;;
	client) echo 52:54:00:12:34:02 ;;
	*) echo 52:54:00:12:34:03 ;;
	esac
}

# The link between the two VMs.  VM_LINK=udp (the default) joins them with
# QEMU's UDP socket backend on the loopback: a frame the receiving QEMU has
# no room for is dropped, and RC transport retries recover it, as on a real
# lossy wire.  VM_LINK=stream uses a unix stream socket instead; QEMU 7.2's
# stream backend stops carrying frames for good under sustained RDMA load
# (within a minute of a 4 KiB random-I/O soak; about once in forty boots
# of the lighter tests), which no guest can recover from.
VM_LINK=${VM_LINK:-udp}

# vm_link_spec RUNDIR ROLE: the -netdev options (no id) for ROLE's end of
# the link of the two-VM run in RUNDIR.  The UDP ports are picked once per
# run, by vm_start_pair, and kept in RUNDIR/link.ports.
vm_link_spec() {
	local rundir=$1 role=$2 sport cport
	if [ "$VM_LINK" = stream ]; then
		if [ "$role" = server ]; then
			echo "stream,server=on,addr.type=unix,addr.path=$rundir/link.sock"
		else
			echo "stream,server=off,addr.type=unix,addr.path=$rundir/link.sock"
		fi
		return
	fi
	read -r sport cport <"$rundir/link.ports"
	if [ "$role" = server ]; then
		echo "socket,localaddr=127.0.0.1:$sport,udp=127.0.0.1:$cport"
	else
		echo "socket,localaddr=127.0.0.1:$cport,udp=127.0.0.1:$sport"
	fi
}

# vm_link_ports RUNDIR: choose two free loopback UDP ports for the link.
vm_link_ports() {
	python3 - >"$1/link.ports" <<-'EOF'
		import socket
		socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
		for s in socks:
		    s.bind(("127.0.0.1", 0))
		print(*(s.getsockname()[1] for s in socks))
	EOF
}

# vm_start NAME ROLE RUNDIR MEM_MB SMP [NETDEV]: boot one guest in the
# background; its serial log is RUNDIR/NAME.log, its PID RUNDIR/NAME.pid.
# NETDEV (from vm_link_spec) gives it a NIC on the link between the VMs.
# With VM_CAPTURE=FILE, the server's link is recorded to FILE (pcap).
vm_start() {
	local name=$1 role=$2 rundir=$3 mem=$4 smp=$5 net=${6:-}
	local -a netargs=()
	if [ -n "$net" ]; then
		netargs=(-netdev "$net,id=n0"
			-device "virtio-net-pci,netdev=n0,mac=$(vm_mac "$role"),rx_queue_size=1024")
		# Record the link from the server's side: every frame either
		# VM sends crosses it, and the host needs no guest tooling.
		if [ -n "${VM_CAPTURE:-}" ] && [ "$role" = server ]; then
			netargs+=(-object "filter-dump,id=dump0,netdev=n0,file=$VM_CAPTURE")
		fi
	fi
	# -cpu qemu64, not max: offered fewer instruction-set extensions,
	# the guests pick code that TCG runs faster (plain integer CRC,
	# copy and crypto routines rather than emulated vector ones, we
	# think; 5-level paging is not it, see below).  Measured here with
	# 20,000 fuzzed messages at our server: 244/s with max, 356/s with
	# qemu64 (max without 5-level paging: 235/s).
	#
	# -cx16: this host's QEMU (7.2) can leave EFLAGS holding the low
	# half of a pointer after an unlocked CMPXCHG16B, which SLUB's
	# per-cpu fast path runs on every allocation.  Seen on Debian's
	# 6.12 guests as the trap flag set in the middle of kmalloc (a WARN
	# from exc_debug_kernel), a double fault, a corrupt NAPI list and a
	# user process's GPF, each with "EFLAGS:" equal to the low 32 bits of
	# a slab pointer in the same register dump, the first just after
	# the CMPXCHG16B or its retry branch.  nfs-krb5 (krb5, ours at both
	# ends, 6.12) crashed that way in 3 of 8 boots with qemu64 and in 0
	# of 10 without CX16, where the kernel takes its CX16-less path.
	#
	# +rdrand: with no entropy source the guest's random pool fills
	# only from interrupt timing, and nfsd's start came within 0.4 s of
	# "crng init done" in every run.  TCG emulates RDRAND from the
	# host's getrandom(), and our kernels trust it to seed the pool at
	# boot (RANDOM_TRUST_CPU=y on 6.1, the rule since 6.2), so the
	# pool is ready at 0 s: about 2 s less from fabric to nfsd on
	# Debian's kernel, 7 s on the debug kernel.  VM_CPU overrides it
	# all.
	qemu-system-x86_64 -name "$name" -machine q35,accel=tcg -cpu "${VM_CPU:-qemu64,-cx16,+rdrand}" \
		-smp "$smp" -m "$mem" -nodefaults -no-user-config -display none \
		-no-reboot -serial "file:$rundir/$name.log" \
		-kernel "$VM_KERNEL" -initrd "$VM_INITRD" \
		-append "console=ttyS0,115200 panic=1 oops=panic printk.time=1 no_timer_check $VM_APPEND${VM_TEST_APPEND:+ $VM_TEST_APPEND} nfsrdma.role=$role nfsrdma.stage2=$VM_TOP/tools/testing/guest/stage2.sh" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$rundir,mount_tag=results,security_model=none,multidevs=remap" \
		"${netargs[@]}" >"$rundir/$name.qemu" 2>&1 &
	echo $! >"$rundir/$name.pid"
	date +%s >"$rundir/$name.started"
}

# vm_start_pair RUNDIR DEADLINE: the two-VM topology: a server and a client
# joined by a virtio link over a unix socket that only they share, each
# booting the kernel saved for its role, if one was (vm_kernel_save).
vm_start_pair() {
	[ "$VM_LINK" = stream ] || vm_link_ports "$1"
	vm_kernel_load server
	vm_start server server "$1" "$VM_MEM2" 1 "$(vm_link_spec "$1" server)"
	while [ "$VM_LINK" = stream ] && [ ! -S "$1/link.sock" ] &&
		[ "$(date +%s)" -lt "$2" ]; do
		sleep 0.2
	done
	vm_kernel_load client
	vm_start client client "$1" "$VM_MEM2" 1 "$(vm_link_spec "$1" client)"
}

# vm_verdicts RUNDIR NAME...: every reason the named guests failed, if any.
vm_verdicts() {
	local rundir=$1 name why=
	shift
	for name in "$@"; do
		why+=$(vm_verdict "$rundir" "$name" "$name")$'\n'
	done
	printf '%s' "$why" | sed '/^$/d'
}

# vm_link_dead RUNDIR NAME...: a guest's virtio-net transmit watchdog says
# its queue has made no progress for 60 s or more.
vm_link_dead() {
	local rundir=$1 name
	shift
	for name in "$@"; do
		[ -e "$rundir/$name.log" ] || continue
		tr -d '\r' <"$rundir/$name.log" |
			grep -Eq 'NETDEV WATCHDOG: .*transmit queue [0-9]+ timed out ([6-9][0-9]{4}|[0-9]{6,}) ms' &&
			return 0
	done
	return 1
}

# How long a guest may take from its start to its test's first line.  The
# debug kernel gets there in 20 to 30 s under TCG, Debian's in 5; one that
# has not in 120 s has stopped (the debug kernel stopped in its RCU-tasks
# self-test, a kernel deadlock that scripts/debug-kernel-rcu-tasks.patch
# fixes), and every second waited past that is lost.
VM_BOOT_SECONDS=${VM_BOOT_SECONDS:-120}

# How long a guest may run on after its peer exited with a failure: enough
# for its own teardown and kmemleak scans on the debug kernel.
VM_ABORT_GRACE=${VM_ABORT_GRACE:-150}

# vm_boot_stalled RUNDIR NAME...: print the first named guest that is still
# running but has not begun its test (stage2.sh creates NAME.out first
# thing) VM_BOOT_SECONDS after it was started.  Nothing of ours is loaded
# before then: the initramfs loads only the kernel's own modules.
vm_boot_stalled() {
	local rundir=$1 name started now
	shift
	now=$(date +%s)
	for name in "$@"; do
		[ -e "$rundir/$name.out" ] && continue
		started=$(cat "$rundir/$name.started" 2>/dev/null) || continue
		[ $((now - started)) -ge "$VM_BOOT_SECONDS" ] || continue
		kill -0 "$(cat "$rundir/$name.pid")" 2>/dev/null || continue
		echo "$name"
		return 0
	done
	return 1
}

# The most a guest's serial log may hold before the run is ended.
VM_LOG_MAX=${VM_LOG_MAX:-67108864}

# vm_log_flooded RUNDIR NAME...: a guest's serial log passed VM_LOG_MAX.
vm_log_flooded() {
	local rundir=$1 name size
	shift
	for name in "$@"; do
		size=$(stat -c %s "$rundir/$name.log" 2>/dev/null) || continue
		[ "$size" -gt "$VM_LOG_MAX" ] && return 0
	done
	return 1
}

# vm_wait RUNDIR DEADLINE NAME...: wait for the guests to power off, killing
# any still running at DEADLINE (seconds since the epoch).  A guest that dies
# without a clean status makes its peer give up at once instead of waiting
# out its own timeout.
vm_wait() {
	local rundir=$1 deadline=$2 name pid alive failed_at=''
	shift 2
	while :; do
		# A link whose frames stopped moving a minute ago will not come
		# back: end the run now instead of at the deadline.
		if vm_link_dead "$rundir" "$@"; then
			vm_kill_all "$rundir" "timeout (emulated link stalled)" "$@"
			break
		fi
		# A kernel that reports without end (kasan_multi_shot on a
		# fault in an interrupt handler) would fill the disk before the
		# deadline: its first reports are all the verdict needs.
		if vm_log_flooded "$rundir" "$@"; then
			vm_kill_all "$rundir" "timeout (console flood past $VM_LOG_MAX bytes)" "$@"
			break
		fi
		# A kernel that stops before its initramfs hands over (seen on
		# the debug kernel: a deadlock in the RCU-tasks self-test, now
		# patched) never gets there.
		if name=$(vm_boot_stalled "$rundir" "$@"); then
			echo "$name" >"$rundir/boot.stalled"
			vm_kill_all "$rundir" "timeout (boot stalled: $name had not begun its test ${VM_BOOT_SECONDS} s after it started)" "$@"
			break
		fi
		alive=0
		for name in "$@"; do
			pid=$(cat "$rundir/$name.pid")
			if kill -0 "$pid" 2>/dev/null; then
				alive=1
				continue
			fi
			tr -d '\r' <"$rundir/$name.log" 2>/dev/null | grep -q '^NFSRDMA-EXIT: 0$' && continue
			: >"$rundir/sync.abort"
			[ -n "$failed_at" ] || failed_at=$(date +%s)
		done
		[ "$alive" = 0 ] && break
		# A guest that failed has decided the verdict.  Its peer sees
		# sync.abort and normally ends within seconds; one that does
		# not (a task stuck on a hard mount) would hold the run until
		# the deadline, up to 25 minutes of CI's time for nothing.
		if [ -n "$failed_at" ] &&
			[ "$(date +%s)" -ge $((failed_at + VM_ABORT_GRACE)) ]; then
			vm_kill_all "$rundir" "timeout (still running ${VM_ABORT_GRACE} s after its peer failed)" "$@"
			break
		fi
		if [ "$(date +%s)" -ge "$deadline" ]; then
			vm_kill_all "$rundir" timeout "$@"
			break
		fi
		sleep 1
	done
	for name in "$@"; do
		wait "$(cat "$rundir/$name.pid")" 2>/dev/null
	done
	return 0
}

# vm_kill_all RUNDIR WHY NAME...: kill the named guests still running and
# record WHY as each one's timeout.
vm_kill_all() {
	local rundir=$1 why=$2 name pid
	shift 2
	for name in "$@"; do
		pid=$(cat "$rundir/$name.pid")
		kill -0 "$pid" 2>/dev/null || continue
		echo "$why" >"$rundir/$name.timeout"
		kill -9 "$pid" 2>/dev/null
	done
}

# vm_splats RUNDIR NAME: print the kernel's complaints in a guest's log.
vm_splats() {
	local splats
	splats=$(tr -d '\r' <"$1/$2.log" | grep -E "$VM_SPLAT" | head -n 40)
	[ -n "$splats" ] || return 0
	echo "$2: kernel reported:"
	printf '%s\n' "$splats"
}

# vm_verdict RUNDIR NAME ROLE: print why the guest failed, if it did.
# Fails closed: no exit status from the guest is a failure.
vm_verdict() {
	local rundir=$1 name=$2 role=$3 bad=0 rc splats fails
	if [ -e "$rundir/$name.timeout" ]; then
		echo "$name: timed out and was killed: $(cat "$rundir/$name.timeout")"
		bad=1
	fi
	splats=$(vm_splats "$rundir" "$name")
	if [ -n "$splats" ]; then
		printf '%s\n' "$splats"
		bad=1
	fi
	rc=$(cat "$rundir/$role.rc" 2>/dev/null)
	if [ "$rc" != 0 ]; then
		echo "$name: guest exit status '${rc:-none}'"
		bad=1
	fi
	if ! tr -d '\r' <"$rundir/$name.log" | grep -q '^NFSRDMA-EXIT: 0$'; then
		echo "$name: guest did not report a clean exit on its console"
		bad=1
	fi
	if [ "$bad" != 0 ] && [ -e "$rundir/$role.out" ]; then
		# A failure logged long before the end would otherwise be
		# out of sight behind the tail, and CI keeps only this.
		fails=$(tr -d '\r' <"$rundir/$role.out" |
			grep -E '\] (FAIL: |test [^ ]+ failed|test body failed|a guest aborted)' |
			head -n 12)
		if [ -n "$fails" ]; then
			echo "$name: what the guest reported failing:"
			printf '%s\n' "$fails"
		fi
		echo "$name: last lines of the test output:"
		tail -n 15 "$rundir/$role.out"
	fi
	return $bad
}
