// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: the user_events_status file of a group.  It lists the
 * group's events and what is attached to each; poll() says when an event
 * was created or deleted since the file was opened or last read.
 */
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "trace_events_user_core.h"

/**
 * user_event_group_changed - an event of a group was created or deleted
 * @group:	the group; event_mutex held
 *
 * Wakes the pollers of the group's user_events_status.
 */
void user_event_group_changed(struct user_event_group *group)
{
	lockdep_assert_held(&event_mutex);

	WRITE_ONCE(group->changes, group->changes + 1);
	wake_up_interruptible(&group->wait);
}

/* Whether @func is a probe that the event's reg callback attaches */
static bool user_event_own_probe(struct user_event *ue, void *func)
{
	if (func == ue->class.probe)
		return true;
#ifdef CONFIG_PERF_EVENTS
	if (func == ue->class.perf_probe)
		return true;
#endif
	return false;
}

/**
 * user_event_used - what is attached to an event's tracepoint
 * @ue:		the event; event_mutex held
 *
 * The probes that the event's reg callback attaches are counted in
 * user_event.status.  Any other probe on the tracepoint (kernel code
 * that registered one on it directly) is USER_EVENT_USED_OTHER.
 *
 * Return: the USER_EVENT_USED_* bits of @ue.
 */
unsigned int user_event_used(struct user_event *ue)
{
	unsigned int used = READ_ONCE(ue->status);
	struct tracepoint_func *probe;

	lockdep_assert_held(&event_mutex);

	rcu_read_lock_sched();
	probe = rcu_dereference_sched(ue->tp.funcs);
	for (; probe && probe->func; probe++) {
		if (!user_event_own_probe(ue, probe->func)) {
			used |= USER_EVENT_USED_OTHER;
			break;
		}
	}
	rcu_read_unlock_sched();
	return used;
}

/**
 * user_event_show_used - the "# Used by" part of a status line
 * @m:		where to write it
 * @used:	the USER_EVENT_USED_* bits of an event
 *
 * Writes nothing for an unused event, else " # Used by" and a word for
 * each bit of @used, in the order of the bits ("# Used by ftrace other").
 */
void user_event_show_used(struct seq_file *m, unsigned int used)
{
	if (!used)
		return;
	seq_puts(m, " # Used by");
	if (used & USER_EVENT_USED_FTRACE)
		seq_puts(m, " ftrace");
	if (used & USER_EVENT_USED_PERF)
		seq_puts(m, " perf");
	if (used & USER_EVENT_USED_OTHER)
		seq_puts(m, " other");
}

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
	unsigned int active = 0, busy = 0, used;
	struct user_event *ue;
	int bkt;

	/* Registrants that exited have let go (the ABI's promise) */
	user_event_mm_flush(&group->gone);
	mutex_lock(&event_mutex);
	WRITE_ONCE(us->seen, group->changes);
	hash_for_each(group->table, bkt, ue, node) {
		/* Reading deletes nothing: an event about to go is not listed */
		if (user_event_going(ue))
			continue;
		used = user_event_used(ue);
		seq_puts(m, ue->tp.name);
		user_event_show_used(m, used);
		if (used)
			busy++;
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

const struct file_operations user_events_status_fops = {
	.open		= user_events_status_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.poll		= user_events_status_poll,
	.release	= user_events_status_release,
};
