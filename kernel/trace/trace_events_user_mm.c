// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: the enable bits of each address space.
 *
 * A registration (DIAG_IOCSREG) names a bit in the caller's memory that
 * the kernel keeps set while anything is attached to the event.  It lasts
 * until DIAG_IOCSUNREG or __mmput() of the mm, and a fork copies it.
 *
 * Locking, outermost first:
 *   mmap_lock (read)		of the mm whose words are written
 *   user_event_mm.lock		the mm's enablers; a registration's publish
 *				callback takes its caller's lock here
 *   user_event_bits.lock	an event's enablers, the value of its bits, and
 *				every write of one of their words
 *   user_event_mm.pending_lock	the mm's enablers waiting for its work
 *   user_event_gone.lock	enablers of gone mms with last references (alone,
 *				or in user_event_mm.lock; queues the work)
 *
 * A toggle (user_event_bits_set()) only trylocks mmap_lock and the folio
 * lock, and never faults: what it cannot write goes to the mm's work, which
 * trylocks too and faults (FOLL_NOWAIT) only anonymous and tmpfs memory and
 * mapped pages of private file mappings.  Only the mm's own tasks wait for
 * it, so no global lock or shared worker waits for a user mm (but a race
 * with reclaim can make the work read a file, on user_events' workqueue).
 */
#include <linux/highmem.h>
#include <linux/list_sort.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/user_events.h>
#include <linux/workqueue.h>

#include "trace.h"
#include "trace_events_user_mm.h"

/* Attempts of DIAG_IOCSREG and DIAG_IOCSUNREG to fault their word in */
#define USER_EVENT_FAULT_TRIES	3

/* An mm's work backs off from 1 ms, doubling, to at most this */
#define USER_EVENT_WORK_MAX_MS	1000

/**
 * struct user_event_mm - the registrations of one mm
 * @lock:	serializes changes of @enablers
 * @enablers:	struct user_event_enabler by word and bit (@lock)
 * @count:	number of @enablers (@lock)
 * @mm:		the mm: made by its first registration, gone with its users
 * @pending_lock: protects @pending and @runs
 * @pending:	enablers whose word a toggle could not write at once
 * @runs:	runs of @work since a toggle last left it a word
 * @work:	writes the words of @pending when it can without waiting
 */
struct user_event_mm {
	struct mutex		lock;	/* enablers, count */
	struct rb_root		enablers;
	unsigned int		count;
	struct mm_struct	*mm;
	spinlock_t		pending_lock;	/* pending, runs */
	struct list_head	pending;
	unsigned int		runs;
	struct delayed_work	work;
};

/**
 * struct user_event_enabler - a bit in user memory that mirrors an event
 * @node:	in user_event_mm.enablers
 * @event_link:	in user_event_bits.enablers; once its mm is gone, in
 *		user_event_gone.enablers if it holds the event's last reference
 * @pending_link: in user_event_mm.pending, or empty
 * @bits:	the event's bits (the enabler holds a reference on the event)
 * @uemm:	the mm it belongs to
 * @word:	enable_addr (untagged), enable_bit and enable_size
 * @waddr:	the naturally aligned long that holds the bit
 * @wbit:	the bit's number in that long
 */
struct user_event_enabler {
	struct rb_node		node;
	struct list_head	event_link;
	struct list_head	pending_link;
	struct user_event_bits	*bits;
	struct user_event_mm	*uemm;
	struct user_event_word	word;
	unsigned long		waddr;
	unsigned int		wbit;
};

static struct kmem_cache *user_event_enabler_cache;
static struct workqueue_struct *user_event_mm_wq;
static unsigned int user_events_max_enablers = 65536;

/* The aligned long and bit of @w: a 4-byte word is half a long on 64-bit */
static void user_event_word_locate(const struct user_event_word *w,
				   unsigned long *waddr, unsigned int *wbit)
{
	unsigned int bit = w->bit;

	*waddr = ALIGN_DOWN(w->addr, sizeof(long));
#if BITS_PER_LONG == 64
	if (w->size == 4 &&
	    !!(w->addr & 4) != IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))
		bit += 32;
#endif
	*wbit = bit;
}

static int user_event_enabler_cmp(unsigned long waddr, unsigned int wbit,
				  const struct user_event_enabler *e)
{
	if (waddr != e->waddr)
		return waddr < e->waddr ? -1 : 1;
	if (wbit != e->wbit)
		return wbit < e->wbit ? -1 : 1;
	return 0;
}

