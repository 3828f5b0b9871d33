// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: groups of tracefs instances.  An instance made with mkdir,
 * whose name can be part of a system name, gets a group: its own systems,
 * status and limit, with their files in its directory.  A group's events
 * and open files hold its instance, so that removing it fails with EBUSY.
 */
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/tracefs.h>

#include "trace_events_user_core.h"

/* Every group, the global one first (event_mutex) */
LIST_HEAD(user_event_groups);

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
 * The group whose file @inode is, kept by @tr's reference.  A file of a
 * removed instance whose trace_array a new one reuses must not open it.
 */
static struct user_event_group *user_event_group_of(struct trace_array *tr,
						    struct inode *inode)
{
	struct user_event_group *group;
	unsigned int i;

	guard(mutex)(&event_mutex);
	group = user_event_group_find(tr);
	for (i = 0; group && i < ARRAY_SIZE(group->inodes); i++)
		if (group->inodes[i] == inode)
			return group;
	return NULL;
}

/**
 * user_event_group_open - open a group's file
 * @inode:	the file; i_private is its instance (NULL: the top level)
 *
 * Return: the group, with its instance held, or an ERR_PTR().
 */
struct user_event_group *user_event_group_open(struct inode *inode)
{
	struct trace_array *tr = inode->i_private;
	struct user_event_group *group = &user_event_global;
	int ret;

	ret = tracing_check_open_get_tr(tr);
	if (ret)
		return ERR_PTR(ret);

	if (tr) {
		group = user_event_group_of(tr, inode);
		if (!group) {
			trace_array_put(tr);
			return ERR_PTR(-ENODEV);
		}
	}
	return group;
}

/**
 * user_event_group_close - release what user_event_group_open() took
 * @group:	the group
 */
void user_event_group_close(struct user_event_group *group)
{
	if (group->tr)
		trace_array_put(group->tr);
}

#define USER_EVENT_GROUP_NAME_MAX	64

/* System names must be valid and unique: "multi_x" would clash with "x" */
static int user_event_group_name_check(const char *name, int *pos)
{
	size_t len = strlen(name);
	size_t i;

	*pos = 0;
	if (!strcmp(name, "multi") || str_has_prefix(name, "multi_"))
		return USER_EVENT_ERR_GROUP_NAME_MULTI;
	for (i = 0; i < len && i < USER_EVENT_GROUP_NAME_MAX; i++) {
		if (!(isascii(name[i]) && isalnum(name[i])) && name[i] != '_') {
			*pos = i;
			return USER_EVENT_ERR_GROUP_NAME_CHAR;
		}
	}
	if (len > USER_EVENT_GROUP_NAME_MAX) {
		*pos = USER_EVENT_GROUP_NAME_MAX;
		return USER_EVENT_ERR_GROUP_NAME_LONG;
	}
	return USER_EVENT_ERR_NONE;
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

/**
 * user_event_group_create - give a new instance a group
 * @tr:		the new instance; event_mutex and trace_types_lock held
 *
 * Return: 0, also for a name that gets no group, or -ENOMEM (mkdir fails).
 */
int user_event_group_create(struct trace_array *tr)
{
	struct user_event_group *group;
	struct dentry *d[3] = {};
	unsigned int i;
	int err, pos;

	lockdep_assert_held(&event_mutex);

	err = user_event_group_name_check(tr->name, &pos);
	if (err != USER_EVENT_ERR_NONE) {
		user_event_log_tr(tr, tr->name, err, pos);
		return 0;
	}

	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group)
		return -ENOMEM;
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
	user_event_gone_init(&group->gone);

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
	return 0;
err:
	/* The instance goes, and its directory with what was made in it */
	user_event_group_free(group);
	return -ENOMEM;
}

#ifdef CONFIG_PERF_EVENTS
/**
 * user_event_group_perf_perm - whether a perf event may be on a group's event
 * @call:	the event of a group bound to an instance
 * @p_event:	the perf event being opened
 *
 * Return: 0 with CAP_PERFMON (perf bypasses the instance's file modes) or
 * for an inherited event, else -EACCES.
 */
int user_event_group_perf_perm(struct trace_event_call *call,
			       struct perf_event *p_event)
{
	if (p_event->parent || perfmon_capable())
		return 0;
	return -EACCES;
}
#endif

/**
 * user_event_group_hold - count a new event of a group
 * @group:	the group; event_mutex held
 */
void user_event_group_hold(struct user_event_group *group)
{
	lockdep_assert_held(&event_mutex);

	/* Cannot fail: the instance is there as long as its group is */
	if (!group->count++ && group->tr)
		WARN_ON_ONCE(trace_array_get(group->tr));
}

/**
 * user_event_group_unhold - count a deleted event of a group
 * @group:	the group; event_mutex held
 */
void user_event_group_unhold(struct user_event_group *group)
{
	lockdep_assert_held(&event_mutex);

	if (!--group->count && group->tr)
		trace_array_put(group->tr);
}

/**
 * user_event_group_remove - an instance is being removed
 * @tr:		the instance; event_mutex and trace_types_lock held
 */
void user_event_group_remove(struct trace_array *tr)
{
	struct user_event_group *group = user_event_group_find(tr);

	if (!group)
		return;
	WARN_ON_ONCE(group->count);
	list_del(&group->list);
	user_event_group_free(group);
}

/**
 * user_event_groups_init - list the global group, before any instance
 */
void __init user_event_groups_init(void)
{
	list_add(&user_event_global.list, &user_event_groups);
}
