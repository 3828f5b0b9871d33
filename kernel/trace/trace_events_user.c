// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: trace events that user processes register and write.
 *
 * Three flows meet in this file (the ABI is in
 * Documentation/trace/user_events.rst):
 *
 * Register: DIAG_IOCSREG on tracefs/user_events_data checks the user_reg,
 * parses its command (trace_events_user_parse.c), finds or creates the
 * event under event_mutex, records an enabler (address, bit) of the
 * caller's mm (trace_events_user_mm.c), which publishes the file's write
 * index and then writes the bit to reflect the event's state.
 *
 * Attach: ftrace enable or perf open reaches user_event_reg(), which hooks
 * the probe onto the event's tracepoint (one without call sites, which
 * the tracepoint core keeps for it) and updates the event's status.
 * When the event turns on or off, the bit of every enabler of that event
 * (and of no other) is updated before the callback returns, unless its
 * mm is busy or its page is not present: that word is left to the mm's
 * work item.
 *
 * Write: write()/writev() of index + payload.  The index picks the event
 * from the file's RCU-protected array; then, with preemption off, each
 * probe on the tracepoint reserves its record (ftrace ring buffer or perf
 * buffer), copies the payload without faulting, validates __data_loc and
 * __rel_loc fields and commits, or discards and fails with EFAULT.  A
 * payload that was not resident is faulted in and written again.
 *
 * Groups: each event belongs to a group, a name space with its own
 * systems, status file and limit.  The top-level user_events_data and
 * user_events_status are the global group's; each tracefs instance whose
 * name can be part of a system name has a group of its own, whose files
 * are in the instance's directory.
 *
 * Lifetime: an event is referenced by every write index handed out (until
 * the file is released) and by every enabler (until DIAG_IOCSUNREG, or
 * until its mm goes: the exit of its last task, or execve).  The last
 * reference is dropped under event_mutex and a non-persistent event is
 * deleted right then, or once the last tool detaches if one still had it
 * enabled, or within USER_EVENT_REAP_POLL of the end of another trace
 * event (an eprobe) that held it.
 *
 * Locking, outermost first:
 *   event_mutex		events, their refs reaching 0, status
 *   user_event_file.lock	a file's index array (DIAG_IOCSREG)
 *   mmap_lock, then the locks of trace_events_user_mm.c
 * event_mutex and user_event_file.lock are never held together, and
 * event_mutex is never held while waiting for an mm.  The write path
 * takes no lock: RCU for the index array and the tracepoint.
 */
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/ctype.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/pagemap.h>
#include <linux/perf_event.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/sysctl.h>
#include <linux/tracefs.h>
#include <linux/unaligned.h>
#include <linux/uio.h>
#include <linux/user_events.h>
#include <linux/workqueue.h>

#include "trace.h"
#include "trace_dynevent.h"
#include "trace_events_user.h"

#define USER_EVENT_LOC		"user_events"

/* A record's payload can never exceed what a __data_loc word addresses */
#define USER_EVENT_PAYLOAD_MAX	(U16_MAX - USER_EVENT_FIELDS_START)

/* user_event.status: what is attached to the event's tracepoint */
#define USER_EVENT_USED_FTRACE	BIT(0)
#define USER_EVENT_USED_PERF	BIT(1)

/**
 * struct user_event - one event, single- or multi-format
 * @devent:	entry in dynamic_events
 * @call:	the trace event
 * @class:	its class (system, fields, reg callback, probes)
 * @tp:		its tracepoint, without call sites: tp.funcs are the probes
 *		a write runs
 * @group:	the group it belongs to
 * @node:	in its group's table, keyed by format name (event_mutex)
 * @fmt:	the parsed format
 * @bits:	the enable bits of the event's registrations
 * @refs:	write indexes and enablers referring to the event; it only
 *		goes from 0 to 1 and from 1 to 0 under event_mutex
 * @status:	USER_EVENT_USED_*, written under event_mutex
 * @ftrace_files: trace instances that have the event enabled (event_mutex)
 * @persist:	stays when @refs drops to 0 (event_mutex)
 * @multi:	multi-format: "name.<id>" in USER_EVENTS_MULTI_SYSTEM
 * @fields_failed: a field could not be defined (no memory)
 */
struct user_event {
	struct dyn_event		devent;
	struct trace_event_call		call;
	struct trace_event_class	class;
	struct tracepoint		tp;
	struct user_event_group		*group;
	struct hlist_node		node;
	struct user_event_format	*fmt;
	struct user_event_bits		bits;
	refcount_t			refs;
	unsigned int			status;
	unsigned int			ftrace_files;
	bool				persist;
	bool				multi;
	bool				fields_failed;
};

/*
 * The events a file handed out write indexes for, by index.  A new index
 * fills a free slot and is then published by @count; a full array is
 * replaced by one twice its size.
 */
struct user_event_refs {
	struct rcu_head		rcu;
	u32			count;
	u32			size;
	struct user_event	*events[] __counted_by(size);
};

/**
 * struct user_event_group - a name space of events
 * @system:	the system of its single-format events
 * @multi_system: the system of its multi-format events
 * @tr:		the instance it is bound to; NULL for the global group
 * @table:	its events, keyed by format name (event_mutex)
 * @count:	events in @table (event_mutex)
 * @max:	how many events it may have, if @own_max
 * @own_max:	@max was written; else kernel.user_events_max applies
 * @multi_id:	id of its next multi-format event (event_mutex)
 * @changes:	counts creations and deletions of its events (event_mutex)
 * @wait:	pollers of its user_events_status
 * @inodes:	its files in @tr's directory (an open checks it is one)
 * @list:	in user_event_groups (event_mutex)
 */
struct user_event_group {
	const char		*system;
	const char		*multi_system;
	struct trace_array	*tr;
	DECLARE_HASHTABLE(table, 8);
	unsigned int		count;
	unsigned int		max;
	bool			own_max;
	u64			multi_id;
	unsigned long		changes;
	wait_queue_head_t	wait;
	struct inode		*inodes[3];
	struct list_head	list;
};

/**
 * struct user_event_file - an open user_events_data
 * @lock:	serializes DIAG_IOCSREG on the file
 * @refs:	write index -> event (RCU for the write path, @lock to change)
 * @group:	the group of the file's events
 */
struct user_event_file {
	struct mutex			lock;	/* DIAG_IOCSREG */
	struct user_event_refs __rcu	*refs;
	struct user_event_group		*group;
};

static struct kmem_cache *user_event_cache;

/* The top-level files' group */
static struct user_event_group user_event_global = {
	.system		= USER_EVENTS_SYSTEM,
	.multi_system	= USER_EVENTS_MULTI_SYSTEM,
	.wait		= __WAIT_QUEUE_HEAD_INITIALIZER(user_event_global.wait),
};

/* Every group, the global one first (event_mutex) */
static LIST_HEAD(user_event_groups);

static unsigned int user_events_max = 32768;

enum {
	USER_BUSY_REFS,
	USER_BUSY_FTRACE,
	USER_BUSY_PERF,
	USER_BUSY_OTHER,
};

/* Why DIAG_IOCSDEL or "-:" could not delete an event, for error_log */
static const char * const user_event_busy_errs[] = {
	"Event is busy: registered by a process or open in user_events_data",
	"Event is busy: enabled in ftrace",
	"Event is busy: in use by perf or eBPF",
	"Event is busy: in use by another trace event",
};

static int user_event_dyn_create(const char *raw_command);
static int user_event_dyn_show(struct seq_file *m, struct dyn_event *ev);
static bool user_event_dyn_is_busy(struct dyn_event *ev);
static int user_event_dyn_free(struct dyn_event *ev);
static bool user_event_dyn_match(const char *system, const char *event,
				 int argc, const char **argv,
				 struct dyn_event *ev);

