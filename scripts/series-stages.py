#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate the diffs that split files over several patches.

  scripts/series-stages.py

The repo keeps every file in its final form.  The series adds the core
(kernel/trace/trace_events_user.c, its header, the UAPI header), the
per-mm registrations and the longer selftests over several patches (see
`series`); each step is the final file with the later features taken
out again:

  s0  the parser's part of trace_events_user.h       (parser patch)
  s1z the core without error_log                     (core patch)
  s1a + patches/user_events-errorlog.patch
  s1b + patches/user_events-dynevents.patch          (dynamic_events, persist)
  s1  + patches/user_events-status.patch             (user_events_status)
  s2  + patches/user_events-enable.patch             (enable bits, per mm)
      + patches/user_events-fork.patch               (copy at fork: _mm.c)
  s3  + patches/user_events-perf.patch               (perf and eBPF probe)
  final + patches/user_events-flags.patch            (PERSIST, MULTI_FORMAT)

(patches/user_events-core.patch takes trace_events_user.h from s0 to s1.)
The selftests steps (ST_STEPS) keep the tests they name and the helpers
those use; each writes patches/user_events-selftests-NAME.patch.

Every textual edit asserts that the text it changes is there exactly
once, so a change to a file that an edit no longer fits stops this with
the text to look at.  Run it after changing the core or a test, then
`make series` (which runs it too).  The stages are left in build/stages/
for inspection.
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


def cut(s, first, upto):
    """Drop from the text FIRST up to (not including) the text UPTO."""
    if s.count(first) != 1:
        sys.exit('expected 1 of %r, found %d' % (first[:70], s.count(first)))
    a = s.index(first)
    b = s.index(upto, a)
    return s[:a] + s[b:]


# ---- s1b: no user_events_status file ------------------------------------
c1b = cut(c1, '/*\n * user_events_status\n */\n',
          '/*\n * Groups of instances: instances/NAME/user_events_{data,status,max}\n */\n')
c1b = rep(c1b, """			       NULL, &user_events_data_fops) ||
	    !trace_create_file("user_events_status", TRACE_MODE_READ, NULL,
			       NULL, &user_events_status_fops))""", """			       NULL, &user_events_data_fops))""")
c1b = rep(c1b, """	d[1] = trace_create_file("user_events_status", TRACE_MODE_READ,
				 tr->dir, tr, &user_events_status_fops);
""", "")
c1b = rep(c1b, """	if (!d[0] || !d[1] || !d[2])""", """	if (!d[0] || !d[2])""")
c1b = rep(c1b, """	for (i = 0; i < ARRAY_SIZE(d); i++)
		group->inodes[i] = d_inode(d[i]);""", """	for (i = 0; i < ARRAY_SIZE(d); i++)
		group->inodes[i] = d[i] ? d_inode(d[i]) : NULL;""")
wr('s1b', C, c1b)

# ---- s1a: no dynamic_events (nor persistent events, which come with it) --
c1a = cut(c1b, 'static int user_event_dyn_create(const char *raw_command);\n',
          'static int user_event_destroy(struct user_event *ue);\n')
c1a = drop_lines(c1a, 'static int user_event_delete(struct user_event *ue);',
                 'static void user_event_put_locked(struct user_event *ue);',
                 ' * @devent:\tentry in dynamic_events', '\tstruct dyn_event\t\tdevent;',
                 ' * @persist:\tstays when @refs drops to 0 (event_mutex)',
                 '\tbool\t\t\t\tpersist;', '\tdyn_event_remove(&ue->devent);',
                 '\tdyn_event_init(&ue->devent, &user_event_dyn_ops);',
                 '\tdyn_event_add(&ue->devent, call);',
                 '#include <linux/capability.h>', '#include "trace_dynevent.h"')
c1a = drop_funcs(c1a, 'to_user_event', 'user_event_dyn_create', 'user_event_dyn_show',
                 'user_event_dyn_is_busy', 'user_event_dyn_free', 'user_event_dyn_match',
                 'user_event_put_locked')
