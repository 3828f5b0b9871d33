# SPDX-License-Identifier: GPL-2.0
# gdb -batch -x bench/itrace.py VMLINUX (scripts/bench.sh --trace runs it):
# the instructions that one system call executes, function by function.
#
# The guest (scripts/vm.sh --gdb --icount: one vCPU) runs ubench -o OP,
# which loops over that one operation.  For each OP:FUNC of $ITRACE_STOPS,
# stop in FUNC (the system call's entry, __x64_sys_write for a write()),
# then single-step the guest's next system call of the same number (a
# write() not on stdout or stderr, where ubench reports its batches), from
# entry_SYSCALL_64 to the return to user mode.  QEMU steps one instruction
# at a time with interrupts masked, and a rep-prefixed instruction one
# iteration at a time, which is how -icount counts them too.
#
# Each OP is traced until two traces in a row agree (a ring buffer page
# boundary, for one, gives another).  Writes $ITRACE_OUT/itrace-OP.txt:
# the count of each function in the order of their first instruction, and
# the total.
import bisect
import os

import gdb

SYSMAP = os.environ["ITRACE_SYSMAP"]
OUT = os.environ["ITRACE_OUT"]
STOPS = [s.split(":") for s in os.environ["ITRACE_STOPS"].split()]
USER_TOP = 0xFFFF800000000000
MAX_STEPS = 200000
# x86-64 numbers of the system calls traced
NR = {"__x64_sys_write": 1, "__x64_sys_writev": 20,
      "__x64_sys_getppid": 110, "__x64_sys_prctl": 157}

syms = []
with open(SYSMAP) as f:
    for line in f:
        addr, kind, name = line.split()[:3]
        if kind in "tTwW":
            syms.append((int(addr, 16), name))
syms.sort()
addrs = [a for a, _ in syms]


def func_of(pc):
    i = bisect.bisect_right(addrs, pc) - 1
    return syms[i][1] if i >= 0 else "?"


def step_syscall(nr):
    """The pcs of the next system call NR, not a write() on fd 1 or 2."""
    gdb.execute("hbreak entry_SYSCALL_64", to_string=True)
    while True:
        gdb.execute("continue", to_string=True)
        rax = int(gdb.parse_and_eval("$rax"))
        rdi = int(gdb.parse_and_eval("$rdi"))
        if rax == nr and not (nr in (1, 20) and rdi in (1, 2)):
            break
    gdb.execute("delete")
    pcs = []
    while True:
        pc = int(gdb.parse_and_eval("$pc")) & 0xFFFFFFFFFFFFFFFF
        if pc < USER_TOP:
            return pcs
        if len(pcs) == MAX_STEPS:
            raise gdb.GdbError("no return to user mode in %d steps" % MAX_STEPS)
        pcs.append(pc)
        gdb.execute("stepi", to_string=True)


def trace(func):
    gdb.execute("hbreak " + func, to_string=True)
    gdb.execute("continue", to_string=True)
    gdb.execute("delete")
    counts = {}
    for pc in step_syscall(NR[func]):
        name = func_of(pc)
        counts[name] = counts.get(name, 0) + 1
    return counts


gdb.execute("set pagination off")
gdb.execute("set remotetimeout 60")
gdb.execute("target remote :1234")
for op, func in STOPS:
    last = None
    for attempt in range(4):
        counts = trace(func)
        if counts == last:
            break
        last = counts
    else:
        raise gdb.GdbError("%s: no two system calls after %s agree" % (op, func))
    with open(os.path.join(OUT, "itrace-%s.txt" % op), "w") as f:
        for name, n in counts.items():
            f.write("%6d %s\n" % (n, name))
        f.write("%6d total\n" % sum(counts.values()))
    print("itrace: %-18s %6d instructions" % (op, sum(counts.values())))
gdb.execute("kill")
