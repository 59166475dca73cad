# SPDX-License-Identifier: GPL-2.0
#
# Debug-tier negative control: two mutexes taken in both orders: lockdep
# must report the possible circular locking.
# shellcheck source=tools/testing/tests/selftest-mod.inc
. "$(dirname "${BASH_SOURCE[0]}")/selftest-mod.inc"

test_single() {
	selftest_fault lockdep
}