c1a = rep(c1a, """	ret = dyn_event_register(&user_event_dyn_ops);
	if (ret) {
		pr_warn("user_events: could not register dynamic events\\n");
		return ret;
	}

""", '')
c1a = rep(c1a, """ * and a non-persistent event is deleted right then, or once the last tool
 * detaches if one still had it enabled, or within USER_EVENT_REAP_POLL of
 * the end of another trace event (an eprobe) that held it.""", """ * and the event is deleted right then, or once the last tool detaches if
 * one still had it enabled, or within USER_EVENT_REAP_POLL of the end of
 * another trace event (an eprobe) that held it.""")
c1a = rep(c1a, """ * Drop a reference.  The last one of a non-persistent event deletes it,
 * unless a tool still has it enabled: then it goes when the tool lets it
 * go (user_event_reap()).""", """ * Drop a reference.  The last one deletes the event, unless a tool still
 * has it enabled: then it goes when the tool lets it go
 * (user_event_reap()).""")
c1a = rep(c1a, """	if (!ue->persist)
		user_event_gone(ue);
	mutex_unlock""", """	user_event_gone(ue);
	mutex_unlock""")
c1a = rep(c1a, '/* A persistent or still enabled event may have none */',
          '/* A still enabled event may have none */')
c1a = rep(c1a, """/* A non-persistent event that nothing refers to or uses: due for deletion */
static bool user_event_unused(struct user_event *ue)
{
	return !ue->persist && !ue->status && !refcount_read(&ue->refs);""",
          """/* An event that nothing refers to or uses: due for deletion */
static bool user_event_unused(struct user_event *ue)
{
	return !ue->status && !refcount_read(&ue->refs);""")
c1a = rep(c1a, ' * Delete the non-persistent events that lost their last reference while\n',
          ' * Delete the events that lost their last reference while\n')
c1a = rep(c1a, ' * The last reference of a non-persistent event went (event_mutex held):\n',
          ' * The last reference of an event went (event_mutex held):\n')
c1a = rep(c1a, '/* DIAG_IOCSDEL and "-:": delete, or say in error_log what holds it */',
          '/* DIAG_IOCSDEL: delete, or say in error_log what holds it */')
c1a = rep(c1a, '/* Why DIAG_IOCSDEL or "-:" could not delete an event, for error_log */',
          '/* Why DIAG_IOCSDEL could not delete an event, for error_log */')
c1a = rep(c1a, """	if (ue->persist && !perfmon_capable()) {
		user_event_log(ue->tp.name, USER_EVENT_ERR_NOT_PERMITTED, 0);
		return -EPERM;
	}

""", '')
wr('s1a', C, c1a)

# ---- s1z: no error_log ---------------------------------------------------
c1z = drop_lines(c1a, '#define USER_EVENT_LOC\t\t"user_events"\n')
c1z = cut(c1z, 'enum {\n\tUSER_BUSY_REFS,\n', 'static int user_event_destroy(struct user_event *ue);\n')
c1z = drop_funcs(c1z, 'user_event_log')
c1z = rep(c1z, '''/* DIAG_IOCSDEL: delete, or say in error_log what holds it */
static int user_event_delete(struct user_event *ue)
{
	int busy, ret;

	lockdep_assert_held(&event_mutex);

	if (refcount_read(&ue->refs))
		busy = USER_BUSY_REFS;
	else if (ue->status & USER_EVENT_USED_FTRACE)
		busy = USER_BUSY_FTRACE;
	else if (ue->status || trace_event_dyn_busy(&ue->call))
		busy = USER_BUSY_OTHER;
	else
		busy = -1;

	if (busy < 0) {
		ret = user_event_destroy(ue);
		if (ret != -EBUSY)
			return ret;
		busy = USER_BUSY_OTHER;
	}

	tracing_log_err(NULL, USER_EVENT_LOC, ue->tp.name,
			(const char **)user_event_busy_errs, busy, 0);
	return -EBUSY;
}''', '''/* DIAG_IOCSDEL: delete an event that nothing refers to or uses */
static int user_event_delete(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);

	if (ue->status)
		return -EBUSY;
	return user_event_destroy(ue);
}''')
c1z = rep(c1z, ''' * @fmt is consumed either way.  Errors are logged against @cmd, whose
 * name starts at @pos.
 */
static struct user_event *user_event_get(struct user_event_group *group,
					 struct user_event_format *fmt,
					 const char *cmd, int pos)''', ''' * @fmt is consumed either way.
 */
static struct user_event *user_event_get(struct user_event_group *group,
					 struct user_event_format *fmt)''')
