#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpftrace on user events: it attaches a BPF program to an event's
# tracepoint through perf, counts every record and reads fields through
# args->field; and the same on a group's event written through the
# container recipe, when the kernel has groups.  Each case is skipped only
# when bpftrace is not installed (or, for the group case, when tracefs
# instances have no user_events_data).

DIR="$(dirname "$(readlink -f "$0")")"
# shellcheck source=tools_lib.sh
source "$DIR/tools_lib.sh"

show_line() {
	printf '# %s: %s\n' "${1%.log}" "$(grep -F -m1 -- "$(decoded 1)" "$1")"
}

# lines LINE FILE: how many lines of FILE are LINE
lines() {
	grep -cxF -- "$1" "$2"
}

# printed N LINE FILE: FILE has N lines that are LINE
printed() {
	[ "$(lines "$2" "$3")" -ge "$1" ]
}

# bpftrace_run NAME PROG LOG LAST N: run bpftrace PROG on NAME's records,
# which emit writes once bpftrace has attached (its BEGIN probe fires after
# the attach).  PROG prints LAST N times for them: once it has (bpftrace
# does not read what is still in its buffers when it stops), stop bpftrace
# with SIGINT, as a user would, so that it prints its maps into LOG.
bpftrace_run() {
	local ev=$1 rc=0 pid

	create_event "$ev" || return 1
	# Not under timeout(1): on SIGINT it gives its command only the -k
	# time to exit; stop() and cleanup() bound bpftrace's life instead.
	bpftrace -B line -e "BEGIN { printf(\"ready\\n\"); } $2" >"$3" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	if ! wait_tool "$READY_SECS" "$pid" grep -q '^ready$' "$3"; then
		ktap_print_msg "bpftrace did not attach to $ev $(not_ready)"
		rc=1
	elif ! used_by "$ev" perf; then
		ktap_print_msg "user_events_status does not say perf uses $ev"
		rc=1
	elif ! emit "$ev"; then
		rc=1
	elif ! wait_tool "$STOP_SECS" "$pid" printed "$5" "$4" "$3"; then
		ktap_print_msg "bpftrace printed \"$4\" $(lines "$4" "$3") time(s), not $5"
		rc=1
	fi
	if ! stop "$pid"; then
		ktap_print_msg "bpftrace failed"
		rc=1
	fi
	delete_event "$ev" || rc=1
	[ "$rc" = 0 ] || diag "$3"
	return $rc
}

test_bpftrace_count() {
	local ev=__self_tools_bpf_$$

	bpftrace_run "$ev" \
		"tracepoint:user_events:$ev { @n = count(); printf(\"hit\\n\"); }" \
		bpftrace-count.log hit "$NR_RECORDS" || return 1
	if ! grep -q "^@n: $NR_RECORDS\$" bpftrace-count.log; then
		ktap_print_msg "bpftrace did not count $NR_RECORDS records:"
		diag bpftrace-count.log
		return 1
	fi
}

# args->field: bpftrace 0.17 turns the format file into a C struct, which
# has two limits: it does not know __rel_loc ("unknown type name
# '__rel_loc'": no args for the whole event), and it lays the fields out
# with C's alignment rather than at the format's offsets (it pads gaps but
# cannot pack), so a field after a misaligned one is read at the wrong
# offset, or past the record (PERF_EVENT_IOC_SET_BPF fails with EACCES).
# So this event has no __rel_loc and its fields are naturally aligned.
test_bpftrace_args() {
	local ev=__self_tools_bargs_$$ i rc=0
	local FIELDS='s64 big; u32 seq; __data_loc char[] dstr; s16 neg; u8 small; char[16] word'

	bpftrace_run "$ev" "tracepoint:user_events:$ev {
		printf(\"big=%lld seq=%u dstr=%s neg=%d small=%u word=%s\\n\",
		       args->big, args->seq, str(args->dstr), args->neg,
		       args->small, args->word); }" \
		bpftrace-args.log "$(decoded "$NR_RECORDS")" 1 || return 1
	for i in $(seq "$NR_RECORDS"); do
		if [ "$(grep -cxF "$(decoded "$i")" bpftrace-args.log)" != 1 ]; then
			ktap_print_msg "bpftrace did not print the fields of record $i"
			rc=1
		fi
	done
	[ "$rc" = 0 ] || diag bpftrace-args.log
	show_line bpftrace-args.log
	return $rc
}

