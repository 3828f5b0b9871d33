// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime of user events: registrations belong to the process's
 * memory and outlive the file they were made through; 10 000
 * register/unregister/close cycles leave neither an event nor slab memory
 * behind; DIAG_IOCSDEL succeeds right after the last UNREG and close
 * (whichever comes last), child exit or perf close, in every try, and is
 * EBUSY while a registration remains; an event that lost its last
 * registration while a tool had it is never EBUSY once the tool lets go;
 * PERSIST and MULTI_FORMAT with and without CAP_PERFMON and CAP_SYS_ADMIN;
 * persistent and multi-format events in dynamic_events; the error_log
 * line that names what keeps a busy event; unknown flags.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_format.h"
#include "user_events_status.h"

#define TIMEOUT		600

#define EV_CYCLE	UE_PREFIX "lt_cycle"
#define EV_COST		UE_PREFIX "lt_cost"	/* + index */
#define EV_DEL		UE_PREFIX "lt_del"
#define EV_HOLD		UE_PREFIX "lt_hold"
#define EV_CHILD	UE_PREFIX "lt_child"
#define EV_PERF		UE_PREFIX "lt_perf"
#define EV_TOOL		UE_PREFIX "lt_tool"
#define EV_BUSY		UE_PREFIX "lt_busy"
#define EV_CAP_P	UE_PREFIX "lt_cap_p"
#define EV_CAP_PM	UE_PREFIX "lt_cap_pm"
#define EV_CAP_M	UE_PREFIX "lt_cap_m"
#define EV_CAP_D	UE_PREFIX "lt_cap_d"
#define EV_CAP_DM	UE_PREFIX "lt_cap_dm"
#define EV_CAP_E	UE_PREFIX "lt_cap_e"
#define EV_CAP_U	UE_PREFIX "lt_cap_u"
#define EV_MF		UE_PREFIX "lt_mf"
#define EV_FLAGS	UE_PREFIX "lt_flags"
#define EV_EPROBE	UE_PREFIX "lt_eprobe"
#define EPROBE		UE_PREFIX "lt_ep"	/* an eprobe on EV_EPROBE */
#define EV_USTK		UE_PREFIX "lt_ustk"

#define PERF_PARANOID	"/proc/sys/kernel/perf_event_paranoid"

#define NR_CYCLES	10000
#define NR_DEL_TRIES	1000
#define NR_COST		64
#define NR_USTK_ROUNDS	20
#define NR_USTK_RECORDS	1000
#define NR_USTK_PROCS	6

/*
 * What the 10 000 cycles may leave in slab memory once caches are shrunk
 * and RCU has run: 256 KiB, i.e. 26 bytes per cycle.  One leaked event per
 * cycle costs far more (struct user_event alone is several hundred bytes;
 * the test measures the real cost and checks the margin), and so does any
 * single leaked allocation per cycle of 32 bytes or more (312 KiB).
 */
#define SLAB_TOLERANCE	(256 * 1024LL)

#define BUSY_REFS	"Event is busy: registered by a process or open in user_events_data"
#define BUSY_FTRACE	"Event is busy: enabled in ftrace"
#define BUSY_PERF	"Event is busy: in use by perf or eBPF"
#define NOT_PERMITTED	"Operation not permitted"

static const char * const events[] = {
	EV_CYCLE, EV_DEL, EV_HOLD, EV_CHILD, EV_PERF, EV_TOOL, EV_BUSY,
	EV_CAP_P, EV_CAP_PM, EV_CAP_M, EV_CAP_D, EV_CAP_DM, EV_CAP_E,
	EV_CAP_U, EV_MF, EV_FLAGS, EV_EPROBE, EV_USTK,
};

/* Disable and delete @name and every multi-format tracepoint of it */
static void cleanup_name(const char *name)
{
	char ids[16][64];
	int n, i;

	n = ue_multi_ids(name, ids, 16);
	for (i = 0; i < n && i < 16; i++)
		ue_enable_sys(USER_EVENTS_MULTI_SYSTEM, ids[i], false);
	ue_cleanup(name);
}

static void cleanup_all(void)
{
	char path[UE_PATH_MAX];
	char name[64];
	unsigned int i;

	/* The eprobe first: it holds its user event */
	ue_write_str(ue_path(path, "events/eprobes/%s/enable", EPROBE), "0");
	ue_dyn_cmd("-:" EPROBE "\n");
	for (i = 0; i < ARRAY_SIZE(events); i++)
		cleanup_name(events[i]);
	for (i = 0; i < NR_COST; i++) {
		snprintf(name, sizeof(name), EV_COST "%u", i);
		ue_cleanup(name);
	}
}

/* Is there a line of dynamic_events that starts with @prefix? */
static bool dyn_has(const char *prefix)
{
	char *buf = ue_read_tracefs("dynamic_events");
	size_t n = strlen(prefix);
	bool found = false;
	char *p;

	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, prefix, n) &&
		    (p[n] == ' ' || p[n] == '\n' || !p[n])) {
			found = true;
			break;
		}
	}
	free(buf);
	return found;
}

/* Nothing of event @name is left: tracefs, dynamic_events, status */
static bool event_left(const char *name)
{
	char prefix[128], line[128], ids[1][64];

	snprintf(prefix, sizeof(prefix), "u:%s", name);
	return ue_event_exists(NULL, name) || dyn_has(prefix) ||
	       !ue_status_line(name, line, sizeof(line)) ||
	       ue_multi_ids(name, ids, 1) != 0;
}

/* Register @cmd with @flags on a new file, at @word/@bit; fd or -errno */
static int open_reg(const char *cmd, __u16 flags, __u32 *word, int bit)
{
	int fd = ue_open(), ret;

	if (fd < 0)
		return fd;
	ret = ue_reg_flags(fd, cmd, flags, word, sizeof(*word), bit, NULL);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* --- slab accounting ------------------------------------------------------ */

/* One slab cache in /proc/slabinfo: active objects, their bytes */
struct slab_use {
	char name[64];
	long objs;
	long long bytes;
};

#define NR_SLAB_CACHES	1024

static struct slab_use slab_before[NR_SLAB_CACHES];

/*
 * Fills @use (up to @n caches) from /proc/slabinfo, the rest zeroed;
 * returns how many caches, -1 without slabinfo (CONFIG_SLUB_DEBUG).
 */
static int slab_snapshot(struct slab_use *use, size_t n)
{
	char *buf = ue_read_file("/proc/slabinfo");
	long num, size;
	size_t k = 0;
	char *p;

	memset(use, 0, n * sizeof(*use));
	if (!buf)
		return -1;
	for (p = buf; p && *p && k < n;
	     p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (*p == '#' || !strncmp(p, "slabinfo", 8))
			continue;
		if (sscanf(p, "%63s %ld %ld %ld", use[k].name, &use[k].objs,
			   &num, &size) != 4)
			continue;
		use[k].bytes = (long long)use[k].objs * size;
		k++;
	}
	free(buf);
	return k;
}

/*
 * Bytes in use in slab caches (active objects times object size): of
 * every cache, or (@prefix) of those whose name starts with it, counting
 * their objects in *@objs.  -1 without slabinfo.
 */
static long long slab_bytes(const char *prefix, long *objs)
{
	static struct slab_use use[NR_SLAB_CACHES];
	int n = slab_snapshot(use, ARRAY_SIZE(use)), i;
	long long total = 0;

	if (objs)
		*objs = 0;
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (prefix && strncmp(use[i].name, prefix, strlen(prefix)))
			continue;
		total += use[i].bytes;
		if (objs)
			*objs += use[i].objs;
	}
	return total;
}

