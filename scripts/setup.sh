#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package that building, testing, the demo and the
# benchmarks need.  Idempotent and quiet when everything is present, so that
# 'make check' and 'make demo' can call it unconditionally on a fresh machine.
set -eu

PKGS="build-essential bc flex bison libelf-dev kmod cpio busybox-static
qemu-system-x86 linux-image-amd64 linux-headers-amd64 sparse
rdma-core ibverbs-utils rdmacm-utils ibverbs-providers perftest
libibverbs-dev librdmacm-dev
nfs-kernel-server nfs-common rpcbind fio tshark iproute2 procps acl linux-perf
libcmocka-dev clang libclang-rt-14-dev gnuplot-nox python3 e2fsprogs util-linux
linux-source-6.1 xz-utils libssl-dev rsync git lintian iputils-ping
systemd dkms krb5-kdc krb5-admin-server krb5-user"

# --check: also Debian 12's 6.12 kernel and headers, which make check boots
# for what only 6.12 can ask of our server (krb5p, a listener bound to one
# address).  --kernels: that and its 6.1 PREEMPT_RT kernel and headers
# (make check-kernels).
case "${1:-}" in
--check)
	PKGS="$PKGS linux-image-6.12-amd64 linux-headers-6.12-amd64"
	;;
--kernels)
	PKGS="$PKGS linux-image-6.12-amd64 linux-headers-6.12-amd64
linux-image-rt-amd64 linux-headers-rt-amd64 zstd"
	;;
esac

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	exit 0
fi
echo "setup: installing:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "setup: must run as root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer once, non-interactively.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
