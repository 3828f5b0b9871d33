// SPDX-License-Identifier: GPL-2.0
/*
 * Registrations belong to the address space: a bit registered through a
 * file that is closed at once, by a thread that has exited or by a main
 * thread that called pthread_exit() keeps following its event; fork()
 * copies registrations, CLONE_VM shares them, execve() drops them.  The
 * enable of an event returns, and other processes fork, while a registrant
 * stalls its own mmap_lock on a FUSE page, and no kernel worker waits on
 * a word in a shared FUSE page whose READs are withheld.  A word wiped by
 * fork() (MADV_WIPEONFORK) follows in the child; one the child did not get
 * (MADV_DONTFORK) is not registered there.  The bit is never set before
 * the write index works; the per-mm limit user_events_max_enablers; memcg
 * charging; UNREG/REG racing fork(); one memory bit, one registration,
 * whatever the word size.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/fuse.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_status.h"

#define TIMEOUT		600
#define EV_PREFIX	"__mm_"

#define ENABLERS_SYSCTL	"/proc/sys/kernel/user_events_max_enablers"
#define ENABLERS_DEFAULT 65536
#define HUNG_SYSCTL	"/proc/sys/kernel/hung_task_timeout_secs"

#define WAIT_MS		10000	/* for anything that should be quick */
#define ASYNC_MS	5000	/* for a bit the kernel updates later */

static long page_size;

/* --- small helpers ----------------------------------------------------- */