/*
 * Let freed memory reach the slab free lists: an RCU grace period for
 * call_rcu()/kfree_rcu() frees, then kmem_cache_shrink() of every cache
 * (which also flushes per-CPU slabs and empties KASAN's quarantine of the
 * cache, both counted as in use otherwise).
 */
static void slab_settle(void)
{
	char path[UE_PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dir;

	syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	usleep(50 * 1000);
	syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	dir = opendir("/sys/kernel/slab");
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s",
			 de->d_name);
		/* Merged caches are symlinks to the real one */
		if (lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		strncat(path, "/shrink", sizeof(path) - strlen(path) - 1);
		ue_write_str(path, "1\n");
	}
	if (dir)
		closedir(dir);
}

/*
 * Slab bytes in use once settled: the least of up to @tries settled
 * readings, stopping early at one at most @target (when >= 0).  Memory
 * that other activity allocates meanwhile only adds: the least reading is
 * the closest to what the test itself holds.
 */
static long long slab_settled(int tries, long long target)
{
	long long best = -1, now;
	int i;

	for (i = 0; i < tries; i++) {
		slab_settle();
		now = slab_bytes(NULL, NULL);
		if (now < 0)
			return now;
		if (best < 0 || now < best)
			best = now;
		if (target >= 0 && best <= target)
			break;
	}
	return best;
}

/* Logs the caches that grew by a page or more since slab_snapshot(@then) */
static void slab_log_growth(const struct slab_use *then, size_t n)
{
	static struct slab_use now[NR_SLAB_CACHES];
	int n_now = slab_snapshot(now, ARRAY_SIZE(now)), i;
	size_t j;

	for (i = 0; i < n_now; i++) {
		long long was = 0;

		for (j = 0; j < n && then[j].name[0]; j++) {
			if (!strcmp(then[j].name, now[i].name)) {
				was = then[j].bytes;
				break;
			}
		}
		if (now[i].bytes - was >= 4096)
			ksft_print_msg("slab grew: %s %+lld bytes\n",
				       now[i].name, now[i].bytes - was);
	}
}

/*
 * The enable word of the tests: private memory of the test process, not a
 * field of the fixture data, which FIXTURE_TEARDOWN_PARENT shares.
 */
static __u32 enable_word;

FIXTURE(life) {
	int fd;			/* the test process's */
};

FIXTURE_SETUP(life)
{
	const char *reason = ue_setup();
	char path[UE_PATH_MAX];

	self->fd = -1;
	enable_word = 0;
	if (reason)
		SKIP(return, "%s", reason);
	if (!ue_exists(ue_path(path, "dynamic_events")))
		SKIP(return, "no dynamic_events (CONFIG_DYNAMIC_EVENTS?)");
	cleanup_all();
}

/*
 * After the test process exited: its registrations went with its memory
 * and its files were released, so every event it made can be deleted.
 */
FIXTURE_TEARDOWN_PARENT(life)
{
	if (!ue_setup())
		cleanup_all();
}

/*
 * One cycle of cycles_leave_nothing, of kind @i % 4 on a new file: a
 * plain event unregistered after the close (through @delfd: the
 * registration outlives its file), one unregistered before the close, a
 * multi-format one, two registrations of one event on one file.  0 or the
 * first negative errno.
 */
static int cycle_once(int i, int delfd)
{
	int fd = ue_open();
	int ret;

	if (fd < 0)
		return fd;
	switch (i % 4) {
	case 0:
		ret = ue_reg(fd, EV_CYCLE " u32 a; char[8] b",
			     &enable_word, 0, NULL);
		close(fd);
		if (!ret)
			ret = ue_unreg(delfd, &enable_word, 0);
		break;
	case 1:
		ret = ue_reg(fd, EV_CYCLE " u32 a; char[8] b",
			     &enable_word, 0, NULL);
		if (!ret)
			ret = ue_unreg(fd, &enable_word, 0);
		close(fd);
		break;
	case 2:
		ret = ue_reg_flags(fd, EV_CYCLE " u64 a",
				   USER_EVENT_REG_MULTI_FORMAT,
				   &enable_word, 4, 0, NULL);
		if (!ret)
			ret = ue_unreg(fd, &enable_word, 0);
		close(fd);
		break;
	default:
		ret = ue_reg(fd, EV_CYCLE " __data_loc char[] s",
			     &enable_word, 0, NULL);
		if (!ret)
			ret = ue_reg(fd, EV_CYCLE " __data_loc char[] s",
				     &enable_word, 1, NULL);
		close(fd);
		if (!ret)
			ret = ue_unreg(delfd, &enable_word, 0);
		if (!ret)
			ret = ue_unreg(delfd, &enable_word, 1);
		break;
	}
	return ret;
}

/*
 * Register, unregister and close, 10 000 times (cycle_once()).  Nothing
 * may stay: no event in tracefs, in dynamic_events or in the status file,
 * and slab usage back at its baseline (see SLAB_TOLERANCE).
 *
 * The rest of the kernel allocates too while the cycles run, once (a
 * cache that grows to its working size, an earlier test's deferred work):
 * when a round ends above the tolerance, the caches that grew are logged
 * and a second round is measured from where the first ended (hence twice
 * the timeout).  A leak repeats with every cycle and so fails both rounds.
 */
