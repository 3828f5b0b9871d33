#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate the diffs that split the core over several patches.

  scripts/series-stages.py

The repo keeps kernel/trace/trace_events_user.c and the UAPI header in
their final form.  The series adds them in four steps (see `series`):

  s1  user_events: Add user-based trace events     (no enable bits)
  s2  + patches/user_events-enable.patch           (enablers, fork/exec/exit)
  s3  + patches/user_events-perf.patch             (perf and eBPF probe)
  final + patches/user_events-flags.patch          (PERSIST, MULTI_FORMAT)

This script derives s3, s2 and s1 from the final files by taking each
feature out again (every edit asserts that the text it changes is there
exactly once, so a change to the core that it no longer fits stops it
with the text to look at) and writes the three diffs.  Run it after
changing the core, then `make series`.  The stages are left in
build/stages/ for inspection.
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(os.environ.get('BUILD', os.path.join(TOP, 'build')), 'stages')
C = 'kernel/trace/trace_events_user.c'
U = 'include/uapi/linux/user_events.h'

def rd(p):
    with open(os.path.join(TOP, p)) as f:
        return f.read()



def rep(s, old, new, count=1):
    n = s.count(old)
    if n != count:
        sys.exit('expected %d of %r, found %d' % (count, old[:70], n))
    return s.replace(old, new)

def func_span(lines, name):
    """[start, end) of function NAME with its comment and one blank line after."""
    pat = re.compile(r'^[A-Za-z_].*\b%s\(' % re.escape(name))
    for i, l in enumerate(lines):
        if pat.match(l) or l.startswith(name + '('):
            j = i
            while not lines[j].startswith('{'):
                if lines[j].rstrip().endswith(';'):
                    break
                j += 1
            if not lines[j].startswith('{'):
                continue
            start = i
            if start and lines[start-1] and not lines[start-1].rstrip().endswith((';', '}', '*/', '{')) \
                    and not lines[start-1].startswith(('#', ' ', '\t')):
                start -= 1
            if lines[start-1].rstrip().endswith('*/'):
                k = start - 1
                while not lines[k].startswith('/*'):
                    k -= 1
                start = k
            end = j
            while lines[end] != '}':
                end += 1
            end += 1
            if end < len(lines) and lines[end] == '' and lines[start-1] == '':
                end += 1
            return start, end
    sys.exit('function %s not found' % name)

def drop_funcs(s, *names):
    lines = s.split('\n')
    for n in names:
        a, b = func_span(lines, n)
        del lines[a:b]
    return '\n'.join(lines)

def drop_between(s, first, last):
    """Drop from the line FIRST through the line LAST (exact lines)."""
    lines = s.split('\n')
    a = lines.index(first)
    b = lines.index(last, a)
    del lines[a:b+1]
    return '\n'.join(lines)

def drop_lines(s, *ls):
    for l in ls:
        s = rep(s, l + '\n', '')
    return s

