// SPDX-License-Identifier: GPL-2.0
/*
 * The races and limits of the registrations of an address space: the bit
 * is never set before the write index works, even while the word's folio
 * is locked or the mm's work is busy; the per-mm limit
 * user_events_max_enablers; memory cgroup charging; DIAG_IOCSUNREG and
 * DIAG_IOCSREG racing fork(); and one memory bit, one registration,
 * whatever the word size.
 */
#include <errno.h>
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_status.h"
#include "mm_common.h"

#define TIMEOUT		600

#define ENABLERS_SYSCTL	"/proc/sys/kernel/user_events_max_enablers"
#define ENABLERS_DEFAULT 65536

static inline __u64 ld_u64(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static __u64 settled64(const __u64 *word, __u64 want)
{
	long long end = ue_now_ms() + ASYNC_MS;

	while (ld_u64(word) != want && ue_now_ms() <= end)
		usleep(1000);
	return ld_u64(word);
}

/* Is @word one of the whitespace separated words of @text? */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = text; p && (p = strstr(p, word)); p += n) {
		if ((p == text || isspace((unsigned char)p[-1])) &&
		    (!p[n] || isspace((unsigned char)p[n])))
			return true;
	}
	return false;
}

/* --- fixture ----------------------------------------------------------- */

/* Shared with the teardown, which runs in the harness's process */
FIXTURE(mm) {
	char ev[EV_SIZE], cmd[CMD_SIZE];	/* the main event */
	char ev2[EV_SIZE], cmd2[CMD_SIZE];	/* a second one */
	long saved_enablers;		/* to restore, or -1 */
	char cg_dir[128];
	bool cg_mounted;
	bool cg_memory_added;
};

FIXTURE_SETUP(mm)
{
	const char *reason = ue_setup();
	long v;

	self->saved_enablers = -1;
	if (reason)
		SKIP(return, "%s", reason);

	/* An earlier run killed while the limit was lowered */
	if (!ue_read_long(ENABLERS_SYSCTL, &v) && v < 1024) {
		TH_LOG("user_events_max_enablers was %ld, restoring %d", v,
		       ENABLERS_DEFAULT);
		ue_write_long(ENABLERS_SYSCTL, ENABLERS_DEFAULT);
	}
	ASSERT_EQ(0, setup_events(self->ev, self->cmd, self->ev2, self->cmd2));
}

/*
 * In the harness's process, once the test process is gone: its
 * registrations went with its memory and its children (ue_fork()) were
 * killed with it.
 */
FIXTURE_TEARDOWN_PARENT(mm)
{
	long long end = ue_now_ms() + 3000;

	while (self->cg_dir[0] && rmdir(self->cg_dir) && errno == EBUSY &&
	       ue_now_ms() < end)
		usleep(10000);
	if (self->cg_memory_added)
		ue_write_str("/sys/fs/cgroup/cgroup.subtree_control",
			     "-memory");
	if (self->cg_mounted)
		umount2("/sys/fs/cgroup", MNT_DETACH);
	if (self->saved_enablers >= 0)
		ue_write_long(ENABLERS_SYSCTL, self->saved_enablers);
	if (!ue_setup()) {
		cleanup_event(self->ev);
		cleanup_event(self->ev2);
	}
}

/* --- 1: the bit is never set before the write index works -------------- */

#define NR_RACE		2000

struct race {
	pthread_barrier_t start, done;
	__u32 word;
	int fd;
	int stop;
	ssize_t ret;	/* of the writer's write, or -errno */
};

/* Thread B: spin on the bit, write index 0 as soon as it is set */
static void *race_writer_fn(void *arg)
{
	struct race *r = arg;
	__u32 n = 0x5a5a;
	long long end;
	long spins;

	for (;;) {
		pthread_barrier_wait(&r->start);
		if (ld_int(&r->stop))
			break;
		end = ue_now_ms() + 2000;
		spins = 0;
		while (!(ld_u32(&r->word) & 1)) {
			if (!(++spins & 4095) && ue_now_ms() > end)
				break;
		}
		if (ld_u32(&r->word) & 1)
			r->ret = ue_emit(r->fd, 0, &n, sizeof(n));
		else
			r->ret = -ETIMEDOUT;
		pthread_barrier_wait(&r->done);
	}
	return NULL;
}

