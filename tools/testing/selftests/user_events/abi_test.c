// SPDX-License-Identifier: GPL-2.0
/*
 * The user_events ABI as programs see it: the UAPI layout, every errno of
 * DIAG_IOCSREG (one by one and in the order they are checked),
 * DIAG_IOCSUNREG, DIAG_IOCSDEL and write(), write() from pages not yet
 * present, write indexes, 4- and 8-byte enable words with every bit,
 * words that are read-only, unmapped or not faulted in, registrations that
 * belong to the process's memory (they outlive the file they were made
 * through and the thread that made them), fork (copy-on-write),
 * clone(CLONE_VM), execve and exit, an fd passed over SCM_RIGHTS,
 * kernel.user_events_max and kernel.user_events_max_enablers, error_log
 * lines, and the PERSIST and MULTI_FORMAT flags.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_status.h"

#define TIMEOUT		300

#define EV_A		UE_PREFIX "ab_a"
#define EV_B		UE_PREFIX "ab_b"
#define EV_C		UE_PREFIX "ab_c"
#define EV_LONG		UE_PREFIX "ab_long"
#define EV_BITS		UE_PREFIX "ab_bits"
#define EV_COW		UE_PREFIX "ab_cow"
#define EV_CLONE	UE_PREFIX "ab_clone"
#define EV_EXEC		UE_PREFIX "ab_exec"
#define EV_EXIT		UE_PREFIX "ab_exit"
#define EV_EXIT2	UE_PREFIX "ab_exit2"
#define EV_WRITE	UE_PREFIX "ab_write"
#define EV_NOFIELD	UE_PREFIX "ab_nofield"
#define EV_THREADS	UE_PREFIX "ab_threads"
#define EV_SCM		UE_PREFIX "ab_scm"
#define EV_ERRLOG	UE_PREFIX "ab_errlog"
#define EV_PERSIST	UE_PREFIX "ab_persist"
#define EV_MULTI	UE_PREFIX "ab_multi"
#define EV_MAX		UE_PREFIX "ab_max"	/* + index */
#define EV_CLOSE	UE_PREFIX "ab_close"
#define EV_THREAD	UE_PREFIX "ab_thread"
#define EV_RO		UE_PREFIX "ab_ro"

#define RESERVED_MSG	"user_events: error: Reserved event name (a file of the system directory)"

#define MAX_SYSCTL	"/proc/sys/kernel/user_events_max"
#define MAX_DEFAULT	32768
#define ENABLERS_SYSCTL	"/proc/sys/kernel/user_events_max_enablers"
#define ENABLERS_DEFAULT	65536

/* A user address no process can have: the start of the kernel mapping */
#define KERNEL_ADDR	0xffffffff81000000ULL

/* Where the exec test maps its enable word, before and after execve() */
#define EXEC_ADDR	((void *)0x3f0000000000ULL)

static const char * const events[] = {
	EV_A, EV_B, EV_C, EV_LONG, EV_BITS, EV_COW, EV_CLONE, EV_EXEC, EV_EXIT,
	EV_EXIT2, EV_WRITE, EV_NOFIELD, EV_THREADS, EV_SCM, EV_ERRLOG,
	EV_PERSIST, EV_CLOSE, EV_THREAD, EV_RO,
};

static long page_size;

/* Delete every multi-format event called @name (all their ids) */
static void cleanup_multi(const char *name)
{
	char path[UE_PATH_MAX];
	size_t n = strlen(name);
	struct dirent *de;
	DIR *dir;

	dir = opendir(ue_path(path, "events/%s", USER_EVENTS_MULTI_SYSTEM));
	while (dir && (de = readdir(dir))) {
		if (!strncmp(de->d_name, name, n) && de->d_name[n] == '.')
			ue_cleanup_sys(USER_EVENTS_MULTI_SYSTEM, de->d_name);
	}
	if (dir)
		closedir(dir);
	ue_del(name);
}

static void cleanup_all(void)
{
	char name[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(events); i++)
		ue_cleanup(events[i]);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), EV_MAX "%u", i);
		ue_cleanup(name);
	}
	cleanup_multi(EV_MULTI);
}

/*
 * The fixture data is shared with the process that runs the teardown:
 * @fd and @trace belong to the test process, and go with it.
 */
FIXTURE(abi) {
	int fd;
	long saved_max;		/* user_events_max to restore, or -1 */
	long saved_enablers;	/* user_events_max_enablers to restore, or -1 */
	char *trace;
};

FIXTURE_SETUP(abi)
{
	const char *reason = ue_setup();
	long max;

	self->fd = -1;
	self->saved_max = -1;
	self->saved_enablers = -1;
	self->trace = NULL;
	page_size = sysconf(_SC_PAGESIZE);
	if (reason)
		SKIP(return, "%s", reason);

	/* An earlier run killed while it had the limit lowered */
	if (!ue_read_long(MAX_SYSCTL, &max) && max < 1000) {
		TH_LOG("user_events_max was %ld, restoring %d", max,
		       MAX_DEFAULT);
		ue_write_long(MAX_SYSCTL, MAX_DEFAULT);
	}
	if (!ue_read_long(ENABLERS_SYSCTL, &max) && max < 1000) {
		TH_LOG("user_events_max_enablers was %ld, restoring %d", max,
		       ENABLERS_DEFAULT);
		ue_write_long(ENABLERS_SYSCTL, ENABLERS_DEFAULT);
	}
	cleanup_all();
	ASSERT_EQ(0, ue_trace_clear());
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
}

/*
 * After the test process exited: its registrations went with its memory
 * and its files were released, so every event it made can be deleted.
 */
FIXTURE_TEARDOWN_PARENT(abi)
{
	if (self->saved_max >= 0)
		ue_write_long(MAX_SYSCTL, self->saved_max);
	if (self->saved_enablers >= 0)
		ue_write_long(ENABLERS_SYSCTL, self->saved_enablers);
	if (!ue_setup())
		cleanup_all();
}

/* A struct user_reg that registers @cmd at @addr/@size/@bit */
static void fill_reg(struct user_reg *reg, const char *cmd, void *addr,
		     int size, int bit)
{
	memset(reg, 0, sizeof(*reg));
	reg->size = sizeof(*reg);
	reg->enable_bit = bit;
	reg->enable_size = size;
	reg->enable_addr = (__u64)(uintptr_t)addr;
	reg->name_args = (__u64)(uintptr_t)cmd;
}

static int do_reg(int fd, struct user_reg *reg)
{
	return ioctl(fd, DIAG_IOCSREG, reg) ? -errno : 0;
}

/*
 * A valid command of exactly @len characters (and its NUL): the name and
 * then "u32 fNNN;" fields, the last one's name stretched to fit.
 */
static void long_cmd(char *buf, int len)
{
	int pos, i = 0;

	pos = sprintf(buf, "%s ", EV_LONG);
	while (len - pos > 24)
		pos += sprintf(buf + pos, "u32 f%03d;", i++);
	pos += sprintf(buf + pos, "u32 ");
	while (pos < len)
		buf[pos++] = 'z';
	buf[pos] = '\0';
}

TEST(uapi_layout)
{
	/* Programs built against the existing header must work unchanged */
	EXPECT_EQ(28, sizeof(struct user_reg));
	EXPECT_EQ(0, offsetof(struct user_reg, size));
	EXPECT_EQ(4, offsetof(struct user_reg, enable_bit));
	EXPECT_EQ(5, offsetof(struct user_reg, enable_size));
	EXPECT_EQ(6, offsetof(struct user_reg, flags));
	EXPECT_EQ(8, offsetof(struct user_reg, enable_addr));
	EXPECT_EQ(16, offsetof(struct user_reg, name_args));
	EXPECT_EQ(24, offsetof(struct user_reg, write_index));
	EXPECT_EQ(16, sizeof(struct user_unreg));
	EXPECT_EQ(4, offsetof(struct user_unreg, disable_bit));
	EXPECT_EQ(5, offsetof(struct user_unreg, __reserved));
	EXPECT_EQ(6, offsetof(struct user_unreg, __reserved2));
	EXPECT_EQ(8, offsetof(struct user_unreg, disable_addr));
	EXPECT_EQ(0xc0082a00, DIAG_IOCSREG);
	EXPECT_EQ(0x40082a01, DIAG_IOCSDEL);
	EXPECT_EQ(0x40082a02, DIAG_IOCSUNREG);
	EXPECT_EQ(1, USER_EVENT_REG_PERSIST);
	EXPECT_EQ(2, USER_EVENT_REG_MULTI_FORMAT);
	EXPECT_EQ(4, USER_EVENT_REG_MAX);
	EXPECT_EQ(0x00050010, DYN_LOC(0x10, 5));
	EXPECT_STREQ("user_events", USER_EVENTS_SYSTEM);
	EXPECT_STREQ("user_events_multi", USER_EVENTS_MULTI_SYSTEM);
	EXPECT_STREQ("u:", USER_EVENTS_PREFIX);
}

