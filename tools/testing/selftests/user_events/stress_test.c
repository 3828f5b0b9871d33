// SPDX-License-Identifier: GPL-2.0
/*
 * Race everything user_events has against everything else for a fixed
 * time (UE_STRESS_SECONDS, default 20): worker threads register, write,
 * unregister, close and delete, on one shared file and on files of their
 * own; a thread toggles the events in ftrace; a thread unmaps, maps again
 * and mprotect()s a page that holds enabled words; a thread forks
 * children that inherit every registration and exit, exec or register
 * their own.  Registrations outlive the files they were made through, so
 * a worker that closes a file keeps its registrations (and loses their
 * write indexes), and unregisters through any file.  Every call must end
 * with an errno the ABI allows for what raced with it.  At the end, with
 * nothing running, the files closed, every registered bit must follow its
 * event and every other bit must be untouched; once every registration is
 * unregistered no event and no bit may be left.  Words are judged after a
 * bounded wait: a toggle that finds mmap_lock taken (the mm thread) or the
 * page copy-on-write (after a fork) leaves the word to a work item.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"

#define TIMEOUT		600
#define DEFAULT_SECONDS	20

#define NAME		UE_PREFIX "st"
#define NR_NAMES	12
#define NR_WORKERS	4
#define SLOTS		64		/* 4-byte words per worker and page */
#define MAX_REGS	48
#define MAX_CHILDREN	4

/* The page the mm thread unmaps and maps again: at a fixed hole */
#define VOLATILE_ADDR	((void *)0x230000000ULL)

struct reg {
	__u32 *word;
	int bit;
	int name;
	int fd;			/* the file it was made through, -1: closed */
	int idx;		/* its write index on that file */
	bool vol;		/* in the volatile page */
};

struct worker {
	pthread_t thread;
	int id;
	int own_fd;
	struct reg regs[MAX_REGS];
	int nr;
	unsigned long long rng;
	long ops, unexpected;
};

static struct {
	long page;
	__u32 *stable;		/* never unmapped */
	__u32 *vol;
	int shared_fd;
	atomic_bool stop;
	struct worker w[NR_WORKERS];
	atomic_long toggles, unmaps, protects, forks, execs, child_fail;
	atomic_long unexpected;
	pthread_mutex_t log_lock;
} g;

static unsigned int rn(unsigned long long *s, unsigned int n)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (unsigned int)((*s * 2685821657736338717ULL) >> 33) % n;
}

static void cmd_of(int name, char *buf, size_t size)
{
	snprintf(buf, size, NAME "%d u32 a; __data_loc char[] s; u64 b",
		 name);
}

static void name_of(int name, char *buf, size_t size)
{
	snprintf(buf, size, NAME "%d", name);
}

static void report(const char *what, int err)
{
	long n = atomic_fetch_add(&g.unexpected, 1);

	if (n < 20) {
		pthread_mutex_lock(&g.log_lock);
		ksft_print_msg("not allowed here: %s: %d (%s)\n", what, err,
			       strerror(err));
		pthread_mutex_unlock(&g.log_lock);
	}
}

/* A record of the events' format: index, a, s's loc word, b, s */
static int emit(int fd, int idx)
{
	unsigned char rec[4 + 4 + 4 + 8 + 8];
	__u32 a = 7, loc = DYN_LOC(UE_HDR_SIZE + 16, 8);
	__u64 b = 9;

	memcpy(rec, &idx, 4);
	memcpy(rec + 4, &a, 4);
	memcpy(rec + 8, &loc, 4);
	memcpy(rec + 12, &b, 8);
	memcpy(rec + 20, "stress!", 8);
	return write(fd, rec, sizeof(rec)) == sizeof(rec) ? 0 : errno;
}

static int do_reg(int fd, __u32 *word, int bit, int name, int *idx)
{
	char cmd[128];

	cmd_of(name, cmd, sizeof(cmd));
	return -ue_reg(fd, cmd, word, bit, idx);
}

