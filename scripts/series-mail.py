#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the output of git format-patch into the mails of the series.

  series-mail.py OUT STOCK_VERSION STOCK_TREE

OUT holds 0000-cover-letter.patch and one file per patch, made by
scripts/series-export.sh from the final tree (build/linux, where
scripts/get_maintainer.pl runs).  This fills in the cover letter from
patches/cover-letter, puts To: and Cc: on every mail, and writes
OUT/.droppable, which names the patches that the `series` file marks
"drop: NAME" (make series-check WITHOUT=NAME leaves them out).

Recipients of a patch: get_maintainer.pl --no-git --no-rolestats on it,
maintainers in To:, reviewers and lists in Cc:; plus the memory
management maintainer and list on the "mm:" patch, the BPF maintainers
and list on the BPF patch (tag "bpf", or BPF in its subject), and the
tracing maintainers, reviewer and list on the "tracepoint:" patch.  The
sender is left out; a patch with no other maintainer goes to its lists.
The cover letter goes to all of them.
"""
import email.header
import email.utils
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BUILD', os.path.join(TOP, 'build'))
LINUX = os.path.join(BUILD, 'linux')

# MAINTAINERS sections whose people a patch gets beyond get_maintainer.pl
EXTRA = (
    (lambda subj, tag: subj.startswith('mm: '), 'MEMORY MANAGEMENT', 'M'),
    (lambda subj, tag: tag == 'bpf' or re.search(r'\bBPF\b', subj),
     'BPF [GENERAL] (Safe Dynamic Programs and Tools)', 'M'),
    (lambda subj, tag: subj.startswith('tracepoint: '), 'TRACING', 'MR'),
)


def die(msg):
    sys.stderr.write('series-mail: %s\n' % msg)
    sys.exit(1)


def read_header(path):
    """(header lines, body) of a mail file; header lines unfolded."""
    text = open(path, encoding='utf-8').read()
    head, sep, body = text.partition('\n\n')
    lines = []
    for line in head.split('\n'):
        if line[:1] in (' ', '\t') and lines:
            lines[-1] += ' ' + line.strip()
        else:
            lines.append(line)
    return lines, text


def header(lines, name):
    for line in lines:
        if line.lower().startswith(name.lower() + ':'):
            return line.split(':', 1)[1].strip()
    return None


def subject_of(path):
    subj = header(read_header(path)[0], 'Subject') or ''
    subj = str(email.header.make_header(email.header.decode_header(subj)))
    return re.sub(r'^\[[^]]*\]\s*', '', subj)


def drop_tags():
    """{subject: tag} of the `series` entries marked "drop: NAME"."""
    r = subprocess.run([os.path.join(TOP, 'scripts', 'series.py'), 'drops'],
                       capture_output=True, text=True)
    if r.returncode:
        die('series.py drops: %s' % r.stderr.strip())
    tags = {}
    for line in r.stdout.splitlines():
        tag, subj = line.split('\t', 1)
        tags[subj] = tag
    return tags


def maintainers_section(title, roles):
    """The addresses of the given roles (M, R, L) of a MAINTAINERS section."""
    people, lists, on = [], [], False
    with open(os.path.join(LINUX, 'MAINTAINERS'), encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if not on:
                on = line == title
                continue
            if not line.strip():
                break
            m = re.match(r'([A-Z]):\s+(.*)', line)
            if m and m.group(1) in roles:
                people.append(m.group(2).strip())
            elif m and m.group(1) == 'L':
                lists.append(m.group(2).split()[0])
    if not people and not lists:
        die('MAINTAINERS has no section "%s"' % title)
    return people, lists


def get_maintainer(patch, *opts):
    r = subprocess.run(['scripts/get_maintainer.pl', '--no-git', '--no-git-fallback',
                        '--no-rolestats'] + list(opts) + [patch],
                       cwd=LINUX, capture_output=True, text=True)
    if r.returncode:
        die('get_maintainer.pl %s: %s' % (patch, r.stderr.strip()))
    return [line.strip() for line in r.stdout.splitlines() if line.strip()]


def addr(a):
    return email.utils.parseaddr(a)[1].lower()


def add(dst, items, skip):
    for a in items:
        if addr(a) not in skip and addr(a) not in [addr(d) for d in dst]:
            dst.append(a)


def fmt_addrs(name, addrs):
    """A To:/Cc: header, one address a line, non-ASCII names encoded."""
    enc = []
    for a in addrs:
        real, mail = email.utils.parseaddr(a)
        enc.append(email.utils.formataddr((real, mail), 'utf-8') if real else mail)
    return '%s: %s\n' % (name, ',\n    '.join(enc))


def put_headers(path, to, cc):
    text = open(path, encoding='utf-8').read()
    head, sep, body = text.partition('\n\n')
    head = re.sub(r'\n(To|Cc): .*?(?=\n\S|\Z)', '', head, flags=re.S)
    extra = (fmt_addrs('To', to) if to else '') + (fmt_addrs('Cc', cc) if cc else '')
    open(path, 'w', encoding='utf-8').write(head + '\n' + extra.rstrip('\n') + sep + body)


def fill_cover(cover, subjects, stock, tree):
    text = open(os.path.join(TOP, 'patches', 'cover-letter'), encoding='utf-8').read()
    title, _, blurb = text.rstrip('\n').partition('\n')
    blurb = blurb.strip('\n').replace('@STOCK@', stock).replace('@STOCK_TREE@', tree)
    flat = ' '.join(blurb.split())
    # Patches are named by subject: every quoted subject must be one of
    # the series, and no patch is named by its number.
    known = set(subjects)
    for q in re.findall(r'"([^"]+)"', flat):
        if re.match(r'[\w/.-]+(: [\w/.-]+)*: [A-Z]', q) and q not in known:
            die('the cover letter names "%s", which is no subject of the series' % q)
    m = re.search(r'\b[Pp]atch(es)? \d+', flat)
    if m:
        die('the cover letter names a patch by number: "%s"' % m.group())
    left = re.findall(r'@[A-Z_]+@', blurb)
    if left:
        die('the cover letter has an unknown placeholder %s' % left[0])
    s = open(cover, encoding='utf-8').read()
    if '*** SUBJECT HERE ***' not in s:
        die('%s is not the cover letter of git format-patch' % cover)
    s = s.replace('*** SUBJECT HERE ***', title).replace('*** BLURB HERE ***', blurb)
    open(cover, 'w', encoding='utf-8').write(s)


def main():
    out, stock, tree = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    files = sorted(f for f in os.listdir(out) if re.match(r'\d{4}-.*\.patch$', f))
    cover = os.path.join(out, files[0])
    patches = [os.path.join(out, f) for f in files[1:]]
    if not files[0].startswith('0000-') or not patches:
        die('no cover letter and patches in %s' % out)

    senders = set(header(read_header(p)[0], 'From') for p in [cover] + patches)
    if len(senders) != 1:
        die('the mails come from more than one identity: %s' % ', '.join(sorted(senders)))
    sender = addr(senders.pop())

    subjects = [subject_of(p) for p in patches]
    tags = drop_tags()
    with open(os.path.join(out, '.droppable'), 'w') as f:
        for p, subj in zip(patches, subjects):
            if subj in tags:
                f.write('%s %s\n' % (os.path.basename(p), tags[subj]))
    missing = set(tags) - set(subjects)
    if missing:
        die('series marks "%s" droppable, but no patch has that subject' % missing.pop())

    all_to, all_cc = [], []
    for p, subj in zip(patches, subjects):
        to, cc = [], []
        add(to, get_maintainer(p, '--m', '--no-r', '--no-l'), {sender})
        add(cc, get_maintainer(p, '--no-m', '--r', '--l'), {sender})
        for match, title, roles in EXTRA:
            if match(subj, tags.get(subj)):
                people, lists = maintainers_section(title, roles)
                add(to, people, {sender})
                add(cc, lists, {sender})
        cc = [a for a in cc if addr(a) not in [addr(t) for t in to]]
        if not to:
            # No maintainer but the sender: the lists are the addressees.
            to, cc = cc, []
        put_headers(p, to, cc)
        add(all_to, to, {sender})
        add(all_cc, cc, {sender})
        print('%s\n  To: %s\n  Cc: %s' % (os.path.basename(p), ', '.join(to) or '-',
                                          ', '.join(cc) or '-'))
    all_cc = [a for a in all_cc if addr(a) not in [addr(t) for t in all_to]]
    fill_cover(cover, subjects, stock, tree)
    put_headers(cover, all_to, all_cc)


if __name__ == '__main__':
    main()
