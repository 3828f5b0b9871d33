// SPDX-License-Identifier: GPL-2.0
/*
 * Groups: each tracefs instance whose name is letters, digits and '_'
 * (but not "multi" nor "multi_*") has a user_events_data, a
 * user_events_status and a user_events_max of its own.  Its events are
 * in the systems user_events_NAME and user_events_multi_NAME, in a name
 * space of their own: the same name with other fields in two groups is
 * two events, and EADDRINUSE, DIAG_IOCSDEL and MULTI_FORMAT ids stay
 * inside a group.  user_events_max limits one group; rmdir of the
 * instance fails with EBUSY while its group has events or open files.
 * poll() on a user_events_status reports EPOLLPRI | EPOLLERR when an
 * event of its group is created or deleted, and not otherwise.  A
 * group's user_events_data bind-mounted at tracefs/user_events_data in
 * a container's mount namespace lets an unprivileged, unmodified
 * program (the emitter sample) write events the host sees in the group.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "group_common.h"
#include "user_events_status.h"
#include "user_events_format.h"

#define TIMEOUT		300

#define MSYS_A		"user_events_multi_" GA
#define MSYS_B		"user_events_multi_" GB

#define EV_MF		UE_PREFIX "gr_mf"
#define EV_CT		UE_PREFIX "gr_ct"

/* Instance names of 64 and 65 bytes */
#define N10		"0123456789"
#define NAME64		"selftest_g_" N10 N10 N10 N10 N10 "abc"
#define NAME65		NAME64 "d"

#define TRACERS_GID	4242
#define TRACER_UID	4243
#define STAGE		"/tmp/ue_group_data"

FIXTURE(group) {
	char *trace;
};

/* ue_errlog_msg_in() in instance @name's error_log */
static int gerrlog_msg(const char *name, const char *cmd, char *msg,
		       size_t size, int *pos)
{
	char log[UE_PATH_MAX];

	snprintf(log, sizeof(log), "instances/%s/error_log", name);
	return ue_errlog_msg_in(log, cmd, msg, size, pos);
}

static int gerrlog_clear(const char *name)
{
	char path[UE_PATH_MAX];

	return ue_write_str(gpath(path, name, "error_log"), "\n");
}

/* Whether the top-level error_log mentions @text anywhere */
static bool errlog_has(const char *text)
{
	char *buf = ue_read_tracefs("error_log");
	bool ret = buf && strstr(buf, text);

	free(buf);
	return ret;
}

static bool glisted(const char *group, const char *name)
{
	char *status = gstatus(group);
	bool ret = listed(status, name);

	free(status);
	return ret;
}

/* Whether the format of @sys/@name has a field called @field */
static bool has_field(const char *sys, const char *name, const char *field)
{
	char path[UE_PATH_MAX], pat[64];
	char *fmt = ue_read_file(ue_evpath(path, sys, name, "format"));
	bool ret;

	snprintf(pat, sizeof(pat), " %s;", field);
	ret = fmt && strstr(fmt, pat);
	free(fmt);
	return ret;
}

static void cleanup(void)
{
	char name[64];
	int i;

	ue_dyn_cmd("-:" UE_PREFIX "gr_ep\n");
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), GB "_%d", i);
		grmdir(name);
	}
	grmdir("selftest_g\xe9");
	grmdir("selftest_g.x");
	grmdir("multi_selftest");
	grmdir(NAME64);
	grmdir(NAME65);
	ue_dyn_cmd("-:" UE_PREFIX "gr_host u32 a\n");
	ue_cleanup_sys(SYS_A, EV);
	ue_cleanup_sys(SYS_B, EV);
	ue_cleanup(EV);
	ue_dyn_cmd("-:" SYS_A "/" EV " u32 a\n");
	ue_dyn_cmd("-:" SYS_A "/" EV_CT " u32 n\n");
	ue_dyn_cmd("-:" SYS_A "/" EV " u64 b; u32 c\n");
	ue_dyn_cmd("-:" SYS_B "/" EV " u64 b; u32 c\n");
	grmdir(GA);
	grmdir(GB);
}

FIXTURE_SETUP(group)
{
	const char *reason = ue_setup();
	char path[UE_PATH_MAX];

	self->trace = NULL;
	if (reason)
		SKIP(return, "%s", reason);
	if (!ue_exists(ue_path(path, "instances")))
		SKIP(return, "no tracefs instances");
	cleanup();
	ASSERT_EQ(0, gmkdir(GA));
	ASSERT_EQ(0, gmkdir(GB));
	ASSERT_EQ(0, ue_trace_clear());
}

/* Registrations end with the test process: then the groups can go */
FIXTURE_TEARDOWN_PARENT(group)
{
	if (!ue_setup())
		cleanup();
}

TEST_F_TIMEOUT(group, files_and_names, TIMEOUT)
{
	static const char * const none[] = {
		"multi", "multi_x", "a-b", "a.b",
		"x12345678901234567890123456789012345678901234567890123456789012345",
	};
	char path[UE_PATH_MAX];
	struct stat st;
	unsigned int i;
	long max, sys;

	ASSERT_EQ(0, stat(gpath(path, GA, "user_events_data"), &st));
	EXPECT_EQ(0640, st.st_mode & 07777);
	ASSERT_EQ(0, stat(gpath(path, GA, "user_events_status"), &st));
	EXPECT_EQ(0440, st.st_mode & 07777);
	ASSERT_EQ(0, stat(gpath(path, GA, "user_events_max"), &st));
	EXPECT_EQ(0640, st.st_mode & 07777);

	/* The limit follows the sysctl until written */
	ASSERT_EQ(0, ue_read_long("/proc/sys/kernel/user_events_max", &sys));
	ASSERT_EQ(0, ue_read_long(gpath(path, GA, "user_events_max"), &max));
	EXPECT_EQ(sys, max);

	char *status = gstatus(GA);

	ASSERT_NE(NULL, status);
	EXPECT_STREQ("\nActive: 0\nBusy: 0\n", status);
	free(status);

	/* Names that a system name cannot carry, or that would collide */
	for (i = 0; i < ARRAY_SIZE(none); i++) {
		grmdir(none[i]);
		ASSERT_EQ(0, gmkdir(none[i])) TH_LOG("%s", none[i]);
		EXPECT_FALSE(ue_exists(gpath(path, none[i], "user_events_data")))
			TH_LOG("%s", none[i]);
		EXPECT_FALSE(ue_exists(gpath(path, none[i], "user_events_status")))
			TH_LOG("%s", none[i]);
		EXPECT_EQ(0, grmdir(none[i]));
	}
}