#define FOLIO_ROUNDS	4000

struct folio_writer {
	int fd;
	int stop;
};

/* Keeps writing into the word's page through the file: its folio locked */
static void *folio_writer_fn(void *arg)
{
	struct folio_writer *fw = arg;
	char buf[3000];

	memset(buf, 'x', sizeof(buf));
	while (!ld_int(&fw->stop))
		if (pwrite(fw->fd, buf, sizeof(buf), 512) < 0)
			break;
	return NULL;
}

/*
 * DIAG_IOCSREG of an enabled event writes the bit before it returns, even
 * while another thread keeps the page's folio locked now and then (write()
 * into the same memfd page): the registration waits for the folio lock
 * rather than leaving the word to the mm's work.
 */
TEST_F_TIMEOUT(mm, reg_bit_set_while_folio_locked, TIMEOUT)
{
	struct folio_writer fw = { 0 };
	int r, late = 0, fd = ue_open();
	__u32 *word;
	pthread_t t;

	ASSERT_LE(0, fd);
	fw.fd = memfd_create("ue_folio", 0);
	ASSERT_LE(0, fw.fd);
	ASSERT_EQ(0, ftruncate(fw.fd, page_size));
	word = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fw.fd, 0);
	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, reg_p(fd, self->cmd, word, 4, 0, NULL));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	ASSERT_EQ(1, ld_u32(word) & 1);
	ASSERT_EQ(0, ue_unreg_own(word, 0));

	ASSERT_EQ(0, pthread_create(&t, NULL, folio_writer_fn, &fw));
	for (r = 0; r < FOLIO_ROUNDS; r++) {
		__atomic_store_n(word, 0, __ATOMIC_RELAXED);
		if (reg_p(fd, self->cmd, word, 4, 0, NULL))
			break;
		if (!(ld_u32(word) & 1))
			late++;
		if (ue_unreg_own(word, 0))
			break;
	}
	st_int(&fw.stop, 1);
	pthread_join(t, NULL);
	EXPECT_EQ(FOLIO_ROUNDS, r);
	EXPECT_EQ(0, late)
		TH_LOG("%d of %d registrations returned with the bit clear",
		       late, r);

	ASSERT_EQ(0, ue_enable(self->ev, false));
	munmap(word, page_size);
	close(fw.fd);
	close(fd);
}

#define BUSY_PAGES	1024
#define BUSY_ROUNDS	40

/*
 * A toggle writes every mapped, writable word before it returns, even
 * while the process's work item is busy writing the words that earlier
 * toggles could not (abi.md): here BUSY_PAGES words of the second event
 * sit on pages that MADV_DONTNEED takes away before each toggle, so that
 * each toggle of it leaves them all to the work, which faults them in
 * again while the first event is toggled.  Its word, on a page that
 * stays, must read the new value the moment the toggle returns.
 */
TEST_F_TIMEOUT(mm, toggle_while_work_busy, TIMEOUT)
{
	size_t len = BUSY_PAGES * page_size, i;
	__u32 *word = shared_page();
	int r, late = 0;
	char *busy;

	ASSERT_NE(NULL, word);
	busy = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, busy);
	for (i = 0; i < BUSY_PAGES; i++)
		ASSERT_EQ(0, reg_closed(self->cmd2, busy + i * page_size, 4, 0));
	ASSERT_EQ(0, reg_closed(self->cmd, word, 4, 0));

	for (r = 0; r < BUSY_ROUNDS; r++) {
		ASSERT_EQ(0, madvise(busy, len, MADV_DONTNEED));
		ASSERT_EQ(0, ue_enable(self->ev2, !(r & 1)));
		ASSERT_EQ(0, ue_enable(self->ev, !(r & 1)));
		if (ld_u32(word) != (__u32)!(r & 1))
			late++;
	}
	EXPECT_EQ(0, late)
		TH_LOG("%d of %d toggles returned before writing a mapped word",
		       late, BUSY_ROUNDS);

	ASSERT_EQ(0, ue_enable(self->ev, false));
	ASSERT_EQ(0, ue_enable(self->ev2, false));
	EXPECT_EQ(0, ue_unreg_own(word, 0));
	for (i = 0; i < BUSY_PAGES; i++)
		EXPECT_EQ(0, ue_unreg_own(busy + i * page_size, 0));
	munmap(busy, len);
	munmap(word, page_size);
}