def wr(stage, path, s):
    p = os.path.join(OUT, stage, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        f.write(s)

c, u = rd(C), rd(U)

# ---- s3: no PERSIST/MULTI_FORMAT flags for DIAG_IOCSREG -----------------
u3 = rep(u, '''	/* The event stays after its last reference goes, until deleted */
	USER_EVENT_REG_PERSIST		= 1U << 0,

	/* The event may exist with several formats under one name */
	USER_EVENT_REG_MULTI_FORMAT	= 1U << 1,

	/* First bit that is not a flag */
	USER_EVENT_REG_MAX		= 1U << 2,
''', '''	/* First bit that is not a flag */
	USER_EVENT_REG_MAX		= 1U << 0,
''')
u3 = rep(u3, '''/* Trace system of multi-format events: events/user_events_multi/NAME.ID */
#define USER_EVENTS_MULTI_SYSTEM "user_events_multi"

''', '')
c3 = rep(c, ' * struct user_event - one event, single- or multi-format\n', ' * struct user_event - one event\n')
c3 = drop_lines(c3, ' * @multi:\tmulti-format: "name.<id>" in USER_EVENTS_MULTI_SYSTEM',
                '\tbool\t\t\t\tmulti;', 'static u64 user_event_multi_id;')
c3 = rep(c3, '\t\t\t\t\t bool multi, const char *cmd, int pos);', '\t\t\t\t\t const char *cmd, int pos);')
c3 = rep(c3, 'ue = user_event_get(fmt, false, raw_command, pos);', 'ue = user_event_get(fmt, raw_command, pos);')
c3 = rep(c3, '''	seq_printf(m, "%s%s%s", USER_EVENTS_PREFIX,
		   ue->multi ? USER_EVENTS_MULTI_SYSTEM "/" : "", ue->tp.name);''',
         '''	seq_printf(m, "%s%s", USER_EVENTS_PREFIX, ue->tp.name);''')
c3 = rep(c3, '''/*
 * The event of @fmt's name and fields.  *@taken is set when a
 * single-format event of that name has other fields.
 */
static struct user_event *user_event_find(const struct user_event_format *fmt,
					  bool multi, bool *taken)''', '''/*
 * The event of @fmt's name and fields.  *@taken is set when the event of
 * that name has other fields.
 */
static struct user_event *user_event_find(const struct user_event_format *fmt,
					  bool *taken)''')
c3 = rep(c3, '''		if (ue->multi != multi || strcmp(ue->fmt->name, fmt->name))
			continue;
		if (user_event_format_equal(ue->fmt, fmt))
			return ue;
		if (!multi) {
			*taken = true;
			break;
		}
''', '''		if (strcmp(ue->fmt->name, fmt->name))
			continue;
		if (user_event_format_equal(ue->fmt, fmt))
			return ue;
		*taken = true;
		break;
''')
c3 = rep(c3, '''static struct user_event *user_event_create(struct user_event_format *fmt,
					    bool multi)''', '''static struct user_event *user_event_create(struct user_event_format *fmt)''')
c3 = rep(c3, '''	ue->multi = multi;
''', '')
c3 = rep(c3, '''	if (multi)
		ue->tp.name = kasprintf(GFP_KERNEL_ACCOUNT, "%s.%llx",
					fmt->name, user_event_multi_id);
	else
		ue->tp.name = fmt->name;
	if (!ue->tp.name)
		goto err;
''', '''	/* The event's name is its format's */
	ue->tp.name = fmt->name;
''')
c3 = rep(c3, '''	/* A single-format event's name is its format's */
	if (ue->multi)
		kfree(ue->tp.name);
''', '')
c3 = rep(c3, 'ue->class.system = multi ? USER_EVENTS_MULTI_SYSTEM : USER_EVENTS_SYSTEM;', 'ue->class.system = USER_EVENTS_SYSTEM;')
c3 = rep(c3, '''	if (multi)
		user_event_multi_id++;
''', '')
c3 = rep(c3, '''static struct user_event *user_event_get(struct user_event_format *fmt,
					 bool multi, const char *cmd, int pos)''', '''static struct user_event *user_event_get(struct user_event_format *fmt,
					 const char *cmd, int pos)''')
c3 = rep(c3, 'ue = user_event_find(fmt, multi, &taken);', 'ue = user_event_find(fmt, &taken);')
c3 = rep(c3, 'ue = user_event_create(fmt, multi);', 'ue = user_event_create(fmt);')
c3 = rep(c3, '''	if ((reg.flags & USER_EVENT_REG_PERSIST) && !perfmon_capable()) {
		user_event_log(cmd, USER_EVENT_ERR_NOT_PERMITTED, 0);
		user_event_format_free(fmt);
		kfree(cmd);
		return -EPERM;
	}

	ue = user_event_get(fmt, reg.flags & USER_EVENT_REG_MULTI_FORMAT,
			    cmd, 0);''', '''	ue = user_event_get(fmt, cmd, 0);''')
c3 = rep(c3, '''
	/* Persistent only once registered: a failure leaves nothing */
	if (!ret && (reg.flags & USER_EVENT_REG_PERSIST)) {
		mutex_lock(&event_mutex);
		ue->persist = true;
		mutex_unlock(&event_mutex);
	}
''', '')
c3 = rep(c3, '	/* The single-format event of the name and each of its formats */\n', '')
wr('s3', C, c3)
wr('s3', U, u3)

# ---- s2: no perf/eBPF probe ---------------------------------------------
c2 = drop_lines(c3, '#include <linux/perf_event.h>', '#define USER_EVENT_USED_PERF\tBIT(1)',
                '\tUSER_BUSY_PERF,', '\t"Event is busy: in use by perf or eBPF",')
c2 = rep(c2, '#define USER_EVENT_USED_OTHER\tBIT(2)', '#define USER_EVENT_USED_OTHER\tBIT(1)')
c2 = rep(c2, '''#ifdef CONFIG_PERF_EVENTS
		else if (probe->func == ue->class.perf_probe)
			status |= USER_EVENT_USED_PERF;
#endif
''', '')
c2 = rep(c2, '''	else if (ue->status & USER_EVENT_USED_PERF)
		busy = USER_BUSY_PERF;
''', '')
c2 = rep(c2, '''			if (status & USER_EVENT_USED_PERF)
				seq_puts(m, " perf");
''', '')
c2 = rep(c2, '''#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		ret = user_event_probe(ue, ue->class.perf_probe, call, true);
		break;
	case TRACE_REG_PERF_UNREGISTER:
		ret = user_event_probe(ue, ue->class.perf_probe, call, false);
		break;
#endif
''', '')
c2 = rep(c2, '''#ifdef CONFIG_PERF_EVENTS
	ue->class.perf_probe = user_event_perf;
#endif
''', '')
lines = c2.split('\n')
a = lines.index('static void user_event_perf(void *data, struct user_event *ue,') - 1
assert lines[a] == '#ifdef CONFIG_PERF_EVENTS'
b = lines.index('#endif', a)
assert lines[b + 1] == ''
del lines[a:b + 2]
c2 = '\n'.join(lines)
c2 = rep(c2, '/* class->reg: ftrace and perf attach and detach here (event_mutex held) */',
         '/* class->reg: ftrace attaches and detaches here (event_mutex held) */')
c2 = rep(c2, ''' * The probes are user_event_ftrace() and user_event_perf(): called
 * directly, not through the pointer.''', ''' * The probe is user_event_ftrace(): called directly, not through the
 * pointer.''')
c2 = rep(c2, '''#ifdef CONFIG_PERF_EVENTS
			else if (fn == user_event_perf)
				user_event_perf(probe->data, ue, w);
#endif
''', '')
c2 = rep(c2, ' * Attach: ftrace enable or perf open reaches user_event_reg(), which hooks\n',
         ' * Attach: ftrace enable reaches user_event_reg(), which hooks\n')
c2 = rep(c2, ''' * probe on the tracepoint reserves its record (ftrace ring buffer or perf
 * buffer), copies the payload without faulting, validates __data_loc and
''', ''' * probe on the tracepoint reserves its record in the ftrace ring buffer,
 * copies the payload without faulting, validates __data_loc and
''')
wr('s2', C, c2)
wr('s2', U, u3)

# ---- s1: no enable bits (enablers, mm tracking, fork/exec/exit) ----------
c1 = rep(c2, ''' * Register: DIAG_IOCSREG on tracefs/user_events_data checks the user_reg,
 * parses its command (trace_events_user_parse.c), finds or creates the
 * event under event_mutex, records an enabler (mm, address, bit) for the
 * caller's mm, writes the bit to reflect the event's state and hands out
 * a write index of the file.
''', ''' * Register: DIAG_IOCSREG on tracefs/user_events_data checks the user_reg,
 * parses its command (trace_events_user_parse.c), finds or creates the
 * event under event_mutex and hands out a write index of the file.
''')
c1 = rep(c1, ''' * event's status from the probes on it.  When the event turns on or off,
 * the bit of every enabler of that event (and of no other) is updated
 * before the callback returns: pin the page, atomic bit operation, unpin.
 * A word whose page is not present is faulted in by a work item, at most
 * USER_EVENT_FAULT_TRIES times.
''', ''' * event's status from the probes on it.
''')
c1 = rep(c1, ''' * Lifetime: an event is referenced by every write index handed out (until
 * the file is released) and by every enabler (until DIAG_IOCSUNREG, the
 * release of the file it was registered through, execve or exit).  The
 * last reference is dropped under event_mutex and a non-persistent event
 * is deleted right then, or once the last tool detaches if one still
 * had it enabled.
''', ''' * Lifetime: an event is referenced by every write index handed out (until
 * the file is released).  The last reference is dropped under event_mutex
 * and a non-persistent event is deleted right then, or once the last tool
 * detaches if one still had it enabled.
''')
c1 = rep(c1, ''' *   user_event_file.lock	a file's index array (DIAG_IOCSREG)
 *   user_event_mm_mutex	user_event_mms, enablers and their lists
 *   mmap_lock			of the mm whose word is written
''', ''' *   user_event_file.lock	a file's index array (DIAG_IOCSREG)
''')
c1 = drop_lines(c1, '#include <linux/highmem.h>', '#include <linux/mm.h>', '#include <linux/sched/mm.h>',
                '#include <linux/userfaultfd_k.h>')
c1 = rep(c1, '#include <linux/user_events.h>\n', '')
c1 = rep(c1, '#include <linux/workqueue.h>\n', '#include <linux/workqueue.h>\n#include <uapi/linux/user_events.h>\n')
c1 = rep(c1, '''/* Attempts to fault in a word before giving up until the next toggle */
#define USER_EVENT_FAULT_TRIES	3

''', '')
c1 = drop_lines(c1, ' * @enablers:\tenablers of this event (user_event_mm_mutex)',
                ' * @enablers:\tenablers registered through this file (user_event_mm_mutex)')
c1 = rep(c1, '\tatomic_t\t\t\trefs;\n', 'REFS-MARK', 1)
c1 = rep(c1, '\tstruct list_head\t\tenablers;\nREFS-MARK', '\tatomic_t\t\t\trefs;\n')
c1 = rep(c1, ''' * @status:	USER_EVENT_USED_*, written under event_mutex and
 *		user_event_mm_mutex
''', ''' * @status:	USER_EVENT_USED_*, written under event_mutex
''')
c1 = rep(c1, ''' * @refs:	write indexes and enablers referring to the event; it only
''', ''' * @refs:	write indexes referring to the event; it only
''')
lines = c1.split('\n')
a = lines.index('/**', lines.index(' * struct user_event_mm - the registrations of one mm') - 1)
b = lines.index('};', lines.index('struct user_event_enabler {')) + 2
del lines[a:b]
c1 = '\n'.join(lines)
c1 = rep(c1, '''	struct user_event_refs __rcu	*refs;
	struct list_head		enablers;
''', '''	struct user_event_refs __rcu	*refs;
''')
lines = c1.split('\n')
a = lines.index('/* A queued fault-in of an enable word; it finds its enabler again */')
b = lines.index('};', a) + 2
del lines[a:b]
c1 = '\n'.join(lines)
c1 = rep(c1, '''static DEFINE_MUTEX(user_event_mm_mutex);
static DEFINE_HASHTABLE(user_event_mm_table, 6);
static DEFINE_HASHTABLE(user_event_word_table, 10);
static unsigned int user_event_mm_count;

''', '')
c1 = rep(c1, 'unless a tool still has it enabled: then it goes when the tool lets it\n * go (user_event_reap()).  Must not be called with event_mutex or\n * user_event_mm_mutex held.',
         'unless a tool still has it enabled: then it goes when the tool lets it\n * go (user_event_reap()).  Must not be called with event_mutex held.')
lines = c1.split('\n')
a = lines.index(' * Enable words') - 1
_, b = func_span(lines, 'user_events_exit')
del lines[a:b]
c1 = '\n'.join(lines)
c1 = rep(c1, ' * Status: what is attached, and the enable bits that mirror it\n', ' * Status: what is attached\n')
lines = c1.split('\n')
a, b = func_span(lines, 'user_event_status_update')
lines[a:b] = '''static void user_event_status_update(struct user_event *ue)
{
	WRITE_ONCE(ue->status, user_event_status_of(ue));
}
'''.split('\n')
c1 = '\n'.join(lines)
c1 = drop_lines(c1, '\tINIT_LIST_HEAD(&ue->enablers);', '\tINIT_LIST_HEAD(&uf->enablers);')
lines = c1.split('\n')
a = lines.index('\t/* Registrations made through the file end with it, bits cleared */')
b = lines.index('\tuser_event_enablers_free(&dead);', a) + 2
del lines[a:b]
c1 = '\n'.join(lines)
c1 = rep(c1, '''	struct user_event_file *uf = file->private_data;
	struct user_event_enabler *e, *tmp;
	struct user_event_refs *refs;
	LIST_HEAD(dead);
	u32 i;
''', '''	struct user_event_file *uf = file->private_data;
	struct user_event_refs *refs;
	u32 i;
''')
c1 = drop_funcs(c1, 'user_reg_in_use', 'user_reg_fault_in', 'user_reg_enabler_add', 'user_events_ioctl_unreg')
c1 = rep(c1, '/* Hand out @ue\'s write index of @uf with an enabler; uf->lock held */', '/* Hand out @ue\'s write index of @uf; uf->lock held */')
c1 = rep(c1, '''	ret = user_reg_enabler_add(uf, ue, reg);
	if (ret || idx < count)
		goto err;
''', '''	if (idx < count)
		return 0;
''')
c1 = rep(c1, '''	if (user_reg_in_use(&reg))
		return -EADDRINUSE;
''', '')
c1 = rep(c1, '''	case DIAG_IOCSUNREG:
		return user_events_ioctl_unreg(uarg);
''', '')
c1 = rep(c1, 'static struct kmem_cache *user_event_enabler_cache;\n', '')
c1 = rep(c1, '''	/*
	 * Not merged, so that /proc/slabinfo shows what events and
	 * registrations take.  A user_event is 344 bytes on x86_64: its own
	 * cache spares it kmalloc-512's rounding.
	 */
	user_event_cache = KMEM_CACHE(user_event, SLAB_ACCOUNT | SLAB_NO_MERGE);
	user_event_enabler_cache = KMEM_CACHE(user_event_enabler,
					      SLAB_ACCOUNT | SLAB_NO_MERGE);
	if (!user_event_cache || !user_event_enabler_cache) {
		pr_warn("user_events: could not create the slab caches\\n");
		kmem_cache_destroy(user_event_cache);
		kmem_cache_destroy(user_event_enabler_cache);
		return -ENOMEM;
	}
''', '''	/*
	 * Not merged, so that /proc/slabinfo shows what events take.  A
	 * user_event is 344 bytes on x86_64: its own cache spares it
	 * kmalloc-512's rounding.
	 */
	user_event_cache = KMEM_CACHE(user_event, SLAB_ACCOUNT | SLAB_NO_MERGE);
	if (!user_event_cache) {
		pr_warn("user_events: could not create the slab cache\\n");
		return -ENOMEM;
	}
''')
wr('s1', C, c1)
wr('s1', U, u3)


def diff(a, b, path):
    r = subprocess.run(['diff', '-u', '--label', 'a/' + path, '--label', 'b/' + path,
                        a, b], capture_output=True, text=True)
    if r.returncode > 1:
        sys.exit(r.stderr)
    return r.stdout


def st(stage, path):
    return os.path.join(OUT, stage, path)


out = {
    'enable': diff(st('s1', C), st('s2', C), C),
    'perf': diff(st('s2', C), st('s3', C), C),
    'flags': diff(st('s3', U), os.path.join(TOP, U), U) +
             diff(st('s3', C), os.path.join(TOP, C), C),
}
for name, text in out.items():
    p = os.path.join(TOP, 'patches', 'user_events-%s.patch' % name)
    with open(p, 'w') as f:
        f.write(text)
    print('%s: %d lines' % (os.path.relpath(p, TOP), text.count('\n')))
