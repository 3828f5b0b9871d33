#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user events seen through the tracing tools people already have, run
# unmodified: perf record/script, trace-cmd record/report and bpftrace.
# Each case is skipped only when its tool is not installed; a tool that is
# there and does not show the records as written is a failure.
#
# The records come from the user_event_emit sample (built next to this
# script; USER_EVENT_EMIT=PATH overrides).  Each event is created through
# dynamic_events first, so that the tool finds it when it starts, and is
# deleted again at the end.  Tools enable an event a little before they
# consume it, so every case waits until the tool says it is ready and the
# status file shows it using the event, then writes its records apart in
# time.  Every wait is bounded.

DIR="$(dirname "$(readlink -f "$0")")"

KTAP_HELPERS="${DIR}/../kselftest/ktap_helpers.sh"
if [ -e "$KTAP_HELPERS" ]; then
	source "$KTAP_HELPERS"
else
	echo "$KTAP_HELPERS file not found [SKIP]"
	exit 4
fi

EMIT=${USER_EVENT_EMIT:-$DIR/user_event_emit}
READY_SECS=${TOOLS_TEST_READY_SECS:-240}	# a tool starting up (slow VMs)
STOP_SECS=120					# a tool writing out its data
NR_RECORDS=5

# The fields of the events perf and trace-cmd read: every field type of
# the ABI (user_events packs them: big is at offset 12), so that every
# print_fmt form the kernel writes is parsed and printed by both tools
FIELDS='u32 seq; s64 big; u8 small; s16 i16; char[16] word;'
FIELDS+=' __data_loc char[] dstr; __rel_loc char[] rstr; s8 i8; s32 i32;'
FIELDS+=' u16 w16; u64 w64; char ch; short sh; int in; unsigned char uc;'
FIELDS+=' unsigned short us; unsigned int ui; unsigned char[4] bytes;'
FIELDS+=' struct pair pr 8; __data_loc u8[] dbytes; __rel_loc u32[] rwords'
BIG=-1234567890123
SMALL=200
NEG=-300
WORD=hello

# value NAME N: V := field NAME of record N as the emitter takes it, and
# D := as the tools print it (the print_fmt's %d, %u, %s or __print_hex()).
# A signed field narrower than 32 bits is printed with %d, as Linux writes
# it; libtraceevent 1.7 then shows a negative value as the unsigned one of
# the field's size (-300 in an s16 as 65236), so those fields carry
# positive values here.  bpftrace reads them as signed (its test has -300).
value() {
	case "$1" in
	seq) V=$2 ;;
	big) V=$BIG ;;
	small) V=$SMALL ;;
	neg) V=$NEG ;;
	i16) V=$((30000 + $2)) ;;
	word) V=$WORD ;;
	dstr) V=dloc-$2 ;;
	rstr) V=rloc-$2 ;;
	i8) V=$((100 + $2)) ;;
	i32) V=$((-70000 - $2)) ;;
	w16) V=60000 ;;
	w64) V=18000000000000000000 ;;
	ch) V=65 ;;
	sh) V=1234 ;;
	in) V=-2000000000 ;;
	uc) V=250 ;;
	us) V=65000 ;;
	ui) V=4000000000 ;;
	bytes) V=0102037$2 ;;
	pr) V=0a0b0c0d0102030$2 ;;
	dbytes) V=09080$2 ;;
	rwords) V=0${2}000000efbeadde ;;
	esac
	D=$V
	case "$1" in
	bytes | pr | dbytes | rwords) D=$(echo "$V" | sed -e 's/../& /g; s/ $//') ;;
	esac
}

# NAMES := the field names of $FIELDS, in order ("struct T name SIZE")
names() {
	local f fs w

	NAMES=()
	IFS=';' read -ra fs <<<"$FIELDS"
	for f in "${fs[@]}"; do
		read -ra w <<<"$f"
		if [ "${w[0]}" = struct ]; then
			NAMES+=("${w[2]}")
		else
			NAMES+=("${w[-1]}")
		fi
	done
}

# values N: the emitter's arguments for record N
values() {
	local n out=()

	names
	for n in "${NAMES[@]}"; do
		value "$n" "$1"
		out+=("$V")
	done
	echo "${out[*]}"
}

# decoded N [FIELD]: how the tools print record N, following the
# print_fmt; FIELD's value as a pattern of its size in hex bytes
decoded() {
	local n out=()

	names
	for n in "${NAMES[@]}"; do
		value "$n" "$1"
		[ "$n" = "$2" ] && D=$(echo "$D" | sed -e 's/[0-9a-f][0-9a-f]/[0-9a-f][0-9a-f]/g')
		out+=("$n=$D")
	done
	echo "${out[*]}"
}

