// SPDX-License-Identifier: GPL-2.0
/*
 * Fail every allocation of a user_events operation, one at a time, and
 * check that the operation either succeeds or fails cleanly (ENOMEM, or
 * EFAULT where a copy from user memory lost its page) and leaves a
 * consistent state behind: an event exists exactly when its
 * registration succeeded, enable bits follow their events, a fork()
 * either fails or gives the child every registration, and unregistering
 * and closing the files removes everything.
 *
 * failslab and fail_page_alloc are set to fail GFP_KERNEL allocations
 * too, with probability 0: only /proc/thread-self/fail-nth arms them,
 * for the N-th allocation of this thread, for N = 1, 2, ... until an
 * operation completes without reaching its N-th allocation.  KASAN and
 * kmemleak (the scan after the tests) see what the error paths do.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_format.h"

#define TIMEOUT		900
#define MAX_POINTS	2000

#define EV_NEW		UE_PREFIX "ft_new"
#define EV_OLD		UE_PREFIX "ft_old"
#define EV_FORK		UE_PREFIX "ft_fork"
#define EV_ENA		UE_PREFIX "ft_ena"
#define FIELDS		" u32 a; __data_loc char[] s; char[8] c; struct x y 12"

#define DEBUGFS		"/sys/kernel/debug"
#define INSTANCE	UE_PREFIX "ft_inst"

static const char * const attrs[] = { "failslab", "fail_page_alloc" };

/* Settings changed, and their values to restore */
struct saved {
	char path[128];
	char val[64];
};

/* Shared with the teardown: @nth belongs to the test process's thread */
FIXTURE(ft) {
	int nth;		/* /proc/thread-self/fail-nth */
	struct saved saved[16];
	int nr_saved;
	long page;
};

static int set_attr(struct _test_data_ft *self, const char *attr,
		    const char *file, const char *val)
{
	char path[128], old[64];
	int fd, n;

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", attr, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, old, sizeof(old) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	old[n] = '\0';
	if (self->nr_saved < (int)ARRAY_SIZE(self->saved)) {
		snprintf(self->saved[self->nr_saved].path, 128, "%s", path);
		snprintf(self->saved[self->nr_saved].val, 64, "%s", old);
		self->nr_saved++;
	}
	return ue_write_str(path, val);
}

static void cleanup(void)
{
	ue_cleanup(EV_NEW);
	ue_cleanup(EV_OLD);
	ue_cleanup(EV_FORK);
	ue_cleanup(EV_ENA);
}

/* Whether @name has its files in INSTANCE too */
static bool in_instance(const char *name)
{
	char path[UE_PATH_MAX];

	return ue_exists(ue_path(path, "instances/" INSTANCE "/events/"
				 USER_EVENTS_SYSTEM "/%s", name));
}

FIXTURE_SETUP(ft)
{
	const char *reason = ue_setup();
	unsigned int i;

	self->nth = -1;
	self->nr_saved = 0;
	self->page = sysconf(_SC_PAGESIZE);
	if (reason)
		SKIP(return, "%s", reason);
	if (!ue_exists(DEBUGFS "/failslab"))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	if (!ue_exists(DEBUGFS "/failslab") ||
	    !ue_exists(DEBUGFS "/fail_page_alloc"))
		SKIP(return, "no failslab or fail_page_alloc in debugfs");
	self->nth = open("/proc/thread-self/fail-nth", O_RDWR);
	if (self->nth < 0)
		SKIP(return, "no /proc/thread-self/fail-nth");

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		/* Only fail-nth injects: nothing random, no stack dumps */
		ASSERT_EQ(0, set_attr(self, attrs[i], "probability", "0"));
		ASSERT_EQ(0, set_attr(self, attrs[i], "verbose", "0"));
		ASSERT_EQ(0, set_attr(self, attrs[i], "ignore-gfp-wait", "N"));
		ASSERT_EQ(0, set_attr(self, attrs[i], "times", "-1"));
	}
	ASSERT_EQ(0, set_attr(self, "fail_page_alloc", "min-order", "0"));
	ASSERT_EQ(0, set_attr(self, "fail_page_alloc", "ignore-gfp-highmem",
			      "N"));
	cleanup();
	ASSERT_EQ(0, ue_trace_clear());
}

