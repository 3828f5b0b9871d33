// SPDX-License-Identifier: GPL-2.0
/*
 * The enable bits of user_events and the life of a registration: 4- and
 * 8-byte enable words with every bit, words not faulted in yet, fork()
 * (the word copy-on-write in both processes), clone(CLONE_VM), execve()
 * and exit, and a registration that outlives the file it was made through
 * and the thread that made it.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"

#define TIMEOUT		300

#define EV_A		UE_PREFIX "ae_a"
#define EV_BITS		UE_PREFIX "ae_bits"
#define EV_COW		UE_PREFIX "ae_cow"
#define EV_CLONE	UE_PREFIX "ae_clone"
#define EV_EXEC		UE_PREFIX "ae_exec"
#define EV_EXIT		UE_PREFIX "ae_exit"
#define EV_EXIT2	UE_PREFIX "ae_exit2"
#define EV_CLOSE	UE_PREFIX "ae_close"
#define EV_THREAD	UE_PREFIX "ae_thread"

/* Where the exec test maps its enable word, before and after execve() */
#define EXEC_ADDR	((void *)(uintptr_t)(sizeof(void *) == 8 ? \
				     0x3f0000000000ULL : 0x3f000000ULL))

static const char * const events[] = {
	EV_A, EV_BITS, EV_COW, EV_CLONE, EV_EXEC, EV_EXIT, EV_EXIT2, EV_CLOSE,
	EV_THREAD,
};

static long page_size;

/* The fixture data is shared with the process that runs the teardown */
FIXTURE(abi) {
	int fd;
};

FIXTURE_SETUP(abi)
{
	const char *reason = ue_setup();

	self->fd = -1;
	page_size = sysconf(_SC_PAGESIZE);
	if (reason)
		SKIP(return, "%s", reason);
	ue_cleanup_names(events, ARRAY_SIZE(events));
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
}

/*
 * After the test process exited: its registrations went with its memory
 * and its files were released, so every event it made can be deleted.
 */
FIXTURE_TEARDOWN_PARENT(abi)
{
	if (!ue_setup())
		ue_cleanup_names(events, ARRAY_SIZE(events));
}

/* Three 8-byte units; the enable word under test is in the middle one */
union bits_area {
	__u64 q[3];
	__u32 d[6];
};

static __u64 bits_get(union bits_area *area, int word_off, int size)
{
	return size == 8 ? area->q[1] : area->d[2 + word_off / 4];
}

static void bits_set(union bits_area *area, int word_off, int size,
		     __u64 v)
{
	if (size == 8)
		area->q[1] = v;
	else
		area->d[2 + word_off / 4] = v;
}

/*
 * For a word of @size bytes at @word_off in the middle unit of @area and
 * every bit of it: registering while enabled sets it at once, UNREG clears
 * it, and while disabled the enable file sets and clears it.  No other bit
 * of the word, nor the memory around it, may change.
 */
static void check_all_bits(struct __test_metadata *_metadata, int fd,
			   union bits_area *area, int word_off, int size)
{
	const __u64 pat64 = 0x5aa5c33c0ff0a55aULL;
	void *addr = (char *)&area->q[1] + word_off;
	__u64 pattern, mask, before, after;
	int bit;

	before = area->q[0];
	after = area->q[2];

	ASSERT_EQ(0, ue_enable(EV_BITS, true));
	for (bit = 0; bit < size * 8; bit++) {
		mask = 1ULL << bit;
		pattern = (size == 8 ? pat64 : (__u32)pat64) & ~mask;
		bits_set(area, word_off, size, pattern);
		ASSERT_EQ(0, ue_reg_flags(fd, EV_BITS " u32 a", 0, addr,
					  size, bit, NULL)) TH_LOG("bit %d", bit);
		EXPECT_EQ(pattern | mask, bits_get(area, word_off, size))
			TH_LOG("size %d bit %d", size, bit);
		ASSERT_EQ(0, ue_unreg(fd, addr, bit));
		EXPECT_EQ(pattern, bits_get(area, word_off, size))
			TH_LOG("size %d bit %d", size, bit);
	}
	ASSERT_EQ(0, ue_enable(EV_BITS, false));