TEST_F_TIMEOUT(life, cycles_leave_nothing, 2 * TIMEOUT)
{
	long long base = 0, after = 0, held, cost, dedicated_base = 0, dedicated;
	long active0 = 0, busy0 = 0, active = -1, busy = -1;
	long dobjs0 = 0, dobjs = 0;
	bool have_slab = ue_exists("/proc/slabinfo");
	static __u32 cost_words[NR_COST];
	char name[64];
	int delfd, i, round;
	int fds[NR_COST];

	ASSERT_EQ(0, ue_status_counts(&active0, &busy0));
	if (have_slab) {
		/* The least of several readings: earlier frees are still landing */
		base = slab_settled(6, -1);
		ASSERT_LT(0, base);
		dedicated_base = slab_bytes("user_event", &dobjs0);
		slab_snapshot(slab_before, ARRAY_SIZE(slab_before));
	}

	delfd = ue_open();
	ASSERT_LE(0, delfd);
	for (round = 1; round <= 2; round++) {
		for (i = 0; i < NR_CYCLES; i++) {
			ASSERT_EQ(0, cycle_once(i, delfd))
				TH_LOG("round %d, cycle %d", round, i);
			/*
			 * Gone once both the UNREG and the close() have
			 * returned: one cycle of each round of four
			 */
			if (i % 4 != (i / 4) % 4)
				continue;
			ASSERT_EQ(-ENOENT, ue_del_fd(delfd, EV_CYCLE))
				TH_LOG("round %d, cycle %d", round, i);
		}

		EXPECT_FALSE(event_left(EV_CYCLE));
		EXPECT_EQ(-ENOENT, ue_del(EV_CYCLE));
		/*
		 * No more events than before: an earlier test's event that
		 * its perf or BPF release lets go meanwhile makes it fewer
		 */
		ASSERT_EQ(0, ue_status_counts(&active, &busy));
		EXPECT_GE(active0, active);
		EXPECT_GE(busy0, busy);
		if (!have_slab)
			break;

		after = slab_settled(20, base + SLAB_TOLERANCE);
		TH_LOG("round %d: slab in use: %lld before, %lld after %d cycles (%+lld)",
		       round, base, after, NR_CYCLES, after - base);
		if (after <= base + SLAB_TOLERANCE)
			break;
		slab_log_growth(slab_before, ARRAY_SIZE(slab_before));
		if (round == 2)
			break;
		slab_snapshot(slab_before, ARRAY_SIZE(slab_before));
		base = after;
	}
	close(delfd);

	/* A SKIP would hide a failure of the checks above */
	if (!have_slab && _metadata->exit_code == KSFT_FAIL)
		return;
	if (!have_slab)
		SKIP(return, "no /proc/slabinfo (CONFIG_SLUB_DEBUG): slab not measured");
	EXPECT_GE(base + SLAB_TOLERANCE, after);

	/* Caches of user_events' own, if it has any: back where they were */
	dedicated = slab_bytes("user_event", &dobjs);
	TH_LOG("user_event* caches: %ld objects (%lld bytes) before, %ld (%lld) after",
	       dobjs0, dedicated_base, dobjs, dedicated);
	EXPECT_GE(dobjs0, dobjs);

	/* What one event costs, to show the tolerance is meaningful */
	for (i = 0; i < NR_COST; i++) {
		snprintf(name, sizeof(name), EV_COST "%d u32 a; char[8] b", i);
		fds[i] = open_reg(name, 0, &cost_words[i], 0);
		ASSERT_LE(0, fds[i]);
	}
	held = slab_settled(3, -1);
	for (i = 0; i < NR_COST; i++) {
		EXPECT_EQ(0, ue_unreg(fds[i], &cost_words[i], 0));
		close(fds[i]);
	}
	cost = (held - after) / NR_COST;
	TH_LOG("an event and its file hold %lld bytes of slab; one per cycle: %lld",
	       cost, cost * NR_CYCLES);
	EXPECT_LT(SLAB_TOLERANCE * 10, cost * NR_CYCLES);
}

/*
 * DIAG_IOCSDEL of a persistent event succeeds right after the UNREG that
 * dropped its last registration, once the file it was registered through
 * is closed, in each of 1000 tries: no deferred release holds it.  Until
 * then the registration, which outlives its file, makes it EBUSY.  The
 * same after UNREG then close, and after the last of three files that
 * held it goes (EBUSY until then).
 */
TEST_F_TIMEOUT(life, del_right_after_last_close, TIMEOUT)
{
	char msg[256];
	int fd, fds[3], i, j;

	/* Deletes through a file of their own, as the ABI document advises */
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);

	for (i = 0; i < NR_DEL_TRIES; i++) {
		fd = open_reg(EV_DEL " u32 a", USER_EVENT_REG_PERSIST,
			      &enable_word, 0);
		ASSERT_LE(0, fd) TH_LOG("try %d", i);
		close(fd);
		/* The registration stayed: it holds the event */
		if (i == 0) {
			ASSERT_EQ(0, ue_errlog_clear());
			EXPECT_EQ(-EBUSY, ue_del_fd(self->fd, EV_DEL));
			ASSERT_EQ(0, ue_errlog_msg(EV_DEL, msg, sizeof(msg)));
			EXPECT_STREQ("user_events: error: " BUSY_REFS, msg);
		} else if (i % 10 == 0) {
			ASSERT_EQ(-EBUSY, ue_del_fd(self->fd, EV_DEL))
				TH_LOG("try %d", i);
		}
		ASSERT_EQ(0, ue_unreg(self->fd, &enable_word, 0))
			TH_LOG("try %d", i);
		ASSERT_EQ(0, ue_del_fd(self->fd, EV_DEL)) TH_LOG("try %d", i);
	}
	EXPECT_FALSE(ue_event_exists(NULL, EV_DEL));

	for (i = 0; i < NR_DEL_TRIES / 20; i++) {
		fd = open_reg(EV_DEL " u32 a", USER_EVENT_REG_PERSIST,
			      &enable_word, 0);
		ASSERT_LE(0, fd) TH_LOG("try %d", i);
		ASSERT_EQ(0, ue_unreg(fd, &enable_word, 0));
		/* The file's write index still refers to the event */
		if (i == 0) {
			ASSERT_EQ(0, ue_errlog_clear());
			EXPECT_EQ(-EBUSY, ue_del_fd(self->fd, EV_DEL));
			ASSERT_EQ(0, ue_errlog_msg(EV_DEL, msg, sizeof(msg)));
			EXPECT_STREQ("user_events: error: " BUSY_REFS, msg);
		}
		close(fd);
		ASSERT_EQ(0, ue_del_fd(self->fd, EV_DEL)) TH_LOG("try %d", i);
	}

	/* Held by three files: busy until the last one is closed */
	for (i = 0; i < NR_DEL_TRIES / 20; i++) {
		for (j = 0; j < 3; j++) {
			fds[j] = open_reg(EV_HOLD " u32 a",
					  USER_EVENT_REG_PERSIST,
					  &enable_word, j);
			ASSERT_LE(0, fds[j]) TH_LOG("try %d", i);
		}
		for (j = 0; j < 3; j++) {
			ASSERT_EQ(0, ue_unreg(fds[j], &enable_word, j));
			close(fds[j]);
			if (j < 2)
				ASSERT_EQ(-EBUSY, ue_del_fd(self->fd, EV_HOLD))
					TH_LOG("try %d, %d closed", i, j + 1);
		}
		ASSERT_EQ(0, ue_del_fd(self->fd, EV_HOLD)) TH_LOG("try %d", i);
	}
	EXPECT_FALSE(event_left(EV_DEL));
	EXPECT_FALSE(event_left(EV_HOLD));
}

/*
 * A "u:" event from dynamic_events is persistent: it survives the close
 * of every file that registered it and the end of every registration,
 * and "-:" deletes it right after the last UNREG and close (whichever
 * came last); the registration, which outlives its file, keeps it busy
 * until then.
 */