c1z = drop_lines(c1z, '\t\tuser_event_log(cmd, USER_EVENT_ERR_EVENT_EXISTS, pos);')
c1z = rep(c1z, '''		if (!IS_ERR(ue))
			fmt = NULL;
		else if (PTR_ERR(ue) == -EMFILE)
			user_event_log(cmd, group->tr ?
				       USER_EVENT_ERR_TOO_MANY_GROUP :
				       USER_EVENT_ERR_TOO_MANY, pos);
''', '''		if (!IS_ERR(ue))
			fmt = NULL;
''')
c1z = rep(c1z, '''/* Read and parse the command; errors go to error_log */
static int user_reg_parse(u64 uaddr, struct user_event_format **fmt,
			  char **cmd_out)
{
	struct user_parse_err perr;
	char *cmd;''', '''/* Read and parse the command */
static int user_reg_parse(u64 uaddr, struct user_event_format **fmt)
{
	char *cmd;''')
c1z = rep(c1z, '''	if (len == USER_EVENT_CMD_MAX) {
		cmd[len - 1] = '\\0';
		user_event_log(cmd, USER_EVENT_ERR_CMD_TOO_LONG, 0);
		kfree(cmd);
		return -EINVAL;
	}

	ret = user_event_parse(cmd, fmt, &perr);
	if (ret == -EINVAL)
		user_event_log(cmd, perr.type, perr.pos);
	if (ret)
		kfree(cmd);
	else
		*cmd_out = cmd;
	return ret;''', '''	if (len == USER_EVENT_CMD_MAX) {
		kfree(cmd);
		return -EINVAL;
	}

	ret = user_event_parse(cmd, fmt, NULL);
	kfree(cmd);
	return ret;''')
c1z = rep(c1z, '''	struct user_reg reg;
	char *cmd;
	int ret;
''', '''	struct user_reg reg;
	int ret;
''')
c1z = rep(c1z, '''	ret = user_reg_parse(reg.name_args, &fmt, &cmd);
	if (ret)
		return ret;

	ue = user_event_get(uf->group, fmt, cmd, 0);
	if (IS_ERR(ue)) {
		kfree(cmd);
		return PTR_ERR(ue);
	}
''', '''	ret = user_reg_parse(reg.name_args, &fmt);
	if (ret)
		return ret;

	ue = user_event_get(uf->group, fmt);
	if (IS_ERR(ue))
		return PTR_ERR(ue);
''')
c1z = rep(c1z, '''	kfree(cmd);
	user_event_put(ue);''', '''	user_event_put(ue);''')
c1z = drop_lines(c1z, '\tif (ret == -ENOENT)\n\t\tuser_event_log(name, USER_EVENT_ERR_NO_EVENT, 0);')
wr('s1z', C, c1z)

# ---- s0: the parser's part of trace_events_user.h ------------------------
lines = h1.split('\n')
a = lines.index('/**', lines.index(' * struct user_event_word - the enable word and bit a registration names') - 1)
b = lines.index('};', a) + 2
del lines[a:b]
h0 = '\n'.join(lines)
wr('s0', H, h0)

# ---- s2 of trace_events_user_mm.c and linux/user_events.h: no fork copy --
MM = 'kernel/trace/trace_events_user_mm.c'
UEH = 'include/linux/user_events.h'
mm2 = rep(rd(MM), """ * goes (__mmput(): the exit of its last user, or execve), and dup_mmap()
 * copies it into a forked child's mm.  A process that never registered
 * pays one pointer test per fork and nothing else.
""", """ * goes (__mmput(): the exit of its last user, or execve).  A forked child
 * starts without registrations.
""")
mm2 = rep(mm2, ' * own tasks (DIAG_IOCSREG, DIAG_IOCSUNREG, fork) wait for their mm.  So\n',
          ' * own tasks (DIAG_IOCSREG, DIAG_IOCSUNREG) wait for their mm.  So\n')