/*
 * After the test process exited (its fail-nth with it): its registrations
 * went with its memory, so every event it made can be deleted.
 */
FIXTURE_TEARDOWN_PARENT(ft)
{
	int i;

	for (i = self->nr_saved - 1; i >= 0; i--)
		ue_write_str(self->saved[i].path, self->saved[i].val);
	if (!ue_setup())
		cleanup();
}

/* Arm the @n-th allocation of this thread to fail */
static void arm(int nth, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	pwrite(nth, buf, len, 0);
}

/* Disarm; true if the failure was injected */
static bool disarm(int nth)
{
	char buf[16] = "";
	int n = pread(nth, buf, sizeof(buf) - 1, 0);

	pwrite(nth, "0", 1, 0);
	return n > 0 && atoi(buf) == 0;
}

static bool clean_errno(int err)
{
	return err == ENOMEM || err == EFAULT;
}

/*
 * DIAG_IOCSREG that creates an event: the event exists exactly when the
 * call succeeded, in every instance (one is made for the test); the
 * registration outlives the file, and the event goes with the last of
 * the two.
 */
TEST_F_TIMEOUT(ft, reg_new_event, TIMEOUT)
{
	int n, fd, err, idx, ok = 0, failed = 0;
	char inst[UE_PATH_MAX];
	__u32 *word;
	bool hit;

	ue_path(inst, "instances/" INSTANCE);
	rmdir(inst);
	ASSERT_EQ(0, mkdir(inst, 0750));
	for (n = 1; n < MAX_POINTS; n++) {
		word = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, word);
		fd = ue_open();
		ASSERT_LE(0, fd);

		arm(self->nth, n);
		err = -ue_reg(fd, EV_NEW FIELDS, word, 0, &idx);
		hit = disarm(self->nth);

		ASSERT_TRUE(!err || clean_errno(err))
			TH_LOG("point %d: %s", n, strerror(err));
		ASSERT_EQ(!err, ue_event_exists(NULL, EV_NEW))
			TH_LOG("point %d: %s", n, strerror(err));
		ASSERT_EQ(!err, in_instance(EV_NEW))
			TH_LOG("point %d: %s", n, strerror(err));
		if (!err) {
			ok++;
			ASSERT_EQ(0, ue_enable(EV_NEW, true));
			EXPECT_EQ(1, *word) TH_LOG("point %d", n);
			ASSERT_EQ(0, ue_enable(EV_NEW, false));
			EXPECT_EQ(0, *word) TH_LOG("point %d", n);
		} else {
			failed++;
			EXPECT_EQ(-ENOENT, ue_unreg(fd, word, 0));
		}
		close(fd);
		EXPECT_EQ(!err, ue_event_exists(NULL, EV_NEW))
			TH_LOG("point %d", n);
		if (!err) {
			ASSERT_EQ(0, ue_enable(EV_NEW, true));
			EXPECT_EQ(1, *word) TH_LOG("point %d", n);
			ASSERT_EQ(0, ue_enable(EV_NEW, false));
			EXPECT_EQ(0, ue_unreg_own(word, 0)) TH_LOG("point %d", n);
		}
		EXPECT_FALSE(ue_event_exists(NULL, EV_NEW)) TH_LOG("point %d", n);
		munmap(word, self->page);
		if (!hit)
			break;
	}
	EXPECT_EQ(0, rmdir(inst));
	ksft_print_msg("register a new event: %d failure points\n", n - 1);
	ksft_print_msg("%d calls failed cleanly, %d succeeded\n", failed, ok);
	EXPECT_LT(n, MAX_POINTS);
}

/*
 * DIAG_IOCSREG of an event that exists and is enabled, on a page not
 * faulted in yet: the bit is set exactly when the call succeeded.
 */