static struct dyn_event_operations user_event_dyn_ops = {
	.create		= user_event_dyn_create,
	.show		= user_event_dyn_show,
	.is_busy	= user_event_dyn_is_busy,
	.free		= user_event_dyn_free,
	.match		= user_event_dyn_match,
};

static struct user_event *user_event_get(struct user_event_group *group,
					 struct user_event_format *fmt,
					 bool multi, const char *cmd, int pos);
static int user_event_destroy(struct user_event *ue);
static int user_event_delete(struct user_event *ue);
static void user_event_put_locked(struct user_event *ue);
static void user_event_gone(struct user_event *ue);

static struct user_event *to_user_event(struct dyn_event *ev)
{
	return container_of(ev, struct user_event, devent);
}

/*
 * Log a rejected command (or name) of a caller, with the caret at byte
 * @pos.  The command is shown as text: a byte that is not printable ASCII,
 * and the backslash, is written as \xNN, so that no caller can put terminal
 * escape sequences or lines of its own into error_log.  The caret moves
 * with the bytes before it.
 */
static void user_event_log(const char *cmd, int type, int pos)
{
	int len = strlen(cmd);
	int at = pos;
	char *text;
	char *p;
	int i;

	/* Commands are at most USER_EVENT_CMD_MAX bytes: 4 each at most */
	text = kmalloc(len * 4 + 1, GFP_KERNEL);
	if (!text)
		return;

	for (i = 0, p = text; i < len; i++) {
		unsigned char c = cmd[i];

		if (i == pos)
			at = p - text;
		if (c < ' ' || c > '~' || c == '\\') {
			*p++ = '\\';
			*p++ = 'x';
			p = hex_byte_pack(p, c);
		} else {
			*p++ = c;
		}
	}
	*p = '\0';
	if (pos >= len)
		at = p - text + (pos - len);

	tracing_log_err(NULL, USER_EVENT_LOC, text, user_event_errs, type, at);
	kfree(text);
}

/* dynamic_events: "u:name fields" creates a persistent event */
static int user_event_dyn_create(const char *raw_command)
{
	struct user_event_format *fmt;
	struct user_parse_err perr;
	const char *cmd = skip_spaces(raw_command);
	struct user_event *ue;
	int pos, ret;

	if (!str_has_prefix(cmd, USER_EVENTS_PREFIX))
		return -ECANCELED;
	pos = cmd - raw_command + strlen(USER_EVENTS_PREFIX);

	ret = user_event_parse(raw_command + pos, &fmt, &perr);
	if (ret) {
		if (ret == -EINVAL)
			user_event_log(raw_command, perr.type, pos + perr.pos);
		return ret;
	}

	if (!perfmon_capable()) {
		user_event_log(raw_command, USER_EVENT_ERR_NOT_PERMITTED, 0);
		user_event_format_free(fmt);
		return -EPERM;
	}

	ue = user_event_get(&user_event_global, fmt, false, raw_command, pos);
	if (IS_ERR(ue))
		return PTR_ERR(ue);

	mutex_lock(&event_mutex);
	ue->persist = true;
	user_event_put_locked(ue);
	mutex_unlock(&event_mutex);
	return 0;
}

static int user_event_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);
	int len = user_event_format_fields_text(ue->fmt, NULL, 0);
	char *text;

	/* Only the global group's single-format events go without system */
	if (ue->multi || ue->group != &user_event_global)
		seq_printf(m, "%s%s/%s", USER_EVENTS_PREFIX, ue->class.system,
			   ue->tp.name);
	else
		seq_printf(m, "%s%s", USER_EVENTS_PREFIX, ue->tp.name);
	if (len) {
		text = kmalloc(len + 1, GFP_KERNEL);
		if (!text)
			return -ENOMEM;
		user_event_format_fields_text(ue->fmt, text, len + 1);
		seq_printf(m, " %s", text);
		kfree(text);
	}
	seq_putc(m, '\n');
	return 0;
}

static bool user_event_dyn_is_busy(struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);

	return refcount_read(&ue->refs) || ue->status ||
	       trace_event_dyn_busy(&ue->call);
}

static int user_event_dyn_free(struct dyn_event *ev)
{
	return user_event_delete(to_user_event(ev));
}

/* "-:name [fields]": the fields must match; bare "-:name" has none */
static bool user_event_dyn_match(const char *system, const char *event,
				 int argc, const char **argv,
				 struct dyn_event *ev)
{
	struct user_event *ue = to_user_event(ev);
	struct user_event_format *fmt;
	size_t len = 0;
	bool match;
	char *text;
	int i;

	/* "-:name" without system is of the global group only */
	if (system ? strcmp(system, ue->class.system) :
		     ue->group != &user_event_global)
		return false;
	if (strcmp(event, ue->tp.name))
		return false;
	if (!argc)
		return !ue->fmt->nr_fields;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	text = kmalloc(len, GFP_KERNEL);
	if (!text)
		return false;
	text[0] = '\0';
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(text, " ");
		strcat(text, argv[i]);
	}

	match = !user_event_parse_fields(ue->fmt->name, text, &fmt, NULL);
	kfree(text);
	if (!match)
		return false;

	match = user_event_format_equal(ue->fmt, fmt);
	user_event_format_free(fmt);
	return match;
}

/*
 * Events: lookup, references, deletion
 */

static u32 user_event_key(const char *name)
{
	return jhash(name, strlen(name), 0);
}

/* An event of @group was created or deleted: wake its status pollers */
static void user_event_group_changed(struct user_event_group *group)
{
	lockdep_assert_held(&event_mutex);

	WRITE_ONCE(group->changes, group->changes + 1);
	wake_up_interruptible(&group->wait);
}

/* How many events @group may have */
static unsigned int user_event_group_max(struct user_event_group *group)
{
	if (READ_ONCE(group->own_max))
		return READ_ONCE(group->max);
	return READ_ONCE(user_events_max);
}

/*
 * The event of @fmt's name and fields in @group.  *@taken is set when a
 * single-format event of that name has other fields.
 */
static struct user_event *user_event_find(struct user_event_group *group,
					  const struct user_event_format *fmt,
					  bool multi, bool *taken)
{
	struct user_event *ue;

	lockdep_assert_held(&event_mutex);

	hash_for_each_possible(group->table, ue, node,
			       user_event_key(fmt->name)) {
		if (ue->multi != multi || strcmp(ue->fmt->name, fmt->name))
			continue;
		if (user_event_format_equal(ue->fmt, fmt))
			return ue;
		if (!multi) {
			*taken = true;
			break;
		}
	}
	return NULL;
}

static void user_event_free(struct user_event *ue)
{
	kfree(ue->call.print_fmt);
	/* A single-format event's name is its format's */
	if (ue->multi)
		kfree(ue->tp.name);
	user_event_format_free(ue->fmt);
	kmem_cache_free(user_event_cache, ue);
}

/* Remove an event nothing refers to; event_mutex held */
static int user_event_destroy(struct user_event *ue)
{
	int ret;

	lockdep_assert_held(&event_mutex);

	if (refcount_read(&ue->refs) || trace_event_dyn_busy(&ue->call))
		return -EBUSY;

	ret = trace_remove_event_call(&ue->call);
	if (ret)
		return ret;

	dyn_event_remove(&ue->devent);
	hash_del(&ue->node);
	ue->group->count--;
	user_event_group_changed(ue->group);
	user_event_free(ue);
	return 0;
}

/*
 * Drop a reference.  The last one of a non-persistent event deletes it,
 * unless a tool still has it enabled: then it goes when the tool lets it
 * go (user_event_reap()).  Must not be called with event_mutex held.
 */
static void user_event_put(struct user_event *ue)
{
	if (!refcount_dec_and_mutex_lock(&ue->refs, &event_mutex))
		return;
	if (!ue->persist)
		user_event_gone(ue);
	mutex_unlock(&event_mutex);
}