TEST_F_TIMEOUT(abi, reg_struct_size, TIMEOUT)
{
	static __u32 word;
	struct user_reg *reg;
	unsigned char *buf;

	/* Two pages, so that sizes up to PAGE_SIZE + 1 are readable */
	buf = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	reg = (struct user_reg *)buf;
	fill_reg(reg, EV_A " u32 a", &word, 4, 0);

	reg->size = page_size + 1;
	EXPECT_EQ(-E2BIG, do_reg(self->fd, reg));
	reg->size = 0xffffffff;
	EXPECT_EQ(-E2BIG, do_reg(self->fd, reg));

	reg->size = 0;
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));
	reg->size = 4;
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));
	reg->size = offsetof(struct user_reg, write_index);
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));
	reg->size = sizeof(*reg) - 1;
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));

	/* Larger than the kernel's struct: only zeroes may follow */
	reg->size = sizeof(*reg) + 8;
	buf[sizeof(*reg) + 7] = 1;
	EXPECT_EQ(-E2BIG, do_reg(self->fd, reg));
	buf[sizeof(*reg) + 7] = 0;
	buf[page_size - 1] = 1;
	reg->size = page_size;
	EXPECT_EQ(-E2BIG, do_reg(self->fd, reg));
	buf[page_size - 1] = 0;

	reg->size = sizeof(*reg) + 8;
	reg->write_index = 0xffffffff;
	EXPECT_EQ(0, do_reg(self->fd, reg));
	EXPECT_NE(0xffffffff, reg->write_index);

	reg->size = page_size;
	reg->enable_bit = 1;
	EXPECT_EQ(0, do_reg(self->fd, reg));
	reg->size = sizeof(*reg);
	reg->enable_bit = 2;
	EXPECT_EQ(0, do_reg(self->fd, reg));

	munmap(buf, 2 * page_size);
}

TEST_F_TIMEOUT(abi, reg_flags, TIMEOUT)
{
	static __u32 word;
	struct user_reg reg;
	int bit;

	/* Unknown flags are EINVAL, so callers can retry without them */
	for (bit = 2; bit < 16; bit++) {
		fill_reg(&reg, EV_A " u32 a", &word, 4, 0);
		reg.flags = 1U << bit;
		EXPECT_EQ(-EINVAL, do_reg(self->fd, &reg)) TH_LOG("bit %d", bit);
		reg.flags |= USER_EVENT_REG_PERSIST;
		EXPECT_EQ(-EINVAL, do_reg(self->fd, &reg)) TH_LOG("bit %d", bit);
	}
	fill_reg(&reg, EV_A " u32 a", &word, 4, 0);
	reg.flags = USER_EVENT_REG_MAX;
	EXPECT_EQ(-EINVAL, do_reg(self->fd, &reg));
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));

	/* The retry without flags */
	reg.flags = 0;
	EXPECT_EQ(0, do_reg(self->fd, &reg));
	EXPECT_TRUE(ue_event_exists(NULL, EV_A));
}

TEST_F_TIMEOUT(abi, reg_enable_size_align_bit, TIMEOUT)
{
	static __u64 words[4];
	char *base = (char *)&words[1];
	static const int bad_sizes[] = { 0, 1, 2, 3, 5, 6, 7, 16, 255 };
	struct user_reg reg;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_sizes); i++) {
		fill_reg(&reg, EV_A " u32 a", base, bad_sizes[i], 0);
		EXPECT_EQ(-EINVAL, do_reg(self->fd, &reg))
			TH_LOG("enable_size %d", bad_sizes[i]);
	}

	/* Natural alignment */
	for (i = 1; i < 4; i++) {
		fill_reg(&reg, EV_A " u32 a", base + i, 4, 0);
		EXPECT_EQ(-EINVAL, do_reg(self->fd, &reg)) TH_LOG("+%u", i);
	}
	for (i = 1; i < 8; i++) {
		fill_reg(&reg, EV_A " u32 a", base + i, 8, 0);
		EXPECT_EQ(-EINVAL, do_reg(self->fd, &reg)) TH_LOG("+%u", i);
	}

	/* The bit must be inside the word */
	fill_reg(&reg, EV_A " u32 a", base, 4, 32);
	EXPECT_EQ(-EINVAL, do_reg(self->fd, &reg));
	fill_reg(&reg, EV_A " u32 a", base, 4, 255);
	EXPECT_EQ(-EINVAL, do_reg(self->fd, &reg));
	fill_reg(&reg, EV_A " u32 a", base, 8, 64);
	EXPECT_EQ(-EINVAL, do_reg(self->fd, &reg));
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));

	/* The edges that are fine */
	fill_reg(&reg, EV_A " u32 a", base + 4, 4, 31);
	EXPECT_EQ(0, do_reg(self->fd, &reg));
	fill_reg(&reg, EV_A " u32 a", &words[2], 8, 63);
	EXPECT_EQ(0, do_reg(self->fd, &reg));
}

TEST_F_TIMEOUT(abi, reg_bad_enable_addr, TIMEOUT)
{
	struct user_reg reg;
	char *page;

	/* Not a user address */
	fill_reg(&reg, EV_A " u32 a", (void *)(uintptr_t)KERNEL_ADDR, 4, 0);
	EXPECT_EQ(-EFAULT, do_reg(self->fd, &reg));
	fill_reg(&reg, EV_A " u32 a", (void *)(uintptr_t)-8ULL, 8, 0);
	EXPECT_EQ(-EFAULT, do_reg(self->fd, &reg));

	/* User addresses that cannot be written */
	fill_reg(&reg, EV_A " u32 a", NULL, 4, 0);
	EXPECT_EQ(-EFAULT, do_reg(self->fd, &reg));

	page = mmap(NULL, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	fill_reg(&reg, EV_A " u32 a", page, 4, 0);
	EXPECT_EQ(-EFAULT, do_reg(self->fd, &reg)) TH_LOG("read-only");
	ASSERT_EQ(0, mprotect(page, page_size, PROT_NONE));
	EXPECT_EQ(-EFAULT, do_reg(self->fd, &reg)) TH_LOG("PROT_NONE");
	ASSERT_EQ(0, munmap(page, page_size));
	EXPECT_EQ(-EFAULT, do_reg(self->fd, &reg)) TH_LOG("unmapped");

	/* A failed registration leaves neither an event nor a registration */
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
	page = mmap(page, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	fill_reg(&reg, EV_A " u32 a", page, 4, 0);
	EXPECT_EQ(0, do_reg(self->fd, &reg));
	munmap(page, page_size);
}

TEST_F_TIMEOUT(abi, reg_addr_in_use, TIMEOUT)
{
	static __u64 qword;
	static __u32 word;
	int fd2, i1 = -1, i2 = -1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 0, &i1));
	/* Same address and bit: refused, for any event, on any file */
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 a", &word, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_B " u32 a", &word, 0, NULL));
	fd2 = ue_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EADDRINUSE, ue_reg(fd2, EV_B " u32 a", &word, 0, NULL));
	EXPECT_FALSE(ue_event_exists(NULL, EV_B));

	/* Another bit of the same word is fine */
	EXPECT_EQ(0, ue_reg(self->fd, EV_B " u32 a", &word, 1, &i2));
	EXPECT_EQ(0, ue_reg(fd2, EV_A " u32 a", &word, 2, NULL));

	/* Free again after UNREG */
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 0));
	EXPECT_EQ(0, ue_reg(fd2, EV_B " u32 a", &word, 0, NULL));

	/* The same address and bit whatever the size of the word */
	ASSERT_EQ(0, ue_reg_flags(self->fd, EV_A " u32 a", 0, &qword, 4, 5,
				  NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg_flags(fd2, EV_B " u32 a", 0, &qword, 8,
					    5, NULL));
	/* UNREG through another file than the one that registered */
	EXPECT_EQ(0, ue_unreg(fd2, &qword, 5));
	EXPECT_EQ(0, ue_reg_flags(fd2, EV_B " u32 a", 0, &qword, 8, 5, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg_flags(self->fd, EV_A " u32 a", 0,
					    &qword, 4, 5, NULL));

	/* The registrations made through fd2 outlive it */
	close(fd2);
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 a", &word, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 a", &word, 2, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg_flags(self->fd, EV_A " u32 a", 0, &qword,
					    8, 5, NULL));
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 2));
	EXPECT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 2, NULL));
	EXPECT_EQ(0, ue_unreg(self->fd, &qword, 5));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &qword, 5));
}

