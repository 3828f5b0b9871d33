#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest for `make check`: the kselftests, then the checks
# that only make sense once every test process has exited (pinned pages,
# kmemleak).  KTAP goes to the results share.
#   guest-check.sh KSELFTEST_INSTALL_DIR
R=/mnt/results
KSFT=${1:?usage: guest-check.sh KSELFTEST_DIR}
ML=/sys/kernel/debug/kmemleak

pins() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# Leaks from boot are not ours: mark everything known so far as seen.
[ -w $ML ] && { echo scan >$ML; echo clear >$ML; }

cd "$KSFT" || exit 1
# The default set, as run_tests and a CI farm run it
./run_kselftest.sh 2>&1 | tee $R/kselftest.ktap

# The extended tests (TEST_GEN_PROGS_EXTENDED, TEST_PROGS_EXTENDED: fuzz,
# stress, fault injection and the tracing tools) are installed beside the
# default set but not listed in kselftest-list.txt: every *_test and
# *_test.sh there that the list does not name.  The kselftest runner runs
# them as it runs the others, so that their KTAP nests the same way.
extended=
for t in user_events/*_test user_events/*_test.sh; do
	[ -x "$t" ] || continue
	grep -qx "user_events:${t##*/}" kselftest-list.txt || extended="$extended ${t##*/}"
done
# shellcheck disable=SC2086,SC2034,SC1091 # one word per test; runner.sh reads BASE_DIR
(BASE_DIR=$PWD && . ./kselftest/runner.sh && cd user_events && run_many $extended) 2>&1 |
	tee -a $R/kselftest.ktap

# The tracing tools of the host start on this kernel and see its events.
tool() {
	local n=$1 name=$2
	shift 2
	if ! command -v "$1" >/dev/null; then
		echo "ok $n $name # SKIP $1 not installed"
	elif out=$(timeout 300 "$@" 2>&1) && echo "$out" | grep -q 'sched.*sched_switch'; then
		echo "ok $n $name"
	else
		echo "$out" | tail -n 5 | sed 's/^/# /'
		echo "not ok $n $name"
	fi
}

{
	echo "TAP version 13"
	echo "1..7"
	# Fold the per-CPU counter deltas first, or the two can differ by a
	# few, and wait until no pin is in flight (a tool's perf event can be
	# released a moment after the tool exits, toggling the event): read
	# until two folded readings a second apart agree.
	prev=
	for _ in $(seq 20); do
		echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
		now="$(pins nr_foll_pin_acquired) $(pins nr_foll_pin_released)"
		[ "$now" = "$prev" ] && break
		prev=$now
		sleep 1
	done
	acq=${now% *} rel=${now#* }
	if [ -n "$acq" ] && [ "$acq" = "$rel" ]; then
		echo "ok 1 foll_pin_balanced # acquired=$acq released=$rel"
	else
		echo "not ok 1 foll_pin_balanced # acquired=$acq released=$rel"
	fi
	if [ -w $ML ]; then
		echo scan >$ML
		sleep 1
		echo scan >$ML
		if [ -s $ML ]; then
			sed 's/^/# /' $ML | head -n 60
			echo "not ok 2 kmemleak_clean # $(grep -c 'unreferenced object' $ML) leaks"
		else
			echo "ok 2 kmemleak_clean"
		fi
	else
		echo "ok 2 kmemleak_clean # SKIP kmemleak not available"
	fi
	tool 3 perf_lists_tracepoints perf list tracepoint
	tool 4 trace_cmd_lists_events trace-cmd list -e
	tool 5 bpftrace_lists_tracepoints bpftrace -l 'tracepoint:sched:*'
	# No event of a test is left, and nothing at all once they are gone
	status=$(cat /sys/kernel/tracing/user_events_status 2>/dev/null)
	left=$(echo "$status" | grep -c '^__self_')
	active=$(echo "$status" | awk '/^Active:/ { print $2 }')
	if [ -z "$active" ]; then
		echo "not ok 6 user_events_none_left # no user_events_status"
	elif [ "$left" = 0 ] && [ "$active" = 0 ]; then
		echo "ok 6 user_events_none_left # Active: 0"
	else
		echo "$status" | head -n 20 | sed 's/^/# /'
		echo "not ok 6 user_events_none_left # $left test events, Active: $active"
	fi
	# Dedicated slab caches, if the kernel has any, hold no object once
	# shrunk (which flushes the per-CPU slabs that count as in use)
	slabs= merged=
	for d in /sys/kernel/slab/user_event*; do
		[ -e "$d" ] || continue
		if [ -L "$d" ]; then
			merged="$merged ${d##*/}"
			continue
		fi
		echo 1 >"$d/shrink" 2>/dev/null
		slabs="$slabs ${d##*/}=$(cut -d' ' -f1 "$d/objects")"
	done
	if [ -z "$slabs$merged" ]; then
		echo "ok 7 user_events_slab_empty # SKIP no user_event* slab caches"
	elif [ -z "$slabs" ]; then
		echo "ok 7 user_events_slab_empty # SKIP merged with other caches:$merged"
	elif echo "$slabs" | tr ' ' '\n' | grep -q '=[1-9]'; then
		echo "not ok 7 user_events_slab_empty # objects in use:$slabs"
	else
		echo "ok 7 user_events_slab_empty # objects in use:$slabs"
	fi
} | tee $R/guest.ktap
exit 0