mm2 = rep(mm2, """ * only itself.
 *
 * Every word is written with its mm's mmap_lock held for reading, so a
 * fork (which holds it for writing) sees each registration with its word
 * either both before or both after a change.
 */""", """ * only itself.
 */""")
mm2 = drop_funcs(mm2, 'user_event_fork_vma', 'user_event_fork_refill', 'user_event_fork_link',
                 'user_event_fork_node', 'user_event_fork_tree', '__user_events_fork')
mm2 = cut(mm2, "/* A fork's copy of the registrations in progress */\n",
          '/* Drop the last references of a gone mm and free it')
mm2 = rep(mm2, '/* Enablers a fork allocates, and an exit frees, at once */\n#define USER_EVENT_FORK_BATCH\t32\n',
          '/* Enablers an exit frees at once */\n#define USER_EVENT_EXIT_BATCH\t32\n')
mm2 = rep(mm2, '\tvoid *batch[USER_EVENT_FORK_BATCH];\n',
          '\tvoid *batch[USER_EVENT_EXIT_BATCH];\n')
wr('s2', MM, mm2)
ueh2 = rep(rd(UEH), """ * belongs to the mm of the process that made it.  dup_mmap() copies an
 * mm's registrations into the child's, __mmput() drops them.  An mm that
 * never registered costs one pointer test in each.
""", """ * belongs to the mm of the process that made it, and __mmput() drops
 * them.  An mm that never registered costs one pointer test there.
""")
ueh2 = drop_lines(ueh2, 'int __user_events_fork(struct mm_struct *mm, struct mm_struct *oldmm);')
ueh2 = rep(ueh2, """/* dup_mmap(), memory copied, both mmap_locks held; -ENOMEM fails the fork */
static inline int user_events_fork(struct mm_struct *mm,
				   struct mm_struct *oldmm)
{
	/* Enablers are added under oldmm's mmap_lock, which the fork holds */
	if (likely(!READ_ONCE(oldmm->user_event_mm)))
		return 0;
	return __user_events_fork(mm, oldmm);
}

""", '')
ueh2 = rep(ueh2, """static inline int user_events_fork(struct mm_struct *mm,
				   struct mm_struct *oldmm)
{
	return 0;
}

""", '')
wr('s2', UEH, ueh2)

# ---- the selftests, added test by test -----------------------------------
# A test file too long for one patch grows over several: each step keeps
# the tests it names and the helpers (functions, types, variables) that
# what it keeps refers to.  user_events_selftests.h keeps, at each step,
# what the tests present use; the Makefile builds only those tests.
ST = 'tools/testing/selftests/user_events/'
C_IDENT = re.compile(r'[A-Za-z_]\w*')
C_MARKER = re.compile(r'^/\* --- ')
C_TEST = re.compile(r'^(?:TEST|TEST_F|TEST_F_TIMEOUT)\((?:\w+,\s*)?(\w+)')


def c_items(text):
    """Split C text into top-level items (kind, name, lines): a declaration
    or definition with its leading comment, a preprocessor line, a blank
    line ('gap') or a lone comment."""
    lines = text.split('\n')
    out, i, n = [], 0, len(lines)
    while i < n:
        start = i
        if lines[i] == '':
            out.append(('gap', None, [lines[i]]))
            i += 1
            continue
        if lines[i].startswith('/*'):
            while not lines[i].rstrip().endswith('*/'):
                i += 1
            i += 1
            if i >= n or lines[i] == '' or lines[i].startswith('/*'):
                out.append(('comment', None, lines[start:i]))
                continue
        elif lines[i].startswith('//'):
            out.append(('comment', None, [lines[i]]))
            i += 1
            continue
        head = lines[i]
        if head.startswith('#'):
            j = i
            while lines[j].endswith('\\'):
                j += 1
            out.append(('pp', None, lines[start:j + 1]))
            i = j + 1
            continue
        j = i
        while True:
            s = lines[j]
            if j > i and (s == '}' or s.startswith(('};', '} '))):
                break
            if s.rstrip().endswith(';') and '{' not in ''.join(lines[i:j + 1]):
                break
            if j == i and s.rstrip().endswith('};') and s.count('{') == s.count('}'):
                break
            j += 1
        decl = ' '.join(lines[i:j + 1])
        pre = decl.split('{')[0].split('=')[0]
        m = C_TEST.match(head)
        if m:
            kind, name = 'test', m.group(1)
        elif head.startswith('FIXTURE'):
            kind, name = 'fixture', None
        elif re.match(r'^(?:static\s+)?enum\s*\{', decl):
            kind, name = 'enum', None
        elif re.match(r'^(?:static\s+|const\s+)*(?:struct|union|enum)\s+\w+\s*\{', decl):
            kind, name = 'type', re.match(r'^(?:static\s+|const\s+)*(?:struct|union|enum)\s+(\w+)',
                                          decl).group(1)
        elif '(' in pre:
            kind, name = 'func', re.search(r'(\w+)\s*\(', pre).group(1)
        else:
            names = re.findall(r'(\w+)\s*(?:\[[^\]]*\])*\s*(?:;|$)', pre.strip())
            kind, name = 'var', names[0] if names else None
        out.append((kind, name, lines[start:j + 1]))
        i = j + 1
    assert '\n'.join(l for _, _, ls in out for l in ls) == text
    return out