static bool bit_used(struct worker *w, __u32 *word, int bit)
{
	int i;

	for (i = 0; i < w->nr; i++)
		if (w->regs[i].word == word && w->regs[i].bit == bit)
			return true;
	return false;
}

/* @fd is closed: its write indexes are gone, the registrations stay */
static void forget_fd(struct worker *w, int fd)
{
	int i;

	for (i = 0; i < w->nr; i++)
		if (w->regs[i].fd == fd)
			w->regs[i].fd = -1;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	char what[128], name[64];
	int op, err, i;

	while (!atomic_load(&g.stop)) {
		op = rn(&w->rng, 100);
		w->ops++;
		if (op < 35 && w->nr < MAX_REGS) {
			struct reg r;
			int slot = w->id * SLOTS + rn(&w->rng, SLOTS);

			r.vol = rn(&w->rng, 5) == 0;
			r.word = (r.vol ? g.vol : g.stable) + slot;
			r.bit = rn(&w->rng, 32);
			r.name = rn(&w->rng, NR_NAMES);
			r.fd = rn(&w->rng, 2) ? g.shared_fd : w->own_fd;
			if (bit_used(w, r.word, r.bit))
				continue;
			err = do_reg(r.fd, r.word, r.bit, r.name, &r.idx);
			if (!err)
				w->regs[w->nr++] = r;
			else if (!(err == EFAULT && r.vol))
				report("DIAG_IOCSREG", err);
		} else if (op < 55 && w->nr) {
			/* Through any file: the shared one or its own */
			i = rn(&w->rng, w->nr);
			err = -ue_unreg(rn(&w->rng, 2) ? g.shared_fd : w->own_fd,
					w->regs[i].word, w->regs[i].bit);
			if (err)
				report("DIAG_IOCSUNREG", err);
			w->regs[i] = w->regs[--w->nr];
		} else if (op < 90 && w->nr) {
			struct reg *r = &w->regs[rn(&w->rng, w->nr)];

			if (r->fd < 0)
				continue;
			err = emit(r->fd, r->idx);
			if (err && err != EBADF)
				report("write", err);
		} else if (op < 94) {
			name_of(rn(&w->rng, NR_NAMES), name, sizeof(name));
			err = -ue_del(name);
			if (err && err != ENOENT && err != EBUSY) {
				snprintf(what, sizeof(what), "DIAG_IOCSDEL %s",
					 name);
				report(what, err);
			}
		} else if (op < 97) {
			close(w->own_fd);
			forget_fd(w, w->own_fd);
			w->own_fd = ue_open();
			if (w->own_fd < 0) {
				report("open", -w->own_fd);
				break;
			}
		}
	}
	return NULL;
}

static void *toggle_fn(void *arg)
{
	unsigned long long rng = 77;
	char name[64];
	int err;

	while (!atomic_load(&g.stop)) {
		name_of(rn(&rng, NR_NAMES), name, sizeof(name));
		err = -ue_enable(name, rn(&rng, 2));
		/* The event may be gone, or going */
		if (err && err != ENOENT && err != ENODEV)
			report("enable", err);
		atomic_fetch_add(&g.toggles, 1);
		/* Each toggle holds event_mutex a while: let others in */
		usleep(rn(&rng, 4000));
	}
	return NULL;
}

