#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-fuzz-live.sh: the live mutation fuzzer (tools/testing/tests/
# fuzz-live.sh) for as long as asked, where make check runs it for a
# fixed count.  FUZZ_LIVE_SECONDS (600 unless set) of mutated messages at our
# server (fuzz-live.sh), then as long at our client (fuzz-live-client.sh),
# from FUZZ_LIVE_SEED (a random one unless set, printed first so that
# the run can be replayed), on the debug kernel (FUZZ_LIVE_KERNEL=debian: on
# Debian's; the debug kernel is built first if it is not cached).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tools/testing/lib/run.sh
. "$here/lib/run.sh"

seed=${FUZZ_LIVE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
secs=${FUZZ_LIVE_SECONDS:-600}
kernel=${FUZZ_LIVE_KERNEL:-debug}
extra=()
echo "== fuzz-live: seed $seed, $secs s, $kernel kernel"
if [ "$kernel" = debug ]; then
	nice -n 10 "$top/scripts/debug-kernel.sh" || exit 1
	extra=(kernel=debug)
fi
make -s -C "$here/hostile" || exit 1
vm_initramfs || exit 1
export FUZZ_LIVE_SECONDS=$secs
run_instance fuzz-live+fuzz-live-client 2vm ours ours "${extra[@]}" \
	FUZZ_LIVE_SEED="$seed" FUZZ_LIVE_SECONDS="$secs" FUZZ_LIVE_MESSAGES=4000000000 \
	FUZZ_LIVE_JOBS="${FUZZ_LIVE_JOBS:-4}" FUZZ_LIVE_DRIVERS="${FUZZ_LIVE_DRIVERS:-4}"
grep -h 'fuzz-live:' "$RESULTS"/vm/fuzz-live+fuzz-live-client-*FUZZ_LIVE_SEED="$seed"-*/*.out \
	2>/dev/null | sed 's/^/# /'
tap_summary
