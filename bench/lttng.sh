#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest, as root, after ubench (bench/guest.sh):
#
#   lttng.sh LTTNG [LTTNG ARGS...]
#
# starts an LTTng session daemon (user space only), creates a session with
# one channel whose buffers hold every record of the run (4 x 4 MiB per
# CPU, discard mode, no monitor timer), enables ubench:hit in it (ubench:off
# stays disabled), runs LTTNG (bench/lttng.c: "R"/"S" lines on stdout), then
# stops and destroys the session and the daemon.  Says on stderr how many
# records the channel discarded: a hit that finds the buffer full costs
# less than one that records, so anything but 0 spoils lttng_hit.
set -e
bin=$1
shift
export HOME=/tmp/lttng-home LTTNG_HOME=/tmp/lttng-home
trace=/tmp/lttng-trace
rm -rf "$HOME" "$trace"
mkdir -p "$HOME"

# liblttng-ust and the consumer daemon share the ring buffers through
# POSIX shared memory
if ! [ -d /dev/shm ] || ! [ -w /dev/shm ] || ! touch /dev/shm/.lttng-test 2>/dev/null; then
	mkdir -p /dev/shm
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
fi
rm -f /dev/shm/.lttng-test

log() {
	echo "lttng.sh: $*" >&2
}

# Everything that follows goes to stderr: stdout is for the figures
lt() {
	lttng "$@" >&2
}

# A root session daemon and liblttng-ust meet in /var/run/lttng (the
# guest's /var is a tmpfs without Debian's /var/run -> /run link)
[ -d /var/run ] || ln -s /run /var/run
rundir=/var/run/lttng
pidfile=$rundir/lttng-sessiond.pid
lttng-sessiond --daemonize --no-kernel ||
	{ log "lttng-sessiond failed"; exit 1; }
pid=$(cat "$pidfile" 2>/dev/null || true)
[ -n "$pid" ] || { log "no pid in $pidfile"; exit 1; }

stop_daemon() {
	lttng destroy ub >/dev/null 2>&1 || true
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	log "lttng-sessiond ($pid) still running"
}
trap stop_daemon EXIT

lt create ub --output="$trace"
lt enable-channel -u --discard --subbuf-size=4M --num-subbuf=4 \
	--monitor-timer=0 ch
lt enable-event -u -c ch ubench:hit
lt start
rc=0
"$bin" "$@" || rc=$?
stop=$(lttng stop ub 2>&1)
echo "$stop" >&2
list=$(lttng list ub 2>&1)
echo "$list" >&2
# "Discarded events: N" under the channel's statistics, and stop's warning
disc=$(echo "$list" | sed -n 's/.*Discarded events: *\([0-9]*\).*/\1/p' | head -1)
if echo "$stop" | grep -qi 'discarded\|lost'; then
	log "records were lost: lttng_hit is not a recording hit"
	[ "$rc" != 0 ] || rc=1
fi
log "discarded events: ${disc:-unknown}"
echo "# lttng discarded events: ${disc:-unknown}"
if [ -n "$disc" ] && [ "$disc" != 0 ]; then
	log "the channel discarded records: lttng_hit is not a recording hit"
	[ "$rc" != 0 ] || rc=1
fi
log "trace: $(du -sh "$trace" 2>/dev/null | cut -f1)"
exit "$rc"
