// SPDX-License-Identifier: GPL-2.0
/*
 * User events and the trace core's event types and buffers: an event that
 * goes with its last user leaves the buffers alone, also at the next reset
 * the core does for another dynamic event; its records print as an
 * unknown type and never as one of the events registered after it; and
 * kernel.user_events_max bounds the events of all groups together, so that
 * two groups at their limits leave the host, a third group and kprobes
 * room.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_status.h"

#define TIMEOUT		300

#define EV_GONE		UE_PREFIX "ty_gone"
#define EV_KEEP		UE_PREFIX "ty_keep"
#define EV_DYN		UE_PREFIX "ty_dyn"
#define EV_NEW		UE_PREFIX "ty_new"	/* + index */
#define EV_LIM		UE_PREFIX "ty_lim"	/* + index */
#define KPROBE		UE_PREFIX "ty_kp"
#define MARKER		"types_test marker record"

#define MAX_SYSCTL	"/proc/sys/kernel/user_events_max"

/* The groups the limit case makes: two at their limits and a third */
#define GA		"ty_grp_a"
#define GB		"ty_grp_b"
#define GC		"ty_grp_c"

#define NR_NEW		200

static const char * const groups[] = { GA, GB, GC };

FIXTURE(types) {
	long saved_max;		/* user_events_max to restore, or -1 */
};

static const char *gpath(char *buf, const char *group, const char *file)
{
	return ue_path(buf, "instances/%s%s%s", group, file ? "/" : "",
		       file ? file : "");
}

static int gopen(const char *group)
{
	char path[UE_PATH_MAX];
	int fd = open(gpath(path, group, "user_events_data"), O_RDWR);

	return fd < 0 ? -errno : fd;
}

static void kprobe_del(void)
{
	ue_dyn_cmd("-:" KPROBE "\n");
}

/* A kprobe (or, without kprobe events, another dynamic event): 0 or -errno */
static int dyn_add(bool *kprobe)
{
	char path[UE_PATH_MAX];

	*kprobe = ue_exists(ue_path(path, "kprobe_events"));
	if (*kprobe)
		return ue_dyn_cmd("p:" KPROBE " vfs_read\n");
	return ue_dyn_cmd("u:" EV_DYN " u32 a\n");
}

/* Delete it with "-:", after which the core resets what was marked */
static int dyn_del(bool kprobe)
{
	return ue_dyn_cmd(kprobe ? "-:" KPROBE "\n" : "-:" EV_DYN " u32 a\n");
}

static void cleanup(void)
{
	char name[64], path[UE_PATH_MAX];
	unsigned int i;

	kprobe_del();
	ue_cleanup(EV_GONE);
	ue_cleanup(EV_KEEP);
	ue_cleanup(EV_DYN);
	for (i = 0; i < NR_NEW; i++) {
		snprintf(name, sizeof(name), EV_NEW "%u", i);
		ue_cleanup(name);
	}
	for (i = 0; i < ARRAY_SIZE(groups); i++)
		rmdir(gpath(path, groups[i], NULL));
}

FIXTURE_SETUP(types)
{
	const char *why = ue_setup();

	self->saved_max = -1;
	if (why)
		SKIP(return, "%s", why);
	cleanup();
}

FIXTURE_TEARDOWN(types)
{
	if (self->saved_max >= 0)
		ue_write_long(MAX_SYSCTL, self->saved_max);
	cleanup();
}

/*
 * Register @name with @fields, enable it, write one record of @val,
 * disable it and drop every reference: the event deletes itself.
 */
static int record_and_go(const char *cmd, const char *name, __u32 val)
{
	static __u32 word;
	int fd, idx = 0, ret;

	fd = ue_open();
	if (fd < 0)
		return fd;
	ret = ue_reg(fd, cmd, &word, 0, &idx);
	if (!ret)
		ret = ue_enable(name, true);
	if (!ret && ue_emit(fd, idx, &val, sizeof(val)) != 4 + sizeof(val))
		ret = -EIO;
	ue_enable(name, false);
	ue_unreg(fd, &word, 0);
	close(fd);
	if (!ret && !ue_wait_gone(NULL, name, 5000))
		ret = -EBUSY;
	return ret;
}

