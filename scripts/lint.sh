#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make lint: the static checks every file of the series must pass, on the
# final tree (build/linux):
#   - W=1 and sparse (C=2) on our objects, with the debug flavour's config
#     so that the KUnit suite is compiled too;
#   - kernel-doc -Wall on our C files and headers;
#   - checkpatch.pl --strict on every file the series adds;
#   - Sphinx on Documentation/trace (make SPHINXDIRS=trace htmldocs): no
#     warning may name a file of the series.
# Any finding fails the run; the logs stay in build/lint/.
set -e
. "$(dirname "$0")/common.sh"
OUT=$BUILD/lint
OBJS="kernel/trace/trace_events_user.o kernel/trace/trace_events_user_parse.o
kernel/trace/trace_events_user_mm.o
kernel/trace/trace_events_user_kunit.o"
mkdir -p "$OUT"
"$TOP/scripts/apply.sh"
fail=0

report() {	# NAME LOG: print the findings of one check
	if [ -s "$2" ]; then
		echo "lint: $1: $(wc -l <"$2") finding(s)"
		sed 's/^/  /' "$2"
		fail=1
	else
		echo "lint: $1: clean"
	fi
}

# A tree of its own (debug config), so that W=1 does not make the test
# kernel's objects stale; the objects are removed first so that their
# warnings show again on every run.
for o in $OBJS; do rm -f "$OUT/obj/$o"; done
# shellcheck disable=SC2086
OBJ=$OUT/obj "$TOP/scripts/build.sh" test W=1 C=2 $OBJS >"$OUT/obj.log" 2>&1 ||
	{ cat "$OUT/obj.log"; die "our objects do not build"; }
grep -E '(warning|error):' "$OUT/obj.log" >"$OUT/obj.findings" || true
report "W=1 + sparse (C=2) on our objects" "$OUT/obj.findings"

mapfile -t files < <("$TOP/scripts/series.py" list |
	sed -n 's/^  files: //p' | tr ' ' '\n' | sed '/^$/d')
(cd "$LINUX" && for f in "${files[@]}"; do
	case "$f" in kernel/*.[ch] | include/*.h) echo "$f" ;; esac
done | xargs scripts/kernel-doc -none -Wall) >"$OUT/kdoc.findings" 2>&1 || true
report "kernel-doc -Wall" "$OUT/kdoc.findings"

: >"$OUT/checkpatch.findings"
for f in "${files[@]}"; do
	(cd "$LINUX" && scripts/checkpatch.pl --strict --quiet --no-tree -f "$f") \
		>>"$OUT/checkpatch.findings" 2>&1 || true
done
report "checkpatch --strict on every file" "$OUT/checkpatch.findings"

make -C "$LINUX" O="$BUILD/docs" SPHINXDIRS=trace htmldocs >"$OUT/docs.log" 2>&1 ||
	{ tail -20 "$OUT/docs.log"; die "htmldocs fails"; }
grep -E 'user_events|(WARNING|ERROR):.*trace/index' "$OUT/docs.log" >"$OUT/docs.findings" || true
report "Sphinx (SPHINXDIRS=trace htmldocs)" "$OUT/docs.findings"

[ $fail = 0 ] && echo "lint: clean"
exit $fail
