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
H = 'kernel/trace/trace_events_user.h'

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
                '\tbool\t\t\t\tmulti;', ' * @multi_system: the system of its multi-format events',
                '\tconst char\t\t*multi_system;', ' * @multi_id:\tid of its next multi-format event (event_mutex)',
                '\tu64\t\t\tmulti_id;', '\t.multi_system\t= USER_EVENTS_MULTI_SYSTEM,',
                '\tkfree(group->multi_system);')
c3 = rep(c3, '''	group->multi_system = kasprintf(GFP_KERNEL,
					USER_EVENTS_MULTI_SYSTEM "_%s",
					tr->name);
	if (!group->system || !group->multi_system)
''', '''	if (!group->system)
''')
c3 = rep(c3, '''/*
 * Whether instance @name gets a group: its systems user_events_NAME and
 * user_events_multi_NAME must be valid system names that tools accept
 * (letters, digits, '_') and must never be another group's or the global
 * group's.  "multi" and "multi_*" would be: user_events_multi(_*).
 */''', '''/*
 * Whether instance @name gets a group: its system user_events_NAME must
 * be a valid system name that tools accept (letters, digits, '_') and
 * must never be another group's or the global group's.  "multi" and
 * "multi_*" are kept for the systems of multi-format events.
 */''')
c3 = rep(c3, '\t\t\t\t\t bool multi, const char *cmd, int pos);', '\t\t\t\t\t const char *cmd, int pos);')
c3 = rep(c3, 'ue = user_event_get(&user_event_global, fmt, false, raw_command, pos);',
         'ue = user_event_get(&user_event_global, fmt, raw_command, pos);')
c3 = rep(c3, '''	/* Only the global group's single-format events go without system */
	if (ue->multi || ue->group != &user_event_global)''',
         '''	/* Only the global group's events go without system */
	if (ue->group != &user_event_global)''')
c3 = rep(c3, '''/*
 * The event of @fmt's name and fields in @group.  *@taken is set when a
 * single-format event of that name has other fields.
 */
static struct user_event *user_event_find(struct user_event_group *group,
					  const struct user_event_format *fmt,
					  bool multi, bool *taken)''', '''/*
 * The event of @fmt's name and fields in @group.  *@taken is set when the
 * event of that name has other fields.
 */
static struct user_event *user_event_find(struct user_event_group *group,
					  const struct user_event_format *fmt,
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
c3 = rep(c3, '''static struct user_event *user_event_create(struct user_event_group *group,
					    struct user_event_format *fmt,
					    bool multi)''', '''static struct user_event *user_event_create(struct user_event_group *group,
					    struct user_event_format *fmt)''')
c3 = rep(c3, '''	ue->multi = multi;
''', '')
c3 = rep(c3, '''	if (multi)
		ue->tp.name = kasprintf(GFP_KERNEL_ACCOUNT, "%s.%llx",
					fmt->name, group->multi_id);
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
c3 = rep(c3, 'ue->class.system = multi ? group->multi_system : group->system;', 'ue->class.system = group->system;')
c3 = rep(c3, '''	if (multi)
		group->multi_id++;
''', '')
c3 = rep(c3, '''static struct user_event *user_event_get(struct user_event_group *group,
					 struct user_event_format *fmt,
					 bool multi, const char *cmd, int pos)''', '''static struct user_event *user_event_get(struct user_event_group *group,
					 struct user_event_format *fmt,
					 const char *cmd, int pos)''')
c3 = rep(c3, 'ue = user_event_find(group, fmt, multi, &taken);', 'ue = user_event_find(group, fmt, &taken);')
c3 = rep(c3, 'ue = user_event_create(group, fmt, multi);', 'ue = user_event_create(group, fmt);')
c3 = rep(c3, '''	if ((reg.flags & USER_EVENT_REG_PERSIST) && !perfmon_capable()) {
		user_event_log(cmd, USER_EVENT_ERR_NOT_PERMITTED, 0);
		user_event_format_free(fmt);
		kfree(cmd);
		return -EPERM;
	}

''', '')
c3 = rep(c3, '''	ue = user_event_get(uf->group, fmt,
			    reg.flags & USER_EVENT_REG_MULTI_FORMAT, cmd, 0);''', '''	ue = user_event_get(uf->group, fmt, cmd, 0);''')
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
c2 = rep(c2, '''	else if (ue->status & USER_EVENT_USED_PERF)
		busy = USER_BUSY_PERF;
''', '')
c2 = rep(c2, '''			if (status & USER_EVENT_USED_PERF)
				seq_puts(m, " perf");
''', '')
c2 = rep(c2, '''#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		ret = tracepoint_probe_register(&ue->tp, ue->class.perf_probe,
						call);
		if (ret)
			return ret;
		status |= USER_EVENT_USED_PERF;
		break;
	case TRACE_REG_PERF_UNREGISTER:
		tracepoint_probe_unregister(&ue->tp, ue->class.perf_probe, call);
		status &= ~USER_EVENT_USED_PERF;
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
c2 = rep(c2, ' * class->reg: ftrace and perf attach and detach here, with event_mutex\n',
         ' * class->reg: ftrace attaches and detaches here, with event_mutex\n')
c2 = rep(c2, ''' * The probes are user_event_ftrace() and user_event_perf() (nothing else
 * can reach the tracepoint): called directly, not through the pointer.''',
         ''' * The probe is user_event_ftrace() (nothing else can reach the
 * tracepoint): called directly, not through the pointer.''')
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

# ---- s1: no enable bits (trace_events_user_mm.c, its interface, hooks) --
c1 = rep(c2, ''' * Register: DIAG_IOCSREG on tracefs/user_events_data checks the user_reg,
 * parses its command (trace_events_user_parse.c), finds or creates the
 * event under event_mutex, records an enabler (address, bit) of the
 * caller's mm (trace_events_user_mm.c), which publishes the file's write
 * index and then writes the bit to reflect the event's state.
''', ''' * Register: DIAG_IOCSREG on tracefs/user_events_data checks the user_reg,
 * parses its command (trace_events_user_parse.c), finds or creates the
 * event under event_mutex and hands out a write index of the file.
''')
c1 = rep(c1, ''' * the tracepoint core keeps for it) and updates the event's status.
 * When the event turns on or off, the bit of every enabler of that event
 * (and of no other) is updated before the callback returns, unless its
 * mm is busy or its page is not present: that word is left to the mm's
 * work item.
''', ''' * the tracepoint core keeps for it) and updates the event's status.
''')
c1 = rep(c1, ''' * Lifetime: an event is referenced by every write index handed out (until
 * the file is released) and by every enabler (until DIAG_IOCSUNREG, or
 * until its mm goes: the exit of its last task, or execve).  The last
 * reference is dropped under event_mutex and a non-persistent event is
 * deleted right then, or once the last tool detaches if one still had it
 * enabled, or within USER_EVENT_REAP_POLL of the end of another trace
 * event (an eprobe) that held it.
