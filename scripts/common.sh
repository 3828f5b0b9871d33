# SPDX-License-Identifier: GPL-2.0
# Shared paths and helpers for the harness scripts.  Source, do not run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
BASE=$BUILD/base
LINUX=$BUILD/linux
SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
# The Debian package the series targets (checked by base.sh).
SRC_PKG=linux-source-6.12
# Debian's own tools first (python3 with ply and git for checkpatch), not a
# user-installed interpreter that may lack them.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
JOBS=${JOBS:-$(nproc)}

die() { echo "error: $*" >&2; exit 1; }
log() { echo ">> $*" >&2; }

# Serialise everything that writes build/linux or a kernel object tree, so
# that two make invocations (or two developers' shells) never race.
# lock_build: build/linux (the series checkout); lock_obj DIR: one object
# tree, so that the test and bench flavours can build side by side.
lock_build() {
	mkdir -p "$BUILD"
	exec 9>"$BUILD/.lock"
	flock 9
}

unlock_build() {
	exec 9>&-
}

lock_obj() {
	mkdir -p "$1"
	exec 8>"$1/.lock"
	flock 8
}