TEST_F_TIMEOUT(abi, reg_name_args, TIMEOUT)
{
	static const char * const malformed[] = {
		"",
		" ",
		EV_A " u32",
		EV_A " foo a",
		EV_A " long a",
		EV_A " unsigned long a",
		EV_A " u32 a 4",
		EV_A " u32 a; u32 b 8",
		EV_A " __data_loc char[] a 4",
		EV_A " struct foo a",
		EV_A " struct foo a 0",
		EV_A " u32 a;; u32 b",
		EV_A " u32 a; u32 a",
		EV_A " char[0] a",
		EV_A " char[1025] a",
		EV_A " char[] a",
		EV_A " u32 a b",
	};
	static const char * const text_flags[] = {
		EV_A ":flag u32 a",
		EV_A ":persist u32 a",
		EV_A ":BPF_ITER u32 a",
		EV_A ":a,b u32 a",
	};
	static __u32 word;
	char cmd[UE_CMD_MAX * 4];
	struct user_reg reg;
	unsigned int i;
	char *pages;

	/* Unreadable */
	fill_reg(&reg, NULL, &word, 4, 0);
	EXPECT_EQ(-EFAULT, do_reg(self->fd, &reg));
	fill_reg(&reg, (const char *)(uintptr_t)KERNEL_ADDR, &word, 4, 0);
	EXPECT_EQ(-EFAULT, do_reg(self->fd, &reg));

	/* A string that runs into an unmapped page before its NUL */
	pages = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, pages);
	ASSERT_EQ(0, munmap(pages + page_size, page_size));
	memcpy(pages + page_size - 3, "abc", 3);
	fill_reg(&reg, pages + page_size - 3, &word, 4, 0);
	EXPECT_EQ(-EFAULT, do_reg(self->fd, &reg));
	munmap(pages, page_size);

	/* At most 512 bytes with the NUL */
	long_cmd(cmd, UE_CMD_MAX);
	ASSERT_EQ(UE_CMD_MAX, strlen(cmd));
	EXPECT_EQ(-EINVAL, ue_reg(self->fd, cmd, &word, 0, NULL));
	long_cmd(cmd, 2 * UE_CMD_MAX);
	EXPECT_EQ(-EINVAL, ue_reg(self->fd, cmd, &word, 0, NULL));
	EXPECT_FALSE(ue_event_exists(NULL, EV_LONG));
	long_cmd(cmd, UE_CMD_MAX - 1);
	ASSERT_EQ(UE_CMD_MAX - 1, strlen(cmd));
	EXPECT_EQ(0, ue_reg(self->fd, cmd, &word, 0, NULL)) TH_LOG("%s", cmd);
	EXPECT_TRUE(ue_event_exists(NULL, EV_LONG));

	for (i = 0; i < ARRAY_SIZE(malformed); i++) {
		EXPECT_EQ(-EINVAL, ue_reg(self->fd, malformed[i], &word, 1,
					  NULL))
			TH_LOG("\"%s\"", malformed[i]);
	}
	for (i = 0; i < ARRAY_SIZE(text_flags); i++) {
		EXPECT_EQ(-EINVAL, ue_reg(self->fd, text_flags[i], &word, 1,
					  NULL))
			TH_LOG("\"%s\"", text_flags[i]);
	}
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
}

TEST_F_TIMEOUT(abi, reg_persist_needs_perfmon, TIMEOUT)
{
	static __u32 word;
	int status = 0;
	pid_t pid;

	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = ue_open();

		if (fd < 0 || ue_drop_perfmon())
			_exit(10);
		if (ue_reg_flags(fd, EV_PERSIST " u32 a",
				 USER_EVENT_REG_PERSIST, &word, 4, 0,
				 NULL) != -EPERM)
			_exit(11);
		if (ue_reg_flags(fd, EV_PERSIST " u32 a",
				 USER_EVENT_REG_PERSIST |
				 USER_EVENT_REG_MULTI_FORMAT, &word, 4, 0,
				 NULL) != -EPERM)
			_exit(12);
		if (ue_event_exists(NULL, EV_PERSIST))
			_exit(13);
		/* Without the flag it is fine */
		if (ue_reg(fd, EV_PERSIST " u32 a", &word, 0, NULL))
			_exit(14);
		close(fd);
		_exit(0);
	}
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status))
		TH_LOG("child step %d failed", ue_exit_code(status));
	/* The unprivileged registration did not persist */
	EXPECT_TRUE(ue_wait_gone(NULL, EV_PERSIST, 2000));
}

TEST_F_TIMEOUT(abi, reg_name_exists_other_fields, TIMEOUT)
{
	static __u32 word;
	int i1 = -1, i2 = -2;

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a; char[4] b", &word, 0,
			    &i1));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u64 a; char[4] b",
				      &word, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 a; char[5] b",
				      &word, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 a", &word, 1,
				      NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A, &word, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 x; char[4] b",
				      &word, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " char[4] b; u32 a",
				      &word, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd,
				      EV_A " u32 a; char[4] b; u32 c",
				      &word, 1, NULL));
	/* The same fields are the same event, with the same index */
	EXPECT_EQ(0, ue_reg(self->fd, EV_A " u32 a;char[4] b", &word, 1, &i2));
	EXPECT_EQ(i1, i2);
}

/* Lower kernel.user_events_max to the events there are now plus @extra */
static int lower_max(long *saved_max, int extra, long *limit)
{
	long active = 0, busy = 0, max = 0;
	int ret;

	ret = ue_read_long(MAX_SYSCTL, &max);
	if (ret)
		return ret;
	ret = ue_status_counts(&active, &busy);
	if (ret)
		return ret;
	if (*saved_max < 0)
		*saved_max = max;
	*limit = active + extra;
	return ue_write_long(MAX_SYSCTL, *limit);
}

TEST_F_TIMEOUT(abi, reg_user_events_max, TIMEOUT)
{
	static __u32 word;
	char name[64], cmd[128];
	long limit = 0, now;
	int i;

	if (!ue_exists(MAX_SYSCTL))
		SKIP(return, "no %s (CONFIG_SYSCTL?)", MAX_SYSCTL);
	ASSERT_EQ(0, ue_read_long(MAX_SYSCTL, &now));
	EXPECT_EQ(MAX_DEFAULT, now);

	ASSERT_EQ(0, lower_max(&self->saved_max, 2, &limit));
	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), EV_MAX "%d u32 a", i);
		EXPECT_EQ(0, ue_reg(self->fd, cmd, &word, i, NULL)) TH_LOG("%s", cmd);
	}
	snprintf(cmd, sizeof(cmd), EV_MAX "%d u32 a", i);
	EXPECT_EQ(-EMFILE, ue_reg(self->fd, cmd, &word, i, NULL));
	snprintf(name, sizeof(name), EV_MAX "%d", i);
	EXPECT_FALSE(ue_event_exists(NULL, name));

	/* Existing events can still be registered */
	EXPECT_EQ(0, ue_reg(self->fd, EV_MAX "0 u32 a", &word, 10, NULL));

	/* One more allowed, one more event */
	ASSERT_EQ(0, ue_write_long(MAX_SYSCTL, limit + 1));
	EXPECT_EQ(0, ue_reg(self->fd, cmd, &word, i, NULL));

	ASSERT_EQ(0, ue_write_long(MAX_SYSCTL, self->saved_max));
	self->saved_max = -1;
}

/*
 * kernel.user_events_max_enablers: the registrations of one process (of
 * its memory) past it are EMFILE and leave nothing behind; UNREG makes
 * room again.  A child counts its own copies: unregistering there gives
 * the parent nothing.
 */
