#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Lay out ubench results as a table: one column per kernel.

    report.py [--count] OURS.txt[,OURS2.txt...] [REF.txt[,REF2.txt...]]

--count: the boots counted instructions (QEMU -icount, ubench -c): every
"ns" is one guest instruction, so the figures are shown as instruction
counts (a toggle's microseconds as thousands of instructions, registrations
per second as instructions per registration), with the cost goals the project set itself.
Where a boot ran ubench twice (ubench-2.txt beside ubench.txt), the column
"2nd" gives the largest difference between the two runs of that boot, in
percent: a figure is published when the runs agree (within 1 %).

Each file is the output of bench/ubench in one boot ("R name value unit n"
lines, and "S name batch..." lines: the batch of each round).  Per-operation
costs are shown in ns (median batch) and as a ratio to a trace_marker_raw
write() of the same boot: the median over the rounds of the ratio within
each round (see paired()); with two columns, the last one compares the two
kernels through those ratios (the boots ran at different times: absolute
times drift with the host's load, ratios much less).  A column of several
boots shows, for every figure and every ratio, the median of its values in
the boots (each ratio still taken within one boot), and the goals their
range.  Only reports: nothing here passes or fails.
"""
import os
import statistics
import sys

COUNT = False

PER_OP = [
    ("syscall", "null syscall (getppid)"),
    ("null_write", "write() /dev/null, 4+32 B"),
    ("null_writev", "writev() /dev/null, 4 B + 32 B"),
    ("marker", "write() trace_marker, 32 B"),
    ("marker_raw", "write() trace_marker_raw, id+32 B"),
    ("ue_write_ftrace", "user_events write(), ftrace on"),
    ("ue_writev_ftrace", "user_events writev(), ftrace on"),
    ("ue_write_perf", "user_events write(), perf on"),
    ("ue_writev_perf", "user_events writev(), perf on"),
    ("ue_write_off", "user_events write(), nothing on"),
    ("ue_writev_off", "user_events writev(), nothing on"),
    ("bitcheck", "enabled-bit check (load+test)"),
    ("uprobe", "uprobe hit, ftrace on, 32 B"),
    ("tevent", "TRACE_EVENT task_rename, prctl()"),
    ("lttng_hit", "LTTng-UST tracepoint, session on"),
    ("lttng_off", "LTTng-UST tracepoint, not enabled"),
    ("null_write_2t", "2 threads at once: write() /dev/null"),
    ("marker_raw_2t", "2 threads: write() trace_marker_raw"),
    ("ue_write_ftrace_2t", "2 threads: user_events, ftrace on"),
    ("ue_write_off_2t", "2 threads: user_events, nothing on"),
]

OTHER = [
    ("toggle_on_1", "enable, 1 process registered", "us"),
    ("toggle_off_1", "disable, 1 process registered", "us"),
    ("toggle_on", "enable, 200 processes registered", "us"),
    ("toggle_off", "disable, 200 processes registered", "us"),
    ("toggle_on_1_unrel", "enable, 1 proc; 200x50 unrelated", "us"),
    ("toggle_off_1_unrel", "disable, 1 proc; 200x50 unrelated", "us"),
    ("toggle_on_unrel", "enable, 200 procs +50 unrelated each", "us"),
    ("toggle_off_unrel", "disable, 200 procs +50 unrelated each", "us"),
    ("toggle_pair_1", "enable+disable back to back, 1 proc", "us"),
    ("toggle_on_1_warm", "enable, 1 proc, warm (8 in a row)", "us"),
    ("toggle_off_1_warm", "disable, 1 proc, warm", "us"),
    ("toggle_on_1_unrel_warm", "enable, 1 proc, warm; 200x50 unrel", "us"),
    ("toggle_off_1_unrel_warm", "disable, 1 proc, warm; 200x50 unrel", "us"),
    ("reg_new", "registrations/s, new event", "1/s"),
    ("reg_existing", "registrations/s, existing event", "1/s"),
    ("slab_per_event", "Slab (pages) per new event", "B"),
    ("slabobj_per_event", "slab objects per new event", "B"),
    ("slab_per_reg", "Slab (pages) per registration", "B"),
    ("slabobj_per_reg", "slab objects per registration", "B"),
    ("slab_per_both", "Slab (pages), new event + 2nd reg", "B"),
    ("slabobj_per_both", "slab objects, new event + 2nd reg", "B"),
    ("fork_0", "fork(), no registrations", "us"),
    ("fork_1000", "fork(), 1000 registrations", "us"),
    ("forkexit_0", "fork+exit+wait, none", "us"),
    ("forkexit_1000", "fork+exit+wait, 1000 regs", "us"),
]

# (figure, divided by, what): ratios that the host's load cancels out of
DERIVED = [
    ("toggle_on_1_unrel", "toggle_on_1",
     "enable, 1 proc: with 10000 unrelated regs / without"),
    ("toggle_on_1_unrel_warm", "toggle_on_1_warm",
     "enable, 1 proc, warm: with 10000 unrelated / without"),
    ("toggle_on", "toggle_on_1", "enable: 200 processes / 1 process"),
    ("ue_write_off_2t", "null_write_2t",
     "2 threads: user_events nothing on / /dev/null"),
    ("ue_write_ftrace_2t", "ue_write_ftrace",
     "user_events ftrace on: 2 threads / 1 thread"),
    ("fork_1000", "fork_0", "fork(): 1000 registrations / none"),
    ("forkexit_1000", "forkexit_0", "fork+exit+wait: 1000 registrations / none"),
]

# (figure, divided by, ceiling, what) -- cost goals, counted
GOALS_COUNT = [
    ("ue_write_ftrace", "marker_raw", 1.10,
     "enabled write() / trace_marker_raw write()"),
    ("ue_write_off", "null_write", 1.15,
     "write() with nothing attached / write() to /dev/null"),
]

# (figure, ceiling of ours / ref, what) -- cost goals against the reference, counted
GOALS_REF = [
    (("toggle_on_unrel", "toggle_off_unrel"), 0.10,
     "enable+disable, procs holding 50 unrelated regs each"),
    (("reg_new",), 1.0, "registration of a new event"),
    (("reg_existing",), 1.0, "registration of an existing event"),
    (("toggle_on", "toggle_off"), 1.0, "enable+disable, processes registered"),
    (("fork_0",), 1.0, "fork(), no registrations"),
    (("fork_1000",), 1.0, "fork(), 1000 registrations"),
    (("forkexit_0",), 1.0, "fork+exit+wait, no registrations"),
    (("forkexit_1000",), 1.0, "fork+exit+wait, 1000 registrations"),
]

# (figure, divided by, ceiling, what) -- cost goals of the timed mode, reported only
GOALS = [
    ("ue_write_ftrace", "marker_raw", 1.10,
     "enabled write() / trace_marker_raw write()"),
    ("ue_write_off", "null_write", 1.20,
     "write() with nothing attached / write() to /dev/null"),
]


def load(path):
    res, meta = {}, []
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if p[0] == "S" and len(p) >= 3:
                res["S " + p[1]] = [float(x) for x in p[2:]]
            elif p[0] == "R" and len(p) >= 5:
                try:
                    res[p[1]] = float(p[2])
                except ValueError:
                    res[p[1]] = None
            elif line.startswith("# kernel") or line.startswith("# clocksource"):
                meta.append(line.strip()[2:])
    return res, meta


def counted(v, unit):
    """A figure of a counting boot in instructions: (value, unit)."""
    if v is None or not COUNT:
        return v, unit
    if unit == "us":
        return v, "k insn"
    if unit == "1/s":
        return (1e9 / v if v else None), "insn"
    return v, unit


def fmt(v, unit=""):
    if v is None:
        return "NA"
    if unit == "1/s" or v >= 1000:
        return "%.0f" % v
    return "%.1f" % v


def ratio(a, b):
    if a is None or b is None or not b:
        return None
    return a / b


def paired(res, a, b):
    """a / b, the median over the rounds of the ratio within each round.

    The rounds interleave the operations so that a change of the host's
    load hits them alike; under TCG on a shared host the load flips
    between states every few seconds, and the medians of two operations
    over all rounds can then come from different states.  The ratio taken
    within each round does not mix them.  Falls back to the ratio of the
    medians when there are no per-round samples (older ubench output).
    """
    sa, sb = res.get("S " + a), res.get("S " + b)
    if a.startswith("lttng_"):  # bench/lttng.c: rounds of its own, after
        sa = None
    if not sa or not sb or len(sa) != len(sb):
        return ratio(res.get(a), res.get(b))
    rs = [x / y for x, y in zip(sa, sb) if x > 0 and y > 0]
    return statistics.median(rs) if rs else None


def fr(r):
    return "NA" if r is None else "%.2f" % r


class Column:
    """One kernel: the results of one or more boots."""

    def __init__(self, paths):
        loaded = [load(p) for p in paths.split(",")]
        self.boots = [res for res, _ in loaded]
        # the second run of each boot, where there is one
        self.seconds = []
        for p in paths.split(","):
            p2 = p.replace("ubench.txt", "ubench-2.txt")
            if p2 != p and os.path.exists(p2):
                self.seconds.append((load(p)[0], load(p2)[0]))
        self.meta = loaded[0][1]
        if len(loaded) > 1:
            self.meta.append("%d boots" % len(loaded))

    def _each(self, f):
        """f(boot's results) for every boot where it is known."""
        return [v for v in map(f, self.boots) if v is not None]

    def _median(self, f):
        vals = self._each(f)
        return statistics.median(vals) if vals else None

    def get(self, key):
        """The figure: its median over the boots."""
        return self._median(lambda res: res.get(key))

    def paired(self, a, b):
        """a / b within each boot (paired by round), median over the boots."""
        return self._median(lambda res: paired(res, a, b))

    def paired_range(self, a, b):
        vals = self._each(lambda res: paired(res, a, b))
        return (min(vals), max(vals)) if vals else None

    def ratio(self, a, b):
        """a / b within each boot (medians), median over the boots."""
        return self._median(lambda res: ratio(res.get(a), res.get(b)))

    def spread(self, key):
        """Largest |run 2 - run 1| / run 1 of a figure over the boots, %."""
        d = [abs(r2[key] - r1[key]) / r1[key] * 100 for r1, r2 in self.seconds
             if r1.get(key) and r2.get(key) is not None]
        return max(d) if d else None


def fs(v):
    return "" if v is None else "%.2f" % v


def main():
    global COUNT
    args = sys.argv[1:]
    if args and args[0] == "--count":
        COUNT = True
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    cols = [Column(p) for p in args[:2]]
    names = ["ours", "ref"][:len(cols)]
    two = len(cols) == 2
    many = any(len(c.boots) > 1 for c in cols)

    for name, col in zip(names, cols):
        print("%-5s %s" % (name + ":", "; ".join(col.meta)))
    print()

    # the 2-thread figures are rounds of their own: paired with each other
    def base_of(key):
        return "marker_raw_2t" if key.endswith("_2t") else "marker_raw"

    twice = any(c.seconds for c in cols)
    head = "%-40s %9s %6s" % ("per operation, insn (median)" if COUNT else
                              "per operation, ns (median)", "ours", "/raw")
    if two:
        head += " | %9s %6s | %9s" % ("ref", "/raw", "ours:ref")
    if twice:
        head += " | %5s" % "2nd %"
    print(head)
    print("-" * len(head))
    for key, what in PER_OP:
        line = ""
        rs = []
        for col in cols:
            rs.append(col.paired(key, base_of(key)))
            line += "%s%9s %6s" % (" | " if line else "", fmt(col.get(key)),
                                   fr(rs[-1]))
        if two:
            # the two kernels compared through their own trace_marker_raw
            line += " | %9s" % fr(ratio(rs[0], rs[1]))
        if twice:
            sp = [c.spread(key) for c in cols if c.spread(key) is not None]
            line += " | %5s" % fs(max(sp) if sp else None)
        print("%-40s %s" % (what, line))
    print()

    head = "%-44s %9s" % ("other figures (median)", "ours")
    if two:
        head += " | %9s | %9s" % ("ref", "ours/ref")
    if twice:
        head += " | %5s" % "2nd %"
    print(head)
    print("-" * len(head))
    for key, what, unit in OTHER:
        vals = [counted(col.get(key), unit)[0] for col in cols]
        u = counted(1.0, unit)[1]
        line = "%-44s %9s" % ("%s, %s" % (what, u), fmt(vals[0], u))
        if two:
            line += " | %9s | %9s" % (fmt(vals[1], u), fr(ratio(vals[0], vals[1])))
        if twice:
            sp = [c.spread(key) for c in cols if c.spread(key) is not None]
            line += " | %5s" % fs(max(sp) if sp else None)
        print(line)
    print()

    print("within each boot:")
    for a, b, what in DERIVED:
        # paired() only where both come from the same rounds
        line = "  %-54s ours %s" % (what, fr(cols[0].paired(a, b)))
        if two:
            line += ", ref %s" % fr(cols[1].paired(a, b))
        print(line)
    print()

    def span(col, a, b):
        r = col.paired_range(a, b)
        return "" if not r or len(col.boots) < 2 else " [%.2f-%.2f]" % r

    if COUNT:
        print("cost goals, counted (reported, not asserted):")
        for key, base, ceil, what in GOALS_COUNT:
            line = "  %-54s ours %s (goal <= %.2f)" % (
                what, fr(cols[0].ratio(key, base)), ceil)
            if two:
                line += ", ref %s" % fr(cols[1].ratio(key, base))
            print(line)
        if two:
            for keys, ceil, what in GOALS_REF:
                a = [cols[0].get(k) for k in keys]
                b = [cols[1].get(k) for k in keys]
                if None in a or None in b:
                    r = None
                elif keys[0].startswith("reg_"):
                    r = b[0] / a[0]     # rates: instructions are 1/rate
                else:
                    r = sum(a) / sum(b)
                print("  %-54s ours/ref %s (goal <= %.2f)" % (what, fr(r), ceil))
        return

    print("cost goals, timed (reported, not asserted):")
    for key, base, ceil, what in GOALS:
        line = "  %-54s ours %s%s (goal <= %.2f)" % (
            what, fr(cols[0].paired(key, base)), span(cols[0], key, base), ceil)
        if two:
            line += ", ref %s%s" % (fr(cols[1].paired(key, base)),
                                    span(cols[1], key, base))
        print(line)
        # the same as a ratio of the two medians, for comparison
        line = "  %-54s ours %s" % ("  (ratio of the medians)",
                                     fr(cols[0].ratio(key, base)))
        if two:
            line += ", ref %s" % fr(cols[1].ratio(key, base))
        print(line)
    if two:
        # through each boot's trace_marker_raw, as the per-operation column
        for key in ("toggle_on_1_unrel_warm", "toggle_off_1_unrel_warm",
                    "toggle_on_1_unrel", "toggle_off_1_unrel",
                    "toggle_on_unrel", "toggle_off_unrel", "toggle_pair_1"):
            r = ratio(cols[1].ratio(key, "marker_raw"),
                      cols[0].ratio(key, "marker_raw"))
            print("  %-54s %sx (goal >= 10x)" % (
                "ref / ours, " + key.replace("_", " "), fr(r)))
        print("  (toggles compared through each boot's trace_marker_raw)")
    if many:
        print("  (several boots: medians over the boots, [range])")


if __name__ == "__main__":
    main()
