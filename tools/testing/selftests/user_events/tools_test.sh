#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user events seen through the tracing tools people already have, run
# unmodified: perf record/script and trace-cmd record/report.  Each case
# is skipped only when its tool is not installed; a tool that is there and
# does not show the records as written is a failure.

DIR="$(dirname "$(readlink -f "$0")")"
# shellcheck source=tools_lib.sh
source "$DIR/tools_lib.sh"

# check_decoded FILE NAME [FIELD]: each record of NAME is in FILE,
# decoded, once; FIELD (if given) only as bytes of the right number
check_decoded() {
	local i n ok=0

	for i in $(seq "$NR_RECORDS"); do
		n=$(grep -F "$2" "$1" | grep -cG -- "$(decoded "$i" "$3")")
		if [ "$n" != 1 ]; then
			ktap_print_msg "record $i: $n line(s) with \"$(decoded "$i" "$3")\""
			ok=1
		fi
	done
	return $ok
}

# show_line FILE: the line of record 1, as the tool printed it
show_line() {
	printf '# %s: %s\n' "${1%.log}" "$(grep -F -m1 -- "$(decoded 1)" "$1")"
}

# no_warnings FILE: no sign that a tool failed to decode something (perf
# and libtraceevent say "[FAILED TO PARSE]", "Error: expected type ...",
# "unknown op", "warning: ..." or "bad op token")
no_warnings() {
	local bad='failed to parse|error|unknown|warning|bad op|expected'

	if grep -n -i -E "$bad" "$1" >"$1.warn"; then
		ktap_print_msg "warnings in $(basename "$1"):"
		diag "$1.warn"
		return 1
	fi
}

test_perf() {
	local ev=__self_tools_perf_$$ ack rc=0 pid

	create_event "$ev" || return 1
	# Start with the event disabled and enable it through the control
	# fifo: perf acknowledges once the event really records.
	mkfifo ctl.fifo ack.fifo
	perf record -a -e "user_events:$ev" -o perf.data -D -1 \
		--control fifo:ctl.fifo,ack.fifo >perf-record.log 2>&1 &
	pid=$!
	PIDS+=("$pid")
	exec 8<>ctl.fifo 9<>ack.fifo
	echo enable >&8
	if ! read -r -t "$READY_SECS" -u 9 ack || [ "$ack" != ack ]; then
		ktap_print_msg "perf record did not acknowledge \"enable\" within ${READY_SECS}s"
		rc=1
	elif ! used_by "$ev" perf; then
		ktap_print_msg "user_events_status does not say perf uses $ev"
		rc=1
	else
		emit "$ev" || rc=1
	fi
	exec 8>&- 9<&-
	if ! stop "$pid"; then
		ktap_print_msg "perf record failed"
		rc=1
	fi
	if [ "$rc" != 0 ]; then
		diag perf-record.log
		delete_event "$ev"
		return 1
	fi
	delete_event "$ev" || rc=1

	if ! timeout -k 10 "$READY_SECS" perf script -i perf.data >perf-script.log 2>&1; then
		ktap_print_msg "perf script failed"
		diag perf-script.log
		return 1
	fi
	# perf 6.1's own copy of libtraceevent applies a __rel_loc word's
	# offset to strings only: __print_hex() of a __rel_loc array shows
	# the right number of bytes from the wrong place (trace-cmd's
	# libtraceevent 1.7 decodes it, test_trace_cmd checks it).
	check_decoded perf-script.log "user_events:$ev:" rwords || rc=1
	no_warnings perf-script.log || rc=1
	[ "$rc" = 0 ] || diag perf-script.log
	show_line perf-script.log
	return $rc
}

# trace-cmd record is ready when it has enabled the event and switched
# tracing on (it switches it off first).
trace_cmd_ready() {
	used_by "$1" ftrace && [ "$(cat "$TRACEFS/tracing_on")" = 1 ]
}