TEST_F_TIMEOUT(abi, reg_max_enablers, TIMEOUT)
{
	static __u32 word;
	int status = 0;
	long now;
	pid_t pid;

	if (!ue_exists(ENABLERS_SYSCTL))
		SKIP(return, "no %s (CONFIG_SYSCTL?)", ENABLERS_SYSCTL);
	ASSERT_EQ(0, ue_read_long(ENABLERS_SYSCTL, &now));
	EXPECT_EQ(ENABLERS_DEFAULT, now);
	self->saved_enablers = now;
	ASSERT_EQ(0, ue_write_long(ENABLERS_SYSCTL, 2));

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 0, NULL));
	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 1, NULL));
	/* An existing event, a new one */
	EXPECT_EQ(-EMFILE, ue_reg(self->fd, EV_A " u32 a", &word, 2, NULL));
	EXPECT_EQ(-EMFILE, ue_reg(self->fd, EV_B " u32 a", &word, 3, NULL));
	EXPECT_FALSE(ue_event_exists(NULL, EV_B));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &word, 2));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &word, 3));

	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (ue_reg(self->fd, EV_B " u32 a", &word, 3, NULL) != -EMFILE)
			_exit(10);
		if (ue_unreg(self->fd, &word, 0))
			_exit(11);
		if (ue_reg(self->fd, EV_B " u32 a", &word, 3, NULL))
			_exit(12);
		if (ue_reg(self->fd, EV_B " u32 a", &word, 4, NULL) != -EMFILE)
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status))
		TH_LOG("child step %d failed", ue_exit_code(status));

	/* The parent still has both */
	EXPECT_EQ(-EMFILE, ue_reg(self->fd, EV_B " u32 a", &word, 3, NULL));
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 0));
	EXPECT_EQ(0, ue_reg(self->fd, EV_B " u32 a", &word, 3, NULL));
	EXPECT_TRUE(ue_event_exists(NULL, EV_B));
	EXPECT_EQ(-EMFILE, ue_reg(self->fd, EV_B " u32 a", &word, 4, NULL));

	/* One more allowed, one more registration */
	ASSERT_EQ(0, ue_write_long(ENABLERS_SYSCTL, 3));
	EXPECT_EQ(0, ue_reg(self->fd, EV_B " u32 a", &word, 4, NULL));

	ASSERT_EQ(0, ue_write_long(ENABLERS_SYSCTL, self->saved_enablers));
	self->saved_enablers = -1;
}

/*
 * Walk the table of DIAG_IOCSREG errors from the top: start with a struct
 * that is wrong in every way, and fix one thing at a time; each call must
 * fail with the errno of the first row still wrong.
 */
TEST_F_TIMEOUT(abi, reg_errno_order, TIMEOUT)
{
	static __u32 words[4];
	char long_name[UE_CMD_MAX + 16];
	struct user_reg *reg;
	unsigned char *buf;
	long limit = 0;
	char *ro;
	int status = 0;
	pid_t pid;

	if (!ue_exists(MAX_SYSCTL))
		SKIP(return, "no %s (CONFIG_SYSCTL?)", MAX_SYSCTL);

	buf = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	ro = mmap(NULL, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		  -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	reg = (struct user_reg *)buf;
	buf[sizeof(*reg) + 4] = 0xff;		/* non-zero tail */

	/* An event with other fields and a used (address, bit) */
	ASSERT_EQ(0, ue_reg(self->fd, EV_B " u64 b", &words[0], 1, NULL));
	/* No room for new events */
	ASSERT_EQ(0, lower_max(&self->saved_max, 0, &limit));

	memset(reg, 0, sizeof(*reg));
	reg->size = page_size + 1;
	reg->flags = 1U << 3;
	reg->enable_size = 2;
	reg->enable_addr = (__u64)(uintptr_t)&words[0] + 1;
	reg->enable_bit = 40;
	reg->name_args = 0;
	EXPECT_EQ(-E2BIG, do_reg(self->fd, reg));

	reg->size = sizeof(*reg) - 1;
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));

	reg->size = sizeof(*reg) + 8;
	EXPECT_EQ(-E2BIG, do_reg(self->fd, reg));

	reg->size = sizeof(*reg);
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));	/* flags */

	reg->flags = 0;
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));	/* enable_size */

	reg->enable_size = 4;
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));	/* alignment */

	reg->enable_addr = KERNEL_ADDR;
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));	/* bit */

	reg->enable_bit = 1;
	EXPECT_EQ(-EFAULT, do_reg(self->fd, reg));	/* kernel address */

	reg->enable_addr = (__u64)(uintptr_t)&words[0];
	EXPECT_EQ(-EADDRINUSE, do_reg(self->fd, reg));	/* address and bit */

	reg->enable_addr = (__u64)(uintptr_t)ro;
	EXPECT_EQ(-EFAULT, do_reg(self->fd, reg));	/* name_args */

	long_cmd(long_name, UE_CMD_MAX);
	reg->name_args = (__u64)(uintptr_t)long_name;
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));	/* too long */

	reg->name_args = (__u64)(uintptr_t)EV_B " u64";
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));	/* malformed */

	reg->name_args = (__u64)(uintptr_t)EV_B ":flag u32 b";
	EXPECT_EQ(-EINVAL, do_reg(self->fd, reg));	/* text flag */

	/* PERSIST needs CAP_PERFMON: before the name lookup */
	reg->name_args = (__u64)(uintptr_t)EV_B " u32 b";
	reg->flags = USER_EVENT_REG_PERSIST;
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (ue_drop_perfmon())
			_exit(10);
		_exit(do_reg(self->fd, reg) == -EPERM ? 0 : 11);
	}
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status)) TH_LOG("EPERM expected");
	reg->flags = 0;

	EXPECT_EQ(-EADDRINUSE, do_reg(self->fd, reg));	/* other fields */

	reg->name_args = (__u64)(uintptr_t)EV_C " u32 c";
	EXPECT_EQ(-EMFILE, do_reg(self->fd, reg));	/* user_events_max */

	ASSERT_EQ(0, ue_write_long(MAX_SYSCTL, self->saved_max));
	self->saved_max = -1;
	EXPECT_EQ(-EFAULT, do_reg(self->fd, reg));	/* read-only word */
	EXPECT_FALSE(ue_event_exists(NULL, EV_C));

	reg->enable_addr = (__u64)(uintptr_t)&words[1];
	EXPECT_EQ(0, do_reg(self->fd, reg));
	EXPECT_TRUE(ue_event_exists(NULL, EV_C));

	munmap(ro, page_size);
	munmap(buf, 2 * page_size);
}

TEST_F_TIMEOUT(abi, write_index_per_file, TIMEOUT)
{
	static __u32 word;
	int fd2, fd3, ia = -1, ib = -1, ia2 = -1, ib2 = -1;
	__u32 val = 1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 0, &ia));
	ASSERT_EQ(0, ue_reg(self->fd, EV_B " u32 a", &word, 1, &ib));
	EXPECT_LE(0, ia);
	EXPECT_LE(0, ib);
	EXPECT_NE(ia, ib);

	/* The same event again on the same file: the same index */
	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 2, &ia2));
	EXPECT_EQ(ia, ia2);
	ASSERT_EQ(0, ue_reg_flags(self->fd, EV_B " u32 a", 0, &word, 4, 3,
				  &ib2));
	EXPECT_EQ(ib, ib2);

	/* Indexes belong to their file */
	fd2 = ue_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ue_enable(EV_A, true));
	EXPECT_EQ(-ENOENT, ue_emit(fd2, ia, &val, sizeof(val)));
	EXPECT_EQ(-ENOENT, ue_emit(fd2, ib, &val, sizeof(val)));
	EXPECT_EQ(8, ue_emit(self->fd, ia, &val, sizeof(val)));

	fd3 = ue_open();
	ASSERT_LE(0, fd3);
	EXPECT_EQ(0, ue_reg(fd3, EV_A " u32 a", &word, 4, &ia2));
	EXPECT_EQ(8, ue_emit(fd3, ia2, &val, sizeof(val)));
	ASSERT_EQ(0, ue_enable(EV_A, false));
	close(fd2);
	close(fd3);

	ue_trace_read(&self->trace);
	EXPECT_EQ(2, ue_trace_count(self->trace, EV_A));
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
		execl("/proc/self/exe", "abi_test", "--exec-child", rfd, wfd,
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

TEST_F_TIMEOUT(abi, unreg, TIMEOUT)
{
	static __u32 word;
	struct user_unreg unreg;

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 3, NULL));
	ASSERT_EQ(0, ue_enable(EV_A, true));
	EXPECT_EQ(8, word);

	/* Reserved fields must be zero */
	memset(&unreg, 0, sizeof(unreg));
	unreg.size = sizeof(unreg);
	unreg.disable_bit = 3;
	unreg.disable_addr = (__u64)(uintptr_t)&word;
	unreg.__reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSUNREG, &unreg));
	EXPECT_EQ(EINVAL, errno);
	unreg.__reserved = 0;
	unreg.__reserved2 = 1;
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSUNREG, &unreg));
	EXPECT_EQ(EINVAL, errno);
	unreg.__reserved2 = 0x8000;
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSUNREG, &unreg));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(8, word);

	/* Nothing registered there */
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &word, 4));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, (__u32 *)&word + 1, 3));
	EXPECT_EQ(8, word);

	/* Clears the bit at once, and never touches it again */
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 3));
	EXPECT_EQ(0, word);
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &word, 3));
	ASSERT_EQ(0, ue_enable(EV_A, false));
	word = 0xffffffff;
	ASSERT_EQ(0, ue_enable(EV_A, true));
	ASSERT_EQ(0, ue_enable(EV_A, false));
	EXPECT_EQ(0xffffffff, word);
	word = 0;
	ASSERT_EQ(0, ue_enable(EV_A, true));
	EXPECT_EQ(0, word);
	ASSERT_EQ(0, ue_enable(EV_A, false));
}