TEST_F_TIMEOUT(ft, reg_existing_event, TIMEOUT)
{
	int n, fd, keeper, err, idx, ok = 0, failed = 0;
	static __u32 kword;
	__u32 *word;
	bool hit;

	keeper = ue_open();
	ASSERT_LE(0, keeper);
	ASSERT_EQ(0, ue_reg(keeper, EV_OLD FIELDS, &kword, 0, NULL));
	ASSERT_EQ(0, ue_enable(EV_OLD, true));

	for (n = 1; n < MAX_POINTS; n++) {
		word = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, word);
		fd = ue_open();
		ASSERT_LE(0, fd);

		arm(self->nth, n);
		err = -ue_reg(fd, EV_OLD FIELDS, word + 1, 3, &idx);
		hit = disarm(self->nth);

		ASSERT_TRUE(!err || clean_errno(err))
			TH_LOG("point %d: %s", n, strerror(err));
		if (!err) {
			ok++;
			EXPECT_EQ(8, word[1]) TH_LOG("point %d", n);
			EXPECT_EQ(0, ue_unreg(fd, word + 1, 3));
			EXPECT_EQ(0, word[1]) TH_LOG("point %d", n);
		} else {
			failed++;
			EXPECT_EQ(0, word[1]) TH_LOG("point %d", n);
			EXPECT_EQ(-ENOENT, ue_unreg(fd, word + 1, 3));
		}
		close(fd);
		munmap(word, self->page);
		if (!hit)
			break;
	}
	ksft_print_msg("register an existing event: %d failure points\n", n - 1);
	ksft_print_msg("%d calls failed cleanly, %d succeeded\n", failed, ok);
	EXPECT_LT(n, MAX_POINTS);
	ASSERT_EQ(0, ue_enable(EV_OLD, false));
	EXPECT_EQ(0, kword);
	EXPECT_EQ(0, ue_unreg(keeper, &kword, 0));
	close(keeper);
	EXPECT_FALSE(ue_event_exists(NULL, EV_OLD));
}

#define FORK_REGS	16

/* One int over a pipe, waiting at most 60 s for it; 0 or -1 */
static int pipe_send(int fd, int v)
{
	return write(fd, &v, sizeof(v)) == sizeof(v) ? 0 : -1;
}

static int pipe_recv(int fd, int *v)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, 60000) != 1)
		return -1;
	return read(fd, v, sizeof(*v)) == sizeof(*v) ? 0 : -1;
}

/* What the parent tells the child of the fork walk to check */
enum { FORK_OFF, FORK_ON, FORK_UNREG };

/*
 * The child of the fork walk: for each command, check its copies of the
 * words (all clear, or each registered bit set) or end every
 * registration, and answer 0 or what was wrong: 100 + i, word i is not
 * as its event is; 200 + i, registration i is missing; 300 + i, word i
 * not cleared by its UNREG.  The page of the words is copy-on-write
 * after fork(), in the parent and in the child: the first toggle leaves
 * the words to each mm's work item, which copies the page; after that
 * toggles write them at once.
 */
static void fork_child(int fd, int rfd, int wfd, __u32 *words)
{
	int cmd, ret, i;

	for (;;) {
		if (pipe_recv(rfd, &cmd))
			_exit(1);
		ret = 0;
		for (i = 0; i < FORK_REGS && !ret; i++) {
			__u32 want = cmd == FORK_ON ? 1U << i : 0;

			/* The first toggle after fork(): copy-on-write */
			if (cmd == FORK_OFF) {
				if (ue_word_wait(&words[i], want, 10000) != want)
					ret = 100 + i;
			} else if (cmd == FORK_ON) {
				if (__atomic_load_n(&words[i],
						    __ATOMIC_SEQ_CST) != want)
					ret = 100 + i;
			} else if (ue_unreg(fd, &words[i], i)) {
				ret = 200 + i;
			} else if (words[i]) {
				ret = 300 + i;
			}
		}
		if (pipe_send(wfd, ret))
			_exit(2);
		if (cmd == FORK_UNREG)
			_exit(0);
	}
}

/* Tell the child @cmd, answer what it said (-1: nothing) */
static int fork_child_cmd(int wfd, int rfd, int cmd)
{
	int ret;

	if (pipe_send(wfd, cmd) || pipe_recv(rfd, &ret))
		return -1;
	return ret;
}