/*
 * The same name in the global group and two others, with different
 * fields: three events, each in its own system and status file.
 */
TEST_F_TIMEOUT(group, same_name_other_fields, TIMEOUT)
{
	static __u32 wa, wb, wg, wx;
	int fa, fb, fg, ia = -1, ib = -1, ig = -1;
	char *status;

	fa = gopen(GA, "user_events_data", O_RDWR);
	fb = gopen(GB, "user_events_data", O_RDWR);
	fg = ue_open();
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_LE(0, fg);

	ASSERT_EQ(0, ue_reg(fa, EV " u32 a", &wa, 0, &ia));
	ASSERT_EQ(0, ue_reg(fb, EV " u64 b; u32 c", &wb, 0, &ib));
	ASSERT_EQ(0, ue_reg(fg, EV " u16 s", &wg, 0, &ig));
	EXPECT_TRUE(has_field(SYS_A, EV, "a"));
	EXPECT_FALSE(has_field(SYS_A, EV, "b"));
	EXPECT_TRUE(has_field(SYS_B, EV, "b"));
	EXPECT_TRUE(has_field(NULL, EV, "s"));

	/* EADDRINUSE only against the group's own event of the name */
	EXPECT_EQ(-EADDRINUSE, ue_reg(fa, EV " u16 x", &wx, 0, NULL));
	EXPECT_EQ(0, ue_reg(fa, EV " u32 a", &wx, 1, NULL));
	EXPECT_EQ(0, ue_unreg(fa, &wx, 1));

	EXPECT_TRUE(glisted(GA, EV));
	EXPECT_TRUE(glisted(GB, EV));
	EXPECT_TRUE(glisted(NULL, EV));
	status = gstatus(GA);
	EXPECT_NE(NULL, strstr(status, "Active: 1\n"));
	free(status);

	/* Each is written and traced as its own event */
	__u32 a = 0x1111;
	__u64 b64 = 7;
	__u32 c32 = 0x2222;
	char b[12];
	char line[256];

	memcpy(b, &b64, sizeof(b64));
	memcpy(b + sizeof(b64), &c32, sizeof(c32));
	ASSERT_EQ(0, ue_enable_sys(SYS_A, EV, true));
	ASSERT_EQ(0, ue_enable_sys(SYS_B, EV, true));
	EXPECT_EQ(1, wa);
	EXPECT_EQ(1, wb);
	EXPECT_EQ(0, wg);
	EXPECT_EQ(8, ue_emit(fa, ia, &a, sizeof(a)));
	EXPECT_EQ(16, ue_emit(fb, ib, &b, sizeof(b)));
	EXPECT_EQ(-EBADF, ue_emit(fg, ig, "xy", 2));
	/* An index of one group's file means nothing on another's */
	EXPECT_EQ(-ENOENT, ue_emit(fb, ib + 1, &a, sizeof(a)));
	ue_trace_read(&self->trace);
	ASSERT_EQ(0, ue_enable_sys(SYS_A, EV, false));
	ASSERT_EQ(0, ue_enable_sys(SYS_B, EV, false));
	ASSERT_EQ(2, ue_trace_count(self->trace, EV));
	ASSERT_EQ(0, ue_trace_line(self->trace, EV, 0, line, sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "a=4369")) TH_LOG("%s", line);
	ASSERT_EQ(0, ue_trace_line(self->trace, EV, 1, line, sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "c=8738")) TH_LOG("%s", line);

	/* DIAG_IOCSDEL through a group's file reaches only its own event */
	ASSERT_EQ(0, ue_unreg(fa, &wa, 0));
	ASSERT_EQ(0, ue_unreg(fg, &wg, 0));
	close(fa);
	close(fg);
	fa = gopen(GA, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	fg = ue_open();
	ASSERT_LE(0, fg);
	/* Gone already: non-persistent, nothing held it */
	EXPECT_EQ(-ENOENT, ue_del_fd(fa, EV));
	EXPECT_FALSE(ue_event_exists(SYS_A, EV));
	EXPECT_FALSE(ue_event_exists(NULL, EV));
	EXPECT_EQ(-EBUSY, ue_del_fd(fb, EV));
	EXPECT_EQ(-ENOENT, ue_del_fd(fg, EV));
	EXPECT_TRUE(ue_event_exists(SYS_B, EV));
	ASSERT_EQ(0, ue_unreg(fb, &wb, 0));
	close(fb);
	fb = gopen(GB, "user_events_data", O_RDWR);
	ASSERT_LE(0, fb);
	EXPECT_FALSE(ue_event_exists(SYS_B, EV));
	close(fa);
	close(fb);
	close(fg);
}

/* Persistent events: DEL and "-:" with and without the system */
TEST_F_TIMEOUT(group, delete_and_dynamic_events, TIMEOUT)
{
	static __u32 w;
	char *dyn;
	int fa, fb;

	fa = gopen(GA, "user_events_data", O_RDWR);
	fb = gopen(GB, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ue_reg_flags(fa, EV " u32 a", USER_EVENT_REG_PERSIST,
				  &w, sizeof(w), 0, NULL));
	ASSERT_EQ(0, ue_unreg(fa, &w, 0));
	ASSERT_EQ(0, ue_reg_flags(fb, EV " u64 b; u32 c",
				  USER_EVENT_REG_PERSIST, &w, sizeof(w), 0,
				  NULL));
	ASSERT_EQ(0, ue_unreg(fb, &w, 0));
	close(fa);
	close(fb);

	dyn = ue_read_tracefs("dynamic_events");
	ASSERT_NE(NULL, dyn);
	EXPECT_NE(NULL, strstr(dyn, "u:" SYS_A "/" EV " u32 a\n")) TH_LOG("%s", dyn);
	EXPECT_NE(NULL, strstr(dyn, "u:" SYS_B "/" EV " u64 b; u32 c\n"));
	free(dyn);

	/* A bare "-:name" is the global group's */
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" EV " u32 a\n"));
	EXPECT_TRUE(ue_event_exists(SYS_A, EV));
	/* The top-level file's DEL does not see the groups' */
	EXPECT_EQ(-ENOENT, ue_del(EV));
	EXPECT_EQ(0, ue_dyn_cmd("-:" SYS_A "/" EV " u32 a\n"));
	EXPECT_FALSE(ue_event_exists(SYS_A, EV));
	EXPECT_TRUE(ue_event_exists(SYS_B, EV));

	fb = gopen(GB, "user_events_data", O_RDWR);
	ASSERT_LE(0, fb);
	EXPECT_EQ(0, ue_del_fd(fb, EV));
	EXPECT_FALSE(ue_event_exists(SYS_B, EV));
	close(fb);
}

/* MULTI_FORMAT: each group's formats in its own system, ids its own */
TEST_F_TIMEOUT(group, multi_format, TIMEOUT)
{
	static __u32 w[4];
	char path[UE_PATH_MAX];
	int fa, fb;

	fa = gopen(GA, "user_events_data", O_RDWR);
	fb = gopen(GB, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ue_reg_flags(fa, EV_MF " u32 a",
				  USER_EVENT_REG_MULTI_FORMAT, &w[0],
				  sizeof(w[0]), 0, NULL));
	ASSERT_EQ(0, ue_reg_flags(fa, EV_MF " u64 b",
				  USER_EVENT_REG_MULTI_FORMAT, &w[1],
				  sizeof(w[1]), 0, NULL));
	ASSERT_EQ(0, ue_reg_flags(fb, EV_MF " u32 a",
				  USER_EVENT_REG_MULTI_FORMAT, &w[2],
				  sizeof(w[2]), 0, NULL));

	/* Ids count from 0 in each group */
	EXPECT_TRUE(ue_exists(ue_path(path, "events/" MSYS_A "/" EV_MF ".0")));
	EXPECT_TRUE(ue_exists(ue_path(path, "events/" MSYS_A "/" EV_MF ".1")));
	EXPECT_TRUE(ue_exists(ue_path(path, "events/" MSYS_B "/" EV_MF ".0")));
	EXPECT_FALSE(ue_exists(ue_path(path, "events/" MSYS_B "/" EV_MF ".1")));
	EXPECT_TRUE(has_field(MSYS_B, EV_MF ".0", "a"));
	EXPECT_TRUE(has_field(MSYS_A, EV_MF ".1", "b"));

	/* DEL of the name reaches every format of its group only */
	EXPECT_EQ(0, ue_unreg(fa, &w[0], 0));
	EXPECT_EQ(0, ue_unreg(fa, &w[1], 0));
	close(fa);
	EXPECT_FALSE(ue_exists(ue_path(path, "events/" MSYS_A "/" EV_MF ".0")));
	EXPECT_FALSE(ue_exists(ue_path(path, "events/" MSYS_A "/" EV_MF ".1")));
	EXPECT_TRUE(ue_exists(ue_path(path, "events/" MSYS_B "/" EV_MF ".0")));
	EXPECT_EQ(0, ue_unreg(fb, &w[2], 0));
	close(fb);
	EXPECT_FALSE(ue_exists(ue_path(path, "events/" MSYS_B "/" EV_MF ".0")));
}

/* user_events_max limits its group only, with an error_log line */
TEST_F_TIMEOUT(group, per_group_limit, TIMEOUT)
{
	static __u32 w[8];
	char path[UE_PATH_MAX], cmd[64], msg[256];
	int fa, fb, i, pos;
	long max;

	ASSERT_EQ(0, ue_write_str(gpath(path, GA, "user_events_max"), "2\n"));
	ASSERT_EQ(0, ue_read_long(gpath(path, GA, "user_events_max"), &max));
	EXPECT_EQ(2, max);

	fa = gopen(GA, "user_events_data", O_RDWR);
	fb = gopen(GB, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ue_errlog_clear());
	ASSERT_EQ(0, gerrlog_clear(GA));
	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), EV "%d u32 a", i);
		EXPECT_EQ(i < 2 ? 0 : -EMFILE, ue_reg(fa, cmd, &w[i], 0, NULL))
			TH_LOG("%s", cmd);
		EXPECT_EQ(0, ue_reg(fb, cmd, &w[4 + i], 0, NULL));
	}
	ASSERT_EQ(0, gerrlog_msg(GA, EV "2 u32 a", msg, sizeof(msg), &pos));
	EXPECT_NE(NULL, strstr(msg, "Too many events in this group")) TH_LOG("%s", msg);
	EXPECT_FALSE(errlog_has(EV "2 u32 a"));

	/* An existing event is still found; raising the limit lets more in */
	EXPECT_EQ(0, ue_reg(fa, EV "0 u32 a", &w[3], 0, NULL));
	ASSERT_EQ(0, ue_write_str(gpath(path, GA, "user_events_max"), "3\n"));
	EXPECT_EQ(0, ue_reg(fa, EV "2 u32 a", &w[2], 0, NULL));
	for (i = 0; i < 8; i++)
		ue_unreg(i < 4 ? fa : fb, &w[i], 0);
	close(fa);
	close(fb);
}

