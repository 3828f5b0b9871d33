// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: trace events that user processes register and write.
 *
 * Three flows meet here (the ABI is include/uapi/linux/user_events.h):
 *
 * Register: DIAG_IOCSREG on tracefs/user_events_data checks the user_reg,
 * parses its command (trace_events_user_parse.c), finds or creates the
 * event under event_mutex, records an enabler (address, bit) of the
 * caller's mm (trace_events_user_mm.c), which publishes the file's write
 * index and then writes the bit to reflect the event's state.
 *
 * Attach: a tool that enables the event reaches user_event_reg(), which
 * hooks the probe onto the event's tracepoint (one without call sites)
 * and, before it returns, writes the bit of every enabler of the event
 * that needs no waiting; the mm's work item writes the others.
 *
 * Write: write()/writev() of index + payload runs the probes on the
 * event's tracepoint (trace_events_user_write.c).
 *
 * Groups: each event is in a group, a name space with its own systems
 * and limit; the files at the top of tracefs are the global group's.
 *
 * Lifetime: an event is referenced by every write index handed out (until
 * the file is released) and by every enabler (until DIAG_IOCSUNREG, or
 * until its mm goes: the exit of its last task, or execve).  The last
 * reference is dropped under event_mutex and a non-persistent event is
 * deleted right then, or once the last tool detaches if one still had it
 * enabled, or once another trace event (an eprobe) that held it lets go.
 *
 * Locking, outermost first:
 *   event_mutex		events, their refs reaching 0, status
 *   mmap_lock, then the locks of trace_events_user_mm.c
 *   user_event_file.lock	a file's index array: taken alone, or in
 *				user_event_mm.lock (the publish callback)
 * event_mutex and user_event_file.lock are never held together, and
 * neither is held while waiting for an mm or a fault: processes that
 * share a file never wait for each other's memory.  The write path takes
 * no lock of its own: RCU for the index array and the tracepoint.
 */
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/jhash.h>
#include <linux/sysctl.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "trace_events_user_core.h"
#include "trace_output.h"

static struct kmem_cache *user_event_cache;

/* The top-level files' group */
struct user_event_group user_event_global = {
	.system		= USER_EVENTS_SYSTEM,
	.multi_system	= USER_EVENTS_MULTI_SYSTEM,
	.wait		= __WAIT_QUEUE_HEAD_INITIALIZER(user_event_global.wait),
};

/* The events of all groups together (event_mutex) */
static unsigned int user_events_max = 32768;
static unsigned int user_events_count;

enum {
	USER_BUSY_REFS,
	USER_BUSY_FTRACE,
	USER_BUSY_PERF,
	USER_BUSY_OTHER,
};

/* Why an event could not be deleted, for error_log */
static const char * const user_event_busy_errs[] = {
	"Event is busy: registered by a process or open in user_events_data",
	"Event is busy: enabled in ftrace",
	"Event is busy: in use by perf or eBPF",
	"Event is busy: in use by another trace event",
};

/**
 * user_event_log_tr - log a rejected command in an instance's error_log
 * @tr:		the trace array whose error_log gets the line; NULL: the
 *		top-level one
 * @cmd:	the command (or name) as the caller gave it
 * @type:	enum user_event_err
 * @pos:	byte offset of the offending token in @cmd
 *
 * The trace core shows the bytes of @cmd that are not printable ASCII
 * escaped, with the caret under the offending token.
 */
void user_event_log_tr(struct trace_array *tr, const char *cmd, int type,
		       int pos)
{
	tracing_log_err(tr, USER_EVENT_LOC, cmd, user_event_errs, type, pos);
}

/**
 * user_event_log - log a rejected command in the top-level error_log
 * @cmd:	the command (or name) as the caller gave it
 * @type:	enum user_event_err
 * @pos:	byte offset of the offending token in @cmd
 *
 * For commands written to the top-level files; see user_event_log_tr().
 */
void user_event_log(const char *cmd, int type, int pos)
{
	user_event_log_tr(NULL, cmd, type, pos);
}

/**
 * user_event_group_log - log a rejected command in its group's error_log
 * @group:	the group whose file the command came through
 * @cmd:	the command (or name) as the caller gave it
 * @type:	enum user_event_err
 * @pos:	byte offset of the offending token in @cmd
 *
 * A group's callers see the error_log of the group's instance: its lines
 * go there, where they neither show nor push out the lines of others.
 */