TEST_F_TIMEOUT(abi, del, TIMEOUT)
{
	static __u32 word;
	int fd;

	EXPECT_EQ(-ENOENT, ue_del(EV_A));

	/* Referenced by a registration */
	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 0, NULL));
	EXPECT_EQ(-EBUSY, ue_del(EV_A));
	/* UNREG drops the bit, the file still holds the event */
	ASSERT_EQ(0, ue_unreg(self->fd, &word, 0));
	EXPECT_EQ(-EBUSY, ue_del(EV_A));
	EXPECT_TRUE(ue_event_exists(NULL, EV_A));
	/* DEL on the file that registered it */
	EXPECT_EQ(-EBUSY, ue_del_fd(self->fd, EV_A));
	close(self->fd);
	self->fd = -1;
	/* Gone once the last reference is (not persistent) */
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
	EXPECT_EQ(-ENOENT, ue_del(EV_A));

	/* A registration holds the event after its file is closed */
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, EV_A " u32 a", &word, 0, NULL));
	close(fd);
	EXPECT_EQ(-EBUSY, ue_del(EV_A));
	EXPECT_TRUE(ue_event_exists(NULL, EV_A));
	/* The file's index went with close(): gone once UNREG returns */
	ASSERT_EQ(0, ue_unreg_own(&word, 0));
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
	EXPECT_EQ(-ENOENT, ue_del(EV_A));

	/* A persistent event: referenced by ftrace, then by nothing */
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg_flags(fd, EV_PERSIST " u32 a",
				  USER_EVENT_REG_PERSIST, &word, 4, 0, NULL));
	EXPECT_EQ(-EBUSY, ue_del(EV_PERSIST));
	ASSERT_EQ(0, ue_unreg(fd, &word, 0));
	close(fd);
	EXPECT_TRUE(ue_event_exists(NULL, EV_PERSIST));
	ASSERT_EQ(0, ue_enable(EV_PERSIST, true));
	EXPECT_EQ(-EBUSY, ue_del(EV_PERSIST));
	ASSERT_EQ(0, ue_enable(EV_PERSIST, false));
	EXPECT_EQ(0, ue_del(EV_PERSIST));
	EXPECT_FALSE(ue_event_exists(NULL, EV_PERSIST));
	EXPECT_EQ(-ENOENT, ue_del(EV_PERSIST));
}

/*
 * DIAG_IOCSREG, DIAG_IOCSUNREG and DIAG_IOCSDEL change what the kernel
 * keeps: on a file not open for writing they fail with EBADF, as write()
 * does, and change nothing.  O_WRONLY is enough.
 */
TEST_F_TIMEOUT(abi, read_only_file, TIMEOUT)
{
	char path[UE_PATH_MAX];
	static __u32 word, word2;
	int rd, wr, idx = -1;
	__u32 val = 1;

	rd = open(ue_path(path, "user_events_data"), O_RDONLY);
	ASSERT_LE(0, rd);

	/* Nothing is registered, nor created */
	EXPECT_EQ(-EBADF, ue_reg(rd, EV_RO " u32 a", &word, 0, &idx));
	EXPECT_EQ(-1, idx);
	EXPECT_FALSE(ue_event_exists(NULL, EV_RO));
	EXPECT_EQ(-EBADF, ue_unreg(rd, &word, 0));
	EXPECT_EQ(-EBADF, ue_del_fd(rd, EV_RO));
	/* write() says the same */
	EXPECT_EQ(-1, write(rd, &val, sizeof(val)));
	EXPECT_EQ(EBADF, errno);

	/* A registration made through a writable file stays */
	ASSERT_EQ(0, ue_reg(self->fd, EV_RO " u32 a", &word, 0, NULL));
	ASSERT_EQ(0, ue_enable(EV_RO, true));
	EXPECT_EQ(1, word);
	EXPECT_EQ(-EBADF, ue_unreg(rd, &word, 0));
	EXPECT_EQ(1, word);
	EXPECT_EQ(-EBADF, ue_del_fd(rd, EV_RO));
	EXPECT_TRUE(ue_event_exists(NULL, EV_RO));
	/* EBADF comes first: the same for an unknown address */
	EXPECT_EQ(-EBADF, ue_unreg(rd, &word2, 3));
	/* Other ioctls are still unknown */
	EXPECT_EQ(-1, ioctl(rd, _IOW(DIAG_IOC_MAGIC, 9, char *), "x"));
	EXPECT_EQ(ENOTTY, errno);
	close(rd);

	/* Open for writing only: all three work */
	wr = open(path, O_WRONLY);
	ASSERT_LE(0, wr);
	EXPECT_EQ(0, ue_reg(wr, EV_RO " u32 a", &word2, 0, NULL));
	EXPECT_EQ(1, word2);
	EXPECT_EQ(0, ue_unreg(wr, &word2, 0));
	EXPECT_EQ(0, ue_unreg(wr, &word, 0));
	EXPECT_EQ(0, word);
	ASSERT_EQ(0, ue_enable(EV_RO, false));
	close(self->fd);
	self->fd = -1;
	close(wr);
	EXPECT_EQ(-ENOENT, ue_del(EV_RO));
}

/* Put a record of @idx with u32 fields @a and @b at @at */
static void put_rec(void *at, int idx, __u32 a, __u32 b)
{
	char *p = at;

	memcpy(p, &idx, sizeof(idx));
	memcpy(p + 4, &a, sizeof(a));
	memcpy(p + 8, &b, sizeof(b));
}

TEST_F_TIMEOUT(abi, write_errors, TIMEOUT)
{
	static __u32 word;
	unsigned char buf[64], rec[12];
	struct iovec io[2], iv[4];
	int idx = -1, bad, fd2;
	__u32 val = 7;
	char *page;

	ASSERT_EQ(0, ue_reg(self->fd, EV_WRITE " u32 a; u32 b", &word, 0,
			    &idx));
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &idx, sizeof(idx));

	/* Nothing attached */
	EXPECT_EQ(-1, write(self->fd, buf, 12));
	EXPECT_EQ(EBADF, errno);

	ASSERT_EQ(0, ue_enable(EV_WRITE, true));
	ASSERT_EQ(1, word);

	/* Fewer than 4 bytes */
	EXPECT_EQ(-1, write(self->fd, buf, 3));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, write(self->fd, buf, 0));
	EXPECT_EQ(EFAULT, errno);
	/* A file position */
	EXPECT_EQ(-1, pwrite(self->fd, buf, 12, 1));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(12, pwrite(self->fd, buf, 12, 0));

	/* Negative and unknown indexes */
	bad = -1;
	EXPECT_EQ(-EINVAL, ue_emit(self->fd, bad, &val, sizeof(val)));
	bad = INT_MIN;
	EXPECT_EQ(-EINVAL, ue_emit(self->fd, bad, &val, sizeof(val)));
	EXPECT_EQ(-ENOENT, ue_emit(self->fd, idx + 1000, buf + 4, 8));

	/* Short payload: the fixed fields are 8 bytes */
	EXPECT_EQ(-EINVAL, ue_emit(self->fd, idx, buf + 4, 4));
	EXPECT_EQ(-EINVAL, ue_emit(self->fd, idx, buf + 4, 7));
	EXPECT_EQ(-EINVAL, ue_emit(self->fd, idx, NULL, 0));

	/* Faults while copying */
	page = mmap(NULL, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	io[0].iov_base = &idx;
	io[0].iov_len = sizeof(idx);
	io[1].iov_base = page;
	io[1].iov_len = 8;
	EXPECT_EQ(-1, writev(self->fd, io, 2));
	EXPECT_EQ(EFAULT, errno);
	io[0].iov_base = page;
	io[1].iov_base = buf + 4;
	EXPECT_EQ(-1, writev(self->fd, io, 2));
	EXPECT_EQ(EFAULT, errno);
	munmap(page, page_size);

	/* The index split over iovecs, the payload over several */
	put_rec(rec, idx, 11, 12);
	iv[0].iov_base = rec;
	iv[0].iov_len = 2;
	iv[1].iov_base = rec + 2;
	iv[1].iov_len = 3;
	iv[2].iov_base = rec + 5;
	iv[2].iov_len = 0;
	iv[3].iov_base = rec + 5;
	iv[3].iov_len = 7;
	EXPECT_EQ(12, writev(self->fd, iv, 4));
	/* Longer than the fixed fields is fine */
	EXPECT_EQ(4 + 20, ue_emit(self->fd, idx, buf + 4, 20));

	ASSERT_EQ(0, ue_enable(EV_WRITE, false));
	ue_trace_read(&self->trace);
	/* pwrite at 0, the split writev, the long write */
	EXPECT_EQ(3, ue_trace_count(self->trace, EV_WRITE));

	/* A file without registrations */
	fd2 = ue_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOENT, ue_emit(fd2, 0, buf + 4, 8));
	close(fd2);
}