/* The enabler of this bit of memory; uemm->lock held */
static struct user_event_enabler *
user_event_enabler_at(struct user_event_mm *uemm, unsigned long waddr,
		      unsigned int wbit)
{
	struct rb_node *n = uemm->enablers.rb_node;
	struct user_event_enabler *e;
	int cmp;

	while (n) {
		e = rb_entry(n, struct user_event_enabler, node);
		cmp = user_event_enabler_cmp(waddr, wbit, e);
		if (!cmp)
			return e;
		n = cmp < 0 ? n->rb_left : n->rb_right;
	}
	return NULL;
}

/* Registrations are unique by address and bit: DIAG_IOCSUNREG names no size */
static struct user_event_enabler *
user_event_enabler_named(struct user_event_mm *uemm, unsigned long addr,
			 u8 bit)
{
	static const u8 sizes[] = { 4, 8 };
	struct user_event_word w = { .addr = addr, .bit = bit };
	struct user_event_enabler *e;
	unsigned long waddr;
	unsigned int wbit;
	int i;

	lockdep_assert_held(&uemm->lock);

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		w.size = sizes[i];
		if (w.size > sizeof(long) || !IS_ALIGNED(addr, w.size) ||
		    bit >= w.size * BITS_PER_BYTE)
			continue;
		user_event_word_locate(&w, &waddr, &wbit);
		e = user_event_enabler_at(uemm, waddr, wbit);
		if (e && e->word.addr == addr && e->word.bit == bit)
			return e;
	}
	return NULL;
}

/* Whether @w clashes with a registration: the same name or the same bit */
static bool user_event_word_taken(struct user_event_mm *uemm,
				  const struct user_event_word *w)
{
	unsigned long waddr;
	unsigned int wbit;

	user_event_word_locate(w, &waddr, &wbit);
	return user_event_enabler_at(uemm, waddr, wbit) ||
	       user_event_enabler_named(uemm, w->addr, w->bit);
}

static bool user_event_enabler_less(struct rb_node *a, const struct rb_node *b)
{
	const struct user_event_enabler *e =
		rb_entry(a, struct user_event_enabler, node);

	return user_event_enabler_cmp(e->waddr, e->wbit,
				      rb_entry(b, struct user_event_enabler,
					       node)) < 0;
}

static void user_event_enabler_insert(struct user_event_mm *uemm,
				      struct user_event_enabler *e)
{
	rb_add(&e->node, &uemm->enablers, user_event_enabler_less);
	uemm->count++;
}

/* Set or clear the enabler's bit in its pinned page, the folio locked */
static void user_event_page_write(struct user_event_enabler *e,
				  struct page *page, bool on)
{
	void *kaddr = kmap_local_page(page) + offset_in_page(e->waddr);

	if (on)
		set_bit(e->wbit, kaddr);
	else
		clear_bit(e->wbit, kaddr);
	kunmap_local(kaddr);
	folio_mark_dirty(page_folio(page));
}

/*
 * Write the bit without faulting, with mmap_lock held.  Unless @wait, the
 * folio lock is only tried, as I/O may hold it.  -EFAULT if the page is
 * not present or not writable, -EAGAIN to try again later.
 */
static int user_event_word_write(struct user_event_enabler *e, bool on,
				 bool wait)
{
	struct folio *folio;
	struct page *page;
	long ret;

	ret = pin_user_pages_remote(e->uemm->mm, e->waddr, 1,
				    FOLL_WRITE | FOLL_NOFAULT, &page, NULL);
	if (ret != 1)
		return !ret || ret == -ENOMEM ? -EAGAIN : -EFAULT;

	folio = page_folio(page);
	if (wait) {
		folio_lock(folio);
	} else if (!folio_trylock(folio)) {
		unpin_user_page(page);
		return -EAGAIN;
	}
	user_event_page_write(e, page, on);
	folio_unlock(folio);
	unpin_user_page(page);
	return 0;
}

/*
 * Write the bit for current's mm, faulting its page in if it must, with
 * mmap_lock and uemm->lock held.  The fault may not drop mmap_lock: a
 * userfaultfd range fails instead of waiting.
 */
