#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that nothing of the kernel's own user_events is left in a tree, and
# that removing it touched only user_events' own files and lines.
# Usage: check-base.sh DIR
#
# Three things stay on purpose, and only they may mention user_events:
#   - tools/testing/selftests/user_events/user_events_selftests.h, as it is
#     in the stock tree: tools/testing/selftests/ring-buffer/map_test.c
#     includes it for its tracefs setup (the series' selftests replace it
#     with a header that keeps that helper).  Its content is not read here.
#   - that #include line of map_test.c;
#   - CONFIG_USER_EVENTS=y in the s390 defconfigs (kconfig ignores the
#     symbol until the series adds it again).
# When DIR is a git repository with the tag "stock", its working tree is
# also compared with that tag: only the paths below may differ, and the
# kept header must not.
set -e
dir=${1:?usage: check-base.sh DIR}
cd "$dir"
bad=0
KEPT=tools/testing/selftests/user_events/user_events_selftests.h

for p in kernel/trace/trace_events_user.c include/linux/user_events.h \
	 include/uapi/linux/user_events.h Documentation/trace/user_events.rst \
	 samples/user_events; do
	[ -e "$p" ] && { echo "left over: $p"; bad=1; }
done
if [ -d tools/testing/selftests/user_events ]; then
	left=$(find tools/testing/selftests/user_events -mindepth 1 ! -path "$KEPT")
	[ -z "$left" ] || { echo "left over:"; echo "$left"; bad=1; }
fi

hits=$(grep -rnE 'user_events|USER_EVENTS|trace_events_user|user_event_mm|DIAG_IOCS' \
	--exclude-dir=.git --include='*.[ch]' --include='Kconfig*' --include='Makefile' \
	--include='*.rst' --include='*defconfig' . 2>/dev/null |
	grep -vE "^\./$KEPT:" |
	grep -vE '^\./arch/s390/configs/(debug_)?defconfig:[0-9]+:CONFIG_USER_EVENTS=y$' |
	grep -vE '^\./tools/testing/selftests/ring-buffer/map_test\.c:[0-9]+:#include "\.\./user_events/user_events_selftests\.h"' ||
	true)
if [ -n "$hits" ]; then
	echo "left over references:"; echo "$hits"; bad=1
fi

if git rev-parse -q --verify stock >/dev/null 2>&1; then
	# The files the removal may change: user_events' own, and the lines
	# that hook or list them.
	allowed='^(kernel/trace/trace_events_user\.c|include/linux/user_events\.h|include/uapi/linux/user_events\.h|Documentation/trace/user_events\.rst|samples/user_events/.*|tools/testing/selftests/user_events/.*|kernel/trace/Kconfig|kernel/trace/Makefile|kernel/fork\.c|kernel/exit\.c|fs/exec\.c|include/linux/sched\.h|Documentation/trace/index\.rst|Documentation/userspace-api/ioctl/ioctl-number\.rst|tools/testing/selftests/Makefile)$'
	other=$(git diff --name-only stock -- . | grep -vE "$allowed" || true)
	[ -z "$other" ] || { echo "the removal changes other files:"; echo "$other"; bad=1; }
	git diff --quiet stock -- "$KEPT" ||
		{ echo "the removal changes $KEPT"; bad=1; }
	[ -f "$KEPT" ] || { echo "the removal deletes $KEPT"; bad=1; }
fi

[ $bad = 0 ] || { echo "base tree still contains user_events, or more was removed" >&2; exit 1; }
echo "check-base: no trace of user_events in $dir but the lines kept on purpose"
