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

# checkpatch asks of every patch that adds files without touching
# MAINTAINERS whether MAINTAINERS needs updating.  It does not when a
# directory entry that an earlier patch added covers every new file (the
# selftests after the first): answer the question for checkpatch then.
covered_ignore() {
	local f d ok=0
	grep -q '^+++ b/MAINTAINERS$' "$1" && return 0
	for f in $(awk '/^diff --git / { f = $4 } /^new file mode/ { print substr(f, 3) }' "$1"); do
		d=${f%/*}/
		[ $ok = 0 ] && ok=1
		grep -qxF "F:	$d" "$LINUX/MAINTAINERS" || ok=2
	done
	[ $ok = 1 ] && echo "--ignore FILE_PATH_CHANGES"
	return 0
}

export_series() {
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
		*)
			opts+=($(covered_ignore "$p")) ;;
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
	[ -d "$OUT" ] || die "run make series$ARGS first"
	local wt=$BUILD/series-wt obj=$BUILD/series-obj p n=0 nk=0
	local kobj=$BUILD/series-kunit-obj kfrag=$BUILD/series-kunit.config
	# One series-check at a time (build.sh locks $obj itself).
	exec 7>"$BUILD/series-check.lock"
	flock 7
	# A worktree of an earlier build/base (made again since) is stale
	if [ -e "$wt/.git" ] && ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$wt"
	fi
	if [ ! -e "$wt/.git" ]; then
		git -C "$BASE" worktree prune
		git -C "$BASE" worktree add -q --detach "$wt" "$FROM"
	fi
	printf 'CONFIG_KUNIT=y\nCONFIG_USER_EVENTS_KUNIT_TEST=y\n' >"$kfrag"
	rm -rf "$BUILD/series-kunit"
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
	[ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(git -C "$LINUX" rev-parse 'series^{tree}')" ] ||
		die "the tree after the last patch is not build/linux's"
	echo "series-check: all $n patches apply onto $FROM and build; KUnit passed at $nk steps"
	"$TOP/scripts/lint.sh"
}

case "${1:-export}" in
export) export_series ;;
check) check_series ;;
*) die "usage: series-export.sh [export|check] [stock]" ;;
esac