/* The same with event_mutex held */
static void user_event_put_locked(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);

	if (refcount_dec_and_test(&ue->refs) && !ue->persist)
		user_event_gone(ue);
}

/* Take a reference on an event found under event_mutex */
static void user_event_hold(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);

	/* A persistent or still enabled event may have none */
	if (!refcount_inc_not_zero(&ue->refs))
		refcount_set(&ue->refs, 1);
}

/**
 * user_event_bits_put - drop a registration's reference on its event
 * @bits:	the event's bits
 * @locked:	event_mutex is held
 */
void user_event_bits_put(struct user_event_bits *bits, bool locked)
{
	struct user_event *ue = container_of(bits, struct user_event, bits);

	if (locked)
		user_event_put_locked(ue);
	else
		user_event_put(ue);
}

/* A non-persistent event that nothing refers to or uses: due for deletion */
static bool user_event_unused(struct user_event *ue)
{
	return !ue->persist && !ue->status && !refcount_read(&ue->refs);
}

/*
 * How often an unused event that another trace event still holds is
 * looked at again: an eprobe on it (trace_event_try_get_ref()) lets go
 * without any callback, so nothing else would say when it can go.
 */
#define USER_EVENT_REAP_POLL	(HZ / 10)

/* Delete every unused event of @group that can go; true if one is held */
static bool user_event_reap_group(struct user_event_group *group)
{
	struct hlist_node *tmp;
	struct user_event *ue;
	bool held = false;
	int bkt;

	lockdep_assert_held(&event_mutex);

	hash_for_each_safe(group->table, bkt, tmp, ue, node)
		if (user_event_unused(ue) && user_event_destroy(ue))
			held = true;
	return held;
}

/* The same for every group */
static bool user_event_reap_locked(void)
{
	struct user_event_group *group;
	bool held = false;

	lockdep_assert_held(&event_mutex);

	list_for_each_entry(group, &user_event_groups, list)
		if (user_event_reap_group(group))
			held = true;
	return held;
}

static void user_event_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(user_event_reap_work, user_event_reap);

/*
 * Delete the non-persistent events that lost their last reference while
 * a tool had them enabled, once no tool has.  Queued at once by the
 * register callback, which runs inside the trace core's enable and
 * disable paths, and every USER_EVENT_REAP_POLL while an unused event is
 * held by another trace event.
 */
static void user_event_reap(struct work_struct *work)
{
	bool held;

	mutex_lock(&event_mutex);
	held = user_event_reap_locked();
	mutex_unlock(&event_mutex);

	if (held)
		schedule_delayed_work(&user_event_reap_work,
				      USER_EVENT_REAP_POLL);
}

/*
 * The last reference of a non-persistent event went (event_mutex held):
 * delete it, or leave it to the reap work while something else holds it
 */
static void user_event_gone(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);

	/* Still enabled: the register callback queues the work when not */
	if (user_event_destroy(ue) && !ue->status)
		schedule_delayed_work(&user_event_reap_work,
				      USER_EVENT_REAP_POLL);
}

/*
 * Do the reap work's job for the events called @name at once: when a
 * registration comes right after the last tool detached, the work may
 * not have run yet, and the unused event must not be found (a
 * single-format one with other fields would refuse it with EADDRINUSE).
 */
static void user_event_reap_name(struct user_event_group *group,
				 const char *name)
{
	struct hlist_node *tmp;
	struct user_event *ue;

	lockdep_assert_held(&event_mutex);

	hash_for_each_possible_safe(group->table, ue, tmp, node,
				    user_event_key(name))
		if (!strcmp(ue->fmt->name, name) && user_event_unused(ue))
			user_event_destroy(ue);
}

/* DIAG_IOCSDEL and "-:": delete, or say in error_log what holds it */
static int user_event_delete(struct user_event *ue)
{
	int busy, ret;

	lockdep_assert_held(&event_mutex);

	if (ue->persist && !perfmon_capable()) {
		user_event_log(ue->tp.name, USER_EVENT_ERR_NOT_PERMITTED, 0);
		return -EPERM;
	}

	if (refcount_read(&ue->refs))
		busy = USER_BUSY_REFS;
	else if (ue->status & USER_EVENT_USED_FTRACE)
		busy = USER_BUSY_FTRACE;
	else if (ue->status & USER_EVENT_USED_PERF)
		busy = USER_BUSY_PERF;
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
}

/*
 * Status: what is attached, and the enable bits that mirror it
 */

static void user_event_status_update(struct user_event *ue,
				     unsigned int status)
{
	WRITE_ONCE(ue->status, status);
	user_event_bits_set(&ue->bits, status != 0);
}

/*
 * class->reg: ftrace and perf attach and detach here, with event_mutex
 * held.  The probes go on the event's tracepoint through the tracepoint
 * core; a detach cannot fail (the core leaves a stub when it has no
 * memory for a smaller array).
 */
static int user_event_reg(struct trace_event_call *call, enum trace_reg type,
			  void *data)
{
	struct user_event *ue = call->data;
	unsigned int status = ue->status;
	int ret;

	/* Only attaching and detaching matter; the other types need nothing */
	switch (type) {
	case TRACE_REG_REGISTER:
		ret = tracepoint_probe_register(&ue->tp, ue->class.probe, data);
		if (ret)
			return ret;
		ue->ftrace_files++;
		status |= USER_EVENT_USED_FTRACE;
		break;
	case TRACE_REG_UNREGISTER:
		tracepoint_probe_unregister(&ue->tp, ue->class.probe, data);
		if (!--ue->ftrace_files)
			status &= ~USER_EVENT_USED_FTRACE;
		break;
#ifdef CONFIG_PERF_EVENTS
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
	default:
		return 0;
	}

	user_event_status_update(ue, status);
	if (user_event_unused(ue))
		mod_delayed_work(system_wq, &user_event_reap_work, 0);
	return 0;
}

/*
 * Probes: each copies the payload itself, without faulting
 */

/**
 * struct user_event_write - a write() on its way to the probes
 * @ubuf:	the payload when it is one user buffer (write(), or the
 *		last iovec of a writev()), else NULL
 * @from:	the payload otherwise, after the write index
 * @size:	its length
 * @done:	records committed
 * @fault:	a copy faulted: not recorded
 * @bad:	the payload failed validation: not recorded
 */
struct user_event_write {
	const char __user	*ubuf;
	struct iov_iter		*from;
	size_t			size;
	unsigned int		done;
	bool			fault;
	bool			bad;
};

/*
 * A payload of up to this many bytes is copied from user memory inline,
 * straight into each record (user_event_read()); a longer one with
 * __copy_from_user_inatomic().
 */
#define USER_EVENT_WRITE_SMALL	128

/*
 * Copy a few bytes from user memory in one user access, inline; false
 * on a fault.  @dst need not be aligned.  The access is dense from @src
 * on, so a masked address can stand for the range check.
 */
