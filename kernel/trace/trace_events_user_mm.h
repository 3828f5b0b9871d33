/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The enable bits of user events in the memory of the processes that
 * registered them (trace_events_user_mm.c), as the rest of user_events
 * uses them: an event has one struct user_event_bits, each registration
 * is an enabler of the registrant's mm on it.
 */
#ifndef _TRACE_EVENTS_USER_MM_H
#define _TRACE_EVENTS_USER_MM_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

/**
 * struct user_event_word - the enable word and bit a registration names
 * @addr:	enable_addr, untagged
 * @bit:	enable_bit
 * @size:	enable_size: 4, or 8 on 64-bit kernels
 */
struct user_event_word {
	unsigned long	addr;
	u8		bit;
	u8		size;
};

/**
 * struct user_event_gone - registrations of gone mms that hold their
 *	events' last references, for @work to drop where it may sleep
 * @lock:	protects @enablers
 * @enablers:	the registrations (trace_events_user_mm.c)
 * @work:	drops them, newest event first
 *
 * The events that share one are waited for together: waiting for the
 * exits of their registrants (user_event_mm_flush()) never waits for the
 * registrants of events with another.  Whatever holds it may go with its
 * last event: each run of @work finds at least one registration, whose
 * reference keeps the event, and touches nothing of @gone once it starts
 * dropping them.
 */
struct user_event_gone {
	spinlock_t		lock;	/* enablers */
	struct list_head	enablers;
	struct work_struct	work;
};

/**
 * struct user_event_bits - the enable bits of one event, in every mm
 * @lock:	serializes toggles with registrations; protects the rest
 * @enablers:	the registrations of the event (trace_events_user_mm.c)
 * @on:		the value the bits have: whether anything is attached
 * @seq:	when the event was made: the last references of gone mms
 *		are dropped newest event first
 * @gone:	where its registrations go when their mm does and they
 *		hold the event's last reference
 */
struct user_event_bits {
	struct mutex		lock;	/* enablers, on */
	struct list_head	enablers;
	bool			on;
	u64			seq;
	struct user_event_gone	*gone;
};

/* The per-mm registrations: trace_events_user_mm.c */
int user_event_mm_init(void);
void user_event_gone_init(struct user_event_gone *gone);
void user_event_mm_flush(struct user_event_gone *gone);
void user_event_bits_init(struct user_event_bits *bits,
			  struct user_event_gone *gone);
void user_event_bits_set(struct user_event_bits *bits, bool on);
bool user_event_enabler_in_use(const struct user_event_word *w);
int user_event_enabler_add(struct user_event_bits *bits,
			   const struct user_event_word *w,
			   int (*publish)(void *arg), void *arg);
int user_event_enabler_remove(unsigned long addr, u8 bit);

/*
 * Each registration holds a reference on its event.  The event's side
 * (trace_events_user.c) owns the count; trace_events_user_mm.c takes and
 * drops its references only through these.
 */
void user_event_bits_get(struct user_event_bits *bits);
bool user_event_bits_put_unless_last(struct user_event_bits *bits);
void user_event_bits_put(struct user_event_bits *bits);

#endif /* _TRACE_EVENTS_USER_MM_H */