/*
 * The event is enabled (ftrace) first; then, 2000 times, on a fresh file,
 * thread A registers while thread B spins on the enable bit and writes
 * index 0 (what the first registration of a file always gets) the moment
 * the bit is set.  Every write succeeds (never ENOENT: the bit is set only
 * once the index works), every index is 0, the trace has every record.
 */
TEST_F_TIMEOUT(mm, bit_never_before_index, TIMEOUT)
{
	static struct race r;
	int i, fd, idx, ret, bad_writes = 0, bad_regs = 0, dirty = 0;
	int first_bad = 0, last_idx = -1;
	ssize_t first_ret = 0;
	long long t0;
	char *trace = NULL;
	pthread_t th;

	memset(&r, 0, sizeof(r));
	/* The event, persistent; the file closed only after the UNREG */
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, reg_p(fd, self->cmd, &r.word, 4, 0, NULL));
	ASSERT_EQ(0, ue_unreg(fd, &r.word, 0));
	close(fd);
	ASSERT_EQ(0, ue_enable(self->ev, true));
	ASSERT_EQ(0, r.word);

	ASSERT_EQ(0, pthread_barrier_init(&r.start, NULL, 2));
	ASSERT_EQ(0, pthread_barrier_init(&r.done, NULL, 2));
	ASSERT_EQ(0, pthread_create(&th, NULL, race_writer_fn, &r));
	t0 = ue_now_ms();
	for (i = 0; i < NR_RACE; i++) {
		fd = ue_open();
		if (fd < 0)
			break;
		r.fd = fd;
		if (ld_u32(&r.word))
			dirty++;
		idx = -1;
		pthread_barrier_wait(&r.start);
		ret = reg_p(fd, self->cmd, &r.word, 4, 0, &idx);
		pthread_barrier_wait(&r.done);
		last_idx = idx;
		if (ret || idx != 0)
			bad_regs++;
		if (r.ret != (ssize_t)(sizeof(int) + sizeof(__u32))) {
			if (!bad_writes++) {
				first_bad = i;
				first_ret = r.ret;
			}
		}
		if (!ret && ue_unreg(fd, &r.word, 0))
			bad_regs++;
		close(fd);
		if (ret)
			break;
	}
	st_int(&r.stop, 1);
	pthread_barrier_wait(&r.start);
	pthread_join(th, NULL);
	TH_LOG("%d rounds in %lld ms", i, ue_now_ms() - t0);

	EXPECT_EQ(NR_RACE, i);
	EXPECT_EQ(0, bad_regs);
	EXPECT_EQ(0, last_idx);
	EXPECT_EQ(0, dirty);
	EXPECT_EQ(0, bad_writes)
		TH_LOG("first failed write in round %d: %zd (%s)", first_bad,
		       first_ret, strerror(first_ret < 0 ? -first_ret : 0));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(i - bad_writes, ue_trace_count(ue_trace_read(&trace),
						 self->ev));
	free(trace);
	pthread_barrier_destroy(&r.start);
	pthread_barrier_destroy(&r.done);
	EXPECT_EQ(0, ue_del(self->ev));
}

/* --- 2: the per-mm limit ----------------------------------------------- */

#define NR_LIMIT	8

/*
 * kernel.user_events_max_enablers limits the registrations of one address
 * space (0644, so writing it needs root): with 8, eight bits of two events
 * register, the ninth is EMFILE (from any file) with "Too many
 * registrations" in error_log; after one UNREG a new one works; a forked
 * child of the process at the limit has all eight (they follow the event,
 * it is at the limit too, it can UNREG each).
 */