def c_stage(text, drop_tests=(), roots=()):
    """TEXT without the tests DROP_TESTS and the helpers that nothing kept
    refers to any more; ROOTS are more names to keep (what other files
    use).  A section comment (/* --- ...) goes with its last item."""
    its = c_items(text)
    named = {}
    for k, (kind, name, ls) in enumerate(its):
        if name and kind in ('func', 'type', 'var'):
            named.setdefault(name, []).append(k)
        if kind == 'enum':
            for e in re.findall(r'^\s*([A-Z_]\w*)', '\n'.join(ls).split('{', 1)[1], re.M):
                named.setdefault(e, []).append(k)
    keep = set(k for k, (kind, name, _) in enumerate(its)
               if kind in ('fixture', 'pp') or name == 'main' or
               (kind == 'test' and name not in drop_tests))
    todo = list(keep) + [k for r in roots for k in named.get(r, [])]
    keep.update(todo)
    while todo:
        for r in C_IDENT.findall('\n'.join(its[todo.pop()][2])):
            for k in named.get(r, []):
                if k not in keep:
                    keep.add(k)
                    todo.append(k)
    for t in drop_tests:
        assert any(kind == 'test' and name == t for kind, name, _ in its), t
    out = []
    for k, (kind, name, ls) in enumerate(its):
        if kind == 'comment' and C_MARKER.match(ls[0]):
            nxt = next((k2 for k2 in range(k + 1, len(its)) if its[k2][0] not in ('gap', 'comment')
                        or C_MARKER.match(its[k2][2][0])), None)
            sect = [k2 for k2 in range(k + 1, len(its)) if its[k2][0] not in ('gap', 'comment')]
            end = next((k2 for k2 in range(k + 1, len(its))
                        if its[k2][0] == 'comment' and C_MARKER.match(its[k2][2][0])), len(its))
            if not any(k2 in keep for k2 in sect if k2 < end):
                continue
        elif kind not in ('gap', 'comment') and k not in keep:
            continue
        if kind == 'gap' and out and out[-1] == '':
            continue
        out += ls
    return '\n'.join(out)


def mk_stage(mk, present):
    """The selftests' Makefile building only the programs in PRESENT."""
    out, first = [], True
    lines = mk.split('\n')
    for i, l in enumerate(lines):
        m = re.match(r'^(TEST_GEN_PROGS|TEST_PROGS|TEST_GEN_PROGS_EXTENDED) :?\+?= (.*)$', l)
        if m:
            progs = [p for p in m.group(2).split() if p in present or
                     (m.group(1) == 'TEST_GEN_PROGS_EXTENDED' and 'tools_test.sh' in present)]
            if not progs:
                if out and out[-1].startswith('# '):
                    out.pop()
                continue
            op = ':=' if m.group(1) != 'TEST_GEN_PROGS' or first else '+='
            if m.group(1) == 'TEST_GEN_PROGS':
                first = False
            out.append('%s %s %s' % (m.group(1), op, ' '.join(progs)))
        else:
            out.append(l)
    s = '\n'.join(out)
    if 'tools_test.sh' not in present:
        s = s[:s.index('\n$(OUTPUT)/user_event_emit:')]
    return s