/* rmdir: EBUSY while the group has open files or events, then clean */
TEST_F_TIMEOUT(group, rmdir_busy, TIMEOUT)
{
	char path[UE_PATH_MAX];
	static __u32 w;
	int fa, fs;

	fa = gopen(GA, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	EXPECT_EQ(-EBUSY, grmdir(GA));
	fs = gopen(GA, "user_events_status", O_RDONLY);
	ASSERT_LE(0, fs);
	close(fa);
	EXPECT_EQ(-EBUSY, grmdir(GA));
	close(fs);

	/* A registration outlives its file and holds the event */
	fa = gopen(GA, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ue_reg(fa, EV " u32 a", &w, 0, NULL));
	close(fa);
	EXPECT_EQ(-EBUSY, grmdir(GA));
	EXPECT_TRUE(ue_event_exists(SYS_A, EV));
	ASSERT_EQ(0, ue_unreg_own(&w, 0));
	EXPECT_FALSE(ue_event_exists(SYS_A, EV));

	/* A persistent event holds it until deleted */
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV " u32 a\n"));
	fa = gopen(GA, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ue_reg_flags(fa, EV " u32 a", USER_EVENT_REG_PERSIST,
				  &w, sizeof(w), 0, NULL));
	ASSERT_EQ(0, ue_unreg(fa, &w, 0));
	close(fa);
	EXPECT_EQ(-EBUSY, grmdir(GA));
	ASSERT_EQ(0, ue_dyn_cmd("-:" SYS_A "/" EV " u32 a\n"));
	EXPECT_EQ(0, grmdir(GA));

	/* Nothing of it left; the global event of the name is untouched */
	EXPECT_FALSE(ue_exists(gpath(path, GA, NULL)));
	EXPECT_FALSE(ue_exists(ue_path(path, "events/" SYS_A)));
	EXPECT_TRUE(ue_event_exists(NULL, EV));
	EXPECT_EQ(0, ue_del(EV));

	/* A new instance of the name starts empty */
	ASSERT_EQ(0, gmkdir(GA));
	char *status = gstatus(GA);

	EXPECT_STREQ("\nActive: 0\nBusy: 0\n", status);
	free(status);
}