/*
 * fork() of a process with registrations: a fork that cannot copy them
 * fails cleanly (ENOMEM, EAGAIN); one that succeeds gives the child every
 * registration, each word of it following the event both ways and each
 * one its own to end; the parent's are untouched.
 */
TEST_F_TIMEOUT(ft, fork_with_enablers, TIMEOUT)
{
	int n, fd, i, status, ok = 0, failed = 0, ret;
	static __u32 words[FORK_REGS];
	int to_child[2], to_parent[2];
	bool hit;
	pid_t pid;

	fd = ue_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < FORK_REGS; i++)
		ASSERT_EQ(0, ue_reg(fd, EV_FORK " u32 a", &words[i], i, NULL));
	ASSERT_EQ(0, ue_enable(EV_FORK, true));

	for (n = 1; n < MAX_POINTS; n++) {
		ASSERT_EQ(0, pipe(to_child));
		ASSERT_EQ(0, pipe(to_parent));
		arm(self->nth, n);
		pid = fork();
		if (pid == 0) {
			close(to_child[1]);
			close(to_parent[0]);
			fork_child(fd, to_child[0], to_parent[1], words);
		}
		hit = disarm(self->nth);
		close(to_child[0]);
		close(to_parent[1]);

		if (pid < 0) {
			ASSERT_TRUE(errno == ENOMEM || errno == EAGAIN)
				TH_LOG("point %d: %s", n, strerror(errno));
			failed++;
		} else {
			/* Every word of the child, off and on again */
			ASSERT_EQ(0, ue_enable(EV_FORK, false));
			for (i = 0; i < FORK_REGS; i++)
				ASSERT_EQ(0, ue_word_wait(&words[i], 0, 10000))
					TH_LOG("point %d", n);
			ret = fork_child_cmd(to_child[1], to_parent[0],
					     FORK_OFF);
			EXPECT_EQ(0, ret) TH_LOG("point %d: disabled, child said %d",
						 n, ret);
			ASSERT_EQ(0, ue_enable(EV_FORK, true));
			for (i = 0; i < FORK_REGS; i++)
				ASSERT_EQ(1U << i, words[i]) TH_LOG("point %d", n);
			ret = fork_child_cmd(to_child[1], to_parent[0],
					     FORK_ON);
			EXPECT_EQ(0, ret) TH_LOG("point %d: enabled, child said %d",
						 n, ret);
			/* and every registration the child's own */
			ret = fork_child_cmd(to_child[1], to_parent[0],
					     FORK_UNREG);
			EXPECT_EQ(0, ret) TH_LOG("point %d: UNREG, child said %d",
						 n, ret);
			ASSERT_EQ(pid, waitpid(pid, &status, 0));
			ASSERT_TRUE(WIFEXITED(status));
			ASSERT_EQ(0, WEXITSTATUS(status))
				TH_LOG("point %d: child exited %d", n,
				       WEXITSTATUS(status));
			ok++;
		}
		close(to_child[1]);
		close(to_parent[0]);
		/* The parent's bits follow the event */
		for (i = 0; i < FORK_REGS; i++)
			ASSERT_EQ(1U << i, words[i]) TH_LOG("point %d", n);
		if (!hit)
			break;
	}
	ksft_print_msg("fork with %d registrations: %d failure points\n",
		       FORK_REGS, n - 1);
	ksft_print_msg("%d forks failed cleanly, %d succeeded with every registration\n",
		       failed, ok);
	EXPECT_LT(n, MAX_POINTS);
	/* The last fork() may have left the page copy-on-write */
	ASSERT_EQ(0, ue_enable(EV_FORK, false));
	for (i = 0; i < FORK_REGS; i++) {
		EXPECT_EQ(0, ue_word_wait(&words[i], 0, 10000));
		EXPECT_EQ(0, ue_unreg(fd, &words[i], i));
	}
	close(fd);
	EXPECT_FALSE(ue_event_exists(NULL, EV_FORK));
}