	for (bit = 0; bit < size * 8; bit++) {
		mask = 1ULL << bit;
		pattern = (size == 8 ? ~pat64 : (__u32)~pat64) & ~mask;
		bits_set(area, word_off, size, pattern);
		ASSERT_EQ(0, ue_reg_flags(fd, EV_BITS " u32 a", 0, addr,
					  size, bit, NULL)) TH_LOG("bit %d", bit);
		EXPECT_EQ(pattern, bits_get(area, word_off, size))
			TH_LOG("size %d bit %d", size, bit);
		ASSERT_EQ(0, ue_enable(EV_BITS, true));
		EXPECT_EQ(pattern | mask, bits_get(area, word_off, size))
			TH_LOG("size %d bit %d", size, bit);
		ASSERT_EQ(0, ue_enable(EV_BITS, false));
		EXPECT_EQ(pattern, bits_get(area, word_off, size))
			TH_LOG("size %d bit %d", size, bit);
		ASSERT_EQ(0, ue_unreg(fd, addr, bit));
	}

	/* The other half of the 8 bytes around a 4-byte word */
	if (size == 4)
		EXPECT_EQ(0x77777777, area->d[2 + (word_off ? 0 : 1)]);
	EXPECT_EQ(before, area->q[0]);
	EXPECT_EQ(after, area->q[2]);
}

TEST_F_TIMEOUT(abi, words_and_bits, TIMEOUT)
{
	static union bits_area area;
	int fd_keep;

	/* Keep the event while single registrations come and go */
	fd_keep = ue_open();
	ASSERT_LE(0, fd_keep);
	ASSERT_EQ(0, ue_reg(fd_keep, EV_BITS " u32 a", &area.d[1], 31, NULL));

	area.q[0] = 0;
	area.q[2] = 0x1122334455667788ULL;

	/* 4-byte words at both halves of an 8-byte unit */
	area.d[3] = 0x77777777;
	check_all_bits(_metadata, self->fd, &area, 0, 4);
	area.d[2] = 0x77777777;
	check_all_bits(_metadata, self->fd, &area, 4, 4);
	if (sizeof(long) == 8)
		check_all_bits(_metadata, self->fd, &area, 0, 8);

	/* The keeper's bit followed the enables: clear now */
	EXPECT_EQ(0, area.q[0]);
	close(fd_keep);
}

TEST_F_TIMEOUT(abi, word_not_faulted_in, TIMEOUT)
{
	__u32 *word;
	long long end;

	/* A page never touched: the registration faults it in */
	word = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", word, 0, NULL));
	ASSERT_EQ(0, ue_enable(EV_A, true));
	EXPECT_EQ(1, *word);

	/* Registered while enabled on an untouched page: set at once */
	munmap(word, page_size);
	word = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, word);
	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", word + 1, 3, NULL));
	EXPECT_EQ(8, word[1]);

	/* The page dropped while registered: fixed up when toggled */
	ASSERT_EQ(0, madvise(word, page_size, MADV_DONTNEED));
	EXPECT_EQ(0, word[1]);
	ASSERT_EQ(0, madvise(word, page_size, MADV_DONTNEED));
	ASSERT_EQ(0, ue_enable(EV_A, false));
	ASSERT_EQ(0, ue_enable(EV_A, true));
	end = ue_now_ms() + 10000;
	while (__atomic_load_n(&word[1], __ATOMIC_SEQ_CST) != 8 &&
	       ue_now_ms() < end)
		usleep(10000);
	EXPECT_EQ(8, word[1]);
	ASSERT_EQ(0, ue_enable(EV_A, false));
	EXPECT_EQ(0, word[1]);
	munmap(word, page_size);
}

/* Parent/child command channel of the fork tests */
struct chan {
	int to_child[2];
	int to_parent[2];
};

static int chan_send(int fd, long v)
{
	return write(fd, &v, sizeof(v)) == sizeof(v) ? 0 : -1;
}

static long chan_recv(int fd)
{
	long v;
	struct timeval tv = { .tv_sec = 60 };
	fd_set set;

	FD_ZERO(&set);
	FD_SET(fd, &set);
	if (select(fd + 1, &set, NULL, NULL, &tv) != 1)
		return LONG_MIN;
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return LONG_MIN;
	return v;
}

enum { CMD_READ = 1, CMD_REG2, CMD_UNREG0, CMD_UNREG2, CMD_EXIT };

/* The COW test's enable word: alone on its page */
static __u32 *cow_word;

/* The child of the COW test: answers commands about its own word */
static void cow_child(struct chan *ch, int fd)
{
	long cmd;

	for (;;) {
		cmd = chan_recv(ch->to_child[0]);
		switch (cmd) {
		case CMD_READ:
			chan_send(ch->to_parent[1],
				  __atomic_load_n(cow_word, __ATOMIC_SEQ_CST));
			break;
		case CMD_REG2:
			chan_send(ch->to_parent[1],
				  ue_reg(fd, EV_COW " u32 a", cow_word, 2,
					 NULL));
			break;
		case CMD_UNREG0:
			chan_send(ch->to_parent[1], ue_unreg(fd, cow_word, 0));
			break;
		case CMD_UNREG2:
			chan_send(ch->to_parent[1], ue_unreg(fd, cow_word, 2));
			break;
		default:
			_exit(cmd == CMD_EXIT ? 0 : 1);
		}
	}
}