static inline int ld_int(const int *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static inline void st_int(int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

static inline __u32 ld_u32(const __u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static inline __u64 ld_u64(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

/* Poll until *@p == @want, for up to @ms; true once it is */
static bool wait_int(const int *p, int want, int ms)
{
	long long end = ue_now_ms() + ms;

	while (ld_int(p) != want) {
		if (ue_now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/* Poll until (*@word & @mask) == @want, for up to @ms */
static bool wait_bits(const __u32 *word, __u32 mask, __u32 want, int ms)
{
	long long end = ue_now_ms() + ms;

	while ((ld_u32(word) & mask) != want) {
		if (ue_now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/*
 * The word once it reads @want, or after ASYNC_MS: after fork() its page
 * is copy-on-write shared, and such a word is updated by a work item.
 */
static __u32 settled(const __u32 *word, __u32 want)
{
	wait_bits(word, ~0U, want, ASYNC_MS);
	return ld_u32(word);
}

static __u64 settled64(const __u64 *word, __u64 want)
{
	long long end = ue_now_ms() + ASYNC_MS;

	while (ld_u64(word) != want && ue_now_ms() <= end)
		usleep(1000);
	return ld_u64(word);
}

/* Register with PERSIST: a DEL after the last reference is deterministic */
static int reg_p(int fd, const char *cmd, void *addr, int size, int bit,
		 int *idx)
{
	return ue_reg_flags(fd, cmd, USER_EVENT_REG_PERSIST, addr, size, bit,
			    idx);
}

/* Register through a file of its own and close the file at once */
static int reg_closed(const char *cmd, void *addr, int size, int bit)
{
	int fd = ue_open(), ret;

	if (fd < 0)
		return fd;
	ret = reg_p(fd, cmd, addr, size, bit, NULL);
	close(fd);
	return ret;
}

/*
 * DIAG_IOCSDEL of @name, tried again while it is EBUSY for up to @ms (a
 * process that held it is going away).  Returns the last result and
 * stores the number of tries in @tries.
 */
static int del_retry(const char *name, int ms, int *tries)
{
	long long end = ue_now_ms() + ms;
	int ret;

	*tries = 0;
	for (;;) {
		ret = ue_del(name);
		(*tries)++;
		if (ret != -EBUSY || ue_now_ms() > end)
			return ret;
		usleep(2000);
	}
}

/* State letter of /proc/@pid/task/@tid/stat, 0 if unreadable */
static char task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static pid_t my_tid(void)
{
	return syscall(SYS_gettid);
}

/* A MAP_SHARED page, present in this process, or NULL */
static void *shared_page(void)
{
	void *p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, page_size);
	return p;
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

/* Delete whatever an interrupted earlier run of this test left */
static void cleanup_leftovers(void)
{
	char *buf = ue_read_tracefs("user_events_status");
	char name[128], *p, *eol;
	size_t len;

	for (p = buf; p && *p; p = *eol ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		if (strncmp(p, EV_PREFIX, strlen(EV_PREFIX)))
			continue;
		len = strcspn(p, "\n ");
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		ue_cleanup(name);
	}
	free(buf);
}

/* --- a child process that answers questions about its word ------------- */

enum { PEER_READ = 1, PEER_REG, PEER_UNREG, PEER_QUIT };

struct peer_msg {
	int op;
	int bit;
};

struct chan {
	int to_child[2];
	int to_parent[2];
};

static int chan_open(struct chan *c)
{
	if (pipe(c->to_child))
		return -errno;
	if (pipe(c->to_parent)) {
		close(c->to_child[0]);
		close(c->to_child[1]);
		return -errno;
	}
	return 0;
}

/* Keep the ends this side uses: the child reads [0] of to_child */
static void chan_side(struct chan *c, bool child)
{
	close(child ? c->to_child[1] : c->to_child[0]);
	close(child ? c->to_parent[0] : c->to_parent[1]);
}

static void chan_close(struct chan *c, bool child)
{
	close(child ? c->to_child[0] : c->to_child[1]);
	close(child ? c->to_parent[1] : c->to_parent[0]);
}

/* Read exactly @len bytes within @ms; 0, -ETIMEDOUT, -EPIPE or -errno */
static int recv_all(int fd, void *buf, size_t len, int ms)
{
	long long end = ue_now_ms() + ms;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;
	int left;

	while (got < len) {
		left = end - ue_now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = read(fd, (char *)buf + got, len - got);
		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += n;
	}
	return 0;
}

static int send_all(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

struct peer {
	int rfd, wfd;
	__u32 *word;
	const char *cmd;
};

/*
 * The child side: answer PEER_READ with the word, PEER_REG / PEER_UNREG
 * with the result of registering / unregistering the bit through a new
 * file (closed at once), until PEER_QUIT.  Returns the exit code.
 */
static int peer_loop(const struct peer *p)
{
	struct peer_msg m;
	int reply;

	for (;;) {
		if (recv_all(p->rfd, &m, sizeof(m), 300000))
			return 90;
		switch (m.op) {
		case PEER_READ:
			reply = ld_u32(p->word);
			break;
		case PEER_REG:
			reply = reg_closed(p->cmd, p->word, 4, m.bit);
			break;
		case PEER_UNREG:
			reply = ue_unreg_own(p->word, m.bit);
			break;
		case PEER_QUIT:
			return 0;
		default:
			return 91;
		}
		if (send_all(p->wfd, &reply, sizeof(reply)))
			return 92;
	}
}

/* The parent side: one request, its reply in @reply; 0 or -errno */
static int peer_call(struct chan *c, int op, int bit, int *reply)
{
	struct peer_msg m = { .op = op, .bit = bit };
	int ret;

	ret = send_all(c->to_child[1], &m, sizeof(m));
	if (ret || op == PEER_QUIT)
		return ret;
	return recv_all(c->to_parent[0], reply, sizeof(*reply), WAIT_MS);
}

/*
 * The child's word once it reads @want, or what it read last after
 * ASYNC_MS (-1 when it did not answer): a word in a page that is still
 * copy-on-write shared after fork() is updated by a work item.
 */
static long peer_word(struct chan *c, __u32 want)
{
	long long end = ue_now_ms() + ASYNC_MS;
	int v;

	for (;;) {
		if (peer_call(c, PEER_READ, 0, &v))
			return -1;
		if ((__u32)v == want || ue_now_ms() > end)
			return (__u32)v;
		usleep(2000);
	}
}

/* The child's result of PEER_REG / PEER_UNREG, or -EPIPE & co */
static int peer_result(struct chan *c, int op, int bit)
{
	int v, ret = peer_call(c, op, bit, &v);

	return ret ? ret : v;
}

/* --- fixture ----------------------------------------------------------- */

struct fuse_ctl;
#define FUSE_DIR_SIZE	64

/* Shared with the teardown, which runs in the harness's process */
FIXTURE(mm) {
	char ev[64], cmd[96];		/* the main event */
	char ev2[64], cmd2[96];		/* a second one */
	long saved_enablers;		/* to restore, or -1 */
	long saved_hung;		/* hung_task_timeout_secs, or -1 */
	struct fuse_ctl *fuse;		/* shared with the FUSE server */
	char fuse_dir[FUSE_DIR_SIZE];
	bool fuse_mounted;
	char cg_dir[128];
	bool cg_mounted;
	bool cg_memory_added;
};

FIXTURE_SETUP(mm)
{
	const char *reason = ue_setup();
	long v;

	self->saved_enablers = -1;
	self->saved_hung = -1;
	if (reason)
		SKIP(return, "%s", reason);

	/* An earlier run killed while the limit was lowered */
	if (!ue_read_long(ENABLERS_SYSCTL, &v) && v < 1024) {
		TH_LOG("user_events_max_enablers was %ld, restoring %d", v,
		       ENABLERS_DEFAULT);
		ue_write_long(ENABLERS_SYSCTL, ENABLERS_DEFAULT);
	}
	cleanup_leftovers();
	snprintf(self->ev, sizeof(self->ev), EV_PREFIX "%d_a", getpid());
	snprintf(self->cmd, sizeof(self->cmd), "%s u32 n", self->ev);
	snprintf(self->ev2, sizeof(self->ev2), EV_PREFIX "%d_b", getpid());
	snprintf(self->cmd2, sizeof(self->cmd2), "%s u32 n", self->ev2);
	ASSERT_EQ(0, ue_trace_clear());
}

/* Delete @name, giving dying holders (killed children) a moment */
static void cleanup_event(const char *name)
{
	int tries;

	ue_cleanup(name);
	if (ue_event_exists(NULL, name))
		del_retry(name, 3000, &tries);
}

/*
 * In the harness's process, once the test process is gone: its
 * registrations went with its memory and its children (ue_fork()) were
 * killed with it, which also ended a FUSE server and so any stall.
 */
FIXTURE_TEARDOWN_PARENT(mm)
{
	long long end = ue_now_ms() + 3000;

	if (self->fuse_mounted) {
		umount2(self->fuse_dir, MNT_DETACH);
		rmdir(self->fuse_dir);
	}
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
	if (self->saved_hung >= 0)
		ue_write_long(HUNG_SYSCTL, self->saved_hung);
	if (!ue_setup()) {
		cleanup_event(self->ev);
		cleanup_event(self->ev2);
	}
}

/* --- 1: registrations outlive the file --------------------------------- */

/*
 * A registration made through a file that is closed at once stays: its
 * bit follows ftrace's enable and disable, DIAG_IOCSDEL is EBUSY while it
 * lasts, DIAG_IOCSUNREG through another file ends it and clears the bit,
 * and then the first DIAG_IOCSDEL succeeds.  Likewise after UNREG first
 * and close second.  A non-persistent event lives on while only such a
 * registration refers to it, and goes after its UNREG.
 */
TEST_F_TIMEOUT(mm, close_keeps_registration, TIMEOUT)
{
	static __u32 word;
	int fd, fd2, idx = -1;

	word = 0;
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, reg_p(fd, self->cmd, &word, 4, 5, &idx));
	EXPECT_EQ(0, idx);
	ASSERT_EQ(0, close(fd));
	EXPECT_EQ(0, ld_u32(&word));

	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(1U << 5, ld_u32(&word));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, ld_u32(&word));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(1U << 5, ld_u32(&word));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, ld_u32(&word));
	EXPECT_EQ(-EBUSY, ue_del(self->ev));
	EXPECT_TRUE(ue_event_exists(NULL, self->ev));

	/* UNREG through a new file, while enabled: the bit is cleared */
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(1U << 5, ld_u32(&word));
	fd2 = ue_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, ue_unreg(fd2, &word, 5));
	EXPECT_EQ(0, ld_u32(&word));
	EXPECT_EQ(-ENOENT, ue_unreg(fd2, &word, 5));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(0, ld_u32(&word));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, ue_del_fd(fd2, self->ev));
	EXPECT_FALSE(ue_event_exists(NULL, self->ev));

	/* UNREG first, then the close of the file with the write index */
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, reg_p(fd, self->cmd, &word, 4, 5, &idx));
	EXPECT_EQ(0, idx);
	EXPECT_EQ(0, ue_unreg(fd2, &word, 5));
	EXPECT_EQ(-EBUSY, ue_del_fd(fd2, self->ev));
	close(fd);
	EXPECT_EQ(0, ue_del_fd(fd2, self->ev));
	EXPECT_FALSE(ue_event_exists(NULL, self->ev));

	/* Without PERSIST the registration alone keeps the event alive */
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, self->cmd, &word, 5, NULL));
	close(fd);
	EXPECT_TRUE(ue_event_exists(NULL, self->ev));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(1U << 5, ld_u32(&word));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, ld_u32(&word));
	EXPECT_TRUE(ue_event_exists(NULL, self->ev));
	EXPECT_EQ(0, ue_unreg(fd2, &word, 5));
	EXPECT_TRUE(ue_wait_gone(NULL, self->ev, ASYNC_MS));
	close(fd2);
}

/* Fork a child that runs peer_loop() on @word; its pid or -1 */
static pid_t fork_peer(struct chan *c, __u32 *word, const char *cmd)
{
	struct peer p;
	pid_t pid;

	if (chan_open(c))
		return -1;
	pid = ue_fork();
	if (pid == 0) {
		chan_side(c, true);
		p.rfd = c->to_child[0];
		p.wfd = c->to_parent[1];
		p.word = word;
		p.cmd = cmd;
		_exit(peer_loop(&p));
	}
	chan_side(c, false);
	return pid;
}

/*
 * A fork()ed child keeps the registrations its parent made through a file
 * closed before the fork: its own copy of the word follows enable and
 * disable, also after the parent's UNREG (which acts on the parent only),
 * DIAG_IOCSDEL is EBUSY while the child holds it, and the child's UNREG
 * ends it.  A second child that exits with the registration: the event can
 * be deleted once it is reaped.
 */
TEST_F_TIMEOUT(mm, fork_child_keeps, TIMEOUT)
{
	static __u32 word;
	int status = 0, tries;
	struct chan c;
	pid_t pid;

	word = 0;
	ASSERT_EQ(0, reg_closed(self->cmd, &word, 4, 2));
	pid = fork_peer(&c, &word, self->cmd);
	ASSERT_LT(0, pid);

	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(1U << 2, settled(&word, 1U << 2));
	EXPECT_EQ(1U << 2, peer_word(&c, 1U << 2));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, settled(&word, 0));
	EXPECT_EQ(0, peer_word(&c, 0));

	/* The parent's UNREG leaves the child's registration */
	EXPECT_EQ(0, ue_unreg_own(&word, 2));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(0, settled(&word, 0));
	EXPECT_EQ(1U << 2, peer_word(&c, 1U << 2));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, peer_word(&c, 0));
	EXPECT_EQ(-EBUSY, ue_del(self->ev));

	/* The child's own UNREG works and ends it */
	EXPECT_EQ(0, peer_result(&c, PEER_UNREG, 2));
	EXPECT_EQ(-ENOENT, peer_result(&c, PEER_UNREG, 2));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(0, peer_word(&c, 0));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, peer_call(&c, PEER_QUIT, 0, NULL));
	ASSERT_EQ(0, ue_wait_child(pid, WAIT_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	chan_close(&c, false);
	EXPECT_EQ(0, ue_del(self->ev));

	/* A child that exits while it still has the registration */
	ASSERT_EQ(0, reg_closed(self->cmd, &word, 4, 2));
	pid = fork_peer(&c, &word, self->cmd);
	ASSERT_LT(0, pid);
	EXPECT_EQ(0, ue_unreg_own(&word, 2));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(1U << 2, peer_word(&c, 1U << 2));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(-EBUSY, ue_del(self->ev));
	EXPECT_EQ(0, peer_call(&c, PEER_QUIT, 0, NULL));
	ASSERT_EQ(0, ue_wait_child(pid, WAIT_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	chan_close(&c, false);
	EXPECT_EQ(0, del_retry(self->ev, ASYNC_MS, &tries));
	if (tries > 1)
		TH_LOG("DEL after the child's exit took %d tries", tries);
}

/*
 * A word in MADV_WIPEONFORK memory, registered while its event is on: the
 * forked child's copy of the page is zeroed by the fork (the bits the
 * parent keeps there besides its enable bit are gone), yet the child's
 * copy of the registration follows the event: within 5 s the child's bit
 * reads 1 while the event is on, then 0 after the disable and 1 after the
 * next enable; it is the child's own registration (its UNREG works once),
 * and the parent's word is never touched by the child's.
 */
TEST_F_TIMEOUT(mm, wipeonfork_word_follows, TIMEOUT)
{
	const __u32 bit = 1U << 3, mine = 0xf0000000;
	int status = 0;
	struct chan c;
	__u32 *word;
	pid_t pid;

	word = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, madvise(word, page_size, MADV_WIPEONFORK));
	*word = mine;
	ASSERT_EQ(0, reg_closed(self->cmd, word, 4, 3));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(mine | bit, ld_u32(word));

	pid = fork_peer(&c, word, self->cmd);
	ASSERT_LT(0, pid);
	EXPECT_EQ(bit, peer_word(&c, bit))
		TH_LOG("the child's wiped word did not get its bit");
	EXPECT_EQ(mine | bit, ld_u32(word));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, peer_word(&c, 0));
	EXPECT_EQ(mine, settled(word, mine));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(bit, peer_word(&c, bit));
	EXPECT_EQ(mine | bit, settled(word, mine | bit));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, peer_word(&c, 0));
	EXPECT_EQ(mine, settled(word, mine));

	EXPECT_EQ(0, peer_result(&c, PEER_UNREG, 3));
	EXPECT_EQ(-ENOENT, peer_result(&c, PEER_UNREG, 3));
	EXPECT_EQ(0, peer_call(&c, PEER_QUIT, 0, NULL));
	ASSERT_EQ(0, ue_wait_child(pid, WAIT_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	chan_close(&c, false);
	EXPECT_EQ(0, ue_unreg_own(word, 3));
	EXPECT_EQ(mine, ld_u32(word));
	EXPECT_EQ(0, ue_del(self->ev));
	munmap(word, page_size);
}

/*
 * A word in MADV_DONTFORK memory: the forked child has no such memory, so
 * it has no registration of it either: toggling the event while the child
 * lives only moves the parent's bit (and troubles nobody), the child's
 * DIAG_IOCSUNREG of (addr, bit) is ENOENT and its DIAG_IOCSREG there is
 * EFAULT, and once the parent unregistered, the event can be deleted
 * while the child still runs.
 */
TEST_F_TIMEOUT(mm, dontfork_word_not_inherited, TIMEOUT)
{
	const __u32 bit = 1U << 1;
	int status = 0, i;
	struct chan c;
	__u32 *word;
	pid_t pid;

	word = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, madvise(word, page_size, MADV_DONTFORK));
	*word = 0;
	ASSERT_EQ(0, reg_closed(self->cmd, word, 4, 1));
	pid = fork_peer(&c, word, self->cmd);
	ASSERT_LT(0, pid);

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, ue_enable(self->ev, true));
		EXPECT_EQ(bit, settled(word, bit));
		ASSERT_EQ(0, ue_enable(self->ev, false));
		EXPECT_EQ(0, settled(word, 0));
	}
	EXPECT_EQ(-ENOENT, peer_result(&c, PEER_UNREG, 1))
		TH_LOG("the child has a registration of memory it lacks");
	EXPECT_EQ(-EFAULT, peer_result(&c, PEER_REG, 1));
	EXPECT_EQ(-EBUSY, ue_del(self->ev));
	EXPECT_EQ(0, ue_unreg_own(word, 1));
	EXPECT_EQ(0, ue_del(self->ev))
		TH_LOG("the child holds the event");

	EXPECT_EQ(0, peer_call(&c, PEER_QUIT, 0, NULL));
	ASSERT_EQ(0, ue_wait_child(pid, WAIT_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	chan_close(&c, false);
	munmap(word, page_size);
}

#define TREE_PER_PAGE	24

/* Word @i of fork_copies_tree_without_dontfork_words: TREE_PER_PAGE a page */
static __u32 *tree_word(char *map, size_t i)
{
	return (__u32 *)(map + i / TREE_PER_PAGE * page_size) + i % TREE_PER_PAGE;
}

/*
 * Its child: the event is enabled.  Check the child's copies (the middle
 * page is not mapped here), disable the event, check again, register one
 * more word and end every registration it should have, and none it should
 * not.  Exit code: 0, or which check failed.
 */
static int tree_child(const char *ev, const char *cmd, char *map)
{
	__u32 extra = 0;
	size_t i;

	for (i = 0; i < 3 * TREE_PER_PAGE; i++)
		if (i / TREE_PER_PAGE != 1 && settled(tree_word(map, i), 1) != 1)
			return 10;
	if (ue_enable(ev, false))
		return 11;
	for (i = 0; i < 3 * TREE_PER_PAGE; i++)
		if (i / TREE_PER_PAGE != 1 && settled(tree_word(map, i), 0))
			return 12;
	/* A new registration goes into the tree the fork built */
	if (reg_closed(cmd, &extra, 4, 0) || ue_unreg_own(&extra, 0))
		return 13;
	for (i = 0; i < 3 * TREE_PER_PAGE; i++) {
		int want = i / TREE_PER_PAGE == 1 ? -ENOENT : 0;

		if (ue_unreg_own(tree_word(map, i), 0) != want)
			return 20 + i / TREE_PER_PAGE;
	}
	return 0;
}

/*
 * fork() with many registrations, a third of them (the middle page of
 * three, between the others by address) in MADV_DONTFORK memory: the
 * child has exactly the others, each following the event, and the tree the
 * fork built for them takes a new registration and gives up each old one
 * once.  The parent's registrations are untouched.
 */
TEST_F_TIMEOUT(mm, fork_copies_tree_without_dontfork_words, TIMEOUT)
{
	int status = 0;
	char *map;
	pid_t pid;
	size_t i;

	map = mmap(NULL, 3 * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, madvise(map + page_size, page_size, MADV_DONTFORK));
	for (i = 0; i < 3 * TREE_PER_PAGE; i++) {
		*tree_word(map, i) = 0;
		ASSERT_EQ(0, reg_closed(self->cmd, tree_word(map, i), 4, 0));
	}
	ASSERT_EQ(0, ue_enable(self->ev, true));
	for (i = 0; i < 3 * TREE_PER_PAGE; i++)
		ASSERT_EQ(1, settled(tree_word(map, i), 1));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(tree_child(self->ev, self->cmd, map));
	ASSERT_EQ(0, ue_wait_child(pid, WAIT_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));

	/* The child's disable reached the parent's words, all of them */
	for (i = 0; i < 3 * TREE_PER_PAGE; i++) {
		EXPECT_EQ(0, settled(tree_word(map, i), 0));
		EXPECT_EQ(0, ue_unreg_own(tree_word(map, i), 0));
	}
	munmap(map, 3 * page_size);
}

static __u32 cvm_word;
static const char *cvm_cmd;

/* CLONE_VM child: register bit 1 through a file it closes, then exit */
static int cvm_reg_fn(void *arg)
{
	int fd = ue_open(), ret = 0;

	if (fd < 0)
		return 10;
	if (reg_p(fd, cvm_cmd, &cvm_word, 4, 1, NULL))
		ret = 11;
	/* Bit 0 is the parent's: the same address space */
	else if (reg_p(fd, cvm_cmd, &cvm_word, 4, 0, NULL) != -EADDRINUSE)
		ret = 12;
	close(fd);
	return ret;
}

/* CLONE_VM child: UNREG bit 0, which the parent registered */
static int cvm_unreg_fn(void *arg)
{
	return ue_unreg_own(&cvm_word, 0) ? 20 : 0;
}

/* Run @fn in a CLONE_VM child (not a thread); its exit code or -1 */
static int run_clone_vm(int (*fn)(void *))
{
	size_t size = 256 * 1024;
	int status = 0;
	char *stack;
	pid_t pid;

	stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	pid = clone(fn, stack + size, CLONE_VM | SIGCHLD, NULL);
	/* A blocking wait: the child shares this thread's errno */
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	munmap(stack, size);
	return pid < 0 || status == -1 ? -1 : ue_exit_code(status);
}

/*
 * A CLONE_VM child shares the registrations of the address space: it
 * cannot register the parent's bit again (EADDRINUSE), a bit it registers
 * keeps following the event after it exited, and its UNREG ends the
 * parent's registration.  Every file involved is closed at once.
 */
TEST_F_TIMEOUT(mm, clone_vm_shares, TIMEOUT)
{
	cvm_word = 0;
	cvm_cmd = self->cmd;
	ASSERT_EQ(0, reg_closed(self->cmd, &cvm_word, 4, 0));

	ASSERT_EQ(0, run_clone_vm(cvm_reg_fn));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(3, ld_u32(&cvm_word));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, ld_u32(&cvm_word));

	ASSERT_EQ(0, run_clone_vm(cvm_unreg_fn));
	EXPECT_EQ(-ENOENT, ue_unreg_own(&cvm_word, 0));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(2, ld_u32(&cvm_word));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, ld_u32(&cvm_word));
	EXPECT_EQ(-EBUSY, ue_del(self->ev));
	EXPECT_EQ(0, ue_unreg_own(&cvm_word, 1));
	EXPECT_EQ(0, ue_del(self->ev));
}