/*
 * Enabling in ftrace: the write succeeds or fails cleanly, and the bits
 * follow whatever state the event ended in.  The first enabled event
 * also starts the trace core's recording of task names, whose failures
 * the walk goes through too.
 */
TEST_F_TIMEOUT(ft, enable, TIMEOUT)
{
	int n, fd, i, err, ok = 0, failed = 0, efd;
	static __u32 words[FORK_REGS];
	char path[UE_PATH_MAX], state[8];
	bool hit;

	fd = ue_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < FORK_REGS; i++)
		ASSERT_EQ(0, ue_reg(fd, EV_ENA " u32 a", &words[i], i, NULL));
	efd = open(ue_evpath(path, NULL, EV_ENA, "enable"), O_RDWR);
	ASSERT_LE(0, efd);

	for (n = 1; n < MAX_POINTS; n++) {
		arm(self->nth, n);
		err = pwrite(efd, "1", 1, 0) == 1 ? 0 : errno;
		hit = disarm(self->nth);

		ASSERT_TRUE(!err || clean_errno(err))
			TH_LOG("point %d: %s", n, strerror(err));
		ASSERT_LT(0, pread(efd, state, sizeof(state), 0));
		ASSERT_EQ(!err, state[0] == '1')
			TH_LOG("point %d: %s, enable reads %c", n,
			       strerror(err), state[0]);
		for (i = 0; i < FORK_REGS; i++)
			ASSERT_EQ(err ? 0 : 1U << i, words[i])
				TH_LOG("point %d", n);
		if (err)
			failed++;
		else
			ok++;
		ASSERT_EQ(0, ue_enable(EV_ENA, false));
		for (i = 0; i < FORK_REGS; i++)
			ASSERT_EQ(0, words[i]) TH_LOG("point %d", n);
		if (!hit)
			break;
	}
	ksft_print_msg("enable with %d registrations: %d failure points\n",
		       FORK_REGS, n - 1);
	ksft_print_msg("%d failed cleanly, %d succeeded\n", failed, ok);
	EXPECT_LT(n, MAX_POINTS);
	close(efd);
	for (i = 0; i < FORK_REGS; i++)
		EXPECT_EQ(0, ue_unreg(fd, &words[i], i));
	close(fd);
	EXPECT_FALSE(ue_event_exists(NULL, EV_ENA));
}

/*
 * Disabling ftrace while perf stays attached needs a smaller probe array.
 * Without memory for it the detached probe becomes a no-op in place:
 * disabling never fails, ftrace records nothing more, perf still gets
 * every record, and the bit stays set until perf lets go too.
 */
TEST_F_TIMEOUT(ft, disable_with_perf_attached, TIMEOUT)
{
	int n, fd, idx = -1, pfd, efd, err, failed = 0;
	static __u32 word;
	char path[UE_PATH_MAX], *trace = NULL;
	__u32 val = 7;
	__u64 count = 0;
	bool hit;

	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, EV_ENA " u32 a", &word, 0, &idx));
	pfd = ue_perf_open(NULL, EV_ENA);
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open: %s", strerror(-pfd));
	ASSERT_EQ(1, word);
	efd = open(ue_evpath(path, NULL, EV_ENA, "enable"), O_RDWR);
	ASSERT_LE(0, efd);

	for (n = 1; n < MAX_POINTS; n++) {
		ASSERT_EQ(1, pwrite(efd, "1", 1, 0));
		arm(self->nth, n);
		err = pwrite(efd, "0", 1, 0) == 1 ? 0 : errno;
		hit = disarm(self->nth);

		ASSERT_EQ(0, err) TH_LOG("point %d: %s", n, strerror(err));
		ASSERT_EQ(1, word) TH_LOG("point %d", n);
		ASSERT_EQ(0, ue_trace_clear());
		ASSERT_EQ(8, ue_emit(fd, idx, &val, sizeof(val)))
			TH_LOG("point %d", n);
		ASSERT_EQ(0, ue_trace_count(ue_trace_read(&trace), EV_ENA))
			TH_LOG("point %d: ftrace still records", n);
		if (hit)
			failed++;
		else
			break;
	}
	ksft_print_msg("disable with perf attached: %d failure points\n",
		       n - 1);
	EXPECT_LT(n, MAX_POINTS);
	EXPECT_LT(0, failed);
	/* perf counted every record: one per point */
	ASSERT_EQ(sizeof(count), read(pfd, &count, sizeof(count)));
	EXPECT_EQ((__u64)n, count);

	close(pfd);
	EXPECT_EQ(0, word);
	free(trace);
	close(efd);
	EXPECT_EQ(0, ue_unreg(fd, &word, 0));
	close(fd);
	EXPECT_FALSE(ue_event_exists(NULL, EV_ENA));
}