NO_EXEC = '''	if (argc > 1 && !strcmp(argv[1], "--exec-child"))
		return exec_child(argc, argv);
'''
ABI_REG = ['uapi_layout', 'reg_struct_size', 'reg_flags', 'reg_enable_size_align_bit',
           'reg_bad_enable_addr', 'reg_addr_in_use', 'reg_name_args',
           'reg_name_exists_other_fields', 'write_index_per_file', 'unreg', 'del']
ABI_MM = ['words_and_bits', 'word_not_faulted_in', 'fork_copy_on_write', 'clone_vm_shares',
          'execve_drops', 'exit_drops', 'close_keeps_registration', 'thread_exit_keeps']
MM_FUSE = ['liveness_mmap_lock_stall', 'fuse_shared_word_no_stuck_worker']
MM_RACES = ['reg_bit_set_while_folio_locked', 'toggle_while_work_busy',
            'bit_never_before_index', 'per_mm_limit', 'memcg_charged',
            'unreg_reg_racing_fork', 'addr_bit_unique_across_sizes']
abi_all = [n for k, n, _ in c_items(rd(ST + 'abi_test.c')) if k == 'test']
ABI_WRITE = [t for t in abi_all if t not in ABI_REG + ABI_MM]

ABI_COMMENT = rd(ST + 'abi_test.c').split('\n */\n', 1)[0][len('// SPDX-License-Identifier: GPL-2.0\n'):] + '\n */\n'
MM_COMMENT = rd(ST + 'mm_test.c').split('\n */\n', 1)[0][len('// SPDX-License-Identifier: GPL-2.0\n'):] + '\n */\n'
ABI_REG_COMMENT = '''/*
 * The user_events ABI as programs see it: the UAPI layout, the errnos of
 * DIAG_IOCSREG one by one (the struct, its flags, the enable word and
 * bit, the enable address, the command), write indexes, DIAG_IOCSUNREG
 * and DIAG_IOCSDEL.
 */
'''
ABI_WRITE_COMMENT = '''/*
 * The user_events ABI as programs see it: the UAPI layout, every errno of
 * DIAG_IOCSREG (one by one and in the order they are checked),
 * DIAG_IOCSUNREG, DIAG_IOCSDEL and write(), write() from pages not yet
 * present, write indexes, an fd passed over SCM_RIGHTS,
 * kernel.user_events_max and kernel.user_events_max_enablers, error_log
 * lines, and the PERSIST and MULTI_FORMAT flags.
 */
'''
MM_FORK_COMMENT = '''/*
 * Registrations belong to the address space: a bit registered through a
 * file that is closed at once, by a thread that has exited or by a main
 * thread that called pthread_exit() keeps following its event; fork()
 * copies registrations, CLONE_VM shares them, execve() drops them.  A word
 * wiped by fork() (MADV_WIPEONFORK) follows in the child; one the child
 * did not get (MADV_DONTFORK) is not registered there.
 */
'''
MM_FUSE_COMMENT = '''/*
 * Registrations belong to the address space: a bit registered through a
 * file that is closed at once, by a thread that has exited or by a main
 * thread that called pthread_exit() keeps following its event; fork()
 * copies registrations, CLONE_VM shares them, execve() drops them.  The
 * enable of an event returns, and other processes fork, while a registrant
 * stalls its own mmap_lock on a FUSE page, and no kernel worker waits on
 * a word in a shared FUSE page whose READs are withheld.  A word wiped by
 * fork() (MADV_WIPEONFORK) follows in the child; one the child did not get
 * (MADV_DONTFORK) is not registered there.
 */
'''
# (patch name, programs present after it, {staged file: its text there})
abi, mmt = rd(ST + 'abi_test.c'), rd(ST + 'mm_test.c')
ST_STEPS = [
    ('selftests-abi', ['abi_test'],
     {'abi_test.c': c_stage(rep(rep(abi, NO_EXEC, ''), ABI_COMMENT, ABI_REG_COMMENT),
                            ABI_WRITE + ABI_MM)}),
    ('selftests-abi-write', ['abi_test'],
     {'abi_test.c': c_stage(rep(rep(abi, NO_EXEC, ''), ABI_COMMENT, ABI_WRITE_COMMENT),
                            ABI_MM)}),
    ('selftests-abi-mm', ['abi_test'], {'abi_test.c': abi}),
    ('selftests-ftrace', ['abi_test', 'ftrace_test'], {}),
    ('selftests-dyn-perf', ['abi_test', 'ftrace_test', 'dyn_test', 'perf_test'], {}),
    ('selftests-lifetime', ['abi_test', 'ftrace_test', 'dyn_test', 'perf_test',
                            'lifetime_test'], {}),
    ('selftests-mm', ['+mm_test'],
     {'mm_test.c': c_stage(rep(mmt, MM_COMMENT, MM_FORK_COMMENT), MM_FUSE + MM_RACES)}),
    ('selftests-mm-fuse', [],
     {'mm_test.c': c_stage(rep(mmt, MM_COMMENT, MM_FUSE_COMMENT), MM_RACES)}),
    ('selftests-mm-races', [], {'mm_test.c': mmt}),
    ('selftests-fuzz', ['+fuzz_test'], {}),
    ('selftests-stress-fault', ['+stress_test', '+fault_test'], {}),
    ('selftests-perm-tools', ['+perm_test', '+tools_test.sh'], {}),
    ('selftests-group', ['+group_test'], {}),
]
present, prev = [], {}
hdr, mk = rd(ST + 'user_events_selftests.h'), rd(ST + 'Makefile')
st_out = {}
for name, progs, staged in ST_STEPS:
    if progs and not progs[0].startswith('+'):
        present = list(progs)
    else:
        present += [p[1:] for p in progs]
    files = dict(prev)
    for p in present:
        f = p if p.endswith('.sh') else p + '.c'
        files.setdefault(f, rd(ST + f))
    files.update(staged)
    used = set(C_IDENT.findall('\n'.join(v for k, v in files.items() if k.endswith('.c'))))
    files['user_events_selftests.h'] = c_stage(hdr, roots=used)
    files['Makefile'] = mk_stage(mk, set(present))
    for f, text in files.items():
        wr(name, ST + f, text)
    st_out[name] = (prev, files)
    prev = files
