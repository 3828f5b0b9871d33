// SPDX-License-Identifier: GPL-2.0
/*
 * Who may use user_events, and what a registration may write.
 *
 * With the default modes an unprivileged user cannot open
 * user_events_data.  Once an admin gives a "tracers" group read and write
 * on it and search on the tracing directory, a member of that group can
 * register and write, but not make events persistent nor delete
 * persistent ones.  A user_events_data bind-mounted alone into a mount
 * namespace works.  And no registration can flip a bit in memory its
 * caller cannot write: a read-only shared file mapping, a page
 * mprotect()ed read-only, memory of another process; the bytes stay as
 * they were.  Modes and ownership are restored afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
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

#define TIMEOUT		300

#define EV_PERSIST	UE_PREFIX "pm_p"	/* created and enabled by root */
#define EV_USER		UE_PREFIX "pm_u"	/* created by the tracer */
#define EV_NS		UE_PREFIX "pm_ns"
#define EV_MEM		UE_PREFIX "pm_mem"

#define TRACERS_GID	4242	/* the "tracers" group */
#define TRACER_UID	4243	/* a member of it */
#define NOBODY		65534

#define BIND_PATH	"/tmp/ue_perm_data"
#define RO_FILE		"/tmp/ue_perm_ro"
#define OTHER_ADDR	((void *)0x240000000ULL)

/* Shared with the teardown: @trace belongs to the test process */
FIXTURE(perm) {
	struct stat data_st, dir_st;
	bool saved;
	char data[UE_PATH_MAX];
	char *trace;
};

static void cleanup(void)
{
	ue_cleanup(EV_PERSIST);
	ue_cleanup(EV_USER);
	ue_cleanup(EV_NS);
	ue_cleanup(EV_MEM);
}

FIXTURE_SETUP(perm)
{
	const char *reason = ue_setup();

	self->saved = false;
	self->trace = NULL;
	if (reason)
		SKIP(return, "%s", reason);
	ue_path(self->data, "user_events_data");
	ASSERT_EQ(0, stat(self->data, &self->data_st));
	ASSERT_EQ(0, stat(ue_tracefs, &self->dir_st));
	self->saved = true;
	cleanup();
	ASSERT_EQ(0, ue_trace_clear());
}

/*
 * After the test process exited: its registrations went with its memory,
 * so every event it made can be deleted.
 */
FIXTURE_TEARDOWN_PARENT(perm)
{
	if (self->saved) {
		chown(self->data, self->data_st.st_uid, self->data_st.st_gid);
		chmod(self->data, self->data_st.st_mode & 07777);
		chown(ue_tracefs, self->dir_st.st_uid, self->dir_st.st_gid);
		chmod(ue_tracefs, self->dir_st.st_mode & 07777);
	}
	umount2(BIND_PATH, MNT_DETACH);
	unlink(BIND_PATH);
	unlink(RO_FILE);
	if (!ue_setup())
		cleanup();
}

/* Become @uid/@gid with only @group (if not 0) as supplementary group */
static int drop_to(uid_t uid, gid_t gid, gid_t group)
{
	if (setgroups(group ? 1 : 0, &group) || setgid(gid) || setuid(uid))
		return -errno;
	return geteuid() == uid ? 0 : -EPERM;
}

/* Run @fn in a child; its exit code, or -1 */
static int in_child(int (*fn)(void *), void *arg)
{
	int status = 0;
	pid_t pid = ue_fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (ue_wait_child(pid, 60000, &status))
		return -1;
	return ue_exit_code(status);
}

static int nobody_opens(void *data)
{
	if (drop_to(NOBODY, NOBODY, 0))
		return 1;
	if (open(data, O_RDWR) >= 0 || errno != EACCES)
		return 2;
	if (open(data, O_WRONLY) >= 0 || errno != EACCES)
		return 3;
	return 0;
}

