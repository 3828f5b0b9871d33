/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_events hooks for the life of an address space: a registration
 * belongs to the mm of the process that made it.  dup_mmap() copies an
 * mm's registrations into the child's, __mmput() drops them.  An mm that
 * never registered costs one pointer test in each.
 */
#ifndef _LINUX_USER_EVENTS_H
#define _LINUX_USER_EVENTS_H

#include <linux/mm_types.h>

#ifdef CONFIG_USER_EVENTS
struct user_event_mm;

int __user_events_fork(struct mm_struct *mm, struct mm_struct *oldmm);
void __user_events_mm_exit(struct mm_struct *mm);

/* mm_init(): a new mm, or a copy of its parent's, has no registrations */
static inline void user_events_mm_init(struct mm_struct *mm)
{
	mm->user_event_mm = NULL;
}

/* dup_mmap(), memory copied, both mmap_locks held; -ENOMEM fails the fork */
static inline int user_events_fork(struct mm_struct *mm,
				   struct mm_struct *oldmm)
{
	/* Enablers are added under oldmm's mmap_lock, which the fork holds */
	if (likely(!READ_ONCE(oldmm->user_event_mm)))
		return 0;
	return __user_events_fork(mm, oldmm);
}

/* __mmput(): the mm has no users left */
static inline void user_events_mm_exit(struct mm_struct *mm)
{
	if (unlikely(mm->user_event_mm))
		__user_events_mm_exit(mm);
}
#else
static inline void user_events_mm_init(struct mm_struct *mm)
{
}

static inline int user_events_fork(struct mm_struct *mm,
				   struct mm_struct *oldmm)
{
	return 0;
}

static inline void user_events_mm_exit(struct mm_struct *mm)
{
}
#endif /* CONFIG_USER_EVENTS */

#endif /* _LINUX_USER_EVENTS_H */
