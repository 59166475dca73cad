# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: the guest kernel crashes mid-test.  The harness must
# report a failure (the runner inverts it); a pass here would mean a crashed
# guest can look green.
TIMEOUT=120

test_single() {
	echo 1 >/proc/sys/kernel/sysrq
	echo c >/proc/sysrq-trigger
	return 0
}
