#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench [REF=1] [BOOTS=N] [TIMED=1]: build the bench kernel, boot it
# with ubench once (or N times) and print the table (bench/README.md: what
# it means).
#
#   scripts/bench.sh [--ref] [--timed] [--boots N] [--profile OPS] [-- UBENCH ARGS...]
#
#   (default)      counting: one vCPU under QEMU -icount shift=0,sleep=off,
#                  so every figure is a count of guest instructions; ubench
#                  runs twice in each boot and the table shows how far the
#                  two runs differ (a figure is published when they agree)
#   --timed        timing instead: two vCPUs under TCG, wall time (the
#                  figures before 2026-12-01; ratios within one boot)
#
#   --ref          also build the unmodified Debian 6.12 tree (its own
#                  user_events is the reference) with the same config
#                  fragments, boot it with the same benchmark built against
#                  its headers, and print both columns side by side
#   --ref-only     only the reference (its column must exist for a table)
#   --profile OPS  instead of the table: perf record -a -g in the guest
#                  while ubench loops over OPS (e.g. ue_write_ftrace)
#   --trace OPS    instead of the table: the instructions of one system
#                  call of each of OPS (comma-separated ubench operations),
#                  function by function, single-stepped under gdb
#                  (bench/itrace.py); one boot per operation
#   --boots N      boot each kernel N times (ours, ref, ours, ref, ...);
#                  the table shows the median over the boots of every
#                  figure and of every within-boot ratio (default 1)
#
# Results: build/bench-results/{ours,ref}/ (ubench.txt, console.log,
# profiles; with --boots, one directory per boot below them) and
# build/bench-results/table.txt.
set -e
. "$(dirname "$0")/common.sh"

REF= ONLY_REF= PROFILE= TRACE= BOOTS=1 TIMED=
while [ $# -gt 0 ]; do
	case "$1" in
	--boots) BOOTS=$2; shift 2 ;;
	--ref) REF=1; shift ;;
	--ref-only) REF=1 ONLY_REF=1; shift ;;
	--profile) PROFILE=$2; shift 2 ;;
	--trace) TRACE=$2; shift 2 ;;
	--timed) TIMED=1; shift ;;
	--count) TIMED=; shift ;;
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
	# the LTTng-UST figure (bench/lttng.sh runs it), where it is installed
	if [ -f /usr/include/x86_64-linux-gnu/lttng/tracepoint.h ] ||
	   [ -f /usr/include/lttng/tracepoint.h ]; then
		gcc -O2 -Wall -I "$TOP/bench" -o "$BUILD/bench-bin/$label/lttng" \
			"$TOP/bench/lttng.c" -llttng-ust -ldl
	fi
}

# run_one LABEL DIR GUEST.SH-ARGS...: boot LABEL's kernel once, results in DIR
run_one() {
	local label=$1 dir=$2 obj
	shift 2
	[ "$label" = ref ] && obj=$REF_OBJ || obj=$BUILD/bench
	log "booting the $label kernel for the benchmark"
	mkdir -p "$dir"
	# tsc=reliable: both kernels keep the TSC as clocksource and sched_clock
	# (a loaded host otherwise makes the watchdog switch to the HPET, whose
	# reads TCG emulates slowly, in some boots and not in others)
	"$TOP/scripts/vm.sh" --kernel "$obj/arch/x86/boot/bzImage" --results "$dir" \
		"${MODE_VM[@]}" --append tsc=reliable --timeout 2400 --quiet -- \
		"$TOP/bench/guest.sh" "$@"
}

# The system call that each operation --trace can trace makes
declare -A TRACE_ENTRY=([syscall]=__x64_sys_getppid [tevent]=__x64_sys_prctl
	[null_write]=__x64_sys_write [marker]=__x64_sys_write
	[marker_raw]=__x64_sys_write [ue_write_ftrace]=__x64_sys_write
	[ue_write_perf]=__x64_sys_write [ue_write_off]=__x64_sys_write
	[null_writev]=__x64_sys_writev [ue_writev_ftrace]=__x64_sys_writev
	[ue_writev_perf]=__x64_sys_writev [ue_writev_off]=__x64_sys_writev)