/*
 * execve() drops the registrations of the old address space: a child
 * registers (file closed at once), DIAG_IOCSDEL is EBUSY, the child execs
 * a program that only sleeps, and then the event can be deleted while
 * that program still runs; toggling it afterwards harms nobody.
 */
TEST_F_TIMEOUT(mm, execve_drops, TIMEOUT)
{
	int status = 0, tries, ret;
	int exec_pipe[2];
	struct chan c;
	__u32 *word;
	char b;
	pid_t pid;

	ASSERT_EQ(0, chan_open(&c));
	ASSERT_EQ(0, pipe2(exec_pipe, O_CLOEXEC));
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		chan_side(&c, true);
		close(exec_pipe[0]);
		word = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (word == MAP_FAILED)
			_exit(10);
		*word = 0;
		if (reg_closed(self->cmd, word, 4, 7))
			_exit(11);
		b = 'R';
		if (send_all(c.to_parent[1], &b, 1) ||
		    recv_all(c.to_child[0], &b, 1, 300000))
			_exit(12);
		execl("/proc/self/exe", "mm_test", "--mm-sleep", NULL);
		b = 'X';
		send_all(exec_pipe[1], &b, 1);
		_exit(13);
	}
	chan_side(&c, false);
	close(exec_pipe[1]);
	ASSERT_EQ(0, recv_all(c.to_parent[0], &b, 1, WAIT_MS));
	EXPECT_EQ(-EBUSY, ue_del(self->ev));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	ASSERT_EQ(0, ue_enable(self->ev, false));

	b = 'G';
	ASSERT_EQ(0, send_all(c.to_child[1], &b, 1));
	/* EOF once the exec is done: the pipe is close-on-exec */
	ret = recv_all(exec_pipe[0], &b, 1, WAIT_MS * 3);
	ASSERT_EQ(-EPIPE, ret) TH_LOG("exec did not happen: %d %c", ret, b);
	EXPECT_EQ(0, waitpid(pid, &status, WNOHANG));

	EXPECT_EQ(0, del_retry(self->ev, ASYNC_MS, &tries));
	if (tries > 1)
		TH_LOG("DEL after the exec took %d tries", tries);
	EXPECT_FALSE(ue_event_exists(NULL, self->ev));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	chan_close(&c, false);
	close(exec_pipe[0]);
}

