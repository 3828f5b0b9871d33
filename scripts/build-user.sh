#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build what runs in the guest against the kernel's own UAPI headers: the
# installed headers (make headers), the kselftests (installed under
# build/kselftest/FLAVOUR) and the samples (build/samples).
#   build-user.sh [FLAVOUR]
set -e
. "$(dirname "$0")/common.sh"
FLAVOUR=${1:-test}
O=$BUILD/$FLAVOUR

"$TOP/scripts/build.sh" "$FLAVOUR" -s headers
HDR=$O/usr/include

lock_build
log "building kselftests and samples"
KS=$LINUX/tools/testing/selftests
rm -rf "$BUILD/kselftest/$FLAVOUR"
make -s -C "$KS" TARGETS=user_events KHDR_INCLUDES="-isystem $HDR" \
	O="$BUILD/kselftest-obj/$FLAVOUR" INSTALL_PATH="$BUILD/kselftest/$FLAVOUR" install >/dev/null
# The selftests Makefile leaves the 32-bit variants of the ABI tests
# (NAME_32) out when gcc cannot build -m32 programs; make check runs them,
# so that must not go unseen.
grep -q '^user_events:.*_32$' "$BUILD/kselftest/$FLAVOUR/kselftest-list.txt" ||
	die "no 32-bit kselftests built: gcc -m32 cannot build programs (scripts/deps.sh installs gcc-12-multilib)"

mkdir -p "$BUILD/samples"
for c in "$LINUX"/samples/user_events/*.c; do
	[ -f "$c" ] || continue
	gcc -O2 -Wall -isystem "$HDR" -o "$BUILD/samples/$(basename "$c" .c)" "$c"
done