static void user_event_word_sync(struct user_event_enabler *e, bool on)
{
	int tries;

	for (tries = 0; tries < USER_EVENT_FAULT_TRIES; tries++) {
		if (!user_event_word_write(e, on, true))
			return;
		if (fixup_user_fault(current->mm, e->waddr, FAULT_FLAG_WRITE,
				     NULL))
			break;
	}
	pr_debug_ratelimited("user_events: cannot write the word at %#lx\n",
			     e->word.addr);
}

/*
 * Whether the work may fault the word in.  A fault that reaches a
 * filesystem may wait however it is asked; a write fault on a mapped page
 * of a private file mapping only copies the page.
 */
static bool user_event_word_faultable(struct user_event_enabler *e)
{
	struct mm_struct *mm = e->uemm->mm;
	struct vm_area_struct *vma = vma_lookup(mm, e->waddr);
	struct page *page;

	if (!vma)
		return false;
	if (vma_is_anonymous(vma) || vma_is_shmem(vma))
		return true;
	if ((vma->vm_flags & VM_SHARED) ||
	    get_user_pages_remote(mm, e->waddr, 1, FOLL_NOFAULT, &page,
				  NULL) != 1)
		return false;
	put_page(page);
	return true;
}

/*
 * Fault the word in if that needs no waiting, outside bits->lock since the
 * fault may reclaim.  -EFAULT if the word can never be made writable.
 */
static int user_event_word_fault(struct user_event_enabler *e)
{
	struct page *page;
	long ret;

	if (!user_event_word_faultable(e))
		return 0;
	ret = pin_user_pages_remote(e->uemm->mm, e->waddr, 1,
				    FOLL_WRITE | FOLL_NOWAIT, &page, NULL);
	if (ret == 1) {
		unpin_user_page(page);
		return 0;
	}
	return !ret || ret == -ENOMEM ? -EAGAIN : -EFAULT;
}

/*
 * Write the pending words that need no waiting; true if some stay.  Each
 * leaves the list before its value is read, so that a toggle meanwhile
 * queues it again.  mmap_lock and uemm->lock held.
 */
static bool user_event_mm_write_pending(struct user_event_mm *uemm)
{
	struct user_event_enabler *e;
	unsigned int n = 0;
	bool left;
	int ret;

	spin_lock(&uemm->pending_lock);
	list_for_each_entry(e, &uemm->pending, pending_link)
		n++;
	spin_unlock(&uemm->pending_lock);

	while (n--) {
		spin_lock(&uemm->pending_lock);
		e = list_first_entry_or_null(&uemm->pending,
					     struct user_event_enabler,
					     pending_link);
		if (e)
			list_del_init(&e->pending_link);
		spin_unlock(&uemm->pending_lock);
		if (!e)
			break;

		ret = user_event_word_fault(e);
		/* Under the event's lock, like a toggle: never a stale value */
		if (!ret && mutex_trylock(&e->bits->lock)) {
			ret = user_event_word_write(e, e->bits->on, false);
			mutex_unlock(&e->bits->lock);
			/* The page went again (reclaim): later */
			if (ret == -EFAULT)
				ret = -EAGAIN;
		} else if (!ret) {
			ret = -EAGAIN;
		}
		if (ret == -EAGAIN) {
			spin_lock(&uemm->pending_lock);
			if (list_empty(&e->pending_link))
				list_add_tail(&e->pending_link,
					      &uemm->pending);
			spin_unlock(&uemm->pending_lock);
		} else if (ret) {
			pr_debug_ratelimited("user_events: cannot write the word at %#lx\n",
					     e->word.addr);
		}
	}

	spin_lock(&uemm->pending_lock);
	left = !list_empty(&uemm->pending);
	spin_unlock(&uemm->pending_lock);
	return left;
}

/* Back off up to a second; a pending word is never given up */
static void user_event_mm_retry(struct user_event_mm *uemm)
{
	unsigned int runs;

	spin_lock(&uemm->pending_lock);
	runs = uemm->runs++;
	spin_unlock(&uemm->pending_lock);

	queue_delayed_work(user_event_mm_wq, &uemm->work,
			   msecs_to_jiffies(min(1U << min(runs, 10U),
						USER_EVENT_WORK_MAX_MS)));
}

