#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make run: the guest side of the demo.  The sample program registers the
# user event "test", ftrace enables it, the sample sees its enable bit and
# writes records, and the trace shows them.
#   demo.sh SAMPLES_DIR
set -e
SAMPLES=${1:?usage: demo.sh SAMPLES_DIR}
T=/sys/kernel/tracing
EV=${DEMO_EVENT:-test}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "start samples/user_events/example (registers '$EV', writes only while enabled)"
"$SAMPLES/example" &
pid=$!
for _ in $(seq 50); do
	[ -e $T/events/user_events/$EV/enable ] && break
	sleep 0.1
done

step "cat $T/user_events_status"
cat $T/user_events_status
step "cat $T/events/user_events/$EV/format"
cat $T/events/user_events/$EV/format

step "echo 1 > $T/events/user_events/$EV/enable"
echo >$T/trace
echo 1 >$T/events/user_events/$EV/enable
cat $T/user_events_status
sleep 3
echo 0 >$T/events/user_events/$EV/enable

step "cat $T/trace"
grep -v '^#' $T/trace | head -n 20
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null || true
n=$(grep -vc '^#' $T/trace || true)
step "$n records of user_events:$EV were traced"
[ "$n" -gt 0 ]
