#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Find kernel splats in console output or kernel logs.
# Usage: splat-scan.sh FILE...   prints each splat line, exits 1 if any.
#
# Only kernel lines count: in a console capture those carry a printk
# timestamp ("[   12.345678] "), so a test program that prints "BUG:" itself
# is not a splat.  dmesg output has the same timestamps.
pat='(^|[] ])(BUG: |WARNING: |UBSAN: |KASAN: |Oops|general protection fault|Kernel panic|kernel BUG at|Unable to handle kernel|INFO: task .* blocked for more than|INFO: rcu_[a-z]+ (self-)?detected stall|rcu: INFO: rcu_[a-z]+ (self-)?detected stall|detected stalls on CPUs|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|unreferenced object 0x|------------\[ cut here \]------------)'
found=0
for f in "$@"; do
	[ -f "$f" ] || continue
	if grep -aE '^\[ *[0-9]+\.[0-9]+\] ' "$f" | sed 's/\r$//' | grep -aE "$pat" | head -n 40 |
	   sed "s|^|splat: ${f##*/}: |" | grep .; then
		found=1
	fi
done
exit $found
