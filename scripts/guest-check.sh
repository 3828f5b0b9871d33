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
./run_kselftest.sh 2>&1 | tee $R/kselftest.ktap

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
	echo "1..5"
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
} | tee $R/guest.ktap
exit 0
