# SPDX-License-Identifier: GPL-2.0
#
# TAP output shared by every stage of 'make check'.  The closing line is
# exactly "N passed, N failed": CI reads it.

TAP_N=0
TAP_PASS=0
TAP_FAIL=0

# tap_result ok|fail DESCRIPTION
tap_result() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" = ok ]; then
		TAP_PASS=$((TAP_PASS + 1))
		echo "ok $TAP_N - $2"
	else
		TAP_FAIL=$((TAP_FAIL + 1))
		echo "not ok $TAP_N - $2"
	fi
}

# tap_diag TEXT...: indented diagnostics under the last result.
tap_diag() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

tap_summary() {
	echo "1..$TAP_N"
	echo "$TAP_PASS passed, $TAP_FAIL failed"
	[ "$TAP_FAIL" = 0 ]
}
