#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that nothing of the kernel's own user_events is left in a tree.
# Usage: check-base.sh DIR
set -e
dir=${1:?usage: check-base.sh DIR}
cd "$dir"
bad=0
for p in kernel/trace/trace_events_user.c include/linux/user_events.h \
	 include/uapi/linux/user_events.h Documentation/trace/user_events.rst \
	 samples/user_events tools/testing/selftests/user_events; do
	[ -e "$p" ] && { echo "left over: $p"; bad=1; }
done
hits=$(grep -rnE 'user_events|USER_EVENTS|trace_events_user|user_event_mm|DIAG_IOCS' \
	--include='*.[ch]' --include='Kconfig*' --include='Makefile' --include='*.rst' \
	--include='*defconfig' . 2>/dev/null || true)
if [ -n "$hits" ]; then
	echo "left over references:"; echo "$hits"; bad=1
fi
[ $bad = 0 ] || { echo "base tree still contains user_events" >&2; exit 1; }
echo "check-base: no trace of user_events in $dir"
