# SPDX-License-Identifier: GPL-2.0
#
# Debug-tier negative control: a DMA mapping unmapped with half its
# length: DMA-API debugging must report it.
# shellcheck source=tools/testing/tests/selftest-mod.inc
. "$(dirname "${BASH_SOURCE[0]}")/selftest-mod.inc"

test_single() {
	selftest_fault dma
}
