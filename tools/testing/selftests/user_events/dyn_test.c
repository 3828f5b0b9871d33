// SPDX-License-Identifier: GPL-2.0
/*
 * user_events through tracefs/dynamic_events: "u:" creates a persistent
 * event for every field type, spacing around ';' does not matter, the
 * listing format, "-:" and "!u:" deletes that must match the fields,
 * truncation that deletes nothing while an event is busy,
 * EPERM without CAP_PERFMON, and error_log lines with a caret under the
 * offending token of a bad command.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_format.h"
#include "user_events_status.h"

#define TIMEOUT		300

#define EV_TYPE		UE_PREFIX "dy_type"	/* + index */
#define EV_SPACE	UE_PREFIX "dy_space"
#define EV_SPACE2	UE_PREFIX "dy_space2"
#define EV_LIST		UE_PREFIX "dy_list"
#define EV_NOFIELDS	UE_PREFIX "dy_nofields"
#define EV_DEL		UE_PREFIX "dy_del"
#define EV_BUSY		UE_PREFIX "dy_busy"
#define EV_PERM		UE_PREFIX "dy_perm"
#define EV_PERM2	UE_PREFIX "dy_perm2"
#define EV_BAD		UE_PREFIX "dy_bad"
#define EV_EXIST	UE_PREFIX "dy_exist"
#define EV_TRUNC	UE_PREFIX "dy_trunc"
#define EV_TRUNC2	UE_PREFIX "dy_trunc2"

static const struct {
	const char *decl;	/* as written in the command */
	const char *listed;	/* as dynamic_events lists it */
	int size;
	int is_signed;
} types[] = {
	{ "s8 f",			NULL,			1, 1 },
	{ "u8 f",			NULL,			1, 0 },
	{ "char f",			NULL,			1, 1 },
	{ "unsigned char f",		NULL,			1, 0 },
	{ "s16 f",			NULL,			2, 1 },
	{ "u16 f",			NULL,			2, 0 },
	{ "short f",			NULL,			2, 1 },
	{ "unsigned short f",		NULL,			2, 0 },
	{ "s32 f",			NULL,			4, 1 },
	{ "u32 f",			NULL,			4, 0 },
	{ "int f",			NULL,			4, 1 },
	{ "unsigned int f",		NULL,			4, 0 },
	{ "s64 f",			NULL,			8, 1 },
	{ "u64 f",			NULL,			8, 0 },
	{ "char[20] f",			NULL,			20, 1 },
	{ "char[1] f",			NULL,			1, 1 },
	{ "char[1024] f",		NULL,			1024, 1 },
	{ "unsigned char[0x10] f",	"unsigned char[16] f",	16, 0 },
	{ "__data_loc char[] f",	NULL,			4, -1 },
	{ "__rel_loc char[] f",		NULL,			4, -1 },
	{ "__data_loc u8[] f",		NULL,			4, -1 },
	/* Any element type, as in Linux */
	{ "__rel_loc long[] f",		NULL,			4, -1 },
	{ "__data_loc struct dy_pair[] f", NULL,		4, -1 },
	{ "__data_loc unsigned  long[] f",
	  "__data_loc unsigned long[] f",			4, -1 },
	{ "struct dy_pair f 12",	NULL,			12, -1 },
	{ "struct dy_one f 1",		NULL,			1, -1 },
};

#define NR_TYPES ((int)ARRAY_SIZE(types))

static const char * const events[] = {
	EV_SPACE, EV_SPACE2, EV_LIST, EV_NOFIELDS, EV_DEL, EV_BUSY, EV_PERM,
	EV_PERM2, EV_BAD, EV_EXIST, EV_TRUNC, EV_TRUNC2,
};

static void cleanup_all(void)
{
	char name[64];
	unsigned int i;

	ue_cleanup_names(events, ARRAY_SIZE(events));
	for (i = 0; i < NR_TYPES; i++) {
		snprintf(name, sizeof(name), EV_TYPE "%u", i);
		ue_cleanup(name);
	}
}

/* Is @line (without "\n") a whole line of dynamic_events? */
static bool dyn_listed(const char *line)
{
	char *buf = ue_read_tracefs("dynamic_events");
	size_t n = strlen(line);
	bool found = false;
	char *p;

	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, line, n) && (p[n] == '\n' || !p[n])) {
			found = true;
			break;
		}
	}
	free(buf);
	return found;
}