static __always_inline bool user_event_read(void *dst,
					    const char __user *src,
					    size_t len)
{
	u64 v64, w64;
	u32 v32;
	u16 v16;
	u8 v8;

	if (can_do_masked_user_access())
		src = masked_user_access_begin(src);
	else if (!user_read_access_begin(src, len))
		return false;
	/* Two words a turn: half the loop's own instructions */
	for (; len >= 2 * sizeof(v64); len -= 2 * sizeof(v64)) {
		unsafe_get_user(v64, (const u64 __user *)src, fault);
		unsafe_get_user(w64, (const u64 __user *)src + 1, fault);
		put_unaligned(v64, (u64 *)dst);
		put_unaligned(w64, (u64 *)dst + 1);
		src += 2 * sizeof(v64);
		dst += 2 * sizeof(v64);
	}
	if (len >= sizeof(v64)) {
		unsafe_get_user(v64, (const u64 __user *)src, fault);
		put_unaligned(v64, (u64 *)dst);
		src += sizeof(v64);
		dst += sizeof(v64);
		len -= sizeof(v64);
	}
	if (len >= sizeof(v32)) {
		unsafe_get_user(v32, (const u32 __user *)src, fault);
		put_unaligned(v32, (u32 *)dst);
		src += sizeof(v32);
		dst += sizeof(v32);
		len -= sizeof(v32);
	}
	if (len >= sizeof(v16)) {
		unsafe_get_user(v16, (const u16 __user *)src, fault);
		put_unaligned(v16, (u16 *)dst);
		src += sizeof(v16);
		dst += sizeof(v16);
		len -= sizeof(v16);
	}
	if (len) {
		unsafe_get_user(v8, (const u8 __user *)src, fault);
		*(u8 *)dst = v8;
	}
	user_read_access_end();
	return true;
fault:
	user_read_access_end();
	return false;
}

/* Copy and validate the payload after the record's common header */
static __always_inline bool user_event_copy(struct user_event *ue,
					    void *entry,
					    struct user_event_write *w)
{
	void *dst = entry + USER_EVENT_FIELDS_START;
	struct iov_iter i __uninitialized;	/* only for a writev() */
	bool copied;

	pagefault_disable();
	if (likely(w->ubuf && w->size <= USER_EVENT_WRITE_SMALL)) {
		copied = user_event_read(dst, w->ubuf, w->size);
	} else if (w->ubuf) {
		copied = access_ok(w->ubuf, w->size) &&
			 !__copy_from_user_inatomic(dst, w->ubuf, w->size);
	} else {
		i = *w->from;
		copied = copy_from_iter(dst, w->size, &i) == w->size;
	}
	pagefault_enable();

	if (unlikely(!copied)) {
		w->fault = true;
		return false;
	}
	if (unlikely(ue->fmt->nr_locs &&
		     user_event_validate(ue->fmt, entry,
					 USER_EVENT_FIELDS_START + w->size))) {
		w->bad = true;
		return false;
	}
	return true;
}

/*
 * A record that no filter or trigger sees goes straight into the ring
 * buffer (trace_event_file_plain()); the others through
 * trace_event_buffer_reserve() and trace_event_buffer_commit().
 */
static __always_inline void user_event_ftrace(void *data,
					      struct user_event *ue,
					      struct user_event_write *w)
{
	struct trace_event_file *file = data;
	u32 len = USER_EVENT_FIELDS_START + w->size;
	struct trace_event_buffer fbuffer __uninitialized;
	struct ring_buffer_event *event;
	struct trace_buffer *buffer;
	unsigned int trace_ctx;
	void *entry;

	if (likely(trace_event_file_plain(file))) {
		buffer = file->tr->array_buffer.buffer;
		/* Preemption was disabled by user_event_probes() */
		trace_ctx = tracing_gen_ctx_dec();
		entry = trace_event_reserve_plain(buffer, ue->call.event.type,
						  len, trace_ctx, &event);
		if (unlikely(!entry))
			return;
		if (unlikely(!user_event_copy(ue, entry, w))) {
			__trace_event_discard_commit(buffer, event);
			return;
		}
		trace_event_buffer_commit_plain(file, buffer, event, trace_ctx);
		w->done++;
		return;
	}

	if (trace_trigger_soft_disabled(file))
		return;
	entry = trace_event_buffer_reserve(&fbuffer, file, len);
	if (unlikely(!entry))
		return;
	if (unlikely(!user_event_copy(ue, entry, w))) {
		__trace_event_discard_commit(fbuffer.buffer, fbuffer.event);
		return;
	}
	trace_event_buffer_commit(&fbuffer);
	w->done++;
}

#ifdef CONFIG_PERF_EVENTS
static void user_event_perf(void *data, struct user_event *ue,
			    struct user_event_write *w)
{
	struct trace_event_call *call = data;
	struct hlist_head *head = this_cpu_ptr(call->perf_events);
	struct pt_regs *regs;
	void *entry;
	int len, rctx;

	if (!bpf_prog_array_valid(call) && hlist_empty(head))
		return;

	len = ALIGN(USER_EVENT_FIELDS_START + w->size + sizeof(u32),
		    sizeof(u64)) - sizeof(u32);
	if (unlikely(len > PERF_MAX_TRACE_SIZE))
		return;

	entry = perf_trace_buf_alloc(len, &regs, &rctx);
	if (unlikely(!entry))
		return;

	perf_fetch_caller_regs(regs);

	if (unlikely(!user_event_copy(ue, entry, w))) {
		perf_swevent_put_recursion_context(rctx);
		return;
	}

	/* Runs the BPF programs of the event, then the perf events */
	perf_trace_run_bpf_submit(entry, len, rctx, call, 1, regs, head, NULL);
	w->done++;
}
#endif

/*
 * Run every probe on the event's tracepoint; false if there was none.
 * The probes are user_event_ftrace() and user_event_perf() (nothing else
 * can reach the tracepoint): called directly, not through the pointer.
 * Anything else is the tracepoint core's stub for a detached probe, whose
 * prototype is not a probe's: it is skipped, not called.
 */
static __always_inline bool
user_event_probes(struct user_event *ue, struct user_event_write *w)
{
	struct tracepoint_func *probe;
	void (*fn)(void *data, struct user_event *ue,
		   struct user_event_write *w);

	preempt_disable_notrace();
	probe = rcu_dereference_sched(ue->tp.funcs);
	if (likely(probe)) {
		do {
			/* A detached probe may turn into the core's stub */
			fn = READ_ONCE(probe->func);
			if (likely(fn == user_event_ftrace))
				user_event_ftrace(probe->data, ue, w);
#ifdef CONFIG_PERF_EVENTS
			else if (fn == user_event_perf)
				user_event_perf(probe->data, ue, w);
#endif
		} while ((++probe)->func);
	}
	preempt_enable_notrace();

	return probe;
}

/*
 * Event creation
 */

/*
 * Called by the trace core when it creates the event's directory.  A
 * field that cannot be defined fails the registration afterwards.
 */
static int user_event_define_fields(struct trace_event_call *call)
{
	struct user_event *ue = call->data;
	struct ftrace_event_field *field;
	const struct user_field *f;
	int ret;
	u32 i;

	for (i = 0; i < ue->fmt->nr_fields; i++) {
		f = &ue->fmt->fields[i];
		ret = trace_define_field(call, f->type, f->name, f->offset,
					 f->size, f->is_signed,
					 f->filter_type);
		if (ret) {
			ue->fields_failed = true;
			return ret;
		}

		/* With its length a char array shows as "char s[16]" */
		field = list_first_entry(trace_get_fields(call),
					 struct ftrace_event_field, link);
		if (f->kind == USER_FIELD_ARRAY && field->name == f->name)
			field->len = f->size;
	}
	return 0;
}

static struct trace_event_fields user_event_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = user_event_define_fields },
	{}
};

