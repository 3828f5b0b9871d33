#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench [REF=1]: build the bench kernel, boot it once with bench/ubench
# and print the table (bench/README.md says what the figures mean).
#
#   scripts/bench.sh [--ref] [--profile OPS] [-- UBENCH ARGS...]
#
#   --ref          also build the unmodified Debian 6.12 tree (its own
#                  user_events is the reference) with the same config
#                  fragments, boot it with the same benchmark built against
#                  its headers, and print both columns side by side
#   --ref-only     only the reference (its column must exist for a table)
#   --profile OPS  instead of the table: perf record -a -g in the guest
#                  while ubench loops over OPS (e.g. ue_write_ftrace)
#
# Results: build/bench-results/{ours,ref}/ (ubench.txt, console.log,
# profiles) and build/bench-results/table.txt.
set -e
. "$(dirname "$0")/common.sh"

REF= ONLY_REF= PROFILE=
while [ $# -gt 0 ]; do
	case "$1" in
	--ref) REF=1; shift ;;
	--ref-only) REF=1 ONLY_REF=1; shift ;;
	--profile) PROFILE=$2; shift 2 ;;
	--) shift; break ;;
	*) die "unknown option $1 (see the header of $0)" ;;
	esac
done

OUT=$BUILD/bench-results
REF_SRC=$BUILD/ref-src
REF_OBJ=$BUILD/ref
mkdir -p "$OUT"

# Unpacked only to be built: nothing of this project reads its files.
unpack_ref() {
	[ -f "$REF_SRC/Makefile" ] && return
	[ -f "$SRC_TARBALL" ] || die "no $SRC_TARBALL (apt-get install $SRC_PKG)"
	log "unpacking $SRC_TARBALL into $REF_SRC (reference build only)"
	rm -rf "$REF_SRC.tmp"
	mkdir -p "$REF_SRC.tmp"
	tar -xJf "$SRC_TARBALL" -C "$REF_SRC.tmp" --strip-components=1
	mv "$REF_SRC.tmp" "$REF_SRC"
}

# build_one LABEL: kernel, headers and ubench built against those headers
build_one() {
	local label=$1 obj
	if [ "$label" = ref ]; then
		unpack_ref
		obj=$REF_OBJ
		SRC=$REF_SRC OBJ=$obj "$TOP/scripts/build.sh" bench
		SRC=$REF_SRC OBJ=$obj "$TOP/scripts/build.sh" bench -s headers
	else
		obj=$BUILD/bench
		"$TOP/scripts/build.sh" bench
		"$TOP/scripts/build.sh" bench -s headers
	fi
	mkdir -p "$BUILD/bench-bin/$label"
	gcc -O2 -Wall -Wno-missing-field-initializers -isystem "$obj/usr/include" \
		-o "$BUILD/bench-bin/$label/ubench" "$TOP/bench/ubench.c"
}

# run_one LABEL GUEST.SH-ARGS...: boot LABEL's kernel once
run_one() {
	local label=$1 obj
	shift
	[ "$label" = ref ] && obj=$REF_OBJ || obj=$BUILD/bench
	log "booting the $label kernel for the benchmark"
	mkdir -p "$OUT/$label"
	# tsc=reliable: both kernels keep the TSC as clocksource and sched_clock
	# (a loaded host otherwise makes the watchdog switch to the HPET, whose
	# reads TCG emulates slowly, in some boots and not in others)
	"$TOP/scripts/vm.sh" --kernel "$obj/arch/x86/boot/bzImage" --results "$OUT/$label" \
		--append tsc=reliable --timeout 2400 --quiet -- "$TOP/bench/guest.sh" "$@"
}

labels=(ours)
[ -n "$REF" ] && labels+=(ref)
[ -n "$ONLY_REF" ] && labels=(ref)

# Builds one after the other: each takes both cores
for l in "${labels[@]}"; do
	build_one "$l"
done

if [ -n "$PROFILE" ]; then
	for l in "${labels[@]}"; do
		run_one "$l" --profile "$BUILD/bench-bin/$l/ubench" "$PROFILE" "$@"
		log "profiles in $OUT/$l/profile-*.txt"
	done
	exit 0
fi

for l in "${labels[@]}"; do
	run_one "$l" "$BUILD/bench-bin/$l/ubench" "$@"
done

files=("$OUT/ours/ubench.txt")
[ -n "$REF" ] && files+=("$OUT/ref/ubench.txt")
[ -f "${files[0]}" ] || files=("${files[@]:1}")
{
	echo "ours = the series at $(git -C "$TOP" describe --always --dirty)"
	python3 "$TOP/bench/report.py" "${files[@]}"
} | tee "$OUT/table.txt"
log "table in $OUT/table.txt"