/*
 * The events a tool or an eprobe held after their last reference went
 * are deleted by the reap work, not by rmdir (which holds the trace
 * core's locks that deleting an event takes): rmdir fails with EBUSY
 * until the reap work ran, then succeeds, and never hangs.
 */
TEST_F_TIMEOUT(group, rmdir_after_held_event, TIMEOUT)
{
	char path[UE_PATH_MAX];
	static __u32 w;
	int fa, ret, i;

	/* Enabled when its registration goes; disabled right before rmdir */
	fa = gopen(GA, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ue_reg(fa, EV " u32 a", &w, 0, NULL));
	ASSERT_EQ(0, ue_enable_sys(SYS_A, EV, true));
	ASSERT_EQ(0, ue_unreg(fa, &w, 0));
	close(fa);
	EXPECT_TRUE(ue_event_exists(SYS_A, EV));
	ASSERT_EQ(0, ue_enable_sys(SYS_A, EV, false));
	for (i = 0; (ret = grmdir(GA)) == -EBUSY && i < 5000; i++)
		usleep(1000);
	EXPECT_EQ(0, ret);
	EXPECT_FALSE(ue_exists(gpath(path, GA, NULL)));

	/* Held by an eprobe that is removed right before rmdir */
	ASSERT_EQ(0, gmkdir(GA));
	fa = gopen(GA, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ue_reg(fa, EV " u32 a", &w, 0, NULL));
	ASSERT_EQ(0, ue_dyn_cmd("e:" UE_PREFIX "gr_ep " SYS_A "/" EV "\n"));
	ASSERT_EQ(0, ue_unreg(fa, &w, 0));
	close(fa);
	EXPECT_TRUE(ue_event_exists(SYS_A, EV));
	ASSERT_EQ(0, ue_dyn_cmd("-:" UE_PREFIX "gr_ep\n"));
	for (i = 0; (ret = grmdir(GA)) == -EBUSY && i < 5000; i++)
		usleep(1000);
	EXPECT_EQ(0, ret);
	EXPECT_FALSE(ue_exists(gpath(path, GA, NULL)));
	ASSERT_EQ(0, gmkdir(GA));
}

/*
 * A file of a removed instance that is still reachable (an O_PATH
 * descriptor here, a bind mount in a container) opens nothing, also once
 * other instances come and go and one may reuse the removed one's memory.
 */
TEST_F_TIMEOUT(group, stale_file_of_removed_instance, TIMEOUT)
{
	char path[UE_PATH_MAX], name[64];
	int fp, fd, i, opened = 0;

	fp = open(gpath(path, GA, "user_events_data"), O_PATH);
	ASSERT_LE(0, fp);
	ASSERT_EQ(0, grmdir(GA));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fp);
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), GB "_%d", i % 4);
		if (i >= 4)
			grmdir(name);
		gmkdir(name);
		fd = open(path, O_RDWR);
		if (fd >= 0) {
			opened++;
			close(fd);
		}
	}
	EXPECT_EQ(0, opened);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), GB "_%d", i);
		grmdir(name);
	}
	close(fp);
	ASSERT_EQ(0, gmkdir(GA));
}

/*
 * Only ASCII letters, digits and '_' make a group name, at most 64 of
 * them, and not multi nor multi_*; an instance without a group says why
 * in its own error_log, with the caret under the first byte at fault.
 */
TEST_F_TIMEOUT(group, names_without_group, TIMEOUT)
{
	static const struct {
		const char *name;
		const char *err;
		int pos;
	} cases[] = {
		{ "selftest_g\xe9", "name has a byte other than", 10 },
		{ "selftest_g.x", "name has a byte other than", 10 },
		{ "multi_selftest", "multi and multi_* are reserved", 0 },
		{ NAME65, "name longer than 64 bytes", 64 },
	};
	char path[UE_PATH_MAX], msg[256], shown[96];
	unsigned int i;
	int pos;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *name = cases[i].name;

		grmdir(name);
		ASSERT_EQ(0, gmkdir(name)) TH_LOG("%s", name);
		EXPECT_FALSE(ue_exists(gpath(path, name, "user_events_data")));
		/* A byte that is not printable ASCII shows as \xNN */
		if (i == 0)
			snprintf(shown, sizeof(shown), "selftest_g\\xe9");
		else
			snprintf(shown, sizeof(shown), "%s", name);
		EXPECT_EQ(0, gerrlog_msg(name, shown, msg, sizeof(msg), &pos))
			TH_LOG("%s", name);
		EXPECT_NE(NULL, strstr(msg, "No user_events group: "))
			TH_LOG("%s: %s", name, msg);
		EXPECT_NE(NULL, strstr(msg, cases[i].err))
			TH_LOG("%s: %s", name, msg);
		EXPECT_EQ(cases[i].pos, pos) TH_LOG("%s", name);
		EXPECT_EQ(0, grmdir(name));
	}

	/* A name that makes a group logs nothing */
	ASSERT_EQ(0, gmkdir(NAME64));
	EXPECT_TRUE(ue_exists(gpath(path, NAME64, "user_events_data")));
	EXPECT_EQ(-ENOENT, gerrlog_msg(NAME64, NAME64, msg, sizeof(msg), &pos));
	EXPECT_EQ(0, grmdir(NAME64));
}

