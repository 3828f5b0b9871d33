#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series as mail, and the proof that every step of it builds.
#
# series-export.sh export      (make series)
#   build/series/: a cover letter and one patch per commit of build/linux
#   from the unmodified Debian tree (tag "stock" of build/base): the commit
#   of scripts/base.sh that removes the kernel's own user_events first,
#   then one patch per `series` entry.  Subject prefix $PREFIX, the
#   developer's git identity on every mail, base-commit:, To:/Cc: from
#   scripts/get_maintainer.pl (scripts/series-mail.py), each patch
#   checkpatch.pl --strict clean and none but the removal over 1500 lines.
#   build/series/.droppable names the patches the `series` file marks
#   "drop: NAME".
#
# series-export.sh check [NAME...]      (make series-check [WITHOUT="NAME..."])
#   git am every patch (less those marked drop: NAME) onto the stock tree
#   in build/series-wt, and at every step:
#     - build the kernel: bench config plus KUnit and the samples
#       (build/series-obj), unless the step changes only tools/, samples/,
#       Documentation/ or MAINTAINERS;
#     - then compile the series' kernel/trace/trace_events_user*.c files
#       with W=1 (before the patch that adds CONFIG_USER_EVENTS, as single
#       objects with the symbol defined on the compiler's command line),
#       and fail on any warning;
#     - build the samples (kbuild) and the user_events selftests once they exist,
#       and the ring buffer's selftest (which includes a header of the
#       user_events selftests) at the first and last step and at every
#       step that changes tools/;
#     - boot the kernel and check the KUnit suites of
#       kernel/trace/trace_events_user*kunit*.c, once that file exists and
#       when the step changes the kernel.
#   NOBUILD=1 only applies the patches; KEEP_GOING=1 goes on after a step
#   fails (and fails at the end).
#   A step whose tree was checked before with the same configs and build
#   scripts is not built again (build/series-check.done; FRESH=1 forgets
#   it, as a change to the checks wants).
#   Then compile the last tree's kernel/trace and every other C file the
#   series changes for i386 (host gcc) and arm64 (aarch64-linux-gnu-gcc)
#   with their defconfig plus the series' options, failing on a warning
#   in a file of the series (CROSS=0 skips it; "series-export.sh cross"
#   does only that, on build/linux).  The full series must end with
#   build/linux's tree, and make lint runs on it.
set -e
. "$(dirname "$0")/common.sh"
OUT=$BUILD/series
FROM=stock
PREFIX=${PREFIX:-RFC PATCH v2}
MAX_LINES=1500

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

# The developer's identity: "Name <email>", as scripts/series.py and
# scripts/base.sh sign the commits.
developer() {
	local ident
	ident=$(git -C "$TOP" var GIT_AUTHOR_IDENT 2>/dev/null) || return 1
	echo "${ident%%>*}>"
}

