#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest for `make check`: the kselftests, then the checks
# that only make sense once every test process has exited (pinned pages,
# kmemleak).  KTAP goes to the results share.
#   guest-check.sh KSELFTEST_INSTALL_DIR
R=/mnt/results
KSFT=${1:?usage: guest-check.sh KSELFTEST_DIR}
ML=/sys/kernel/debug/kmemleak

pins() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# Leaks from boot are not ours: mark everything known so far as seen.
[ -w $ML ] && { echo scan >$ML; echo clear >$ML; }

cd "$KSFT" || exit 1
./run_kselftest.sh 2>&1 | tee $R/kselftest.ktap

{
	echo "TAP version 13"
	echo "1..2"
	acq=$(pins nr_foll_pin_acquired) rel=$(pins nr_foll_pin_released)
	if [ -n "$acq" ] && [ "$acq" = "$rel" ]; then
		echo "ok 1 foll_pin_balanced # acquired=$acq released=$rel"
	else
		echo "not ok 1 foll_pin_balanced # acquired=$acq released=$rel"
	fi
	if [ -w $ML ]; then
		echo scan >$ML
		sleep 1
		echo scan >$ML
		if [ -s $ML ]; then
			sed 's/^/# /' $ML | head -n 60
			echo "not ok 2 kmemleak_clean # $(grep -c 'unreferenced object' $ML) leaks"
		else
			echo "ok 2 kmemleak_clean"
		fi
	else
		echo "ok 2 kmemleak_clean # SKIP kmemleak not available"
	fi
} | tee $R/guest.ktap
exit 0