static void user_event_group_log(struct user_event_group *group,
				 const char *cmd, int type, int pos)
{
	user_event_log_tr(group->tr, cmd, type, pos);
}

/*
 * Events: lookup, references, deletion
 */

static u32 user_event_key(const char *name)
{
	return jhash(name, strlen(name), 0);
}

/**
 * user_event_group_max - how many events a group may have
 * @group:	the group
 *
 * Return: the group's own limit once set, else kernel.user_events_max.
 * Creating an event checks it and kernel.user_events_max for the events
 * of all groups, so a group's own limit can only lower what it may have.
 */
unsigned int user_event_group_max(struct user_event_group *group)
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

/*
 * Remove an event nothing refers to; event_mutex held.  No buffer is
 * reset, now or at the trace core's next reset: an event that goes with
 * its last user must not wipe other events' records, and its own print
 * as an unknown type.  An event still enabled or held by another trace
 * event answers EBUSY, and the reap work deletes it when they let go.
 */
static int user_event_destroy(struct user_event *ue)
{
	int ret;

	lockdep_assert_held(&event_mutex);

	if (refcount_read(&ue->refs) || trace_event_dyn_busy(&ue->call))
		return -EBUSY;

	ret = trace_remove_event_call_noreset(&ue->call);
	if (ret)
		return ret;

	dyn_event_remove(&ue->devent);
	hash_del(&ue->node);
	user_event_group_unhold(ue->group);
	user_event_group_changed(ue->group);
	user_events_count--;
	user_event_free(ue);
	return 0;
}

/**
 * user_event_put - drop a reference on an event
 * @ue:		the event
 *
 * The last one of a non-persistent event deletes it, unless a tool still
 * has it enabled: then user_event_reap() does.  Not with event_mutex held.
 */
void user_event_put(struct user_event *ue)
{
	if (!refcount_dec_and_mutex_lock(&ue->refs, &event_mutex))
		return;
	if (!ue->persist)
		user_event_destroy(ue);
	mutex_unlock(&event_mutex);
}

/**
 * user_event_put_locked - user_event_put() with event_mutex held
 * @ue:		the event
 */
void user_event_put_locked(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);

	if (refcount_dec_and_test(&ue->refs) && !ue->persist)
		user_event_destroy(ue);
}

/* Take a reference on an event found under event_mutex */
static void user_event_hold(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);

	/* A persistent or still enabled event may have none */
	if (!refcount_inc_not_zero(&ue->refs))
		refcount_set(&ue->refs, 1);
}

/* The registrations of trace_events_user_mm.c hold events by their bits */
static struct user_event *user_event_of_bits(struct user_event_bits *bits)
{
	return container_of(bits, struct user_event, bits);
}

/**
 * user_event_bits_get - take a reference for a new registration
 * @bits:	the event's bits, of which the caller already holds one
 */
void user_event_bits_get(struct user_event_bits *bits)
{
	refcount_inc(&user_event_of_bits(bits)->refs);
}

/**
 * user_event_bits_put_unless_last - drop a registration's reference
 * @bits:	the event's bits
 *
 * Return: false, with the reference kept, if it is the last one; the
 * caller then drops it with user_event_bits_put() where that may sleep.
 * Safe in any context: it never deletes the event.
 */
bool user_event_bits_put_unless_last(struct user_event_bits *bits)
{
	return refcount_dec_not_one(&user_event_of_bits(bits)->refs);
}

/**
 * user_event_bits_put - drop a registration's reference on its event
 * @bits:	the event's bits
 *
 * Must not be called with event_mutex held: the last reference of a
 * non-persistent event deletes it.
 */
void user_event_bits_put(struct user_event_bits *bits)
{
	user_event_put(user_event_of_bits(bits));
}

/* A non-persistent event that nothing refers to or uses: due for deletion */
static bool user_event_unused(struct user_event *ue)
{
	return !ue->persist && !ue->status && !refcount_read(&ue->refs);
}

/**
 * user_event_going - whether an event is about to be deleted
 * @ue:		the event; event_mutex held
 *
 * Return: true if @ue is unused, not persistent and held by no other
 * trace event: the reap work, queued when it became unused, deletes it.
 */
bool user_event_going(struct user_event *ue)
{
	lockdep_assert_held(&event_mutex);

	return user_event_unused(ue) && !trace_event_dyn_busy(&ue->call);
}

