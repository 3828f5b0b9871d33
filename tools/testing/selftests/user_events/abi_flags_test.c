// SPDX-License-Identifier: GPL-2.0
/*
 * What DIAG_IOCSREG refuses, and its flags: kernel.user_events_max and
 * kernel.user_events_max_enablers, PERSIST without CAP_PERFMON, the order
 * in which DIAG_IOCSREG checks its errors, a write_index that cannot be
 * stored, the error_log lines (bytes
 * that are not printable escaped), reserved names, and the PERSIST and
 * MULTI_FORMAT flags.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_status.h"

#define TIMEOUT		300

#define EV_A		UE_PREFIX "af_a"
#define EV_B		UE_PREFIX "af_b"
#define EV_C		UE_PREFIX "af_c"
#define EV_LONG		UE_PREFIX "af_long"	/* never created */
#define EV_ERRLOG	UE_PREFIX "af_errlog"
#define EV_PERSIST	UE_PREFIX "af_persist"
#define EV_MULTI	UE_PREFIX "af_multi"
#define EV_MAX		UE_PREFIX "af_max"	/* + index */

#define RESERVED_MSG	"user_events: error: Reserved event name (a file of the system directory)"

#define MAX_SYSCTL	"/proc/sys/kernel/user_events_max"
#define MAX_DEFAULT	32768
#define ENABLERS_SYSCTL	"/proc/sys/kernel/user_events_max_enablers"
#define ENABLERS_DEFAULT	65536

static const char * const events[] = {
	EV_A, EV_B, EV_C, EV_ERRLOG, EV_PERSIST,
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

	ue_cleanup_names(events, ARRAY_SIZE(events));
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
	EXPECT_EQ(-E2BIG, ue_reg_raw(self->fd, reg));

	reg->size = sizeof(*reg) - 1;
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));

	reg->size = sizeof(*reg) + 8;
	EXPECT_EQ(-E2BIG, ue_reg_raw(self->fd, reg));

	reg->size = sizeof(*reg);
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));	/* flags */

	reg->flags = 0;
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));	/* enable_size */

	reg->enable_size = 4;
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));	/* alignment */

	reg->enable_addr = UE_KERNEL_ADDR;
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));	/* bit */

	reg->enable_bit = 1;
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, reg));	/* kernel address */

	reg->enable_addr = (__u64)(uintptr_t)&words[0];
	EXPECT_EQ(-EADDRINUSE, ue_reg_raw(self->fd, reg));	/* address and bit */

	reg->enable_addr = (__u64)(uintptr_t)ro;
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, reg));	/* name_args */

	ue_long_cmd(long_name, EV_LONG, UE_CMD_MAX);
	reg->name_args = (__u64)(uintptr_t)long_name;
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));	/* too long */

	reg->name_args = (__u64)(uintptr_t)EV_B " u64";
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));	/* malformed */

	reg->name_args = (__u64)(uintptr_t)EV_B ":flag u32 b";
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));	/* text flag */

	/* PERSIST needs CAP_PERFMON: before the name lookup */
	reg->name_args = (__u64)(uintptr_t)EV_B " u32 b";
	reg->flags = USER_EVENT_REG_PERSIST;
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (ue_drop_perfmon())
			_exit(10);
		_exit(ue_reg_raw(self->fd, reg) == -EPERM ? 0 : 11);
	}
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status)) TH_LOG("EPERM expected");
	reg->flags = 0;

	/* A write_index that cannot be stored: before any event is looked up */
	ASSERT_EQ(0, mprotect(buf, page_size, PROT_READ));
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, reg));	/* write_index */
	ASSERT_EQ(0, mprotect(buf, page_size, PROT_READ | PROT_WRITE));

	EXPECT_EQ(-EADDRINUSE, ue_reg_raw(self->fd, reg));	/* other fields */

	reg->name_args = (__u64)(uintptr_t)EV_C " u32 c";
	EXPECT_EQ(-EMFILE, ue_reg_raw(self->fd, reg));	/* user_events_max */

	ASSERT_EQ(0, ue_write_long(MAX_SYSCTL, self->saved_max));
	self->saved_max = -1;
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, reg));	/* read-only word */
	EXPECT_FALSE(ue_event_exists(NULL, EV_C));

	reg->enable_addr = (__u64)(uintptr_t)&words[1];
	EXPECT_EQ(0, ue_reg_raw(self->fd, reg));
	EXPECT_TRUE(ue_event_exists(NULL, EV_C));

	munmap(ro, page_size);
	munmap(buf, 2 * page_size);
}

/*
 * A registration whose write_index cannot be stored makes nothing, even
 * for a moment: a status poller sees no change, the word stays free.
 */
TEST_F_TIMEOUT(abi, reg_write_index_readonly, TIMEOUT)
{
	char path[UE_PATH_MAX], buf[4096];
	struct pollfd p;
	struct user_reg *reg;
	__u32 word = 0;
	char *page;
	int sfd;

	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	reg = (struct user_reg *)page;
	memset(reg, 0, sizeof(*reg));
	reg->size = sizeof(*reg);
	reg->enable_size = sizeof(word);
	reg->enable_addr = (__u64)(uintptr_t)&word;
	reg->name_args = (__u64)(uintptr_t)EV_A " u32 a";
	ASSERT_EQ(0, mprotect(page, page_size, PROT_READ));

	sfd = open(ue_path(path, "user_events_status"), O_RDONLY);
	ASSERT_LE(0, sfd);
	while (read(sfd, buf, sizeof(buf)) > 0)
		;
	p.fd = sfd;
	p.events = POLLPRI;
	ASSERT_EQ(0, poll(&p, 1, 0)) TH_LOG("revents %#x", p.revents);

	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, reg));
	EXPECT_EQ(0, poll(&p, 1, 0))
		TH_LOG("revents %#x: an event came and went", p.revents);
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
	EXPECT_EQ(0, word);
	close(sfd);

	ASSERT_EQ(0, mprotect(page, page_size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, ue_reg_raw(self->fd, reg));
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 0));
	munmap(page, page_size);
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
 * printable ASCII as \xNN, a backslash as it is; one command stays on
 * its "Command:" line, and the caret points at the escaped byte.
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
		{ EV_ERRLOG "\\x41 u32 a", EV_ERRLOG "\\x41 u32 a", "\\x41" },
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

TEST_HARNESS_MAIN