/* --- 2: registrations outlive the thread ------------------------------- */

struct thr_reg {
	const char *cmd;
	__u32 *word;
	int bit;
	int ret;
};

static void *reg_thread_fn(void *arg)
{
	struct thr_reg *t = arg;

	t->ret = reg_closed(t->cmd, t->word, 4, t->bit);
	return NULL;
}

/*
 * A worker thread registers (through a file it closes) and exits; once
 * it is joined the process runs on and the bit follows the event, and the
 * main thread can UNREG it.
 */
TEST_F_TIMEOUT(mm, thread_exit_keeps, TIMEOUT)
{
	static __u32 word;
	struct thr_reg t = { .cmd = self->cmd, .word = &word, .bit = 3 };
	pthread_t th;

	word = 0;
	ASSERT_EQ(0, pthread_create(&th, NULL, reg_thread_fn, &t));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, t.ret);

	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(1U << 3, ld_u32(&word));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, ld_u32(&word));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(1U << 3, ld_u32(&word));
	EXPECT_EQ(0, ue_unreg_own(&word, 3));
	EXPECT_EQ(0, ld_u32(&word));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, ue_del(self->ev));
}

struct leader_exit {
	struct peer p;
	pid_t leader;
};

/* Wait for the main thread to be gone, say so, then serve the parent */
static void *after_leader_fn(void *arg)
{
	struct leader_exit *le = arg;
	long long end = ue_now_ms() + WAIT_MS;
	char b = 'R';

	while (task_state(le->leader, le->leader) != 'Z') {
		if (ue_now_ms() > end)
			_exit(30);
		usleep(1000);
	}
	if (send_all(le->p.wfd, &b, 1))
		_exit(31);
	_exit(peer_loop(&le->p));
}

/*
 * The main thread registers (file closed at once), starts a thread and
 * calls pthread_exit(); in that process (a child of the test) the other
 * thread sees its bit follow enable and disable, and can UNREG it.
 */