TEST_F_TIMEOUT(perm, default_modes, TIMEOUT)
{
	/* 0640 root:root, as abi.md says */
	EXPECT_EQ(0640, self->data_st.st_mode & 07777);
	EXPECT_EQ(0, self->data_st.st_uid);
	EXPECT_EQ(0, self->data_st.st_gid);
	EXPECT_EQ(0, in_child(nobody_opens, self->data));
}

/* A member of the tracers group, and no capabilities */
static int tracer(void *data)
{
	static __u32 word;
	__u32 val = 0x7e57;
	int fd, idx = -1;

	if (drop_to(TRACER_UID, TRACER_UID, TRACERS_GID))
		return 1;
	fd = open(data, O_RDWR);
	if (fd < 0)
		return 2;

	/* Register the event root made and enabled: the bit is set */
	if (ue_reg(fd, EV_PERSIST " u32 a", &word, 0, &idx))
		return 3;
	if (word != 1)
		return 4;
	if (ue_emit(fd, idx, &val, sizeof(val)) != 8)
		return 5;

	/* A new event of its own: created, not enabled */
	if (ue_reg(fd, EV_USER " u32 a", &word, 1, &idx))
		return 6;
	if (word != 1 || ue_emit(fd, idx, &val, sizeof(val)) != -EBADF)
		return 7;

	/* But not persistent, and no deleting persistent events */
	if (ue_reg_flags(fd, EV_USER " u32 a", USER_EVENT_REG_PERSIST, &word,
			 4, 2, NULL) != -EPERM)
		return 8;
	if (ue_del_fd(fd, EV_PERSIST) != -EPERM)
		return 9;
	/* A non-persistent event in use is busy, not forbidden */
	if (ue_del_fd(fd, EV_USER) != -EBUSY)
		return 10;
	close(fd);
	return 0;
}

TEST_F_TIMEOUT(perm, tracers_group, TIMEOUT)
{
	char line[256];

	/* Without the group's search right on the directory: refused */
	ASSERT_EQ(0, chown(self->data, 0, TRACERS_GID));
	ASSERT_EQ(0, chmod(self->data, 0660));
	if (!(self->dir_st.st_mode & 0011))
		EXPECT_EQ(2, in_child(tracer, self->data));

	ASSERT_EQ(0, chown(ue_tracefs, self->dir_st.st_uid, TRACERS_GID));
	ASSERT_EQ(0, chmod(ue_tracefs, (self->dir_st.st_mode & 07777) | 0010));
	/* Still nothing for users outside the group */
	EXPECT_EQ(0, in_child(nobody_opens, self->data));

	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_PERSIST " u32 a\n"));
	ASSERT_EQ(0, ue_enable(EV_PERSIST, true));
	EXPECT_EQ(0, in_child(tracer, self->data));
	ASSERT_EQ(0, ue_enable(EV_PERSIST, false));

	ue_trace_read(&self->trace);
	ASSERT_EQ(1, ue_trace_count(self->trace, EV_PERSIST));
	ASSERT_EQ(0, ue_trace_line(self->trace, EV_PERSIST, 0, line,
				   sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "a=32343")) TH_LOG("%s", line);

	/* The tracer's event went with its process; root's stays */
	EXPECT_TRUE(ue_wait_gone(NULL, EV_USER, 2000));
	EXPECT_TRUE(ue_event_exists(NULL, EV_PERSIST));
	EXPECT_EQ(0, ue_del(EV_PERSIST));
}

/*
 * In a new mount namespace, only a bind mount of user_events_data: no
 * tracefs at all.  Registering and writing work through it.
 */
static int lone_file(void *data)
{
	static __u32 word;
	__u32 val = 0x4e5;
	int fd, idx = -1;

	if (unshare(CLONE_NEWNS))
		return 1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 2;
	if (mount(data, BIND_PATH, NULL, MS_BIND, NULL))
		return 3;
	if (umount2(ue_tracefs, MNT_DETACH))
		return 4;
	if (ue_exists(data))
		return 5;
	fd = open(BIND_PATH, O_RDWR);
	if (fd < 0)
		return 6;
	if (ue_reg(fd, EV_NS " u32 a", &word, 0, &idx) || word != 1)
		return 7;
	if (ue_emit(fd, idx, &val, sizeof(val)) != 8)
		return 8;
	close(fd);
	return 0;
}