/*
 * A group's rejected commands go to its instance's error_log, not to the
 * top-level one (where its users cannot read them and would push out
 * the lines of others); clearing it clears only its own.  Root's
 * dynamic_events commands on a group's events are logged at the top.
 */
TEST_F_TIMEOUT(group, errors_in_instance_log, TIMEOUT)
{
	static __u32 w[2];
	char msg[256];
	int fa, pos;

	ASSERT_EQ(0, ue_dyn_cmd("u:" UE_PREFIX "gr_host u32 a\n"));
	ASSERT_EQ(0, ue_errlog_clear());
	ASSERT_EQ(-EADDRINUSE, ue_dyn_cmd("u:" UE_PREFIX "gr_host u64 a\n"));
	ASSERT_TRUE(errlog_has(UE_PREFIX "gr_host u64 a"));

	fa = gopen(GA, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, gerrlog_clear(GA));
	/* A parse error, with its caret */
	EXPECT_EQ(-EINVAL, ue_reg(fa, EV " u33 a", &w[0], 0, NULL));
	ASSERT_EQ(0, gerrlog_msg(GA, EV " u33 a", msg, sizeof(msg), &pos));
	EXPECT_NE(NULL, strstr(msg, "Unsupported field type")) TH_LOG("%s", msg);
	EXPECT_EQ((int)strlen(EV) + 1, pos);
	/* Other fields than the group's event of that name */
	ASSERT_EQ(0, ue_reg(fa, EV " u32 a", &w[0], 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(fa, EV " u64 b", &w[1], 0, NULL));
	ASSERT_EQ(0, gerrlog_msg(GA, EV " u64 b", msg, sizeof(msg), &pos));
	EXPECT_NE(NULL, strstr(msg, "Event exists with other fields"));
	/* Deleting: a busy event, and one that does not exist */
	EXPECT_EQ(-EBUSY, ue_del_fd(fa, EV));
	ASSERT_EQ(0, gerrlog_msg(GA, EV, msg, sizeof(msg), &pos));
	EXPECT_NE(NULL, strstr(msg, "Event is busy")) TH_LOG("%s", msg);
	EXPECT_EQ(-ENOENT, ue_del_fd(fa, EV "_none"));
	ASSERT_EQ(0, gerrlog_msg(GA, EV "_none", msg, sizeof(msg), &pos));
	EXPECT_NE(NULL, strstr(msg, "No such event"));

	/* None of it reached the top level, whose line is still there */
	EXPECT_FALSE(errlog_has(EV " u33 a"));
	EXPECT_FALSE(errlog_has(EV " u64 b"));
	EXPECT_FALSE(errlog_has(EV "_none"));
	EXPECT_TRUE(errlog_has(UE_PREFIX "gr_host u64 a"));
	/* Nor another group's */
	EXPECT_EQ(-ENOENT, gerrlog_msg(GB, EV " u33 a", msg, sizeof(msg),
				       &pos));
	/* Clearing the group's log leaves the top-level one */
	ASSERT_EQ(0, gerrlog_clear(GA));
	EXPECT_EQ(-ENOENT, gerrlog_msg(GA, EV " u33 a", msg, sizeof(msg),
				       &pos));
	EXPECT_TRUE(errlog_has(UE_PREFIX "gr_host u64 a"));
	/* Root's "-:" of the group's busy event is said at the top level */
	EXPECT_EQ(-EBUSY, ue_dyn_cmd("-:" SYS_A "/" EV " u32 a\n"));
	EXPECT_EQ(-ENOENT, gerrlog_msg(GA, EV, msg, sizeof(msg), &pos));
	ASSERT_EQ(0, ue_errlog_msg(EV, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "Event is busy")) TH_LOG("%s", msg);

	EXPECT_EQ(0, ue_unreg(fa, &w[0], 0));
	close(fa);
	EXPECT_EQ(0, ue_dyn_cmd("-:" UE_PREFIX "gr_host u32 a\n"));
}

static short poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

/* Read @fd from offset 0 to the end: what a consumer does on a change */
static char *reread(int fd)
{
	static char buf[4096];
	ssize_t n, len = 0;

	if (lseek(fd, 0, SEEK_SET))
		return NULL;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	return buf;
}

/* Register EV in group A, keep it until @go is closed, then exit */
static int register_later(int go)
{
	static __u32 w;
	char c;
	int fd;

	/* Most likely after the parent started to wait: either way works */
	usleep(200000);
	fd = gopen(GA, "user_events_data", O_RDWR);
	if (fd < 0)
		return 1;
	if (ue_reg(fd, EV " u32 a", &w, 0, NULL))
		return 2;
	if (read(go, &c, 1) < 0)
		return 3;
	return 0;
}

/* poll() wakes for a creation or deletion in its group, nothing else */
TEST_F_TIMEOUT(group, poll_status, TIMEOUT)
{
	const short want = POLLPRI | POLLERR;
	struct epoll_event ev = { .events = EPOLLPRI }, out;
	char path[UE_PATH_MAX];
	struct pollfd p;
	int sa, sb, sg, fa, fb, idx = -1, ep, status, go[2];
	static __u32 w, wb;
	__u32 v = 5;
	char *text;
	pid_t pid;

	sa = gopen(GA, "user_events_status", O_RDONLY);
	sb = gopen(GB, "user_events_status", O_RDONLY);
	sg = open(ue_path(path, "user_events_status"), O_RDONLY);
	ASSERT_LE(0, sa);
	ASSERT_LE(0, sb);
	ASSERT_LE(0, sg);
	EXPECT_EQ(0, poll_now(sa));
	EXPECT_EQ(0, poll_now(sb));

	/* Another group's registration, and a global one, do not wake it */
	fb = gopen(GB, "user_events_data", O_RDWR);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ue_reg(fb, EV " u32 a", &wb, 0, NULL));
	EXPECT_EQ(0, poll_now(sa));
	EXPECT_EQ(want, poll_now(sb) & want);
	EXPECT_EQ(0, poll_now(sg));

	/* A registration in its group, from another process, wakes it */
	ASSERT_EQ(0, pipe(go));
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[1]);
		_exit(register_later(go[0]));
	}
	close(go[0]);
	p.fd = sa;
	p.events = POLLPRI;
	ASSERT_EQ(1, poll(&p, 1, 30000));
	EXPECT_EQ(want, p.revents & want);
	/* Until it is read again */
	EXPECT_EQ(want, poll_now(sa) & want);
	text = reread(sa);
	ASSERT_NE(NULL, text);
	EXPECT_TRUE(listed(text, EV)) TH_LOG("%s", text);
	EXPECT_EQ(0, poll_now(sa));
	close(go[1]);
	ASSERT_EQ(0, ue_wait_child(pid, 30000, &status));
	EXPECT_EQ(0, ue_exit_code(status));

	/* Its exit deleted the event: that wakes it too, through epoll */
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, sa, &ev));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 30000));
	EXPECT_TRUE(out.events & EPOLLPRI);
	EXPECT_TRUE(out.events & EPOLLERR);
	text = reread(sa);
	EXPECT_FALSE(listed(text, EV)) TH_LOG("%s", text);
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));

	/* Registering again, enabling and writing: no change of the list */
	fa = gopen(GA, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ue_reg(fa, EV " u32 a", &w, 0, &idx));
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, 0));
	reread(sa);
	ASSERT_EQ(0, ue_reg(fa, EV " u32 a", &w, 1, NULL));
	ASSERT_EQ(0, ue_enable_sys(SYS_A, EV, true));
	EXPECT_EQ(8, ue_emit(fa, idx, &v, sizeof(v)));
	ASSERT_EQ(0, ue_enable_sys(SYS_A, EV, false));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	EXPECT_EQ(0, poll_now(sa));

	close(ep);
	ue_unreg(fa, &w, 0);
	ue_unreg(fa, &w, 1);
	ue_unreg(fb, &wb, 0);
	close(fa);
	close(fb);
	close(sa);
	close(sb);
	close(sg);
}