TEST_F_TIMEOUT(mm, main_thread_exit_keeps, TIMEOUT)
{
	static __u32 word;
	static struct leader_exit le;
	int status = 0;
	struct chan c;
	pthread_t th;
	pid_t pid;
	char b;

	word = 0;
	ASSERT_EQ(0, chan_open(&c));
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		chan_side(&c, true);
		le.p.rfd = c.to_child[0];
		le.p.wfd = c.to_parent[1];
		le.p.word = &word;
		le.p.cmd = self->cmd;
		le.leader = getpid();
		if (reg_closed(self->cmd, &word, 4, 4))
			_exit(20);
		if (pthread_create(&th, NULL, after_leader_fn, &le))
			_exit(21);
		pthread_exit(NULL);
	}
	chan_side(&c, false);
	ASSERT_EQ(0, recv_all(c.to_parent[0], &b, 1, WAIT_MS * 2));

	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(1U << 4, peer_word(&c, 1U << 4));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, peer_word(&c, 0));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_EQ(1U << 4, peer_word(&c, 1U << 4));
	EXPECT_EQ(-EBUSY, ue_del(self->ev));
	EXPECT_EQ(0, peer_result(&c, PEER_UNREG, 4));
	EXPECT_EQ(0, peer_word(&c, 0));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_EQ(0, peer_call(&c, PEER_QUIT, 0, NULL));
	ASSERT_EQ(0, ue_wait_child(pid, WAIT_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	chan_close(&c, false);
	EXPECT_EQ(0, ue_del(self->ev));
}

struct watcher {
	__u32 *word;
	__u32 mask;
	int saw_set;
	int saw_clear;
};

/* Wait (up to a bound) for the bit to be set, then to be clear again */
static void *watcher_fn(void *arg)
{
	struct watcher *w = arg;

	if (!wait_bits(w->word, w->mask, w->mask, WAIT_MS * 3))
		return NULL;
	st_int(&w->saw_set, 1);
	if (!wait_bits(w->word, w->mask, 0, WAIT_MS * 3))
		return NULL;
	st_int(&w->saw_clear, 1);
	return NULL;
}

/*
 * A thread created before the process's first registration watches the
 * bit: it sees it set by the enable and cleared by the disable.
 */
TEST_F_TIMEOUT(mm, thread_before_first_reg, TIMEOUT)
{
	static __u32 word;
	struct watcher w = { .word = &word, .mask = 1U << 6 };
	pthread_t th;

	word = 0;
	ASSERT_EQ(0, pthread_create(&th, NULL, watcher_fn, &w));
	usleep(10000);
	ASSERT_EQ(0, reg_closed(self->cmd, &word, 4, 6));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_TRUE(wait_int(&w.saw_set, 1, WAIT_MS));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_TRUE(wait_int(&w.saw_clear, 1, WAIT_MS));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(0, ue_unreg_own(&word, 6));
	EXPECT_EQ(0, ue_del(self->ev));
}

/* --- 3: liveness while a registrant stalls its own mmap_lock ----------- */

/*
 * A tiny FUSE file system served by a child of the test: the root
 * directory and one writable file whose READs can be held until the test
 * releases them (or FUSE_HOLD_MAX_MS pass, so that nothing hangs for
 * good): either by a server that answers nothing meanwhile (hold) or by
 * one that keeps answering everything else (withhold).
 */
#define FUSE_FILE	"file"
#define FUSE_FILE_INO	2
#define FUSE_FILE_SIZE	(64 * 1024)
#define FUSE_HOLD_MAX_MS 45000
#define FUSE_BYTE	'F'
#define FUSE_NR_HELD	64	/* READs withheld at most */

/* The protocol's "not implemented" errno (checkpatch flags the name) */
#define PASTE(a, b)	a##b
#define FUSE_NOT_IMPL	PASTE(ENO, SYS)

struct fuse_ctl {
	int hold;	/* hold READs until release */
	int release;
	int held;	/* READs that were held */
	int answered;	/* READs answered */
	int opcodes;	/* requests served */
	int withhold;	/* queue READs, answer the rest, until cleared */
	int withheld;	/* READs that were queued */
	int writes;	/* WRITEs served */
};

/* The file's contents, in the server */
static char fuse_data[FUSE_FILE_SIZE];

struct fuse_held_read {
	__u64 unique;
	__u64 offset;
	__u32 size;
};

static void fuse_reply(int fd, __u64 unique, int err, const void *data,
		       size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + len,
		.error = err,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &out, .iov_len = sizeof(out) },
		{ .iov_base = (void *)data, .iov_len = len },
	};

	/* ENOENT: the request was interrupted meanwhile */
	if (writev(fd, iov, len ? 2 : 1) < 0 && errno != ENOENT)
		_exit(40);
}

static void fuse_attr_of(__u64 ino, struct fuse_attr *a)
{
	bool root = ino == FUSE_ROOT_ID;

	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = root ? S_IFDIR | 0755 : S_IFREG | 0666;
	a->nlink = root ? 2 : 1;
	a->size = root ? 0 : FUSE_FILE_SIZE;
	a->blocks = a->size / 512;
	a->blksize = 4096;
}

static void fuse_answer_read(int fd, const struct fuse_held_read *r,
			     struct fuse_ctl *ctl)
{
	size_t len = 0;

	if (r->offset < FUSE_FILE_SIZE) {
		len = FUSE_FILE_SIZE - r->offset;
		if (len > r->size)
			len = r->size;
	}
	fuse_reply(fd, r->unique, 0, fuse_data + (len ? r->offset : 0), len);
	__atomic_add_fetch(&ctl->answered, 1, __ATOMIC_SEQ_CST);
}

static struct fuse_held_read fuse_queue[FUSE_NR_HELD];
static int fuse_nr_queued;
static long long fuse_queue_end;

/* Answer the withheld READs once the test says so or time is up */
static void fuse_flush_queue(int fd, struct fuse_ctl *ctl)
{
	int i;

	if (!fuse_nr_queued ||
	    (ld_int(&ctl->withhold) && ue_now_ms() < fuse_queue_end))
		return;
	for (i = 0; i < fuse_nr_queued; i++)
		fuse_answer_read(fd, &fuse_queue[i], ctl);
	fuse_nr_queued = 0;
}

static void fuse_read_reply(int fd, const struct fuse_in_header *in,
			    const struct fuse_read_in *ri,
			    struct fuse_ctl *ctl)
{
	struct fuse_held_read r = {
		.unique = in->unique,
		.offset = ri->offset,
		.size = ri->size,
	};
	long long end = ue_now_ms() + FUSE_HOLD_MAX_MS;

	if (ld_int(&ctl->withhold) && fuse_nr_queued < FUSE_NR_HELD) {
		if (!fuse_nr_queued)
			fuse_queue_end = end;
		fuse_queue[fuse_nr_queued++] = r;
		__atomic_add_fetch(&ctl->withheld, 1, __ATOMIC_SEQ_CST);
		return;
	}
	if (ld_int(&ctl->hold)) {
		__atomic_add_fetch(&ctl->held, 1, __ATOMIC_SEQ_CST);
		while (!ld_int(&ctl->release) && ue_now_ms() < end)
			usleep(5000);
	}
	fuse_answer_read(fd, &r, ctl);
}

/* Store what a WRITE brings (within the file's fixed size) */
static void fuse_write_reply(int fd, const struct fuse_in_header *in,
			     const struct fuse_write_in *wi,
			     struct fuse_ctl *ctl)
{
	struct fuse_write_out out = { .size = wi->size };
	size_t len = wi->size;

	if (wi->offset < FUSE_FILE_SIZE) {
		if (len > FUSE_FILE_SIZE - wi->offset)
			len = FUSE_FILE_SIZE - wi->offset;
		memcpy(fuse_data + wi->offset, wi + 1, len);
	}
	fuse_reply(fd, in->unique, 0, &out, sizeof(out));
	__atomic_add_fetch(&ctl->writes, 1, __ATOMIC_SEQ_CST);
}