/* Write the words toggles left; whatever would wait is tried again later */
static void user_event_mm_work(struct work_struct *work)
{
	struct user_event_mm *uemm =
		container_of(to_delayed_work(work), struct user_event_mm, work);
	struct mm_struct *mm = uemm->mm;
	bool again = true;

	/*
	 * No reference on the mm's users: __mmput() cancels this work before
	 * exit_mmap(), and uemm->lock keeps the enablers and so their words.
	 */
	if (mmap_read_trylock(mm)) {
		if (mutex_trylock(&uemm->lock)) {
			again = user_event_mm_write_pending(uemm);
			mutex_unlock(&uemm->lock);
		}
		mmap_read_unlock(mm);
	}

	if (again)
		user_event_mm_retry(uemm);
}

/* Leave the enabler's word to its mm's work (user_event_mm_kick() runs it) */
static void user_event_enabler_defer(struct user_event_enabler *e)
{
	struct user_event_mm *uemm = e->uemm;

	spin_lock(&uemm->pending_lock);
	if (list_empty(&e->pending_link))
		list_add_tail(&e->pending_link, &uemm->pending);
	uemm->runs = 0;
	spin_unlock(&uemm->pending_lock);
}

static void user_event_mm_kick(struct user_event_mm *uemm)
{
	bool pending;

	spin_lock(&uemm->pending_lock);
	pending = !list_empty(&uemm->pending);
	spin_unlock(&uemm->pending_lock);
	if (pending)
		mod_delayed_work(user_event_mm_wq, &uemm->work, 0);
}

/* Write the bit now if no waiting is needed; false to leave it to the work */
static bool user_event_enabler_try(struct user_event_enabler *e, bool on)
{
	struct mm_struct *mm = e->uemm->mm;
	bool done = false;

	/*
	 * No reference on the mm's users: __mmput() unlinks the enabler under
	 * bits->lock, held here, before exit_mmap(); all writes hold it too.
	 */
	if (mmap_read_trylock(mm)) {
		done = !user_event_word_write(e, on, false);
		mmap_read_unlock(mm);
	}
	return done;
}

/**
 * user_event_bits_init - initialize the enable bits of a new event
 * @bits:	the event's bits
 * @gone:	where the last references of its gone registrations go,
 *		which must stay until the event is deleted
 */
void user_event_bits_init(struct user_event_bits *bits,
			  struct user_event_gone *gone)
{
	static atomic64_t seq;

	mutex_init(&bits->lock);
	INIT_LIST_HEAD(&bits->enablers);
	bits->on = false;
	bits->seq = atomic64_inc_return(&seq);
	bits->gone = gone;
}

/**
 * user_event_bits_set - set or clear every registered bit of an event
 * @bits:	the event's bits
 * @on:		whether anything is attached to the event
 *
 * Called with event_mutex held; a word that needs waiting is left to the work.
 */
void user_event_bits_set(struct user_event_bits *bits, bool on)
{
	struct user_event_mm *kicked = NULL;
	struct user_event_enabler *e;
	bool deferred = false;

	mutex_lock(&bits->lock);
	if (bits->on != on) {
		WRITE_ONCE(bits->on, on);
		/* Every process may have registered the event thousands of times */
		list_for_each_entry(e, &bits->enablers, event_link) {
			if (!user_event_enabler_try(e, on)) {
				user_event_enabler_defer(e);
				deferred = true;
			}
			cond_resched();
		}
		/*
		 * After the walk, or the work could find bits->lock taken.  A
		 * process's registrations of the event are mostly next to each
		 * other: its mm is kicked once for each run of them.
		 */
		if (deferred) {
			list_for_each_entry(e, &bits->enablers, event_link) {
				if (e->uemm != kicked)
					user_event_mm_kick(e->uemm);
				kicked = e->uemm;
				cond_resched();
			}
		}
	}
	mutex_unlock(&bits->lock);
}

static struct user_event_mm *user_event_mm_alloc(struct mm_struct *mm)
{
	struct user_event_mm *uemm;

	uemm = kzalloc(sizeof(*uemm), GFP_KERNEL_ACCOUNT);
	if (!uemm)
		return NULL;

	mutex_init(&uemm->lock);
	uemm->enablers = RB_ROOT;
	uemm->mm = mm;
	spin_lock_init(&uemm->pending_lock);
	INIT_LIST_HEAD(&uemm->pending);
	INIT_DELAYED_WORK(&uemm->work, user_event_mm_work);
	return uemm;
}

