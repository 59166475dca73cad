# SPDX-License-Identifier: GPL-2.0
#
# Debug-tier negative controls in one boot: the self-test module commits
# each checker's fault in turn, and the harness must report every one
# (the tests.conf line expects rcu+lockdep+kmemleak+dma+ubsan+list+sleep+
# kasan, one TAP line each).  make check boots the debug kernel once for
# all eight instead of eight times; selftest-kasan and the others, one
# fault per boot, stay in make check-full.
#
# Order matters: lockdep's report turns lockdep off, and with it the RCU
# checks, so rcu goes first; a KASAN report taints the kernel in a way
# that turns lockdep off too, so KASAN goes last.
# shellcheck source=tools/testing/tests/selftest-mod.inc
. "$(dirname "${BASH_SOURCE[0]}")/selftest-mod.inc"
TIMEOUT=300

test_single() {
	local f
	for f in rcu lockdep kmemleak dma ubsan list sleep kasan; do
		selftest_fault "$f" || return 1
		rmmod nfsrdma_selftest || fail "rmmod after the $f fault failed" || return 1
	done
}
