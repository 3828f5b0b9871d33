// SPDX-License-Identifier: GPL-2.0
/*
 * The exits of a group's processes.  The events whose last references
 * they held are deleted by the group's own work: the group's
 * registrations, DIAG_IOCSDEL and status reads wait for it, other
 * groups' calls do not, and it never runs for a group that went.  The
 * instance's rmdir after them.  And kernel.user_events_max, the limit of
 * all groups together.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "group_common.h"
#include "user_events_status.h"

#define TIMEOUT		300

#define RACE		"selftest_g_race"
#define RACE_MS		30000
#define RACE_PROBES	4
#define RACE_FUNC	"user_event_gone_work"
#define RACE_WAIT_MS	10000

#define KPROBE		UE_PREFIX "gr_kp"
/* A third group, for the limit of all groups together */
#define GC		"selftest_gc"
#define MAX_SYSCTL	"/proc/sys/kernel/user_events_max"

/* Kprobes and kretprobes with a stack trace on the group's exit work */
static int race_probes(bool add)
{
	char cmd[96], path[UE_PATH_MAX];
	int i, made = 0;

	for (i = 0; i < 2 * RACE_PROBES; i++) {
		snprintf(cmd, sizeof(cmd), "%s:ue_race/p%d%s\n",
			 add ? (i & 1 ? "r" : "p") : "-", i,
			 add ? " " RACE_FUNC : "");
		ue_path(path, "events/ue_race/p%d/trigger", i);
		if (!add)
			ue_write_str(path, "!stacktrace\n");
		if (ue_dyn_cmd(cmd))
			continue;
		made += add && !ue_write_str(path, "stacktrace\n");
	}
	return made;
}

static void cleanup(void)
{
	race_probes(false);
	ue_dyn_cmd("-:" KPROBE "\n");
	grmdir(RACE);
	ue_cleanup_sys(SYS_B, EV);
	grmdir(GA);
	grmdir(GB);
	grmdir(GC);
}

FIXTURE(group) {
	long saved_max;		/* kernel.user_events_max to restore, or -1 */
};

FIXTURE_SETUP(group)
{
	const char *reason = ue_setup();
	char path[UE_PATH_MAX];

	self->saved_max = -1;
	if (reason)
		SKIP(return, "%s", reason);
	if (!ue_exists(ue_path(path, "instances")))
		SKIP(return, "no tracefs instances");
	cleanup();
	ASSERT_EQ(0, gmkdir(GA));
	ASSERT_EQ(0, gmkdir(GB));
}

/* Registrations end with the test process: then the groups can go */
FIXTURE_TEARDOWN_PARENT(group)
{
	if (self->saved_max >= 0)
		ue_write_long(MAX_SYSCTL, self->saved_max);
	if (!ue_setup())
		cleanup();
}

/*
 * Fork a process that registers @n events "@prefix<i>" in GA and closes
 * its file, so that only its registrations hold them, then says so on
 * @ready and exits when told on @go.  Its pid, or -1.
 */
static pid_t ga_registrant(int n, const char *prefix, int ready[2],
			   int go[2])
{
	pid_t pid = ue_fork();
	char c;

	if (pid == 0) {
		__u32 *words = calloc(n / 32 + 1, sizeof(*words));
		int fa = gopen(GA, "user_events_data", O_RDWR);
		char cmd[64];
		int i;

		for (i = 0; words && fa >= 0 && i < n; i++) {
			snprintf(cmd, sizeof(cmd), "%s%d u32 a", prefix, i);
			if (ue_reg(fa, cmd, &words[i / 32], i % 32, NULL))
				_exit(1);
		}
		if (i < n || close(fa) || write(ready[1], "", 1) != 1)
			_exit(1);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 1);
	}
	close(ready[1]);
	close(go[0]);
	return pid;
}

#define EX_EVENTS	2000
#define EV_EX		UE_PREFIX "gr_ex"

/*
 * A registration, DIAG_IOCSDEL and a read of a status file wait until
 * the registrations of their group's processes that exited are dropped,
 * and for no other group's.  While the kernel deletes the events whose
 * last references a process of GA held when it exited, GB's calls return
 * (within a quarter of the time the deletions take, plus 50 ms), and a
 * read of GA's status, once it returns, lists none of them: GA's instance
 * can be removed right after it.
 */