TEST_F_TIMEOUT(perm, bind_mount_namespace, TIMEOUT)
{
	char line[256];
	int fd;

	fd = open(BIND_PATH, O_CREAT | O_WRONLY, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_NS " u32 a\n"));
	ASSERT_EQ(0, ue_enable(EV_NS, true));
	EXPECT_EQ(0, in_child(lone_file, self->data));
	ASSERT_EQ(0, ue_enable(EV_NS, false));
	/* The namespace's mounts did not leak here */
	EXPECT_TRUE(ue_exists(self->data));

	ue_trace_read(&self->trace);
	ASSERT_EQ(1, ue_trace_count(self->trace, EV_NS));
	ASSERT_EQ(0, ue_trace_line(self->trace, EV_NS, 0, line, sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "a=1253")) TH_LOG("%s", line);
	EXPECT_EQ(0, ue_del(EV_NS));
}

#define PATTERN	0xa5a5a5a5U

/* Register every bit of @word: each must fail with EFAULT, no byte move */
static int try_all_bits(int fd, __u32 *word, __u32 before)
{
	int bit, ret;

	for (bit = 0; bit < 32; bit++) {
		ret = ue_reg(fd, EV_MEM " u32 a", word, bit, NULL);
		if (ret != -EFAULT)
			return ret ? ret : -1000;
		if (*word != before)
			return -2000;
	}
	return 0;
}

TEST_F_TIMEOUT(perm, no_write_without_access, TIMEOUT)
{
	long page = sysconf(_SC_PAGESIZE);
	__u32 *shared, *priv, *p, file_word;
	static __u32 keep;
	int fd, kfd, file;
	ssize_t n;

	/* The event exists and is enabled: any registered bit gets set */
	kfd = ue_open();
	ASSERT_LE(0, kfd);
	ASSERT_EQ(0, ue_reg(kfd, EV_MEM " u32 a", &keep, 31, NULL));
	ASSERT_EQ(0, ue_enable(EV_MEM, true));
	fd = ue_open();
	ASSERT_LE(0, fd);

	/* A file opened read-only, mapped shared */
	file = open(RO_FILE, O_CREAT | O_RDWR | O_TRUNC, 0644);
	ASSERT_LE(0, file);
	for (n = 0; n < page / 4; n++) {
		file_word = PATTERN;
		ASSERT_EQ(4, write(file, &file_word, 4));
	}
	close(file);
	file = open(RO_FILE, O_RDONLY);
	ASSERT_LE(0, file);
	shared = mmap(NULL, page, PROT_READ, MAP_SHARED, file, 0);
	ASSERT_NE(MAP_FAILED, shared);
	EXPECT_EQ(0, try_all_bits(fd, shared + 3, PATTERN));
	/* Writable only as a private copy: the copy changes, the file not */
	priv = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, file, 0);
	ASSERT_NE(MAP_FAILED, priv);
	ASSERT_EQ(0, ue_reg(fd, EV_MEM " u32 a", priv + 3, 1, NULL));
	EXPECT_EQ(PATTERN | 2, priv[3]);
	EXPECT_EQ(PATTERN, shared[3]);
	ASSERT_EQ(4, pread(file, &file_word, 4, 12));
	EXPECT_EQ(PATTERN, file_word);
	EXPECT_EQ(0, ue_unreg(fd, priv + 3, 1));
	munmap(priv, page);
	munmap(shared, page);
	close(file);

	/* A page mprotect()ed read-only, before and after registering */
	p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	p[0] = PATTERN;
	p[1] = 0;
	ASSERT_EQ(0, ue_reg(fd, EV_MEM " u32 a", &p[1], 4, NULL));
	EXPECT_EQ(16, p[1]);
	ASSERT_EQ(0, mprotect(p, page, PROT_READ));
	EXPECT_EQ(0, try_all_bits(fd, &p[0], PATTERN));
	/* Toggling does not write the registered word while read-only */
	ASSERT_EQ(0, ue_enable(EV_MEM, false));
	EXPECT_EQ(16, p[1]);
	EXPECT_EQ(0, keep);
	ASSERT_EQ(0, ue_enable(EV_MEM, true));
	EXPECT_EQ(16, p[1]);
	ASSERT_EQ(0, mprotect(p, page, PROT_NONE));
	ASSERT_EQ(0, ue_enable(EV_MEM, false));
	ASSERT_EQ(0, mprotect(p, page, PROT_READ));
	EXPECT_EQ(16, p[1]);
	EXPECT_EQ(PATTERN, p[0]);
	ASSERT_EQ(0, mprotect(p, page, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, ue_enable(EV_MEM, true));
	EXPECT_EQ(16, p[1]);
	EXPECT_EQ(0, ue_unreg(fd, &p[1], 4));
	EXPECT_EQ(0, p[1]);
	munmap(p, page);
	close(fd);
	ASSERT_EQ(0, ue_enable(EV_MEM, false));
	EXPECT_EQ(0, ue_unreg(kfd, &keep, 31));
	close(kfd);
	/* None of the refused registrations was left holding the event */
	EXPECT_FALSE(ue_event_exists(NULL, EV_MEM));
}

