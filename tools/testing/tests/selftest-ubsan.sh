# SPDX-License-Identifier: GPL-2.0
#
# Debug-tier negative control: an array indexed past its end inside a
# larger object: UBSAN's bounds check must report it.
# shellcheck source=tools/testing/tests/selftest-mod.inc
. "$(dirname "${BASH_SOURCE[0]}")/selftest-mod.inc"

test_single() {
	selftest_fault ubsan
}
