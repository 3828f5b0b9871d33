#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A/B of two trees of this project: this one ("ours") against another
# checkout ("ref" in the table), e.g. main before a change:
#
#   git worktree add ../before <rev>
#   (cd ../before && scripts/base.sh && scripts/build.sh bench &&
#    scripts/build.sh bench -s headers)
#   bench/ab.sh ../before [BOOTS]
#
# Builds this tree's bench kernel, builds bench/ubench.c against each
# kernel's headers, boots the two kernels alternately BOOTS times (default
# 3) and prints the table of bench/report.py, ratios within each boot and
# medians over the boots.  Results in build/bench-ab/.
set -e
. "$(dirname "$0")/../scripts/common.sh"

OTHER=$(cd "${1:?usage: bench/ab.sh OTHER_TREE [BOOTS]}" && pwd)
BOOTS=${2:-3}
OUT=$BUILD/bench-ab
[ -f "$OTHER/build/bench/arch/x86/boot/bzImage" ] ||
	die "$OTHER has no bench kernel (see the header of $0)"

"$TOP/scripts/build.sh" bench
"$TOP/scripts/build.sh" bench -s headers
rm -rf "$OUT"
declare -A kernel=([ours]=$BUILD/bench [ref]=$OTHER/build/bench)
for l in ours ref; do
	mkdir -p "$OUT/bin/$l"
	gcc -O2 -Wall -Wno-missing-field-initializers \
		-isystem "${kernel[$l]}/usr/include" \
		-o "$OUT/bin/$l/ubench" "$TOP/bench/ubench.c"
done

declare -A files
for b in $(seq "$BOOTS"); do
	for l in ours ref; do
		log "boot $b of $l (${kernel[$l]})"
		"$TOP/scripts/vm.sh" --kernel "${kernel[$l]}/arch/x86/boot/bzImage" \
			--results "$OUT/$l/boot$b" --append tsc=reliable \
			--timeout 2400 --quiet -- "$TOP/bench/guest.sh" "$OUT/bin/$l/ubench"
		files[$l]+="${files[$l]:+,}$OUT/$l/boot$b/ubench.txt"
	done
done
{
	echo "ours = $(git -C "$TOP" describe --always --dirty), ref = $(git -C "$OTHER" describe --always --dirty)"
	python3 "$TOP/bench/report.py" "${files[ours]}" "${files[ref]}"
} | tee "$OUT/table.txt"
