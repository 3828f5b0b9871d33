#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: build the debug kernel, the kselftests and the samples, boot,
# run everything, count KTAP results.  Last line: "N passed, N failed, N skipped".
set -e
. "$(dirname "$0")/common.sh"

"$TOP/scripts/deps.sh"
OUT=$BUILD/check
rm -rf "$OUT"
mkdir -p "$OUT/vm"

"$TOP/scripts/tests/splat-scan-test.sh" >"$OUT/host.ktap" || true

"$TOP/scripts/build.sh" test
"$TOP/scripts/build-user.sh" test

# Static checks of the series' files (W=1, sparse, kernel-doc, checkpatch, Sphinx)
set +e
"$TOP/scripts/lint.sh" >"$OUT/lint.log" 2>&1
lintrc=$?
set -e

log "booting the test kernel for KUnit and the kselftests"
set +e
# slab_nomerge: the check after the tests finds user_events' caches by name
"$TOP/scripts/vm.sh" --flavour test --results "$OUT/vm" --timeout "${CHECK_TIMEOUT:-3600}" \
	--append slab_nomerge \
	-- "$TOP/scripts/guest-check.sh" "$BUILD/kselftest/test"
vmrc=$?
set -e
# vm.sh must pass a failing command's status through.
set +e
"$TOP/scripts/vm.sh" --flavour test --quiet --timeout 600 -- false
falserc=$?
set -e
{
	echo "TAP version 13"
	echo "1..5"
	if [ -s "$OUT/vm/rc" ]; then
		echo "ok 1 guest_reported_status"
	else
		echo "not ok 1 guest_reported_status # timeout, panic or hang"
	fi
	if "$TOP/scripts/splat-scan.sh" "$OUT/vm/console.log" "$OUT/vm/dmesg.log" >"$OUT/splats.txt"; then
		echo "ok 2 no_kernel_splat"
	else
		sed 's/^/# /' "$OUT/splats.txt"
		echo "not ok 2 no_kernel_splat"
	fi
	if [ "$falserc" = 1 ]; then
		echo "ok 3 vm_sh_passes_exit_status # vm.sh -- false: 1"
	else
		echo "not ok 3 vm_sh_passes_exit_status # vm.sh -- false: $falserc, wanted 1"
	fi
	if [ "$lintrc" = 0 ]; then
		echo "ok 4 lint_clean # scripts/lint.sh"
	else
		grep -v '^>>' "$OUT/lint.log" | tail -40 | sed 's/^/# /'
		echo "not ok 4 lint_clean # scripts/lint.sh: see $OUT/lint.log"
	fi
	# The 32-bit variants of the ABI tests ran: each that the kselftest
	# list names has a result of its own, not a skip of the whole program.
	m32=$(sed -n 's/^user_events:\(.*_32\)$/\1/p' "$BUILD/kselftest/test/kselftest-list.txt")
	ran=""
	missing=""
	for t in $m32; do
		ran="$ran $t"
		grep -qE "^(not )?ok [0-9]+ selftests: user_events: $t( # (exit|TIMEOUT).*)?\$" \
			"$OUT/vm/kselftest.ktap" 2>/dev/null || missing="$missing $t"
	done
	if [ -z "$m32" ]; then
		echo "not ok 5 m32_kselftests_ran # no 32-bit kselftest in the list"
	elif [ -n "$missing" ]; then
		echo "not ok 5 m32_kselftests_ran # not run:$missing"
	else
		echo "ok 5 m32_kselftests_ran #$ran"
	fi
} >"$OUT/harness.ktap"

# KUnit results are in the kernel log of the boot.
grep -a -E '^\[ *[0-9]+\.[0-9]+\] ' "$OUT/vm/dmesg.log" 2>/dev/null |
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] ?//' |
	awk '/^KTAP version 1$/ { on = 1 } on' >"$OUT/kunit.ktap" || true
grep -q 'user_events' "$OUT/kunit.ktap" ||
	printf 'TAP version 13\n1..1\nnot ok 1 kunit_user_events # suite not in the boot log\n' >>"$OUT/kunit.ktap"

echo "== results (vm exit $vmrc): $OUT"
exec "$TOP/scripts/ktap-count.py" "$OUT/host.ktap" "$OUT/kunit.ktap" \
	"$OUT/vm/kselftest.ktap" "$OUT/vm/guest.ktap" "$OUT/harness.ktap"
