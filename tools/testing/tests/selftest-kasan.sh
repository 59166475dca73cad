# SPDX-License-Identifier: GPL-2.0
#
# Debug-tier negative control: an out-of-bounds write past a kmalloc'd
# buffer and a use-after-free of it: KASAN must report both.
# shellcheck source=tools/testing/tests/selftest-mod.inc
. "$(dirname "${BASH_SOURCE[0]}")/selftest-mod.inc"

test_single() {
	selftest_fault kasan
}