/* Serve /dev/fuse @fd until the connection goes away; the exit code */
static int fuse_serve(int fd, struct fuse_ctl *ctl)
{
	static char buf[FUSE_MIN_READ_BUFFER + 256 * 1024];
	const struct fuse_in_header *in = (void *)buf;
	const void *arg = buf + sizeof(*in);
	struct fuse_init_out init;
	struct fuse_entry_out entry;
	struct fuse_attr_out attr;
	struct fuse_open_out open_out;
	const struct fuse_init_in *ii;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	memset(fuse_data, FUSE_BYTE, sizeof(fuse_data));
	for (;;) {
		fuse_flush_queue(fd, ctl);
		if (poll(&pfd, 1, 20) == 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR || errno == ENOENT ||
			    errno == EAGAIN)
				continue;
			return errno == ENODEV ? 0 : 41;
		}
		if ((size_t)n < sizeof(*in))
			continue;
		__atomic_add_fetch(&ctl->opcodes, 1, __ATOMIC_SEQ_CST);
		switch (in->opcode) {
		case FUSE_INIT:
			ii = arg;
			memset(&init, 0, sizeof(init));
			init.major = FUSE_KERNEL_VERSION;
			init.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
				     ii->minor : FUSE_KERNEL_MINOR_VERSION;
			init.max_readahead = ii->max_readahead;
			init.max_background = 16;
			init.congestion_threshold = 12;
			init.max_write = 4096;
			init.time_gran = 1;
			fuse_reply(fd, in->unique, 0, &init, sizeof(init));
			break;
		case FUSE_LOOKUP:
			if (in->nodeid != FUSE_ROOT_ID ||
			    strcmp(arg, FUSE_FILE)) {
				fuse_reply(fd, in->unique, -ENOENT, NULL, 0);
				break;
			}
			memset(&entry, 0, sizeof(entry));
			entry.nodeid = FUSE_FILE_INO;
			entry.entry_valid = 3600;
			entry.attr_valid = 3600;
			fuse_attr_of(FUSE_FILE_INO, &entry.attr);
			fuse_reply(fd, in->unique, 0, &entry, sizeof(entry));
			break;
		case FUSE_GETATTR:
		case FUSE_SETATTR:	/* the size and times stay */
			memset(&attr, 0, sizeof(attr));
			attr.attr_valid = 3600;
			fuse_attr_of(in->nodeid, &attr.attr);
			fuse_reply(fd, in->unique, 0, &attr, sizeof(attr));
			break;
		case FUSE_OPEN:
			memset(&open_out, 0, sizeof(open_out));
			open_out.fh = 1;
			fuse_reply(fd, in->unique, 0, &open_out,
				   sizeof(open_out));
			break;
		case FUSE_READ:
			fuse_read_reply(fd, in, arg, ctl);
			break;
		case FUSE_WRITE:
			fuse_write_reply(fd, in, arg, ctl);
			break;
		case FUSE_RELEASE:
		case FUSE_FLUSH:
		case FUSE_FSYNC:
			fuse_reply(fd, in->unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		default:
			fuse_reply(fd, in->unique, -FUSE_NOT_IMPL, NULL, 0);
			break;
		}
	}
}

/*
 * Mount the test's FUSE file system on a new directory (@dir, of
 * FUSE_DIR_SIZE; *@mounted once it is) and fork its server (which alone
 * holds the connection: killing it aborts it), controlled through *@ctl;
 * the path of its file in @file.  0; 1 if FUSE is missing, with the
 * reason in @why; or -errno.
 */
static int fuse_start(char *dir, bool *mounted, struct fuse_ctl **ctl,
		      char *file, size_t size, const char **why)
{
	static char reason[96];
	char opts[128];
	struct stat st;
	pid_t server;
	int ffd, err;

	ffd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (ffd < 0) {
		snprintf(reason, sizeof(reason), "no /dev/fuse: %s",
			 strerror(errno));
		*why = reason;
		return 1;
	}
	snprintf(dir, FUSE_DIR_SIZE, "/tmp/mm_test_fuse.XXXXXX");
	if (!mkdtemp(dir)) {
		err = -errno;
		close(ffd);
		dir[0] = '\0';
		return err;
	}
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", ffd);
	if (mount("mm_test", dir, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		err = errno;
		close(ffd);
		rmdir(dir);
		dir[0] = '\0';
		if (err != ENODEV)
			return -err;
		*why = "no FUSE file system (CONFIG_FUSE_FS?)";
		return 1;
	}
	*mounted = true;
	*ctl = shared_page();
	server = *ctl ? ue_fork() : -1;
	if (server == 0)
		_exit(fuse_serve(ffd, *ctl));
	close(ffd);
	if (server < 0)
		return -ENOMEM;
	snprintf(file, size, "%s/" FUSE_FILE, dir);
	if (stat(file, &st))
		return -errno;
	return st.st_size == FUSE_FILE_SIZE ? 0 : -EIO;
}

/* Let every held READ go, so that nothing stays blocked on the FUSE page */
static void fuse_release(struct fuse_ctl *ctl)
{
	st_int(&ctl->hold, 0);
	st_int(&ctl->release, 1);
}

/* What the registrant (a child of the test) shares with the test */
struct registrant {
	__u32 word;		/* copy of the private enable word */
	int ready;
	int go_read, go_mmap, quit;
	int read_tid, mmap_tid;
	int read_done, mmap_done;
	long read_ret;
	int read_errno;
	char read_byte;
	int mmap_ok;
};

struct registrant_ctx {
	struct registrant *sh;
	char *fuse_map;
	int mem_fd;
};

static char read_buf[64];

/* pread() /proc/self/mem at the FUSE page: faults it with mmap_lock held */
static void *stall_read_fn(void *arg)
{
	struct registrant_ctx *ctx = arg;
	struct registrant *sh = ctx->sh;
	ssize_t n;

	st_int(&sh->read_tid, my_tid());
	while (!ld_int(&sh->go_read))
		usleep(1000);
	n = pread(ctx->mem_fd, read_buf, 16, (off_t)(uintptr_t)ctx->fuse_map);
	sh->read_errno = n < 0 ? errno : 0;
	sh->read_ret = n;
	sh->read_byte = read_buf[0];
	st_int(&sh->read_done, 1);
	return NULL;
}

/* mmap(): queues for mmap_lock for writing behind the stalled reader */
static void *stall_mmap_fn(void *arg)
{
	struct registrant_ctx *ctx = arg;
	struct registrant *sh = ctx->sh;
	void *p;

	st_int(&sh->mmap_tid, my_tid());
	while (!ld_int(&sh->go_mmap))
		usleep(1000);
	p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sh->mmap_ok = p != MAP_FAILED;
	st_int(&sh->mmap_done, 1);
	return NULL;
}

/*
 * The registrant: registers @cmd with its bit in private anonymous
 * memory, starts both stall threads (before the stall: creating a thread
 * maps its stack) and then only copies its word into the shared page,
 * which needs no mmap_lock, until it is told to quit.
 */
static int registrant_main(struct registrant *sh, const char *file,
			   const char *cmd)
{
	static struct registrant_ctx ctx;
	pthread_t rt, mt;
	__u32 *word;
	int fd, ufd;

	memset(read_buf, 0, sizeof(read_buf));
	ctx.sh = sh;
	fd = open(file, O_RDONLY);
	if (fd < 0)
		return 50;
	ctx.fuse_map = mmap(NULL, FUSE_FILE_SIZE, PROT_READ, MAP_PRIVATE,
			    fd, 0);
	if (ctx.fuse_map == MAP_FAILED)
		return 51;
	ctx.mem_fd = open("/proc/self/mem", O_RDONLY);
	if (ctx.mem_fd < 0)
		return 52;
	word = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (word == MAP_FAILED)
		return 53;
	*word = 0;
	ufd = ue_open();
	if (ufd < 0 || reg_p(ufd, cmd, word, 4, 0, NULL))
		return 54;
	if (pthread_create(&rt, NULL, stall_read_fn, &ctx) ||
	    pthread_create(&mt, NULL, stall_mmap_fn, &ctx))
		return 55;
	while (!ld_int(&sh->read_tid) || !ld_int(&sh->mmap_tid))
		usleep(1000);
	st_int(&sh->ready, 1);
	while (!ld_int(&sh->quit)) {
		__atomic_store_n(&sh->word, ld_u32(word), __ATOMIC_SEQ_CST);
		usleep(1000);
	}
	pthread_join(rt, NULL);
	pthread_join(mt, NULL);
	return 0;
}

/* Results of the two liveness probes, in a shared page */
struct probes {
	long long reg_ms, fork_ms;
	int forks, fork_err, reg_err;
	long long en_ms, dis_ms;
	int en_ret, dis_ret;
};

#define NR_FORKS	50
#define LIVE_BOUND_MS	15000

/* Probe (a): another process, with a registration of its own, forks */
static int fork_probe(struct probes *pr, const char *cmd)
{
	static __u32 word;
	long long t0 = ue_now_ms();
	int i, status;
	pid_t pid;

	pr->reg_err = reg_closed(cmd, &word, 4, 0);
	pr->reg_ms = ue_now_ms() - t0;
	t0 = ue_now_ms();
	for (i = 0; i < NR_FORKS; i++) {
		pid = fork();
		if (pid < 0) {
			pr->fork_err = errno;
			break;
		}
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid) {
			pr->fork_err = errno;
			break;
		}
		pr->forks++;
	}
	pr->fork_ms = ue_now_ms() - t0;
	return 0;
}