static enum print_line_t user_event_print(struct trace_iterator *iter,
					  int flags, struct trace_event *event)
{
	struct user_event *ue = container_of(event, struct user_event,
					     call.event);
	struct trace_seq *s = &iter->seq;

	trace_seq_printf(s, "%s: ", ue->tp.name);
	user_event_print_fields(s, ue->fmt, iter->ent, iter->ent_size);
	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions user_event_funcs = {
	.trace = user_event_print,
};

/* Create and register an event of @group for @fmt (taken on success) */
static struct user_event *user_event_create(struct user_event_group *group,
					    struct user_event_format *fmt,
					    bool multi)
{
	struct trace_event_call *call;
	struct user_event *ue;
	int ret = -ENOMEM;

	lockdep_assert_held(&event_mutex);

	if (group->count >= user_event_group_max(group))
		return ERR_PTR(-EMFILE);

	ue = kmem_cache_zalloc(user_event_cache, GFP_KERNEL);
	if (!ue)
		return ERR_PTR(-ENOMEM);

	ue->fmt = fmt;
	ue->group = group;
	ue->multi = multi;
	user_event_bits_init(&ue->bits, &ue->refs);
	refcount_set(&ue->refs, 1);
	if (multi)
		ue->tp.name = kasprintf(GFP_KERNEL_ACCOUNT, "%s.%llx",
					fmt->name, group->multi_id);
	else
		ue->tp.name = fmt->name;
	if (!ue->tp.name)
		goto err;

	ue->class.system = multi ? group->multi_system : group->system;
	ue->class.fields_array = user_event_fields_array;
	ue->class.reg = user_event_reg;
	ue->class.probe = user_event_ftrace;
#ifdef CONFIG_PERF_EVENTS
	ue->class.perf_probe = user_event_perf;
#endif
	INIT_LIST_HEAD(&ue->class.fields);

	call = &ue->call;
	call->class = &ue->class;
	call->tp = &ue->tp;
	call->flags = TRACE_EVENT_FL_TRACEPOINT;
	call->data = ue;
	call->event.funcs = &user_event_funcs;
	call->print_fmt = user_event_print_fmt(fmt);
	if (!call->print_fmt)
		goto err;

	if (!register_trace_event(&call->event)) {
		ret = -ENODEV;
		goto err;
	}
	ret = trace_add_event_call(call);
	if (ret) {
		unregister_trace_event(&call->event);
		goto err;
	}
	if (ue->fields_failed ||
	    (fmt->nr_fields && list_empty(&ue->class.fields))) {
		trace_remove_event_call(call);
		ret = -ENOMEM;
		goto err;
	}

	dyn_event_init(&ue->devent, &user_event_dyn_ops);
	dyn_event_add(&ue->devent, call);
	hash_add(group->table, &ue->node, user_event_key(fmt->name));
	group->count++;
	if (multi)
		group->multi_id++;
	user_event_group_changed(group);
	return ue;
err:
	ue->fmt = NULL;
	user_event_free(ue);
	return ERR_PTR(ret);
}

/*
 * The event of @fmt in @group, found or created, with a reference taken;
 * @fmt is consumed either way.  Errors are logged against @cmd, whose
 * name starts at @pos.
 */
static struct user_event *user_event_get(struct user_event_group *group,
					 struct user_event_format *fmt,
					 bool multi, const char *cmd, int pos)
{
	struct user_event *ue;
	bool taken = false;

	mutex_lock(&event_mutex);
	user_event_reap_name(group, fmt->name);
	ue = user_event_find(group, fmt, multi, &taken);
	if (ue) {
		user_event_hold(ue);
	} else if (taken) {
		user_event_log(cmd, USER_EVENT_ERR_EVENT_EXISTS, pos);
		ue = ERR_PTR(-EADDRINUSE);
	} else {
		ue = user_event_create(group, fmt, multi);
		if (!IS_ERR(ue))
			fmt = NULL;
		else if (PTR_ERR(ue) == -EMFILE)
			user_event_log(cmd, group->tr ?
				       USER_EVENT_ERR_TOO_MANY_GROUP :
				       USER_EVENT_ERR_TOO_MANY, pos);
	}
	mutex_unlock(&event_mutex);

	user_event_format_free(fmt);
	return ue;
}

/*
 * user_events_data
 */

/* The group of instance @tr, if it has one */
static struct user_event_group *user_event_group_find(struct trace_array *tr)
{
	struct user_event_group *group;

	lockdep_assert_held(&event_mutex);

	list_for_each_entry(group, &user_event_groups, list)
		if (group->tr == tr)
			return group;
	return NULL;
}

/*
 * The group of a file's instance @tr (NULL: the top level), whose
 * reference tracing_check_open_get_tr() took: it cannot be removed.  The
 * file @inode must be one of the group's own: a file of a removed
 * instance, still reachable (an O_PATH descriptor, a bind mount), whose
 * trace_array a new instance reuses, must not open the new one's group.
 */
static struct user_event_group *user_event_group_of(struct trace_array *tr,
						    struct inode *inode)
{
	struct user_event_group *group;
	unsigned int i;

	if (!tr)
		return &user_event_global;

	guard(mutex)(&event_mutex);
	group = user_event_group_find(tr);
	for (i = 0; group && i < ARRAY_SIZE(group->inodes); i++)
		if (group->inodes[i] == inode)
			return group;
	return NULL;
}

/* Open a group's file @inode: the group, with its instance held */
static struct user_event_group *user_event_group_open(struct inode *inode)
{
	struct trace_array *tr = inode->i_private;
	struct user_event_group *group;
	int ret;

	ret = tracing_check_open_get_tr(tr);
	if (ret)
		return ERR_PTR(ret);

	group = user_event_group_of(tr, inode);
	if (!group) {
		trace_array_put(tr);
		return ERR_PTR(-ENODEV);
	}
	return group;
}

/* Release what user_event_group_open() took */
static void user_event_group_close(struct user_event_group *group)
{
	if (group->tr)
		trace_array_put(group->tr);
}

static int user_events_open(struct inode *inode, struct file *file)
{
	struct user_event_group *group;
	struct user_event_file *uf;

	group = user_event_group_open(inode);
	if (IS_ERR(group))
		return PTR_ERR(group);

	uf = kzalloc(sizeof(*uf), GFP_KERNEL_ACCOUNT);
	if (!uf) {
		user_event_group_close(group);
		return -ENOMEM;
	}

	mutex_init(&uf->lock);
	uf->group = group;
	file->private_data = uf;

	/*
	 * The file has no position: write() ignores it and pwrite() takes
	 * only 0.  Without FMODE_ATOMIC_POS the threads of a process that
	 * share the file do not serialize every write() on f_pos_lock.
	 */
	file->f_mode &= ~FMODE_ATOMIC_POS;
	return 0;
}

static int user_events_release(struct inode *inode, struct file *file)
{
	struct user_event_file *uf = file->private_data;
	struct user_event_refs *refs;
	u32 i;

	/*
	 * Only the file's write indexes end with it: the registrations made
	 * through it belong to their mm.  No write can run: the file is going.
	 */
	refs = rcu_dereference_protected(uf->refs, true);
	if (refs) {
		for (i = 0; i < refs->count; i++)
			user_event_put(refs->events[i]);
		kfree(refs);
	}

	user_event_group_close(uf->group);
	mutex_destroy(&uf->lock);
	kfree(uf);
	return 0;
}

/* The event of write index @idx (not negative) of @uf, or NULL */
static __always_inline struct user_event *
user_events_index(struct user_event_file *uf, int idx)
{
	struct user_event_refs *refs;
	struct user_event *ue = NULL;

	/* The file's reference keeps the event: RCU guards the array only */
	rcu_read_lock();
	refs = rcu_dereference(uf->refs);
	/* Pairs with smp_store_release() in user_reg_file_add() */
	if (likely(refs && idx < smp_load_acquire(&refs->count)))
		ue = refs->events[idx];
	rcu_read_unlock();

	return ue;
}

/*
 * Record the payload (@ubuf, or what is left of @from) of @size bytes for
 * @ue; @count is what write() returns.  Not inlined into the handlers, so
 * that they run their checks without a stack frame: a write with nothing
 * attached returns before any register is saved.
 */
static noinline ssize_t user_events_record(struct user_event *ue,
					   const char __user *ubuf,
					   struct iov_iter *from,
					   size_t size, size_t count)
{
	struct user_event_write w __uninitialized;

	w.ubuf = ubuf;
	w.from = from;
	w.size = size;
	w.done = 0;
	w.fault = false;
	w.bad = false;
	if (unlikely(!user_event_probes(ue, &w)))
		return -EBADF;

	/*
	 * The probes copy with page faults disabled.  If the payload was
	 * not resident and nothing was recorded, fault it in and go again.
	 */
	if (unlikely(w.fault && !w.done)) {
		if (w.ubuf ? fault_in_readable(w.ubuf, w.size) :
			     fault_in_iov_iter_readable(w.from, w.size))
			return -EFAULT;
		w.fault = false;
		w.bad = false;
		if (unlikely(!user_event_probes(ue, &w)))
			return -EBADF;
	}

	return w.fault || w.bad ? -EFAULT : count;
}

/* The checks of a write to @ue, in the ABI's order, then the record */
static __always_inline ssize_t user_events_write_event(struct user_event *ue,
						       const char __user *ubuf,
						       struct iov_iter *from,
						       size_t size,
						       size_t count)
{
	if (unlikely(size < ue->fmt->size - USER_EVENT_FIELDS_START))
		return -EINVAL;
	if (!rcu_access_pointer(ue->tp.funcs))
		return -EBADF;
	if (unlikely(size > USER_EVENT_PAYLOAD_MAX))
		return -E2BIG;
	return user_events_record(ue, ubuf, from, size, count);
}

/*
 * write(): the index and the payload in one buffer.  Only the index is
 * read here: a write with nothing attached ends at EBADF without touching
 * the payload, which each probe then copies straight into its record.
 */
static ssize_t user_events_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct user_event_file *uf = file->private_data;
	struct user_event *ue;
	int idx;

	if (unlikely(count < sizeof(idx) || (ppos && *ppos)))
		return -EFAULT;
	if (unlikely(!user_event_read(&idx, ubuf, sizeof(idx))))
		return -EFAULT;
	if (unlikely(idx < 0))
		return -EINVAL;
	ue = user_events_index(uf, idx);
	if (unlikely(!ue))
		return -ENOENT;

	return user_events_write_event(ue, ubuf + sizeof(idx), NULL,
				       count - sizeof(idx), count);
}