/*
 * Delete every unused event of @group that can go.  event_mutex is held,
 * and let go after each deletion: there may be thousands, and the others
 * waiting for it (any group's registrations, the trace core) need not
 * wait for all of them.
 */
static void user_event_reap_group(struct user_event_group *group)
{
	struct user_event *ue;
	unsigned int bkt;

	lockdep_assert_held(&event_mutex);

	for (bkt = 0; bkt < HASH_SIZE(group->table); bkt++) {
again:
		hlist_for_each_entry(ue, &group->table[bkt], node) {
			if (!user_event_unused(ue) || user_event_destroy(ue))
				continue;
			/* Its count keeps the group and its instance meanwhile */
			user_event_group_hold(group);
			mutex_unlock(&event_mutex);
			cond_resched();
			mutex_lock(&event_mutex);
			user_event_group_unhold(group);
			/* The bucket may have changed meanwhile */
			goto again;
		}
	}
}

/*
 * Delete the non-persistent events that lost their last reference while
 * something held them, once nothing does: queued when the last tool
 * detaches and when the last other trace event holding one lets go.
 */
static void user_event_reap(struct work_struct *work)
{
	struct user_event_group *group;

	mutex_lock(&event_mutex);
	list_for_each_entry(group, &user_event_groups, list)
		user_event_reap_group(group);
	mutex_unlock(&event_mutex);
}

static DECLARE_WORK(user_event_reap_work, user_event_reap);

/**
 * user_event_reap_queue - have the reap work delete the unused events now
 */
static void user_event_reap_queue(void)
{
	schedule_work(&user_event_reap_work);
}

/**
 * user_event_reap_flush - wait for the reap work queued so far
 *
 * An instance's rmdir calls it first: the events of its group that a
 * tool let go of just before are then deleted, and no longer hold it.
 * Must not be called with event_mutex held.
 */
void user_event_reap_flush(void)
{
	flush_work(&user_event_reap_work);
}

/* trace_event_put_ref() dropped the last reference another event held */
static void user_event_ref_released(struct trace_event_call *call)
{
	user_event_reap_queue();
}

/*
 * The reap work's job for the events called @name, at once: it may not
 * have run since the last tool detached, and an unused single-format
 * event with other fields must not refuse a registration (EADDRINUSE).
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

/**
 * user_event_delete - delete an event that was asked to go
 * @ue:		the event; event_mutex held
 * @log:	the group whose file the request came through: its error_log
 *		says why the event stays
 *
 * Return: 0, or -EBUSY (error_log says what holds it), -EPERM for a
 * persistent event without CAP_PERFMON, or the trace core's error.
 */