TEST_F_TIMEOUT(group, exit_waits_for_its_group_only, TIMEOUT)
{
	long long start, took, total;
	int ready[2], go[2], status, fb;
	char c, *text;
	static __u32 w;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = ga_registrant(EX_EVENTS, EV_EX, ready, go);
	ASSERT_LE(0, pid);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	fb = gopen(GB, "user_events_data", O_RDWR);
	ASSERT_LE(0, fb);

	ASSERT_EQ(1, write(go[1], "", 1));
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	ASSERT_EQ(0, ue_exit_code(status));
	start = ue_now_ms();
	EXPECT_EQ(0, ue_reg(fb, EV " u32 a", &w, 0, NULL));
	text = gstatus(GB);
	EXPECT_TRUE(listed(text, EV));
	free(text);
	EXPECT_EQ(0, ue_unreg(fb, &w, 0));
	/* Its write index holds it */
	EXPECT_EQ(-EBUSY, ue_del_fd(fb, EV));
	took = ue_now_ms() - start;

	text = gstatus(GA);
	total = ue_now_ms() - start;
	EXPECT_STREQ("\nActive: 0\nBusy: 0\n", text);
	free(text);
	close(fb);
	ksft_print_msg("%d events of %s went in %lld ms; %s's calls took %lld ms\n",
		       EX_EVENTS, GA, total, GB, took);
	EXPECT_LE(took, total / 4 + 50);
	/* That read waited for the exit: the instance can go at once */
	EXPECT_EQ(0, grmdir(GA));
}

#define RM_EVENTS	200
#define EV_RM		UE_PREFIX "gr_rm"

/*
 * A runtime's teardown: the container's process exits while a tool
 * traces its events, the tool stops, and a read of the group's status
 * waits for the exit.  The events the tool held when their last
 * registration went are deleted by the work its stop queued; the
 * instance's rmdir waits for that work, and succeeds at once.
 */
TEST_F_TIMEOUT(group, rmdir_after_tool_stops, TIMEOUT)
{
	char path[UE_PATH_MAX], c, *text;
	int ready[2], go[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = ga_registrant(RM_EVENTS, EV_RM, ready, go);
	ASSERT_LE(0, pid);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ue_path(path, "events/%s/enable", SYS_A);
	ASSERT_EQ(0, ue_write_str(path, "1\n"));

	ASSERT_EQ(1, write(go[1], "", 1));
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	ASSERT_EQ(0, ue_exit_code(status));
	text = gstatus(GA);
	EXPECT_NE(NULL, text);
	free(text);
	ASSERT_EQ(0, ue_write_str(path, "0\n"));
	EXPECT_EQ(0, grmdir(GA));
}

static long long race_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Register one event of RACE on @cpu, then exit @delay_us after the go */
static int race_child(int cpu, int delay_us, int ready, int go)
{
	static __u32 w;
	long long end;
	char cmd[64];
	cpu_set_t set;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	fd = gopen(RACE, "user_events_data", O_RDWR);
	snprintf(cmd, sizeof(cmd), EV "_r%d u32 a", cpu);
	if (fd < 0 || ue_reg(fd, cmd, &w, 0, NULL) || close(fd) ||
	    write(ready, "", 1) != 1 || read(go, cmd, 1) != 0)
		return 1;
	end = race_now_us() + delay_us;
	while (race_now_us() < end)
		;
	return 0;
}

/*
 * Two processes of a group, on two CPUs, exit at nearly the same time
 * holding the last references of the group's two events, while the
 * instance's rmdir is tried over and over: it succeeds once the group's
 * work dropped them, and the work never runs for a group that went.  The
 * probes on the work widen the windows; KASAN sees a use after free.
 */
TEST_F_TIMEOUT(group, exits_race_rmdir, TIMEOUT)
{
	long long end = ue_now_ms() + RACE_MS, t0;
	int trials = 0, probes, status, ret, i;
	pid_t kid[2];

	probes = race_probes(true);
	srand(getpid());
	while (ue_now_ms() < end) {
		int ready[2], go[2], delay = rand() % 2500, late = rand() & 1;
		char c;

		ASSERT_EQ(0, gmkdir(RACE));
		ASSERT_EQ(0, pipe(ready));
		ASSERT_EQ(0, pipe(go));
		for (i = 0; i < 2; i++) {
			kid[i] = ue_fork();
			ASSERT_LE(0, kid[i]);
			if (kid[i] == 0) {
				close(ready[0]);
				close(go[1]);
				_exit(race_child(i, i == late ? delay : 0,
						 ready[1], go[0]));
			}
		}
		close(ready[1]);
		close(go[0]);
		for (i = 0; i < 2 && read(ready[0], &c, 1) == 1; i++)
			;
		close(ready[0]);
		ASSERT_EQ(2, i);
		close(go[1]);

		t0 = ue_now_ms();
		while ((ret = grmdir(RACE)) == -EBUSY &&
		       ue_now_ms() - t0 < RACE_WAIT_MS)
			;
		ASSERT_EQ(0, ret);
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, ue_wait_child(kid[i], RACE_WAIT_MS,
						   &status));
			ASSERT_EQ(0, ue_exit_code(status));
		}
		trials++;
	}
	race_probes(false);
	ksft_print_msg("%d trials, %d probes on %s\n", trials, probes,
		       RACE_FUNC);
}

