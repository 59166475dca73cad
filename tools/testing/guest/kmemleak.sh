#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmemleak.sh record|check: the debug kernel's leak check, run in the guest.
#
# record [MODULE...]: note where our modules (or those named) sit in
# memory, from /proc/modules.  A leak is usually found after its module is
# gone, and kmemleak then prints the module's frames as bare addresses:
# these records name them.  stage2 runs
# it from a modprobe install hook after every load of one of our modules
# (the test bodies, and the kernel, load and unload them at will), and
# before it unloads them.
#
# check: with every module of ours unloaded, scan twice (kmemleak reports
# an object only once it has been seen unreferenced by two scans, and only
# once it is 5 s old), keep the report in /results and on the console, and
# fail if any unreferenced object's allocation backtrace passes through our
# modules.  Each such object is also written to the kernel log as an
# "nfsrdma-kmemleak:" line, which the host's log scan fails on.  Leaks that
# never pass through our modules are the kernel's, reported but not judged.
# In a boot that several tests share, the check runs once, after the last,
# and each leak is put down to the test that was running when the object
# was allocated (stage2 records when each began, in TESTS_BEGUN).
set -u
OURS="xprtrdma svcrdma nfsrdma_wire nfsrdma_selftest"
RANGES=/run/nfsrdma/modranges
TESTS_BEGUN=/run/nfsrdma/tests-begun
KMEMLEAK=/sys/kernel/debug/kmemleak

record() {
	local m name size refs deps state addr taint mods
	mkdir -p "${RANGES%/*}"
	mods=${*:-$OURS}
	for m in $mods; do
		# Out-of-tree modules end their line with a taint field, "(O)".
		# shellcheck disable=SC2034
		while read -r name size refs deps state addr taint; do
			[ "$name" = "$m" ] || continue
			range_add "$name $addr $size"
		done </proc/modules
		init_range "$m"
	done
}

# range_add LINE: add a record once.  In bash alone, as is all of record
# that can be: it runs on every load of a module of ours, and on the debug
# kernel each program it starts costs about a second.
range_add() {
	local l
	if [ -e "$RANGES" ]; then
		while IFS= read -r l; do
			[ "$l" = "$1" ] && return 0
		done <"$RANGES"
	fi
	echo "$1" >>"$RANGES"
}

# init_range MODULE: record the module's init text too.  It is freed once
# the module is loaded, so an allocation made from module_init shows as a
# bare address outside the core range; /proc/modules does not list it,
# but sysfs keeps its address and the .ko its size (read once per .ko:
# the cache holds the file's name and is newer than the file).
init_range() {
	local addr ko size cache=${RANGES%/*}/init-size.$1 cko
	read -r addr 2>/dev/null <"/sys/module/$1/sections/.init.text" || return 0
	ko=$(modinfo -n "$1" 2>/dev/null) || return 0
	size=
	if [ "$cache" -nt "$ko" ] && read -r cko size <"$cache" && [ "$cko" = "$ko" ]; then
		:
	else
		size=$(objdump -h "$ko" 2>/dev/null | awk '$2 == ".init.text" { print "0x" $3 }')
		echo "$ko $size" >"$cache"
	fi
	[ -n "$size" ] || return 0
	range_add "$1 $addr $((size))"
}

# owner SYMBOL: the module of ours a backtrace frame lies in, if any: named
# by kallsyms while the module is loaded, by the recorded ranges after.
owner() {
	local sym=$1 name addr size a
	case "$sym" in
	*\[*\]) name=${sym##*[}; name=${name%]}
		case " $OURS " in *" $name "*) echo "$name" ;; esac
		return ;;
	0x[0-9a-f]*) ;;
	*) return ;;
	esac
	a=$((sym))
	[ -e "$RANGES" ] || return
	while read -r name addr size; do
		if ((a >= addr && a < addr + size)); then
			echo "$name"
			return
		fi
	done <"$RANGES"
}

# test_at SECONDS: the test running at that uptime, from TESTS_BEGUN
# ("UPTIME TEST" lines, in order); empty for a boot with one test.
test_at() {
	local t name at=
	[ -e "$TESTS_BEGUN" ] || return 0
	while read -r t name; do
		awk -v a="$1" -v b="$t" 'BEGIN { exit !(a >= b) }' && at=$name
	done <"$TESTS_BEGUN"
	echo "$at"
}

check() {
	local out=/results/$1-kmemleak.txt m obj="" mods="" n=0 line sym born=""
	local now
	[ -e "$KMEMLEAK" ] || mount -t debugfs debugfs /sys/kernel/debug
	[ -e "$KMEMLEAK" ] || { echo "kmemleak: $KMEMLEAK missing"; return 1; }
	for m in $OURS; do
		[ -d "/sys/module/$m" ] || continue
		record "$m"
		rmmod "$m" || { echo "kmemleak: cannot unload $m"; return 1; }
	done
	sleep 5
	echo scan >"$KMEMLEAK" || return 1
	sleep 1
	echo scan >"$KMEMLEAK" || return 1
	cat "$KMEMLEAK" >"$out"
	now=$(cut -d' ' -f1 /proc/uptime)
	echo "kmemleak: $(grep -c '^unreferenced object' "$out") unreferenced objects in the kernel, report in $out"
	sed 's/^/kmemleak-report: /' "$out" >/dev/console
	# Blocks start at "unreferenced object"; frames are "[<addr>] symbol".
	while IFS= read -r line; do
		case "$line" in
		"unreferenced object "*)
			[ -n "$mods" ] && { n=$((n + 1)); blame "$obj" "$mods" "$born"; }
			obj=${line#unreferenced object } mods="" born=""
			;;
		*"jiffies "*"(age "*"s)"*)
			# Its age at the scan, back to an uptime.
			born=${line##*(age }
			born=$(awk -v n="$now" -v a="${born%s)*}" 'BEGIN { printf "%.1f", n - a }')
			;;
		*"[<"*"]"*)
			sym=${line##* }
			m=$(owner "$sym")
			[ -n "$m" ] && case " $mods " in *" $m "*) ;; *) mods+="${mods:+,}$m" ;; esac
			;;
		esac
	done <"$out"
	[ -n "$mods" ] && { n=$((n + 1)); blame "$obj" "$mods" "$born"; }
	[ "$n" = 0 ]
}

# blame OBJECT MODULES BORN: one kernel-log line per leak of ours, naming
# the test that was running when it was allocated (at uptime BORN).
blame() {
	local during=""
	[ -n "$3" ] && during=$(test_at "$3")
	echo "nfsrdma-kmemleak: unreferenced object $1 allocated through $2${during:+ during $during}" |
		tee /dev/kmsg
}

case "${1:-}" in
record) shift; record "$@" ;;
check) check "${2:?role}" ;;
*) echo "usage: kmemleak.sh record [MODULE...] | check ROLE" >&2; exit 2 ;;
esac
