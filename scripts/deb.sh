#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh DISTDIR OUTDIR [stage]: build OUTDIR/nfsrdma-dkms_VERSION-1_all.deb
# and print its path; with "stage", only lay out its file tree in
# OUTDIR/root (what 'make dkms-install' copies its /usr/src part from).
#
# The package is made from the release tarball (scripts/dist.sh, written to
# DISTDIR), unpacked, never from the checkout: so a checkout and that
# tarball unpacked anywhere else make the same package, byte for byte.
# Nothing here needs more than dpkg, tar, xz and gzip: no debhelper.
#
# The Debian version is the upstream version (scripts/version.sh) with
# revision DEB_REVISION (default 1); DKMS and /usr/src use the upstream one.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd -P)
distdir=${1:?usage: deb.sh DISTDIR OUTDIR [stage]}
out=${2:?usage: deb.sh DISTDIR OUTDIR [stage]}
mode=${3:-build}

umask 022
export LC_ALL=C
pkg=nfsrdma-dkms
tarball=$("$top/scripts/dist.sh" "$distdir")

rm -rf "$out/src" "$out/root"
mkdir -p "$out/src"
tar -xJf "$tarball" -C "$out/src"
src=$out/src/$(basename "$tarball" .tar.xz)
# From here on, everything comes from the unpacked tarball.
version=$("$src/scripts/version.sh")
epoch=$("$src/scripts/version.sh" --date)
export SOURCE_DATE_EPOCH=$epoch
debversion=$version-${DEB_REVISION:-1}
root=$out/root
usrsrc=$root/usr/src/nfsrdma-$version
doc=$root/usr/share/doc/$pkg
tmpl=$src/packaging/deb

# DKMS builds with 'make KVER=... module': the Makefile and Kbuild files, the
# module sources, and the scripts the Makefile runs (kver.sh when KVER is
# not given, version.sh reading VERSION).  The tests, tools and docs stay
# out: DKMS never needs them.
mkdir -p "$usrsrc/scripts"
for f in Kbuild Makefile VERSION include wire xprtrdma svcrdma \
	scripts/kver.sh scripts/version.sh; do
	cp -a "$src/$f" "$usrsrc/$f"
done
sed "s/@VERSION@/$version/" "$src/dkms.conf" >"$usrsrc/dkms.conf"

install -D -m 0644 "$src/scripts/nfsrdma.modprobe.conf" \
	"$root/etc/modprobe.d/nfsrdma.conf"

# Documentation: policy wants files over 4 KiB compressed, gzip -9n so that
# no name or time ends up in the file.
install -D -m 0644 "$tmpl/copyright" "$doc/copyright"
install -D -m 0644 "$tmpl/lintian-overrides" "$root/usr/share/lintian/overrides/$pkg"
install -D -m 0644 "$src/README.md" "$doc/README.md"
for f in "$src"/Documentation/*.rst; do
	install -D -m 0644 "$f" "$doc/Documentation/${f##*/}"
done
maintainer=$(sed -n 's/^Maintainer: //p' "$tmpl/control.in")
{
	echo "nfsrdma ($debversion) bookworm; urgency=medium"
	echo
	echo "  * nfsrdma $version, packaged by 'make deb'."
	echo
	echo " -- $maintainer  $(date -u -R -d "@$epoch")"
} >"$doc/changelog.Debian"
gzip -9n "$doc/changelog.Debian"
find "$doc" -type f ! -name copyright ! -name '*.gz' -size +4k -exec gzip -9n {} +

# Control area.  The maintainer scripts name the DKMS version they belong
# to, so that an upgrade's prerm removes the old one and not the new.
mkdir -p "$root/DEBIAN"
for s in postinst prerm postrm; do
	sed "s/@VERSION@/$version/" "$tmpl/$s" >"$root/DEBIAN/$s"
	chmod 0755 "$root/DEBIAN/$s"
done
echo /etc/modprobe.d/nfsrdma.conf >"$root/DEBIAN/conffiles"
# md5sums covers what dpkg --verify checks; conffiles have their own sums.
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
# Installed-Size as dpkg-gencontrol counts it: KiB per file rounded up, one
# per directory and symlink, so it does not depend on the filesystem.
size=$(cd "$root" && find . -path ./DEBIAN -prune -o ! -path . -printf '%y %s\n' |
	awk '{ n += ($1 == "f") ? int(($2 + 1023) / 1024) : 1 } END { print n }')
sed -e "s/@DEBVERSION@/$debversion/" -e "s/@INSTALLED_SIZE@/$size/" \
	"$tmpl/control.in" >"$root/DEBIAN/control"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

find "$root" -type d -exec chmod 0755 {} +
find "$root" -exec touch -h -d "@$epoch" {} +

if [ "$mode" = stage ]; then
	echo "$root"
	exit 0
fi
deb=$out/${pkg}_${debversion}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