/* The dynamic_events line of user event @name, or "" */
static void dyn_line(const char *name, char *line, size_t size)
{
	char *buf = ue_read_tracefs("dynamic_events");
	char prefix[128];
	size_t n;
	char *p;

	line[0] = '\0';
	n = snprintf(prefix, sizeof(prefix), "u:%s", name);
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, prefix, n) && (p[n] == ' ' || p[n] == '\n' ||
					       !p[n])) {
			snprintf(line, size, "%.*s", (int)(strchrnul(p, '\n') - p),
				 p);
			break;
		}
	}
	free(buf);
}

/*
 * The enable word of the tests: private memory of the test process, not a
 * field of the fixture data, which FIXTURE_TEARDOWN_PARENT shares.
 */
static __u32 enable_word;

FIXTURE(dyn) {
	int fd;			/* the test process's */
};

FIXTURE_SETUP(dyn)
{
	const char *reason = ue_setup();
	char path[UE_PATH_MAX];

	self->fd = -1;
	if (reason)
		SKIP(return, "%s", reason);
	if (!ue_exists(ue_path(path, "dynamic_events")))
		SKIP(return, "no dynamic_events (CONFIG_DYNAMIC_EVENTS?)");
	cleanup_all();
	enable_word = 0;
}

/*
 * After the test process exited: its registrations went with its memory
 * and its files were released, so every event it made can be deleted.
 */
FIXTURE_TEARDOWN_PARENT(dyn)
{
	if (!ue_setup())
		cleanup_all();
}

TEST_F_TIMEOUT(dyn, create_every_type, TIMEOUT)
{
	char name[64], cmd[1200], want[1200], line[1200];
	const struct ue_field *f;
	struct ue_format fmt;
	int i;

	for (i = 0; i < NR_TYPES; i++) {
		snprintf(name, sizeof(name), EV_TYPE "%d", i);
		snprintf(cmd, sizeof(cmd), "u:%s %s\n", name, types[i].decl);
		ASSERT_EQ(0, ue_dyn_cmd(cmd)) TH_LOG("%s", cmd);
		ASSERT_TRUE(ue_event_exists(NULL, name)) TH_LOG("%s", cmd);

		ASSERT_EQ(0, ue_format_read(NULL, name, &fmt));
		ASSERT_EQ(1, fmt.nr) TH_LOG("%s", cmd);
		f = ue_field(&fmt, "f");
		ASSERT_NE(NULL, f) TH_LOG("%s: %s", cmd, fmt.fields[0].decl);
		EXPECT_EQ(UE_HDR_SIZE, f->offset) TH_LOG("%s", cmd);
		EXPECT_EQ(types[i].size, f->size) TH_LOG("%s", cmd);
		if (types[i].is_signed >= 0)
			EXPECT_EQ(types[i].is_signed, f->is_signed)
				TH_LOG("%s", cmd);
		if (!strncmp(types[i].decl, "__", 2))
			EXPECT_EQ(0, strncmp(f->decl, types[i].decl,
					     strchr(types[i].decl, ' ') -
					     types[i].decl))
				TH_LOG("%s: %s", cmd, f->decl);
		/* A print_fmt to decode the field with */
		EXPECT_NE(NULL, strstr(fmt.print_fmt, "f="))
			TH_LOG("%s: %s", cmd, fmt.print_fmt);

		snprintf(want, sizeof(want), "u:%s %s", name,
			 types[i].listed ? types[i].listed : types[i].decl);
		dyn_line(name, line, sizeof(line));
		EXPECT_STREQ(want, line);

		snprintf(cmd, sizeof(cmd), "-:%s %s\n", name, types[i].decl);
		ASSERT_EQ(0, ue_dyn_cmd(cmd)) TH_LOG("%s", cmd);
		EXPECT_FALSE(ue_event_exists(NULL, name)) TH_LOG("%s", cmd);
		dyn_line(name, line, sizeof(line));
		EXPECT_STREQ("", line);
	}
}

