# SPDX-License-Identifier: GPL-2.0
#
# Load, mount, I/O, unmount, unload, CYCLES times over (20 by default),
# at both ends in lockstep: each round the server loads its transport and
# starts nfsd, the client loads its transport, mounts (NFSv3, 4.0, 4.1
# and 4.2 in turn), writes and reads back a few files, unmounts and
# unloads; then the server stops nfsd and unloads.  Every module must
# come out with no reference held, every round.  On the debug kernel
# that is where a reference, an allocation or a work item left behind by
# a connection's teardown, or a module exit racing one, shows up: as a
# module that cannot be unloaded, a kmemleak report naming the round's
# test, or a use-after-free in code of a module already gone.
TIMEOUT=1200
CYCLES=${CYCLES:-20}
VERSIONS="3 4.0 4.1 4.2"
FILE_SIZES="1 4095 4096 65537 1048576"

# unload_when_free: the transports out, once their references are gone:
# an unmount, or nfsd's stop, hands them back asynchronously.
unload_when_free() {
	local i m busy
	for ((i = 0; i < 30 * ${TIME_SCALE:-1}; i++)); do
		busy=
		for m in xprtrdma svcrdma rpcrdma; do
			[ -d "/sys/module/$m" ] || continue
			[ "$(cat "/sys/module/$m/refcnt")" = 0 ] || busy=$m
		done
		[ -z "$busy" ] && break
		sleep 1
	done
	unload_transports
}

# version_of ROUND: the NFS version round ROUND mounts.
version_of() {
	local -a v
	read -r -a v <<<"$VERSIONS"
	echo "${v[$(($1 % ${#v[@]}))]}"
}

server_round() {
	nfs_serve_prepared || return 1
	signal "ready-$1"
	await "done-$1" 300 || return 1
	nfs_server_stop || return 1
	unload_when_free
}

client_round() {
	local v
	v=$(version_of "$1")
	await "ready-$1" 300 || return 1
	nfs_client_prepare || return 1
	file_suite "$v" || return 1
	unload_when_free || return 1
	signal "done-$1"
}

test_server() {
	local i
	for ((i = 0; i < CYCLES; i++)); do
		if ! server_round "$i"; then
			fail "server round $i failed"
			signal abort
			return 1
		fi
	done
	log "server: $CYCLES rounds of load, serve, stop, unload"
}

test_client() {
	subtest "cycle-x$CYCLES" client_cycles
}

client_cycles() {
	local i
	for ((i = 0; i < CYCLES; i++)); do
		if ! client_round "$i"; then
			fail "client round $i (NFSv$(version_of "$i")) failed"
			signal "done-$i"
			signal abort
			return 1
		fi
	done
	log "client: $CYCLES rounds of load, mount, I/O, unmount, unload"
}