/*
 * The user address of the next @len bytes of @i if they are in one
 * user buffer, else NULL.  An iovec iterator that is used up points
 * past its array: look at no segment then.
 */
static const char __user *user_iter_ubuf(const struct iov_iter *i, size_t len)
{
	const char __user *p;

	if (!len || len > iov_iter_count(i))
		return NULL;
	if (iter_is_ubuf(i)) {
		p = i->ubuf + i->iov_offset;
	} else if (iter_is_iovec(i) &&
		   iter_iov(i)->iov_len - i->iov_offset >= len) {
		p = iter_iov(i)->iov_base + i->iov_offset;
	} else {
		return NULL;
	}
	return access_ok(p, len) ? p : NULL;
}

/* writev() and the rest: index and payload anywhere in @from */
static ssize_t user_events_write_iter(struct kiocb *kiocb,
				      struct iov_iter *from)
{
	struct user_event_file *uf = kiocb->ki_filp->private_data;
	size_t count = iov_iter_count(from), size;
	const char __user *p;
	struct user_event *ue;
	int idx;

	if (unlikely(count < sizeof(idx) || kiocb->ki_pos))
		return -EFAULT;
	p = user_iter_ubuf(from, sizeof(idx));
	if (p) {
		if (unlikely(!user_event_read(&idx, p, sizeof(idx))))
			return -EFAULT;
		iov_iter_advance(from, sizeof(idx));
	} else if (unlikely(copy_from_iter(&idx, sizeof(idx), from) !=
			    sizeof(idx))) {
		return -EFAULT;
	}
	if (unlikely(idx < 0))
		return -EINVAL;
	ue = user_events_index(uf, idx);
	if (unlikely(!ue))
		return -ENOENT;

	size = iov_iter_count(from);
	return user_events_write_event(ue, user_iter_ubuf(from, size), from,
				       size, count);
}

/* copy_struct_from_user() of a struct whose size is its first u32 */
static int user_struct_copy(void *dst, size_t dst_size, size_t min_size,
			    const void __user *src)
{
	u32 size;

	if (get_user(size, (const u32 __user *)src))
		return -EFAULT;
	if (size > PAGE_SIZE)
		return -E2BIG;
	if (size < min_size)
		return -EINVAL;
	return copy_struct_from_user(dst, dst_size, src, size);
}

/* The user_reg's flags and enable word, checked in ABI order, into @w */
static int user_reg_check(const struct user_reg *reg,
			  struct user_event_word *w)
{
	if (reg->flags & ~(USER_EVENT_REG_MAX - 1))
		return -EINVAL;
	if (reg->enable_size != 4 &&
	    !(IS_ENABLED(CONFIG_64BIT) && reg->enable_size == 8))
		return -EINVAL;
	if (!IS_ALIGNED(reg->enable_addr, reg->enable_size))
		return -EINVAL;
	if (reg->enable_bit >= reg->enable_size * BITS_PER_BYTE)
		return -EINVAL;
	if (reg->enable_addr != (unsigned long)reg->enable_addr)
		return -EFAULT;
	/* Stored and compared untagged: one word has one name */
	w->addr = untagged_addr((unsigned long)reg->enable_addr);
	if (!access_ok((void __user *)w->addr, reg->enable_size))
		return -EFAULT;
	w->bit = reg->enable_bit;
	w->size = reg->enable_size;
	return 0;
}

