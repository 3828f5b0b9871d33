#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the patched kernel of one flavour in build/FLAVOUR (out of tree,
# incremental).  Usage: build.sh [test|bench] [extra make targets/args...]
#   FLAVOUR test:  debug kernel for make check (configs/test.config)
#   FLAVOUR bench: no debug options, for make bench (configs/bench.config)
# The tree built is build/linux (base + series) unless SRC=DIR is given
# (make bench REF=1 builds the unmodified Debian tree that way).
set -e
. "$(dirname "$0")/common.sh"

FLAVOUR=${1:-test}
shift || true
[ -f "$TOP/configs/$FLAVOUR.config" ] || die "no configs/$FLAVOUR.config"
SRCTREE=${SRC:-$LINUX}
O=${OBJ:-$BUILD/$FLAVOUR}

lock_obj "$O"
if [ -z "${SRC:-}" ]; then
	lock_build
	APPLY_LOCKED=1 "$TOP/scripts/apply.sh"
	unlock_build
fi

export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=time_macros
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
MAKE=(make -C "$SRCTREE" O="$O" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc")

frags=("$TOP/configs/guest.config" "$TOP/configs/$FLAVOUR.config")
[ -n "${EXTRA_CONFIG:-}" ] && frags+=("$EXTRA_CONFIG")
stamp=$(cat "${frags[@]}" | sha1sum | cut -c1-12)-$(git -C "$SRCTREE" rev-parse HEAD:Makefile)
if [ "$(cat "$O/.config-stamp" 2>/dev/null)" != "$stamp" ] ||
   [ ! -f "$O/.config" ] || [ "$SRCTREE/kernel/trace/Kconfig" -nt "$O/.config-stamp" ]; then
	log "configuring $O (tinyconfig + ${frags[*]##*/})"
	"${MAKE[@]}" -s tinyconfig >/dev/null
	KCONFIG_CONFIG=$O/.config "$SRCTREE/scripts/kconfig/merge_config.sh" -m -O "$O" \
		"$O/.config" "${frags[@]}" >/dev/null
	"${MAKE[@]}" -s olddefconfig >/dev/null
	# Every option a fragment asks for must be in the result.  With
	# CONFIG_ALLOW_UNDEFINED=1 (series-check: the steps before the series
	# adds its Kconfig entries), one that no Kconfig of the tree defines
	# may be missing.
	bad=0
	while read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qx "$line" "$O/.config" && continue
			opt=${line%%=*}
			if [ -n "${CONFIG_ALLOW_UNDEFINED:-}" ] &&
			   ! grep -rqsE --include='Kconfig*' \
				"^(menu)?config ${opt#CONFIG_}[[:space:]]*$" "$SRCTREE"; then
				continue
			fi
			echo "config: wanted $line, got: $(grep "^$opt=" "$O/.config" || echo 'not set')"
			bad=1 ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			grep -q "^$opt=[ym]" "$O/.config" && { echo "config: wanted $opt off"; bad=1; } ;;
		esac
	done < <(cat "${frags[@]}")
	[ $bad = 0 ] || die "merged config of $FLAVOUR lacks options (see above)"
	echo "$stamp" >"$O/.config-stamp"
fi

if [ $# -gt 0 ]; then
	"${MAKE[@]}" "$@"
else
	log "building $O/arch/x86/boot/bzImage"
	"${MAKE[@]}" bzImage
fi
