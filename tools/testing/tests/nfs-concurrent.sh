# SPDX-License-Identifier: GPL-2.0
#
# Four concurrent clients with verify=crc32c for FIO_SECONDS: NFSv4.2 and
# NFSv3 mounts of the same export at once (two RPC-over-RDMA connections,
# since each version has its own transport), two fio jobs on each.
TIMEOUT=600
FIO_SECONDS=60

concurrent_fio() {
	local m pids="" rc=0
	nfs_client_prepare || return 1
	mkdir -p /mnt/c42 /mnt/c3
	mount -t nfs -o "vers=4.2,rdma,port=$NFS_PORT" "$SERVER_ADDR:/" /mnt/c42 || return 1
	mount -t nfs -o "vers=3,rdma,port=$NFS_PORT" "$SERVER_ADDR:$EXPORT_DIR" /mnt/c3 ||
		{ umount /mnt/c42; return 1; }
	grep -E ' /mnt/c(42|3) ' /proc/mounts
	for m in c42 c3; do
		mkdir -p "/mnt/$m/$m"
		fio --name="$m" --directory="/mnt/$m/$m" --rw=randrw --bsrange=4k-128k \
			--size=32m --ioengine=psync --direct=1 --verify=crc32c --verify_fatal=1 \
			--do_verify=1 --time_based --runtime="$FIO_SECONDS" --numjobs=2 \
			--output="/tmp/fio-$m.out" &
		pids+=" $!"
	done
	for m in $pids; do
		wait "$m" || rc=1
	done
	for m in c42 c3; do
		grep -E 'READ:|WRITE:' "/tmp/fio-$m.out"
		[ "$(grep -c 'err= 0' "/tmp/fio-$m.out")" = 2 ] ||
			fail "fio on $m reported errors" || rc=1
		rm -rf "/mnt/$m/$m"
	done
	umount /mnt/c42 || rc=1
	umount /mnt/c3 || rc=1
	return $rc
}

test_single() {
	local_nfs subtest four-clients-verify concurrent_fio
}

test_server() {
	serve_nfs 500
}

test_client() {
	as_client subtest four-clients-verify concurrent_fio
}