TEST_F_TIMEOUT(dyn, all_types_in_one_event, TIMEOUT)
{
	char cmd[UE_CMD_MAX * 2], fname[16];
	struct ue_format fmt;
	int i, off = UE_HDR_SIZE, len;
	const struct ue_field *f;

	len = snprintf(cmd, sizeof(cmd), "u:%s", EV_LIST);
	for (i = 0; i < NR_TYPES; i++) {
		const char *decl = types[i].decl;
		const char *fpos = strstr(decl, " f ");

		if (types[i].size == 1024)	/* keep it short */
			continue;
		/* "TYPE f" -> "TYPE f<i>" (struct: before the size) */
		if (fpos) {
			len += snprintf(cmd + len, sizeof(cmd) - len,
					"%s%.*s f%d%s", i ? "; " : " ",
					(int)(fpos - decl), decl, i, fpos + 2);
		} else {
			len += snprintf(cmd + len, sizeof(cmd) - len,
					"%s%s%d", i ? "; " : " ",
					types[i].decl, i);
		}
	}
	ASSERT_GT(UE_CMD_MAX, len) TH_LOG("%s", cmd);
	ASSERT_EQ(0, ue_dyn_cmd(cmd)) TH_LOG("%s", cmd);
	ASSERT_EQ(0, ue_format_read(NULL, EV_LIST, &fmt));
	EXPECT_EQ(NR_TYPES - 1, fmt.nr);

	/* Packed, in command order */
	for (i = 0; i < NR_TYPES; i++) {
		if (types[i].size == 1024)
			continue;
		snprintf(fname, sizeof(fname), "f%d", i);
		f = ue_field(&fmt, fname);
		ASSERT_NE(NULL, f) TH_LOG("%s", fname);
		EXPECT_EQ(off, f->offset) TH_LOG("%s", fname);
		EXPECT_EQ(types[i].size, f->size) TH_LOG("%s", fname);
		off += types[i].size;
	}

	/* Deleted with the same command */
	cmd[0] = '-';
	ASSERT_EQ(0, ue_dyn_cmd(cmd));
	EXPECT_FALSE(ue_event_exists(NULL, EV_LIST));
}

TEST_F_TIMEOUT(dyn, spacing_variants, TIMEOUT)
{
	char line[256];

	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_SPACE " u32 a;u32 b\n"));
	dyn_line(EV_SPACE, line, sizeof(line));
	EXPECT_STREQ("u:" EV_SPACE " u32 a; u32 b", line);

	/* Registering with other spacing finds the same event */
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, ue_reg(self->fd, EV_SPACE " u32 a; u32 b", &enable_word,
			    0, NULL));
	EXPECT_EQ(0, ue_reg(self->fd, EV_SPACE " u32 a ;  u32 b", &enable_word,
			    1, NULL));
	EXPECT_EQ(0, ue_reg(self->fd, EV_SPACE "  u32 a;u32 b ", &enable_word,
			    2, NULL));
	/* and other fields do not */
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_SPACE " u32 a; u64 b",
				      &enable_word, 3, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_SPACE " u32 a",
				      &enable_word, 4, NULL));
	EXPECT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	EXPECT_EQ(0, ue_unreg(self->fd, &enable_word, 1));
	EXPECT_EQ(0, ue_unreg(self->fd, &enable_word, 2));
	close(self->fd);
	self->fd = -1;

	/* Persistent: still there after the last close */
	EXPECT_TRUE(ue_event_exists(NULL, EV_SPACE));
	EXPECT_EQ(0, ue_dyn_cmd("-:" EV_SPACE " u32 a; u32 b\n"));
	EXPECT_FALSE(ue_event_exists(NULL, EV_SPACE));

	/* Created with spaces, deleted without */
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_SPACE2 " u32 a; u32 b\n"));
	EXPECT_TRUE(dyn_listed("u:" EV_SPACE2 " u32 a; u32 b"));
	EXPECT_EQ(0, ue_dyn_cmd("-:" EV_SPACE2 " u32 a;u32 b\n"));
	EXPECT_FALSE(ue_event_exists(NULL, EV_SPACE2));
}

TEST_F_TIMEOUT(dyn, list_format, TIMEOUT)
{
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_LIST " u32 a; char[8] b; "
				"__data_loc char[] c; __rel_loc char[] d; "
				"struct dy_s e 4\n"));
	EXPECT_TRUE(dyn_listed("u:" EV_LIST " u32 a; char[8] b; "
			       "__data_loc char[] c; __rel_loc char[] d; "
			       "struct dy_s e 4"));

	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_NOFIELDS "\n"));
	EXPECT_TRUE(dyn_listed("u:" EV_NOFIELDS));
	EXPECT_TRUE(ue_event_exists(NULL, EV_NOFIELDS));

	/* Commands separated by newlines in one write */
	EXPECT_EQ(0, ue_dyn_cmd("-:" EV_LIST " u32 a; char[8] b; "
				"__data_loc char[] c; __rel_loc char[] d; "
				"struct dy_s e 4\n-:" EV_NOFIELDS "\n"));
	EXPECT_FALSE(dyn_listed("u:" EV_NOFIELDS));
	EXPECT_FALSE(ue_event_exists(NULL, EV_LIST));
	EXPECT_FALSE(ue_event_exists(NULL, EV_NOFIELDS));
}

