#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse the `series` manifest and turn it into commits on the base tree.

  series.py list              print the entries (subject, files, diffs)
  series.py drops             print "NAME<TAB>SUBJECT" of each droppable entry
  series.py apply             build/linux := base + one commit per entry

apply builds every commit with git plumbing in a scratch index (nothing in
build/linux is touched while it runs), with fixed dates so that an unchanged
series gives the same commits, then checks the result out in build/linux.
git checkout only rewrites files whose content changed, so an edit to one
file of the series rebuilds only what depends on that file.

A diff may also change a file that an earlier entry of the series adds (a
"staged" file): the repo keeps the file as it is at the end of the series,
and the entry that adds it gets it with every later diff of it taken back
(git apply -R, newest first).  That lets one file grow over several
patches, e.g. the core first and a feature later, while the code is kept
once, in its final form.  The last commit must reproduce the repo's files.
Such diffs are written by hand for their patch, and kept small.

An entry may say "drop: NAME" (groups, bpf): a maintainer may take the
series without it; `series.py drops` lists them for series-check.
"""
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BUILD', os.path.join(TOP, 'build'))
BASE = os.path.join(BUILD, 'base')
LINUX = os.path.join(BUILD, 'linux')
DATE = '2025-01-01T00:00:00Z'
# Where the series' own files live; a file there that no entry names is an error.
SERIES_DIRS = ('include', 'kernel', 'samples', 'tools', 'Documentation', 'fs', 'mm')


def die(msg):
    sys.stderr.write('series: %s\n' % msg)
    sys.exit(1)


def parse(path=os.path.join(TOP, 'series')):
    entries, cur, in_body = [], None, False
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if cur is None:
                if not line.strip() or line.startswith('#'):
                    continue
            if line.startswith('patch:'):
                cur = {'subject': line[6:].strip(), 'files': [], 'diffs': [],
                       'drop': None, 'body': []}
                entries.append(cur)
                in_body = False
                continue
            if cur is None:
                die('%s:%d: expected "patch:"' % (path, no))
            if not in_body and line.startswith('files:'):
                cur['files'] += line[6:].split()
            elif not in_body and line.startswith('diffs:'):
                cur['diffs'] += line[6:].split()
            elif not in_body and line.startswith('drop:'):
                cur['drop'] = line[5:].strip()
            elif not in_body and not line.strip():
                in_body = True
            elif not in_body:
                die('%s:%d: unexpected line in header' % (path, no))
            else:
                cur['body'].append(line)
    for e in entries:
        while e['body'] and not e['body'][-1].strip():
            e['body'].pop()
    return entries


def repo_files():
    """Files of the project repo: tracked plus untracked-not-ignored."""
    out = subprocess.run(['git', '-C', TOP, 'ls-files', '-co', '--exclude-standard'],
                         check=True, capture_output=True, text=True).stdout
    return sorted(set(p for p in out.splitlines() if os.path.isfile(os.path.join(TOP, p))))


def expand(entries):
    """Resolve directory entries; warn about missing files; return [(entry, files)]."""
    allf = repo_files()
    owned, result = {}, []
    # a file named on its own goes to that entry, not to its directory's
    named = set(p for e in entries for p in e['files'] if not p.endswith('/'))
    for e in entries:
        files = []
        for p in e['files']:
            if p.endswith('/'):
                sub = [f for f in allf if f.startswith(p) and f not in named]
                if not sub:
                    sys.stderr.write('series: warning: %s is empty or missing\n' % p)
                files += sub
            elif os.path.isfile(os.path.join(TOP, p)):
                files.append(p)
            else:
                sys.stderr.write('series: warning: %s missing, skipped\n' % p)
        for f in files:
            if f in owned:
                die('%s is in "%s" and in "%s"' % (f, owned[f], e['subject']))
            owned[f] = e['subject']
        result.append((e, files))
    stray = [f for f in allf if f.startswith(tuple(d + '/' for d in SERIES_DIRS))
             and f not in owned]
    if stray:
        die('files at kernel paths that no series entry names: ' + ' '.join(stray))
    return result


def git(*args, env=None, inp=None):
    r = subprocess.run(['git', '--git-dir', os.path.join(BASE, '.git')] + list(args),
                       env=env, input=inp, capture_output=True, text=True)
    if r.returncode:
        die('git %s: %s' % (' '.join(args[:3]), r.stderr.strip()))
    return r.stdout.strip()


def diff_targets(diff):
    """The paths a unified diff writes."""
    paths = []
    with open(os.path.join(TOP, diff)) as f:
        for line in f:
            if line.startswith('+++ ') and not line.startswith('+++ /dev/null'):
                p = line[4:].split('\t')[0].strip()
                paths.append(p[2:] if p.startswith('b/') else p)
    return paths


class Stale(Exception):
    """The staged diffs no longer fit the final file."""


def staged_content(path, later):
    """The repo's file PATH with the diffs in LATER taken back, newest first."""
    tmp = tempfile.mkdtemp(prefix='series-stage.')
    try:
        dst = os.path.join(tmp, path)
        os.makedirs(os.path.dirname(dst))
        shutil.copy2(os.path.join(TOP, path), dst)
        env = {k: v for k, v in os.environ.items() if not k.startswith('GIT_')}
        for d in reversed(later):
            r = subprocess.run(['git', 'apply', '-R', '--include=' + path,
                                os.path.join(TOP, d)], cwd=tmp, env=env,
                               capture_output=True, text=True)
            if r.returncode:
                raise Stale('%s: cannot take %s back from the final file '
                            '(the diff no longer fits the file: mend it): %s'
                            % (path, d, r.stderr.strip()))
        with open(dst, 'rb') as f:
            return f.read()
    finally:
        shutil.rmtree(tmp)