TEST_F_TIMEOUT(life, dyn_delete_right_after_last_close, TIMEOUT)
{
	int fd, i;

	for (i = 0; i < NR_DEL_TRIES / 20; i++) {
		ASSERT_EQ(0, ue_dyn_cmd("u:" EV_DEL " u32 a; u64 b\n"))
			TH_LOG("try %d", i);
		fd = open_reg(EV_DEL " u32 a; u64 b", 0, &enable_word, 0);
		ASSERT_LE(0, fd);
		ASSERT_EQ(-EBUSY, ue_dyn_cmd("-:" EV_DEL " u32 a; u64 b\n"));
		if (i % 2) {
			ASSERT_EQ(0, ue_unreg(fd, &enable_word, 0));
			ASSERT_EQ(-EBUSY,
				  ue_dyn_cmd("-:" EV_DEL " u32 a; u64 b\n"));
			close(fd);
		} else {
			close(fd);
			ASSERT_EQ(-EBUSY,
				  ue_dyn_cmd("-:" EV_DEL " u32 a; u64 b\n"))
				TH_LOG("try %d: the registration went with close()",
				       i);
			ASSERT_EQ(0, ue_unreg_own(&enable_word, 0));
		}
		ASSERT_TRUE(ue_event_exists(NULL, EV_DEL)) TH_LOG("try %d", i);
		ASSERT_EQ(0, ue_dyn_cmd("-:" EV_DEL " u32 a; u64 b\n"))
			TH_LOG("try %d", i);
		ASSERT_FALSE(ue_event_exists(NULL, EV_DEL));
	}
	EXPECT_FALSE(event_left(EV_DEL));
}

/*
 * A child that registered a persistent event on its own file and exited:
 * once waitpid() has reaped it, DIAG_IOCSDEL succeeds.  Likewise once
 * a child and its parent have both unregistered the registration the
 * child inherited and the parent has closed the file, or once a child
 * that inherited a registration whose file was closed before the fork
 * has exited and the parent has unregistered its own.
 */
TEST_F_TIMEOUT(life, del_right_after_child_exit, TIMEOUT)
{
	int status = 0, i;
	pid_t pid;

	for (i = 0; i < 30; i++) {
		pid = ue_fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			int fd = open_reg(EV_CHILD " u32 a",
					  USER_EVENT_REG_PERSIST,
					  &enable_word, 0);

			_exit(fd < 0 ? 10 : 0);
		}
		ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
		ASSERT_EQ(0, ue_exit_code(status)) TH_LOG("try %d", i);
		ASSERT_EQ(0, ue_del(EV_CHILD)) TH_LOG("try %d", i);
	}

	/*
	 * A child inherits the registration (the file is the parent's): the
	 * child's UNREG and exit and the parent's UNREG leave the file's
	 * write index, then the parent's close() the event unreferenced.
	 */
	for (i = 0; i < 10; i++) {
		self->fd = open_reg(EV_CHILD " u32 a", USER_EVENT_REG_PERSIST,
				    &enable_word, 0);
		ASSERT_LE(0, self->fd);
		pid = ue_fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(ue_unreg(self->fd, &enable_word, 0) ? 10 : 0);
		ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
		ASSERT_EQ(0, ue_exit_code(status)) TH_LOG("try %d", i);
		ASSERT_EQ(-EBUSY, ue_del(EV_CHILD));
		ASSERT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
		ASSERT_EQ(-EBUSY, ue_del(EV_CHILD));
		close(self->fd);
		self->fd = -1;
		ASSERT_EQ(0, ue_del(EV_CHILD)) TH_LOG("try %d", i);
	}

	/* No file at all: the registrations alone, the child's by exit */
	for (i = 0; i < 10; i++) {
		self->fd = open_reg(EV_CHILD " u32 a", USER_EVENT_REG_PERSIST,
				    &enable_word, 0);
		ASSERT_LE(0, self->fd);
		close(self->fd);
		self->fd = -1;
		pid = ue_fork();
		ASSERT_LE(0, pid);
		/* Half the children end their copy, half exit with it */
		if (pid == 0)
			_exit(i % 2 && ue_unreg_own(&enable_word, 0) ? 10 : 0);
		ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
		ASSERT_EQ(0, ue_exit_code(status)) TH_LOG("try %d", i);
		ASSERT_EQ(-EBUSY, ue_del(EV_CHILD));
		ASSERT_EQ(0, ue_unreg_own(&enable_word, 0));
		ASSERT_EQ(0, ue_del(EV_CHILD)) TH_LOG("try %d", i);
	}
	EXPECT_FALSE(event_left(EV_CHILD));
}

/* Right after perf closes a persistent event, it can be deleted */
TEST_F_TIMEOUT(life, del_right_after_perf_close, TIMEOUT)
{
	int pfd, i;

	if (!ue_exists(PERF_PARANOID))
		SKIP(return, "no perf events (CONFIG_PERF_EVENTS?)");
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_PERF " u32 a\n"));
	for (i = 0; i < 50; i++) {
		pfd = ue_perf_open(NULL, EV_PERF);
		ASSERT_LE(0, pfd) TH_LOG("try %d", i);
		ASSERT_EQ(-EBUSY, ue_del(EV_PERF));
		close(pfd);
		ASSERT_EQ(0, ue_del(EV_PERF)) TH_LOG("try %d", i);
		ASSERT_EQ(0, ue_dyn_cmd("u:" EV_PERF " u32 a\n"));
	}
	ASSERT_EQ(0, ue_del(EV_PERF));
	EXPECT_FALSE(event_left(EV_PERF));
}

/*
 * A plain event whose last registration went (its file closed, then the
 * registration, which outlives the file, unregistered through another
 * one) while a tool had it enabled goes when the tool lets go.  Right
 * after the tool's close() or disable returns, nothing holds the event
 * any more: DIAG_IOCSDEL never answers
 * EBUSY (it deletes the event, or finds it already gone), and a program
 * that registers the name with other fields is never refused with
 * EADDRINUSE because of it.
 */
TEST_F_TIMEOUT(life, never_busy_after_tool_lets_go, TIMEOUT)
{
	bool perf = ue_exists(PERF_PARANOID);
	bool use_perf, del;
	int fd, pfd = -1, ret, i;

	for (i = 0; i < 80; i++) {
		use_perf = perf && i % 2;
		del = i % 4 < 2;
		fd = open_reg(EV_TOOL " u32 a", 0, &enable_word, 0);
		ASSERT_LE(0, fd);
		if (use_perf) {
			pfd = ue_perf_open(NULL, EV_TOOL);
			ASSERT_LE(0, pfd);
		} else {
			ASSERT_EQ(0, ue_enable(EV_TOOL, true));
		}
		ASSERT_EQ(1, enable_word);
		close(fd);
		ASSERT_EQ(0, ue_unreg_own(&enable_word, 0)) TH_LOG("try %d", i);
		ASSERT_EQ(0, enable_word);
		ASSERT_TRUE(ue_event_exists(NULL, EV_TOOL)) TH_LOG("try %d", i);

		if (use_perf)
			close(pfd);
		else
			ASSERT_EQ(0, ue_enable(EV_TOOL, false));

		if (del) {
			ret = ue_del(EV_TOOL);
			ASSERT_TRUE(ret == 0 || ret == -ENOENT)
				TH_LOG("try %d (%s): DEL %d", i,
				       use_perf ? "perf" : "ftrace", ret);
		} else {
			fd = open_reg(EV_TOOL " u64 b", 0, &enable_word, 0);
			ASSERT_LE(0, fd) TH_LOG("try %d (%s): REG %d", i,
						use_perf ? "perf" : "ftrace", fd);
			ASSERT_EQ(0, ue_unreg(fd, &enable_word, 0));
			close(fd);
		}
		ASSERT_TRUE(ue_wait_gone(NULL, EV_TOOL, 5000));
	}
	EXPECT_FALSE(event_left(EV_TOOL));
}