TEST_F_TIMEOUT(dyn, delete_forms, TIMEOUT)
{
	/* "-:name fields" */
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_DEL " u32 a; u64 b\n"));
	EXPECT_EQ(0, ue_dyn_cmd("-:" EV_DEL " u32 a; u64 b\n"));
	EXPECT_FALSE(ue_event_exists(NULL, EV_DEL));

	/* "!u:name fields" */
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_DEL " u32 a; u64 b\n"));
	EXPECT_EQ(0, ue_dyn_cmd("!u:" EV_DEL " u32 a; u64 b\n"));
	EXPECT_FALSE(ue_event_exists(NULL, EV_DEL));

	/* Mismatched deletes fail and leave the event */
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_DEL " u32 a; u64 b\n"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" EV_DEL "\n"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" EV_DEL " u32 a\n"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" EV_DEL " u32 a; u32 b\n"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" EV_DEL " u32 a; u64 b; u8 c\n"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" EV_DEL " u32 x; u64 b\n"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("!u:" EV_DEL " u64 a; u64 b\n"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" EV_DEL "x u32 a; u64 b\n"));
	EXPECT_TRUE(ue_event_exists(NULL, EV_DEL));
	EXPECT_TRUE(dyn_listed("u:" EV_DEL " u32 a; u64 b"));
	EXPECT_EQ(0, ue_dyn_cmd("-:" EV_DEL " u32 a; u64 b\n"));
	EXPECT_FALSE(ue_event_exists(NULL, EV_DEL));

	/* A bare "-:name" deletes an event without fields */
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_NOFIELDS "\n"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" EV_NOFIELDS " u32 a\n"));
	EXPECT_TRUE(ue_event_exists(NULL, EV_NOFIELDS));
	EXPECT_EQ(0, ue_dyn_cmd("-:" EV_NOFIELDS "\n"));
	EXPECT_FALSE(ue_event_exists(NULL, EV_NOFIELDS));

	/* Nothing of that name */
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" EV_DEL " u32 a; u64 b\n"));
}

/*
 * "u:" of an event that a process registered without PERSIST succeeds
 * and leaves it as it is, as a DIAG_IOCSREG with USER_EVENT_REG_PERSIST
 * of it does: it still goes with its last reference.  With other fields
 * it is refused (EADDRINUSE), and the event stays as it was.
 */
TEST_F_TIMEOUT(dyn, create_existing_event, TIMEOUT)
{
	char msg[200];

	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ue_reg(self->fd, EV_EXIST " u32 a; u64 b", &enable_word,
			    0, NULL));

	/* Other fields: refused, and it still goes with its last reference */
	ASSERT_EQ(0, ue_errlog_clear());
	EXPECT_EQ(-EADDRINUSE, ue_dyn_cmd("u:" EV_EXIST " u32 a\n"));
	ASSERT_EQ(0, ue_errlog_msg("u:" EV_EXIST " u32 a", msg, sizeof(msg)));
	EXPECT_STREQ("user_events: error: Event exists with other fields", msg);
	EXPECT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	close(self->fd);
	self->fd = -1;
	EXPECT_FALSE(ue_event_exists(NULL, EV_EXIST));

	/* The same fields (spaced otherwise): accepted, nothing changes */
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ue_reg(self->fd, EV_EXIST " u32 a; u64 b", &enable_word,
			    0, NULL));
	EXPECT_EQ(0, ue_dyn_cmd("u:" EV_EXIST " u32 a;u64 b\n"));
	EXPECT_TRUE(dyn_listed("u:" EV_EXIST " u32 a; u64 b"));
	/* Still busy while registered */
	EXPECT_EQ(-EBUSY, ue_dyn_cmd("-:" EV_EXIST " u32 a; u64 b\n"));
	EXPECT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	close(self->fd);
	self->fd = -1;
	/* Its last reference went: so did it, it was never made persistent */
	EXPECT_FALSE(ue_event_exists(NULL, EV_EXIST));
	EXPECT_FALSE(dyn_listed("u:" EV_EXIST " u32 a; u64 b"));

	/* "u:" of a name nothing has creates a persistent event */
	EXPECT_EQ(0, ue_dyn_cmd("u:" EV_EXIST " u32 a; u64 b\n"));
	EXPECT_TRUE(ue_event_exists(NULL, EV_EXIST));
	/* Again: nothing changes */
	EXPECT_EQ(0, ue_dyn_cmd("u:" EV_EXIST " u32 a; u64 b\n"));
	EXPECT_TRUE(ue_event_exists(NULL, EV_EXIST));
	/* Until deleted */
	EXPECT_EQ(0, ue_dyn_cmd("-:" EV_EXIST " u32 a; u64 b\n"));
	EXPECT_FALSE(ue_event_exists(NULL, EV_EXIST));
	EXPECT_FALSE(dyn_listed("u:" EV_EXIST " u32 a; u64 b"));
}

