#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dist.sh OUTDIR: write OUTDIR/nfsrdma-VERSION.tar.xz, the release tarball,
# and print its path.  Its top directory is nfsrdma-VERSION/.
#
# In a git checkout it holds the files git tracks, as they are in the work
# tree (uncommitted edits included, untracked files left out).  In an
# unpacked tarball it holds the tree's files less what .gitignore ignores
# (build output).  Either way it adds VERSION and SOURCE_DATE_EPOCH, which
# scripts/version.sh reads where there is no git history.
#
# The same tree makes the same bytes: names sorted, every mtime the source
# date, owner root, no PAX times, single-threaded xz.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:?usage: dist.sh OUTDIR}

version=$("$top/scripts/version.sh")
epoch=$("$top/scripts/version.sh" --date)
name=nfsrdma-$version

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# list_files: the files to pack, NUL-separated, relative to $top.
list_files() {
	if t=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null) &&
		[ "$(cd "$t" && pwd -P)" = "$top" ]; then
		git -C "$top" ls-files -z
	elif command -v git >/dev/null 2>&1; then
		# A throwaway repository, so that git applies .gitignore exactly
		# as it does in a checkout.
		git init -q "$tmp/git"
		git --git-dir="$tmp/git/.git" --work-tree="$top" \
			ls-files -z --others --exclude-standard
	else
		# No git: leave out what .gitignore names today (keep in step).
		(cd "$top" && find . \( -path ./.git -o -path ./build -o -path ./results \
			-o -name .tmp_versions -o -path ./tools/testing/wire/build \
			-o -path ./tools/testing/hostile/build \) -prune -o -type f \
			! -name '*.o' ! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' \
			! -name '*.cmd' ! -name '*.a' ! -name '.*.d' ! -name '*.symvers' \
			! -name modules.order ! -name '.checkpatch-camelcase.*' \
			-print0 | sed -z 's|^\./||')
	fi
}

mkdir -p "$tmp/$name" "$out"
# VERSION and SOURCE_DATE_EPOCH are written fresh below, whatever an
# unpacked tarball had; a tracked file that is deleted in the work tree is
# not packed.
list_files | (cd "$top" && while IFS= read -r -d '' f; do
	case "$f" in
	VERSION | SOURCE_DATE_EPOCH) continue ;;
	esac
	if [ -e "$f" ] || [ -L "$f" ]; then
		printf '%s\0' "$f"
	fi
done) >"$tmp/files"
(cd "$top" && xargs -0 cp -P --parents --preserve=mode -t "$tmp/$name") <"$tmp/files"
printf '%s\n' "$version" >"$tmp/$name/VERSION"
printf '%s\n' "$epoch" >"$tmp/$name/SOURCE_DATE_EPOCH"

tar -C "$tmp" --sort=name --format=gnu --mtime="@$epoch" \
	--owner=0 --group=0 --numeric-owner --mode='u+rw,go=rX' \
	-cf - "$name" | xz -T1 -6 -c >"$tmp/out.tar.xz"
mv "$tmp/out.tar.xz" "$out/$name.tar.xz"
echo "$out/$name.tar.xz"