TEST_F_TIMEOUT(mm, per_mm_limit, TIMEOUT)
{
	static __u32 word;
	const __u32 all = 0x17f;	/* bits 0-6 and 8 */
	int fd, fd2, i, status = 0;
	struct chan c;
	struct stat st;
	char *log;
	pid_t pid;
	long v;

	word = 0;
	ASSERT_EQ(0, stat(ENABLERS_SYSCTL, &st))
		TH_LOG("no %s: no per-mm limit in this kernel",
		       ENABLERS_SYSCTL);
	EXPECT_EQ(0644, st.st_mode & 0777);
	ASSERT_EQ(0, ue_read_long(ENABLERS_SYSCTL, &v));
	self->saved_enablers = v;
	ASSERT_EQ(0, ue_write_long(ENABLERS_SYSCTL, NR_LIMIT));
	ASSERT_EQ(0, ue_read_long(ENABLERS_SYSCTL, &v));
	ASSERT_EQ(NR_LIMIT, v);

	fd = ue_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < NR_LIMIT; i++)
		ASSERT_EQ(0, reg_p(fd, i < 4 ? self->cmd : self->cmd2, &word,
				   4, i, NULL)) TH_LOG("bit %d", i);
	ASSERT_EQ(0, ue_errlog_clear());
	EXPECT_EQ(-EMFILE, reg_p(fd, self->cmd, &word, 4, 8, NULL));
	log = ue_read_tracefs("error_log");
	ASSERT_NE(NULL, log);
	EXPECT_NE(NULL, strstr(log, "Too many registrations"))
		TH_LOG("error_log: %s", log);
	free(log);
	fd2 = ue_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EMFILE, reg_p(fd2, self->cmd2, &word, 4, 9, NULL));
	close(fd2);

	/* One UNREG makes room for one more */
	EXPECT_EQ(0, ue_unreg(fd, &word, 7));
	EXPECT_EQ(0, reg_p(fd, self->cmd, &word, 4, 8, NULL));
	EXPECT_EQ(-EMFILE, reg_p(fd, self->cmd, &word, 4, 7, NULL));
	close(fd);
	EXPECT_EQ(-EMFILE, reg_closed(self->cmd, &word, 4, 7));

	/* A child of the process at the limit has all of them */
	ASSERT_EQ(0, ue_enable(self->ev, true));
	ASSERT_EQ(0, ue_enable(self->ev2, true));
	EXPECT_EQ(all, ld_u32(&word));
	pid = fork_peer(&c, &word, self->cmd);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, ue_enable(self->ev, false));
	ASSERT_EQ(0, ue_enable(self->ev2, false));
	EXPECT_EQ(0, settled(&word, 0));
	EXPECT_EQ(0, peer_word(&c, 0));
	ASSERT_EQ(0, ue_enable(self->ev2, true));
	EXPECT_EQ(0x70, peer_word(&c, 0x70));
	ASSERT_EQ(0, ue_enable(self->ev2, false));
	EXPECT_EQ(-EMFILE, peer_result(&c, PEER_REG, 7));
	for (i = 0; i <= NR_LIMIT; i++) {
		if (i != 7)
			EXPECT_EQ(0, peer_result(&c, PEER_UNREG, i))
				TH_LOG("child's bit %d", i);
	}
	EXPECT_EQ(0, peer_result(&c, PEER_REG, 7));
	EXPECT_EQ(0, peer_result(&c, PEER_UNREG, 7));
	EXPECT_EQ(0, peer_call(&c, PEER_QUIT, 0, NULL));
	ASSERT_EQ(0, ue_wait_child(pid, WAIT_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	chan_close(&c, false);

	/* The parent is still at the limit */
	EXPECT_EQ(-EMFILE, reg_closed(self->cmd, &word, 4, 7));
	for (i = 0; i <= NR_LIMIT; i++) {
		if (i != 7)
			EXPECT_EQ(0, ue_unreg_own(&word, i)) TH_LOG("bit %d", i);
	}
	EXPECT_EQ(0, ue_write_long(ENABLERS_SYSCTL, self->saved_enablers));
	EXPECT_EQ(0, ue_read_long(ENABLERS_SYSCTL, &v));
	EXPECT_EQ(self->saved_enablers, v);
	EXPECT_EQ(0, ue_del(self->ev));
	EXPECT_EQ(0, ue_del(self->ev2));
}

/* --- 3: registrations are charged to the memory cgroup ----------------- */

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_HEADROOM	(1024 * 1024)
#define CG_ENABLERS	1048576		/* the limit raised out of the way */
#define CG_CAP		65536		/* registrations the child tries at most */

struct cg_shared {
	int done;	/* the child stopped registering */
	int nr;		/* registrations that worked */
	int err;	/* errno of the one that failed, 0 at CG_CAP */
	int cmd;	/* 1: check all bits set, 2: all clear, 3: exit */
	int ack;
	int bad;	/* words that were wrong at the last check */
};

/* Count the words of @w whose bits disagree with @nr set bits or none */
static int cg_check(const __u64 *w, int nr, bool set)
{
	int i, bad = 0, full = nr / 64, rest = nr % 64;
	__u64 v, want;

	for (i = 0; i < CG_CAP / 64; i++) {
		v = ld_u64(&w[i]);
		if (!set)
			want = 0;
		else if (i < full)
			want = ~0ULL;
		else if (i == full && rest)
			want = (1ULL << rest) - 1;
		else
			want = 0;
		if (v != want)
			bad++;
	}
	return bad;
}

/*
 * The child in the small memory cgroup: everything it needs is present
 * and its own (mlockall() populates and breaks copy-on-write) before the
 * parent moves it, because user memory counts too and a user page fault
 * over the limit would only be retried; it cannot be chosen by the OOM
 * killer; then it registers distinct bits until one fails.
 */
static int cg_child(struct cg_shared *sh, struct chan *c, const char *cmd)
{
	size_t size = CG_CAP / 8;
	int fd, i, ret = 0, last;
	long long end;
	__u64 *w;
	char b;

	fd = ue_open();
	w = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (fd < 0 || w == MAP_FAILED)
		return 60;
	memset(w, 0, size);
	sh->ack = 0;
	if (mlockall(MCL_CURRENT))
		return 63;
	if (ue_write_str("/proc/self/oom_score_adj", "-1000\n"))
		return 61;
	b = 'R';
	if (send_all(c->to_parent[1], &b, 1) ||
	    recv_all(c->to_child[0], &b, 1, 60000))
		return 62;

	for (i = 0; i < CG_CAP; i++) {
		ret = reg_p(fd, cmd, &w[i / 64], 8, i % 64, NULL);
		if (ret)
			break;
	}
	sh->nr = i;
	sh->err = -ret;
	st_int(&sh->done, 1);

	/* Answer the parent's checks; nothing here allocates */
	last = 0;
	for (;;) {
		int cmd_now = ld_int(&sh->cmd);

		if (cmd_now == 3)
			return 0;
		if (cmd_now != last) {
			/* A word may be updated a moment later */
			end = ue_now_ms() + ASYNC_MS;
			do {
				sh->bad = cg_check(w, sh->nr, cmd_now == 1);
			} while (sh->bad && ue_now_ms() < end);
			st_int(&sh->ack, cmd_now);
			last = cmd_now;
		}
		usleep(1000);
	}
}

/*
 * Registrations are charged to the registrant's memory cgroup: a child in
 * a cgroup with 1 MiB of memory.max above its usage registers distinct
 * bits (user_events_max_enablers raised out of the way) until that fails,
 * with ENOMEM (or EMFILE), never a crash; the bits it got follow the event;
 * once it exited the event can be deleted (EBUSY does not persist).
 */
TEST_F_TIMEOUT(mm, memcg_charged, TIMEOUT)
{
	static __u32 word;
	char path[256], val[32];
	struct cg_shared *sh;
	long cur = 0, v;
	int status = 0, tries;
	struct chan c;
	char *text, b;
	pid_t pid;

	if (!ue_exists(CG_ROOT "/cgroup.controllers")) {
		if (mount("none", CG_ROOT, "cgroup2", 0, NULL))
			SKIP(return, "cgroup2 cannot be mounted: %s",
			     strerror(errno));
		self->cg_mounted = true;
	}
	text = ue_read_file(CG_ROOT "/cgroup.controllers");
	if (!text || !has_word(text, "memory")) {
		free(text);
		SKIP(return, "no memory controller (CONFIG_MEMCG?)");
	}
	free(text);
	text = ue_read_file(CG_ROOT "/cgroup.subtree_control");
	if (!text || !has_word(text, "memory")) {
		if (ue_write_str(CG_ROOT "/cgroup.subtree_control",
				 "+memory")) {
			free(text);
			SKIP(return, "cannot enable the memory controller");
		}
		self->cg_memory_added = true;
	}
	free(text);
	snprintf(self->cg_dir, sizeof(self->cg_dir), CG_ROOT "/mm_race_test_%d",
		 getpid());
	ASSERT_EQ(0, mkdir(self->cg_dir, 0755));

	if (!ue_read_long(ENABLERS_SYSCTL, &v)) {
		self->saved_enablers = v;
		ASSERT_EQ(0, ue_write_long(ENABLERS_SYSCTL, CG_ENABLERS));
	} else {
		TH_LOG("no %s", ENABLERS_SYSCTL);
	}

	/* The event exists before the child comes */
	ASSERT_EQ(0, reg_closed(self->cmd, &word, 4, 0));
	ASSERT_EQ(0, ue_unreg_own(&word, 0));
	sh = shared_page();
	ASSERT_NE(NULL, sh);
	ASSERT_EQ(0, chan_open(&c));
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		chan_side(&c, true);
		_exit(cg_child(sh, &c, self->cmd));
	}
	chan_side(&c, false);
	ASSERT_EQ(0, recv_all(c.to_parent[0], &b, 1, WAIT_MS * 3));

	snprintf(path, sizeof(path), "%s/cgroup.procs", self->cg_dir);
	snprintf(val, sizeof(val), "%d\n", pid);
	ASSERT_EQ(0, ue_write_str(path, val));
	snprintf(path, sizeof(path), "%s/memory.current", self->cg_dir);
	ASSERT_EQ(0, ue_read_long(path, &cur));
	snprintf(path, sizeof(path), "%s/memory.max", self->cg_dir);
	ASSERT_EQ(0, ue_write_long(path, cur + CG_HEADROOM));
	TH_LOG("memory.current %ld, memory.max %ld", cur, cur + CG_HEADROOM);
	b = 'G';
	ASSERT_EQ(0, send_all(c.to_child[1], &b, 1));

	ASSERT_TRUE(wait_int(&sh->done, 1, (TIMEOUT - 60) * 1000));
	TH_LOG("%d registrations, then %s", sh->nr,
	       sh->err ? strerror(sh->err) : "the test's own cap");
	EXPECT_LT(0, sh->nr);
	EXPECT_TRUE(sh->err == ENOMEM || sh->err == EMFILE)
		TH_LOG("errno %d after %d registrations", sh->err, sh->nr);

	/* The registrations it got work */
	ASSERT_EQ(0, ue_enable(self->ev, true));
	st_int(&sh->cmd, 1);
	EXPECT_TRUE(wait_int(&sh->ack, 1, WAIT_MS));
	EXPECT_EQ(0, sh->bad);
	ASSERT_EQ(0, ue_enable(self->ev, false));
	st_int(&sh->cmd, 2);
	EXPECT_TRUE(wait_int(&sh->ack, 2, WAIT_MS));
	EXPECT_EQ(0, sh->bad);
	EXPECT_EQ(-EBUSY, ue_del(self->ev));
	st_int(&sh->cmd, 3);
	ASSERT_EQ(0, ue_wait_child(pid, WAIT_MS * 3, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	chan_close(&c, false);
	EXPECT_EQ(0, del_retry(self->ev, WAIT_MS, &tries))
		TH_LOG("DEL after the child's exit: %d tries", tries);
	EXPECT_EQ(0, rmdir(self->cg_dir));
	self->cg_dir[0] = '\0';
}

/* --- 4: UNREG/REG racing fork() ---------------------------------------- */

#define CHURN_MS	4000
#define CHURN_BITS	16
#define NR_CHURN	2

struct churn {
	const char *cmd, *ev;
	int stop;
	__u64 words[NR_CHURN];
	long ops[NR_CHURN];
	int err[NR_CHURN];
	long forks, toggles;
	int fork_err, toggle_err;
};

struct churn_arg {
	struct churn *ch;
	int n;
};

/* UNREG and REG the thread's bits in turn; a new file now and then */
static void *churn_reg_fn(void *arg)
{
	struct churn_arg *a = arg;
	struct churn *ch = a->ch;
	__u64 *w = &ch->words[a->n];
	int fd = ue_open(), bit, ret;
	long i;

	for (i = 0; fd >= 0 && !ld_int(&ch->stop); i++) {
		bit = i % CHURN_BITS;
		ret = ue_unreg(fd, w, bit);
		if (!ret)
			ret = reg_p(fd, ch->cmd, w, 8, bit, NULL);
		if (ret) {
			ch->err[a->n] = ret;
			break;
		}
		if (i % 64 == 63) {
			close(fd);
			fd = ue_open();
		}
	}
	if (fd < 0)
		ch->err[a->n] = fd;
	else
		close(fd);
	ch->ops[a->n] = i;
	return NULL;
}

static void *churn_fork_fn(void *arg)
{
	struct churn *ch = arg;
	pid_t pid;

	while (!ld_int(&ch->stop)) {
		pid = fork();
		if (pid < 0) {
			ch->fork_err = errno;
			break;
		}
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid) {
			ch->fork_err = errno;
			break;
		}
		ch->forks++;
	}
	return NULL;
}

static void *churn_toggle_fn(void *arg)
{
	struct churn *ch = arg;
	int ret;

	while (!ld_int(&ch->stop)) {
		ret = ue_enable(ch->ev, ch->toggles % 2 == 0);
		if (ret) {
			ch->toggle_err = ret;
			break;
		}
		ch->toggles++;
		usleep(5000);
	}
	return NULL;
}

/*
 * Two threads UNREG and REG bits in a loop (switching to new files now
 * and then) while another thread forks children that only exit and a
 * third toggles the event, for a few seconds: no errors, nothing hangs
 * (KASAN and lockdep watch), and afterwards every bit follows the event.
 */
TEST_F_TIMEOUT(mm, unreg_reg_racing_fork, TIMEOUT)
{
	static struct churn ch;
	struct churn_arg args[NR_CHURN];
	pthread_t reg_th[NR_CHURN], fork_th, tog_th;
	const __u64 all = (1ULL << CHURN_BITS) - 1;
	int i, bit;

	memset(&ch, 0, sizeof(ch));
	ch.cmd = self->cmd;
	ch.ev = self->ev;
	for (i = 0; i < NR_CHURN; i++)
		for (bit = 0; bit < CHURN_BITS; bit++)
			ASSERT_EQ(0, reg_closed(self->cmd, &ch.words[i], 8,
						bit));
	for (i = 0; i < NR_CHURN; i++) {
		args[i].ch = &ch;
		args[i].n = i;
		ASSERT_EQ(0, pthread_create(&reg_th[i], NULL, churn_reg_fn,
					    &args[i]));
	}
	ASSERT_EQ(0, pthread_create(&fork_th, NULL, churn_fork_fn, &ch));
	ASSERT_EQ(0, pthread_create(&tog_th, NULL, churn_toggle_fn, &ch));
	usleep(CHURN_MS * 1000);
	st_int(&ch.stop, 1);
	for (i = 0; i < NR_CHURN; i++)
		pthread_join(reg_th[i], NULL);
	pthread_join(fork_th, NULL);
	pthread_join(tog_th, NULL);
	TH_LOG("%ld + %ld UNREG/REG, %ld forks, %ld toggles", ch.ops[0],
	       ch.ops[1], ch.forks, ch.toggles);

	for (i = 0; i < NR_CHURN; i++) {
		EXPECT_EQ(0, ch.err[i]) TH_LOG("thread %d: %s", i,
					       strerror(-ch.err[i]));
		EXPECT_LT(0, ch.ops[i]);
	}
	EXPECT_EQ(0, ch.fork_err);
	EXPECT_LT(0, ch.forks);
	EXPECT_EQ(0, ch.toggle_err);

	ASSERT_EQ(0, ue_enable(self->ev, false));
	for (i = 0; i < NR_CHURN; i++)
		EXPECT_EQ(0, settled64(&ch.words[i], 0));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	for (i = 0; i < NR_CHURN; i++)
		EXPECT_EQ(all, settled64(&ch.words[i], all))
			TH_LOG("word %d", i);
	ASSERT_EQ(0, ue_enable(self->ev, false));
	for (i = 0; i < NR_CHURN; i++)
		EXPECT_EQ(0, settled64(&ch.words[i], 0));

	for (i = 0; i < NR_CHURN; i++)
		for (bit = 0; bit < CHURN_BITS; bit++)
			EXPECT_EQ(0, ue_unreg_own(&ch.words[i], bit));
	EXPECT_EQ(0, ue_del(self->ev));
}

/* --- 5: one memory bit, one registration ------------------------------- */

/*
 * (address, bit) is unique as memory, whatever the word size: (A, 3) as
 * 4 and as 8 bytes is the same bit on x86_64, and so are (A, 32) of an
 * 8-byte word and (A + 4, 0) of a 4-byte one on little endian (both
 * orders); neighbouring bits of the same memory register fine and each
 * registration sets exactly its bit.
 */
TEST_F_TIMEOUT(mm, addr_bit_unique_across_sizes, TIMEOUT)
{
	static __u64 w[3];
	char *a = (char *)&w[0], *b = (char *)&w[1], *c = (char *)&w[2];
	int fd;

	if (sizeof(long) != 8 ||
	    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		SKIP(return, "needs a little-endian 64-bit machine");
	memset(w, 0, sizeof(w));
	fd = ue_open();
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, reg_p(fd, self->cmd, a, 4, 3, NULL));
	EXPECT_EQ(-EADDRINUSE, reg_p(fd, self->cmd, a, 8, 3, NULL));
	ASSERT_EQ(0, reg_p(fd, self->cmd, b, 8, 32, NULL));
	EXPECT_EQ(-EADDRINUSE, reg_p(fd, self->cmd, b + 4, 4, 0, NULL));
	ASSERT_EQ(0, reg_p(fd, self->cmd, c + 4, 4, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, reg_p(fd, self->cmd, c, 8, 32, NULL));
	/* Other bits of the same memory */
	EXPECT_EQ(0, reg_p(fd, self->cmd, a, 8, 35, NULL));
	EXPECT_EQ(0, reg_p(fd, self->cmd, b, 8, 0, NULL));
	EXPECT_EQ(0, reg_p(fd, self->cmd, b + 4, 4, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, reg_p(fd, self->cmd, b, 8, 33, NULL));

	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ((1ULL << 3) | (1ULL << 35), ld_u64(&w[0]));
	EXPECT_EQ(1ULL | (1ULL << 32) | (1ULL << 33), ld_u64(&w[1]));
	EXPECT_EQ(1ULL << 32, ld_u64(&w[2]));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, ld_u64(&w[0]));
	EXPECT_EQ(0, ld_u64(&w[1]));
	EXPECT_EQ(0, ld_u64(&w[2]));

	/* Once unregistered, the bit can be had with the other size */
	EXPECT_EQ(0, ue_unreg(fd, a, 3));
	EXPECT_EQ(0, reg_p(fd, self->cmd, a, 8, 3, NULL));
	EXPECT_EQ(-EADDRINUSE, reg_p(fd, self->cmd, a, 4, 3, NULL));
	EXPECT_EQ(0, ue_unreg(fd, a, 3));
	EXPECT_EQ(0, ue_unreg(fd, a, 35));
	EXPECT_EQ(0, ue_unreg(fd, b, 32));
	EXPECT_EQ(0, ue_unreg(fd, b, 0));
	EXPECT_EQ(0, ue_unreg(fd, b + 4, 1));
	EXPECT_EQ(0, ue_unreg(fd, c + 4, 0));
	close(fd);
	EXPECT_EQ(0, ue_del(self->ev));
}

int main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	return test_harness_run(argc, argv);
}
