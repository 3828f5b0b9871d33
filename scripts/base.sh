#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-6.12 into build/base and commit it as it is
# (tag "stock"), remove the kernel's own user_events implementation from it,
# and commit the result on top (tag "base"): that commit, with the message
# of patches/stock-removal, is the first patch of `make series`.  Nothing
# of the removed implementation is looked at; git keeps it only as the
# stock commit's content.  The removal touches only user_events' own
# files and lines: the s390 defconfigs keep CONFIG_USER_EVENTS=y, and the
# selftests' header that ring-buffer/map_test.c includes stays as it is
# until the series' selftests replace it.
set -e
. "$(dirname "$0")/common.sh"

stamp=$(cat "$0" "$TOP/scripts/check-base.sh" "$TOP/patches/stock-removal" |
	sha1sum | cut -c1-12)
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
pkg=$(dpkg-query -W -f='${Package} ${Version}' $SRC_PKG)

git init -q -b master .
git config user.name "user_events harness"
git config user.email "harness@localhost"
git config gc.auto 0
export GIT_AUTHOR_DATE="2025-01-01T00:00:00Z" GIT_COMMITTER_DATE="2025-01-01T00:00:00Z"
git add -A -f >/dev/null
git commit -q -m "stock: $pkg"
git tag -f stock >/dev/null

# Whole files and directories of the old implementation.  Of the
# selftests, the header that ring-buffer/map_test.c includes stays.
rm -rf kernel/trace/trace_events_user.c include/linux/user_events.h \
	include/uapi/linux/user_events.h Documentation/trace/user_events.rst \
	samples/user_events
find tools/testing/selftests/user_events -mindepth 1 \
	! -path tools/testing/selftests/user_events/user_events_selftests.h -delete

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

# Documentation and the selftest list (the directory has no Makefile
# left).  The s390 defconfigs keep CONFIG_USER_EVENTS=y: kconfig ignores
# a symbol that does not exist, until the series adds it again.
sed -i '/^   user_events$/d' Documentation/trace/index.rst
sed -i '/uapi\/linux\/user_events\.h/{N;/mailto:linux-trace-kernel/d}' Documentation/userspace-api/ioctl/ioctl-number.rst
sed -i '/^TARGETS += user_events$/d' tools/testing/selftests/Makefile

"$TOP/scripts/check-base.sh" "$BASE"

# The removal commit is the developer's, like the commits of the series
# (scripts/series.py): same identity, signed off.
git add -A -f >/dev/null
ident=$(git -C "$TOP" var GIT_AUTHOR_IDENT 2>/dev/null || true)
ident=${ident%%>*}
msg=$(cat "$TOP/patches/stock-removal")
if [[ $ident == *"<"* ]]; then
	name=${ident%%<*} email=${ident#*<}
	name=${name%"${name##*[! ]}"}
	export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
	export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
	msg+=$'\n\n'"Signed-off-by: $name <$email>"
fi
git commit -q -F - <<<"$msg"
git tag -f base >/dev/null
echo "$stamp" >.base-stamp
echo ".base-stamp" >>.git/info/exclude
log "base committed: $(git rev-parse --short base) on stock $(git rev-parse --short stock)"