static void *mm_fn(void *arg)
{
	unsigned long long rng = 99;
	void *p;

	while (!atomic_load(&g.stop)) {
		switch (rn(&rng, 3)) {
		case 0:
			if (munmap(g.vol, g.page))
				report("munmap", errno);
			usleep(rn(&rng, 2000));
			p = mmap(g.vol, g.page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			if (p != g.vol)
				report("mmap", errno);
			atomic_fetch_add(&g.unmaps, 1);
			break;
		case 1:
			if (mprotect(g.vol, g.page, PROT_READ))
				report("mprotect", errno);
			usleep(rn(&rng, 2000));
			if (mprotect(g.vol, g.page, PROT_READ | PROT_WRITE))
				report("mprotect", errno);
			atomic_fetch_add(&g.protects, 1);
			break;
		default:
			madvise(g.vol, g.page, MADV_DONTNEED);
			usleep(rn(&rng, 1000));
		}
	}
	return NULL;
}

/* A child that registers its own events and writes, then exits */
static int child_work(unsigned long long rng)
{
	static __u32 own[8];
	int fd = ue_open(), i, idx, err;

	if (fd < 0)
		return 1;
	for (i = 0; i < 4; i++) {
		err = do_reg(rn(&rng, 2) ? fd : g.shared_fd, &own[i],
			     rn(&rng, 32), rn(&rng, NR_NAMES), &idx);
		if (err)
			return 2;
	}
	err = do_reg(fd, &own[5], 0, 0, &idx);
	if (err)
		return 3;
	err = emit(fd, idx);
	if (err && err != EBADF)
		return 4;
	if (rn(&rng, 2))
		close(fd);
	return 0;
}

/* Reap one child; false if none has exited (and @block is false) */
static bool reap_child(bool block)
{
	int status;
	pid_t pid = waitpid(-1, &status, block ? 0 : WNOHANG);

	if (pid <= 0)
		return false;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		atomic_fetch_add(&g.child_fail, 1);
		report("child", WIFEXITED(status) ? WEXITSTATUS(status) : 1000);
	}
	return true;
}

static void *fork_fn(void *arg)
{
	unsigned long long rng = 1234;
	int kind, sync[2], inflight = 0;
	pid_t pid;
	char c;

	while (!atomic_load(&g.stop)) {
		kind = rn(&rng, 3);
		if (pipe(sync)) {
			report("pipe", errno);
			break;
		}
		/* The child inherits every registration of the workers */
		pid = fork();
		if (pid == 0) {
			close(sync[0]);
			close(sync[1]);
			if (kind == 0)
				_exit(0);
			if (kind == 1) {
				execl("/proc/self/exe", "stress_test",
				      "--exit", NULL);
				_exit(5);
			}
			_exit(child_work(rng));
		}
		/* Until the child runs */
		close(sync[1]);
		if (pid > 0)
			read(sync[0], &c, 1);
		close(sync[0]);
		if (pid < 0) {
			report("fork", errno);
			usleep(10000);
			continue;
		}
		atomic_fetch_add(&g.forks, 1);
		if (kind == 1)
			atomic_fetch_add(&g.execs, 1);
		/* Up to MAX_CHILDREN live at once, exiting as others fork */
		for (inflight++; inflight; inflight--)
			if (!reap_child(inflight >= MAX_CHILDREN))
				break;
	}
	while (inflight-- > 0)
		reap_child(true);
	return NULL;
}

static void cleanup_names(void)
{
	char name[64];
	int i;

	for (i = 0; i < NR_NAMES; i++) {
		name_of(i, name, sizeof(name));
		ue_cleanup(name);
	}
}

FIXTURE(st) {
	int unused;
};

FIXTURE_SETUP(st)
{
}

/* After the test process exited, with its registrations */
FIXTURE_TEARDOWN_PARENT(st)
{
	char path[UE_PATH_MAX];

	if (ue_setup())
		return;
	/* A test that stopped half-way may have left its events enabled */
	ue_write_str(ue_path(path, "events/user_events/enable"), "0\n");
	cleanup_names();
}

/* Is bit @bit of @word registered by some worker? */
static bool registered(__u32 *word, int bit, bool *on, const bool *enabled)
{
	int i, j;

	for (i = 0; i < NR_WORKERS; i++)
		for (j = 0; j < g.w[i].nr; j++)
			if (g.w[i].regs[j].word == word &&
			    g.w[i].regs[j].bit == bit) {
				*on = enabled[g.w[i].regs[j].name];
				return true;
			}
	return false;
}

