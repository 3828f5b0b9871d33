#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-6.12 into build/base, remove the kernel's own
# user_events implementation from it, and commit the result (tag "base").
# Nothing of the removed implementation is looked at or kept.
set -e
. "$(dirname "$0")/common.sh"

stamp=$(cat "$0" "$TOP/scripts/base/"* | sha1sum | cut -c1-12)
if [ -f "$BASE/.base-stamp" ] && [ "$(cat "$BASE/.base-stamp")" = "$stamp" ] &&
   git -C "$BASE" rev-parse -q --verify base >/dev/null; then
	exit 0
fi

[ -f "$SRC_TARBALL" ] || die "$SRC_TARBALL missing (apt-get install $SRC_PKG)"
log "unpacking $(dpkg-query -W -f='${Package} ${Version}' $SRC_PKG) into $BASE"
rm -rf "$BASE" "$LINUX"
mkdir -p "$BASE"
tar -C "$BASE" --strip-components=1 -xf "$SRC_TARBALL"
cd "$BASE"

# Whole files and directories of the old implementation.
rm -rf kernel/trace/trace_events_user.c include/linux/user_events.h \
	include/uapi/linux/user_events.h Documentation/trace/user_events.rst \
	samples/user_events tools/testing/selftests/user_events

# Kconfig entry: from "config USER_EVENTS" up to the next entry.
awk '/^config USER_EVENTS$/ { skip = 1; next }
     skip && /^(config|menuconfig|endmenu|if|endif|source) / { skip = 0 }
     skip && /^(endif|endmenu)$/ { skip = 0 }
     !skip' kernel/trace/Kconfig >kernel/trace/Kconfig.new
mv kernel/trace/Kconfig.new kernel/trace/Kconfig
sed -i '/trace_events_user\.o/d' kernel/trace/Makefile

# Hooks and the task_struct field.
sed -i '/#include <linux\/user_events.h>/d; /^\tuser_events_fork(/d' kernel/fork.c
sed -i '/#include <linux\/user_events.h>/d; /^\tuser_events_exit(/d' kernel/exit.c
sed -i '/#include <linux\/user_events.h>/d; /^\tuser_events_execve(/d' fs/exec.c
sed -i '/^struct user_event_mm;$/d' include/linux/sched.h
perl -0pi -e 's/\n#ifdef CONFIG_USER_EVENTS\n\tstruct user_event_mm\t+\*user_event_mm;\n#endif\n//' \
	include/linux/sched.h

# Documentation, defconfigs, selftest list.
sed -i '/^   user_events$/d' Documentation/trace/index.rst
sed -i '/uapi\/linux\/user_events\.h/{N;/mailto:linux-trace-kernel/d}' Documentation/userspace-api/ioctl/ioctl-number.rst
sed -i '/^CONFIG_USER_EVENTS=/d' arch/s390/configs/debug_defconfig arch/s390/configs/defconfig
sed -i '/^TARGETS += user_events$/d' tools/testing/selftests/Makefile

# ring-buffer/map_test.c borrowed tracefs setup from the removed selftests:
# give it a small helper of its own so that it keeps building.
cp "$TOP/scripts/base/tracefs_setup.h" tools/testing/selftests/ring-buffer/
sed -i 's|#include "../user_events/user_events_selftests.h".*|#include "tracefs_setup.h"|' \
	tools/testing/selftests/ring-buffer/map_test.c

"$TOP/scripts/check-base.sh" "$BASE"

git init -q -b master .
git config user.name "user_events harness"
git config user.email "harness@localhost"
git config gc.auto 0
git add -A -f >/dev/null
GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z" \
	git commit -q -m "base: $(dpkg-query -W -f='${Package} ${Version}' $SRC_PKG) without user_events"
git tag -f base >/dev/null
echo "$stamp" >.base-stamp
echo ".base-stamp" >>.git/info/exclude
log "base committed: $(git rev-parse --short base)"
