#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what a fresh Debian 12 machine lacks to build, boot and test the
# series (gcc-aarch64-linux-gnu: make series-check compiles kernel/trace
# for arm64; gcc-12-multilib: the ABI kselftests are also built as 32-bit
# programs; not gcc-multilib, which conflicts with the cross compilers over
# /usr/include/asm).  Idempotent and silent when everything is present.
set -e

PKGS="build-essential git flex bison bc libelf-dev libssl-dev dwarves ccache
rsync cpio kmod python3 qemu-system-x86 linux-source-6.12 linux-perf trace-cmd
bpftrace busybox-static sparse python3-sphinx python3-ply python3-git perl
xz-utils util-linux liblttng-ust-dev lttng-tools gcc-aarch64-linux-gnu
gcc-12-multilib"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo ">> installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
