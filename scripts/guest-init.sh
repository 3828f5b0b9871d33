#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the QEMU guest (see scripts/vm.sh): mount what a test needs on
# top of the host's read-only root, run cmd.sh from the results share, save its status and
# the kernel log to the results share, power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux} LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
for d in /tmp /run /var/tmp /var/log /var/lib /var/cache /root /mnt /home; do
	mount -t tmpfs -o mode=0755 tmpfs "$d"
done
chmod 1777 /tmp /var/tmp
mount -t tracefs nodev /sys/kernel/tracing
mount -t debugfs nodev /sys/kernel/debug	# bpftrace 0.17 looks here
mkdir -p /sys/fs/bpf 2>/dev/null && mount -t bpf bpf /sys/fs/bpf 2>/dev/null
R=/mnt/results		# the host's results directory (vm.sh --results)
mkdir -p $R
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results $R
ln -sf /proc/self/fd /dev/fd 2>/dev/null
hostname guest 2>/dev/null
ip link set lo up 2>/dev/null || busybox ip link set lo up 2>/dev/null

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
