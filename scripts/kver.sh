#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kver.sh [debian|6.12|rt]: print the kernel release to build and test
# against.
#
# debian (the default): the machine that builds is often not the target
# (its own kernel may lack module support or a build tree), so the running
# kernel is used only when it has a build tree; otherwise the newest
# installed Debian 6.1 build tree of the generic flavour wins (an -rt or
# -cloud tree next to it is a different kernel).  KVER overrides it.
# 6.12 and rt: Debian 12's other kernels, the newest installed 6.12 generic
# build tree and the newest 6.1 PREEMPT_RT one.
set -eu
# newest PATTERN [EXCLUDE]: the newest release with a build tree matching
# /lib/modules/PATTERN, minus the flavours EXCLUDE matches.
newest() {
	ls -d /lib/modules/$1/build 2>/dev/null |
		sed 's|^/lib/modules/||; s|/build$||' | grep -Ev -- "${2:-^$}" |
		sort -V | tail -n 1
}

case "${1:-debian}" in
debian) ;;
6.12 | rt)
	if [ "$1" = rt ]; then
		best=$(newest '6.1.*-rt-amd64')
	else
		best=$(newest '6.12.*-amd64' '-(rt|cloud)-amd64$')
	fi
	if [ -z "$best" ]; then
		echo "kver.sh: no $1 build tree under /lib/modules; run 'make setup-kernels'" >&2
		exit 1
	fi
	echo "$best"
	exit 0
	;;
*)
	echo "usage: kver.sh [debian|6.12|rt]" >&2
	exit 2
	;;
esac

if [ -n "${KVER:-}" ]; then
	echo "$KVER"
	exit 0
fi
if [ -d "/lib/modules/$(uname -r)/build" ]; then
	uname -r
	exit 0
fi
best=$(newest '6.1.*-amd64' '-(rt|cloud)-amd64$')
if [ -z "$best" ]; then
	echo "kver.sh: no 6.1 build tree under /lib/modules; run 'make setup'" >&2
	exit 1
fi
echo "$best"