/*
 * A container runtime's recipe: in the container's mount namespace, a
 * tmpfs where tracefs would be, with only the group's user_events_data
 * bind-mounted at user_events_data.  An unprivileged user of the
 * "tracers" group runs the unmodified emitter there.
 */
static int container(void *data)
{
	const char *emit = data;
	char src[UE_PATH_MAX], dst[UE_PATH_MAX];
	gid_t g = TRACERS_GID;
	int fd;

	if (unshare(CLONE_NEWNS))
		return 101;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 102;
	/* Keep the group's file at hand, then hide tracefs */
	fd = open(STAGE, O_CREAT | O_WRONLY, 0600);
	if (fd < 0)
		return 103;
	close(fd);
	if (mount(gpath(src, GA, "user_events_data"), STAGE, NULL, MS_BIND,
		  NULL))
		return 104;
	if (mount("none", "/sys/kernel/tracing", "tmpfs", 0, "mode=0755"))
		return 105;
	umount2("/sys/kernel/debug", MNT_DETACH);
	snprintf(dst, sizeof(dst), "/sys/kernel/tracing/user_events_data");
	fd = open(dst, O_CREAT | O_WRONLY, 0600);
	if (fd < 0)
		return 106;
	close(fd);
	if (mount(STAGE, dst, NULL, MS_BIND, NULL))
		return 107;
	if (setgroups(1, &g) || setgid(65534) || setuid(TRACER_UID))
		return 108;
	execl(emit, emit, "-w", "20000", "-n", "3", "-i", "100",
	      EV_CT " u32 n", "7", (char *)NULL);
	return 109;
}

/* The emitter sample, installed beside this test; false if it is not */
static bool emitter_path(char emit[UE_PATH_MAX])
{
	ssize_t len = readlink("/proc/self/exe", emit, UE_PATH_MAX - 32);

	if (len <= 0)
		return false;
	emit[len] = '\0';
	snprintf(strrchr(emit, '/') + 1, 32, "user_event_emit");
	return ue_exists(emit);
}

TEST_F_TIMEOUT(group, container_bind_mount, TIMEOUT)
{
	char path[UE_PATH_MAX], emit[UE_PATH_MAX], line[256];
	int status, n, i;
	pid_t pid;

	if (!emitter_path(emit))
		SKIP(return, "no %s", emit);
	if (strcmp(ue_tracefs, "/sys/kernel/tracing"))
		SKIP(return, "tracefs is not at /sys/kernel/tracing");

	ASSERT_EQ(0, chown(gpath(path, GA, "user_events_data"), 0,
			   TRACERS_GID));
	ASSERT_EQ(0, chmod(path, 0660));

	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(container(emit));

	/* The event appears in the group's system, not in user_events */
	for (i = 0; i < 20000 && !ue_event_exists(SYS_A, EV_CT); i++)
		usleep(1000);
	ASSERT_TRUE(ue_event_exists(SYS_A, EV_CT));
	EXPECT_FALSE(ue_event_exists(NULL, EV_CT));
	ASSERT_EQ(0, ue_enable_sys(SYS_A, EV_CT, true));
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	/* The host's mounts are as they were */
	EXPECT_TRUE(ue_exists(ue_path(path, "user_events_status")));

	/* Read while the event exists: a deleted one's records are unknown */
	ue_trace_read(&self->trace);
	ASSERT_EQ(0, ue_enable_sys(SYS_A, EV_CT, false));
	n = ue_trace_count(self->trace, EV_CT);
	EXPECT_EQ(3, n);
	ASSERT_EQ(0, ue_trace_line(self->trace, EV_CT, 0, line, sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "n=7")) TH_LOG("%s", line);
	EXPECT_TRUE(ue_wait_gone(SYS_A, EV_CT, 5000));
}

