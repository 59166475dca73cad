# SPDX-License-Identifier: GPL-2.0
#
# Debug-tier negative control: a might_sleep() under a spinlock:
# DEBUG_ATOMIC_SLEEP must report a sleeping function in atomic context.
# shellcheck source=tools/testing/tests/selftest-mod.inc
. "$(dirname "${BASH_SOURCE[0]}")/selftest-mod.inc"

test_single() {
	selftest_fault sleep
}