#define BUSY_DEL_CMD	"-:" EV_BUSY " u32 a\n"

/*
 * Delete EV_BUSY with DIAG_IOCSDEL (or "-:" when @dyn): EBUSY, and the
 * error_log entry says @why
 */
static void expect_busy(struct __test_metadata *_metadata, bool dyn,
			const char *why)
{
	char msg[256];

	ASSERT_EQ(0, ue_errlog_clear());
	EXPECT_EQ(-EBUSY, dyn ? ue_dyn_cmd(BUSY_DEL_CMD) : ue_del(EV_BUSY))
		TH_LOG("%s, %s", dyn ? "-:" : "DIAG_IOCSDEL", why);
	ASSERT_EQ(0, ue_errlog_msg(EV_BUSY, msg, sizeof(msg)));
	EXPECT_STREQ(why, msg);
}

/*
 * Delete while referenced: EBUSY from DIAG_IOCSDEL and from "-:", and
 * error_log names the reference: a registration (with its file, or just
 * the file that handed out the write index, or just the registration
 * after its file's close), ftrace, perf.
 */
TEST_F_TIMEOUT(life, busy_names_the_reference, TIMEOUT)
{
	int pfd;

	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_BUSY " u32 a\n"));

	/* Registered */
	self->fd = open_reg(EV_BUSY " u32 a", 0, &enable_word, 0);
	ASSERT_LE(0, self->fd);
	expect_busy(_metadata, false, "user_events: error: " BUSY_REFS);
	expect_busy(_metadata, true, "user_events: error: " BUSY_REFS);

	/* Only the file's write index */
	ASSERT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	expect_busy(_metadata, false, "user_events: error: " BUSY_REFS);
	close(self->fd);
	self->fd = -1;

	/* Only a registration, whose file is closed */
	self->fd = open_reg(EV_BUSY " u32 a", 0, &enable_word, 0);
	ASSERT_LE(0, self->fd);
	close(self->fd);
	self->fd = -1;
	expect_busy(_metadata, false, "user_events: error: " BUSY_REFS);
	expect_busy(_metadata, true, "user_events: error: " BUSY_REFS);
	ASSERT_EQ(0, ue_unreg_own(&enable_word, 0));

	/* Enabled in ftrace */
	ASSERT_EQ(0, ue_enable(EV_BUSY, true));
	expect_busy(_metadata, false, "user_events: error: " BUSY_FTRACE);
	expect_busy(_metadata, true, "user_events: error: " BUSY_FTRACE);
	ASSERT_EQ(0, ue_enable(EV_BUSY, false));

	/* Open in perf */
	pfd = ue_perf_open(NULL, EV_BUSY);
	if (pfd >= 0) {
		expect_busy(_metadata, false, "user_events: error: " BUSY_PERF);
		close(pfd);
	} else {
		TH_LOG("perf_event_open: %d, perf case not run", pfd);
	}

	/* Nothing */
	EXPECT_EQ(0, ue_dyn_cmd(BUSY_DEL_CMD));
	EXPECT_FALSE(event_left(EV_BUSY));
}

/*
 * What a process may do with PERSIST, MULTI_FORMAT, DIAG_IOCSDEL and
 * dynamic_events given @caps dropped.  CAP_PERFMON is what the ABI asks
 * for, and the kernel's perfmon_capable() also accepts CAP_SYS_ADMIN: only
 * without both do the persistent operations fail with EPERM.  Returns 0,
 * or the number of the first step that went wrong.
 */
static int caps_child(const int *caps, int n, bool allowed)
{
	int want = allowed ? 0 : -EPERM;
	char msg[256], ids[4][64];
	__u32 word = 0;
	int fd, fd2, bit;

	if (ue_drop_caps(caps, n))
		return 1;
	fd = ue_open();
	if (fd < 0)
		return 2;

	/* Registering a persistent event, multi-format or not */
	if (ue_reg_flags(fd, EV_CAP_P " u32 a", USER_EVENT_REG_PERSIST,
			 &word, 4, 0, NULL) != want)
		return 3;
	if (ue_reg_flags(fd, EV_CAP_PM " u32 a", USER_EVENT_REG_PERSIST |
			 USER_EVENT_REG_MULTI_FORMAT, &word, 4, 1, NULL) != want)
		return 4;
	/* MULTI_FORMAT alone needs nothing */
	if (ue_reg_flags(fd, EV_CAP_M " u32 a", USER_EVENT_REG_MULTI_FORMAT,
			 &word, 4, 2, NULL))
		return 5;
	if (ue_multi_ids(EV_CAP_M, ids, 4) != 1)
		return 6;

	/* An existing persistent event: using it needs nothing */
	if (ue_reg(fd, EV_CAP_E " u32 a", &word, 3, NULL))
		return 7;
	if (ue_reg_flags(fd, EV_CAP_E " u32 a", USER_EVENT_REG_PERSIST,
			 &word, 4, 4, NULL) != want)
		return 8;

	/* Deleting a persistent event; a plain busy one is just EBUSY */
	ue_errlog_clear();
	if (ue_del(EV_CAP_D) != want)
		return 9;
	if (!allowed && (ue_errlog_msg(EV_CAP_D, msg, sizeof(msg)) ||
			 strcmp(msg, "user_events: error: " NOT_PERMITTED)))
		return 10;
	if (ue_del(EV_CAP_DM) != want)
		return 11;
	if (ue_del(EV_CAP_M) != -EBUSY)
		return 12;

	/* dynamic_events: create, and delete once nothing uses it */
	if (ue_dyn_cmd("u:" EV_CAP_U " u32 a\n") != want)
		return 13;
	close(fd);
	/* The registrations outlived the file: end each (bits 0..4) */
	fd2 = ue_open();
	if (fd2 < 0)
		return 14;
	for (bit = 0; bit < 5; bit++)
		if (ue_unreg(fd2, &word, bit) !=
		    (allowed || bit == 2 || bit == 3 ? 0 : -ENOENT))
			return 15;
	if (ue_dyn_cmd("-:" EV_CAP_E " u32 a\n") != want)
		return 16;

	/* The multi-format event went with the file and the registration */
	if (ue_multi_ids(EV_CAP_M, ids, 4) != 0)
		return 17;
	/* Deleting a missing event is ENOENT with or without */
	if (ue_del_fd(fd2, EV_CAP_M) != -ENOENT)
		return 18;
	close(fd2);
	return 0;
}