/* The emitter's --wait NAME blocks until the group's status lists NAME */
TEST_F_TIMEOUT(group, emitter_wait, TIMEOUT)
{
	char emit[UE_PATH_MAX], status_path[UE_PATH_MAX];
	static __u32 w;
	int fa, status;
	pid_t pid;

	if (!emitter_path(emit))
		SKIP(return, "no %s", emit);
	gpath(status_path, GA, "user_events_status");

	/* Not there: gives up at the deadline */
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execl(emit, emit, "--wait", EV, "-w", "100", status_path,
		      (char *)NULL);
		_exit(100);
	}
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(3, ue_exit_code(status));

	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execl(emit, emit, "--wait", EV, "-w", "60000", status_path,
		      (char *)NULL);
		_exit(100);
	}
	/* Most likely while it waits in poll(); either way it must see it */
	usleep(300000);
	fa = gopen(GA, "user_events_data", O_RDWR);
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ue_reg(fa, EV " u32 a", &w, 0, NULL));
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	EXPECT_EQ(0, ue_unreg(fa, &w, 0));
	close(fa);
}

/* --- perf ---------------------------------------------------------------- */

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"

/*
 * A counting perf event of the calling task on tracepoint @id, kernel
 * excluded, which perf_event_paranoid 2 lets any user open: the fd or
 * -errno.
 */
static int perf_count_id(long id)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static bool bit_set(__u32 *w)
{
	return __atomic_load_n(w, __ATOMIC_ACQUIRE) & 1;
}

/*
 * As uid and gid 65534 without capabilities: 0 if a perf event on @id
 * opened, else its errno; 100 and up if the child could not get there.
 */
static int perf_unprivileged(long id)
{
	gid_t g = 65534;
	int status, fd;
	pid_t pid;

	pid = ue_fork();
	if (pid < 0)
		return 100;
	if (!pid) {
		if (setgroups(1, &g) || setgid(65534) || setuid(65534))
			_exit(101);
		fd = perf_count_id(id);
		_exit(fd < 0 ? -fd : 0);
	}
	if (ue_wait_child(pid, 60000, &status))
		return 102;
	return ue_exit_code(status) < 0 ? 103 : ue_exit_code(status);
}

/*
 * perf reaches a group's events only with CAP_PERFMON: a program that
 * has no access to the group's files cannot open a perf event on one of
 * its events by id (EACCES), which would set its users' enable bits and
 * keep the event and its instance.  The global group's events are open
 * to perf as any tracepoint is (perf_event_paranoid decides), and root
 * may open a group's.
 */
TEST_F_TIMEOUT(group, perf_needs_perfmon, TIMEOUT)
{
	static __u32 wa, wg;
	long saved, ida, idg;
	int fa, fg, fd, ret;

	if (ue_read_long(PARANOID, &saved))
		SKIP(return, "no %s (CONFIG_PERF_EVENTS?)", PARANOID);
	if (ue_write_long(PARANOID, 2))
		SKIP(return, "cannot set %s", PARANOID);

	fa = gopen(GA, "user_events_data", O_RDWR);
	fg = ue_open();
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fg);
	ASSERT_EQ(0, ue_reg(fa, EV " u32 a", &wa, 0, NULL));
	ASSERT_EQ(0, ue_reg(fg, EV " u32 a", &wg, 0, NULL));
	ASSERT_EQ(0, ue_event_id(SYS_A, EV, &ida));
	ASSERT_EQ(0, ue_event_id(NULL, EV, &idg));

	ret = perf_unprivileged(ida);
	EXPECT_EQ(EACCES, ret) TH_LOG("%s", strerror(ret));
	ret = perf_unprivileged(idg);
	EXPECT_EQ(0, ret) TH_LOG("%s", strerror(ret));

	/* Root may, and that enables the event for its registrants */
	fd = perf_count_id(ida);
	EXPECT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	for (ret = 0; fd >= 0 && ret < 1000 && !bit_set(&wa); ret++)
		usleep(1000);
	EXPECT_TRUE(fd >= 0 && bit_set(&wa));
	if (fd >= 0)
		close(fd);

	ue_write_long(PARANOID, saved);
	EXPECT_EQ(0, ue_unreg(fa, &wa, 0));
	EXPECT_EQ(0, ue_unreg(fg, &wg, 0));
	close(fa);
	close(fg);
}

/* --- memory cgroups ------------------------------------------------------ */

#define CG_ROOT		"/sys/fs/cgroup"
#define MEMCG_EVENTS	400
#define MEMCG_FIELDS	40
/* Of what slab grows by, at least this share (%) is the creator's */
#define MEMCG_SHARE	60

/* The "slab" line of @cg's memory.stat, in bytes, or -1 */
static long long memcg_slab(const char *cg)
{
	char path[256];
	char *text, *p;
	long long v = -1;

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	text = ue_read_file(path);
	p = text ? strstr(text, "\nslab ") : NULL;
	if (p)
		v = strtoll(p + 6, NULL, 10);
	free(text);
	return v;
}

/* Slab: of /proc/meminfo, in bytes, or -1 */
static long long meminfo_slab(void)
{
	char *text = ue_read_file("/proc/meminfo");
	char *p = text ? strstr(text, "\nSlab:") : NULL;
	long long v = -1;

	if (p)
		v = strtoll(p + 6, NULL, 10) * 1024;
	free(text);
	return v;
}

/*
 * Bytes of slab pages of cache @name in /proc/slabinfo: 0 if it has no
 * such cache, -1 if there is no slabinfo.
 */
