# SPDX-License-Identifier: GPL-2.0
#
# Debug-tier negative control: an RCU-protected pointer read outside any
# read-side critical section: PROVE_RCU must report suspicious RCU usage.
# shellcheck source=tools/testing/tests/selftest-mod.inc
. "$(dirname "${BASH_SOURCE[0]}")/selftest-mod.inc"

test_single() {
	selftest_fault rcu
}
