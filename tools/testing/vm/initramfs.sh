#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh KVER OUT: build the guest initramfs: static busybox, the few
# modules needed to reach the host root over 9p (in load order; none when
# the kernel has them built in), and /init.
set -eu
kver=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/bin" "$tmp/modules" "$tmp/proc" "$tmp/sys" "$tmp/dev"
cp /bin/busybox "$tmp/bin/busybox"
cp "$here/init" "$tmp/init"
chmod +x "$tmp/init"

: >"$tmp/modules.order"
: >"$tmp/kos"
# A kernel that has them built in (the debug kernel) needs none: modprobe
# reports those as "builtin".  Any other answer is an error, not a module
# to leave out.
for m in virtio_pci 9pnet_virtio 9p overlay; do
	deps=$(modprobe -S "$kver" --show-depends "$m") || {
		echo "initramfs: modprobe cannot resolve $m for $kver" >&2
		exit 1
	}
	printf '%s\n' "$deps" | awk '$1 == "insmod" { print $2 }' >>"$tmp/kos"
done
# busybox's insmod takes plain modules; 6.12's come xz-compressed.
awk '!seen[$0]++' "$tmp/kos" | while read -r ko; do
	name=$(basename "$ko")
	case "$ko" in
	*.ko.xz) name=${name%.xz}; xz -dc "$ko" >"$tmp/modules/$name" ;;
	*.ko.zst) name=${name%.zst}; zstd -qdc "$ko" >"$tmp/modules/$name" ;;
	*) cp "$ko" "$tmp/modules/" ;;
	esac
	echo "$name" >>"$tmp/modules.order"
done
rm "$tmp/kos"

(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