/* Every bit of the stable page: set exactly when its event is enabled */
static int check_bits(const bool *enabled, char *why, size_t size)
{
	int i, bit;
	bool on, reg;

	for (i = 0; i < NR_WORKERS * SLOTS; i++) {
		for (bit = 0; bit < 32; bit++) {
			on = false;
			reg = registered(g.stable + i, bit, &on, enabled);
			if (!!(g.stable[i] & (1U << bit)) != (reg && on)) {
				snprintf(why, size,
					 "word %d bit %d is %d (registered %d, enabled %d)",
					 i, bit, !!(g.stable[i] & (1U << bit)),
					 reg, on);
				return -1;
			}
		}
	}
	return 0;
}

/* check_bits(), given 5 s for the words a work item fixes up */
static int check_bits_wait(const bool *enabled, char *why, size_t size)
{
	long long end = ue_now_ms() + 5000;

	while (check_bits(enabled, why, size)) {
		if (ue_now_ms() > end)
			return -1;
		usleep(10000);
	}
	return 0;
}

/* Every word of the stable page clear, given 5 s; the first set or -1 */
static int stable_clear_wait(void)
{
	long long end = ue_now_ms() + 5000;
	int i;

	for (;;) {
		for (i = 0; i < NR_WORKERS * SLOTS; i++)
			if (__atomic_load_n(&g.stable[i], __ATOMIC_SEQ_CST))
				break;
		if (i == NR_WORKERS * SLOTS)
			return -1;
		if (ue_now_ms() > end)
			return i;
		usleep(10000);
	}
}

TEST_F_TIMEOUT(st, stress, TIMEOUT)
{
	pthread_t toggler, mmer, forker;
	bool enabled[NR_NAMES] = { 0 };
	long seconds = DEFAULT_SECONDS, ops = 0, regs = 0;
	const char *reason = ue_setup(), *env;
	char why[200], name[64];
	int i, j, fd;

	if (reason)
		SKIP(return, "%s", reason);
	env = getenv("UE_STRESS_SECONDS");
	if (env)
		seconds = strtol(env, NULL, 0);

	g.page = sysconf(_SC_PAGESIZE);
	pthread_mutex_init(&g.log_lock, NULL);
	g.stable = mmap(NULL, g.page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, g.stable);
	g.vol = mmap(VOLATILE_ADDR, g.page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_EQ(VOLATILE_ADDR, g.vol);
	cleanup_names();
	ASSERT_EQ(0, ue_trace_clear());
	g.shared_fd = ue_open();
	ASSERT_LE(0, g.shared_fd);

	for (i = 0; i < NR_WORKERS; i++) {
		g.w[i].id = i;
		g.w[i].rng = 0x9e3779b97f4a7c15ULL * (i + 1);
		g.w[i].own_fd = ue_open();
		ASSERT_LE(0, g.w[i].own_fd);
	}
	for (i = 0; i < NR_WORKERS; i++)
		ASSERT_EQ(0, pthread_create(&g.w[i].thread, NULL, worker_fn,
					    &g.w[i]));
	ASSERT_EQ(0, pthread_create(&toggler, NULL, toggle_fn, NULL));
	ASSERT_EQ(0, pthread_create(&mmer, NULL, mm_fn, NULL));
	ASSERT_EQ(0, pthread_create(&forker, NULL, fork_fn, NULL));

	sleep(seconds);
	atomic_store(&g.stop, true);
	for (i = 0; i < NR_WORKERS; i++) {
		pthread_join(g.w[i].thread, NULL);
		ops += g.w[i].ops;
		regs += g.w[i].nr;
	}
	pthread_join(toggler, NULL);
	pthread_join(mmer, NULL);
	pthread_join(forker, NULL);

	ksft_print_msg("%ld s, %d worker threads: %ld operations, %ld registrations left\n",
		       seconds, NR_WORKERS, ops, regs);
	ksft_print_msg("%ld enable toggles, %ld munmap/mmap, %ld mprotect\n",
		       atomic_load(&g.toggles), atomic_load(&g.unmaps),
		       atomic_load(&g.protects));
	ksft_print_msg("%ld forks, %ld of them exec\n",
		       atomic_load(&g.forks), atomic_load(&g.execs));
	EXPECT_EQ(0, atomic_load(&g.unexpected));
	EXPECT_EQ(0, atomic_load(&g.child_fail));

	/*
	 * Quiet now, and the files closed (which ends their write indexes
	 * only): every bit still follows its event
	 */
	for (i = 0; i < NR_WORKERS; i++) {
		close(g.w[i].own_fd);
		forget_fd(&g.w[i], g.w[i].own_fd);
	}
	close(g.shared_fd);
	for (i = 0; i < NR_NAMES; i++) {
		name_of(i, name, sizeof(name));
		ue_enable(name, false);
	}
	EXPECT_EQ(0, check_bits_wait(enabled, why, sizeof(why)))
		TH_LOG("%s", why);
	for (i = 0; i < NR_NAMES; i++) {
		name_of(i, name, sizeof(name));
		enabled[i] = !ue_enable(name, true);
	}
	EXPECT_EQ(0, check_bits_wait(enabled, why, sizeof(why)))
		TH_LOG("%s", why);
	for (i = 0; i < NR_NAMES; i++) {
		name_of(i, name, sizeof(name));
		ue_enable(name, false);
		enabled[i] = false;
	}
	EXPECT_EQ(0, check_bits_wait(enabled, why, sizeof(why)))
		TH_LOG("%s", why);

	/* UNREG of every registration, through a new file, ends everything */
	fd = ue_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < NR_WORKERS; i++) {
		for (j = 0; j < g.w[i].nr; j++)
			EXPECT_EQ(0, ue_unreg(fd, g.w[i].regs[j].word,
					      g.w[i].regs[j].bit))
				TH_LOG("worker %d, registration %d", i, j);
		g.w[i].nr = 0;
	}
	close(fd);
	i = stable_clear_wait();
	EXPECT_EQ(-1, i) TH_LOG("word %d: %#x", i, i >= 0 ? g.stable[i] : 0);
	for (i = 0; i < NR_NAMES; i++) {
		name_of(i, name, sizeof(name));
		EXPECT_TRUE(ue_wait_gone(NULL, name, 5000)) TH_LOG("%s", name);
	}
}