/*
 * write() of a record whose pages are not present: shared memory whose
 * page table entries MADV_DONTNEED drops, the contents kept, so that the
 * first touch of each page faults.  The kernel must fault them in and
 * record the write, whether the index or only the payload is missing and
 * whatever the size; a payload running into a PROT_NONE page is EFAULT,
 * unless nothing is attached (EBADF comes first).
 */
TEST_F_TIMEOUT(abi, write_pages_not_present, TIMEOUT)
{
	static __u32 word;
	char *map, *p1, *p2, line[256], a[16], b[16];
	int idx = -1, n;

	ASSERT_EQ(0, ue_reg(self->fd, EV_WRITE " u32 a; u32 b", &word, 0,
			    &idx));
	map = mmap(NULL, 3 * page_size, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	p1 = map + page_size;
	p2 = map + 2 * page_size;
	/* At the end of p1: the index and a, then b in p2, made PROT_NONE */
	memcpy(p2 - 8, &idx, sizeof(idx));
	ASSERT_EQ(0, mprotect(p2, page_size, PROT_NONE));

	/* Nothing attached: EBADF, even with the payload unreadable */
	EXPECT_EQ(-1, write(self->fd, p2 - 8, 12));
	EXPECT_EQ(EBADF, errno);
	ASSERT_EQ(0, ue_enable(EV_WRITE, true));
	ASSERT_EQ(1, word);

	/* The whole record on a page not present */
	put_rec(map, idx, 3, 4);
	ASSERT_EQ(0, madvise(map, 2 * page_size, MADV_DONTNEED));
	EXPECT_EQ(12, write(self->fd, map, 12));

	/* The index on one page, the payload on the next, neither present */
	put_rec(p1 - 4, idx, 5, 6);
	ASSERT_EQ(0, madvise(map, 2 * page_size, MADV_DONTNEED));
	EXPECT_EQ(12, write(self->fd, p1 - 4, 12));

	/* Longer than any inline copy: 4 + 300 bytes, not present */
	put_rec(p1, idx, 7, 8);
	ASSERT_EQ(0, madvise(map, 2 * page_size, MADV_DONTNEED));
	EXPECT_EQ(304, write(self->fd, p1, 304));

	/* The payload running into the PROT_NONE page: nothing recorded */
	ASSERT_EQ(0, madvise(map, 2 * page_size, MADV_DONTNEED));
	EXPECT_EQ(-1, write(self->fd, p2 - 8, 12));
	EXPECT_EQ(EFAULT, errno);

	ASSERT_EQ(0, ue_enable(EV_WRITE, false));
	munmap(map, 3 * page_size);

	ue_trace_read(&self->trace);
	ASSERT_EQ(3, ue_trace_count(self->trace, EV_WRITE));
	for (n = 0; n < 3; n++) {
		snprintf(a, sizeof(a), "a=%d", 3 + 2 * n);
		snprintf(b, sizeof(b), "b=%d", 4 + 2 * n);
		ASSERT_EQ(0, ue_trace_line(self->trace, EV_WRITE, n, line,
					   sizeof(line)));
		EXPECT_TRUE(ue_has_token(line, a)) TH_LOG("%s", line);
		EXPECT_TRUE(ue_has_token(line, b)) TH_LOG("%s", line);
	}
}

/*
 * writev() whose index uses up every iovec, UIO_FASTIOV of them (the
 * kernel's on-stack array): nothing may be read past the last one.
 */
TEST_F_TIMEOUT(abi, writev_index_only, TIMEOUT)
{
	static __u32 word, word2;
	struct iovec iv[8];
	int idx = -1, idx2 = -1;
	unsigned int i;

	ASSERT_EQ(0, ue_reg(self->fd, EV_NOFIELD, &word, 0, &idx));
	ASSERT_EQ(0, ue_reg(self->fd, EV_WRITE " u32 a; u32 b", &word2, 0,
			    &idx2));
	ASSERT_EQ(0, ue_enable(EV_NOFIELD, true));
	ASSERT_EQ(0, ue_enable(EV_WRITE, true));

	for (i = 0; i < ARRAY_SIZE(iv); i++) {
		iv[i].iov_base = &idx;
		iv[i].iov_len = 0;
	}
	/* The index first, then empty iovecs */
	iv[0].iov_len = sizeof(idx);
	EXPECT_EQ(4, writev(self->fd, iv, ARRAY_SIZE(iv)));
	/* The index last */
	iv[0].iov_len = 0;
	iv[7].iov_len = sizeof(idx);
	EXPECT_EQ(4, writev(self->fd, iv, ARRAY_SIZE(iv)));
	/* The index split over the last two */
	iv[6].iov_base = &idx;
	iv[6].iov_len = 1;
	iv[7].iov_base = (char *)&idx + 1;
	iv[7].iov_len = sizeof(idx) - 1;
	EXPECT_EQ(4, writev(self->fd, iv, ARRAY_SIZE(iv)));
	/* An event with fields gets no payload: too short */
	iv[6].iov_base = &idx2;
	iv[7].iov_base = (char *)&idx2 + 1;
	EXPECT_EQ(-1, writev(self->fd, iv, ARRAY_SIZE(iv)));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, ue_enable(EV_NOFIELD, false));
	ASSERT_EQ(0, ue_enable(EV_WRITE, false));
	ue_trace_read(&self->trace);
	EXPECT_EQ(3, ue_trace_count(self->trace, EV_NOFIELD));
	EXPECT_EQ(0, ue_trace_count(self->trace, EV_WRITE));
}

#define WRITERS		4
#define WRITES		500

struct writer {
	int fd, idx;
	__u32 n;
	int done;
};

/* WRITES records of index w->idx with field n = w->n */
static void *writer_main(void *arg)
{
	struct writer *w = arg;
	int i;

	for (i = 0; i < WRITES; i++)
		if (ue_emit(w->fd, w->idx, &w->n, sizeof(w->n)) == 8)
			w->done++;
	return NULL;
}

/*
 * Threads of one process share one file and write at once: every record
 * lands (the file has no position the writes would have to agree on).
 */
TEST_F_TIMEOUT(abi, threads_share_file, TIMEOUT)
{
	int idx = -1, i, got[WRITERS] = { 0 };
	struct writer w[WRITERS];
	pthread_t t[WRITERS];
	char want[32], line[256];
	static __u32 word;
	const char *p;

	ASSERT_EQ(0, ue_reg(self->fd, EV_THREADS " u32 n", &word, 0, &idx));
	ASSERT_EQ(0, ue_enable(EV_THREADS, true));
	for (i = 0; i < WRITERS; i++) {
		w[i] = (struct writer){ .fd = self->fd, .idx = idx, .n = 100 + i };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, writer_main, &w[i]));
	}
	for (i = 0; i < WRITERS; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(WRITES, w[i].done) TH_LOG("writer %d", i);
	}
	ASSERT_EQ(0, ue_enable(EV_THREADS, false));

	/* Each writer's records, by their field: one pass over the trace */
	p = ue_trace_read(&self->trace);
	while ((p = ue_trace_next(p, EV_THREADS))) {
		snprintf(line, sizeof(line), "%.*s",
			 (int)(strchrnul(p, '\n') - p), p);
		for (i = 0; i < WRITERS; i++) {
			snprintf(want, sizeof(want), "n=%u", 100 + i);
			got[i] += ue_has_token(line, want);
		}
		p += strlen(EV_THREADS);
	}
	for (i = 0; i < WRITERS; i++)
		EXPECT_EQ(WRITES, got[i]) TH_LOG("records of writer %d", i);
}

