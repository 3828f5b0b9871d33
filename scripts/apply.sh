#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build/linux := the base tree + the series, one commit per entry.
set -e
. "$(dirname "$0")/common.sh"
"$TOP/scripts/base.sh"
[ "${APPLY_LOCKED:-}" ] || lock_build
"$TOP/scripts/series.py" apply >/dev/null
