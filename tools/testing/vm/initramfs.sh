#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh KVER OUT: build the guest initramfs: static busybox, the few
# modules needed to reach the host root over 9p (in load order), and /init.
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
for m in virtio_pci 9pnet_virtio 9p overlay; do
	modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
	cp "$ko" "$tmp/modules/"
	basename "$ko" >>"$tmp/modules.order"
done

(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