#define TD_NAME		UE_PREFIX "td"
#define TD_SMALL	8000

/*
 * Register @n events in a child, which then exits: the exit of a process
 * takes its events down.  Return how long that took, in ms, from the
 * child's last registration until its events are gone, or -1.
 */
static long long teardown_ms(int n)
{
	__u32 *words = calloc(n / 32 + 1, sizeof(*words));
	long long start = -1;
	int pipefd[2], status, i;
	char cmd[64], name[64];
	pid_t pid;

	if (!words || pipe(pipefd))
		return -1;
	pid = ue_fork();
	if (pid == 0) {
		int fd = ue_open();

		close(pipefd[0]);
		for (i = 0; fd >= 0 && i < n; i++) {
			snprintf(cmd, sizeof(cmd), TD_NAME "%d u32 a", i);
			if (ue_reg(fd, cmd, &words[i / 32], i % 32, NULL))
				_exit(1);
		}
		_exit(write(pipefd[1], "", 1) == 1 ? 0 : 1);
	}
	close(pipefd[1]);
	if (pid > 0 && read(pipefd[0], cmd, 1) == 1)
		start = ue_now_ms();
	close(pipefd[0]);
	if (pid < 0 || ue_wait_child(pid, 600000, &status) ||
	    ue_exit_code(status) || start < 0)
		start = -1;
	for (i = 0; start >= 0 && i < n; i++) {
		snprintf(name, sizeof(name), TD_NAME "%d", i);
		if (!ue_wait_gone(NULL, name, 60000))
			start = -1;
	}
	free(words);
	return start < 0 ? -1 : ue_now_ms() - start;
}

/*
 * Each deletion costs the same however many events go with it: 4 times
 * the events go in about 4 times the time.  A walk over the remaining
 * events per deletion (the trace core's lists are newest first: events
 * dropped oldest first) adds a part that grows with the square, which
 * at these sizes makes it about 6 times on the debug kernel; the bound
 * is 5 times plus a second.  32000 events also keep the last reference's
 * loop long enough to trip the soft lockup detector without a resched.
 */
