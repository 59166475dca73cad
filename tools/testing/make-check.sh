#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-check.sh: everything 'make check' runs, as one TAP stream ending in the
# "N passed, N failed" line CI reads.  Stages: W=1 + sparse build, kernel-doc,
# codec unit tests (ASan/UBSan), codec fuzz smoke, the debug-tier kernel
# (built once, in the background while the tests on Debian's kernel run,
# then taken from its cache), then the VM tests listed in
# tests.conf (and, for 'make check-full', CHECK_FULL=1, those in
# tests-full.conf after them; CHECK_FULL=only runs tests-full.conf alone,
# for when make check's list has just passed), on Debian's kernel or, for
# lines that say kernel=debug, the debug kernel (kernel=6.12: Debian 12's
# 6.12, for what 6.1 cannot do).  'make check-kernels' (CHECK_KERNELS=1)
# builds for Debian 12's 6.12 and 6.1-rt kernels too and runs
# tests-kernels.conf instead.  Set CHECK_VM=PATTERN to run only matching
# VM tests, and FUZZ_SECONDS to change the fuzz budget.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tools/testing/lib/run.sh
. "$here/lib/run.sh"

logs=$RESULTS/check
rm -rf "$logs"
mkdir -p "$logs"
start=$(date +%s)

# stage NAME DESCRIPTION CMD...: run a host-side stage, one TAP line.
stage() {
	local name=$1 desc=$2 t0
	shift 2
	t0=$(date +%s)
	if "$@" >"$logs/$name.log" 2>&1; then
		tap_result ok "$desc ($(($(date +%s) - t0)) s)"
		return 0
	fi
	tap_result fail "$desc"
	tap_diag "$(tail -n 25 "$logs/$name.log")" "log: $logs/$name.log"
	return 1
}

kdir=/lib/modules/$VM_KVER/build
built=0
stage build "build: modules with W=1 and sparse, no diagnostics" \
	"$top/scripts/lint.sh" "$kdir" build && built=1
stage kernel-doc "kernel-doc -none clean" "$top/scripts/lint.sh" "$kdir" doc
stage codec-unit "codec: unit tests under ASan and UBSan" \
	make -C "$here/wire" check
stage codec-fuzz "codec: libFuzzer on the decoders for ${FUZZ_SECONDS:-60} s" \
	make -C "$here/wire" fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-60}"

stage hostile "hostile client and server tools build with -Wall -Wextra -Werror" \
	make -C "$here/hostile"

stage stall-rule "harness: only a stall of the emulator (link, boot) is rerun, never a finding" \
	"$here/stall-check.sh"
stage profile-share "bench: profile-share.py groups a perf report by module" \
	python3 "$here/profile-share.py" --self-test

# deb_check: make deb builds, dpkg-deb reads the package, and lintian (with
# the overrides the package ships) finds no error in it.
deb_check() {
	local deb
	deb=$(make -s -C "$top" deb) || return 1
	echo "built $deb"
	dpkg-deb -I "$deb" && dpkg-deb -c "$deb" || return 1
	lintian --fail-on error "$deb"
}
stage deb "packaging: make deb, dpkg-deb reads it, lintian reports no error" deb_check

# The debug kernel takes 12 to 35 minutes to build on a fresh machine.  It
# builds in the background at idle priority (SCHED_IDLE) while the
# instances on Debian's kernel run: their guests leave the CPUs idle
# whenever they wait (RPC timeouts, a dead peer, a link cut), and the build
# gets only that time.  The first instance on the debug kernel waits for
# it, and its TAP line comes then.  An interrupted run leaves the build
# going; the next one waits for it (scripts/debug-kernel.sh takes a lock).
# The build's exit status goes to a file rather than through "wait": a
# clean run of make check found "wait" failing for a build that had
# succeeded long before (its status no longer held by the shell by the
# time the first debug instance asked), which reddened the run.
debug_t0=$(date +%s)
# Named after this run: the build of an interrupted run goes on and must
# not answer for this one.
debug_rc=$logs/debug-kernel.rc.$$
rm -f "$debug_rc"
(
	chrt --idle 0 nice -n 19 "$top/scripts/debug-kernel.sh" \
		>"$logs/debug-kernel.log" 2>&1
	echo $? >"$debug_rc.tmp" && mv "$debug_rc.tmp" "$debug_rc"
) &
debug_pid=$!
debug_waited=0
debug_kernel_wait() {
	[ "$debug_waited" = 1 ] && return 0
	debug_waited=1
	while [ ! -e "$debug_rc" ] && kill -0 "$debug_pid" 2>/dev/null; do
		sleep 2
	done
	if [ "$(cat "$debug_rc" 2>/dev/null)" = 0 ]; then
		tap_result ok "debug kernel: built or taken from the cache (ready after $(($(date +%s) - debug_t0)) s, in the background)"
	else
		# Instances on the debug kernel then fail on their own.
		tap_result fail "debug kernel: built or taken from the cache"
		tap_diag "$(tail -n 25 "$logs/debug-kernel.log")" \
			"log: $logs/debug-kernel.log"
	fi
}

# lint_kernel K: our modules against Debian's kernel K (6.12 or rt), W=1
# and sparse, in a copy of the checkout so the 6.1 objects stay.
lint_kernel() {
	local kver copy=$VM_BUILD/lint-$1
	kver=$("$top/scripts/kver.sh" "$1") || return 1
	vm_copy_tree "$top" "$copy" || return 1
	"$copy/scripts/lint.sh" "/lib/modules/$kver/build" build
}

confs=("$here/tests.conf")
case "${CHECK_FULL:-0}" in
1) confs+=("$here/tests-full.conf") ;;
only) confs=("$here/tests-full.conf") ;;
esac
# make check-kernels: Debian 12's other kernels instead of make check's list.
if [ "${CHECK_KERNELS:-0}" = 1 ]; then
	for k in 6.12 rt; do
		stage "build-$k" "build: modules for Debian's $k kernel with W=1 and sparse" \
			lint_kernel "$k"
	done
	confs=("$here/tests-kernels.conf")
fi
if [ "$built" = 1 ] && vm_initramfs >"$logs/initramfs.log" 2>&1; then
	matched=0
	while read -r t topo c s rest; do
		case "$t" in '#'* | '') continue ;; esac
		if [ -n "${CHECK_VM:-}" ] &&
			! echo "$t $topo $c $s $rest" | grep -q -- "$CHECK_VM"; then
			continue
		fi
		matched=$((matched + 1))
		case " $rest " in *" kernel=debug "* | *" kernel=debug/"* | *" kernel="*"/debug "*) debug_kernel_wait ;; esac
		# shellcheck disable=SC2086
		run_instance "$t" "$topo" "$c" "$s" $rest
	done < <(cat "${confs[@]}")
	# A pattern that selects nothing must not pass as a clean run.
	if [ -n "${CHECK_VM:-}" ]; then
		echo "# CHECK_VM='$CHECK_VM' selected $matched lines of ${confs[*]##*/}"
		[ "$matched" -gt 0 ] ||
			tap_result fail "VM tests: CHECK_VM='$CHECK_VM' matches no line of ${confs[*]##*/}"
	fi
else
	# Fail closed: VM tests that could not run are failures, not skips.
	tap_result fail "VM tests: not run (the build or the initramfs failed)"
fi

debug_kernel_wait
echo "# make check wall time: $(($(date +%s) - start)) s"
tap_summary
