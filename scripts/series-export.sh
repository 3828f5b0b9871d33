#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series:        build/series/*.patch with a cover letter, each patch
#                     checked with checkpatch.pl --strict (0 errors, 0 warnings).
# make series-check:  git am every patch onto the base in a scratch worktree
#                     and build each step (kernel with the bench config, and
#                     the selftests and samples once they exist), then
#                     runs scripts/lint.sh on the final tree.
# With BASE=stock (series-export.sh export|check stock) the same for the
# unmodified Debian tree (tag "stock" of build/base), in build/series-stock/:
# the series is preceded by the commit of scripts/base.sh that removes the
# kernel's own user_events (its message: patches/stock-removal), and the
# cover letter by patches/cover-letter-stock.
set -e
. "$(dirname "$0")/common.sh"
case "${2:-}" in
"") FROM=base OUT=$BUILD/series ;;
stock) FROM=stock OUT=$BUILD/series-stock ;;
*) die "unknown base '$2' (BASE=stock, or none for our base)" ;;
esac
ARGS=${2:+ BASE=$2}

export_series() {
	# Patches 2-4 are diffs of the core against itself: derive them from
	# the final files, and fail rather than export stale steps.
	"$TOP/scripts/series-stages.py"
	SERIES_STRICT=1 "$TOP/scripts/apply.sh"
	rm -rf "$OUT"
	git -C "$LINUX" format-patch -q --cover-letter --no-signature \
		--subject-prefix=PATCH -o "$OUT" "$FROM..series"
	local cover note=()
	cover=$(ls "$OUT"/0000-*.patch)
	[ "$FROM" = stock ] &&
		note=("$TOP/patches/cover-letter-stock" "$(git -C "$LINUX" log -1 --format=%s stock)")
	python3 - "$cover" "$TOP/patches/cover-letter" "${note[@]}" <<'PY'
import re
import sys
import textwrap
cover, text = sys.argv[1], open(sys.argv[2]).read().rstrip('\n').split('\n', 1)
blurb = text[1].strip('\n')
if sys.argv[3:]:
    # The stock series has the removal first: "patch N" of the cover
    # letter is patch N + 1 there, and a note on patch 1 comes first.
    def renumber(m):
        return m.group(1) + re.sub(r'\d+', lambda n: str(int(n.group()) + 1), m.group(2))
    blurb = re.sub(r'\b([Pp]atch(?:es)?\s+)(\d+(?:(?:,\s*|\s+and\s+|\s+to\s+|-)\d+)*)\b',
                   renumber, blurb)
    note = open(sys.argv[3]).read().strip('\n')
    note = note.replace('@STOCK@', sys.argv[4].split(': ', 1)[-1]).split('\n\n')
    note = [textwrap.fill(par, 72, break_on_hyphens=False) for par in note]
    blurb = '\n\n'.join(note + [blurb])
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', text[0]).replace('*** BLURB HERE ***', blurb)
open(cover, 'w').write(s)
PY
	local bad=0 p out opts
	for p in "$OUT"/0*.patch; do
		[ "$p" = "$cover" ] && continue
		opts=(--strict --quiet)
		# The removal deletes (and adds) files that MAINTAINERS does not
		# name: checkpatch's question whether it needs updating is
		# answered, as long as that holds.
		case "$FROM:${p##*/}" in
		stock:0001-*)
			git -C "$LINUX" grep -q -e user_events -e trace_events_user stock -- MAINTAINERS ||
				opts+=(--ignore FILE_PATH_CHANGES) ;;
		esac
		out=$(cd "$LINUX" && scripts/checkpatch.pl "${opts[@]}" "$p" 2>&1) || true
		if [ -n "$out" ]; then
			echo "checkpatch: ${p##*/}:"
			echo "$out" | sed 's/^/  /'
			bad=1
		else
			echo "checkpatch: ${p##*/}: clean${opts[3]:+ (${opts[3]} ignored)}"
		fi
	done
	echo "series: $(ls "$OUT"/0*.patch | wc -l) files in $OUT"
	return $bad
}

check_series() {
	[ -d "$OUT" ] || die "run make series$ARGS first"
	local wt=$BUILD/series-wt obj=$BUILD/series-obj p n=0
	# One series-check at a time (build.sh locks $obj itself).
	exec 7>"$BUILD/series-check.lock"
	flock 7
	if [ ! -e "$wt/.git" ]; then
		git -C "$BASE" worktree prune
		git -C "$BASE" worktree add -q --detach "$wt" "$FROM"
	fi
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q -f --detach "$FROM"
	for p in "$OUT"/0*.patch; do
		case "$p" in */0000-*) continue ;; esac
		n=$((n + 1))
		log "series-check: ${p##*/}"
		git -C "$wt" am -q --keep-cr "$p" || die "${p##*/} does not apply"
		CONFIG_ALLOW_UNDEFINED=1 SRC=$wt OBJ=$obj "$TOP/scripts/build.sh" bench -s bzImage ||
			die "${p##*/}: kernel build fails"
		if [ -d "$wt/tools/testing/selftests/user_events" ]; then
			CONFIG_ALLOW_UNDEFINED=1 SRC=$wt OBJ=$obj "$TOP/scripts/build.sh" bench -s headers
			make -s -C "$wt/tools/testing/selftests" TARGETS=user_events \
				KHDR_INCLUDES="-isystem $obj/usr/include" \
				O="$obj/kselftest" >/dev/null 2>"$obj/ksft.err" ||
				{ cat "$obj/ksft.err"; die "${p##*/}: selftests do not build"; }
		fi
	done
	[ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(git -C "$LINUX" rev-parse 'series^{tree}')" ] ||
		die "the tree after the last patch is not build/linux's"
	echo "series-check: all $n patches apply onto $FROM and build"
	"$TOP/scripts/lint.sh"
}

case "${1:-export}" in
export) export_series ;;
check) check_series ;;
*) die "usage: series-export.sh [export|check] [stock]" ;;
esac