/* Send @fd and @idx over unix socket @sock */
static int send_fd(int sock, int fd, int idx)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { .iov_base = &idx, .iov_len = sizeof(idx) };
	struct msghdr msg = {
		.msg_iov = &io, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == sizeof(idx) ? 0 : -errno;
}

static int recv_fd(int sock, int *idx)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { .iov_base = idx, .iov_len = sizeof(*idx) };
	struct msghdr msg = {
		.msg_iov = &io, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != sizeof(*idx))
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

TEST_F_TIMEOUT(abi, fd_over_scm_rights, TIMEOUT)
{
	static __u32 word;
	char line[256];
	int sv[2], idx = -1, status = 0;
	long result = 0;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));

	/* The other process exists before the file is opened */
	close(self->fd);
	self->fd = -1;
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u32 val = 0x5151;
		int fd, own, i;

		close(sv[0]);
		fd = recv_fd(sv[1], &i);
		if (fd < 0)
			_exit(1);
		result = ue_emit(fd, i, &val, sizeof(val));
		/* its own file does not know the index */
		own = ue_open();
		if (own >= 0 && ue_emit(own, i, &val, sizeof(val)) != -ENOENT)
			result = -1000;
		write(sv[1], &result, sizeof(result));
		_exit(0);
	}
	close(sv[1]);

	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ue_reg(self->fd, EV_SCM " u32 a", &word, 0, &idx));
	ASSERT_EQ(0, ue_enable(EV_SCM, true));
	ASSERT_EQ(0, send_fd(sv[0], self->fd, idx));
	EXPECT_EQ(sizeof(result), read(sv[0], &result, sizeof(result)));
	EXPECT_EQ(8, result);
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	ASSERT_EQ(0, ue_enable(EV_SCM, false));
	close(sv[0]);

	ue_trace_read(&self->trace);
	ASSERT_EQ(1, ue_trace_count(self->trace, EV_SCM));
	ASSERT_EQ(0, ue_trace_line(self->trace, EV_SCM, 0, line, sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "a=20817")) TH_LOG("%s", line);
}

TEST_F_TIMEOUT(abi, error_log, TIMEOUT)
{
	static const struct {
		const char *cmd;
		const char *find;	/* in the logged command */
		const char *token;	/* under the caret */
	} bad[] = {
		{ EV_ERRLOG " u32 a; bogus b",	"bogus b",	"bogus" },
		{ EV_ERRLOG " u32 a; long b",	"long b",	"long" },
		{ EV_ERRLOG " u32 a; u32 b 4",	"u32 b 4",	"4" },
		{ EV_ERRLOG ":flag u32 a",	":flag",	"flag" },
	};
	static __u32 word;
	char logged[600];
	unsigned int i;
	int pos = -1;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, ue_errlog_clear());
		EXPECT_EQ(-EINVAL, ue_reg(self->fd, bad[i].cmd, &word, 0, NULL));
		ASSERT_EQ(0, ue_errlog_find(bad[i].find, logged, sizeof(logged),
					    &pos))
			TH_LOG("no error_log line for \"%s\"", bad[i].cmd);
		ASSERT_LE(0, pos) TH_LOG("no caret: %s", logged);
		ASSERT_GE((int)strlen(logged), pos);
		/* ":flag": the caret at the flag or at its ':' */
		if (logged[pos] == ':')
			pos++;
		EXPECT_EQ(0, strncmp(logged + pos, bad[i].token,
				     strlen(bad[i].token)))
			TH_LOG("\"%s\": caret at \"%s\"", logged, logged + pos);
	}
}

/* Whether error_log holds byte @c anywhere */
static bool errlog_has_byte(char c)
{
	char *buf = ue_read_tracefs("error_log");
	bool has;

	if (!buf)
		return true;
	has = strchr(buf, c);
	free(buf);
	return has;
}

/*
 * error_log shows what a caller sent as text: a byte that is not
 * printable ASCII, and the backslash, as \xNN; one command stays on its
 * "Command:" line, and the caret points at the escaped byte.
 */
TEST_F_TIMEOUT(abi, error_log_escapes, TIMEOUT)
{
	static const char fake[] = "[    1.000000] user_events: error: fake";
	static const struct {
		const char *cmd;
		const char *logged;	/* the "Command:" text */
		const char *token;	/* under the caret */
	} bad[] = {
		/* A terminal escape in the name */
		{ EV_ERRLOG "\x1b[2J u32 a", EV_ERRLOG "\\x1b[2J u32 a",
		  "\\x1b" },
		/* A line of its own after a newline (a space to the parser) */
		{ EV_ERRLOG " u32 a\n[    1.000000] user_events: error: fake",
		  EV_ERRLOG " u32 a\\x0a[    1.000000] user_events: error: fake",
		  "[" },
		/* A backslash, and a byte above 0x7e */
		{ EV_ERRLOG "\\x41 u32 a", EV_ERRLOG "\\x5cx41 u32 a", "\\x5c" },
		{ EV_ERRLOG " u32 a; u32 b\xff", EV_ERRLOG " u32 a; u32 b\\xff",
		  "\\xff" },
	};
	char logged[600], msg[200], cmd[128], *buf;
	static __u32 word;
	unsigned int i;
	int pos = -1;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, ue_errlog_clear());
		EXPECT_EQ(-EINVAL, ue_reg(self->fd, bad[i].cmd, &word, 0, NULL));
		ASSERT_EQ(0, ue_errlog_find(EV_ERRLOG, logged, sizeof(logged),
					    &pos))
			TH_LOG("no error_log line for case %u", i);
		EXPECT_STREQ(bad[i].logged, logged);
		ASSERT_LE(0, pos) TH_LOG("no caret: %s", logged);
		ASSERT_GE((int)strlen(logged), pos);
		EXPECT_EQ(0, strncmp(logged + pos, bad[i].token,
				     strlen(bad[i].token)))
			TH_LOG("\"%s\": caret at \"%s\"", logged, logged + pos);
		EXPECT_FALSE(errlog_has_byte('\x1b'));
		EXPECT_FALSE(errlog_has_byte('\xff'));
		/* No line of the log starts with the forged text */
		buf = ue_read_tracefs("error_log");
		ASSERT_NE(NULL, buf);
		EXPECT_EQ(NULL, strstr(buf, "\n[    1.000000]"));
		EXPECT_NE(0, strncmp(buf, fake, strlen(fake)));
		free(buf);
	}

	/* DIAG_IOCSDEL of a name that is no event */
	ASSERT_EQ(0, ue_errlog_clear());
	snprintf(cmd, sizeof(cmd), "%s\x07\n%s", EV_ERRLOG, fake);
	EXPECT_EQ(-ENOENT, ue_del_fd(self->fd, cmd));
	snprintf(cmd, sizeof(cmd), "%s\\x07\\x0a%s", EV_ERRLOG, fake);
	ASSERT_EQ(0, ue_errlog_msg(cmd, msg, sizeof(msg)));
	EXPECT_STREQ("user_events: error: No such event", msg);
	EXPECT_FALSE(errlog_has_byte('\x07'));

	/* The same for dynamic_events */
	ASSERT_EQ(0, ue_errlog_clear());
	EXPECT_EQ(-EINVAL, ue_dyn_cmd("u:" EV_ERRLOG "\x1b u32 a\n"));
	ASSERT_EQ(0, ue_errlog_find(EV_ERRLOG, logged, sizeof(logged), &pos));
	EXPECT_STREQ("u:" EV_ERRLOG "\\x1b u32 a", logged);
	EXPECT_EQ(0, strncmp(logged + pos, "\\x1b", 4))
		TH_LOG("caret at \"%s\"", pos >= 0 ? logged + pos : "");
	EXPECT_FALSE(errlog_has_byte('\x1b'));
}

/*
 * An event named as a file of the system directory (events/user_events/
 * has "enable" and "filter") would hide it: such names are EINVAL, with
 * an error_log line, through every way of registering.
 */
