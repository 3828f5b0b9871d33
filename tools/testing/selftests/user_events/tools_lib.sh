# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the tool tests of user_events share (sourced by tools_test.sh and
# the other *_test.sh scripts beside it, with DIR set to their directory):
# the KTAP helpers, the emitter sample that writes the records, the event
# of every field type the tools decode, the bounded waits, and stopping a
# tool as a user does.
#
# The records come from the user_event_emit sample (built next to the
# scripts; USER_EVENT_EMIT=PATH overrides).  Each event is created through
# dynamic_events first, so that the tool finds it when it starts, and is
# deleted again at the end.  Tools enable an event a little before they
# consume it, so every case waits until the tool says it is ready and the
# status file shows it using the event, then writes its records apart in
# time.  Every wait is bounded.

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
# positive values here.
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
# A tool that looks at the flag its SIGINT handler sets only when a wait
# fails with EINTR loses a SIGINT that lands between two waits and goes
# on forever: press ^C again every 10 s, as a user would.
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
# run_case TOOL NAME FUNCTION: a KTAP case, skipped only when TOOL is not
# installed
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

# tools_start: the checks every tool test makes first, then into a
# scratch directory that goes on exit
tools_start() {
	ktap_print_header
	if [ -z "$TRACEFS" ]; then
		ktap_skip_all "no user_events_data in tracefs" \
			"(CONFIG_USER_EVENTS, tracefs mounted?)"
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
}

# The helpers of the group cases.  The caller sets GROUP (a tracefs
# instance, made and removed by the case), GSYS (user_events_$GROUP) and
# GFIELDS (the fields of the group's events).

# gemit ARGS...: the emitter, registering in the group: the group's
# user_events_data bind-mounted over the top-level one in a mount
# namespace of its own, as a container runtime does
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

# gdelete NAME: delete the group's event NAME
gdelete() {
	dyn_write "-:$GSYS/$1 $GFIELDS"
}
