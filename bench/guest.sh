#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest (scripts/bench.sh boots it through scripts/vm.sh).
#
#   guest.sh UBENCH [UBENCH ARGS...]
#	run the benchmark; its output goes to /mnt/results/ubench.txt
#   guest.sh --profile UBENCH OPS [SECONDS]
#	for each of OPS (comma-separated names, see ubench.c): perf record
#	-a -g while UBENCH loops over it; the samples of ubench itself,
#	self and inclusive, in /mnt/results/profile-OP{,-children}.txt
set -e
R=/mnt/results
[ -d $R ] || R=${RESULTS:-.}

if [ "$1" = --profile ]; then
	bin=$2 ops=$3 sec=${4:-10}
	cd /tmp
	echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null || true
	echo -1 >/proc/sys/kernel/perf_event_paranoid 2>/dev/null || true
	for op in ${ops//,/ }; do
		# one operation at a time; its output stays off the 9p share
		perf record -q -a -g -F 1000 -o /tmp/perf-$op.data -- \
			"$bin" -o "$op" -t "$sec" >/tmp/loop-$op.txt 2>&1
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

bin=$1
shift
{
	echo "# kernel $(uname -r) $(uname -v)"
	echo "# cpus $(nproc) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
	echo "# clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
} >$R/ubench.txt
"$bin" "$@" 2>&1 | tee -a $R/ubench.txt
exit "${PIPESTATUS[0]}"