test_trace_cmd() {
	local ev=__self_tools_tcmd_$$ rc=0 pid

	create_event "$ev" || return 1
	trace-cmd record -e "user_events:$ev" -o trace.dat >trace-cmd-record.log 2>&1 &
	pid=$!
	PIDS+=("$pid")
	if ! wait_tool "$READY_SECS" "$pid" trace_cmd_ready "$ev"; then
		ktap_print_msg "trace-cmd record did not enable $ev $(not_ready)"
		rc=1
	else
		sleep 1
		emit "$ev" || rc=1
		sleep 1
	fi
	if ! stop "$pid"; then
		ktap_print_msg "trace-cmd record failed"
		rc=1
	fi
	if [ "$rc" != 0 ]; then
		diag trace-cmd-record.log
		delete_event "$ev"
		return 1
	fi
	delete_event "$ev" || rc=1

	if ! timeout -k 10 "$READY_SECS" trace-cmd report -i trace.dat \
			>trace-cmd-report.log 2>&1; then
		ktap_print_msg "trace-cmd report failed"
		diag trace-cmd-report.log
		return 1
	fi
	check_decoded trace-cmd-report.log "$ev:" || rc=1
	no_warnings trace-cmd-report.log || rc=1
	no_warnings trace-cmd-record.log || rc=1
	[ "$rc" = 0 ] || diag trace-cmd-report.log
	show_line trace-cmd-report.log
	return $rc
}

# The records of a deleted event stay in the ring buffer, and trace-cmd
# extract reads them with the formats of the events that exist when it
# runs: if the next event registered took the deleted one's type, trace-cmd
# report would show them as its own.  (perf records only the events it
# opened, so it never sees another event's records.)
test_trace_cmd_reused_type() {
	local old=__self_tools_old_$$ new=__self_tools_new_$$ rc=0 pid n ev i

	echo >"$TRACEFS/trace"
	# The old event is the emitter's; the new one is created (persistent,
	# so that it is there when trace-cmd extract reads the formats) once
	# the old one is gone
	for ev in "$old u32 a; char[8] s" "$new u64 x"; do
		if [ "${ev%% *}" = "$old" ]; then
			"$EMIT" -w 60000 -n 3 -i 100 "$ev" 3735928559 oldrec &
		else
			if ! echo "u:$ev" >>"$TRACEFS/dynamic_events"; then
				ktap_print_msg "cannot create u:$ev"
				return 1
			fi
			EVENTS+=("$ev")
			"$EMIT" -w 60000 "$ev" 77 &
		fi
		pid=$!
		PIDS+=("$pid")
		ev=${ev%% *}
		if ! wait_for 60 test -e "$TRACEFS/events/user_events/$ev/enable"; then
			ktap_print_msg "the emitter did not register $ev"
			return 1
		fi
		echo 1 >"$TRACEFS/events/user_events/$ev/enable"
		wait "$pid" || { ktap_print_msg "the emitter of $ev failed"; rc=1; }
		for i in "${!PIDS[@]}"; do
			[ "${PIDS[$i]}" = "$pid" ] && unset "PIDS[$i]"
		done
		echo 0 >"$TRACEFS/events/user_events/$ev/enable"
		[ "$ev" = "$old" ] || continue
		# Disabled, and its registrant gone: the old event goes
		if ! wait_for 10 test ! -e "$TRACEFS/events/user_events/$old"; then
			ktap_print_msg "$old stayed after its registrant's exit"
			return 1
		fi
	done

	if ! timeout -k 10 "$READY_SECS" trace-cmd extract -o reuse.dat \
			>trace-cmd-extract.log 2>&1; then
		ktap_print_msg "trace-cmd extract failed"
		diag trace-cmd-extract.log
		return 1
	fi
	if ! timeout -k 10 "$READY_SECS" trace-cmd report -i reuse.dat \
			>trace-cmd-reuse.log 2>&1; then
		ktap_print_msg "trace-cmd report failed"
		diag trace-cmd-reuse.log
		return 1
	fi
	n=$(grep -c " $new:" trace-cmd-reuse.log)
	if [ "$n" != 1 ] || ! grep " $new:" trace-cmd-reuse.log | grep -q 'x=77$'; then
		ktap_print_msg "trace-cmd report: $n record(s) of $new, which wrote one (x=77)"
		diag trace-cmd-reuse.log
		rc=1
	fi
	printf '# trace-cmd-reuse: %s\n' "$(grep -m1 " $new:" trace-cmd-reuse.log)"
	wait_for 10 dyn_write "-:$new u64 x" || rc=1
	for i in "${!EVENTS[@]}"; do
		[ "${EVENTS[$i]}" = "$new u64 x" ] && unset "EVENTS[$i]"
	done
	return $rc
}

tools_start
ktap_set_plan 3
run_case perf perf_record_script test_perf
run_case trace-cmd trace_cmd_record_report test_trace_cmd
run_case trace-cmd trace_cmd_reused_type test_trace_cmd_reused_type
ktap_finished