/* Read and parse the command; errors go to error_log */
static int user_reg_parse(u64 uaddr, struct user_event_format **fmt,
			  char **cmd_out)
{
	struct user_parse_err perr;
	char *cmd;
	long len;
	int ret;

	cmd = kmalloc(USER_EVENT_CMD_MAX, GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;

	len = strncpy_from_user(cmd, u64_to_user_ptr(uaddr), USER_EVENT_CMD_MAX);
	if (len < 0) {
		kfree(cmd);
		return -EFAULT;
	}
	if (len == USER_EVENT_CMD_MAX) {
		cmd[len - 1] = '\0';
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
	return ret;
}

/**
 * struct user_reg_index - the write index a registration hands out
 * @uf:		the file
 * @ue:		the event (the caller holds a reference)
 * @refs:	the file's index array when the registration started
 * @grown:	a larger copy of it to publish, or NULL
 * @idx:	the index: an existing one of @ue, or @count
 * @count:	indexes in @refs
 */
struct user_reg_index {
	struct user_event_file	*uf;
	struct user_event	*ue;
	struct user_event_refs	*refs;
	struct user_event_refs	*grown;
	u32			idx;
	u32			count;
};

/*
 * Publish a new write index: called by user_event_enabler_add() once the
 * registration cannot fail, before the bit is written, so that a thread
 * that sees the bit set can write at once.  uf->lock held; no sleeping.
 */
static void user_reg_publish(void *arg)
{
	struct user_reg_index *ri = arg;
	struct user_event_refs *refs = ri->refs;

	if (ri->idx < ri->count)
		return;

	refcount_inc(&ri->ue->refs);
	if (ri->grown) {
		ri->grown->events[ri->idx] = ri->ue;
		ri->grown->count = ri->count + 1;
		rcu_assign_pointer(ri->uf->refs, ri->grown);
		ri->grown = NULL;
		if (refs)
			kfree_rcu(refs, rcu);
	} else {
		refs->events[ri->idx] = ri->ue;
		/* The slot is written before a writer can see the index */
		smp_store_release(&refs->count, ri->count + 1);
	}
}

/*
 * Register @w for @ue and hand out @ue's write index of @uf, storing it
 * in the user_reg last; uf->lock held
 */
static int user_reg_file_add(struct user_event_file *uf,
			     struct user_event *ue,
			     const struct user_event_word *w,
			     struct user_reg __user *ureg)
{
	struct user_reg_index ri = { .uf = uf, .ue = ue };
	u32 size, old;
	int ret;

	lockdep_assert_held(&uf->lock);

	ri.refs = rcu_dereference_protected(uf->refs,
					    lockdep_is_held(&uf->lock));
	ri.count = ri.refs ? ri.refs->count : 0;
	for (ri.idx = 0; ri.idx < ri.count; ri.idx++)
		if (ri.refs->events[ri.idx] == ue)
			break;

	if (ri.idx == ri.count && (!ri.refs || ri.count == ri.refs->size)) {
		size = ri.refs ? 2 * ri.refs->size : 4;
		ri.grown = kmalloc(struct_size(ri.grown, events, size),
				   GFP_KERNEL_ACCOUNT);
		if (!ri.grown)
			return -ENOMEM;
		ri.grown->size = size;
		ri.grown->count = ri.count;
		if (ri.count)
			memcpy(ri.grown->events, ri.refs->events,
			       ri.count * sizeof(*ri.refs->events));
	}

	/* That write_index can be stored, without storing it yet */
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
	kfree(ri.grown);
	return ret;
}

static long user_events_ioctl_reg(struct user_event_file *uf,
				  struct user_reg __user *ureg)
{
	struct user_event_format *fmt;
	struct user_event_word w;
	struct user_event *ue;
	struct user_reg reg;
	char *cmd;
	int ret;

	ret = user_struct_copy(&reg, sizeof(reg),
			       offsetofend(struct user_reg, write_index), ureg);
	if (ret)
		return ret;
	ret = user_reg_check(&reg, &w);
	if (ret)
		return ret;
	if (user_event_enabler_in_use(&w))
		return -EADDRINUSE;

	ret = user_reg_parse(reg.name_args, &fmt, &cmd);
	if (ret)
		return ret;

	if ((reg.flags & USER_EVENT_REG_PERSIST) && !perfmon_capable()) {
		user_event_log(cmd, USER_EVENT_ERR_NOT_PERMITTED, 0);
		user_event_format_free(fmt);
		kfree(cmd);
		return -EPERM;
	}

	/* An old event of the name may still be held by an mm that went */
	user_event_mm_flush();
	ue = user_event_get(uf->group, fmt,
			    reg.flags & USER_EVENT_REG_MULTI_FORMAT, cmd, 0);
	if (IS_ERR(ue)) {
		kfree(cmd);
		return PTR_ERR(ue);
	}

	/* The file may be shared with other mms: never wait unkillably */
	ret = mutex_lock_killable(&uf->lock);
	if (!ret) {
		ret = user_reg_file_add(uf, ue, &w, ureg);
		mutex_unlock(&uf->lock);
	}
	if (ret == -EMFILE)
		user_event_log(cmd, USER_EVENT_ERR_TOO_MANY_REGS, 0);
	kfree(cmd);

	/* Persistent only once registered: a failure leaves nothing */
	if (!ret && (reg.flags & USER_EVENT_REG_PERSIST)) {
		mutex_lock(&event_mutex);
		ue->persist = true;
		mutex_unlock(&event_mutex);
	}
	user_event_put(ue);
	return ret;
}

static long user_events_ioctl_unreg(struct user_unreg __user *uunreg)
{
	struct user_unreg unreg;
	int ret;

	ret = user_struct_copy(&unreg, sizeof(unreg),
			       offsetofend(struct user_unreg, disable_addr),
			       uunreg);
	if (ret)
		return ret;
	if (unreg.__reserved || unreg.__reserved2)
		return -EINVAL;
	if (unreg.disable_addr != (unsigned long)unreg.disable_addr)
		return -ENOENT;

	/* Any file will do: the registration is the caller's mm's */
	return user_event_enabler_remove(untagged_addr((unsigned long)unreg.disable_addr),
					 unreg.disable_bit);
}

static long user_events_ioctl_del(struct user_event_group *group,
				  const char __user *uname)
{
	struct user_event *ue;
	struct hlist_node *tmp;
	int ret = -ENOENT, err;
	char *name;

	name = strndup_user(uname, USER_EVENT_CMD_MAX);
	if (IS_ERR(name))
		return PTR_ERR(name);

	/* An mm that went may still be dropping its references */
	user_event_mm_flush();

	/* The single-format event of the name and each of its formats */
	mutex_lock(&event_mutex);
	hash_for_each_possible_safe(group->table, ue, tmp, node,
				    user_event_key(name)) {
		if (strcmp(ue->fmt->name, name))
			continue;
		err = user_event_delete(ue);
		if (ret == -ENOENT || !ret)
			ret = err;
	}
	if (ret == -ENOENT)
		user_event_log(name, USER_EVENT_ERR_NO_EVENT, 0);
	mutex_unlock(&event_mutex);

	kfree(name);
	return ret;
}

static long user_events_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	struct user_event_file *uf = file->private_data;
	void __user *uarg = (void __user *)arg;

	if (cmd != DIAG_IOCSREG && cmd != DIAG_IOCSUNREG && cmd != DIAG_IOCSDEL)
		return -ENOTTY;
	/* Each changes what the kernel keeps: a writer's call, as write() is */
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;

	switch (cmd) {
	case DIAG_IOCSREG:
		return user_events_ioctl_reg(uf, uarg);
	case DIAG_IOCSUNREG:
		return user_events_ioctl_unreg(uarg);
	case DIAG_IOCSDEL:
		return user_events_ioctl_del(uf->group, uarg);
	}
	return -ENOTTY;
}

#ifdef CONFIG_COMPAT
/* The ioctl numbers encode the size of a pointer: map the 32-bit ones */
static long user_events_compat_ioctl(struct file *file, unsigned int cmd,
				     unsigned long arg)
{
	if (_IOC_TYPE(cmd) == DIAG_IOC_MAGIC &&
	    _IOC_SIZE(cmd) == sizeof(compat_uptr_t))
		cmd = _IOC(_IOC_DIR(cmd), DIAG_IOC_MAGIC, _IOC_NR(cmd),
			   sizeof(void *));
	return user_events_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#endif

static const struct file_operations user_events_data_fops = {
	.open		= user_events_open,
	.write		= user_events_write,
	.write_iter	= user_events_write_iter,
	.unlocked_ioctl	= user_events_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= user_events_compat_ioctl,
#endif
	.release	= user_events_release,
};

/*
 * user_events_status
 */

/**
 * struct user_event_status - an open user_events_status
 * @group:	the group it lists
 * @seen:	@group's changes when it was opened or last listed
 */
struct user_event_status {
	struct user_event_group	*group;
	unsigned long		seen;
};

static int user_events_status_show(struct seq_file *m, void *v)
{
	struct user_event_status *us = m->private;
	struct user_event_group *group = us->group;
	unsigned int active = 0, busy = 0, status;
	struct user_event *ue;
	int bkt;

	user_event_mm_flush();
	mutex_lock(&event_mutex);
	/* An event the reap work is about to delete is not listed */
	user_event_reap_locked();
	WRITE_ONCE(us->seen, group->changes);
	hash_for_each(group->table, bkt, ue, node) {
		status = ue->status;
		seq_puts(m, ue->tp.name);
		if (status) {
			seq_puts(m, " # Used by");
			if (status & USER_EVENT_USED_FTRACE)
				seq_puts(m, " ftrace");
			if (status & USER_EVENT_USED_PERF)
				seq_puts(m, " perf");
			busy++;
		}
		seq_putc(m, '\n');
		active++;
	}
	mutex_unlock(&event_mutex);

	seq_printf(m, "\nActive: %u\nBusy: %u\n", active, busy);
	return 0;
}

static int user_events_status_open(struct inode *inode, struct file *file)
{
	struct user_event_group *group;
	struct user_event_status *us;
	int ret;

	group = user_event_group_open(inode);
	if (IS_ERR(group))
		return PTR_ERR(group);

	ret = -ENOMEM;
	us = kzalloc(sizeof(*us), GFP_KERNEL_ACCOUNT);
	if (!us)
		goto err;
	us->group = group;
	us->seen = READ_ONCE(group->changes);

	ret = single_open(file, user_events_status_show, us);
	if (!ret)
		return 0;
	kfree(us);
err:
	user_event_group_close(group);
	return ret;
}

/*
 * An event of the group was created or deleted since the file was opened
 * or last listed: EPOLLPRI | EPOLLERR, as sysfs attributes and
 * /proc/mounts say that they changed.  The reader reads again from 0.
 */
static __poll_t user_events_status_poll(struct file *file, poll_table *wait)
{
	struct seq_file *m = file->private_data;
	struct user_event_status *us = m->private;

	poll_wait(file, &us->group->wait, wait);
	if (READ_ONCE(us->group->changes) != READ_ONCE(us->seen))
		return DEFAULT_POLLMASK | EPOLLERR | EPOLLPRI;
	return DEFAULT_POLLMASK;
}

static int user_events_status_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct user_event_status *us = m->private;

	user_event_group_close(us->group);
	kfree(us);
	return single_release(inode, file);
}

static const struct file_operations user_events_status_fops = {
	.open		= user_events_status_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.poll		= user_events_status_poll,
	.release	= user_events_status_release,
};

/*
 * Groups of instances: instances/NAME/user_events_{data,status,max}
 */

/* Instance names longer than this get no group */
#define USER_EVENT_GROUP_NAME_MAX	64

/*
 * Whether instance @name gets a group: its systems user_events_NAME and
 * user_events_multi_NAME must be valid system names that tools accept
 * (letters, digits, '_') and must never be another group's or the global
 * group's.  "multi" and "multi_*" would be: user_events_multi(_*).
 */
static bool user_event_group_name_ok(const char *name)
{
	size_t len = strlen(name);
	size_t i;

	if (!len || len > USER_EVENT_GROUP_NAME_MAX)
		return false;
	if (!strcmp(name, "multi") || str_has_prefix(name, "multi_"))
		return false;
	for (i = 0; i < len; i++)
		if (!(isascii(name[i]) && isalnum(name[i])) && name[i] != '_')
			return false;
	return true;
}

static void user_event_group_free(struct user_event_group *group)
{
	kfree(group->system);
	kfree(group->multi_system);
	kfree(group);
}

static ssize_t user_events_max_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct user_event_group *group = file->private_data;
	char buf[16];
	int len;

	len = snprintf(buf, sizeof(buf), "%u\n", user_event_group_max(group));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

/* A new limit takes existing events as they are: only creation checks it */
static ssize_t user_events_max_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct user_event_group *group = file->private_data;
	unsigned int max;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 0, &max);
	if (ret)
		return ret;

	mutex_lock(&event_mutex);
	WRITE_ONCE(group->max, max);
	WRITE_ONCE(group->own_max, true);
	mutex_unlock(&event_mutex);
	*ppos += count;
	return count;
}