TEST_F_TIMEOUT(dyn, delete_busy, TIMEOUT)
{
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_BUSY " u32 a\n"));

	/* Referenced by a registration */
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ue_reg(self->fd, EV_BUSY " u32 a", &enable_word, 0, NULL));
	EXPECT_EQ(-EBUSY, ue_dyn_cmd("-:" EV_BUSY " u32 a\n"));
	EXPECT_TRUE(ue_event_exists(NULL, EV_BUSY));
	/* (the file holds it after UNREG too) */
	EXPECT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	EXPECT_EQ(-EBUSY, ue_dyn_cmd("-:" EV_BUSY " u32 a\n"));
	close(self->fd);
	self->fd = -1;

	/* Referenced by a registration alone: it outlives its file */
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ue_reg(self->fd, EV_BUSY " u32 a", &enable_word, 0, NULL));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(-EBUSY, ue_dyn_cmd("-:" EV_BUSY " u32 a\n"));
	EXPECT_TRUE(ue_event_exists(NULL, EV_BUSY));
	EXPECT_EQ(0, ue_unreg_own(&enable_word, 0));

	/* Referenced by ftrace */
	ASSERT_EQ(0, ue_enable(EV_BUSY, true));
	EXPECT_EQ(-EBUSY, ue_dyn_cmd("-:" EV_BUSY " u32 a\n"));
	EXPECT_TRUE(ue_event_exists(NULL, EV_BUSY));
	ASSERT_EQ(0, ue_enable(EV_BUSY, false));

	/* Unreferenced: deleted at once */
	EXPECT_EQ(0, ue_dyn_cmd("-:" EV_BUSY " u32 a\n"));
	EXPECT_FALSE(ue_event_exists(NULL, EV_BUSY));
}

/* Does dynamic_events list the two truncation events and nothing else? */
static bool dyn_only_trunc(void)
{
	char *buf = ue_read_tracefs("dynamic_events");
	int lines = 0;
	char *p;

	for (p = buf; p && *p; p++)
		lines += *p == '\n';
	free(buf);
	return lines == 2 && dyn_listed("u:" EV_TRUNC " u32 a") &&
	       dyn_listed("u:" EV_TRUNC2 " u64 b");
}

/*
 * Opening dynamic_events with O_TRUNC deletes every dynamic event, or
 * none while one of them is busy: a registered user event makes the open
 * EBUSY and every event stays.  Once the registration and its file are
 * gone, the persistent events go with the rest.  The truncation deletes
 * every dynamic event of the system, so the test runs only where no
 * other one is there.
 */
TEST_F_TIMEOUT(dyn, truncate_busy, TIMEOUT)
{
	char path[UE_PATH_MAX];
	int fd;

	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_TRUNC " u32 a\n"));
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_TRUNC2 " u64 b\n"));
	if (!dyn_only_trunc())
		SKIP(return, "other dynamic events exist: truncation would delete them");
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ue_reg(self->fd, EV_TRUNC " u32 a", &enable_word, 0,
			    NULL));

	ue_path(path, "dynamic_events");
	fd = open(path, O_WRONLY | O_TRUNC);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
	if (fd >= 0)
		close(fd);
	EXPECT_TRUE(ue_event_exists(NULL, EV_TRUNC));
	EXPECT_TRUE(ue_event_exists(NULL, EV_TRUNC2));

	EXPECT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	close(self->fd);
	self->fd = -1;
	fd = open(path, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_FALSE(ue_event_exists(NULL, EV_TRUNC));
	EXPECT_FALSE(ue_event_exists(NULL, EV_TRUNC2));
}

/*
 * Without CAP_PERFMON (and CAP_SYS_ADMIN) a process can neither create
 * nor delete events through dynamic_events, nor delete a persistent one
 * through DIAG_IOCSDEL.
 */
