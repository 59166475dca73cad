#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel release to build and test against.  The machine that builds
# is often not the target (its own kernel may lack module support or a build
# tree), so the running kernel is used only when it has a build tree; otherwise
# the newest installed Debian 6.1 build tree of the generic flavour wins (an
# -rt or -cloud tree next to it is a different kernel, chosen only by KVER).
set -eu
if [ -n "${KVER:-}" ]; then
	echo "$KVER"
	exit 0
fi
if [ -d "/lib/modules/$(uname -r)/build" ]; then
	uname -r
	exit 0
fi
best=$(ls -d /lib/modules/6.1.*-amd64/build 2>/dev/null |
	sed 's|^/lib/modules/||; s|/build$||' | grep -Ev -- '-(rt|cloud)-amd64$' |
	sort -V | tail -n 1)
if [ -z "$best" ]; then
	echo "kver.sh: no 6.1 build tree under /lib/modules; run 'make setup'" >&2
	exit 1
fi
echo "$best"
