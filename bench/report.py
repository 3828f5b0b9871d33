#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Lay out ubench results as a table: one column per kernel.

    report.py OURS.txt [REF.txt]

Each file is the output of bench/ubench in one boot ("R name value unit n"
lines).  Per-operation costs are shown in ns and as a ratio to a
trace_marker_raw write() of the same boot; with two files, the last column
compares the two kernels through those ratios (the boots ran at different
times: absolute times drift with the host's load, ratios much less).  Only
reports: nothing here passes or fails.
"""
import sys

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

# (figure, divided by, ceiling, what) -- the goals of issue 8, reported only
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
            if p[0] == "R" and len(p) >= 5:
                try:
                    res[p[1]] = float(p[2])
                except ValueError:
                    res[p[1]] = None
            elif line.startswith("# kernel") or line.startswith("# clocksource"):
                meta.append(line.strip()[2:])
    return res, meta


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


def fr(r):
    return "NA" if r is None else "%.2f" % r


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cols = [load(p) for p in sys.argv[1:3]]
    names = ["ours", "ref"][:len(cols)]
    two = len(cols) == 2

    for name, (_, meta) in zip(names, cols):
        print("%-5s %s" % (name + ":", "; ".join(meta)))
    print()

    head = "%-40s %9s %6s" % ("per operation, ns (median)", "ours", "/raw")
    if two:
        head += " | %9s %6s | %9s" % ("ref", "/raw", "ours:ref")
    print(head)
    print("-" * len(head))
    for key, what in PER_OP:
        line = ""
        vals = []
        for res, _ in cols:
            v = res.get(key)
            vals.append(v)
            line += "%s%9s %6s" % (" | " if line else "", fmt(v),
                                   fr(ratio(v, res.get("marker_raw"))))
        if two:
            # the two boots compared through their own trace_marker_raw
            line += " | %9s" % fr(ratio(ratio(vals[0], cols[0][0].get("marker_raw")),
                                        ratio(vals[1], cols[1][0].get("marker_raw"))))
        print("%-40s %s" % (what, line))
    print()

    head = "%-44s %9s" % ("other figures (median)", "ours")
    if two:
        head += " | %9s | %9s" % ("ref", "ours/ref")
    print(head)
    print("-" * len(head))
    for key, what, unit in OTHER:
        vals = [res.get(key) for res, _ in cols]
        line = "%-44s %9s" % ("%s, %s" % (what, unit), fmt(vals[0], unit))
        if two:
            line += " | %9s | %9s" % (fmt(vals[1], unit), fr(ratio(vals[0], vals[1])))
        print(line)
    print()

    print("within each boot:")
    for a, b, what in DERIVED:
        line = "  %-54s ours %s" % (what, fr(ratio(cols[0][0].get(a), cols[0][0].get(b))))
        if two:
            line += ", ref %s" % fr(ratio(cols[1][0].get(a), cols[1][0].get(b)))
        print(line)
    print()

    print("goals of issue 8 (reported, not asserted):")
    for key, base, ceil, what in GOALS:
        line = "  %-54s ours %s (goal <= %.2f)" % (
            what, fr(ratio(cols[0][0].get(key), cols[0][0].get(base))), ceil)
        if two:
            line += ", ref %s" % fr(ratio(cols[1][0].get(key), cols[1][0].get(base)))
        print(line)
    if two:
        # through each boot's trace_marker_raw, as the per-operation column
        base = [c[0].get("marker_raw") for c in cols]
        for key in ("toggle_on_1_unrel_warm", "toggle_off_1_unrel_warm",
                    "toggle_on_1_unrel", "toggle_off_1_unrel",
                    "toggle_on_unrel", "toggle_off_unrel", "toggle_pair_1"):
            r = ratio(ratio(cols[1][0].get(key), base[1]),
                      ratio(cols[0][0].get(key), base[0]))
            print("  %-54s %sx (goal >= 10x)" % (
                "ref / ours, " + key.replace("_", " "), fr(r)))
        print("  (toggles compared through each boot's trace_marker_raw)")


if __name__ == "__main__":
    main()
