# SPDX-License-Identifier: GPL-2.0
#
# Running one test instance: a test body from tests/ in a topology (1vm or
# 2vm) with a transport choice per VM (intree = the kernel's rpcrdma, ours =
# nfsrdma's modules).  Emits one TAP line per subtest the guests report.

# shellcheck source=tools/testing/lib/vm.sh
. "$(dirname "${BASH_SOURCE[0]}")/vm.sh"
# shellcheck source=tools/testing/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

RESULTS=${RESULTS:-$VM_TOP/results}

test_timeout() {
	(
		TIMEOUT=300
		# shellcheck source=/dev/null
		. "$VM_TOP/tools/testing/tests/$1.sh"
		echo "$TIMEOUT"
	)
}

# run_instance TEST TOPOLOGY CLIENT SERVER [EXPECT]
# EXPECT is empty for a normal test, or a word the harness's failure report
# must contain (crash, timeout, status) for a self-test that must fail.
run_instance() {
	local test=$1 topo=$2 client=$3 server=$4 expect=${5:-}
	local id="$test/$topo/client=$client,server=$server"
	local rundir="$RESULTS/vm/$test-$topo-$client-$server"
	local deadline timeout why vms st name line

	if [ "$topo" = 1vm ] && [ "$client" != "$server" ]; then
		tap_result fail "$id: one VM cannot mix transports"
		return
	fi
	rm -rf "$rundir"
	mkdir -p "$rundir"
	cat >"$rundir/env" <<-EOT
		TEST=$test
		TOPOLOGY=$topo
		REPO=$VM_TOP
		KVER=$VM_KVER
		CLIENT_TRANSPORT=$client
		SERVER_TRANSPORT=$server
	EOT
	if [ "$client" = ours ] || [ "$server" = ours ]; then
		if ! vm_stage_ours >"$rundir/stage-ours.log" 2>&1; then
			tap_result fail "$id: 'make install' into the guest image failed"
			tap_diag "$(tail -n 20 "$rundir/stage-ours.log")"
			return
		fi
	fi
	timeout=$(test_timeout "$test" 2>&1)
	case "$timeout" in
	'' | *[!0-9]*)
		tap_result fail "$id: tests/$test.sh does not load: $timeout"
		return
		;;
	esac
	deadline=$(($(date +%s) + timeout))
	if [ "$topo" = 1vm ]; then
		vms="single"
		vm_start single single "$rundir" 2048 2
	else
		vms="server client"
		vm_start server server "$rundir" 1536 1 \
			"server=on,addr.type=unix,addr.path=$rundir/link.sock"
		while [ ! -S "$rundir/link.sock" ] && [ "$(date +%s)" -lt "$deadline" ]; do
			sleep 0.2
		done
		vm_start client client "$rundir" 1536 1 \
			"server=off,addr.type=unix,addr.path=$rundir/link.sock"
	fi
	# shellcheck disable=SC2086
	vm_wait "$rundir" "$deadline" $vms

	why=
	for name in $vms; do
		why+=$(vm_verdict "$rundir" "$name" "$name")$'\n'
	done
	why=$(printf '%s' "$why" | sed '/^$/d')

	if [ -n "$expect" ]; then
		case "$expect" in
		crash) st='sysrq: Trigger a crash' ;;
		timeout) st='timed out and was killed' ;;
		status) st="guest exit status '3'" ;;
		esac
		if printf '%s\n' "$why" | grep -q "$st"; then
			tap_result ok "$id: harness reports the failure ($expect)"
		else
			tap_result fail "$id: harness did not report the expected $expect failure"
			tap_diag "$why"
		fi
		return
	fi

	if [ -s "$rundir/subtests" ]; then
		while read -r line; do
			case "$line" in
			"ok "*) st=ok name=${line#ok } ;;
			*) st=fail name=${line#not ok } ;;
			esac
			[ -n "$why" ] && st=fail
			tap_result "$st" "$id: ${name#* }"
		done <"$rundir/subtests"
	else
		if [ -n "$why" ]; then st=fail; else st=ok; fi
		tap_result "$st" "$id"
	fi
	if [ -n "$why" ]; then
		tap_diag "$why" "logs: $rundir"
	fi
}
