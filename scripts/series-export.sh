#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series:        build/series/*.patch with a cover letter, each patch
#                     checked with checkpatch.pl --strict (0 errors, 0 warnings).
# make series-check:  git am every patch onto the base in a scratch worktree
#                     and build each step (kernel with the bench config, and
#                     the selftests and samples once they exist), boot
#                     each step that has the KUnit suite and changes the
#                     kernel (bench config plus KUnit) and check the suite,
#                     then run scripts/lint.sh on the final tree.
set -e
. "$(dirname "$0")/common.sh"
OUT=$BUILD/series

# checkpatch asks of every patch that adds files without touching
# MAINTAINERS whether MAINTAINERS needs updating.  It does not when a
# directory entry that an earlier patch added covers every new file (the
# selftests after the first): answer the question for checkpatch then.
covered_ignore() {
	local f d ok=1
	grep -q '^+++ b/MAINTAINERS$' "$1" && return 0
	for f in $(awk '/^diff --git / { f = $4 } /^new file mode/ { print substr(f, 3) }' "$1"); do
		d=${f%/*}/
		grep -qxF "F:	$d" "$LINUX/MAINTAINERS" || ok=0
	done
	[ $ok = 1 ] && echo "--ignore FILE_PATH_CHANGES"
	return 0
}

export_series() {
	# Patches 2-4 are diffs of the core against itself: derive them from
	# the final files, and fail rather than export stale steps.
	"$TOP/scripts/series-stages.py"
	SERIES_STRICT=1 "$TOP/scripts/apply.sh"
	rm -rf "$OUT"
	git -C "$LINUX" format-patch -q --cover-letter --no-signature \
		--subject-prefix=PATCH -o "$OUT" base..series
	local cover
	cover=$(ls "$OUT"/0000-*.patch)
	python3 - "$cover" "$TOP/patches/cover-letter" <<'PY'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read().rstrip('\n').split('\n', 1)
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', text[0]).replace('*** BLURB HERE ***', text[1].strip('\n'))
open(cover, 'w').write(s)
PY
	local bad=0 p out
	for p in "$OUT"/0*.patch; do
		[ "$p" = "$cover" ] && continue
		out=$(cd "$LINUX" && scripts/checkpatch.pl --strict --quiet \
			$(covered_ignore "$p") "$p" 2>&1) || true
		if [ -n "$out" ]; then
			echo "checkpatch: ${p##*/}:"
			echo "$out" | sed 's/^/  /'
			bad=1
		else
			echo "checkpatch: ${p##*/}: clean"
		fi
	done
	echo "series: $(ls "$OUT"/0*.patch | wc -l) files in $OUT"
	return $bad
}

KUNIT_FILE=kernel/trace/trace_events_user_kunit.c
KUNIT_SUITE=user_events_parse

# Whether the last commit of worktree $1 changes what the kernel builds
changes_kernel() {
	git -C "$1" diff --name-only HEAD~1 HEAD |
		grep -qvE '^(tools/|samples/|Documentation/|MAINTAINERS$)'
}

# Boot bzImage $1 (results in $2) and check the KUnit suite's KTAP result
run_kunit() {
	mkdir -p "$2"
	"$TOP/scripts/vm.sh" --kernel "$1" --quiet --timeout 900 --results "$2" -- /bin/true ||
		return 1
	grep -a -E '^\[ *[0-9]+\.[0-9]+\] ' "$2/dmesg.log" |
		sed -E 's/^\[ *[0-9]+\.[0-9]+\] ?//' |
		awk '/^KTAP version 1$/ { on = 1 } on' >"$2/kunit.ktap"
	if ! grep -qE "^ok [0-9]+ $KUNIT_SUITE\$" "$2/kunit.ktap" ||
	   grep -q '^ *not ok ' "$2/kunit.ktap"; then
		grep -E '^ *(not )?ok ' "$2/kunit.ktap" | grep -v '^ *ok ' | head -20
		return 1
	fi
	log "KUnit: $KUNIT_SUITE ok, $(grep -cE '^ +ok ' "$2/kunit.ktap") test results ok"
}

check_series() {
	[ -d "$OUT" ] || die "run make series first"
	local wt=$BUILD/series-wt obj=$BUILD/series-obj p n=0 nk=0
	local kobj=$BUILD/series-kunit-obj kfrag=$BUILD/series-kunit.config
	# One series-check at a time (build.sh locks $obj itself).
	exec 7>"$BUILD/series-check.lock"
	flock 7
	if [ ! -e "$wt/.git" ]; then
		git -C "$BASE" worktree prune
		git -C "$BASE" worktree add -q --detach "$wt" base
	fi
	printf 'CONFIG_KUNIT=y\nCONFIG_USER_EVENTS_KUNIT_TEST=y\n' >"$kfrag"
	rm -rf "$BUILD/series-kunit"
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q -f --detach base
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
		# The KUnit suite, at each step that has it and changes the kernel:
		# bench config plus KUnit, in an object tree of its own, booted.
		if [ -f "$wt/$KUNIT_FILE" ] && changes_kernel "$wt"; then
			EXTRA_CONFIG=$kfrag SRC=$wt OBJ=$kobj "$TOP/scripts/build.sh" bench -s bzImage ||
				die "${p##*/}: KUnit kernel build fails"
			run_kunit "$kobj/arch/x86/boot/bzImage" "$BUILD/series-kunit/$n" ||
				die "${p##*/}: KUnit suite fails (see $BUILD/series-kunit/$n)"
			nk=$((nk + 1))
		fi
	done
	echo "series-check: all $n patches apply and build; KUnit passed at $nk steps"
	"$TOP/scripts/lint.sh"
}

case "${1:-export}" in
export) export_series ;;
check) check_series ;;
*) die "usage: series-export.sh [export|check]" ;;
esac