static long child_cmd(struct chan *ch, long cmd)
{
	if (chan_send(ch->to_child[1], cmd))
		return LONG_MIN;
	return chan_recv(ch->to_parent[0]);
}

/*
 * The word's page is shared copy-on-write after fork() and the child never
 * writes it itself: every bit the kernel sets or clears must land in the
 * copy of the process that registered it, and only there.
 */
TEST_F_TIMEOUT(abi, fork_copy_on_write, TIMEOUT)
{
	struct chan ch;
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(ch.to_child));
	ASSERT_EQ(0, pipe(ch.to_parent));
	cow_word = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, cow_word);
	*cow_word = 0;
	ASSERT_EQ(0, ue_reg(self->fd, EV_COW " u32 a", cow_word, 0, NULL));

	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		cow_child(&ch, self->fd);

	/* The child adds bit 2 to its copy only (the page still shared) */
	EXPECT_EQ(0, child_cmd(&ch, CMD_REG2));
	EXPECT_EQ(0, *cow_word);
	EXPECT_EQ(0, child_cmd(&ch, CMD_READ));

	/*
	 * Both copies follow the event, each with its own bits.  The
	 * parent's page is still write-protected by fork() (the child's
	 * registration copied it for the child): its mm's work item writes
	 * the word, a little later.  From then on both are writable.
	 */
	ASSERT_EQ(0, ue_enable(EV_COW, true));
	EXPECT_EQ(1, ue_word_wait(cow_word, 1, 5000));
	EXPECT_EQ(5, child_cmd(&ch, CMD_READ));
	ASSERT_EQ(0, ue_enable(EV_COW, false));
	EXPECT_EQ(0, *cow_word);
	EXPECT_EQ(0, child_cmd(&ch, CMD_READ));

	/* The child drops its inherited bit 0: the parent's stays */
	EXPECT_EQ(0, child_cmd(&ch, CMD_UNREG0));
	ASSERT_EQ(0, ue_enable(EV_COW, true));
	EXPECT_EQ(1, *cow_word);
	EXPECT_EQ(4, child_cmd(&ch, CMD_READ));
	ASSERT_EQ(0, ue_enable(EV_COW, false));
	EXPECT_EQ(0, *cow_word);
	EXPECT_EQ(0, child_cmd(&ch, CMD_READ));

	/* The parent drops bit 0: the child's bit 2 stays */
	EXPECT_EQ(0, ue_unreg(self->fd, cow_word, 0));
	EXPECT_EQ(-ENOENT, child_cmd(&ch, CMD_UNREG0));
	ASSERT_EQ(0, ue_enable(EV_COW, true));
	EXPECT_EQ(0, *cow_word);
	EXPECT_EQ(4, child_cmd(&ch, CMD_READ));
	ASSERT_EQ(0, ue_enable(EV_COW, false));
	EXPECT_EQ(0, child_cmd(&ch, CMD_READ));
	EXPECT_EQ(0, child_cmd(&ch, CMD_UNREG2));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, cow_word, 2));

	chan_send(ch.to_child[1], CMD_EXIT);
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	munmap(cow_word, page_size);
}

static __u32 clone_word;
static int clone_fd;

static int clone_reg_fn(void *arg)
{
	return ue_reg(clone_fd, EV_CLONE " u32 a", &clone_word, 1, NULL) ? 1 : 0;
}

static int clone_unreg_fn(void *arg)
{
	return ue_unreg(clone_fd, &clone_word, 0) ? 1 : 0;
}

static int run_clone_vm(int (*fn)(void *))
{
	size_t size = 256 * 1024;
	char *stack;
	int status = 0;
	pid_t pid;

	stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	pid = clone(fn, stack + size, CLONE_VM | SIGCHLD, NULL);
	if (pid < 0 || ue_wait_child(pid, 60000, &status))
		status = -1;
	munmap(stack, size);
	return pid < 0 ? -1 : ue_exit_code(status);
}

