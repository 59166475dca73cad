# SPDX-License-Identifier: GPL-2.0
#
# Debug-tier negative control: a list_add() beside an entry whose back
# link a stray write changed: DEBUG_LIST must report the corruption.
# shellcheck source=tools/testing/tests/selftest-mod.inc
. "$(dirname "${BASH_SOURCE[0]}")/selftest-mod.inc"

test_single() {
	selftest_fault list
}