/* Wait (bounded) for the word a work item fixes up to read @want */
static bool word_becomes(__u32 *word, __u32 want)
{
	long long end = ue_now_ms() + 20000;

	while (__atomic_load_n(word, __ATOMIC_SEQ_CST) != want) {
		if (ue_now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/*
 * Enabling while the word's page is not present: the word is fixed up by
 * a work item, whose allocation may fail too.  Whatever failed, the next
 * toggles without failures bring the bit to the event's state.
 */
TEST_F_TIMEOUT(ft, enable_word_not_present, TIMEOUT)
{
	int n, fd, err, ok = 0, failed = 0, efd;
	char path[UE_PATH_MAX];
	__u32 *word;
	bool hit;

	fd = ue_open();
	ASSERT_LE(0, fd);
	word = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, ue_reg(fd, EV_ENA " u32 a", word, 5, NULL));
	efd = open(ue_evpath(path, NULL, EV_ENA, "enable"), O_RDWR);
	ASSERT_LE(0, efd);

	for (n = 1; n < MAX_POINTS; n++) {
		ASSERT_EQ(0, madvise(word, self->page, MADV_DONTNEED));
		arm(self->nth, n);
		err = pwrite(efd, "1", 1, 0) == 1 ? 0 : errno;
		hit = disarm(self->nth);

		ASSERT_TRUE(!err || clean_errno(err))
			TH_LOG("point %d: %s", n, strerror(err));
		if (err)
			failed++;
		else
			ok++;
		ASSERT_EQ(0, ue_enable(EV_ENA, false));
		ASSERT_TRUE(word_becomes(word, 0)) TH_LOG("point %d", n);
		ASSERT_EQ(0, madvise(word, self->page, MADV_DONTNEED));
		ASSERT_EQ(0, ue_enable(EV_ENA, true));
		ASSERT_TRUE(word_becomes(word, 32)) TH_LOG("point %d", n);
		ASSERT_EQ(0, ue_enable(EV_ENA, false));
		ASSERT_TRUE(word_becomes(word, 0)) TH_LOG("point %d", n);
		if (!hit)
			break;
	}
	ksft_print_msg("enable, word not present: %d failure points\n", n - 1);
	ksft_print_msg("%d failed cleanly, %d succeeded\n", failed, ok);
	EXPECT_LT(n, MAX_POINTS);
	close(efd);
	EXPECT_EQ(0, ue_unreg(fd, word, 5));
	EXPECT_EQ(0, word[0]);
	close(fd);
	munmap(word, self->page);
	EXPECT_FALSE(ue_event_exists(NULL, EV_ENA));
}

int main(int argc, char **argv)
{
	const char *tun = getenv("GLIBC_TUNABLES");
	char buf[512];

	/*
	 * Without glibc's rseq registration: after fork() the page with
	 * the parent's rseq area is copy-on-write, the kernel writes the
	 * area on the way back to user space, and when fail-nth is still
	 * armed (fork did not reach the N-th allocation) and fails that
	 * copy, rseq kills the parent with SIGSEGV.  That is rseq, not
	 * user_events.
	 */
	if (!getenv("UE_FAULT_NO_RSEQ")) {
		snprintf(buf, sizeof(buf), "%s%sglibc.pthread.rseq=0",
			 tun ? tun : "", tun ? ":" : "");
		setenv("GLIBC_TUNABLES", buf, 1);
		setenv("UE_FAULT_NO_RSEQ", "1", 1);
		execv("/proc/self/exe", argv);
	}
	return test_harness_run(argc, argv);
}
