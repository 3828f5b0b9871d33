// SPDX-License-Identifier: GPL-2.0
/*
 * User events and the trace core's event types and buffers: an event that
 * goes with its last user leaves the buffers alone, also at the next reset
 * the core does for another dynamic event; its records print as an
 * unknown type and never as one of the events registered after it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_status.h"

#define TIMEOUT		300

#define EV_GONE		UE_PREFIX "ty_gone"
#define EV_KEEP		UE_PREFIX "ty_keep"
#define EV_DYN		UE_PREFIX "ty_dyn"
#define EV_NEW		UE_PREFIX "ty_new"	/* + index */
#define KPROBE		UE_PREFIX "ty_kp"
#define MARKER		"types_test marker record"

#define NR_NEW		200

FIXTURE(types) {
};

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
	char name[64];
	unsigned int i;

	kprobe_del();
	ue_cleanup(EV_GONE);
	ue_cleanup(EV_KEEP);
	ue_cleanup(EV_DYN);
	for (i = 0; i < NR_NEW; i++) {
		snprintf(name, sizeof(name), EV_NEW "%u", i);
		ue_cleanup(name);
	}
}

FIXTURE_SETUP(types)
{
	const char *why = ue_setup();

	if (why)
		SKIP(return, "%s", why);
	cleanup();
}

FIXTURE_TEARDOWN(types)
{
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

TEST_HARNESS_MAIN
