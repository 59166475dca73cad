# SPDX-License-Identifier: GPL-2.0
#
# The admin guide's doc-test: every block of Documentation/admin-guide.rst
# that a ".. admin-test:" comment gives to the server, the client or both
# is run there, in the guide's order, so the guide cannot say what the
# modules no longer do.  A console block's "# " lines are commands, run
# as root in the top of the checkout (where the guide says "in its top
# directory"); the lines after a command are its expected output, each a
# glob pattern ("*" for what varies), checked whole and retried for up to
# 10 s (an RDMA port takes seconds to become ACTIVE).  A file block is
# written to its path.  One TAP line per block and role,
# "guide-N-ROLE".  A block for one machine waits until the other machine
# has run every block before it, so the two follow the guide's order.
#
# What the guests stand in for: an init system.  Before the guide starts,
# both get tracefs mounted and drop the RDMA device the harness made
# (the guide makes its own), and the server what nfs-kernel-server's
# units provide (nfsd's file system, rpcbind, mountd, statd, and a disk
# at /srv/nfs).  The
# Debian-package block is the deb-install test's (marked "none").
TIMEOUT=600
EXPORT_FS=ext4

# guide_prepare ROLE
guide_prepare() {
	rdma_dev_del || return 1
	tracefs_mount || return 1
	[ "$1" = server ] || { pgrep -x rpcbind >/dev/null || rpcbind; return 0; }
	modprobe nfsd || return 1
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	mkdir -p "$EXPORT_DIR" /var/lib/nfs/v4recovery /run/rpcbind
	export_fs_mount || return 1
	: >/etc/exports
	rpcbind && rpc.mountd || return 1
	rpc.statd --no-notify 2>/dev/null
	# As in nfs_server_start: no 90 s NFSv4 grace period under TCG.
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
}

# guide_command CMD EXPECTED-FILE: run one command; if the guide shows its
# output, the output must match, line for line, within 10 s.
guide_command() {
	local cmd=$1 want=$2 i j out got pat ok
	for ((i = 0; i < 10; i++)); do
		# A command the guide shows no output for runs once: it may
		# change state (an append to /etc/exports).  One with output is
		# a query, retried until it prints what the guide shows.
		if ! out=$(cd "$REPO" && bash -c "$cmd" 2>/tmp/guide.err); then
			if [ ! -s "$want" ] || [ "$i" = 9 ]; then
				fail "'$cmd' failed: $(head -c 300 /tmp/guide.err)"
				return 1
			fi
			sleep 1
			continue
		fi
		[ -s "$want" ] || return 0
		ok=1
		mapfile -t got <<<"$out"
		mapfile -t pat <"$want"
		if [ "${#got[@]}" != "${#pat[@]}" ]; then
			ok=0
		else
			for j in "${!pat[@]}"; do
				# shellcheck disable=SC2053
				[[ "${got[j]%"${got[j]##*[! ]}"}" == ${pat[j]} ]] || ok=0
			done
		fi
		[ "$ok" = 1 ] && return 0
		sleep 1
	done
	fail "'$cmd' printed '$(printf '%s|' "${got[@]}")', the guide shows '$(printf '%s|' "${pat[@]}")'"
}

# guide_console FILE: the commands of one console block, in order.
guide_console() {
	local line cmd='' want=/tmp/guide.want
	: >"$want"
	while IFS= read -r line; do
		if [[ "$line" == '# '* ]]; then
			if [ -n "$cmd" ]; then
				guide_command "$cmd" "$want" || return 1
			fi
			cmd=${line#\# }
			: >"$want"
		elif [ -n "$cmd" ]; then
			printf '%s\n' "$line" >>"$want"
		fi
	done <"$1"
	[ -z "$cmd" ] || guide_command "$cmd" "$want"
}

# guide_block ROLE KIND PATH FILE
guide_block() {
	case "$2" in
	file)
		mkdir -p "$(dirname "$3")" && cp "$4" "$3"
		;;
	console)
		guide_console "$4"
		;;
	esac
}

# guide_run ROLE: walk the guide's blocks.
guide_run() {
	local role=$1 other=server n brole kind path body=/tmp/guide.block
	local wait_for= rc=0 line
	[ "$role" = server ] && other=client
	python3 "$REPO/tools/testing/doc-blocks.py" \
		"$REPO/Documentation/admin-guide.rst" >/tmp/guide.blocks ||
		{ fail "the guide's blocks do not parse"; return 1; }
	while IFS= read -r line; do
		if [[ "$line" == 'BLOCK '* ]]; then
			read -r _ n brole kind path <<<"$line"
			: >"$body"
			continue
		fi
		if [ "$line" != END ]; then
			printf '%s\n' "${line#>}" >>"$body"
			continue
		fi
		case "$brole" in
		none)
			log "guide block $n: not run here ($path)"
			continue
			;;
		"$other")
			wait_for=$n
			continue
			;;
		esac
		if [ -n "$wait_for" ]; then
			await "guide-$wait_for-$other" 300 || { signal abort; return 1; }
			wait_for=
		fi
		signalled abort && { fail "the other machine gave up"; return 1; }
		if ! subtest "guide-$n-$role" guide_block "$role" "$kind" "$path" "$body"; then
			rc=1
			signal abort
			break
		fi
		signal "guide-$n-$role"
	done </tmp/guide.blocks
	return $rc
}

test_server() {
	local rc=0
	guide_prepare server || { signal abort; return 1; }
	guide_run server || rc=1
	# rdma=y would have the next test's rpc.nfsd open the listener itself.
	rm -f /etc/nfs.conf.d/rdma.conf
	return $rc
}

test_client() {
	guide_prepare client || { signal abort; return 1; }
	guide_run client
}