# itrace_one LABEL DIR OP: boot LABEL's kernel with ubench looping over OP
# and gdb attached, and trace one of OP's system calls
itrace_one() {
	local label=$1 dir=$2 op=$3 obj vm i
	[ "$label" = ref ] && obj=$REF_OBJ || obj=$BUILD/bench
	command -v gdb >/dev/null || die "--trace needs gdb"
	mkdir -p "$dir/itrace-vm"
	rm -f "$dir/itrace-vm/console.log"
	# its own session, so that a failure can stop QEMU with it
	setsid "$TOP/scripts/vm.sh" --kernel "$obj/arch/x86/boot/bzImage" \
		--results "$dir/itrace-vm" --gdb --icount --append "nokaslr tsc=reliable" \
		--timeout 1800 --quiet -- "$BUILD/bench-bin/$label/ubench" -o "$op" -t 1800 &
	vm=$!
	# ubench prints a line after each batch, once its setup is done
	for i in $(seq 600); do
		grep -q "^L " "$dir/itrace-vm/console.log" 2>/dev/null && break
		kill -0 $vm 2>/dev/null || die "the guest ended before ubench looped ($dir/itrace-vm)"
		sleep 1
	done
	ITRACE_SYSMAP=$obj/System.map ITRACE_OUT=$dir \
		ITRACE_STOPS="$op:${TRACE_ENTRY[$op]}" \
		timeout 900 gdb -batch -nx -x "$TOP/bench/itrace.py" "$obj/vmlinux" 2>&1 |
		grep '^itrace:' || { kill -- -$vm 2>/dev/null; die "$op: no trace"; }
	wait $vm || true
}

# Counting (default): -icount on one vCPU, ubench -c, two runs per boot
MODE_VM=(--icount) MODE_GUEST=(--twice) MODE_UB=(-c) MODE_REPORT=(--count)
[ -n "$TIMED" ] && MODE_VM=() MODE_GUEST=() MODE_UB=() MODE_REPORT=()

labels=(ours)
[ -n "$REF" ] && labels+=(ref)
[ -n "$ONLY_REF" ] && labels=(ref)

for op in ${TRACE//,/ }; do
	[ -n "${TRACE_ENTRY[$op]}" ] || die "--trace: $op makes no system call of its own"
done

# Builds one after the other: each takes both cores
for l in "${labels[@]}"; do
	build_one "$l"
done

if [ -n "$PROFILE" ]; then
	MODE_VM=()	# perf samples wall time: two vCPUs under TCG
	for l in "${labels[@]}"; do
		run_one "$l" "$OUT/$l" --profile "$BUILD/bench-bin/$l/ubench" "$PROFILE" "$@"
		log "profiles in $OUT/$l/profile-*.txt"
	done
	exit 0
fi

if [ -n "$TRACE" ]; then
	for l in "${labels[@]}"; do
		for op in ${TRACE//,/ }; do
			itrace_one "$l" "$OUT/$l" "$op"
		done
		log "traces in $OUT/$l/itrace-*.txt"
	done
	exit 0
fi

# Alternating the kernels spreads a change of the host's load over both
[[ "$BOOTS" =~ ^[1-9][0-9]*$ ]] || die "--boots wants a positive number"
declare -A files=([ours]=$OUT/ours/ubench.txt [ref]=$OUT/ref/ubench.txt)
[ "$BOOTS" = 1 ] || files=()
for b in $(seq "$BOOTS"); do
	for l in "${labels[@]}"; do
		dir=$OUT/$l
		[ "$BOOTS" = 1 ] || dir=$OUT/$l/boot$b
		run_one "$l" "$dir" "${MODE_GUEST[@]}" "$BUILD/bench-bin/$l/ubench" "${MODE_UB[@]}" "$@"
		[ "$BOOTS" = 1 ] || files[$l]+="${files[$l]:+,}$dir/ubench.txt"
	done
done

# --ref-only: next to the column of ours that an earlier run left, if any
cols=()
[ -f "${files[ours]%%,*}" ] && cols+=("${files[ours]}")
[ -n "$REF" ] && cols+=("${files[ref]}")
{
	echo "ours = the series at $(git -C "$TOP" describe --always --dirty)"
	python3 "$TOP/bench/report.py" "${MODE_REPORT[@]}" "${cols[@]}"
} | tee "$OUT/table.txt"
log "table in $OUT/table.txt"