export_series() {
	SERIES_STRICT=1 "$TOP/scripts/apply.sh"
	local from
	from=$(developer) || die "no git identity (git config user.name/user.email)"
	local authors
	authors=$(git -C "$LINUX" log --format='%an <%ae>' "$FROM..series" | sort -u)
	[ "$authors" = "$from" ] ||
		die "the commits are not all $from's (rm -rf build/base to make the removal again):"$'\n'"$authors"
	rm -rf "$OUT"
	# The cover letter's From: is the committer's: the same identity.
	local name=${from% <*} email=${from##*<}
	git -C "$LINUX" -c user.name="$name" -c user.email="${email%>}" \
		format-patch -q --cover-letter --no-signature --base="$FROM" \
		--subject-prefix="$PREFIX" --from="$from" -o "$OUT" "$FROM..series"
	local cover
	cover=$(ls "$OUT"/0000-*.patch)
	"$TOP/scripts/series-mail.py" "$OUT" \
		"$(git -C "$LINUX" log -1 --format=%s "$FROM" | sed 's/^.* //')" \
		"$(git -C "$LINUX" rev-parse "$FROM^{tree}")" >"$OUT/.recipients"

	local bad=0 p out opts lines first=1
	for p in "$OUT"/0*.patch; do
		[ "$p" = "$cover" ] && continue
		opts=(--strict --quiet)
		if [ $first = 1 ]; then
			# The removal deletes files that MAINTAINERS does not name:
			# checkpatch's question whether it needs updating is
			# answered, as long as that holds.
			git -C "$LINUX" grep -q -e user_events -e trace_events_user "$FROM" -- MAINTAINERS ||
				opts+=(--ignore FILE_PATH_CHANGES)
		else
			# shellcheck disable=SC2207
			opts+=($(covered_ignore "$p"))
		fi
		out=$(cd "$LINUX" && scripts/checkpatch.pl "${opts[@]}" "$p" 2>&1) || true
		lines=$(wc -l <"$p")
		if [ -n "$out" ]; then
			echo "checkpatch: ${p##*/}:"
			echo "$out" | sed 's/^/  /'
			bad=1
		else
			echo "checkpatch: ${p##*/}: clean, $lines lines${opts[3]:+ (${opts[3]} ignored)}"
		fi
		if [ $first = 0 ] && [ "$lines" -gt $MAX_LINES ]; then
			echo "series: ${p##*/} has $lines lines, over $MAX_LINES"
			bad=1
		fi
		first=0
	done
	echo "series: $(($(ls "$OUT"/0*.patch | wc -l) - 1)) patches and a cover letter in $OUT"
	echo "series: [$PREFIX], from $from, $(grep -m1 '^base-commit:' "$cover")"
	[ -s "$OUT/.droppable" ] &&
		echo "series: droppable: $(awk '{ print $2 }' "$OUT/.droppable" | sort -u | tr '\n' ' ')"
	echo "series: recipients in $OUT/.recipients"
	return $bad
}

# Whether the last commit of worktree $1 changes what the kernel builds
changes_kernel() {
	git -C "$1" diff --name-only HEAD~1 HEAD |
		grep -qvE '^(tools/|samples/|Documentation/|MAINTAINERS$)'
}

# Boot bzImage $1 (results in $2) and check the KTAP result of each suite $3...
run_kunit() {
	local img=$1 res=$2 s
	shift 2
	mkdir -p "$res"
	"$TOP/scripts/vm.sh" --kernel "$img" --quiet --timeout 900 --results "$res" -- /bin/true ||
		return 1
	grep -a -E '^\[ *[0-9]+\.[0-9]+\] ' "$res/dmesg.log" |
		sed -E 's/^\[ *[0-9]+\.[0-9]+\] ?//' |
		awk '/^KTAP version 1$/ { on = 1 } on' >"$res/kunit.ktap"
	for s in "$@"; do
		grep -qE "^ok [0-9]+ $s\$" "$res/kunit.ktap" || { echo "KUnit: no ok for $s"; return 1; }
	done
	if grep -q '^ *not ok ' "$res/kunit.ktap"; then
		grep -E '^ *not ok ' "$res/kunit.ktap" | head -20
		return 1
	fi
	log "KUnit: $* ok, $(grep -cE '^ +ok ' "$res/kunit.ktap") test results ok"
}

# Compile objects in the series-check tree with W=1; fail on a warning.
# $1: "forced" to define CONFIG_USER_EVENTS on the command line.
w1_objects() {
	local forced=$1 obj=$2 o log
	shift 2
	[ $# -gt 0 ] || return 0
	log=$obj/w1.log
	for o in "$@"; do rm -f "$obj/$o"; done
	# Defined for these objects only: the objects that make prepares
	# (asm-offsets) must not see it.
	local defs=()
	if [ -n "$forced" ]; then
		for o in "$@"; do
			o=${o##*/}
			defs+=("CFLAGS_$o=-DCONFIG_USER_EVENTS=1")
		done
	fi
	CONFIG_ALLOW_UNDEFINED=1 EXTRA_CONFIG=$KFRAG SRC=$WT OBJ=$obj "$TOP/scripts/build.sh" bench \
		W=1 "${defs[@]}" "$@" >"$log" 2>&1 || { cat "$log"; return 1; }
	if grep -E '(warning|error):' "$log"; then
		return 1
	fi
	log "W=1${forced:+ (CONFIG_USER_EVENTS defined for them)}: $* clean"
}

# The key under which a checked step is remembered: its tree and what
# checked it.
step_key() {
	echo "$(git -C "$WT" rev-parse 'HEAD^{tree}') $CHECK_STAMP"
}

# Compile kernel/trace and the other C files the series changes for one
# architecture, with its defconfig plus the series' options.
cross_build() {
	local arch=$1 cross=$2 o=$BUILD/series-cross-$1 frag log files f sym
	local make=(make -C "$WT" O="$o" ARCH="$arch" -j"$JOBS" HOSTCC="ccache gcc")
	[ -n "$cross" ] && make+=(CROSS_COMPILE="$cross")
	make+=(CC="ccache ${cross}gcc")
	command -v "${cross}gcc" >/dev/null || die "${cross}gcc missing (scripts/deps.sh)"
	mkdir -p "$o"
	frag=$o/series.config
	{
		printf '%s\n' CONFIG_FTRACE=y CONFIG_PERF_EVENTS=y CONFIG_KPROBES=y \
			CONFIG_KPROBE_EVENTS=y CONFIG_UPROBES=y CONFIG_UPROBE_EVENTS=y \
			CONFIG_BPF_SYSCALL=y CONFIG_BPF_EVENTS=y CONFIG_KUNIT=y
		for sym in $(sed -n 's/^config \(USER_EVENTS[A-Z0-9_]*\)$/\1/p' "$WT/kernel/trace/Kconfig"); do
			echo "CONFIG_$sym=y"
		done
	} >"$frag"
	log "cross: $arch defconfig + $(grep -c . "$frag") options"
	"${make[@]}" -s defconfig >/dev/null
	KCONFIG_CONFIG=$o/.config "$WT/scripts/kconfig/merge_config.sh" -m -O "$o" \
		"$o/.config" "$frag" >/dev/null
	"${make[@]}" -s olddefconfig >/dev/null
	while read -r line; do
		grep -qx "$line" "$o/.config" || die "cross $arch: wanted $line, got: $(grep "^${line%%=*}=" "$o/.config" || echo 'not set')"
	done <"$frag"
	# Objects of the C files the series adds or changes, outside
	# kernel/trace (which is built whole) and user space.
	files=$(git -C "$WT" diff --name-only --diff-filter=AM "$FROM" HEAD -- '*.c' |
		grep -vE '^(tools|samples|kernel/trace)/' | sed 's/\.c$/.o/' | tr '\n' ' ' || true)
	log=$o/build.log
	# shellcheck disable=SC2086
	"${make[@]}" kernel/trace/ $files >"$log" 2>&1 || { tail -40 "$log"; die "cross $arch: build fails"; }
	mine=$(git -C "$WT" diff --name-only "$FROM" HEAD | grep -vE '^(tools|samples|Documentation)/' |
		sed 's/[.[\*^$]/\\&/g' | paste -sd'|')
	ours=$(for f in "$WT"/kernel/trace/trace_events_user*.c; do
		[ -f "$f" ] && echo "kernel/trace/${f##*/}" | sed 's/\.c$/.o/'; done)
	for f in $ours; do rm -f "$o/$f"; done
	# shellcheck disable=SC2086
	"${make[@]}" W=1 $ours >>"$log" 2>&1 || { tail -40 "$log"; die "cross $arch: W=1 build fails"; }
	if grep -E "(^|/)($mine):[0-9]+:([0-9]+:)? (warning|error):" "$log"; then
		die "cross $arch: warnings in files of the series (see $log)"
	fi
	log "cross $arch: kernel/trace/ $files built, W=1 on $(echo $ours); no warning in the series' files ($(grep -c 'warning:' "$log" || true) elsewhere)"
}

# A failed check of a step: the end of the run, or with KEEP_GOING=1 a
# line now and a failed run at its end.
fail() {
	if [ -z "${KEEP_GOING:-}" ]; then
		die "$*"
	fi
	echo "series-check: FAILED: $*"
	failed+=$'\n'"  $*"
}

check_series() {
	[ -d "$OUT" ] || die "run make series first"
	local without=" $* " obj=$BUILD/series-obj p n=0 nk=0 nskip=0 tag name suites done_file
	WT=$BUILD/series-wt
	KFRAG=$BUILD/series-kunit.config
	done_file=$BUILD/series-check.done
	for tag in "$@"; do
		grep -q " $tag\$" "$OUT/.droppable" 2>/dev/null ||
			die "no patch of the series is marked drop: $tag"
	done
	# One series-check at a time (build.sh locks $obj itself).
	exec 7>"$BUILD/series-check.lock"
	flock 7
	printf '%s\n' CONFIG_KUNIT=y CONFIG_USER_EVENTS_KUNIT_TEST=y \
		CONFIG_SAMPLES=y CONFIG_HEADERS_INSTALL=y CONFIG_SAMPLE_USER_EVENTS=y >"$KFRAG"
	# What a step's result depends on besides its tree (a change to the
	# checks themselves wants FRESH=1)
	CHECK_STAMP=$(cat "$TOP/configs/guest.config" "$TOP/configs/bench.config" "$KFRAG" \
		"$TOP/scripts/build.sh" "$TOP/scripts/vm.sh" "$TOP/scripts/guest-init.sh" |
		sha1sum | cut -c1-12)
	[ -n "${FRESH:-}" ] && rm -f "$done_file"
	touch "$done_file"
	# A worktree of an earlier build/base (made again since) is stale
	if [ -e "$WT/.git" ] && ! git -C "$WT" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$WT"
	fi
	if [ ! -e "$WT/.git" ]; then
		git -C "$BASE" worktree prune
		git -C "$BASE" worktree add -q --detach "$WT" "$FROM"
	fi
	rm -rf "$BUILD/series-kunit"
	git -C "$WT" am --abort >/dev/null 2>&1 || true
	git -C "$WT" checkout -q -f --detach "$FROM"
	# The mails as they were when the check started: make series may run
	# again meanwhile.
	local mails=$BUILD/series-check-mails
	rm -rf "$mails"
	cp -a "$OUT" "$mails"
	# obj_ok: build/series-obj holds the kernel of the step before
	local all=("$mails"/0*.patch) last obj_ok=0 wserr=
	failed=
	last=${all[-1]}
	for p in "${all[@]}"; do
		case "$p" in */0000-*) continue ;; esac
		name=${p##*/}
		tag=$(awk -v f="$name" '$1 == f { print $2 }' "$mails/.droppable" 2>/dev/null || true)
		if [ -n "$tag" ] && [[ $without == *" $tag "* ]]; then
			log "series-check: $name left out (drop: $tag)"
			continue
		fi
		n=$((n + 1))
		step_failed=$failed
		log "series-check: $name"
		git -C "$WT" am -q --keep-cr "$p" 2>"$BUILD/series-am.err" ||
			{ cat "$BUILD/series-am.err"; die "$name does not apply"; }
		# git am warns of whitespace errors (a blank line at the end of a
		# file, trailing blanks): they fail the check at the end.
		if grep -q 'whitespace error' "$BUILD/series-am.err"; then
			sed 's/^/  /' "$BUILD/series-am.err"
			wserr+=" $name"
		fi
		if [ -n "${NOBUILD:-}" ]; then
			continue
		fi
		if grep -qxF "$(step_key)" "$done_file"; then
			log "series-check: this tree was checked before (FRESH=1 checks it again)"
			nskip=$((nskip + 1))
			obj_ok=0
			continue
		fi
		local kernel= kconfig=
		changes_kernel "$WT" && kernel=1
		# A changed Kconfig may bring options the fragments ask for.
		git -C "$WT" diff --name-only HEAD~1 HEAD | grep -q 'Kconfig' && kconfig=1
		if [ -n "$kernel$kconfig" ] || [ $obj_ok = 0 ]; then
			[ -n "$kconfig" ] && rm -f "$obj/.config-stamp"
			CONFIG_ALLOW_UNDEFINED=1 EXTRA_CONFIG=$KFRAG SRC=$WT OBJ=$obj \
				"$TOP/scripts/build.sh" bench -s bzImage ||
				{ fail "$name: kernel build fails"; obj_ok=0; continue; }
			local ours=() f forced=
			for f in "$WT"/kernel/trace/trace_events_user*.c; do
				[ -f "$f" ] || continue
				f=kernel/trace/${f##*/}
				ours+=("${f%.c}.o")
			done
			grep -qx 'config USER_EVENTS' "$WT/kernel/trace/Kconfig" || forced=1
			w1_objects "$forced" "$obj" "${ours[@]}" ||
				fail "$name: warnings in the series' objects"
			obj_ok=1
		else
			log "series-check: no change to the kernel (built at the step before)"
		fi

		if [ -f "$WT/samples/user_events/Makefile" ] && grep -q '^CONFIG_SAMPLE_USER_EVENTS=y' "$obj/.config"; then
			CONFIG_ALLOW_UNDEFINED=1 EXTRA_CONFIG=$KFRAG SRC=$WT OBJ=$obj \
				"$TOP/scripts/build.sh" bench -s samples/user_events/ || fail "$name: samples do not build"
		fi
		local tools=
		git -C "$WT" diff --name-only HEAD~1 HEAD | grep -q '^tools/' && tools=1
		[ $n = 1 ] || [ "$p" = "$last" ] && tools=1
		if [ -n "$tools" ] || [ -f "$WT/tools/testing/selftests/user_events/Makefile" ]; then
			CONFIG_ALLOW_UNDEFINED=1 EXTRA_CONFIG=$KFRAG SRC=$WT OBJ=$obj \
				"$TOP/scripts/build.sh" bench -s headers
		fi
		if [ -f "$WT/tools/testing/selftests/user_events/Makefile" ]; then
			make -s -C "$WT/tools/testing/selftests" TARGETS=user_events \
				KHDR_INCLUDES="-isystem $obj/usr/include" \
				O="$obj/kselftest" >/dev/null 2>"$obj/ksft.err" ||
				{ cat "$obj/ksft.err"; fail "$name: user_events selftests do not build"; }
			grep -q 'warning:' "$obj/ksft.err" &&
				{ cat "$obj/ksft.err"; fail "$name: warnings in the user_events selftests"; }
		fi
		if [ -n "$tools" ]; then
			rm -rf "$obj/kselftest/kselftest/ring-buffer"
			make -s -C "$WT/tools/testing/selftests" TARGETS=ring-buffer \
				KHDR_INCLUDES="-isystem $obj/usr/include" \
				O="$obj/kselftest" >/dev/null 2>"$obj/ksft.err" &&
				! grep -q 'warning:' "$obj/ksft.err" &&
				log "selftests: ring-buffer (map_test) builds" ||
				{ cat "$obj/ksft.err"; fail "$name: the ring-buffer selftest does not build cleanly"; }
		fi

		# The KUnit suites, at each step that has them and changes the kernel.
		suites=()
		for f in "$WT"/kernel/trace/trace_events_user*kunit*.c; do
			[ -f "$f" ] || continue
			mapfile -t -O ${#suites[@]} suites < <(awk '/^static struct kunit_suite /{ on = 1 }
				on && /\.name *= *"/ { sub(/.*\.name *= *"/, ""); sub(/".*/, ""); print; on = 0 }' "$f")
		done
		if [ ${#suites[@]} -gt 0 ] && [ -n "$kernel" ]; then
			run_kunit "$obj/arch/x86/boot/bzImage" "$BUILD/series-kunit/$n" "${suites[@]}" ||
				{ fail "$name: KUnit fails (see $BUILD/series-kunit/$n)"; continue; }
			nk=$((nk + 1))
		fi
		[ "$failed" = "$step_failed" ] && step_key >>"$done_file"
	done
	local what="all $n patches"
	[ -n "$*" ] && what="$n patches (without the ones marked drop: $*)"
	[ -z "$wserr" ] || echo "series-check: git am reports whitespace errors in:$wserr"
	if [ -n "${NOBUILD:-}" ]; then
		echo "series-check: $what apply onto $FROM (NOBUILD: nothing built)"
		[ -z "$wserr" ] || return 1
		[ -n "$*" ] ||
			[ "$(git -C "$WT" rev-parse 'HEAD^{tree}')" = "$(git -C "$LINUX" rev-parse 'series^{tree}')" ] ||
			die "the tree after the last patch is not build/linux's"
		return 0
	fi
	if [ -n "$failed" ]; then
		echo "series-check: $what apply onto $FROM; these checks failed:$failed"
	else
		echo "series-check: $what apply onto $FROM and build; KUnit passed at $nk steps$([ $nskip = 0 ] || echo ", $nskip steps checked before")"
	fi
	if [ "${CROSS:-1}" != 0 ]; then
		cross_build i386 ""
		cross_build arm64 aarch64-linux-gnu-
	fi
	if [ -z "$*" ]; then
		[ "$(git -C "$WT" rev-parse 'HEAD^{tree}')" = "$(git -C "$LINUX" rev-parse 'series^{tree}')" ] ||
			die "the tree after the last patch is not build/linux's"
		"$TOP/scripts/lint.sh"
	fi
	[ -z "$failed" ] || die "failed checks:$failed"
	[ -z "$wserr" ] || die "git am reports whitespace errors in:$wserr"
}

case "${1:-export}" in
export) export_series ;;
check) shift; check_series "$@" ;;
cross)
	# Only the cross builds, of build/linux's tree.
	WT=$LINUX
	cross_build i386 ""
	cross_build arm64 aarch64-linux-gnu- ;;
*) die "usage: series-export.sh [export | check [DROP_NAME...] | cross]" ;;
esac
