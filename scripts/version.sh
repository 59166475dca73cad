#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# version.sh [--date]: print nfsrdma's version, a valid Debian upstream
# version that sorts the way the history goes, or with --date the time of
# that source (seconds since the epoch, for changelogs and reproducible
# archives).
#
# In a git checkout of this tree:
#   a tag vX.Y on HEAD                 X.Y
#   N commits after the newest vX.Y    X.Y+gitN.gHASH
#   no vX.Y tag at all                 0.0~gitYYYYMMDD.N.gHASH (N: commits
#                                      up to HEAD, so two snapshots of one
#                                      day still sort in order)
#   tracked files edited, uncommitted  any of those plus "+dirty"
# A '-' in a tag becomes '~' (v1.0-rc1 -> 1.0~rc1 sorts before 1.0).
# --date is HEAD's commit time.
#
# Elsewhere (a release tarball): the VERSION and SOURCE_DATE_EPOCH files
# that 'make dist' wrote.  SOURCE_DATE_EPOCH in the environment overrides
# --date, as reproducible-builds tools expect.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd -P)

# in_checkout: $top is the top of a git work tree.  An unpacked tarball may
# sit inside somebody else's checkout (build/ of ours, say); that one's
# history is not ours.
in_checkout() {
	command -v git >/dev/null 2>&1 || return 1
	t=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null) || return 1
	[ "$(cd "$t" && pwd -P)" = "$top" ]
}

git_date() {
	git -C "$top" log -1 --format=%ct HEAD
}

git_version() {
	hash=$(git -C "$top" rev-parse --short=7 HEAD)
	if desc=$(git -C "$top" describe --tags --long --match 'v[0-9]*' HEAD 2>/dev/null); then
		# vX.Y-N-gHASH; the tag itself may contain '-'.
		n=${desc%-g*}
		n=${n##*-}
		tag=${desc%-*-g*}
		v=$(printf '%s' "${tag#v}" | tr - '~')
		if [ "$n" != 0 ]; then
			v="$v+git$n.g$hash"
		fi
	else
		day=$(TZ=UTC0 git -C "$top" log -1 --date=format-local:%Y%m%d --format=%cd HEAD)
		n=$(git -C "$top" rev-list --count HEAD)
		v="0.0~git$day.$n.g$hash"
	fi
	# Only tracked files count, as they are all 'make dist' packs.
	git -C "$top" update-index -q --refresh >/dev/null 2>&1 || true
	if ! git -C "$top" diff-index --quiet HEAD -- 2>/dev/null; then
		v="$v+dirty"
	fi
	printf '%s\n' "$v"
}

# from_file NAME: the one line of $top/NAME, or fail saying why.
from_file() {
	if [ ! -s "$top/$1" ]; then
		echo "version.sh: not a git checkout and no $1 file in $top" >&2
		exit 1
	fi
	head -n 1 "$top/$1"
}

case "${1:-}" in
"")
	if in_checkout; then
		v=$(git_version)
	else
		v=$(from_file VERSION)
	fi
	# dpkg and dkms take these characters in an upstream version, and it
	# must start with a digit.
	case "$v" in
	[0-9]*) ;;
	*) echo "version.sh: '$v' does not start with a digit" >&2; exit 1 ;;
	esac
	case "$v" in
	*[!A-Za-z0-9.+~]*) echo "version.sh: '$v' is not a Debian upstream version" >&2; exit 1 ;;
	esac
	printf '%s\n' "$v"
	;;
--date)
	if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
		printf '%s\n' "$SOURCE_DATE_EPOCH"
	elif in_checkout; then
		git_date
	else
		from_file SOURCE_DATE_EPOCH
	fi
	;;
*)
	echo "usage: version.sh [--date]" >&2
	exit 2
	;;
esac
