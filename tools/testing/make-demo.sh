#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-demo.sh: two VMs, NFS over RDMA between them, shown step by step.
# DEMO_TRANSPORT=ours|intree picks the modules on both VMs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/testing/lib/run.sh
. "$here/lib/run.sh"

# nfsrdma's modules at both ends by default; DEMO_TRANSPORT=intree shows
# the incumbent the same way, for comparison.
transport=${DEMO_TRANSPORT:-ours}
case "$transport" in
ours) label="nfsrdma's xprtrdma.ko (client) and svcrdma.ko (server)" ;;
intree) label="the kernel's in-tree rpcrdma.ko on both VMs (the incumbent, not nfsrdma)" ;;
*) echo "DEMO_TRANSPORT must be ours or intree" >&2; exit 2 ;;
esac
echo "== nfsrdma demo: two QEMU VMs joined by soft-RoCE (rxe), Debian $VM_KVER"
echo "== transport: $label"
vm_initramfs || exit 1
out=$(run_instance demo 2vm "$transport" "$transport")
rundir=$RESULTS/vm/demo-2vm-$transport-$transport
echo "-- client VM (192.0.2.2)"
sed -n 's/^.*DEMO: //p' "$rundir/client.out"
echo "-- server VM (192.0.2.1)"
sed -n 's/^.*DEMO: //p' "$rundir/server.out"
echo
printf '%s\n' "$out"
case "$out" in
*"not ok"*) echo "== demo FAILED; logs in $rundir"; exit 1 ;;
esac
echo "== demo passed; serial logs and outputs in $rundir"