/* Register "@name u32 a" in @fd: 0 or -errno */
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
TEST_F_TIMEOUT(group, total_limit, TIMEOUT)
{
	char path[UE_PATH_MAX], name[64], msg[256];
	static __u32 w[16];
	long active = 0, busy = 0;
	int fa, fb, fc, fh, i, n = 0;

	if (!ue_exists(MAX_SYSCTL))
		SKIP(return, "no %s (CONFIG_SYSCTL?)", MAX_SYSCTL);
	ASSERT_EQ(0, gmkdir(GC));

	/* Room for 2 + 2 events of the two groups and 2 more */
	ASSERT_EQ(0, ue_read_long(MAX_SYSCTL, &self->saved_max));
	ASSERT_EQ(0, ue_status_counts(&active, &busy));
	ASSERT_EQ(0, ue_write_long(MAX_SYSCTL, active + 6));
	ASSERT_EQ(0, ue_write_str(gpath(path, GA, "user_events_max"), "2\n"));
	ASSERT_EQ(0, ue_write_str(gpath(path, GB, "user_events_max"), "2\n"));

	fa = gopen(GA, "user_events_data", O_RDWR);
	fb = gopen(GB, "user_events_data", O_RDWR);
	fc = gopen(GC, "user_events_data", O_RDWR);
	fh = ue_open();
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_LE(0, fc);
	ASSERT_LE(0, fh);

	/* Both groups at their limits */
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), EV "%d", i);
		EXPECT_EQ(i < 2 ? 0 : -EMFILE, reg_one(fa, name, &w[n++]));
		EXPECT_EQ(i < 2 ? 0 : -EMFILE, reg_one(fb, name, &w[n++]));
	}

	/* The host and a third group still create events */
	EXPECT_EQ(0, reg_one(fh, EV "0", &w[n++]));
	EXPECT_EQ(0, reg_one(fc, EV "0", &w[n++]));

	/* The total is reached: no group creates more, wherever it is */
	ASSERT_EQ(0, ue_errlog_clear());
	EXPECT_EQ(-EMFILE, reg_one(fh, EV "1", &w[n++]));
	ASSERT_EQ(0, ue_errlog_msg(EV "1 u32 a", msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "Too many events (kernel.user_events_max)"))
		TH_LOG("%s", msg);
	EXPECT_EQ(-EMFILE, reg_one(fc, EV "1", &w[n++]));
	EXPECT_FALSE(ue_event_exists(NULL, EV "1"));

	/*
	 * A group whose own limit was never written, at the total with its
	 * own events alone: its line names the total, which is what to raise.
	 */
	ASSERT_EQ(0, ue_write_long(MAX_SYSCTL, 1));
	EXPECT_EQ(-EMFILE, reg_one(fc, EV "2", &w[n++]));
	ASSERT_EQ(0, ue_errlog_msg_in("instances/" GC "/error_log",
				      EV "2 u32 a", msg, sizeof(msg), NULL));
	EXPECT_NE(NULL, strstr(msg, "Too many events (kernel.user_events_max)"))
		TH_LOG("%s", msg);
	ASSERT_EQ(0, ue_write_long(MAX_SYSCTL, active + 6));

	/* Existing events are still found */
	EXPECT_EQ(0, reg_one(fh, EV "0", &w[n++]));

	/* The kernel's own dynamic events are not user events */
	if (ue_exists(ue_path(path, "kprobe_events"))) {
		EXPECT_EQ(0, ue_dyn_cmd("p:" KPROBE " vfs_read\n"));
		EXPECT_EQ(0, ue_dyn_cmd("-:" KPROBE "\n"));
	}

	close(fa);
	close(fb);
	close(fc);
	close(fh);
	for (i = 0; i < n; i++)
		ue_unreg_own(&w[i], 0);
}

TEST_HARNESS_MAIN
