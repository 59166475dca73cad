# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: the test body fails quietly with a non-zero status and
# no kernel complaint.  The harness must still report the failure.
TIMEOUT=120

test_single() {
	return 3
}