static int user_events_max_open(struct inode *inode, struct file *file)
{
	struct user_event_group *group;

	group = user_event_group_open(inode);
	if (IS_ERR(group))
		return PTR_ERR(group);
	file->private_data = group;
	return 0;
}

static int user_events_max_release(struct inode *inode, struct file *file)
{
	user_event_group_close(file->private_data);
	return 0;
}

static const struct file_operations user_events_max_fops = {
	.open		= user_events_max_open,
	.read		= user_events_max_read,
	.write		= user_events_max_write,
	.llseek		= generic_file_llseek,
	.release	= user_events_max_release,
};

/* An instance got its directory: give it a group if its name allows */
static void user_event_group_create(struct trace_array *tr)
{
	struct user_event_group *group;
	struct dentry *d[3] = {};
	unsigned int i;

	lockdep_assert_held(&event_mutex);

	if (!user_event_group_name_ok(tr->name))
		return;

	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group)
		goto err;
	group->tr = tr;
	group->system = kasprintf(GFP_KERNEL, USER_EVENTS_SYSTEM "_%s",
				  tr->name);
	group->multi_system = kasprintf(GFP_KERNEL,
					USER_EVENTS_MULTI_SYSTEM "_%s",
					tr->name);
	if (!group->system || !group->multi_system)
		goto err;
	hash_init(group->table);
	init_waitqueue_head(&group->wait);

	/* i_private is the instance: an open checks that it is still there */
	d[0] = trace_create_file("user_events_data", TRACE_MODE_WRITE,
				 tr->dir, tr, &user_events_data_fops);
	d[1] = trace_create_file("user_events_status", TRACE_MODE_READ,
				 tr->dir, tr, &user_events_status_fops);
	d[2] = trace_create_file("user_events_max", TRACE_MODE_WRITE,
				 tr->dir, tr, &user_events_max_fops);
	if (!d[0] || !d[1] || !d[2])
		goto err;
	for (i = 0; i < ARRAY_SIZE(d); i++)
		group->inodes[i] = d_inode(d[i]);

	list_add_tail(&group->list, &user_event_groups);
	return;
err:
	tracefs_remove(d[0]);
	tracefs_remove(d[1]);
	tracefs_remove(d[2]);
	if (group)
		user_event_group_free(group);
	pr_warn("user_events: no group for instance %s\n", tr->name);
}

/*
 * An instance whose group has events cannot go (its open files hold the
 * instance already).  Called with trace_types_lock held, which deleting
 * an event takes: an unused event that a tool or an eprobe held is left
 * to the reap work, which deletes it within USER_EVENT_REAP_POLL, and
 * keeps the instance busy until then.
 */
static bool user_event_group_busy(struct trace_array *tr)
{
	struct user_event_group *group = user_event_group_find(tr);

	if (!group)
		return false;
	if (group->count)
		mod_delayed_work(system_wq, &user_event_reap_work, 0);
	return group->count;
}

/* The instance goes (its files with it): its group has no events */
static void user_event_group_remove(struct trace_array *tr)
{
	struct user_event_group *group = user_event_group_find(tr);

	if (!group)
		return;
	WARN_ON_ONCE(group->count);
	list_del(&group->list);
	user_event_group_free(group);
}

static struct trace_instance_ops user_event_instance_ops = {
	.create	= user_event_group_create,
	.busy	= user_event_group_busy,
	.remove	= user_event_group_remove,
};

static struct ctl_table user_event_sysctls[] = {
	{
		.procname	= "user_events_max",
		.data		= &user_events_max,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
};

static int __init user_events_init(void)
{
	int ret;

	/*
	 * Not merged, so that /proc/slabinfo shows what events take.  Its
	 * own cache spares a user_event kmalloc's rounding.
	 */
	user_event_cache = KMEM_CACHE(user_event, SLAB_ACCOUNT | SLAB_NO_MERGE);
	if (!user_event_cache || user_event_mm_init()) {
		pr_warn("user_events: could not create the slab caches\n");
		kmem_cache_destroy(user_event_cache);
		return -ENOMEM;
	}

	list_add(&user_event_global.list, &user_event_groups);

	ret = dyn_event_register(&user_event_dyn_ops);
	if (ret) {
		pr_warn("user_events: could not register dynamic events\n");
		return ret;
	}

	register_sysctl_init("kernel", user_event_sysctls);

	ret = tracing_init_dentry();
	if (ret)
		return ret;
	if (!trace_create_file("user_events_data", TRACE_MODE_WRITE, NULL,
			       NULL, &user_events_data_fops) ||
	    !trace_create_file("user_events_status", TRACE_MODE_READ, NULL,
			       NULL, &user_events_status_fops))
		pr_warn("user_events: could not create tracefs files\n");

	trace_instance_ops_register(&user_event_instance_ops);
	return 0;
}
fs_initcall(user_events_init);