TEST_F_TIMEOUT(abi, reserved_names, TIMEOUT)
{
	static const char * const cmds[] = {
		"enable", "enable u32 a", "filter", "filter u32 a; char[4] s",
	};
	char path[UE_PATH_MAX], msg[200], dyn[64];
	static __u32 word, word2;
	unsigned int i;
	struct stat st;

	/* The system directory exists while one of its events does */
	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word2, 0, NULL));

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		ASSERT_EQ(0, ue_errlog_clear());
		EXPECT_EQ(-EINVAL, ue_reg(self->fd, cmds[i], &word, 0, NULL))
			TH_LOG("%s", cmds[i]);
		ASSERT_EQ(0, ue_errlog_msg(cmds[i], msg, sizeof(msg)))
			TH_LOG("no error_log line for \"%s\"", cmds[i]);
		EXPECT_STREQ(RESERVED_MSG, msg);
		EXPECT_EQ(-EINVAL, ue_reg_flags(self->fd, cmds[i],
						USER_EVENT_REG_MULTI_FORMAT,
						&word, 4, 0, NULL));
		snprintf(dyn, sizeof(dyn), "u:%s\n", cmds[i]);
		EXPECT_EQ(-EINVAL, ue_dyn_cmd(dyn));
	}
	EXPECT_EQ(0, word);

	/* The files are still the system's */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, stat(ue_path(path, "events/%s/%s",
					  USER_EVENTS_SYSTEM,
					  i ? "filter" : "enable"), &st));
		EXPECT_TRUE(S_ISREG(st.st_mode)) TH_LOG("%s", path);
	}
	EXPECT_EQ(0, ue_unreg(self->fd, &word2, 0));
}

TEST_F_TIMEOUT(abi, persist, TIMEOUT)
{
	static __u32 word;
	char line[128];
	int status = 0, fd, i;
	pid_t pid;

	ASSERT_EQ(0, ue_reg_flags(self->fd, EV_PERSIST " u32 a",
				  USER_EVENT_REG_PERSIST, &word, 4, 0, NULL));
	ASSERT_EQ(0, ue_unreg(self->fd, &word, 0));
	close(self->fd);
	self->fd = -1;

	/* Survives the last UNREG and close */
	EXPECT_TRUE(ue_event_exists(NULL, EV_PERSIST));
	EXPECT_EQ(0, ue_status_line(EV_PERSIST, line, sizeof(line)));

	/* Registering it again, with or without the flag, finds it */
	fd = ue_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ue_reg(fd, EV_PERSIST " u32 a", &word, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(fd, EV_PERSIST " u64 a", &word, 1,
				      NULL));
	ASSERT_EQ(0, ue_unreg(fd, &word, 0));
	close(fd);
	EXPECT_TRUE(ue_event_exists(NULL, EV_PERSIST));

	/* Deleting it needs CAP_PERFMON */
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (ue_drop_perfmon())
			_exit(10);
		_exit(ue_del(EV_PERSIST) == -EPERM ? 0 : 11);
	}
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	EXPECT_TRUE(ue_event_exists(NULL, EV_PERSIST));
	EXPECT_EQ(0, ue_del(EV_PERSIST));
	EXPECT_FALSE(ue_event_exists(NULL, EV_PERSIST));

	/* Deletable at once after every close: no deferred reference */
	for (i = 0; i < 100; i++) {
		fd = ue_open();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ue_reg_flags(fd, EV_PERSIST " u32 a",
					  USER_EVENT_REG_PERSIST, &word, 4, 0,
					  NULL));
		ASSERT_EQ(0, ue_unreg(fd, &word, 0));
		close(fd);
		ASSERT_EQ(0, ue_del(EV_PERSIST)) TH_LOG("try %d", i);
	}
	/* And a plain event is gone at once after every close */
	for (i = 0; i < 100; i++) {
		fd = ue_open();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ue_reg(fd, EV_A " u32 a", &word, 0, NULL));
		ASSERT_EQ(0, ue_unreg(fd, &word, 0));
		close(fd);
		ASSERT_EQ(-ENOENT, ue_del(EV_A)) TH_LOG("try %d", i);
	}
}

TEST_F_TIMEOUT(abi, multi_format, TIMEOUT)
{
	static __u32 word;
	char ids[8][64], first[64], path[UE_PATH_MAX];
	int fd2, i1 = -1, i2 = -1, i3 = -1, n, i;
	__u32 val = 99;
	__u64 val64 = 98;

	ASSERT_EQ(0, ue_multi_ids(EV_MULTI, ids, 8));
	ASSERT_EQ(0, ue_reg_flags(self->fd, EV_MULTI " u32 a",
				  USER_EVENT_REG_MULTI_FORMAT, &word, 4, 0,
				  &i1));
	EXPECT_FALSE(ue_event_exists(NULL, EV_MULTI));
	ASSERT_EQ(1, ue_multi_ids(EV_MULTI, ids, 8));
	snprintf(first, sizeof(first), "%s", ids[0]);

	/* Same name and fields: the same tracepoint */
	fd2 = ue_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ue_reg_flags(fd2, EV_MULTI " u32 a",
				  USER_EVENT_REG_MULTI_FORMAT, &word, 4, 1,
				  NULL));
	ASSERT_EQ(1, ue_multi_ids(EV_MULTI, ids, 8));
	EXPECT_STREQ(first, ids[0]);

	/* Other fields: a new id, where single-format would say EADDRINUSE */
	ASSERT_EQ(0, ue_reg_flags(self->fd, EV_MULTI " u64 a",
				  USER_EVENT_REG_MULTI_FORMAT, &word, 4, 2,
				  &i2));
	EXPECT_NE(i1, i2);
	ASSERT_EQ(2, ue_multi_ids(EV_MULTI, ids, 8));
	EXPECT_STRNE(ids[0], ids[1]);

	/* Single- and multi-format never match each other */
	ASSERT_EQ(0, ue_reg(self->fd, EV_MULTI " u32 a", &word, 3, &i3));
	EXPECT_TRUE(ue_event_exists(NULL, EV_MULTI));
	EXPECT_NE(i1, i3);
	ASSERT_EQ(2, ue_multi_ids(EV_MULTI, ids, 8));

	/* Each format is a tracepoint of its own */
	ASSERT_EQ(0, ue_enable_sys(USER_EVENTS_MULTI_SYSTEM, first, true));
	EXPECT_EQ(3, word);	/* bits 0 and 1: "u32 a" on both files */
	EXPECT_EQ(8, ue_emit(self->fd, i1, &val, sizeof(val)));
	EXPECT_EQ(-EBADF, ue_emit(self->fd, i2, &val64, sizeof(val64)));
	EXPECT_EQ(-EBADF, ue_emit(self->fd, i3, &val, sizeof(val)));
	ASSERT_EQ(0, ue_enable_sys(USER_EVENTS_MULTI_SYSTEM, first, false));
	EXPECT_EQ(0, word);
	ue_trace_read(&self->trace);
	EXPECT_EQ(1, ue_trace_count(self->trace, first));

	/* Gone with their last reference */
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 0));
	EXPECT_EQ(0, ue_unreg(fd2, &word, 1));
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 2));
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 3));
	close(fd2);
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, ue_multi_ids(EV_MULTI, ids, 8));
	EXPECT_FALSE(ue_event_exists(NULL, EV_MULTI));

	/* Persistent formats: DEL of the name deletes all of them */
	fd2 = ue_open();
	ASSERT_LE(0, fd2);
	for (i = 0; i < 3; i++) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), EV_MULTI " u32 a; char[%d] b",
			 i + 1);
		ASSERT_EQ(0, ue_reg_flags(fd2, cmd, USER_EVENT_REG_PERSIST |
					  USER_EVENT_REG_MULTI_FORMAT, &word,
					  4, i, NULL));
	}
	ASSERT_EQ(3, ue_multi_ids(EV_MULTI, ids, 8));
	EXPECT_EQ(-EBUSY, ue_del(EV_MULTI));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, ue_unreg(fd2, &word, i));
	close(fd2);
	ASSERT_EQ(3, ue_multi_ids(EV_MULTI, ids, 8));
	/* One of them is still in use by ftrace: that one stays */
	ASSERT_EQ(0, ue_enable_sys(USER_EVENTS_MULTI_SYSTEM, ids[1], true));
	snprintf(first, sizeof(first), "%s", ids[1]);
	n = ue_del(EV_MULTI);
	TH_LOG("DEL with one format busy: %d", n);
	n = ue_multi_ids(EV_MULTI, ids, 8);
	EXPECT_EQ(1, n);
	EXPECT_STREQ(first, ids[0]);
	ASSERT_EQ(0, ue_enable_sys(USER_EVENTS_MULTI_SYSTEM, first, false));
	EXPECT_EQ(0, ue_del(EV_MULTI));
	EXPECT_EQ(0, ue_multi_ids(EV_MULTI, ids, 8));
	EXPECT_FALSE(ue_exists(ue_evpath(path, USER_EVENTS_MULTI_SYSTEM,
					 first, NULL)));
}

int main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	if (argc > 1 && !strcmp(argv[1], "--exec-child"))
		return exec_child(argc, argv);
	return test_harness_run(argc, argv);
}
