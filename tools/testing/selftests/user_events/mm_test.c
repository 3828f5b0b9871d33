// SPDX-License-Identifier: GPL-2.0
/*
 * Registrations belong to the address space: a bit registered through a
 * file that is closed at once, by a thread that has exited or by a main
 * thread that called pthread_exit() keeps following its event; fork()
 * copies registrations (a word wiped by MADV_WIPEONFORK follows in the
 * child, one the child did not get, MADV_DONTFORK, is not registered
 * there, a tree of many words is copied whole), CLONE_VM shares them and
 * execve() drops them.  A word whose page is out is set once it is back,
 * however long that takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "mm_common.h"

#define TIMEOUT		600

/* --- fixture ----------------------------------------------------------- */

/* Shared with the teardown, which runs in the harness's process */
FIXTURE(mm) {
	char ev[EV_SIZE], cmd[CMD_SIZE];	/* the main event */
	char ev2[EV_SIZE], cmd2[CMD_SIZE];	/* a second one */
};

FIXTURE_SETUP(mm)
{
	const char *reason = ue_setup();

	if (reason)
		SKIP(return, "%s", reason);
	ASSERT_EQ(0, setup_events(self->ev, self->cmd, self->ev2, self->cmd2));
}

/*
 * In the harness's process, once the test process is gone: its
 * registrations went with its memory and its children (ue_fork()) were
 * killed with it.
 */
FIXTURE_TEARDOWN_PARENT(mm)
{
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

/* Longer than any retry limit a worker could have had: 30 runs, ~21 s */
#define ABSENT_MS	25000

/*
 * A word whose page stays out is never given up while its event is on:
 * the word is in a private mapping of a file (this program), whose copy
 * MADV_DONTNEED drops, so that the kernel's worker may not fault it in
 * (that would read the file) and has to wait for the program to touch the
 * page again.  The event is enabled while the page is out, nothing touches
 * it for ABSENT_MS, then the program writes another byte of the page: the
 * bit must be set soon after, with no further toggle.  (EI_PAD of the ELF
 * header, where the word is, reads 0 from the file.)
 */
TEST_F_TIMEOUT(mm, absent_word_set_when_back, TIMEOUT)
{
	char *map;
	__u32 *word;
	int fd;

	fd = open("/proc/self/exe", O_RDONLY);
	ASSERT_LE(0, fd);
	map = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		   0);
	close(fd);
	ASSERT_NE(MAP_FAILED, map);
	word = (__u32 *)(map + 12);
	*word = 0;
	ASSERT_EQ(0, reg_closed(self->cmd, word, 4, 0));

	/* The copy goes; the page is mapped again only by a touch */
	ASSERT_EQ(0, madvise(map, page_size, MADV_DONTNEED));
	ASSERT_EQ(0, ue_enable(self->ev, true));
	usleep(ABSENT_MS * 1000);

	__atomic_store_n(&map[page_size - 1], 1, __ATOMIC_RELAXED);
	EXPECT_TRUE(wait_bits(word, 1, 1, ASYNC_MS))
		TH_LOG("the bit was not set once the page was back");

	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_TRUE(wait_bits(word, 1, 0, ASYNC_MS));
	EXPECT_EQ(0, ue_unreg_own(word, 0));
	EXPECT_EQ(0, ue_del(self->ev));
	munmap(map, page_size);
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
