/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_events hooks for the process lifecycle: fork copies a process's
 * registrations into the child, exec and exit drop them.
 */
#ifndef _LINUX_USER_EVENTS_H
#define _LINUX_USER_EVENTS_H

#include <uapi/linux/user_events.h>

struct task_struct;

#ifdef CONFIG_USER_EVENTS
struct user_event_mm;

void user_events_fork(struct task_struct *t, unsigned long clone_flags);
void user_events_execve(struct task_struct *t);
void user_events_exit(struct task_struct *t);
#else
static inline void user_events_fork(struct task_struct *t,
				    unsigned long clone_flags)
{
}

static inline void user_events_execve(struct task_struct *t)
{
}

static inline void user_events_exit(struct task_struct *t)
{
}
#endif /* CONFIG_USER_EVENTS */

#endif /* _LINUX_USER_EVENTS_H */