TEST_F_TIMEOUT(dyn, eperm_without_perfmon, TIMEOUT)
{
	int status = 0;
	pid_t pid;

	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_PERM2 " u32 a\n"));

	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (ue_drop_perfmon())
			_exit(10);
		if (ue_dyn_cmd("u:" EV_PERM " u32 a\n") != -EPERM)
			_exit(11);
		if (ue_event_exists(NULL, EV_PERM))
			_exit(12);
		if (ue_dyn_cmd("-:" EV_PERM2 " u32 a\n") != -EPERM)
			_exit(13);
		if (ue_dyn_cmd("!u:" EV_PERM2 " u32 a\n") != -EPERM)
			_exit(14);
		if (ue_del(EV_PERM2) != -EPERM)
			_exit(15);
		if (!ue_event_exists(NULL, EV_PERM2))
			_exit(16);
		_exit(0);
	}
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status))
		TH_LOG("child step %d failed", ue_exit_code(status));

	EXPECT_FALSE(ue_event_exists(NULL, EV_PERM));
	EXPECT_TRUE(ue_event_exists(NULL, EV_PERM2));
	EXPECT_EQ(0, ue_dyn_cmd("-:" EV_PERM2 " u32 a\n"));
	EXPECT_FALSE(ue_event_exists(NULL, EV_PERM2));
}

/*
 * Check the error_log entry of a rejected command holding @fields: the
 * caret must be at @token when given, else inside the text @span.
 */
static void check_caret(struct __test_metadata *_metadata, const char *fields,
			const char *token, const char *span)
{
	char logged[512];
	const char *s;
	int pos = -1;

	ASSERT_EQ(0, ue_errlog_find(fields, logged, sizeof(logged), &pos))
		TH_LOG("no error_log line for \"%s\"", fields);
	ASSERT_LE(0, pos) TH_LOG("no caret for \"%s\"", logged);
	ASSERT_GE((int)strlen(logged), pos);
	if (token) {
		EXPECT_EQ(0, strncmp(logged + pos, token, strlen(token)))
			TH_LOG("\"%s\": caret at \"%s\", want \"%s\"",
			       logged, logged + pos, token);
		return;
	}
	/* the last occurrence: "u32 a; u32 a" blames the second field */
	s = strstr(logged, span);
	ASSERT_NE(NULL, s);
	while (strstr(s + 1, span))
		s = strstr(s + 1, span);
	/* a missing part ("struct foo b" without its size) at the end */
	EXPECT_TRUE(pos >= s - logged && pos <= s - logged + (int)strlen(span))
		TH_LOG("\"%s\": caret at \"%s\", want it in \"%s\"",
		       logged, logged + pos, span);
}

TEST_F_TIMEOUT(dyn, error_log_caret, TIMEOUT)
{
	static const struct {
		const char *fields;
		const char *token;	/* the caret must point at this */
		const char *span;	/* or somewhere in this */
	} bad[] = {
		{ "u32 a; bogus b",		"bogus",	NULL },
		{ "u32 a; long b",		"long",		NULL },
		{ "u32 a; u32 b 4",		"4",		NULL },
		{ "u32 a; unsigned long b",	NULL,	"unsigned long" },
		{ "u32 a; struct foo b",	NULL,	"struct foo b" },
		{ "u32 a; char[0] b",		NULL,	"char[0]" },
		{ "u32 a; char[1025] b",	NULL,	"char[1025]" },
		{ "u32 a; u32 a",		NULL,	"u32 a" },
	};
	char cmd[256];
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, ue_errlog_clear());
		snprintf(cmd, sizeof(cmd), "u:%s %s\n", EV_BAD, bad[i].fields);
		ret = ue_dyn_cmd(cmd);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("%s", cmd);
		EXPECT_FALSE(ue_event_exists(NULL, EV_BAD)) TH_LOG("%s", cmd);
		if (!ret) {
			ue_cleanup(EV_BAD);
			continue;
		}
		check_caret(_metadata, bad[i].fields, bad[i].token,
			    bad[i].span);
	}

	/* A text flag: the caret on the flag (or its ':') */
	ASSERT_EQ(0, ue_errlog_clear());
	EXPECT_EQ(-EINVAL, ue_dyn_cmd("u:" EV_BAD ":flag u32 a\n"));
	EXPECT_FALSE(ue_event_exists(NULL, EV_BAD));
	check_caret(_metadata, ":flag u32 a", NULL, ":flag");
}

TEST_HARNESS_MAIN