''', ''' * Lifetime: an event is referenced by every write index handed out (until
 * the file is released).  The last reference is dropped under event_mutex
 * and a non-persistent event is deleted right then, or once the last tool
 * detaches if one still had it enabled, or within USER_EVENT_REAP_POLL of
 * the end of another trace event (an eprobe) that held it.
''')
c1 = rep(c1, ''' *   user_event_file.lock	a file's index array (DIAG_IOCSREG)
 *   mmap_lock, then the locks of trace_events_user_mm.c
 * event_mutex and user_event_file.lock are never held together, and
 * event_mutex is never held while waiting for an mm.  The write path
 * takes no lock: RCU for the index array and the tracepoint.
''', ''' *   user_event_file.lock	a file's index array (DIAG_IOCSREG)
 * event_mutex and user_event_file.lock are never held together.  The
 * write path takes no lock: RCU for the index array and the tracepoint.
''')
c1 = rep(c1, '#include <linux/user_events.h>\n', '')
c1 = rep(c1, '#include <linux/workqueue.h>\n', '#include <linux/workqueue.h>\n#include <uapi/linux/user_events.h>\n')
c1 = drop_lines(c1, ' * @bits:\tthe enable bits of the event\'s registrations',
                '\tstruct user_event_bits\t\tbits;', '\tuser_event_bits_init(&ue->bits, &ue->refs);',
                '\tuser_event_bits_set(&ue->bits, status != 0);')
c1 = rep(c1, ''' * @refs:	write indexes and enablers referring to the event; it only
''', ''' * @refs:	write indexes referring to the event; it only
''')
c1 = drop_funcs(c1, 'user_event_bits_put', 'user_events_ioctl_unreg')
c1 = rep(c1, ' * Status: what is attached, and the enable bits that mirror it\n', ' * Status: what is attached\n')
c1 = rep(c1, '''	/*
	 * Only the file's write indexes end with it: the registrations made
	 * through it belong to their mm.  No write can run: the file is going.
	 */''', '''	/* No write can run: the file is going */''')
c1 = rep(c1, '''/*
 * Publish a new write index: called by user_event_enabler_add() once the
 * registration cannot fail, before the bit is written, so that a thread
 * that sees the bit set can write at once.  uf->lock held; no sleeping.
 */''', '''/* Publish a new write index; uf->lock held */''')
c1 = rep(c1, '''/*
 * Register @w for @ue and hand out @ue's write index of @uf, storing it
 * in the user_reg last; uf->lock held
 */