static struct user_event_mm *user_event_mm_current(bool create)
{
	struct mm_struct *mm = current->mm;
	struct user_event_mm *uemm, *old;

	if (!mm)
		return NULL;
	/* Pairs with the cmpxchg_release() below */
	uemm = smp_load_acquire(&mm->user_event_mm);
	if (uemm || !create)
		return uemm;

	uemm = user_event_mm_alloc(mm);
	if (!uemm)
		return NULL;
	old = cmpxchg_release(&mm->user_event_mm, NULL, uemm);
	if (old) {
		kfree(uemm);
		return old;
	}
	return uemm;
}

/* Take the enabler off its event; uemm->lock held */
static void user_event_enabler_unlink(struct user_event_enabler *e)
{
	struct user_event_mm *uemm = e->uemm;

	mutex_lock(&e->bits->lock);
	list_del(&e->event_link);
	/* No toggle queues @e any more; toggles queue without uemm->lock */
	spin_lock(&uemm->pending_lock);
	list_del_init(&e->pending_link);
	spin_unlock(&uemm->pending_lock);
	mutex_unlock(&e->bits->lock);
}

static void user_event_enabler_free(struct user_event_enabler *e)
{
	user_event_bits_put(e->bits);
	kmem_cache_free(user_event_enabler_cache, e);
}

/**
 * user_event_enabler_in_use - whether current's mm registered a word
 * @w:		the word and bit a DIAG_IOCSREG names
 *
 * Return: true if @w or its bit of memory is registered in current's mm.
 */
bool user_event_enabler_in_use(const struct user_event_word *w)
{
	struct user_event_mm *uemm = user_event_mm_current(false);
	bool used;

	if (!uemm)
		return false;
	mutex_lock(&uemm->lock);
	used = user_event_word_taken(uemm, w);
	mutex_unlock(&uemm->lock);
	return used;
}

/*
 * Link the new enabler into its mm and event, and write its bit under
 * bits->lock like every write.  mmap_lock and uemm->lock held.  The folio
 * lock may be waited for: under bits->lock it is only tried.
 */
static void user_event_enabler_link(struct user_event_enabler *e,
				    struct page *page)
{
	struct user_event_bits *bits = e->bits;
	struct folio *folio = page_folio(page);

	user_event_enabler_insert(e->uemm, e);
	user_event_bits_get(bits);
	folio_lock(folio);
	mutex_lock(&bits->lock);
	list_add_tail(&e->event_link, &bits->enablers);
	/* What the registration's publish made usable is seen before the bit */
	smp_mb__before_atomic();
	user_event_page_write(e, page, bits->on);
	mutex_unlock(&bits->lock);
	folio_unlock(folio);
}

/**
 * user_event_enabler_add - register a bit of current's memory for an event
 * @bits:	the event's bits
 * @w:		the word and bit (address untagged, size and bit checked)
 * @publish:	called with mmap_lock and the mm's lock held, once nothing
 *		else can fail, before the bit is written: what it makes
 *		usable is usable before the bit can be seen set.  Its error
 *		fails the registration.  It must not fault, and may take only
 *		locks that nest inside user_event_mm.lock and are not held
 *		around a toggle (the lock of a file's write indexes).
 * @arg:	its argument
 *
 * Return: 0, -EADDRINUSE if the bit is registered already, -EMFILE past
 * kernel.user_events_max_enablers, -EFAULT if the word cannot be made
 * writable, -ENOMEM, -EINTR, or what @publish returned.
 */