TEST_F_TIMEOUT(st, teardown_linear, 2 * TIMEOUT)
{
	const char *reason = ue_setup();
	long long small, big;
	int try;

	if (reason)
		SKIP(return, "%s", reason);
	/* A second pair if the host was busy during one of the first */
	for (try = 0; try < 2; try++) {
		small = teardown_ms(TD_SMALL);
		ASSERT_LE(0, small);
		big = teardown_ms(4 * TD_SMALL);
		ASSERT_LE(0, big);
		ksft_print_msg("%d events: %lld ms, %d events: %lld ms\n",
			       TD_SMALL, small, 4 * TD_SMALL, big);
		if (big <= 5 * small + 1000)
			break;
	}
	EXPECT_LE(big, 5 * small + 1000);
}

#define RP_NAME		UE_PREFIX "rp"
#define RP_EVENTS	2000

static atomic_int rp_stop;
static long long rp_worst;

/* Read the status file, which takes event_mutex, over and over */
static void *rp_reader(void *arg)
{
	char path[UE_PATH_MAX];
	long long t;

	ue_path(path, "user_events_status");
	while (!atomic_load(&rp_stop)) {
		t = ue_now_ms();
		free(ue_read_file(path));
		t = ue_now_ms() - t;
		if (t > rp_worst)
			rp_worst = t;
		usleep(2000);
	}
	return NULL;
}

/*
 * Events whose registrant exited while a tool had them enabled go when the
 * tool lets go, all in one run of the reap work.  It lets event_mutex go
 * between deletions: a reader of the status file meanwhile waits for a
 * deletion or two, not for all of them (a quarter of the time they take,
 * plus 50 ms, is the bound).
 */
TEST_F_TIMEOUT(st, reap_lets_others_in, TIMEOUT)
{
	const char *reason = ue_setup();
	int to_child[2], from_child[2], status, i, fd;
	char name[64], path[UE_PATH_MAX];
	long long start, total;
	pthread_t reader;
	pid_t pid;

	if (reason)
		SKIP(return, "%s", reason);
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(from_child));
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u32 *words = calloc(RP_EVENTS / 32 + 1, sizeof(*words));
		char cmd[64], c;

		fd = ue_open();
		for (i = 0; words && fd >= 0 && i < RP_EVENTS; i++) {
			snprintf(cmd, sizeof(cmd), RP_NAME "%d u32 a", i);
			if (ue_reg(fd, cmd, &words[i / 32], i % 32, NULL))
				_exit(1);
		}
		if (i < RP_EVENTS || write(from_child[1], "", 1) != 1)
			_exit(1);
		_exit(read(to_child[0], &c, 1) == 1 ? 0 : 1);
	}
	close(to_child[0]);
	close(from_child[1]);
	ASSERT_EQ(1, read(from_child[0], name, 1));

	/* Enabled, then their registrant goes: they stay while enabled */
	ue_path(path, "events/user_events/enable");
	ASSERT_EQ(0, ue_write_str(path, "1\n"));
	ASSERT_EQ(1, write(to_child[1], "", 1));
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	ASSERT_EQ(0, ue_exit_code(status));

	ASSERT_EQ(0, pthread_create(&reader, NULL, rp_reader, NULL));
	usleep(100000);
	start = ue_now_ms();
	EXPECT_EQ(0, ue_write_str(path, "0\n"));
	for (i = 0; i < RP_EVENTS; i++) {
		snprintf(name, sizeof(name), RP_NAME "%d", i);
		EXPECT_TRUE(ue_wait_gone(NULL, name, 120000)) TH_LOG("%s", name);
	}
	total = ue_now_ms() - start;
	atomic_store(&rp_stop, 1);
	pthread_join(reader, NULL);
	ksft_print_msg("%d events went in %lld ms, a status read waited at most %lld ms\n",
		       RP_EVENTS, total, rp_worst);
	EXPECT_LE(rp_worst, total / 4 + 50);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;
	return test_harness_run(argc, argv);
}
