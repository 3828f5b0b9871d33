// SPDX-License-Identifier: GPL-2.0
/*
 * The exits of a group's processes.  The events whose last references
 * they held are deleted by the group's own work: the group's
 * registrations, DIAG_IOCSDEL and status reads wait for it, other
 * groups' calls do not, and it never runs for a group that went.
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

#define TIMEOUT		300

#define RACE		"selftest_g_race"
#define RACE_MS		30000
#define RACE_PROBES	4
#define RACE_FUNC	"user_event_gone_work"
#define RACE_WAIT_MS	10000

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
	grmdir(RACE);
	ue_cleanup_sys(SYS_B, EV);
	grmdir(GA);
	grmdir(GB);
}

FIXTURE(group) {
	int unused;
};

FIXTURE_SETUP(group)
{
	const char *reason = ue_setup();
	char path[UE_PATH_MAX];

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
	if (!ue_setup())
		cleanup();
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
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u32 *words = calloc(EX_EVENTS / 32 + 1, sizeof(*words));
		int fa = gopen(GA, "user_events_data", O_RDWR);
		char cmd[64];
		int i;

		for (i = 0; words && fa >= 0 && i < EX_EVENTS; i++) {
			snprintf(cmd, sizeof(cmd), EV_EX "%d u32 a", i);
			if (ue_reg(fa, cmd, &words[i / 32], i % 32, NULL))
				_exit(1);
		}
		/* Then only the registrations hold the events */
		if (i < EX_EVENTS || close(fa) || write(ready[1], "", 1) != 1)
			_exit(1);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 1);
	}
	close(ready[1]);
	close(go[0]);
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

TEST_HARNESS_MAIN
