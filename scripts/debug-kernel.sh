#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh [--dir]: build the debug-tier kernel (Debian's own
# linux-source-6.1, x86_64_defconfig + scripts/debug-kernel.config, with
# the fixes in scripts/debug-kernel-*.patch) once and cache it outside the
# checkout, keyed by the source package's version and the hash of the
# fragment and patches; a second run with the same key does nothing.
#
# The cache entry DEBUG_KERNEL_CACHE/<key>/ holds bzImage, System.map,
# config, release, the source tree the modules were built in (src/, the
# KDIR our modules build against) and the installed modules (modules/).
# /lib/modules/<release> on the host points into it: the guests mount the
# host root and find their modules there, as they do for Debian's kernel.
#
# --dir prints the cache entry for the current key and fails if it is not
# built: the harness asks this, it never builds on its own.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
frag=$top/scripts/debug-kernel.config
# Fixes to the kernel itself, each for a fault that stopped the tier's
# guests before any module of ours was loaded; every file says what and why.
patches=("$top"/scripts/debug-kernel-*.patch)
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${DEBUG_KERNEL_CACHE:-/var/cache/nfsrdma/debug-kernel}
# Bump when the recipe below changes what gets built.
recipe=1

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || {
	echo "debug-kernel: linux-source-6.1 is not installed (make setup)" >&2
	exit 1
}
key=$srcver-$( (echo "recipe $recipe"; cat "$frag" "${patches[@]}") | sha256sum | cut -c1-12)
dir=$cache/$key

if [ "${1:-}" = --dir ]; then
	[ -e "$dir/done" ] || exit 1
	# The guests find their modules through /lib/modules/<release>: it
	# must lead to this entry, not to another build of the same release.
	rel=$(cat "$dir/release")
	[ "$(readlink -f "/lib/modules/$rel")" = "$(readlink -f "$dir/modules/lib/modules/$rel")" ] || {
		echo "debug-kernel: /lib/modules/$rel is not this build's (run scripts/debug-kernel.sh)" >&2
		exit 1
	}
	echo "$dir"
	exit 0
fi

# link_modules: make /lib/modules/<release> lead to this entry.  Another
# key of the same release may hold the link; the newest build wins.
link_modules() {
	local rel
	rel=$(cat "$dir/release")
	ln -sfn "$dir/modules/lib/modules/$rel" "/lib/modules/$rel.tmp"
	mv -T "/lib/modules/$rel.tmp" "/lib/modules/$rel"
}

mkdir -p "$cache"
# One builder per key; a concurrent run waits and then finds it done.
exec 9>"$cache/$key.lock"
flock 9
if [ -e "$dir/done" ]; then
	link_modules
	echo "debug-kernel: $dir (cached)"
	exit 0
fi

t0=$(date +%s)
rm -rf "$dir"
mkdir -p "$dir"
echo "debug-kernel: unpacking $tarball ($srcver)"
tar -xf "$tarball" -C "$dir"
mv "$dir/linux-source-6.1" "$dir/src"
cd "$dir/src"
for p in "${patches[@]}"; do
	echo "debug-kernel: applying ${p##*/}"
	patch -p1 --quiet --forward <"$p"
done

make -s x86_64_defconfig
scripts/kconfig/merge_config.sh -m .config "$frag" >/dev/null
make -s olddefconfig
# Kconfig drops what it cannot satisfy without a word: refuse a kernel
# that lacks anything the fragment asked for.
missing=$(grep -E '^CONFIG_[A-Za-z0-9_]+=' "$frag" | grep -vxFf .config || true)
if [ -n "$missing" ]; then
	echo "debug-kernel: options the final .config lost:" >&2
	echo "$missing" >&2
	exit 1
fi

# LOCALVERSION= on the command line: no "+" suffix from setlocalversion.
echo "debug-kernel: building $(make -s LOCALVERSION= kernelrelease) with -j2"
nice -n 10 make -j2 LOCALVERSION= bzImage modules >"$dir/build.log" 2>&1 || {
	tail -n 40 "$dir/build.log" >&2
	exit 1
}
make -s LOCALVERSION= INSTALL_MOD_PATH="$dir/modules" modules_install
make -s LOCALVERSION= kernelrelease >"$dir/release"
rel=$(cat "$dir/release")
cp arch/x86/boot/bzImage System.map "$dir/"
cp .config "$dir/config"
# Our modules build against this tree through the usual KDIR path.
ln -sfn "$dir/src" "$dir/modules/lib/modules/$rel/build"
ln -sfn "$dir/src" "$dir/modules/lib/modules/$rel/source"
echo "$(($(date +%s) - t0))" >"$dir/build-seconds"
: >"$dir/done"
link_modules

# Keep the two newest entries: each is several GB.
for old in $(ls -1td "$cache"/*/ | tail -n +3); do
	[ "${old%/}" = "$dir" ] || rm -rf "${old%/}" "${old%/}.lock"
done
echo "debug-kernel: built $rel in $(cat "$dir/build-seconds") s: $dir"