TEST_F_TIMEOUT(life, persist_and_multi_caps, TIMEOUT)
{
	static const int perfmon[] = { CAP_PERFMON };
	static const int sys_admin[] = { CAP_SYS_ADMIN };
	static const int both[] = { CAP_PERFMON, CAP_SYS_ADMIN };
	static const struct {
		const char *what;
		const int *caps;
		int n;
		bool allowed;
	} cases[] = {
		{ "all capabilities",		NULL,		0, true },
		{ "without CAP_PERFMON",	perfmon,	1, true },
		{ "without CAP_SYS_ADMIN",	sys_admin,	1, true },
		{ "without both",		both,		2, false },
	};
	char ids[4][64];
	unsigned int i;
	int status = 0, code;
	pid_t pid;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cleanup_all();
		/* Made by a privileged process beforehand */
		ASSERT_EQ(0, ue_dyn_cmd("u:" EV_CAP_D " u32 a\n"));
		ASSERT_EQ(0, ue_dyn_cmd("u:" EV_CAP_E " u32 a\n"));
		self->fd = open_reg(EV_CAP_DM " u32 a", USER_EVENT_REG_PERSIST |
				    USER_EVENT_REG_MULTI_FORMAT,
				    &enable_word, 0);
		ASSERT_LE(0, self->fd);
		close(self->fd);
		self->fd = -1;
		ASSERT_EQ(0, ue_unreg_own(&enable_word, 0));
		ASSERT_EQ(1, ue_multi_ids(EV_CAP_DM, ids, 4));

		pid = ue_fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(caps_child(cases[i].caps, cases[i].n,
					 cases[i].allowed));
		ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
		code = ue_exit_code(status);
		EXPECT_EQ(0, code) TH_LOG("%s: step %d", cases[i].what, code);

		/* What persisted, or not */
		EXPECT_EQ(cases[i].allowed, ue_event_exists(NULL, EV_CAP_P))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ((int)cases[i].allowed,
			  ue_multi_ids(EV_CAP_PM, ids, 4))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(!cases[i].allowed, ue_event_exists(NULL, EV_CAP_D))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ((int)!cases[i].allowed,
			  ue_multi_ids(EV_CAP_DM, ids, 4))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(cases[i].allowed, ue_event_exists(NULL, EV_CAP_U))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(!cases[i].allowed, ue_event_exists(NULL, EV_CAP_E))
			TH_LOG("%s", cases[i].what);
		EXPECT_FALSE(event_left(EV_CAP_M)) TH_LOG("%s", cases[i].what);
	}
}

/* The dynamic_events line of @sys/@name (NULL: user_events), or "" */
static void dyn_line(const char *sys, const char *name, char *line,
		     size_t size)
{
	char *buf = ue_read_tracefs("dynamic_events");
	char prefix[160];
	size_t n;
	char *p;

	line[0] = '\0';
	n = snprintf(prefix, sizeof(prefix), "u:%s%s%s", sys ? sys : "",
		     sys ? "/" : "", name);
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, prefix, n) &&
		    (p[n] == ' ' || p[n] == '\n' || !p[n])) {
			snprintf(line, size, "%.*s",
				 (int)(strchrnul(p, '\n') - p), p);
			break;
		}
	}
	free(buf);
}

/* Index of @id in @ids[@n], or -1 */
static int find_id(char ids[][64], int n, const char *id)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(ids[i], id))
			return i;
	return -1;
}

/*
 * Multi-format events over their lifetime: persistent formats keep their
 * tracepoint (registering the same fields later shares it); single- and
 * multi-format events of one name never match, whatever their fields;
 * dynamic_events lists each format, and "-:" or "!u:" with the listed
 * name deletes exactly that one; DIAG_IOCSDEL of the name deletes every
 * event of it that can be deleted and says EBUSY (naming the busy
 * format) when one stays.
 */