/* A child that registers at @addr in its own address space */
static int other_reg(void *addr)
{
	int fd = ue_open(), ret;

	if (fd < 0)
		return 1;
	if (drop_to(NOBODY, NOBODY, 0))
		return 2;
	ret = ue_reg(fd, EV_MEM " u32 a", addr, 1, NULL);
	if (ret == -EFAULT)
		return 10;
	if (ret)
		return 3;
	return *(__u32 *)addr == (PATTERN | 2) ? 20 : 4;
}

TEST_F_TIMEOUT(perm, other_process_memory, TIMEOUT)
{
	long page = sysconf(_SC_PAGESIZE);
	static __u32 keep;
	int kfd, status = 0;
	__u32 *p;
	pid_t pid;
	int sync[2];
	char c;

	kfd = ue_open();
	ASSERT_LE(0, kfd);
	ASSERT_EQ(0, ue_reg(kfd, EV_MEM " u32 a", &keep, 31, NULL));
	ASSERT_EQ(0, ue_enable(EV_MEM, true));
	ASSERT_EQ(0, pipe(sync));

	/* A child that exists before the page: the address is not its */
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(sync[1]);
		if (read(sync[0], &c, 1) != 1)
			_exit(1);
		_exit(other_reg(OTHER_ADDR));
	}
	close(sync[0]);
	p = mmap(OTHER_ADDR, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_EQ(OTHER_ADDR, p);
	p[0] = PATTERN;
	ASSERT_EQ(1, write(sync[1], "g", 1));
	close(sync[1]);
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(10, ue_exit_code(status)) TH_LOG("child: EFAULT expected");
	EXPECT_EQ(PATTERN, p[0]);

	/* A child with a copy of the page: only its copy changes */
	EXPECT_EQ(20, in_child(other_reg, OTHER_ADDR));
	EXPECT_EQ(PATTERN, p[0]);
	ASSERT_EQ(0, ue_enable(EV_MEM, false));
	EXPECT_EQ(PATTERN, p[0]);
	munmap(p, page);
	EXPECT_EQ(0, ue_unreg(kfd, &keep, 31));
	close(kfd);
	/* The children's registrations went with them */
	EXPECT_FALSE(ue_event_exists(NULL, EV_MEM));
}

TEST_HARNESS_MAIN
