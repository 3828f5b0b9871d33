// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: the write path, from write() or writev() to the records.
 *
 * The index picks the event from the file's RCU-protected array; then,
 * with preemption off, each probe on the event's tracepoint reserves its
 * record in its buffer, copies the payload without faulting, validates
 * __data_loc and __rel_loc fields and commits, or discards and fails
 * with EFAULT.  A payload that was not resident is
 * faulted in and written again.  Nothing here takes a lock.
 */
#include <linux/pagemap.h>
#include <linux/perf_event.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/unaligned.h>

#include "trace_events_user_core.h"

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

/**
 * user_event_ftrace - the ftrace probe: record a write in one instance
 * @data:	the instance's trace_event_file
 * @ue:		the event
 * @w:		the write
 *
 * A record that no filter or trigger sees goes straight into the ring
 * buffer (trace_event_file_plain()); the others through
 * trace_event_buffer_reserve() and trace_event_buffer_commit().
 */
void user_event_ftrace(void *data, struct user_event *ue,
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

	/* Runs the BPF programs of the event, then the perf events */
	perf_trace_run_bpf_submit(entry, len, rctx, call, 1, regs, head, NULL);
	w->done++;
}
#endif

/*
 * Run every probe on the event's tracepoint; false if there was none.
 * The probes are this file's (nothing else can reach the tracepoint):
 * called directly, not through the pointer.
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

/**
 * user_events_write - write() of user_events_data
 * @file:	the file
 * @ubuf:	the write index and the payload, in one buffer
 * @count:	their size
 * @ppos:	the position: 0 (the file has none)
 *
 * Only the index is read here: a write with nothing attached ends at
 * EBADF without touching the payload, which each probe then copies
 * straight into its record.
 *
 * Return: @count, or the ABI's errno.
 */
ssize_t user_events_write(struct file *file, const char __user *ubuf,
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