TEST_F_TIMEOUT(abi, clone_vm_shares, TIMEOUT)
{
	clone_word = 0;
	clone_fd = self->fd;
	ASSERT_EQ(0, ue_reg(self->fd, EV_CLONE " u32 a", &clone_word, 0,
			    NULL));

	/* A CLONE_VM child registers bit 1 and exits */
	ASSERT_EQ(0, run_clone_vm(clone_reg_fn));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_CLONE " u32 a",
				      &clone_word, 1, NULL));
	ASSERT_EQ(0, ue_enable(EV_CLONE, true));
	EXPECT_EQ(3, clone_word);
	ASSERT_EQ(0, ue_enable(EV_CLONE, false));
	EXPECT_EQ(0, clone_word);

	/* Another one drops the parent's bit 0 */
	ASSERT_EQ(0, run_clone_vm(clone_unreg_fn));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &clone_word, 0));
	ASSERT_EQ(0, ue_enable(EV_CLONE, true));
	EXPECT_EQ(2, clone_word);
	ASSERT_EQ(0, ue_enable(EV_CLONE, false));
	EXPECT_EQ(0, ue_unreg(self->fd, &clone_word, 1));
	ASSERT_EQ(0, ue_enable(EV_CLONE, true));
	EXPECT_EQ(0, clone_word);
	ASSERT_EQ(0, ue_enable(EV_CLONE, false));
}

/*
 * After execve() the image maps a page at EXEC_ADDR again, where the old
 * image had a registered word; the parent toggles the event; the word must
 * stay untouched and the registration must be gone.
 */
static __u32 exec_word;

static int exec_child(int argc, char **argv)
{
	int rfd, wfd, fd;
	__u32 *word;
	long cmd;
	int ret = 0;

	if (argc < 5)
		return 100;
	rfd = atoi(argv[2]);
	wfd = atoi(argv[3]);
	fd = atoi(argv[4]);
	word = mmap(EXEC_ADDR, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (word != EXEC_ADDR)
		return 101;
	*word = 0;
	chan_send(wfd, 1);		/* exec'd and mapped */
	cmd = chan_recv(rfd);		/* the parent toggled the event */
	if (cmd != CMD_READ)
		return 102;
	if (*word != 0)
		ret |= 1;
	if (ue_unreg(fd, word, 0) != -ENOENT)
		ret |= 2;
	/* The file survived execve(): registering again works */
	if (ue_reg(fd, EV_EXEC " u32 a", word, 0, NULL))
		ret |= 4;
	else if (*word != 1)
		ret |= 8;
	return ret;
}

TEST_F_TIMEOUT(abi, execve_drops, TIMEOUT)
{
	char rfd[16], wfd[16], dfd[16];
	struct chan ch;
	int status = 0;
	__u32 *word;
	pid_t pid;

	ASSERT_EQ(0, pipe(ch.to_child));
	ASSERT_EQ(0, pipe(ch.to_parent));
	/* The parent keeps the event and listens */
	ASSERT_EQ(0, ue_reg(self->fd, EV_EXEC " u32 a", &exec_word, 5, NULL));
	ASSERT_EQ(0, ue_enable(EV_EXEC, true));

	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = ue_open();

		word = mmap(EXEC_ADDR, page_size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			    -1, 0);
		if (fd < 0 || word != EXEC_ADDR)
			_exit(110);
		if (ue_reg(fd, EV_EXEC " u32 a", word, 0, NULL) || *word != 1)
			_exit(111);
		snprintf(rfd, sizeof(rfd), "%d", ch.to_child[0]);
		snprintf(wfd, sizeof(wfd), "%d", ch.to_parent[1]);
		snprintf(dfd, sizeof(dfd), "%d", fd);
		execl("/proc/self/exe", "abi_enable_test", "--exec-child", rfd, wfd,
		      dfd, NULL);
		_exit(112);
	}
	EXPECT_EQ(1, chan_recv(ch.to_parent[0]));
	ASSERT_EQ(0, ue_enable(EV_EXEC, false));
	ASSERT_EQ(0, ue_enable(EV_EXEC, true));
	chan_send(ch.to_child[1], CMD_READ);
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status))
		TH_LOG("exec child: %d (1: word written, 2: registration kept, 4/8: re-register)",
		       ue_exit_code(status));
	ASSERT_EQ(0, ue_enable(EV_EXEC, false));
	EXPECT_EQ(0, ue_unreg(self->fd, &exec_word, 5));
}