TRACEFS=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	if [ -e "$d/user_events_data" ]; then
		TRACEFS=$d
		break
	fi
done

EVENTS=()	# "name fields" created by this test, deleted on exit
PIDS=()		# tools still running on exit
WORK=

cleanup() {
	local pid ev

	for pid in "${PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for ev in "${EVENTS[@]}"; do
		echo "-:$ev" >>"$TRACEFS/dynamic_events" 2>/dev/null
	done
	[ -n "$WORK" ] && rm -rf "$WORK"
}
trap cleanup EXIT

# Print the lines of $1 (a file) indented as KTAP diagnostics.
diag() {
	sed -e 's/^/#   /' "$1" | head -n "${2:-20}"
}

# create_event NAME: a persistent user event with $FIELDS
create_event() {
	if ! echo "u:$1 $FIELDS" >>"$TRACEFS/dynamic_events"; then
		ktap_print_msg "cannot create u:$1 through dynamic_events"
		return 1
	fi
	EVENTS+=("$1 $FIELDS")
}

dyn_write() {
	echo "$1" >>"$TRACEFS/dynamic_events" 2>/dev/null
}

# delete_event NAME: delete it through dynamic_events, as a user would
delete_event() {
	local i

	# A tool that just exited may still be letting go of the event.
	if ! wait_for 10 dyn_write "-:$1 $FIELDS"; then
		ktap_print_msg "cannot delete $1 through dynamic_events"
		return 1
	fi
	for i in "${!EVENTS[@]}"; do
		[ "${EVENTS[$i]}" = "$1 $FIELDS" ] && unset "EVENTS[$i]"
	done
	if [ -e "$TRACEFS/events/user_events/$1" ]; then
		ktap_print_msg "$1 still exists after deleting it"
		return 1
	fi
}

# used_by NAME WHO: the status file says WHO (ftrace, perf) uses NAME
used_by() {
	awk -v n="$1" -v w="$2" '
		$1 == n { for (i = 2; i <= NF; i++) if ($i == w) found = 1 }
		END { exit !found }' "$TRACEFS/user_events_status"
}

