# SPDX-License-Identifier: GPL-2.0
#
# Booting test guests: Debian's 6.1 kernel under QEMU TCG (KVM is not usable
# on our machines; no_timer_check because a loaded host makes the emulated
# IO-APIC timer look broken and the kernel panics at boot), the host root shared read-only over 9p, one results
# directory shared read-write.  Guests have no NIC to the outside world; the
# two-VM topology joins them to each other only, over a unix socket.

VM_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
VM_KVER=${KVER:-$("$VM_TOP/scripts/kver.sh")}
VM_KERNEL=/boot/vmlinuz-$VM_KVER
VM_BUILD=$VM_TOP/build
VM_INITRD=$VM_BUILD/initramfs-$VM_KVER.cpio.gz

# Kernel lines (they carry a printk timestamp) that fail any test: oops,
# BUG, WARN, panic, hung task, lockups, RCU stalls, sanitizers, lockdep,
# kmemleak.  Userspace output never reaches the console, so no false hits.
VM_SPLAT='^\[ *[0-9]+\.[0-9]+\] (.*[^A-Za-z])?(Oops|BUG:|kernel BUG at|WARNING:|Kernel panic|INFO: task .* blocked for more than|soft lockup|hard LOCKUP|general protection fault|KASAN|UBSAN|kmemleak|circular locking|detected stall|Call Trace:|sysrq: Trigger a crash)'

vm_initramfs() {
	mkdir -p "$VM_BUILD"
	if [ ! -e "$VM_INITRD" ] || [ "$VM_TOP/tools/testing/vm/init" -nt "$VM_INITRD" ] ||
		[ "$VM_TOP/tools/testing/vm/initramfs.sh" -nt "$VM_INITRD" ]; then
		"$VM_TOP/tools/testing/vm/initramfs.sh" "$VM_KVER" "$VM_INITRD"
	fi
}

# vm_stage_ours: install our modules with 'make install' into a staging
# root whose kernel/ links to the real module tree, so the module index is
# built once on the host (depmod takes minutes under TCG, a second here).
# Guests copy the result over their own module tree.
VM_MODROOT=$VM_BUILD/modroot

vm_stage_ours() {
	local d=$VM_MODROOT/lib/modules/$VM_KVER f
	rm -rf "$VM_MODROOT"
	mkdir -p "$d"
	for f in /lib/modules/"$VM_KVER"/*; do
		case "$f" in
		*/build | */source | */modules.*) ;;
		*) ln -s "$f" "$d/" ;;
		esac
	done
	cp /lib/modules/"$VM_KVER"/modules.builtin* /lib/modules/"$VM_KVER"/modules.order "$d/"
	make -s -C "$VM_TOP" install DESTDIR="$VM_MODROOT" KVER="$VM_KVER" >/dev/null
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
	qemu-system-x86_64 -name "$name" -machine q35,accel=tcg -cpu max \
		-smp "$smp" -m "$mem" -nodefaults -no-user-config -display none \
		-no-reboot -serial "file:$rundir/$name.log" \
		-kernel "$VM_KERNEL" -initrd "$VM_INITRD" \
		-append "console=ttyS0,115200 panic=1 oops=panic printk.time=1 no_timer_check nfsrdma.role=$role nfsrdma.stage2=$VM_TOP/tools/testing/guest/stage2.sh" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$rundir,mount_tag=results,security_model=none,multidevs=remap" \
		"${netargs[@]}" >"$rundir/$name.qemu" 2>&1 &
	echo $! >"$rundir/$name.pid"
}

# vm_start_pair RUNDIR DEADLINE: the two-VM topology: a server and a client
# joined by a virtio link over a unix socket that only they share.
vm_start_pair() {
	[ "$VM_LINK" = stream ] || vm_link_ports "$1"
	vm_start server server "$1" 1536 1 "$(vm_link_spec "$1" server)"
	while [ "$VM_LINK" = stream ] && [ ! -S "$1/link.sock" ] &&
		[ "$(date +%s)" -lt "$2" ]; do
		sleep 0.2
	done
	vm_start client client "$1" 1536 1 "$(vm_link_spec "$1" client)"
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

# vm_wait RUNDIR DEADLINE NAME...: wait for the guests to power off, killing
# any still running at DEADLINE (seconds since the epoch).  A guest that dies
# without a clean status makes its peer give up at once instead of waiting
# out its own timeout.
vm_wait() {
	local rundir=$1 deadline=$2 name pid alive
	shift 2
	while :; do
		# A link whose frames stopped moving a minute ago will not come
		# back: end the run now instead of at the deadline.
		if vm_link_dead "$rundir" "$@"; then
			for name in "$@"; do
				pid=$(cat "$rundir/$name.pid")
				kill -0 "$pid" 2>/dev/null || continue
				echo "timeout (emulated link stalled)" >"$rundir/$name.timeout"
				kill -9 "$pid" 2>/dev/null
			done
			break
		fi
		alive=0
		for name in "$@"; do
			pid=$(cat "$rundir/$name.pid")
			if kill -0 "$pid" 2>/dev/null; then
				alive=1
				continue
			fi
			tr -d '\r' <"$rundir/$name.log" 2>/dev/null | grep -q '^NFSRDMA-EXIT: 0$' ||
				: >"$rundir/sync.abort"
		done
		[ "$alive" = 0 ] && break
		if [ "$(date +%s)" -ge "$deadline" ]; then
			for name in "$@"; do
				pid=$(cat "$rundir/$name.pid")
				kill -0 "$pid" 2>/dev/null || continue
				echo timeout >"$rundir/$name.timeout"
				kill -9 "$pid" 2>/dev/null
			done
			break
		fi
		sleep 1
	done
	for name in "$@"; do
		wait "$(cat "$rundir/$name.pid")" 2>/dev/null
	done
	return 0
}

# vm_splats RUNDIR NAME: print the kernel's complaints in a guest's log.
vm_splats() {
	local splats
	splats=$(tr -d '\r' <"$1/$2.log" | grep -E "$VM_SPLAT" | head -n 20)
	[ -n "$splats" ] || return 0
	echo "$2: kernel reported:"
	printf '%s\n' "$splats"
}

# vm_verdict RUNDIR NAME ROLE: print why the guest failed, if it did.
# Fails closed: no exit status from the guest is a failure.
vm_verdict() {
	local rundir=$1 name=$2 role=$3 bad=0 rc splats
	if [ -e "$rundir/$name.timeout" ]; then
		echo "$name: timed out and was killed"
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
		echo "$name: last lines of the test output:"
		tail -n 15 "$rundir/$role.out"
	fi
	return $bad
}
