#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (scripts/bench.sh boots it through scripts/vm.sh).
#
#   guest.sh UBENCH [UBENCH ARGS...]
#	run the benchmark; its output goes to /mnt/results/ubench.txt,
#	followed by bench/lttng.sh's when UBENCH's directory has lttng
#   guest.sh --twice UBENCH [UBENCH ARGS...]
#	the same, then a second run in the same boot into ubench-2.txt
#	(counting mode: a figure is published when both runs agree), with
#	address space randomization off, so that both runs' processes have
#	the same layout (and fork() the same page tables to copy)
#   guest.sh --profile UBENCH OPS [SECONDS [HZ]]
#	for each of OPS (comma-separated names, see ubench.c): perf record
#	-a -g while UBENCH loops over it; the samples of ubench itself,
#	self and inclusive, in /mnt/results/profile-OP{,-children}.txt
set -e
R=/mnt/results
[ -d $R ] || R=${RESULTS:-.}

if [ "$1" = --profile ]; then
	bin=$2 ops=$3 sec=${4:-10} freq=${5:-1000}
	cd /tmp
	echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null || true
	echo -1 >/proc/sys/kernel/perf_event_paranoid 2>/dev/null || true
	echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || true
	echo 100 >/proc/sys/kernel/perf_cpu_time_max_percent 2>/dev/null || true
	for op in ${ops//,/ }; do
		# one operation at a time; its output stays off the 9p share
		perf record -q -a -g -F "$freq" -o /tmp/perf-$op.data -- \
			"$bin" -o "$op" -t "$sec" >/tmp/loop-$op.txt 2>&1 ||
			{ tail -20 /tmp/loop-$op.txt; exit 1; }
		tail -3 /tmp/loop-$op.txt >$R/loop-$op.txt
		# percentages of ubench's own samples
		perf report -i /tmp/perf-$op.data --comm ubench --percentage relative \
			--stdio --no-children -n --percent-limit 0.3 --sort symbol -g none \
			2>/dev/null >$R/profile-$op.txt
		perf report -i /tmp/perf-$op.data --comm ubench --percentage relative \
			--stdio --children --percent-limit 1 --sort symbol -g none \
			2>/dev/null >$R/profile-$op-children.txt
		echo "== $op: $(tail -1 /tmp/loop-$op.txt)"
		grep -v '^#' $R/profile-$op.txt | grep . | head -40
	done
	exit 0
fi

runs=1
if [ "$1" = --twice ]; then
	runs=2
	shift
	echo 0 >/proc/sys/kernel/randomize_va_space
fi
bin=$1
shift
# bench/lttng.sh after ubench, with ubench's -c and -r N, where LTTng is
# installed and bench.sh built bench/lttng.c beside ubench
lt=$(dirname "$bin")/lttng lt_args=()
a=("$@")
for i in "${!a[@]}"; do
	case "${a[i]}" in
	-c) lt_args+=(-c) ;;
	-r) lt_args+=(-r "${a[i + 1]}") ;;
	esac
done
for run in $(seq $runs); do
	out=$R/ubench.txt
	[ "$run" = 1 ] || out=$R/ubench-$run.txt
	{
		echo "# kernel $(uname -r) $(uname -v)"
		echo "# cpus $(nproc) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
		echo "# clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
		echo "# run $run of $runs in this boot"
	} >"$out"
	"$bin" "$@" 2>&1 | tee -a "$out"
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || exit "$rc"
	if [ -x "$lt" ] && command -v lttng-sessiond >/dev/null; then
		# its stderr (lttng's messages) only on the console
		"$(dirname "$0")/lttng.sh" "$lt" "${lt_args[@]}" | tee -a "$out"
		[ "${PIPESTATUS[0]}" = 0 ] || echo "# lttng.sh failed" | tee -a "$out"
	fi
done