# wait_for SECS CMD...: run CMD every 0.2 s until it succeeds, for at
# most SECS seconds (of wall-clock time: a slow guest runs few tries)
wait_for() {
	local end=$((SECONDS + $1))

	shift
	while ! "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# tool_ready PID CMD...: CMD succeeds, or the tool PID exited: 1 then
tool_ready() {
	local pid=$1

	shift
	"$@" && return 0
	exited "$pid" && TOOL_GONE=1
}

# wait_tool SECS PID CMD...: wait for CMD while the tool PID runs
wait_tool() {
	local secs=$1 pid=$2

	shift 2
	TOOL_GONE=
	wait_for "$secs" tool_ready "$pid" "$@" && [ -z "$TOOL_GONE" ]
}

# not_ready: why wait_tool failed
not_ready() {
	if [ -n "$TOOL_GONE" ]; then
		echo "(it exited)"
	else
		echo "within ${READY_SECS}s"
	fi
}

# exited PID: the background process PID is gone or a zombie
exited() {
	! grep -qs '^State:[[:space:]]*[^Z[:space:]]' "/proc/$1/status"
}

# show_stuck PID: where the threads of PID are, for the KTAP log
show_stuck() {
	local t

	grep -E '^(State|Sig(Pnd|Blk|Ign|Cgt)|ShdPnd):' "/proc/$1/status" |
		sed -e 's/^/#   /'
	for t in "/proc/$1/task/"*; do
		printf '#   thread %s %s: %s, wchan %s\n' "${t##*/}" \
			"$(cat "$t/comm" 2>/dev/null)" \
			"$(grep '^State:' "$t/status" 2>/dev/null | cut -f2)" \
			"$(cat "$t/wchan" 2>/dev/null)"
		sed -e 's/^/#     /' "$t/stack" 2>/dev/null
	done
}

# stop PID: SIGINT, as a user ends a tool; kill it after STOP_SECS.  Fails
# unless the tool exits 0 or by the SIGINT itself (perf re-raises it).
# bpftrace 0.17 looks at the flag its SIGINT handler sets only when
# epoll_wait() fails with EINTR, so a SIGINT that lands while it runs
# between two waits is lost and it goes on forever: press ^C again every
# 10 s, as a user would.
stop() {
	local pid=$1 rc i sigs=0 end=$((SECONDS + STOP_SECS))

	while [ "$SECONDS" -lt "$end" ]; do
		kill -INT "$pid" 2>/dev/null
		sigs=$((sigs + 1))
		wait_for 10 exited "$pid" && break
	done
	[ "$sigs" -gt 1 ] && ktap_print_msg "pid $pid needed $sigs SIGINTs"
	if ! exited "$pid"; then
		ktap_print_msg "pid $pid ignored SIGINT for ${STOP_SECS}s, killing it"
		show_stuck "$pid"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid"
	rc=$?
	for i in "${!PIDS[@]}"; do
		[ "${PIDS[$i]}" = "$pid" ] && unset "PIDS[$i]"
	done
	[ "$rc" = 0 ] || [ "$rc" = 130 ]
}

# emit NAME: write NR_RECORDS records, one per emitter run, 0.3 s apart
emit() {
	local i

	for i in $(seq "$NR_RECORDS"); do
		[ "$i" = 1 ] || sleep 0.3
		# shellcheck disable=SC2046 # one word per value
		if ! "$EMIT" "$1 $FIELDS" $(values "$i"); then
			ktap_print_msg "$EMIT failed on record $i of $1"
			return 1
		fi
	done
}

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

# A group's event (instances/$GROUP), written by the unmodified emitter
# through the container recipe: the group's user_events_data bind-mounted
# over the top-level one in a mount namespace of its own.
GROUP=selftest_tools
GSYS=user_events_$GROUP
GFIELDS='u32 seq; char[8] s'

# gemit ARGS...: the emitter, registering in the group
gemit() {
	unshare -m sh -c 'mount --make-rprivate / &&
		mount --bind "$1/instances/$2/user_events_data" "$1/user_events_data" &&
		shift 2 && exec "$@"' sh "$TRACEFS" "$GROUP" "$EMIT" "$@"
}

# gused_by NAME WHO: the group's status file says WHO uses NAME (and
# tracing is on: trace-cmd switches it off first)
gused_by() {
	awk -v n="$1" -v w="$2" '
		$1 == n { for (i = 2; i <= NF; i++) if ($i == w) found = 1 }
		END { exit !found }' "$TRACEFS/instances/$GROUP/user_events_status" &&
		[ "$(cat "$TRACEFS/tracing_on")" = 1 ]
}

# gprinted: the tool printed a line for every record (bpftrace does not
# read what is still in its buffers when it stops)
gprinted() {
	[ "$(grep -c 's=grp' tool.log)" -ge "$NR_RECORDS" ]
}

gdelete() {
	dyn_write "-:$GSYS/$1 $GFIELDS"
}

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
		if [ -n "$GWAIT" ] && ! wait_tool "$STOP_SECS" "$pid" gprinted; then
			ktap_print_msg "the tool did not print every record"
			rc=1
		fi
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

test_group_bpftrace() {
	local ev=__self_tools_gbpf_$$

	GWAIT=1 group_run perf "$ev" bpftrace -B line -e "tracepoint:$GSYS:$ev {
		printf(\"seq=%u s=%s\\n\", args->seq, args->s); }" || return 1
	group_decoded tool.log "seq="
}

# run_case TOOL NAME FUNCTION
run_case() {
	if ! command -v "$1" >/dev/null; then
		ktap_test_skip "$2 ($1 is not installed)"
		return
	fi
	local start=$SECONDS

	if "$3"; then
		ktap_print_msg "$2: $((SECONDS - start)) s"
		ktap_test_pass "$2"
	else
		ktap_print_msg "$2: $((SECONDS - start)) s"
		ktap_test_fail "$2"
	fi
}

ktap_print_header
if [ -z "$TRACEFS" ]; then
	ktap_skip_all "no user_events_data in tracefs (CONFIG_USER_EVENTS, tracefs mounted?)"
	exit "$KSFT_SKIP"
fi
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "the tools need root"
	exit "$KSFT_SKIP"
fi
if [ ! -x "$EMIT" ]; then
	ktap_exit_fail_msg "no user_event_emit at $EMIT (set USER_EVENT_EMIT)"
fi
WORK=$(mktemp -d /tmp/user_events_tools.XXXXXX) ||
	ktap_exit_fail_msg "mktemp -d failed"
cd "$WORK" || ktap_exit_fail_msg "cannot enter $WORK"

rmdir "$TRACEFS/instances/$GROUP" 2>/dev/null
ktap_set_plan 8
run_case perf perf_record_script test_perf
run_case trace-cmd trace_cmd_record_report test_trace_cmd
run_case trace-cmd trace_cmd_reused_type test_trace_cmd_reused_type
run_case bpftrace bpftrace_count test_bpftrace_count
run_case bpftrace bpftrace_args test_bpftrace_args
run_case perf group_perf_record_script test_group_perf
run_case trace-cmd group_trace_cmd_record_report test_group_trace_cmd
run_case bpftrace group_bpftrace test_group_bpftrace
ktap_finished
