# SPDX-License-Identifier: GPL-2.0
# probe (temporary)
TIMEOUT=400
test_server() {
	ls /sys/class/infiniband/rxe0/ports/1/gids/
	for i in 0 1 2 3; do echo "$i $(cat /sys/class/infiniband/rxe0/ports/1/gids/$i) $(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i 2>&1)"; done
	ibv_devinfo -v | head -40
	time dd if=/dev/urandom of=/tmp/x bs=1M count=64
	rm /tmp/x
	ib_write_bw -d rxe0 -x 1 -F -D 5 --out_json --out_json_file=/results/srv-wbw.json > /results/srv-wbw.txt 2>&1 &
	for i in $(seq 50); do ss -ltn | grep -q ':18515 ' && break; sleep 0.2; done
	ss -ltn
	signal wbw
	wait
	ib_write_bw -d rxe0 -R -F -D 5 > /results/srv-wbwR.txt 2>&1 &
	sleep 2
	signal wbwR
	wait
	ib_send_lat -d rxe0 -x 1 -F -n 1000 > /results/srv-lat.txt 2>&1 &
	for i in $(seq 50); do ss -ltn | grep -q ':18515 ' && break; sleep 0.2; done
	signal lat
	wait
	await client-done 300
}
test_client() {
	await wbw 120 || return 1
	time ib_write_bw -d rxe0 -x 1 -F -D 5 --out_json --out_json_file=/results/cli-wbw.json 192.0.2.1 > /results/cli-wbw.txt 2>&1
	await wbwR 120 || return 1
	time ib_write_bw -d rxe0 -R -F -D 5 192.0.2.1 > /results/cli-wbwR.txt 2>&1
	await lat 120 || return 1
	time ib_send_lat -d rxe0 -x 1 -F -n 1000 192.0.2.1 > /results/cli-lat.txt 2>&1
	signal client-done
}