TEST_F_TIMEOUT(life, multi_format_lifetime, TIMEOUT)
{
	static const char * const fields[] = {
		"u32 a", "u64 a", "char[4] s", "__data_loc char[] s",
	};
	char ids[8][64], tp[4][64], line[320], want[320], cmd[320], msg[256];
	int i, n, fd, idx_single = -1, idx_multi = -1;
	__u16 pm = USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT;

	/* Four persistent formats, each with a hex id of its own */
	for (i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), EV_MF " %s", fields[i]);
		fd = open_reg(cmd, pm, &enable_word, 0);
		ASSERT_LE(0, fd) TH_LOG("%s", cmd);
		close(fd);
		ASSERT_EQ(0, ue_unreg_own(&enable_word, 0));
		n = ue_multi_ids(EV_MF, ids, 8);
		ASSERT_EQ(i + 1, n);
		/* The new one is the one not seen yet */
		for (n = 0; n <= i; n++)
			if (find_id(tp, i, ids[n]) < 0)
				break;
		ASSERT_GE(i, n);
		snprintf(tp[i], sizeof(tp[i]), "%s", ids[n]);
	}
	EXPECT_FALSE(ue_event_exists(NULL, EV_MF));

	/* Same fields later: the same tracepoint; new fields: a new one */
	fd = open_reg(EV_MF " u64 a", USER_EVENT_REG_MULTI_FORMAT,
		      &enable_word, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_unreg(fd, &enable_word, 0));
	close(fd);
	ASSERT_EQ(4, ue_multi_ids(EV_MF, ids, 8));

	/* Single-format, other fields than any multi format: no conflict */
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ue_reg(self->fd, EV_MF " u16 x", &enable_word, 0,
			    &idx_single));
	EXPECT_TRUE(ue_event_exists(NULL, EV_MF));
	ASSERT_EQ(4, ue_multi_ids(EV_MF, ids, 8));
	/* and a multi format with the single one's fields is new */
	ASSERT_EQ(0, ue_reg_flags(self->fd, EV_MF " u16 x",
				  USER_EVENT_REG_MULTI_FORMAT, &enable_word,
				  4, 1, &idx_multi));
	EXPECT_NE(idx_single, idx_multi);
	ASSERT_EQ(5, ue_multi_ids(EV_MF, ids, 8));
	/* the single-format name is taken, with other fields: EADDRINUSE */
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_MF " u32 a", &enable_word,
				      2, NULL));
	close(self->fd);
	self->fd = -1;
	/* The registrations hold both after the close */
	EXPECT_TRUE(ue_event_exists(NULL, EV_MF));
	ASSERT_EQ(5, ue_multi_ids(EV_MF, ids, 8));
	ASSERT_EQ(0, ue_unreg_own(&enable_word, 1));
	ASSERT_EQ(4, ue_multi_ids(EV_MF, ids, 8));
	EXPECT_TRUE(ue_event_exists(NULL, EV_MF));
	ASSERT_EQ(0, ue_unreg_own(&enable_word, 0));
	EXPECT_FALSE(ue_event_exists(NULL, EV_MF));

	/* dynamic_events lists each format under its tracepoint name */
	for (i = 0; i < 4; i++) {
		dyn_line(USER_EVENTS_MULTI_SYSTEM, tp[i], line, sizeof(line));
		snprintf(want, sizeof(want), "u:%s/%s %s",
			 USER_EVENTS_MULTI_SYSTEM, tp[i], fields[i]);
		EXPECT_STREQ(want, line);
	}

	/* Deleting one format needs its exact name and fields */
	snprintf(cmd, sizeof(cmd), "-:%s/%s u32 b\n", USER_EVENTS_MULTI_SYSTEM,
		 tp[0]);
	EXPECT_EQ(-ENOENT, ue_dyn_cmd(cmd));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" EV_MF " u32 a\n"));
	EXPECT_EQ(-ENOENT, ue_dyn_cmd("-:" USER_EVENTS_SYSTEM "/" EV_MF
				      " u32 a\n"));
	ASSERT_EQ(4, ue_multi_ids(EV_MF, ids, 8));

	/* "-:" with the listed name deletes exactly that format */
	snprintf(cmd, sizeof(cmd), "-:%s/%s %s\n", USER_EVENTS_MULTI_SYSTEM,
		 tp[0], fields[0]);
	ASSERT_EQ(0, ue_dyn_cmd(cmd));
	n = ue_multi_ids(EV_MF, ids, 8);
	ASSERT_EQ(3, n);
	EXPECT_EQ(-1, find_id(ids, n, tp[0]));
	/* so does "!u:" */
	snprintf(cmd, sizeof(cmd), "!u:%s/%s %s\n", USER_EVENTS_MULTI_SYSTEM,
		 tp[1], fields[1]);
	ASSERT_EQ(0, ue_dyn_cmd(cmd));
	n = ue_multi_ids(EV_MF, ids, 8);
	ASSERT_EQ(2, n);
	EXPECT_EQ(-1, find_id(ids, n, tp[1]));
	EXPECT_LE(0, find_id(ids, n, tp[2]));
	EXPECT_LE(0, find_id(ids, n, tp[3]));

	/*
	 * DIAG_IOCSDEL of the name: the single-format event of that name
	 * and every multi format go, but the one ftrace has enabled.
	 */
	ASSERT_EQ(0, ue_dyn_cmd("u:" EV_MF " u16 x\n"));
	ASSERT_EQ(0, ue_enable_sys(USER_EVENTS_MULTI_SYSTEM, tp[3], true));
	ASSERT_EQ(0, ue_errlog_clear());
	EXPECT_EQ(-EBUSY, ue_del(EV_MF));
	ASSERT_EQ(0, ue_errlog_msg(tp[3], msg, sizeof(msg)));
	EXPECT_STREQ("user_events: error: " BUSY_FTRACE, msg);
	EXPECT_FALSE(ue_event_exists(NULL, EV_MF));
	n = ue_multi_ids(EV_MF, ids, 8);
	ASSERT_EQ(1, n);
	EXPECT_STREQ(tp[3], ids[0]);
	ASSERT_EQ(0, ue_enable_sys(USER_EVENTS_MULTI_SYSTEM, tp[3], false));
	EXPECT_EQ(0, ue_del(EV_MF));
	EXPECT_FALSE(event_left(EV_MF));
	EXPECT_EQ(-ENOENT, ue_del(EV_MF));
}

/*
 * Unknown flag bits are EINVAL and leave nothing behind, so a caller can
 * retry with the flags it knows: the ABI document's compatibility advice.
 * Unknown bits are refused before CAP_PERFMON is looked at.
 */
/*
 * An eprobe on a user event ("e:NAME user_events.EVENT") holds the event
 * while it exists, enabled or not, and lets it go without the event
 * being asked.  Once the eprobe, the registration and the file are gone,
 * the non-persistent event goes too (the core says when the eprobe let go):
 * from tracefs, dynamic_events, the status file and its counts.
 */
TEST_F_TIMEOUT(life, eprobe_is_the_last_reference, TIMEOUT)
{
	char path[UE_PATH_MAX], ep_enable[UE_PATH_MAX];
	long active = -1, base = -1, busy;
	int round, ret;

	if (!ue_exists(ue_path(path, "kprobe_events")) &&
	    !ue_exists(ue_path(path, "uprobe_events")))
		SKIP(return, "no probe events (CONFIG_PROBE_EVENTS?)");
	ue_path(ep_enable, "events/eprobes/%s/enable", EPROBE);
	ASSERT_EQ(0, ue_status_counts(&base, &busy));

	/* Round 0: the eprobe never enabled; round 1: enabled, then not */
	for (round = 0; round < 2; round++) {
		self->fd = ue_open();
		ASSERT_LE(0, self->fd);
		ASSERT_EQ(0, ue_reg(self->fd, EV_EPROBE " u32 a", &enable_word,
				    0, NULL));
		ret = ue_dyn_cmd("e:" EPROBE " " USER_EVENTS_SYSTEM "."
				 EV_EPROBE "\n");
		ASSERT_EQ(0, ret) TH_LOG("round %d: e: fails with %d", round, ret);
		if (round) {
			ASSERT_EQ(0, ue_write_str(ep_enable, "1"));
			EXPECT_EQ(1, enable_word);
		}

		/* The eprobe alone holds it */
		EXPECT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
		close(self->fd);
		self->fd = -1;
		EXPECT_TRUE(ue_event_exists(NULL, EV_EPROBE)) TH_LOG("round %d", round);
		EXPECT_EQ(-EBUSY, ue_del(EV_EPROBE));
		if (round)
			ASSERT_EQ(0, ue_write_str(ep_enable, "0"));
		usleep(300 * 1000);
		EXPECT_TRUE(ue_event_exists(NULL, EV_EPROBE)) TH_LOG("round %d", round);

		/* Its last reference of any kind */
		ASSERT_EQ(0, ue_dyn_cmd("-:" EPROBE "\n"));
		EXPECT_TRUE(ue_wait_gone(NULL, EV_EPROBE, 2000))
			TH_LOG("round %d: still there 2 s after the eprobe went",
			       round);
		EXPECT_FALSE(event_left(EV_EPROBE)) TH_LOG("round %d", round);
		ASSERT_EQ(0, ue_status_counts(&active, &busy));
		EXPECT_EQ(base, active) TH_LOG("round %d", round);
		EXPECT_EQ(-ENOENT, ue_del(EV_EPROBE));
	}
}