TEST_F_TIMEOUT(abi, exit_drops, TIMEOUT)
{
	static __u32 word;
	int status = 0;
	pid_t pid;

	word = 0;
	ASSERT_EQ(0, ue_reg(self->fd, EV_EXIT " u32 a", &word, 0, NULL));

	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		static __u32 own;
		int fd = ue_open();

		/* An event only this child references, then exit */
		if (fd < 0 || ue_reg(fd, EV_EXIT2 " u32 a", &own, 0, NULL))
			_exit(1);
		_exit(ue_event_exists(NULL, EV_EXIT2) ? 0 : 2);
	}
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	ASSERT_EQ(0, ue_exit_code(status));

	/* Its file and registrations are gone with it */
	EXPECT_TRUE(ue_wait_gone(NULL, EV_EXIT2, 2000));

	/*
	 * The inherited copy died with the child; the parent's works (its
	 * page write-protected by fork(): written by the work item first)
	 */
	ASSERT_EQ(0, ue_enable(EV_EXIT, true));
	EXPECT_EQ(1, ue_word_wait(&word, 1, 5000));
	ASSERT_EQ(0, ue_enable(EV_EXIT, false));
	EXPECT_EQ(0, word);
}

/*
 * A registration belongs to the process's memory, not to the file it was
 * made through: after that file's close() the bit keeps following the
 * event, the event stays (DIAG_IOCSDEL is EBUSY), the address and bit
 * stay in use, and any other file of the process can end it.
 */
TEST_F_TIMEOUT(abi, close_keeps_registration, TIMEOUT)
{
	static __u32 word;
	int fd, i;

	word = 0;
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, EV_CLOSE " u32 a", &word, 4, NULL));
	ASSERT_EQ(0, ue_reg(fd, EV_CLOSE " u32 a", &word, 5, NULL));
	close(fd);

	EXPECT_TRUE(ue_event_exists(NULL, EV_CLOSE));
	EXPECT_EQ(-EBUSY, ue_del(EV_CLOSE));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_CLOSE " u32 a", &word, 4,
				      NULL));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, ue_enable(EV_CLOSE, true));
		EXPECT_EQ(0x30, word) TH_LOG("toggle %d", i);
		ASSERT_EQ(0, ue_enable(EV_CLOSE, false));
		EXPECT_EQ(0, word) TH_LOG("toggle %d", i);
	}

	/* UNREG through another file clears the bit at once */
	ASSERT_EQ(0, ue_enable(EV_CLOSE, true));
	EXPECT_EQ(0x30, word);
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 5));
	EXPECT_EQ(0x10, word);
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &word, 5));
	ASSERT_EQ(0, ue_enable(EV_CLOSE, false));
	EXPECT_EQ(0, word);
	EXPECT_EQ(-EBUSY, ue_del(EV_CLOSE));

	/* The last reference: the event is gone once UNREG returns */
	EXPECT_EQ(0, ue_unreg_own(&word, 4));
	EXPECT_FALSE(ue_event_exists(NULL, EV_CLOSE));
	EXPECT_EQ(-ENOENT, ue_del(EV_CLOSE));
	ASSERT_EQ(0, ue_reg(self->fd, EV_CLOSE " u64 b", &word, 4, NULL));
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 4));
}

static __u32 thread_word;

/* Register bit 1 of thread_word through a file closed at once, and exit */
static void *reg_thread_fn(void *arg)
{
	pid_t *tid = arg;
	long ret;
	int fd;

	*tid = syscall(SYS_gettid);
	fd = ue_open();
	if (fd < 0)
		return (void *)(long)fd;
	ret = ue_reg(fd, EV_THREAD " u32 a", &thread_word, 1, NULL);
	close(fd);
	return (void *)ret;
}

/* The registering thread exits: the registration stays the process's */
TEST_F_TIMEOUT(abi, thread_exit_keeps, TIMEOUT)
{
	char path[64];
	pid_t tid = 0;
	pthread_t t;
	void *ret;

	thread_word = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, reg_thread_fn, &tid));
	ASSERT_EQ(0, pthread_join(t, &ret));
	ASSERT_EQ(NULL, ret);
	/* Until the thread is gone from the process, not just joined */
	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	ASSERT_TRUE(ue_wait_gone_path(path, 10000));

	EXPECT_TRUE(ue_event_exists(NULL, EV_THREAD));
	EXPECT_EQ(-EBUSY, ue_del(EV_THREAD));
	ASSERT_EQ(0, ue_enable(EV_THREAD, true));
	EXPECT_EQ(2, thread_word);
	ASSERT_EQ(0, ue_enable(EV_THREAD, false));
	EXPECT_EQ(0, thread_word);
	EXPECT_EQ(0, ue_unreg(self->fd, &thread_word, 1));
	EXPECT_FALSE(ue_event_exists(NULL, EV_THREAD));
}

int main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	if (argc > 1 && !strcmp(argv[1], "--exec-child"))
		return exec_child(argc, argv);
	return test_harness_run(argc, argv);
}
