# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: the test never finishes.  The harness must kill the
# guest at the test's timeout and report it.
TIMEOUT=40

test_single() {
	sleep 3600
}