int user_event_enabler_add(struct user_event_bits *bits,
			   const struct user_event_word *w,
			   int (*publish)(void *arg), void *arg)
{
	struct user_event_enabler *e;
	struct user_event_mm *uemm;
	struct mm_struct *mm;
	struct page *page;
	bool unlocked;	/* the fault may drop and retake mmap_lock */
	int ret = 0, tries;

	uemm = user_event_mm_current(true);
	if (!uemm)
		return -ENOMEM;
	mm = uemm->mm;

	e = kmem_cache_zalloc(user_event_enabler_cache, GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	e->bits = bits;
	e->uemm = uemm;
	e->word = *w;
	user_event_word_locate(w, &e->waddr, &e->wbit);
	INIT_LIST_HEAD(&e->pending_link);

	/* Reclaim may take the page again between the fault and the pin */
	for (tries = 0; tries < USER_EVENT_FAULT_TRIES; tries++) {
		if (mmap_read_lock_killable(mm)) {
			ret = -EINTR;
			break;
		}
		unlocked = false;
		ret = fixup_user_fault(mm, e->waddr, FAULT_FLAG_WRITE,
				       &unlocked);
		if (ret) {
			mmap_read_unlock(mm);
			if (ret != -ENOMEM && ret != -EINTR)
				ret = -EFAULT;
			break;
		}

		if (mutex_lock_killable(&uemm->lock)) {
			mmap_read_unlock(mm);
			ret = -EINTR;
			break;
		}
		if (user_event_word_taken(uemm, w))
			ret = -EADDRINUSE;
		else if (uemm->count >= READ_ONCE(user_events_max_enablers))
			ret = -EMFILE;
		else if (pin_user_pages_remote(mm, e->waddr, 1,
					       FOLL_WRITE | FOLL_NOFAULT,
					       &page, NULL) != 1)
			ret = -EFAULT;
		if (!ret) {
			ret = publish(arg);
			if (!ret)
				user_event_enabler_link(e, page);
			unpin_user_page(page);
		}
		mutex_unlock(&uemm->lock);
		mmap_read_unlock(mm);
		if (ret != -EFAULT)
			break;
	}

	if (ret)
		kmem_cache_free(user_event_enabler_cache, e);
	return ret;
}

/**
 * user_event_enabler_remove - DIAG_IOCSUNREG of a bit of current's memory
 * @addr:	disable_addr (untagged)
 * @bit:	disable_bit
 *
 * Return: 0, or -ENOENT if the caller's mm has no such registration.
 */
int user_event_enabler_remove(unsigned long addr, u8 bit)
{
	struct user_event_mm *uemm = user_event_mm_current(false);
	struct user_event_enabler *e;

	if (!uemm)
		return -ENOENT;

	mmap_read_lock(uemm->mm);
	mutex_lock(&uemm->lock);
	e = user_event_enabler_named(uemm, addr, bit);
	if (e) {
		rb_erase(&e->node, &uemm->enablers);
		uemm->count--;
		user_event_enabler_unlink(e);
		user_event_word_sync(e, false);
	}
	mutex_unlock(&uemm->lock);
	mmap_read_unlock(uemm->mm);

	if (!e)
		return -ENOENT;
	user_event_enabler_free(e);
	return 0;
}

static struct vm_area_struct *user_event_fork_vma(struct mm_struct *oldmm,
						  struct vm_area_struct *vma,
						  unsigned long addr)
{
	if (vma && addr >= vma->vm_start && addr < vma->vm_end)
		return vma;
	return vma_lookup(oldmm, addr);
}

/* Enablers a fork allocates, and an exit frees, at once */
#define USER_EVENT_FORK_BATCH	32

struct user_event_fork {
	struct mm_struct	*oldmm;
	struct user_event_mm	*uemm;
	struct vm_area_struct	*vma;	/* of the last word copied */
	struct rb_node		*last;	/* its copy: the child's rightmost */
	void			*batch[USER_EVENT_FORK_BATCH];
	unsigned int		nr;	/* allocated in @batch */
	unsigned int		used;	/* of them */
	unsigned int		left;	/* enablers not looked at yet */
	bool			pending; /* a copy was left to the work */
	int			ret;
};

/* Refill f->batch; false (f->ret set) if no enabler could be had */
static bool user_event_fork_refill(struct user_event_fork *f)
{
	f->nr = kmem_cache_alloc_bulk(user_event_enabler_cache,
				      GFP_KERNEL_ACCOUNT,
				      min_t(unsigned int, f->left,
					    ARRAY_SIZE(f->batch)),
				      f->batch);
	f->used = 0;
	if (!f->nr)
		f->ret = -ENOMEM;
	return f->nr;
}

/* Register @e's word in the child; false (f->ret set) if out of memory */
static bool user_event_fork_copy(struct user_event_fork *f,
				 struct user_event_enabler *e)
{
	struct user_event_mm *uemm = f->uemm;
	struct user_event_enabler *copy;
	struct vm_area_struct *vma;

	vma = user_event_fork_vma(f->oldmm, f->vma, e->waddr);
	f->vma = vma;
	if (!vma || (vma->vm_flags & VM_DONTCOPY))
		return true;

	if (f->used == f->nr && !user_event_fork_refill(f))
		return false;
	copy = f->batch[f->used++];
	copy->bits = e->bits;
	copy->word = e->word;
	copy->waddr = e->waddr;
	copy->wbit = e->wbit;
	copy->uemm = uemm;
	INIT_LIST_HEAD(&copy->pending_link);
	/* The parent's tree is walked in order: each copy is the largest yet */
	rb_link_node(&copy->node, f->last,
		     f->last ? &f->last->rb_right : &uemm->enablers.rb_node);
	rb_insert_color(&copy->node, &uemm->enablers);
	f->last = &copy->node;
	uemm->count++;

	/* @e holds a reference on the event: this is not the first */
	user_event_bits_get(copy->bits);
	mutex_lock(&e->bits->lock);
	list_add_tail(&copy->event_link, &e->bits->enablers);
	/*
	 * No pending_lock needed to read: @e is queued and dequeued only under
	 * bits->lock or the parent's uemm->lock, and both are held here.
	 */
	if (data_race(!list_empty(&e->pending_link)) ||
	    (vma->vm_flags & VM_WIPEONFORK)) {
		spin_lock(&uemm->pending_lock);
		list_add_tail(&copy->pending_link, &uemm->pending);
		spin_unlock(&uemm->pending_lock);
		f->pending = true;
	}
	mutex_unlock(&e->bits->lock);
	return true;
}

/**
 * __user_events_fork - copy the registrations of a forking process
 * @mm:		the child's new mm, its memory copied
 * @oldmm:	the parent's mm, which has registrations
 *
 * Called by dup_mmap() with both mms' mmap_lock held for writing, so each
 * child's word starts as its registration says.  A word left to @oldmm's
 * work, or wiped in the child, goes to the child's work; one the child did
 * not get (MADV_DONTFORK) is not registered there.
 *
 * Return: 0, or -ENOMEM: the fork then fails, and __mmput() of @mm drops
 * the copies made so far.
 */
int __user_events_fork(struct mm_struct *mm, struct mm_struct *oldmm)
{
	struct user_event_mm *old = READ_ONCE(oldmm->user_event_mm);
	struct user_event_fork f = {
		.oldmm = oldmm,
	};
	struct rb_node *n;

	mutex_lock(&old->lock);
	if (!old->count)
		goto out;

	f.uemm = user_event_mm_alloc(mm);
	if (!f.uemm) {
		f.ret = -ENOMEM;
		goto out;
	}
	mm->user_event_mm = f.uemm;
	f.left = old->count;
	/* In address order: the VMA of the last word is likely the next's */
	for (n = rb_first(&old->enablers); n; n = rb_next(n), f.left--)
		if (!user_event_fork_copy(&f, rb_entry(n, struct user_event_enabler,
						       node)))
			break;

	/* It finds the mmap_lock the fork holds taken, and comes back */
	if (f.pending)
		queue_delayed_work(user_event_mm_wq, &f.uemm->work, 0);
out:
	mutex_unlock(&old->lock);
	if (f.used < f.nr)
		kmem_cache_free_bulk(user_event_enabler_cache, f.nr - f.used,
				     f.batch + f.used);
	return f.ret;
}

static int user_event_newest_first(void *priv, const struct list_head *a,
				   const struct list_head *b)
{
	const struct user_event_enabler *ea, *eb;

	ea = list_entry(a, struct user_event_enabler, event_link);
	eb = list_entry(b, struct user_event_enabler, event_link);
	return ea->bits->seq < eb->bits->seq;
}

/*
 * Newest event first: the trace core looks for a deleted event's file in
 * newest-first lists, so dropping many events takes linear time.  Each
 * deletion takes the trace core's locks: reschedule between them.  What
 * it drops may be the last event that keeps @gone, so nothing of @gone is
 * touched after the first of them.
 */
static void user_event_gone_work(struct work_struct *work)
{
	struct user_event_gone *gone =
		container_of(work, struct user_event_gone, work);
	struct user_event_enabler *e, *tmp;
	LIST_HEAD(list);

	spin_lock(&gone->lock);
	list_splice_init(&gone->enablers, &list);
	spin_unlock(&gone->lock);

	list_sort(NULL, &list, user_event_newest_first);
	list_for_each_entry_safe(e, tmp, &list, event_link) {
		user_event_enabler_free(e);
		cond_resched();
	}
}

/**
 * user_event_gone_init - initialize where gone registrations go
 * @gone:	for the events whose registrants' exits are waited for together
 */
void user_event_gone_init(struct user_event_gone *gone)
{
	spin_lock_init(&gone->lock);
	INIT_LIST_HEAD(&gone->enablers);
	INIT_WORK(&gone->work, user_event_gone_work);
}

/**
 * user_event_mm_flush - finish dropping the gone registrations of @gone
 * @gone:	kept by the caller
 *
 * __mmput() leaves events' last references to @gone's work: this waits for
 * it, so that the exit of a registrant of @gone's events is complete unless
 * another process held its mm.  Exits of registrants of other events are
 * not waited for.  Must not be called with event_mutex held.
 */
void user_event_mm_flush(struct user_event_gone *gone)
{
	flush_work(&gone->work);
}

/*
 * Queued only by the enabler that makes the list non-empty, under its
 * lock: every run of the work then finds at least one enabler, whose
 * reference keeps @gone until the run is done with it.  A run queued for
 * each enabler could find the list taken by the run before it and start
 * after @gone went.
 */
static void user_event_gone_add(struct user_event_enabler *e)
{
	struct user_event_gone *gone = e->bits->gone;
	bool first;

	spin_lock(&gone->lock);
	first = list_empty(&gone->enablers);
	list_add(&e->event_link, &gone->enablers);
	/* Unbound: a run may delete thousands of events */
	if (first)
		queue_work(user_event_mm_wq, &gone->work);
	spin_unlock(&gone->lock);
}

/**
 * __user_events_mm_exit - drop the registrations of an mm that goes
 * @mm:		the mm, in __mmput(): its memory goes, so nothing is written
 */
void __user_events_mm_exit(struct mm_struct *mm)
{
	struct user_event_mm *uemm = mm->user_event_mm;
	struct user_event_enabler *e, *tmp;
	void *batch[USER_EVENT_FORK_BATCH];
	unsigned int nr = 0;

	mm->user_event_mm = NULL;

	/*
	 * Off its event and the pending list, which the work reads under
	 * uemm->lock, an enabler goes at once unless it holds a last reference.
	 *
	 * An event's last reference deletes it under event_mutex and the trace
	 * core's locks, and __mmput() may run with any of them held: uprobes
	 * drop mms under event_mutex, a reader printing a user stack under
	 * trace_event_sem.  So none is even tried here: the enabler goes to
	 * its event's user_event_gone, whose work drops it.
	 */
	mutex_lock(&uemm->lock);
	rbtree_postorder_for_each_entry_safe(e, tmp, &uemm->enablers, node) {
		user_event_enabler_unlink(e);
		if (!user_event_bits_put_unless_last(e->bits)) {
			user_event_gone_add(e);
			continue;
		}
		batch[nr++] = e;
		if (nr == ARRAY_SIZE(batch)) {
			kmem_cache_free_bulk(user_event_enabler_cache, nr, batch);
			nr = 0;
		}
	}
	uemm->enablers = RB_ROOT;
	mutex_unlock(&uemm->lock);
	if (nr)
		kmem_cache_free_bulk(user_event_enabler_cache, nr, batch);
	/* No toggle can reach the mm now; its work may still be running */
	cancel_delayed_work_sync(&uemm->work);
	kfree(uemm);
}

static struct ctl_table user_event_mm_sysctls[] = {
	{
		.procname	= "user_events_max_enablers",
		.data		= &user_events_max_enablers,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
};

/**
 * user_event_mm_init - set up the per-mm registrations
 *
 * Return: 0, or -ENOMEM.
 */
int __init user_event_mm_init(void)
{
	user_event_enabler_cache = KMEM_CACHE(user_event_enabler, SLAB_ACCOUNT);
	user_event_mm_wq = alloc_workqueue("user_events_mm", WQ_UNBOUND, 0);
	if (!user_event_enabler_cache || !user_event_mm_wq) {
		kmem_cache_destroy(user_event_enabler_cache);
		if (user_event_mm_wq)
			destroy_workqueue(user_event_mm_wq);
		return -ENOMEM;
	}
	register_sysctl_init("kernel", user_event_mm_sysctls);
	return 0;
}
