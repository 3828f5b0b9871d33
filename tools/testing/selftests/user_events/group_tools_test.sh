#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf and trace-cmd on a group's event: the group of a tracefs instance,
# its event written by the unmodified emitter through the container recipe
# (the group's user_events_data bind-mounted over the top-level one in a
# mount namespace of its own), recorded and decoded by the tools as the
# host runs them.  Each case is skipped only when its tool is not
# installed.

DIR="$(dirname "$(readlink -f "$0")")"
# shellcheck source=tools_lib.sh
source "$DIR/tools_lib.sh"

GROUP=selftest_tools
GSYS=user_events_$GROUP
GFIELDS='u32 seq; char[8] s'

# group_run WHO NAME CMD...: make the group and its persistent event
# NAME, start the tool CMD, wait until it uses NAME (WHO in the status),
# write NR_RECORDS records (seq=1.., s=grp), stop the tool, delete all
group_run() {
	local who=$1 ev=$2 rc=0 pid i

	shift 2
	mkdir "$TRACEFS/instances/$GROUP" || return 1
	# -w 1: register (persistent) and give up on writing at once
	gemit -p -w 1 "$ev $GFIELDS" 0 x
	if [ ! -d "$TRACEFS/events/$GSYS/$ev" ]; then
		ktap_print_msg "the emitter did not create $GSYS/$ev"
		rmdir "$TRACEFS/instances/$GROUP"
		return 1
	fi
	"$@" >tool.log 2>&1 &
	pid=$!
	PIDS+=("$pid")
	if ! wait_tool "$READY_SECS" "$pid" gused_by "$ev" "$who"; then
		ktap_print_msg "$1 did not attach to $GSYS:$ev $(not_ready)"
		rc=1
	else
		sleep 1
		for i in $(seq "$NR_RECORDS"); do
			[ "$i" = 1 ] || sleep 0.3
			gemit "$ev $GFIELDS" "$i" grp || rc=1
		done
		sleep 1
	fi
	stop "$pid" || rc=1
	wait_for 10 gdelete "$ev" || rc=1
	rmdir "$TRACEFS/instances/$GROUP" || rc=1
	[ "$rc" = 0 ] || diag tool.log
	return $rc
}

# group_decoded FILE PREFIX: each record once, as PREFIX... seq=N s=grp
group_decoded() {
	local i n rc=0

	for i in $(seq "$NR_RECORDS"); do
		n=$(grep -F "$2" "$1" | grep -c "seq=$i s=grp")
		if [ "$n" != 1 ]; then
			ktap_print_msg "record $i: $n line(s) in $(basename "$1")"
			rc=1
		fi
	done
	[ "$rc" = 0 ] || diag "$1"
	return $rc
}

test_group_perf() {
	local ev=__self_tools_gperf_$$

	group_run perf "$ev" perf record -a -e "$GSYS:$ev" -o gperf.data || return 1
	timeout -k 10 "$READY_SECS" perf script -i gperf.data >gperf.log 2>&1 ||
		return 1
	group_decoded gperf.log "$GSYS:$ev:"
}

test_group_trace_cmd() {
	local ev=__self_tools_gtcmd_$$

	group_run ftrace "$ev" trace-cmd record -e "$GSYS:$ev" -o gtrace.dat ||
		return 1
	timeout -k 10 "$READY_SECS" trace-cmd report -i gtrace.dat \
		>gtrace.log 2>&1 || return 1
	group_decoded gtrace.log "$ev:"
}

tools_start
rmdir "$TRACEFS/instances/$GROUP" 2>/dev/null
ktap_set_plan 2
run_case perf group_perf_record_script test_group_perf
run_case trace-cmd group_trace_cmd_record_report test_group_trace_cmd
ktap_finished
