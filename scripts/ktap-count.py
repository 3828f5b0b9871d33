#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count KTAP/TAP results: the leaf tests of every file given.

  ktap-count.py [--list] FILE...

Nesting comes from indentation (KUnit: four spaces a level) and from "# "
prefixes (run_kselftest.sh wraps each test binary's output in them).  A
result with results nested under it is a parent: only leaves are counted,
except that a parent which says "not ok" while none of its leaves failed
(a crash, a timeout) counts as one failure.  "# SKIP" results are skipped,
never passed.  printk timestamps ("[  1.234] ") are ignored.

A failure is printed with the diagnostic lines its test printed before
its result (the last DIAG_LINES of them), so that the tail of a CI log
says why.

Prints "N passed, N failed, N skipped"; exits 1 when anything failed or
nothing ran.
"""
import re
import sys

RESULT = re.compile(r'^(?P<lead>(?:# |\s)*)(?P<not>not )?ok (?P<num>\d+)\b\s*(?P<rest>.*)$')
STAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
DIAG = re.compile(r'^(?:# |    )*')
DIAG_LINES = 12


def depth(lead):
    d, i = 0, 0
    while i < len(lead):
        if lead.startswith('# ', i):
            d += 1
            i += 2
        elif lead.startswith('    ', i):
            d += 1
            i += 4
        else:
            i += 1
    return d


def count(lines, listing, src):
    passed = failed = skipped = 0
    deeper = {}       # depth -> a result was seen deeper since the last at this depth
    deeper_fail = {}  # depth -> a deeper result failed since then
    diag = {}         # depth -> diagnostic lines since the last result there
    last = None       # the depth the last diagnostic line went to
    seq = 0
    for raw in lines:
        line = STAMP.sub('', raw.rstrip('\r\n'))
        m = RESULT.match(line)
        if not m:
            # One level deeper than the result it belongs to: KUnit
            # indents and then says "# ", kselftest prefixes "# ".  A
            # line without "# " (KUnit's "Expected ..." that follows its
            # "# ...: EXPECTATION FAILED") goes with the line before.
            lead = DIAG.match(line).group(0)
            if lead.endswith('# '):
                last = depth(lead) - 1
            if last is not None:
                seq += 1
                diag.setdefault(last, []).append((seq, line))
                del diag[last][:-DIAG_LINES]
            continue
        d = depth(m.group('lead'))
        ok = not m.group('not')
        rest = m.group('rest')
        directive = rest.split(' # ', 1)[1].strip().upper() if ' # ' in rest else \
            (rest[2:].strip().upper() if rest.startswith('# ') else '')
        parent = deeper.get(d, False)
        child_failed = deeper_fail.get(d, False)
        # with what a test that never reported said (a crash, a timeout)
        said = sorted(diag.pop(d, []) + diag.pop(d + 1, []))
        for k in [k for k in diag if k > d]:
            del diag[k]
        deeper[d] = deeper_fail[d] = False
        for k in range(d):
            deeper[k] = True
            if not ok and not directive.startswith('SKIP'):
                deeper_fail[k] = True
        if parent:
            if not ok and not child_failed and not directive.startswith('SKIP'):
                failed += 1
                for k in range(d):
                    deeper_fail[k] = True
                print('FAIL  %s: %s (crashed or timed out)' % (src, line.strip()))
                for _, text in said:
                    print('      %s' % text.strip())
            continue
        if directive.startswith('SKIP') or directive.startswith('TODO'):
            skipped += 1
            kind = 'SKIP'
        elif ok:
            passed += 1
            kind = 'PASS'
        else:
            failed += 1
            kind = 'FAIL'
        if listing or kind == 'FAIL':
            print('%-5s %s: %s' % (kind, src, line.strip()))
        if kind == 'FAIL':
            for _, text in said:
                print('      %s' % text.strip())
    return passed, failed, skipped


def main():
    args = sys.argv[1:]
    listing = '--list' in args
    args = [a for a in args if a != '--list']
    tp = tf = ts = 0
    for path in args:
        try:
            with open(path, errors='replace') as f:
                p, fl, s = count(f, listing, path.rsplit('/', 1)[-1])
        except FileNotFoundError:
            print('FAIL  %s: no results (file missing)' % path)
            p, fl, s = 0, 1, 0
        tp, tf, ts = tp + p, tf + fl, ts + s
    print('%d passed, %d failed, %d skipped' % (tp, tf, ts))
    return 1 if tf or not tp else 0


if __name__ == '__main__':
    sys.exit(main())