static long long slabinfo_bytes(const char *name)
{
	char *text = ue_read_file("/proc/slabinfo");
	long long active, num, size, per, pages, v = 0;
	size_t len = strlen(name);
	char *p;

	if (!text)
		return -1;
	for (p = text; *p; p = strchrnul(p, '\n'), p += !!*p) {
		if (strncmp(p, name, len) || p[len] != ' ')
			continue;
		if (sscanf(p + len, "%lld %lld %lld %lld %lld", &active, &num,
			   &size, &per, &pages) == 5 && per > 0)
			v = num / per * pages * sysconf(_SC_PAGESIZE);
		break;
	}
	free(text);
	return v;
}

/*
 * Register MEMCG_EVENTS events of MEMCG_FIELDS fields each in group A;
 * exit with 0 once told to, or with the errno of a registration that
 * failed (100 and up: something else did).
 */
static int memcg_child(int go, int done)
{
	static __u32 w[MEMCG_EVENTS];
	char cmd[UE_CMD_MAX];
	int fd, i, j, len, ret;
	char c;

	fd = gopen(GA, "user_events_data", O_RDWR);
	if (fd < 0 || read(go, &c, 1) != 1)
		return 101;
	for (i = 0; i < MEMCG_EVENTS; i++) {
		len = snprintf(cmd, sizeof(cmd), EV "_m%d", i);
		for (j = 0; j < MEMCG_FIELDS; j++)
			len += snprintf(cmd + len, sizeof(cmd) - len,
					"%s u32 f%d", j ? ";" : "", j);
		ret = ue_reg(fd, cmd, &w[i], 0, NULL);
		if (ret)
			return ret < 0 && -ret < 100 ? -ret : 100;
	}
	c = 'D';
	if (write(done, &c, 1) != 1 || read(go, &c, 1) < 0)
		return 102;
	return 0;
}

/*
 * What creating a group's events costs the kernel is charged to the
 * creator's memory cgroup, the trace core's part (fields, a file per
 * instance, the eventfs directory) too: while a child in its own cgroup
 * creates events of many fields, its cgroup's slab grows by at least
 * MEMCG_SHARE % of what /proc/meminfo's Slab grows by, less kmemleak's
 * objects (a debug kernel's bookkeeping of every allocation, charged to
 * no one).  On the debug kernel that share is about 70 %, the rest being
 * mostly freed temporaries that KASAN keeps in quarantine; without the
 * trace core's part it is about 40 %.
 */
TEST_F_TIMEOUT(group, memcg_charges_events, TIMEOUT)
{
	char cg[128], path[256], val[32];
	long long s0, s1, g0, g1, k0, k1, ds, dg, dk;
	bool mounted = false, added = false;
	int go[2], done[2], status;
	long long end;
	char *text, c;
	pid_t pid;

	if (slabinfo_bytes("kmemleak_object") < 0 &&
	    ue_exists("/sys/kernel/debug/kmemleak"))
		SKIP(return, "kmemleak without /proc/slabinfo");
	if (!ue_exists(CG_ROOT "/cgroup.controllers")) {
		if (mount("none", CG_ROOT, "cgroup2", 0, NULL))
			SKIP(return, "cgroup2 cannot be mounted: %s",
			     strerror(errno));
		mounted = true;
	}
	text = ue_read_file(CG_ROOT "/cgroup.controllers");
	if (!text || !strstr(text, "memory")) {
		free(text);
		if (mounted)
			umount2(CG_ROOT, MNT_DETACH);
		SKIP(return, "no memory controller (CONFIG_MEMCG?)");
	}
	free(text);
	text = ue_read_file(CG_ROOT "/cgroup.subtree_control");
	if (!text || !strstr(text, "memory")) {
		ASSERT_EQ(0, ue_write_str(CG_ROOT "/cgroup.subtree_control",
					  "+memory"));
		added = true;
	}
	free(text);
	snprintf(cg, sizeof(cg), CG_ROOT "/group_test_%d", getpid());
	ASSERT_EQ(0, mkdir(cg, 0755));

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[1]);
		close(done[0]);
		_exit(memcg_child(go[0], done[1]));
	}
	close(go[0]);
	close(done[1]);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(val, sizeof(val), "%d\n", pid);
	ASSERT_EQ(0, ue_write_str(path, val));

	k0 = slabinfo_bytes("kmemleak_object");
	s0 = memcg_slab(cg);
	g0 = meminfo_slab();
	c = 'G';
	ASSERT_EQ(1, write(go[1], &c, 1));
	if (read(done[0], &c, 1) != 1) {
		ue_wait_child(pid, 60000, &status);
		ASSERT_EQ(0, ue_exit_code(status))
			TH_LOG("%s", strerror(ue_exit_code(status)));
	}
	s1 = memcg_slab(cg);
	g1 = meminfo_slab();
	k1 = slabinfo_bytes("kmemleak_object");
	ASSERT_LE(0, s0);
	ASSERT_LE(0, g0);
	ds = s1 - s0;
	dk = k0 < 0 ? 0 : k1 - k0;
	dg = g1 - g0 - dk;
	TH_LOG("%d events of %d fields: slab +%lld KiB (kmemleak +%lld KiB)",
	       MEMCG_EVENTS, MEMCG_FIELDS, dg / 1024, dk / 1024);
	TH_LOG("the cgroup's slab +%lld KiB", ds / 1024);
	EXPECT_LT(0, dg);
	EXPECT_LE(dg * MEMCG_SHARE / 100, ds);

	close(go[1]);
	EXPECT_EQ(0, ue_wait_child(pid, 120000, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	close(done[0]);
	/* Its events go with it, and then the cgroup can */
	end = ue_now_ms() + 30000;
	while ((text = gstatus(GA)) && strstr(text, EV "_m") &&
	       ue_now_ms() < end) {
		free(text);
		usleep(20000);
	}
	EXPECT_TRUE(text && !strstr(text, EV "_m"));
	free(text);
	while (rmdir(cg) && errno == EBUSY && ue_now_ms() < end)
		usleep(20000);
	if (added)
		ue_write_str(CG_ROOT "/cgroup.subtree_control", "-memory");
	if (mounted)
		umount2(CG_ROOT, MNT_DETACH);
}

TEST_HARNESS_MAIN