static int user_reg_file_add(struct user_event_file *uf,
			     struct user_event *ue,
			     const struct user_event_word *w,
			     struct user_reg __user *ureg)''', '''/* Hand out @ue's write index of @uf; uf->lock held */
static int user_reg_file_add(struct user_event_file *uf,
			     struct user_event *ue,
			     struct user_reg __user *ureg)''')
c1 = rep(c1, '''	u32 size, old;
	int ret;

	lockdep_assert_held(&uf->lock);
''', '''	u32 size;
	int ret = 0;

	lockdep_assert_held(&uf->lock);
''')
c1 = rep(c1, '''	/* That write_index can be stored, without storing it yet */
	if (get_user(old, &ureg->write_index) ||
	    put_user(old, &ureg->write_index)) {
		ret = -EFAULT;
		goto out;
	}

	ret = user_event_enabler_add(&ue->bits, w, user_reg_publish, &ri);
	if (ret)
		goto out;

	/* Unmapped meanwhile: the registration goes, the index stays */
	if (put_user(ri.idx, &ureg->write_index)) {
		user_event_enabler_remove(w->addr, w->bit);
		ret = -EFAULT;
	}
out:
''', '''	if (put_user(ri.idx, &ureg->write_index))
		ret = -EFAULT;
	else
		user_reg_publish(&ri);
''')
c1 = rep(c1, '''	if (user_event_enabler_in_use(&w))
		return -EADDRINUSE;
''', '')
c1 = rep(c1, '''	/* An old event of the name may still be held by an mm that went */
	user_event_mm_flush();
''', '')
c1 = rep(c1, 'ret = user_reg_file_add(uf, ue, &w, ureg);', 'ret = user_reg_file_add(uf, ue, ureg);')
c1 = rep(c1, '''	if (ret == -EMFILE)
		user_event_log(cmd, USER_EVENT_ERR_TOO_MANY_REGS, 0);
''', '')
c1 = rep(c1, '''	/* An mm that went may still be dropping its references */
	user_event_mm_flush();

''', '')
c1 = rep(c1, '''	user_event_mm_flush();
	mutex_lock(&event_mutex);''', '''	mutex_lock(&event_mutex);''')
c1 = rep(c1, '''	case DIAG_IOCSUNREG:
		return user_events_ioctl_unreg(uarg);
''', '')
c1 = rep(c1, '	if (!user_event_cache || user_event_mm_init()) {', '	if (!user_event_cache) {')
c1 = rep(c1, '''		pr_warn("user_events: could not create the slab caches\\n");''',
         '''		pr_warn("user_events: could not create the slab cache\\n");''')
wr('s1', C, c1)
wr('s1', U, u3)
h1 = rd(H)
lines = h1.split('\n')
a = lines.index('/**', lines.index(' * struct user_event_bits - the enable bits of one event, in every mm') - 1)
b = lines.index('void user_event_bits_put(struct user_event_bits *bits, bool locked);') + 2
del lines[a:b]
h1 = '\n'.join(lines)
h1 = drop_lines(h1, '#include <linux/list.h>', '#include <linux/mutex.h>',
                '#include <linux/refcount.h>')
wr('s1', H, h1)


def diff(a, b, path):
    r = subprocess.run(['diff', '-u', '--label', 'a/' + path, '--label', 'b/' + path,
                        a, b], capture_output=True, text=True)
    if r.returncode > 1:
        sys.exit(r.stderr)
    return r.stdout


def st(stage, path):
    return os.path.join(OUT, stage, path)


out = {
    'enable': diff(st('s1', H), os.path.join(TOP, H), H) +
              diff(st('s1', C), st('s2', C), C),
    'perf': diff(st('s2', C), st('s3', C), C),
    'flags': diff(st('s3', U), os.path.join(TOP, U), U) +
             diff(st('s3', C), os.path.join(TOP, C), C),
}
for name, text in out.items():
    p = os.path.join(TOP, 'patches', 'user_events-%s.patch' % name)
    with open(p, 'w') as f:
        f.write(text)
    print('%s: %d lines' % (os.path.relpath(p, TOP), text.count('\n')))