/* Probe (b): enable and disable the stalled registrant's event */
static int toggle_probe(struct probes *pr, const char *ev)
{
	long long t0 = ue_now_ms();

	pr->en_ret = ue_enable(ev, true);
	pr->en_ms = ue_now_ms() - t0;
	t0 = ue_now_ms();
	pr->dis_ret = ue_enable(ev, false);
	pr->dis_ms = ue_now_ms() - t0;
	return 0;
}

/*
 * Liveness while a registrant blocks its own mmap_lock: one of its
 * threads faults a FUSE page (through /proc/self/mem, so mmap_lock is held
 * for reading) whose READ the test's own FUSE server holds, another one
 * waits in mmap() for the write lock, so every new reader of that
 * mmap_lock blocks.  Meanwhile (a) an unrelated process forks, exits and
 * waits 50 times and (b) the registrant's event is enabled and disabled,
 * each within 15 s (clearly less than the stall, which lasts until both
 * are done); (c) once the READ is answered, the registrant's bit follows
 * the event again (the kernel updated it asynchronously).
 */
TEST_F_TIMEOUT(mm, liveness_mmap_lock_stall, TIMEOUT)
{
	struct registrant *sh;
	struct probes *pr;
	const char *why = NULL;
	char file[96];
	int status = 0, tries, i, ret;
	pid_t reg, fprobe, tprobe;
	long long end;
	char state;

	ret = fuse_start(self->fuse_dir, &self->fuse_mounted, &self->fuse,
			 file, sizeof(file), &why);
	if (ret == 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("FUSE: %s", strerror(-ret));
	sh = shared_page();
	ASSERT_NE(NULL, sh);
	pr = shared_page();
	ASSERT_NE(NULL, pr);

	reg = ue_fork();
	ASSERT_LE(0, reg);
	if (reg == 0)
		_exit(registrant_main(sh, file, self->cmd));
	ASSERT_TRUE(wait_int(&sh->ready, 1, WAIT_MS * 3));

	/* The stall: a reader held in the FUSE READ, a writer queued */
	st_int(&self->fuse->hold, 1);
	st_int(&sh->go_read, 1);
	ASSERT_TRUE(wait_int(&self->fuse->held, 1, WAIT_MS * 3))
		TH_LOG("the FUSE READ never came");
	st_int(&sh->go_mmap, 1);
	end = ue_now_ms() + WAIT_MS;
	do {
		state = task_state(reg, sh->mmap_tid);
		if (state == 'D' || ue_now_ms() > end)
			break;
		usleep(1000);
	} while (1);
	ASSERT_EQ('D', state) TH_LOG("mmap() is not waiting for mmap_lock");
	ASSERT_EQ(0, ld_int(&sh->mmap_done));
	ASSERT_EQ(0, ld_int(&sh->read_done));

	tprobe = ue_fork();
	ASSERT_LE(0, tprobe);
	if (tprobe == 0)
		_exit(toggle_probe(pr, self->ev));
	fprobe = ue_fork();
	ASSERT_LE(0, fprobe);
	if (fprobe == 0)
		_exit(fork_probe(pr, self->cmd2));
	EXPECT_EQ(0, ue_wait_child(fprobe, 4 * LIVE_BOUND_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	EXPECT_EQ(0, ue_wait_child(tprobe, 4 * LIVE_BOUND_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));

	TH_LOG("stalled: reg %lld ms, %d forks in %lld ms, enable %lld ms, disable %lld ms",
	       pr->reg_ms, pr->forks, pr->fork_ms, pr->en_ms, pr->dis_ms);
	/* All of it happened while the stall was still in place */
	EXPECT_EQ(0, ld_int(&self->fuse->answered));
	EXPECT_EQ(0, ld_int(&sh->mmap_done));
	EXPECT_EQ(0, pr->reg_err);
	EXPECT_EQ(0, pr->fork_err);
	EXPECT_EQ(NR_FORKS, pr->forks);
	EXPECT_GT(LIVE_BOUND_MS, pr->reg_ms + pr->fork_ms);
	EXPECT_EQ(0, pr->en_ret);
	EXPECT_EQ(0, pr->dis_ret);
	EXPECT_GT(LIVE_BOUND_MS, pr->en_ms);
	EXPECT_GT(LIVE_BOUND_MS, pr->dis_ms);

	/* (c) The READ is answered: the stall ends, the bit follows again */
	fuse_release(self->fuse);
	EXPECT_TRUE(wait_int(&sh->read_done, 1, WAIT_MS * 3));
	EXPECT_TRUE(wait_int(&sh->mmap_done, 1, WAIT_MS * 3));
	EXPECT_EQ(16, sh->read_ret) TH_LOG("pread: %s",
					   strerror(sh->read_errno));
	EXPECT_EQ(FUSE_BYTE, sh->read_byte);
	EXPECT_EQ(1, sh->mmap_ok);
	EXPECT_TRUE(wait_bits(&sh->word, 1, 0, ASYNC_MS));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, ue_enable(self->ev, true));
		EXPECT_TRUE(wait_bits(&sh->word, 1, 1, ASYNC_MS))
			TH_LOG("bit not set after the stall");
		ASSERT_EQ(0, ue_enable(self->ev, false));
		EXPECT_TRUE(wait_bits(&sh->word, 1, 0, ASYNC_MS))
			TH_LOG("bit not cleared after the stall");
	}

	st_int(&sh->quit, 1);
	EXPECT_EQ(0, ue_wait_child(reg, WAIT_MS * 3, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	EXPECT_EQ(0, del_retry(self->ev, ASYNC_MS, &tries));
	EXPECT_EQ(0, del_retry(self->ev2, ASYNC_MS, &tries));
}

/* --- 4: a word in a shared FUSE page never holds a kernel worker ------- */

#define STALL_MS	25000	/* READs withheld: beyond HUNG_SECS */
#define HUNG_SECS	10	/* hung_task_timeout_secs during the test */
#define STUCK_MS	5000	/* a kworker in D this long is parked */
#define TOGGLE_MS	10000	/* bound of an enable or disable */
#define NR_INHERIT	2
#define NR_WATCH	128

/* kworkers seen in D state: since when, in consecutive samples */
struct kw_watch {
	pid_t pid;
	unsigned int round;
	long long since;
};

struct dscan {
	struct kw_watch w[NR_WATCH];
	int nr;
	unsigned int round;
	int samples;		/* of a kworker in D */
	long long worst_ms;	/* longest run in D */
	pid_t worst_pid;
	char worst_comm[32];
	char worst_where[512];
};

/* The kernel stack of @pid (or else its wchan) on one line */
static void task_where(pid_t pid, char *buf, size_t size)
{
	char path[64], *text, *p;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	text = ue_read_file(path);
	if (!text || !*text) {
		free(text);
		snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
		text = ue_read_file(path);
	}
	snprintf(buf, size, "%s", text ? text : "?");
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	free(text);
}

/* One look at every kworker's state; one that is not in D starts over */
static void dscan_sample(struct dscan *ds)
{
	char path[64], buf[512], *l, *r;
	long long now = ue_now_ms();
	struct dirent *de;
	ssize_t n;
	pid_t pid;
	int i, fd;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return;
	ds->round++;
	while ((de = readdir(dir))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		l = strchr(buf, '(');
		r = strrchr(buf, ')');
		if (!l || !r || r < l || r[1] != ' ' || r[2] != 'D' ||
		    strncmp(l + 1, "kworker", 7))
			continue;
		ds->samples++;
		for (i = 0; i < ds->nr && ds->w[i].pid != pid; i++)
			;
		if (i == ds->nr) {
			if (ds->nr == NR_WATCH)
				continue;
			ds->nr++;
			ds->w[i].pid = pid;
			ds->w[i].since = now;
		}
		ds->w[i].round = ds->round;
		if (now - ds->w[i].since >= ds->worst_ms) {
			ds->worst_ms = now - ds->w[i].since;
			ds->worst_pid = pid;
			snprintf(ds->worst_comm, sizeof(ds->worst_comm),
				 "%.*s", (int)(r - l - 1), l + 1);
			task_where(pid, ds->worst_where,
				   sizeof(ds->worst_where));
		}
	}
	closedir(dir);
	for (i = 0; i < ds->nr; ) {
		if (ds->w[i].round != ds->round)
			ds->w[i] = ds->w[--ds->nr];
		else
			i++;
	}
}

/* What the toggling child and the inheriting children share */
struct stall_probe {
	long long en_ms, dis_ms;
	int en_ret, dis_ret;
	int done;
	int quit;
};

/* Enable the event, wait half the stall, disable it, timing both */
static int stall_toggle(struct stall_probe *pr, const char *ev)
{
	long long t0 = ue_now_ms();

	pr->en_ret = ue_enable(ev, true);
	pr->en_ms = ue_now_ms() - t0;
	usleep(STALL_MS / 2 * 1000);
	t0 = ue_now_ms();
	pr->dis_ret = ue_enable(ev, false);
	pr->dis_ms = ue_now_ms() - t0;
	st_int(&pr->done, 1);
	return 0;
}

/*
 * The enable word lives in a MAP_SHARED mapping of the test's FUSE file;
 * the registration faults the page in (its READ is answered) and two
 * forked children inherit the registration, so three mms have it.  Then
 * a second open() of the file drops the page from the page cache (FUSE
 * invalidates it without FOPEN_KEEP_CACHE), and for 25 s, longer than
 * the hung task timeout (lowered to 10 s if it is longer), the server
 * withholds every READ while it keeps answering the rest.  Meanwhile the
 * event is enabled and then disabled, each returning within 10 s, and no
 * kworker is in D state (folio_wait_bit_common, request_wait_answer ...)
 * for 5 s in a row: the kernel must not park a worker on the registrants'
 * page.  Once the READs are answered and the program has written its
 * page again (the kernel does not fault a word of a non-tmpfs file
 * mapping in for the program: that fault can wait for the filesystem),
 * one more enable and disable move the bit, within 10 s each.
 */
TEST_F_TIMEOUT(mm, fuse_shared_word_no_stuck_worker, TIMEOUT)
{
	static struct dscan ds;
	const char *why = NULL;
	struct stall_probe *pr;
	pid_t kids[NR_INHERIT], toggler;
	int fd, ret, i, status = 0, tries;
	long long t0, open_ms;
	unsigned char vec = 0;
	char file[96], *map;
	bool followed;
	__u32 *word;
	long v;

	memset(&ds, 0, sizeof(ds));
	ret = fuse_start(self->fuse_dir, &self->fuse_mounted, &self->fuse,
			 file, sizeof(file), &why);
	if (ret == 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("FUSE: %s", strerror(-ret));
	pr = shared_page();
	ASSERT_NE(NULL, pr);

	if (!ue_read_long(HUNG_SYSCTL, &v)) {
		if (!v || v > HUNG_SECS) {
			self->saved_hung = v;
			ASSERT_EQ(0, ue_write_long(HUNG_SYSCTL, HUNG_SECS));
		}
		TH_LOG("hung_task_timeout_secs %ld, %d during the test", v,
		       v && v < HUNG_SECS ? (int)v : HUNG_SECS);
	} else {
		TH_LOG("no %s: no hung task detector", HUNG_SYSCTL);
	}

	fd = open(file, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", file, strerror(errno));
	map = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	ASSERT_NE(MAP_FAILED, map);
	close(fd);
	word = (__u32 *)(map + 16);
	ASSERT_EQ(0, reg_closed(self->cmd, word, 4, 0));
	ASSERT_LT(0, ld_int(&self->fuse->answered));
	EXPECT_EQ(0, ld_u32(word) & 1);
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_TRUE(wait_bits(word, 1, 1, ASYNC_MS));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_TRUE(wait_bits(word, 1, 0, ASYNC_MS));

	for (i = 0; i < NR_INHERIT; i++) {
		kids[i] = ue_fork();
		ASSERT_LE(0, kids[i]);
		if (kids[i] == 0) {
			/* Keeps the registration; never touches the page */
			while (!ld_int(&pr->quit))
				usleep(10000);
			_exit(0);
		}
	}

	/* From here on, no READ is answered and nothing touches the page */
	st_int(&self->fuse->withhold, 1);
	t0 = ue_now_ms();
	fd = open(file, O_RDONLY);
	ASSERT_LE(0, fd);
	close(fd);
	open_ms = ue_now_ms() - t0;
	ASSERT_EQ(0, mincore(map, page_size, &vec));
	ASSERT_EQ(0, vec & 1) TH_LOG("the second open() left the page cached");

	toggler = ue_fork();
	ASSERT_LE(0, toggler);
	if (toggler == 0)
		_exit(stall_toggle(pr, self->ev));
	while (ue_now_ms() - t0 < STALL_MS) {
		dscan_sample(&ds);
		usleep(200 * 1000);
	}
	EXPECT_EQ(1, ld_int(&pr->done))
		TH_LOG("enable + disable did not return within the stall");
	TH_LOG("stall: open %lld ms, %d READs withheld, enable %lld ms, disable %lld ms",
	       open_ms, ld_int(&self->fuse->withheld), pr->en_ms, pr->dis_ms);
	TH_LOG("%d samples of a kworker in D, longest %lld ms", ds.samples,
	       ds.worst_ms);
	EXPECT_GT(STUCK_MS, ds.worst_ms)
		TH_LOG("%s (pid %d) in D for %lld ms: %s", ds.worst_comm,
		       ds.worst_pid, ds.worst_ms, ds.worst_where);

	st_int(&self->fuse->withhold, 0);
	ASSERT_EQ(0, ue_wait_child(toggler, 3 * WAIT_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	EXPECT_EQ(0, pr->en_ret);
	EXPECT_EQ(0, pr->dis_ret);
	EXPECT_GT(TOGGLE_MS, pr->en_ms);
	EXPECT_GT(TOGGLE_MS, pr->dis_ms);

	/* The READs are answered: the bit follows, at least after a toggle */
	followed = wait_bits(word, 1, 0, WAIT_MS);
	TH_LOG("after the stall the bit %s", followed ?
	       "follows the event" : "did not follow the event");
	/* Another byte of the page: present and writable again */
	map[page_size - 1] ^= 1;
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_TRUE(wait_bits(word, 1, 1, WAIT_MS))
		TH_LOG("bit not set by the enable after the stall");
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_TRUE(wait_bits(word, 1, 0, WAIT_MS))
		TH_LOG("bit not cleared by the disable after the stall");

	st_int(&pr->quit, 1);
	for (i = 0; i < NR_INHERIT; i++) {
		EXPECT_EQ(0, ue_wait_child(kids[i], WAIT_MS, &status));
		EXPECT_EQ(0, ue_exit_code(status));
	}
	EXPECT_EQ(0, ue_unreg_own(word, 0));
	munmap(map, page_size);
	EXPECT_EQ(0, del_retry(self->ev, ASYNC_MS, &tries));
}

/* --- 5: the bit is never set before the write index works -------------- */

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

/* --- 6: the per-mm limit ----------------------------------------------- */

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

/* --- 7: registrations are charged to the memory cgroup ----------------- */

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
	snprintf(self->cg_dir, sizeof(self->cg_dir), CG_ROOT "/mm_test_%d",
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

/* --- 8: UNREG/REG racing fork() ---------------------------------------- */

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

/* --- 9: one memory bit, one registration ------------------------------- */

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
	/* What execve_drops execs: a program that only sleeps */
	if (argc > 1 && !strcmp(argv[1], "--mm-sleep")) {
		sleep(60);
		return 0;
	}
	return test_harness_run(argc, argv);
}
