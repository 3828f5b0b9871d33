// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: the write path.  Each probe copies the payload into its
 * record with page faults disabled; nothing here takes a lock of its own.
 */
#include <linux/indirect_call_wrapper.h>
#include <linux/pagemap.h>
#include <linux/perf_event.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "trace_events_user_core.h"

/**
 * struct user_event_write - a write() on its way to the probes
 * @ubuf:	the payload of a write(), else NULL
 * @from:	the payload of a writev(), after the write index
 * @size:	its length
 * @done:	records committed
 * @fault:	a copy faulted: not recorded
 * @bad:	the payload failed validation: not recorded
 * @retry:	second pass, after the payload was faulted in
 */
struct user_event_write {
	const char __user	*ubuf;
	struct iov_iter		*from;
	size_t			size;
	unsigned int		done;
	bool			fault;
	bool			bad;
	bool			retry;
};

/* Each probe copies from the payload's start: the iterator is not advanced */
static bool user_event_copy(struct user_event *ue, void *entry,
			    struct user_event_write *w)
{
	void *dst = entry + USER_EVENT_FIELDS_START;
	bool copied;

	pagefault_disable();
	if (w->ubuf) {
		/* vfs_write() checked access_ok() for the whole buffer */
		copied = !__copy_from_user_inatomic(dst, w->ubuf, w->size);
	} else {
		struct iov_iter i = *w->from;

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

/* trace_trigger_soft_disabled(), but a retry does not run triggers again */
static bool user_event_ftrace_off(struct trace_event_file *file,
				  struct user_event_write *w)
{
	unsigned long eflags;

	if (likely(!w->retry))
		return trace_trigger_soft_disabled(file);

	/* A trigger that needs the record gets it, and the commit drops it */
	eflags = READ_ONCE(file->flags);
	if (eflags & EVENT_FILE_FL_TRIGGER_COND)
		return false;
	if (eflags & EVENT_FILE_FL_SOFT_DISABLED)
		return true;
	return (eflags & EVENT_FILE_FL_PID_FILTER) &&
	       trace_event_ignore_this_pid(file);
}

/**
 * user_event_ftrace - the ftrace probe: record a write in one instance
 * @data:	the instance's trace_event_file
 * @ue:		the event
 * @w:		the write
 */
void user_event_ftrace(void *data, struct user_event *ue,
		       struct user_event_write *w)
{
	struct trace_event_file *file = data;
	struct trace_event_buffer fbuffer;
	void *entry;

	if (user_event_ftrace_off(file, w))
		return;

	entry = trace_event_buffer_reserve(&fbuffer, file,
					   USER_EVENT_FIELDS_START + w->size);
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
/**
 * user_event_perf - the perf probe: record a write for the perf events
 * @data:	the event's trace_event_call
 * @ue:		the event
 * @w:		the write
 */
void user_event_perf(void *data, struct user_event *ue,
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

	perf_trace_run_bpf_submit(entry, len, rctx, call, 1, regs, head, NULL);
	w->done++;
}
#endif

/*
 * Run the probes on the event's tracepoint, as the tracepoint core runs a
 * tracepoint's (a probe it could not remove is its stub for a while, which
 * takes no arguments); false if none.  INDIRECT_CALL_2(): direct calls of
 * the ftrace and perf probes where indirect calls are costly.
 */
static bool user_event_probes(struct user_event *ue,
			      struct user_event_write *w)
{
	struct tracepoint_func *probe;
	void (*fn)(void *data, struct user_event *ue,
		   struct user_event_write *w);

	preempt_disable_notrace();
	probe = rcu_dereference_sched(ue->tp.funcs);
	if (likely(probe)) {
		do {
			fn = READ_ONCE(probe->func);
#ifdef CONFIG_PERF_EVENTS
			INDIRECT_CALL_2(fn, user_event_ftrace, user_event_perf,
					probe->data, ue, w);
#else
			INDIRECT_CALL_1(fn, user_event_ftrace,
					probe->data, ue, w);
#endif
		} while ((++probe)->func);
	}
	preempt_enable_notrace();

	return probe;
}

/* The event of write index @idx (not negative) of @uf, or NULL */
static struct user_event *user_events_index(struct user_event_file *uf,
					    int idx)
{
	struct user_event_refs *refs;
	struct user_event *ue = NULL;

	/* The file's reference keeps the event: RCU guards the array only */
	rcu_read_lock();
	refs = rcu_dereference(uf->refs);
	/* Pairs with smp_store_release() in user_reg_publish() */
	if (likely(refs && idx < smp_load_acquire(&refs->count)))
		ue = refs->events[idx];
	rcu_read_unlock();

	return ue;
}

/* The checks of a write of @size payload bytes to @ue, in the ABI's order */
static int user_events_check(struct user_event *ue, size_t size)
{
	if (unlikely(size < ue->fmt->size - USER_EVENT_FIELDS_START))
		return -EINVAL;
	if (!rcu_access_pointer(ue->tp.funcs))
		return -EBADF;
	return 0;
}

static ssize_t user_events_record(struct user_event *ue,
				  const char __user *ubuf,
				  struct iov_iter *from,
				  size_t size, size_t count)
{
	struct user_event_write w = {
		.ubuf	= ubuf,
		.from	= from,
		.size	= size,
	};

	/* A second pass only if nothing was recorded and the copy faulted */
	for (;;) {
		if (unlikely(!user_event_probes(ue, &w)))
			return -EBADF;
		if (likely(!w.fault) || w.done || w.retry)
			break;
		if (ubuf ? fault_in_readable(ubuf, size) :
			   fault_in_iov_iter_readable(from, size))
			return -EFAULT;
		w.fault = false;
		w.bad = false;
		w.retry = true;
	}

	/*
	 * EFAULT means that nothing was recorded: once a probe committed, a
	 * later one can fail only on a racing change, and the write counts.
	 */
	if (w.done)
		return count;
	return w.fault || w.bad ? -EFAULT : count;
}

/**
 * user_events_write - write() of user_events_data
 * @file:	the file
 * @ubuf:	the write index and the payload, in one buffer
 * @count:	their size
 * @ppos:	the position: only 0 is valid (the file has no data)
 *
 * Return: @count, or the ABI's errno.
 */
ssize_t user_events_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	struct user_event_file *uf = file->private_data;
	struct user_event *ue;
	int idx, ret;

	if (unlikely(count < sizeof(idx) || (ppos && *ppos)))
		return -EFAULT;
	/* get_user() where it may: not every architecture loads misaligned */
	if (IS_ALIGNED((unsigned long)ubuf, sizeof(idx)))
		ret = get_user(idx, (const int __user *)ubuf);
	else
		ret = copy_from_user(&idx, ubuf, sizeof(idx)) ? -EFAULT : 0;
	if (unlikely(ret))
		return -EFAULT;
	if (unlikely(idx < 0))
		return -EINVAL;
	ue = user_events_index(uf, idx);
	if (unlikely(!ue))
		return -ENOENT;

	ret = user_events_check(ue, count - sizeof(idx));
	if (ret)
		return ret;
	return user_events_record(ue, ubuf + sizeof(idx), NULL,
				  count - sizeof(idx), count);
}

/**
 * user_events_write_iter - writev() and the rest of user_events_data
 * @kiocb:	the file's I/O
 * @from:	the write index and the payload, anywhere in its segments
 *
 * Return: the size written, or the ABI's errno.
 */
ssize_t user_events_write_iter(struct kiocb *kiocb, struct iov_iter *from)
{
	struct user_event_file *uf = kiocb->ki_filp->private_data;
	size_t count = iov_iter_count(from);
	struct user_event *ue;
	int idx, ret;

	if (unlikely(count < sizeof(idx) || kiocb->ki_pos))
		return -EFAULT;
	if (unlikely(copy_from_iter(&idx, sizeof(idx), from) != sizeof(idx)))
		return -EFAULT;
	if (unlikely(idx < 0))
		return -EINVAL;
	ue = user_events_index(uf, idx);
	if (unlikely(!ue))
		return -ENOENT;

	ret = user_events_check(ue, iov_iter_count(from));
	if (ret)
		return ret;
	return user_events_record(ue, NULL, from, iov_iter_count(from), count);
}
