/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The objects of user_events that its files share: events, groups and
 * open user_events_data files.  trace_events_user.c owns them; the other
 * trace_events_user_*.c files have one job each.
 */
#ifndef _TRACE_EVENTS_USER_CORE_H
#define _TRACE_EVENTS_USER_CORE_H

#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/tracepoint.h>
#include <linux/user_events.h>
#include <uapi/linux/user_events.h>
#include <linux/wait.h>

#include "trace.h"
#include "trace_dynevent.h"
#include "trace_events_user.h"
#include "trace_events_user_mm.h"

/*
 * Trace event types that user events leave to the rest of the kernel:
 * kprobes, synthetic events and modules can still be made when user
 * events (of any group, up to kernel.user_events_max) took all they may.
 */
#define USER_EVENT_TYPES_RESERVED	8192

#define USER_EVENT_LOC		"user_events"

/*
 * What is attached to the event's tracepoint: user_event.status has what
 * its reg callback attached, user_event_used() adds any other probe
 */
#define USER_EVENT_USED_FTRACE	BIT(0)
#define USER_EVENT_USED_OTHER	BIT(1)
#define USER_EVENT_USED_PERF	BIT(2)

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
 * @gone:	registrations of gone mms holding its events' last references
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
	struct user_event_gone	gone;
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
 * @lock:	serializes changes of @refs
 * @refs:	write index -> event (RCU for the write path, @lock to change)
 * @group:	the group of the file's events
 */
struct user_event_file {
	struct mutex			lock;	/* refs */
	struct user_event_refs __rcu	*refs;
	struct user_event_group		*group;
};

/* trace_events_user.c */
extern struct user_event_group user_event_global;
extern const struct file_operations user_events_data_fops;

void user_event_log_tr(struct trace_array *tr, const char *cmd, int type,
		       int pos);
void user_event_log(const char *cmd, int type, int pos);
struct user_event *user_event_get(struct user_event_group *group,
				  struct user_event_format *fmt,
				  bool multi, const char *cmd, int pos,
				  bool *created);
void user_event_put(struct user_event *ue);
void user_event_put_locked(struct user_event *ue);
int user_event_delete(struct user_event *ue, struct user_event_group *log);
bool user_event_going(struct user_event *ue);
unsigned int user_event_group_max(struct user_event_group *group);

/* trace_events_user_write.c */
struct user_event_write;

void user_event_ftrace(void *data, struct user_event *ue,
		       struct user_event_write *w);
void user_event_perf(void *data, struct user_event *ue,
		     struct user_event_write *w);
ssize_t user_events_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos);
ssize_t user_events_write_iter(struct kiocb *kiocb, struct iov_iter *from);

/* trace_events_user_status.c */
struct seq_file;

unsigned int user_event_used(struct user_event *ue);
void user_event_show_used(struct seq_file *m, unsigned int used);
extern const struct file_operations user_events_status_fops;
void user_event_group_changed(struct user_event_group *group);

/* trace_events_user_dyn.c */
extern struct dyn_event_operations user_event_dyn_ops;

/* trace_events_user_group.c */
extern struct list_head user_event_groups;

struct user_event_group *user_event_group_open(struct inode *inode);
void user_event_group_close(struct user_event_group *group);
void user_event_groups_init(void);
void user_event_group_hold(struct user_event_group *group);
void user_event_group_unhold(struct user_event_group *group);
int user_event_group_perf_perm(struct trace_event_call *call,
			       struct perf_event *p_event);

#endif /* _TRACE_EVENTS_USER_CORE_H */