for f in ('user_events_selftests.h', 'Makefile', 'abi_test.c', 'mm_test.c'):
    assert prev[f] == rd(ST + f), f

def diff(a, b, path):
    r = subprocess.run(['diff', '-u', '--label', 'a/' + path, '--label', 'b/' + path,
                        a, b], capture_output=True, text=True)
    if r.returncode > 1:
        sys.exit(r.stderr)
    return r.stdout


def diff_text(a, b, path):
    tmp = os.path.join(OUT, 'tmp')
    os.makedirs(tmp, exist_ok=True)
    for n, t in (('a', a), ('b', b)):
        with open(os.path.join(tmp, n), 'w') as f:
            f.write(t)
    return diff(os.path.join(tmp, 'a'), os.path.join(tmp, 'b'), path)


def st(stage, path):
    return os.path.join(OUT, stage, path)


out = {
    'core': diff(st('s0', H), st('s1', H), H),
    'errorlog': diff(st('s1z', C), st('s1a', C), C),
    'dynevents': diff(st('s1a', C), st('s1b', C), C),
    'status': diff(st('s1b', C), st('s1', C), C),
    'enable': diff(st('s1', H), os.path.join(TOP, H), H) +
              diff(st('s1', C), st('s2', C), C),
    'fork': diff(st('s2', UEH), os.path.join(TOP, UEH), UEH) +
            diff(st('s2', MM), os.path.join(TOP, MM), MM),
    'perf': diff(st('s2', C), st('s3', C), C),
    'flags': diff(st('s3', U), os.path.join(TOP, U), U) +
             diff(st('s3', C), os.path.join(TOP, C), C),
}
for name, (prev, files) in st_out.items():
    if prev:
        out[name] = ''.join(diff_text(prev[f], files[f], ST + f)
                            for f in sorted(prev) if prev[f] != files[f])
for name, text in out.items():
    p = os.path.join(TOP, 'patches', 'user_events-%s.patch' % name)
    with open(p, 'w') as f:
        f.write(text)
    print('%s: %d lines' % (os.path.relpath(p, TOP), text.count('\n')))
