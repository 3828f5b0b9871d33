#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the QEMU guest (see scripts/vm.sh).
#
# The kernel mounts the host's root read-only over 9p with cache=loose
# (fast, but 9p drops a mount whose mountpoint's host directory changed,
# as /proc and /tmp do).  So stage 1 builds a tmpfs root in /mnt: the
# host's /usr, /etc, /opt and the project directory are bind-mounted into
# it, proc, sysfs, tracefs, debugfs and tmpfs get stable mountpoints, and
# the results share appears at /mnt/results.  Stage 2, chrooted there, runs
# cmd.sh, saves its status and the kernel log, and powers off.
[ -n "${guest_debug:-}" ] && { PS4='+ $(cat /proc/uptime 2>/dev/null) '; set -x; }
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux} LANG=C.UTF-8
SELF=$(readlink -f "$0")
TOP=$(cd "$(dirname "$SELF")/.." && pwd)
R=/mnt/results

if [ "${1:-}" != --stage2 ]; then
	N=/mnt
	mount -t tmpfs -o mode=0755 tmpfs $N
	mkdir -p $N/usr $N/etc $N/opt $N/proc $N/sys $N/dev $N/tmp $N/run $N/root \
		 $N/var/tmp $N/var/log $N/var/lib $N/var/cache $N/home $N/mnt/results "$N$TOP"
	cp -P /bin /sbin /lib /lib32 /lib64 $N/ 2>/dev/null	# Debian's merged-/usr links
	chmod 1777 $N/tmp $N/var/tmp
	for d in usr etc opt; do
		mount --rbind /$d $N/$d
	done
	mount --rbind "$TOP" "$N$TOP"
	[ -n "${guest_bind:-}" ] && mkdir -p "$N$guest_bind" && mount --rbind "$guest_bind" "$N$guest_bind"
	exec chroot $N "$TOP/scripts/guest-init.sh" --stage2
fi

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t tracefs nodev /sys/kernel/tracing
mount -t debugfs nodev /sys/kernel/debug	# bpftrace 0.17 looks here
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results $R
hostname guest 2>/dev/null
ip link set lo up 2>/dev/null

echo "guest: up after $(cut -d' ' -f1 /proc/uptime) s" >/dev/console
cd "$(cat $R/cwd 2>/dev/null || echo /)" 2>/dev/null || cd /
if [ -e $R/interactive ]; then
	setsid -c bash -l </dev/console >/dev/console 2>&1
else
	bash $R/cmd.sh </dev/null >/dev/console 2>&1
fi
rc=$?
dmesg >$R/dmesg.log 2>/dev/null
echo "$rc" >$R/rc
sync
busybox poweroff -f 2>/dev/null
echo o >/proc/sysrq-trigger
sleep 5