# The group case: a group's event (instances/$GROUP), written by the
# unmodified emitter through the container recipe: the group's
# user_events_data bind-mounted over the top-level one in a mount
# namespace of its own.
GROUP=selftest_bpftrace
GSYS=user_events_$GROUP
GFIELDS='u32 seq; char[8] s'

# has_groups: a tracefs instance gets a group of user events
has_groups() {
	local d=$TRACEFS/instances/$GROUP ret=1

	mkdir "$d" 2>/dev/null || return 1
	[ -e "$d/user_events_data" ] && ret=0
	rmdir "$d"
	return $ret
}

# gprinted: bpftrace printed a line for every record (it does not read
# what is still in its buffers when it stops)
gprinted() {
	[ "$(grep -c 's=grp' bpftrace-group.log)" -ge "$NR_RECORDS" ]
}

# Make the group and its persistent event, start bpftrace, wait until it
# uses the event, write NR_RECORDS records (seq=1.., s=grp), wait until
# bpftrace printed them, stop it, delete all; each record printed once
test_group_bpftrace() {
	local ev=__self_tools_gbpf_$$ rc=0 pid i n

	mkdir "$TRACEFS/instances/$GROUP" || return 1
	# -w 1: register (persistent) and give up on writing at once
	gemit -p -w 1 "$ev $GFIELDS" 0 x
	if [ ! -d "$TRACEFS/events/$GSYS/$ev" ]; then
		ktap_print_msg "the emitter did not create $GSYS/$ev"
		rmdir "$TRACEFS/instances/$GROUP"
		return 1
	fi
	bpftrace -B line -e "tracepoint:$GSYS:$ev {
		printf(\"seq=%u s=%s\\n\", args->seq, args->s); }" \
		>bpftrace-group.log 2>&1 &
	pid=$!
	PIDS+=("$pid")
	if ! wait_tool "$READY_SECS" "$pid" gused_by "$ev" perf; then
		ktap_print_msg "bpftrace did not attach to $GSYS:$ev $(not_ready)"
		rc=1
	else
		sleep 1
		for i in $(seq "$NR_RECORDS"); do
			[ "$i" = 1 ] || sleep 0.3
			gemit "$ev $GFIELDS" "$i" grp || rc=1
		done
		sleep 1
		if ! wait_tool "$STOP_SECS" "$pid" gprinted; then
			ktap_print_msg "bpftrace did not print every record"
			rc=1
		fi
	fi
	stop "$pid" || rc=1
	wait_for 10 gdelete "$ev" || rc=1
	rmdir "$TRACEFS/instances/$GROUP" || rc=1
	if [ "$rc" != 0 ]; then
		diag bpftrace-group.log
		return 1
	fi
	for i in $(seq "$NR_RECORDS"); do
		n=$(grep -F "seq=" bpftrace-group.log | grep -c "seq=$i s=grp")
		if [ "$n" != 1 ]; then
			ktap_print_msg "record $i: $n line(s) in bpftrace-group.log"
			rc=1
		fi
	done
	[ "$rc" = 0 ] || diag bpftrace-group.log
	return $rc
}

tools_start
rmdir "$TRACEFS/instances/$GROUP" 2>/dev/null
ktap_set_plan 3
run_case bpftrace bpftrace_count test_bpftrace_count
run_case bpftrace bpftrace_args test_bpftrace_args
if ! command -v bpftrace >/dev/null || has_groups; then
	run_case bpftrace group_bpftrace test_group_bpftrace
else
	ktap_test_skip "group_bpftrace (tracefs instances have no user_events_data)"
fi
ktap_finished