int user_event_delete(struct user_event *ue, struct user_event_group *log)
{
	int busy, ret;

	lockdep_assert_held(&event_mutex);

	if (ue->persist && !perfmon_capable()) {
		user_event_group_log(log, ue->tp.name,
				     USER_EVENT_ERR_NOT_PERMITTED, 0);
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

	tracing_log_err(log->tr, USER_EVENT_LOC, ue->tp.name,
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
 * class->reg: tools attach and detach here, with event_mutex held.  A
 * detach cannot fail (the tracepoint core leaves a stub when it has no
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
		user_event_reap_queue();
	return 0;
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

/*
 * Why no other event of @group may be created (enum user_event_err), or
 * USER_EVENT_ERR_NONE.  The trace core registers kprobes, synthetic
 * events and modules' events under event_mutex too, so the free types
 * cannot drop below the reserve between this check and the creation.
 */
static int user_event_may_create(struct user_event_group *group)
{
	lockdep_assert_held(&event_mutex);

	if (user_events_count >= READ_ONCE(user_events_max))
		return USER_EVENT_ERR_TOO_MANY;
	if (group->count >= user_event_group_max(group))
		return group->tr ? USER_EVENT_ERR_TOO_MANY_GROUP :
				   USER_EVENT_ERR_TOO_MANY;
	if (trace_event_types_free() <= USER_EVENT_TYPES_RESERVED)
		return USER_EVENT_ERR_NO_TYPES;
	return USER_EVENT_ERR_NONE;
}

/* Create and register an event of @group for @fmt (taken on success) */
static struct user_event *user_event_create(struct user_event_group *group,
					    struct user_event_format *fmt,
					    bool multi)
{
	struct trace_event_call *call;
	struct user_event *ue;
	int ret = -ENOMEM;

	lockdep_assert_held(&event_mutex);

	ue = kmem_cache_zalloc(user_event_cache, GFP_KERNEL);
	if (!ue)
		return ERR_PTR(-ENOMEM);

	ue->fmt = fmt;
	ue->group = group;
	ue->multi = multi;
	user_event_bits_init(&ue->bits, &group->gone);
	refcount_set(&ue->refs, 1);
	if (multi)
		ue->tp.name = kasprintf(GFP_KERNEL_ACCOUNT, "%s.%llx",
					fmt->name, group->multi_id);
	else
		ue->tp.name = fmt->name;
	if (!ue->tp.name)
		goto err;

	ue->class.system = multi ? group->multi_system : group->system;
	ue->class.ref_released = user_event_ref_released;
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
	/* Counted: an eprobe or a hist trigger on the event holds it */
	call->flags = TRACE_EVENT_FL_TRACEPOINT | TRACE_EVENT_FL_DYNAMIC;
	call->data = ue;
#ifdef CONFIG_PERF_EVENTS
	/* Who may reach a group's events is its instance's to say */
	if (group->tr)
		call->perf_perm = user_event_group_perf_perm;
#endif
	call->event.funcs = &user_event_funcs;
	call->print_fmt = user_event_print_fmt(fmt);
	if (!call->print_fmt)
		goto err;

	/* The trace core has no type left: as past the reserve */
	if (!register_trace_event(&call->event)) {
		ret = -ENOSPC;
		goto err;
	}
	ret = trace_add_event_call(call);
	if (ret) {
		unregister_trace_event(&call->event);
		goto err;
	}
	if (ue->fields_failed ||
	    (fmt->nr_fields && list_empty(&ue->class.fields))) {
		trace_remove_event_call_noreset(call);
		ret = -ENOMEM;
		goto err;
	}

	dyn_event_init(&ue->devent, &user_event_dyn_ops);
	dyn_event_add(&ue->devent, call);
	hash_add(group->table, &ue->node, user_event_key(fmt->name));
	user_event_group_hold(group);
	user_events_count++;
	if (multi)
		group->multi_id++;
	user_event_group_changed(group);
	return ue;
err:
	ue->fmt = NULL;
	user_event_free(ue);
	return ERR_PTR(ret);
}

/**
 * user_event_get - find or create an event, and take a reference on it
 * @group:	its group
 * @fmt:	its format, consumed either way
 * @multi:	a multi-format event
 * @cmd:	the command, for error_log
 * @pos:	where the name starts in @cmd
 * @created:	set to whether the event was created by this call
 *
 * Return: the event, or an ERR_PTR(): -EADDRINUSE (same name, other
 * fields), -EMFILE (the group's limit, or kernel.user_events_max for the
 * events of all groups), -ENOSPC (no event type left for user events),
 * -ENOMEM.
 */
struct user_event *user_event_get(struct user_event_group *group,
				  struct user_event_format *fmt,
				  bool multi, const char *cmd, int pos,
				  bool *created)
{
	struct user_event *ue;
	bool taken = false;
	int err;

	*created = false;
	mutex_lock(&event_mutex);
	user_event_reap_name(group, fmt->name);
	ue = user_event_find(group, fmt, multi, &taken);
	if (ue) {
		user_event_hold(ue);
	} else if (taken) {
		user_event_group_log(group, cmd, USER_EVENT_ERR_EVENT_EXISTS,
				     pos);
		ue = ERR_PTR(-EADDRINUSE);
	} else {
		err = user_event_may_create(group);
		if (err)
			ue = ERR_PTR(err == USER_EVENT_ERR_NO_TYPES ?
				     -ENOSPC : -EMFILE);
		else
			ue = user_event_create(group, fmt, multi);
		*created = !IS_ERR(ue);
		if (!IS_ERR(ue))
			fmt = NULL;
		else if (PTR_ERR(ue) == -ENOSPC)
			err = USER_EVENT_ERR_NO_TYPES;
		if (err)
			user_event_group_log(group, cmd, err, pos);
	}
	mutex_unlock(&event_mutex);

	user_event_format_free(fmt);
	return ue;
}

/*
 * user_events_data
 */

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
	return 0;
}

static int user_events_release(struct inode *inode, struct file *file)
{
	struct user_event_file *uf = file->private_data;
	struct user_event_refs *refs;
	u32 i;

	/*
	 * Only the file's write indexes end with it (its registrations belong
	 * to their mm), and no write can run.  Newest index first: the trace
	 * core finds the newest events' files first, so many go in linear time.
	 */
	refs = rcu_dereference_protected(uf->refs, true);
	if (refs) {
		for (i = refs->count; i--; ) {
			user_event_put(refs->events[i]);
			cond_resched();
		}
		kfree(refs);
	}

	user_event_group_close(uf->group);
	mutex_destroy(&uf->lock);
	kfree(uf);
	return 0;
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

/* Read and parse the command; errors go to @group's error_log */
static int user_reg_parse(struct user_event_group *group, u64 uaddr,
			  struct user_event_format **fmt, char **cmd_out)
{
	struct user_parse_err perr;
	char *cmd;
	long len;
	int ret;

	cmd = kmalloc(USER_EVENT_CMD_MAX, GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;

	/* Above what a pointer holds (32-bit kernels): as for enable_addr */
	if (uaddr != (unsigned long)uaddr) {
		kfree(cmd);
		return -EFAULT;
	}
	len = strncpy_from_user(cmd, u64_to_user_ptr(uaddr), USER_EVENT_CMD_MAX);
	if (len < 0) {
		kfree(cmd);
		return -EFAULT;
	}
	if (len == USER_EVENT_CMD_MAX) {
		cmd[len - 1] = '\0';
		user_event_group_log(group, cmd, USER_EVENT_ERR_CMD_TOO_LONG,
				     0);
		kfree(cmd);
		return -EINVAL;
	}

	ret = user_event_parse(cmd, fmt, &perr);
	if (ret == -EINVAL)
		user_event_group_log(group, cmd, perr.type, perr.pos);
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
 * @grown:	an empty array larger than the file's, if that was full
 * @idx:	the index, once published
 */
struct user_reg_index {
	struct user_event_file	*uf;
	struct user_event	*ue;
	struct user_event_refs	*grown;
	u32			idx;
};

/* Allocate the larger array a new index needs if the file's is full */
static int user_reg_index_prepare(struct user_reg_index *ri)
{
	struct user_event_refs *refs;
	u32 size;

	mutex_lock(&ri->uf->lock);
	refs = rcu_dereference_protected(ri->uf->refs,
					 lockdep_is_held(&ri->uf->lock));
	size = !refs ? 4 : refs->count < refs->size ? 0 : 2 * refs->size;
	mutex_unlock(&ri->uf->lock);
	if (!size)
		return 0;
	ri->grown = kmalloc(struct_size(ri->grown, events, size),
			    GFP_KERNEL_ACCOUNT);
	if (!ri->grown)
		return -ENOMEM;
	ri->grown->size = size;
	return 0;
}

/*
 * Publish @ue's write index of the file, a new one unless it has one,
 * once nothing else can fail and before the bit is written, so that a
 * thread that sees the bit set can write at once.  uf->lock is taken
 * inside the registrant's mm locks and held for nothing that can fault:
 * the processes sharing a file never wait for one another's memory.
 * -EAGAIN if registrations meanwhile filled the array beyond @grown.
 */
static int user_reg_publish(void *arg)
{
	struct user_reg_index *ri = arg;
	struct user_event_refs *refs;
	int ret = 0;
	u32 count;

	mutex_lock(&ri->uf->lock);
	refs = rcu_dereference_protected(ri->uf->refs,
					 lockdep_is_held(&ri->uf->lock));
	count = refs ? refs->count : 0;
	for (ri->idx = 0; ri->idx < count; ri->idx++)
		if (refs->events[ri->idx] == ri->ue)
			goto out;

	if (refs && count < refs->size) {
		refcount_inc(&ri->ue->refs);
		refs->events[count] = ri->ue;
		/* The slot is written before a writer can see the index */
		smp_store_release(&refs->count, count + 1);
	} else if (ri->grown && count < ri->grown->size) {
		refcount_inc(&ri->ue->refs);
		if (count)
			memcpy(ri->grown->events, refs->events,
			       count * sizeof(*refs->events));
		ri->grown->events[count] = ri->ue;
		ri->grown->count = count + 1;
		rcu_assign_pointer(ri->uf->refs, ri->grown);
		ri->grown = NULL;
		kfree_rcu(refs, rcu);
	} else {
		ret = -EAGAIN;
	}
out:
	mutex_unlock(&ri->uf->lock);
	return ret;
}

/*
 * Register @w for @ue and store @ue's write index of @uf in the user_reg.
 * Its faults wait with only the registrant's own locks held.
 */
static int user_reg_file_add(struct user_event_file *uf,
			     struct user_event *ue,
			     const struct user_event_word *w,
			     struct user_reg __user *ureg)
{
	struct user_reg_index ri = { .uf = uf, .ue = ue };
	int ret;

	/* Registrations through the file meanwhile may need a larger array */
	do {
		ret = user_reg_index_prepare(&ri);
		if (!ret)
			ret = user_event_enabler_add(&ue->bits, w,
						     user_reg_publish, &ri);
		kfree(ri.grown);
		ri.grown = NULL;
	} while (ret == -EAGAIN);
	if (ret)
		return ret;

	/*
	 * Unmapped meanwhile: the registration stays for DIAG_IOCSUNREG (the
	 * word's may be another thread's by now).
	 */
	return put_user(ri.idx, &ureg->write_index) ? -EFAULT : 0;
}

static long user_events_ioctl_reg(struct user_event_file *uf,
				  struct user_reg __user *ureg)
{
	struct user_event_format *fmt;
	struct user_event_word w;
	struct user_event *ue;
	struct user_reg reg;
	bool created;
	char *cmd;
	u32 old;
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

	ret = user_reg_parse(uf->group, reg.name_args, &fmt, &cmd);
	if (ret)
		return ret;

	if ((reg.flags & USER_EVENT_REG_PERSIST) && !perfmon_capable()) {
		user_event_group_log(uf->group, cmd,
				     USER_EVENT_ERR_NOT_PERMITTED, 0);
		user_event_format_free(fmt);
		kfree(cmd);
		return -EPERM;
	}

	/* That write_index can be stored, before anything is made */
	if (get_user(old, &ureg->write_index) ||
	    put_user(old, &ureg->write_index)) {
		user_event_format_free(fmt);
		kfree(cmd);
		return -EFAULT;
	}

	/* An old event of the name may still be held by an mm that went */
	user_event_mm_flush(&uf->group->gone);
	ue = user_event_get(uf->group, fmt,
			    reg.flags & USER_EVENT_REG_MULTI_FORMAT, cmd, 0,
			    &created);
	if (IS_ERR(ue)) {
		kfree(cmd);
		return PTR_ERR(ue);
	}

	ret = user_reg_file_add(uf, ue, &w, ureg);
	if (ret == -EMFILE)
		user_event_group_log(uf->group, cmd,
				     USER_EVENT_ERR_TOO_MANY_REGS, 0);
	kfree(cmd);

	/*
	 * PERSIST makes only the event it created persistent, once registered:
	 * a failure leaves nothing, and an existing event stays as its creator
	 * made it (else any CAP_PERFMON process could pin another's event).
	 */
	if (!ret && created && (reg.flags & USER_EVENT_REG_PERSIST)) {
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
	user_event_mm_flush(&group->gone);

	/* The single-format event of the name and each of its formats */
	mutex_lock(&event_mutex);
	hash_for_each_possible_safe(group->table, ue, tmp, node,
				    user_event_key(name)) {
		if (strcmp(ue->fmt->name, name))
			continue;
		err = user_event_delete(ue, group);
		if (ret == -ENOENT || !ret)
			ret = err;
	}
	if (ret == -ENOENT)
		user_event_group_log(group, name, USER_EVENT_ERR_NO_EVENT, 0);
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

const struct file_operations user_events_data_fops = {
	.open		= user_events_open,
	.write		= user_events_write,
	.write_iter	= user_events_write_iter,
	.unlocked_ioctl	= user_events_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= user_events_compat_ioctl,
#endif
	.release	= user_events_release,
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

	user_event_gone_init(&user_event_global.gone);

	user_event_cache = KMEM_CACHE(user_event, SLAB_ACCOUNT);
	if (!user_event_cache || user_event_mm_init()) {
		pr_warn("user_events: could not create the slab caches\n");
		kmem_cache_destroy(user_event_cache);
		return -ENOMEM;
	}

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
			       NULL, &user_events_data_fops))
		pr_warn("user_events: could not create user_events_data\n");
	if (!trace_create_file("user_events_status", TRACE_MODE_READ, NULL,
			       NULL, &user_events_status_fops))
		pr_warn("user_events: could not create user_events_status\n");

	user_event_groups_init();
	return 0;
}
fs_initcall(user_events_init);
