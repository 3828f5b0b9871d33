#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpftrace on user events: it attaches a BPF program to an event's
# tracepoint through perf, counts every record and reads fields through
# args->field.  Each case is skipped only when bpftrace is not installed.

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
# with SIGINT, as a user would, so that it prints its maps into LOG
# (bpftrace 0.17 sees a SIGINT only when epoll_wait() fails with EINTR:
# stop() presses ^C again until it goes).
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

tools_start
ktap_set_plan 2
run_case bpftrace bpftrace_count test_bpftrace_count
run_case bpftrace bpftrace_args test_bpftrace_args
ktap_finished