TEST_F_TIMEOUT(life, unknown_flags_then_retry, TIMEOUT)
{
	static const __u16 known = USER_EVENT_REG_PERSIST |
				   USER_EVENT_REG_MULTI_FORMAT;
	static const int both[] = { CAP_PERFMON, CAP_SYS_ADMIN };
	char ids[4][64];
	__u16 flags;
	int bit, ret, status = 0;
	pid_t pid;

	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	for (bit = 2; bit < 16; bit++) {
		flags = known | (1U << bit);
		ret = ue_reg_flags(self->fd, EV_FLAGS " u32 a", flags,
				   &enable_word, 4, 0, NULL);
		ASSERT_EQ(-EINVAL, ret) TH_LOG("flags %#x", flags);
		/* Nothing created, the address and bit still free */
		ASSERT_EQ(0, ue_multi_ids(EV_FLAGS, ids, 4));
		ASSERT_FALSE(ue_event_exists(NULL, EV_FLAGS));

		/* The retry with the flags this kernel knows */
		flags &= USER_EVENT_REG_MAX - 1;
		ASSERT_EQ(0, ue_reg_flags(self->fd, EV_FLAGS " u32 a", flags,
					  &enable_word, 4, 0, NULL))
			TH_LOG("flags %#x", flags);
		ASSERT_EQ(1, ue_multi_ids(EV_FLAGS, ids, 4));
		ASSERT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
		ASSERT_EQ(-EBUSY, ue_del(EV_FLAGS));
		close(self->fd);
		self->fd = -1;
		/* persistent: still there, and deletable at once */
		ASSERT_EQ(1, ue_multi_ids(EV_FLAGS, ids, 4));
		ASSERT_EQ(0, ue_del(EV_FLAGS));
		self->fd = ue_open();
		ASSERT_LE(0, self->fd);
	}

	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (ue_drop_caps(both, 2))
			_exit(10);
		if (ue_reg_flags(self->fd, EV_FLAGS " u32 a",
				 USER_EVENT_REG_PERSIST | 0x8000, &enable_word,
				 4, 0, NULL) != -EINVAL)
			_exit(11);
		if (ue_reg_flags(self->fd, EV_FLAGS " u32 a",
				 USER_EVENT_REG_PERSIST, &enable_word, 4, 0,
				 NULL) != -EPERM)
			_exit(12);
		if (ue_reg_flags(self->fd, EV_FLAGS " u32 a", 0, &enable_word,
				 4, 0, NULL))
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status))
		TH_LOG("child step %d failed", ue_exit_code(status));
	close(self->fd);
	self->fd = -1;
	EXPECT_FALSE(event_left(EV_FLAGS));
}

/* Read trace_pipe until killed, throwing the text away */
static void drain_trace_pipe(void)
{
	char path[UE_PATH_MAX], buf[4096];
	int fd = open(ue_path(path, "trace_pipe"), O_RDONLY);

	if (fd < 0)
		_exit(10);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	_exit(0);
}

/* Write NR_USTK_RECORDS records of EV_USTK; 0 or -1 */
static int ustk_write(int fd, int idx)
{
	__u32 n;

	for (n = 0; n < NR_USTK_RECORDS; n++)
		if (ue_emit(fd, idx, &n, sizeof(n)) != sizeof(idx) + sizeof(n))
			return -1;
	return 0;
}

/*
 * A registrant of EV_USTK: once @go says so, write NR_USTK_RECORDS
 * records while the event is on, close its file, say so on @done, and
 * exit as soon as the event is off again.
 */
static void ustk_child(int go, int done)
{
	int fd, idx = 0, i;
	char c;

	fd = ue_open();
	if (fd < 0 || ue_reg(fd, EV_USTK " u32 n", &enable_word, 0, &idx))
		_exit(10);
	if (write(done, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(11);
	if (ue_word_wait(&enable_word, 1, 60000) != 1)
		_exit(12);
	if (ustk_write(fd, idx))
		_exit(13);
	/* The registration alone holds the event now: the mm drops it */
	close(fd);
	if (write(done, "w", 1) != 1)
		_exit(14);
	for (i = 0; i < 60000; i++) {
		if (!__atomic_load_n(&enable_word, __ATOMIC_SEQ_CST))
			break;
		usleep(100);
	}
	_exit(0);
}

/*
 * With the userstacktrace and sym-userobj options set, a trace reader
 * holds each recorded task's mm while it prints the record's user stack,
 * with the trace core's trace_event_sem held for reading.  A registrant
 * that exits meanwhile leaves its mm's last user to the reader, and the
 * reader's mmput() drops the mm's registrations: if that dropped an
 * event's last reference there, deleting the event would wait for
 * trace_event_sem under event_mutex, and the reader, every later
 * registration and every tracing write with it, would hang.  In each
 * round registrants write records with user stacks and exit, their
 * event off by then, while a reader prints them: every round must end
 * and the event must go each time.
 */
TEST_F_TIMEOUT(life, exit_while_reader_prints_user_stacks, TIMEOUT)
{
	int status = 0, round, go[2], done[2], i;
	pid_t reader, pids[NR_USTK_PROCS];
	char path[UE_PATH_MAX], c;

	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_write_str(ue_path(path, "options/userstacktrace"),
				  "1"));
	ASSERT_EQ(0, ue_write_str(ue_path(path, "options/sym-userobj"), "1"));
	reader = ue_fork();
	ASSERT_LE(0, reader);
	if (reader == 0)
		drain_trace_pipe();

	for (round = 0; round < NR_USTK_ROUNDS; round++) {
		ASSERT_EQ(0, pipe(go));
		ASSERT_EQ(0, pipe(done));
		for (i = 0; i < NR_USTK_PROCS; i++) {
			pids[i] = ue_fork();
			ASSERT_LE(0, pids[i]);
			if (pids[i] == 0)
				ustk_child(go[0], done[1]);
		}
		for (i = 0; i < NR_USTK_PROCS; i++)
			ASSERT_EQ(1, read(done[0], &c, 1)) TH_LOG("round %d", round);
		ASSERT_EQ(0, ue_enable(EV_USTK, true));
		for (i = 0; i < NR_USTK_PROCS; i++)
			ASSERT_EQ(1, write(go[1], "g", 1));
		for (i = 0; i < NR_USTK_PROCS; i++)
			ASSERT_EQ(1, read(done[0], &c, 1)) TH_LOG("round %d", round);
		/* They exit while the reader still prints their records */
		ASSERT_EQ(0, ue_enable(EV_USTK, false));
		for (i = 0; i < NR_USTK_PROCS; i++) {
			ASSERT_EQ(0, ue_wait_child(pids[i], 120000, &status))
				TH_LOG("round %d: a registrant did not finish",
				       round);
			ASSERT_EQ(0, ue_exit_code(status)) TH_LOG("round %d", round);
		}
		ASSERT_TRUE(ue_wait_gone(NULL, EV_USTK, 120000))
			TH_LOG("round %d: the event stayed", round);
		close(go[0]);
		close(go[1]);
		close(done[0]);
		close(done[1]);
	}

	kill(reader, SIGKILL);
	ASSERT_EQ(0, ue_wait_child(reader, 120000, &status));
	ue_write_str(ue_path(path, "options/sym-userobj"), "0");
	ue_write_str(ue_path(path, "options/userstacktrace"), "0");
	EXPECT_FALSE(event_left(EV_USTK));
}

TEST_HARNESS_MAIN