/*
 * A user event that was enabled and went by itself marks no instance for
 * the reset that the core does after deleting a dynamic event: deleting
 * an unrelated kprobe afterwards must leave the records of other events
 * (a trace_marker write, another user event) in the buffer.
 */
TEST_F_TIMEOUT(types, implicit_delete_keeps_buffer, TIMEOUT)
{
	char path[UE_PATH_MAX], *trace = NULL;
	static __u32 word;
	__u32 val = 0x51;
	bool kprobe;
	int fd, idx = 0;

	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, record_and_go(EV_GONE " u32 a", EV_GONE, 7));

	/* Records of other events, made after it went */
	ASSERT_EQ(0, ue_write_str(ue_path(path, "trace_marker"), MARKER "\n"));
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, EV_KEEP " u32 v", &word, 0, &idx));
	ASSERT_EQ(0, ue_enable(EV_KEEP, true));
	ASSERT_EQ(8, ue_emit(fd, idx, &val, sizeof(val)));
	ASSERT_EQ(0, ue_enable(EV_KEEP, false));

	ue_trace_read(&trace);
	ASSERT_NE(NULL, strstr(trace, MARKER));
	ASSERT_EQ(1, ue_trace_count(trace, EV_KEEP));

	/* An unrelated dynamic event comes and goes */
	ASSERT_EQ(0, dyn_add(&kprobe));
	ASSERT_EQ(0, dyn_del(kprobe)) TH_LOG("kprobe %d", kprobe);

	ue_trace_read(&trace);
	EXPECT_NE(NULL, strstr(trace, MARKER))
		TH_LOG("the trace_marker record was wiped");
	EXPECT_EQ(1, ue_trace_count(trace, EV_KEEP))
		TH_LOG("the other user event's record was wiped");
	/* The deleted event's record stayed, as an unknown type */
	EXPECT_NE(NULL, strstr(trace, "Unknown type"));
	EXPECT_EQ(0, ue_trace_count(trace, EV_GONE));
	free(trace);

	ue_unreg(fd, &word, 0);
	close(fd);
}

/*
 * The record of a deleted event never prints as an event registered after
 * it, however many come and go: each new event is registered, enabled
 * (so that its removal is the one that would reset) and deleted again.
 */
TEST_F_TIMEOUT(types, deleted_type_not_reused, TIMEOUT)
{
	char cmd[128], name[64], *trace = NULL;
	unsigned int i;

	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, record_and_go(EV_GONE " u32 a", EV_GONE, 0x1234));

	for (i = 0; i < NR_NEW; i++) {
		/* Other fields, so that a reused type would misdecode */
		snprintf(name, sizeof(name), EV_NEW "%u", i);
		snprintf(cmd, sizeof(cmd), "%s u16 x; u16 y", name);
		ASSERT_EQ(0, record_and_go(cmd, name, 0x10000 + i))
			TH_LOG("%s", cmd);
	}

	ue_trace_read(&trace);
	/* Each record is there, as an unknown type, and none as another */
	EXPECT_EQ(0, ue_trace_count(trace, EV_GONE));
	for (i = 0; i < NR_NEW; i++) {
		snprintf(name, sizeof(name), EV_NEW "%u", i);
		EXPECT_EQ(0, ue_trace_count(trace, name)) TH_LOG("%s", name);
	}
	EXPECT_NE(NULL, strstr(trace, "Unknown type"));
	free(trace);
}

/* Register @name in @fd: 0 or -errno */
static int reg_one(int fd, const char *name, __u32 *word)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "%s u32 a", name);
	return ue_reg(fd, cmd, word, 0, NULL);
}

/*
 * kernel.user_events_max is the total of every group's events: two groups
 * at their own limits leave a host event and a third group's creatable,
 * and the total refuses more in any group (EMFILE, with its error_log
 * line) while a kprobe can still be made.
 */
