#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Apply the series and compile single objects in build/test with W=1 (and
# sparse when C=1 is in the environment): quick checks without a full build.
# Usage: scripts/obj.sh kernel/trace/trace_events_user.o [...]
set -e
. "$(dirname "$0")/common.sh"
[ $# -gt 0 ] || die "usage: obj.sh PATH.o..."
args=(W=1)
[ -n "${C:-}" ] && args+=(C="$C")
exec "$TOP/scripts/build.sh" "${FLAVOUR:-test}" "${args[@]}" "$@"
