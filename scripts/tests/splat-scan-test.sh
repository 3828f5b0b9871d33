#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KTAP test of scripts/splat-scan.sh on canned console text: every file in
# splat/ except clean.log must be flagged, clean.log must not.
here=$(cd "$(dirname "$0")" && pwd)
scan=$here/../splat-scan.sh
files=("$here"/splat/*.log)
echo "TAP version 13"
echo "1..${#files[@]}"
n=0 fail=0
for f in "${files[@]}"; do
	n=$((n + 1))
	name=$(basename "$f" .log)
	"$scan" "$f" >/dev/null
	got=$?
	want=1
	[ "$name" = clean ] && want=0
	if [ "$got" = "$want" ]; then
		echo "ok $n splat_scan_$name"
	else
		echo "not ok $n splat_scan_$name # scanner exit $got, wanted $want"
		fail=1
	fi
done
exit $fail