TEST_F_TIMEOUT(types, total_limit, TIMEOUT)
{
	char path[UE_PATH_MAX], name[64], msg[256];
	static __u32 w[16];
	long active = 0, busy = 0;
	int fa, fb, fc, fh, i, n = 0;
	bool kprobe;

	if (!ue_exists(MAX_SYSCTL))
		SKIP(return, "no %s (CONFIG_SYSCTL?)", MAX_SYSCTL);
	ASSERT_EQ(0, mkdir(gpath(path, GA, NULL), 0750));
	ASSERT_EQ(0, mkdir(gpath(path, GB, NULL), 0750));
	ASSERT_EQ(0, mkdir(gpath(path, GC, NULL), 0750));
	if (!ue_exists(gpath(path, GA, "user_events_data")))
		SKIP(return, "tracefs instances have no groups");

	/* Room for 2 + 2 events of the two groups and 2 more */
	ASSERT_EQ(0, ue_read_long(MAX_SYSCTL, &self->saved_max));
	ASSERT_EQ(0, ue_status_counts(&active, &busy));
	ASSERT_EQ(0, ue_write_long(MAX_SYSCTL, active + 6));
	ASSERT_EQ(0, ue_write_str(gpath(path, GA, "user_events_max"), "2\n"));
	ASSERT_EQ(0, ue_write_str(gpath(path, GB, "user_events_max"), "2\n"));

	fa = gopen(GA);
	fb = gopen(GB);
	fc = gopen(GC);
	fh = ue_open();
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_LE(0, fc);
	ASSERT_LE(0, fh);

	/* Both groups at their limits */
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), EV_LIM "%d", i);
		EXPECT_EQ(i < 2 ? 0 : -EMFILE, reg_one(fa, name, &w[n++]));
		EXPECT_EQ(i < 2 ? 0 : -EMFILE, reg_one(fb, name, &w[n++]));
	}

	/* The host and a third group still create events */
	EXPECT_EQ(0, reg_one(fh, EV_LIM "0", &w[n++]));
	EXPECT_EQ(0, reg_one(fc, EV_LIM "0", &w[n++]));

	/* The total is reached: no group creates more, wherever it is */
	ASSERT_EQ(0, ue_errlog_clear());
	EXPECT_EQ(-EMFILE, reg_one(fh, EV_LIM "1", &w[n++]));
	ASSERT_EQ(0, ue_errlog_msg(EV_LIM "1 u32 a", msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "Too many events (kernel.user_events_max)"))
		TH_LOG("%s", msg);
	EXPECT_EQ(-EMFILE, reg_one(fc, EV_LIM "1", &w[n++]));
	EXPECT_FALSE(ue_event_exists(NULL, EV_LIM "1"));

	/*
	 * A group whose own limit was never written, at the total with its
	 * own events alone: its line names the total, which is what to raise.
	 */
	ASSERT_EQ(0, ue_write_long(MAX_SYSCTL, 1));
	EXPECT_EQ(-EMFILE, reg_one(fc, EV_LIM "2", &w[n++]));
	ASSERT_EQ(0, ue_errlog_msg_in("instances/" GC "/error_log",
				      EV_LIM "2 u32 a", msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "Too many events (kernel.user_events_max)"))
		TH_LOG("%s", msg);
	ASSERT_EQ(0, ue_write_long(MAX_SYSCTL, active + 6));

	/* Existing events are still found */
	EXPECT_EQ(0, reg_one(fh, EV_LIM "0", &w[n++]));

	/* The kernel's own dynamic events are not user events */
	if (ue_exists(ue_path(path, "kprobe_events"))) {
		EXPECT_EQ(0, dyn_add(&kprobe));
		EXPECT_EQ(0, dyn_del(kprobe));
	}

	close(fa);
	close(fb);
	close(fc);
	close(fh);
	for (i = 0; i < n; i++)
		ue_unreg_own(&w[i], 0);
}

TEST_HARNESS_MAIN
