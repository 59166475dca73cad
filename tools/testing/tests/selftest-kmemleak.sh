# SPDX-License-Identifier: GPL-2.0
#
# Debug-tier negative control: a kmalloc'd buffer whose last pointer is
# dropped: the leak check after the test must find it and attribute it to
# the module.
# shellcheck source=tools/testing/tests/selftest-mod.inc
. "$(dirname "${BASH_SOURCE[0]}")/selftest-mod.inc"

test_single() {
	selftest_fault kmemleak
}