def build_commits(entries):
    """Commits for the entries.  If a staged diff no longer fits its
    file (an edit of the final file touched its context), a build only
    needs the final tree: unless SERIES_STRICT is set, warn and give
    every own file its final form at once."""
    try:
        return build_commits_staged(entries, False)
    except Stale as e:
        if os.environ.get('SERIES_STRICT'):
            die(str(e))
        sys.stderr.write('series: warning: %s\nseries: warning: building the final '
                         'tree without the staged steps\n' % e)
        return build_commits_staged(entries, True)


def build_commits_staged(entries, flat):
    fd, idx = tempfile.mkstemp(prefix='series-index.')
    os.close(fd)
    env = dict(os.environ, GIT_INDEX_FILE=idx,
               GIT_AUTHOR_DATE=DATE, GIT_COMMITTER_DATE=DATE)
    ident = subprocess.run(['git', '-C', TOP, 'var', 'GIT_AUTHOR_IDENT'],
                           capture_output=True, text=True).stdout.split('>')[0]
    if '<' in ident:
        name, mail = ident.split('<', 1)
        env.update(GIT_AUTHOR_NAME=name.strip(), GIT_AUTHOR_EMAIL=mail.strip(),
                   GIT_COMMITTER_NAME=name.strip(), GIT_COMMITTER_EMAIL=mail.strip())
    try:
        git('read-tree', 'base', env=env)
        parent = git('rev-parse', 'base')
        commits = []
        expanded = expand(entries)
        own = set(f for _, files in expanded for f in files)
        # later[f]: the diffs, in series order, that change the series' own file f
        later = {}
        for e, _ in expanded:
            for d in e['diffs']:
                for t in diff_targets(d):
                    if t in own:
                        later.setdefault(t, []).append(d)
        added = set()
        for e, files in expanded:
            added.update(files)
            for d in e['diffs']:
                early = [t for t in diff_targets(d) if t in own and t not in added]
                if early:
                    die('%s changes %s before the entry that adds it' % (d, early[0]))
            for f in files:
                src = os.path.join(TOP, f)
                if f in later and not flat:
                    blob = git('hash-object', '-w', '--stdin', env=env,
                               inp=staged_content(f, later[f]).decode())
                else:
                    blob = git('hash-object', '-w', src, env=env)
                mode = '100755' if os.access(src, os.X_OK) else '100644'
                git('update-index', '--add', '--cacheinfo', '%s,%s,%s' % (mode, blob, f),
                    env=env)
            for d in e['diffs']:
                if not flat:
                    git('apply', '--cached', os.path.join(TOP, d), env=env)
                    continue
                mine = [t for t in diff_targets(d) if t in own]
                if len(mine) < len(diff_targets(d)):
                    git('apply', '--cached', *['--exclude=' + t for t in mine],
                        os.path.join(TOP, d), env=env)
            tree = git('write-tree', env=env)
            msg = e['subject'] + '\n' + ('\n' + '\n'.join(e['body']) + '\n' if e['body'] else '')
            if 'GIT_AUTHOR_NAME' in env:
                msg += '\nSigned-off-by: %s <%s>\n' % (env['GIT_AUTHOR_NAME'], env['GIT_AUTHOR_EMAIL'])
            parent = git('commit-tree', tree, '-p', parent, env=env, inp=msg)
            commits.append(parent)
        for f in sorted(later):
            want = git('hash-object', os.path.join(TOP, f), env=env)
            have = git('rev-parse', '%s:%s' % (parent, f), env=env)
            if want != have:
                die('%s: the series does not end with the repo\'s file' % f)
        return commits
    finally:
        os.unlink(idx)


def apply():
    if not os.path.isdir(os.path.join(LINUX, '.git')) and not os.path.isfile(os.path.join(LINUX, '.git')):
        subprocess.run(['git', '-C', BASE, 'worktree', 'prune'], check=True)
        subprocess.run(['git', '-C', BASE, 'worktree', 'add', '-q', '--detach', LINUX, 'base'],
                       check=True)
    head = build_commits(parse())[-1]
    subprocess.run(['git', '-C', LINUX, 'checkout', '-q', '-f', '--detach', head], check=True)
    subprocess.run(['git', '-C', LINUX, 'tag', '-f', 'series', head],
                   check=True, capture_output=True)
    print(head)


if __name__ == '__main__':
    cmd = sys.argv[1] if len(sys.argv) > 1 else 'list'
    if cmd == 'list':
        for e, files in expand(parse()):
            print('%s\n  files: %s\n  diffs: %s' % (e['subject'], ' '.join(files),
                                                   ' '.join(e['diffs'])))
    elif cmd == 'drops':
        for e in parse():
            if e['drop']:
                print('%s\t%s' % (e['drop'], e['subject']))
    elif cmd == 'apply':
        apply()
    else:
        die('unknown command %s' % cmd)
