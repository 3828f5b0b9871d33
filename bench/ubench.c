// SPDX-License-Identifier: GPL-2.0
/*
 * ubench: what user_events costs, measured in one boot of a kernel.
 *
 * Runs as root in the guest (see scripts/bench.sh) and prints one line per
 * figure, "name value unit rounds", for bench/report.py to lay out:
 *
 *   per operation (ns), 32-byte payload, median over interleaved rounds:
 *     a null syscall, write()/writev() to /dev/null, trace_marker,
 *     trace_marker_raw, user_events write()/writev() with ftrace on, with
 *     perf on and with nothing attached, the enabled-bit check, a uprobe
 *     hit recording the same 32 bytes, a kernel TRACE_EVENT() (task_rename,
 *     which prctl(PR_SET_NAME) fires); some of them from two threads at
 *     once;
 *   toggling an event's enable file with 200 processes registered to it,
 *     alone and while they also hold 50 unrelated registrations each, and
 *     enabling and disabling back to back;
 *   registering new events and existing events (per second) and the slab
 *     memory each takes;
 *   fork() with 1000 registrations against fork() with none.
 *
 * Each figure of a group is measured in rounds that run every operation of
 * the group once, one after the other, so that a change of load on the host
 * (TCG guests drift by 2x) hits all of them alike; the figure is the median
 * of its rounds.  Nothing here asserts a time: the program reports.
 *
 * Usage: ubench [-q] [-r ROUNDS] [-o OPS]
 *   -q        fewer rounds (a quick correctness run)
 *   -r N      rounds of the per-operation group (default 31)
 *   -o LIST   only these per-operation figures (comma-separated names),
 *             looping for -t seconds (for perf record); skips the rest
 *   -t SEC    with -o: seconds to loop (default 10)
 *   -v        print every sample of the toggle figures
 *   -p N      processes registered to the toggled event (default 200)
 *   -P        only the per-operation figures (rounds as usual)
 *   -F        only the registration and fork figures
 *   -T        with -P or -o: another thread of this process sleeps
 *             meanwhile (what a multi-threaded program's write() costs)
 *   -c        counting mode (QEMU -icount, one vCPU: the clock advances
 *             one nanosecond per guest instruction, so every figure is an
 *             instruction count): let the system quiesce before each group
 *             and each batch of setup work, so that deferred work (RCU
 *             callbacks, work items) of an earlier phase is not counted
 *             in a later figure
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "bench_util.h"

#define TRACEFS		"/sys/kernel/tracing"
#define PAYLOAD		32
#define BATCH		2000
#define NUNREL		50	/* unrelated registrations of each of them */
#define NREG		1000	/* registrations for the fork figure */
#define REG_ROUND	200	/* new events per registration round */
#define PERF_PAGES	256	/* perf ring: 1 MiB, drained after each batch */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int quick, verbose, counting;
static int rounds_ops = 31;
static int nprocs = 200;	/* processes registered to the toggled event */

static void die(const char *what)
{
	fprintf(stderr, "ubench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Where we are, on stderr (the console), with the time since the start */
static void progress(const char *what)
{
	static uint64_t start;
	uint64_t t = now_ns();

	if (!start)
		start = t;
	fprintf(stderr, "ubench: %7.2f s %s\n", (t - start) / 1e9, what);
}

/* One result line; report.py reads these */
static void result(const char *name, double value, const char *unit, int n)
{
	progress(name);
	printf("R %-22s %14.3f %-8s %d\n", name, value, unit, n);
	fflush(stdout);
}

static void result_na(const char *name, const char *why)
{
	printf("R %-22s %14s %-8s 0 %s\n", name, "NA", "-", why);
	fflush(stdout);
}

static int write_str(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, s, strlen(s));
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret < 0 ? (int)ret : 0;
}

static long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/*
 * A field of /proc/meminfo, in kB.  The kernel folds its per-CPU counters
 * into these only now and then (up to 125 pages per CPU behind): writing
 * vm/stat_refresh folds them at once.
 */
static long meminfo(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long v = -1;
	FILE *f;

	f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * Bytes of slab objects in use: the sum over /proc/slabinfo of active
 * objects times their size (-1 without slabinfo).
 */
static long slab_obj_bytes(void)
{
	char line[512], name[64];
	long active, total, size, sum = 0;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld %ld %ld", name, &active, &total, &size) == 4)
			sum += active * size;
	fclose(f);
	return sum;
}

/*
 * Let freeing that waits for RCU (kfree_rcu() of replaced arrays) happen,
 * then fold the per-CPU memory counters, so that meminfo() is current.
 */
static void mem_settle(void)
{
	syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	usleep(50000);
	write_str("/proc/sys/vm/stat_refresh", "1", 0);
}

/* bench_settle() in counting mode only */
static void settle(void)
{
	if (counting)
		bench_settle();
}

/*
 * user_events
 */

static int ue_open(void)
{
	int fd = open(TRACEFS "/user_events_data", O_RDWR);

	if (fd < 0)
		die("open user_events_data");
	return fd;
}

/* Register @cmd with bit @bit of @word; the write index or -errno */
static int ue_reg(int fd, const char *cmd, uint32_t *word, int bit)
{
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = bit,
		.enable_size = sizeof(*word),
		.enable_addr = (uintptr_t)word,
		.name_args = (uintptr_t)cmd,
	};

	if (ioctl(fd, DIAG_IOCSREG, &reg) < 0)
		return -errno;
	return reg.write_index;
}

static int ue_unreg(int fd, uint32_t *word, int bit)
{
	struct user_unreg unreg = {
		.size = sizeof(unreg),
		.disable_bit = bit,
		.disable_addr = (uintptr_t)word,
	};

	return ioctl(fd, DIAG_IOCSUNREG, &unreg) < 0 ? -errno : 0;
}

#define FIELDS "u64 a; u64 b; u64 c; u64 d"

/* The record of every write: index (or trace_marker_raw id) + payload */
struct rec {
	uint32_t idx;
	uint64_t v[PAYLOAD / 8];
} __attribute__((packed));

_Static_assert(sizeof(struct rec) == 4 + PAYLOAD, "packed");

/*
 * The per-operation figures
 */

static int null_fd, marker_fd, marker_raw_fd, ue_fd;
static struct rec rec_ftrace, rec_perf, rec_off, rec_raw;
static char marker_text[PAYLOAD + 1];
static uint32_t en_ftrace, en_perf, en_off;
static struct perf_event_mmap_page *perf_ring;
static int perf_fd = -1;
static volatile uint64_t sink;

struct op {
	const char *name;
	const char *what;
	int mult;			/* batch = BATCH * mult */
	void (*run)(int n);
	void (*after)(void);		/* untimed, after each batch */
	int ok;
	double *ns;
};

static void run_getppid(int n)
{
	while (n--)
		syscall(SYS_getppid);
}

static void do_write(int fd, const void *buf, size_t len, int n)
{
	while (n--)
		if (write(fd, buf, len) < 0)
			sink++;
}

static void do_writev(int fd, struct rec *r, int n)
{
	struct iovec iov[2] = {
		{ &r->idx, sizeof(r->idx) },
		{ r->v, sizeof(r->v) },
	};

	while (n--)
		if (writev(fd, iov, 2) < 0)
			sink++;
}

static void run_null_write(int n)  { do_write(null_fd, &rec_raw, sizeof(rec_raw), n); }
static void run_null_writev(int n) { do_writev(null_fd, &rec_raw, n); }
static void run_marker(int n)      { do_write(marker_fd, marker_text, PAYLOAD, n); }
static void run_marker_raw(int n)  { do_write(marker_raw_fd, &rec_raw, sizeof(rec_raw), n); }
static void run_ue_ftrace(int n)   { do_write(ue_fd, &rec_ftrace, sizeof(rec_ftrace), n); }
static void run_uev_ftrace(int n)  { do_writev(ue_fd, &rec_ftrace, n); }
static void run_ue_perf(int n)     { do_write(ue_fd, &rec_perf, sizeof(rec_perf), n); }
static void run_uev_perf(int n)    { do_writev(ue_fd, &rec_perf, n); }
static void run_ue_off(int n)      { do_write(ue_fd, &rec_off, sizeof(rec_off), n); }
static void run_uev_off(int n)     { do_writev(ue_fd, &rec_off, n); }

/* What a program does per event site while nobody listens */
static void run_bitcheck(int n)
{
	uint64_t hits = 0;

	while (n--) {
		if (__atomic_load_n(&en_off, __ATOMIC_RELAXED) & 1)
			hits++;
		asm volatile("" ::: "memory");
	}
	sink += hits;
}

/*
 * A kernel TRACE_EVENT() recorded through the same trace core: task_rename,
 * which prctl(PR_SET_NAME) fires even when the name stays the same
 */
static void run_tevent(int n)
{
	while (n--)
		prctl(PR_SET_NAME, "ubench", 0, 0, 0);
}

/* The uprobe's target: records its argument's 32 bytes */
__attribute__((noinline, used)) void ubench_uprobe_target(const void *p)
{
	asm volatile("" : : "r"(p) : "memory");
}

static void run_uprobe(int n)
{
	while (n--)
		ubench_uprobe_target(rec_raw.v);
}

static void perf_drain(void)
{
	uint64_t head = __atomic_load_n(&perf_ring->data_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(&perf_ring->data_tail, head, __ATOMIC_RELEASE);
}

static struct op ops[] = {
	{ "syscall",        "null syscall (getppid)",                1, run_getppid },
	{ "null_write",     "write /dev/null (4+32 B)",              1, run_null_write },
	{ "null_writev",    "writev /dev/null (4 B, 32 B)",          1, run_null_writev },
	{ "marker",         "write trace_marker (32 B)",             1, run_marker },
	{ "marker_raw",     "write trace_marker_raw (id+32 B)",      1, run_marker_raw },
	{ "ue_write_ftrace", "user_events write, ftrace on",         1, run_ue_ftrace },
	{ "ue_writev_ftrace", "user_events writev, ftrace on",       1, run_uev_ftrace },
	{ "ue_write_perf",  "user_events write, perf on",            1, run_ue_perf, perf_drain },
	{ "ue_writev_perf", "user_events writev, perf on",           1, run_uev_perf, perf_drain },
	{ "ue_write_off",   "user_events write, nothing attached",   1, run_ue_off },
	{ "ue_writev_off",  "user_events writev, nothing attached",  1, run_uev_off },
	{ "bitcheck",       "enabled-bit check (load + test)",     1000, run_bitcheck },
	{ "uprobe",         "uprobe hit, ftrace on (32 B fetched)",  1, run_uprobe },
	{ "tevent",         "TRACE_EVENT task_rename (prctl)",       1, run_tevent },
};

static struct op *op_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	return NULL;
}

static int perf_open_tracepoint(long id)
{
	struct perf_event_attr pa;
	void *ring;
	int fd;

	memset(&pa, 0, sizeof(pa));
	pa.type = PERF_TYPE_TRACEPOINT;
	pa.size = sizeof(pa);
	pa.config = id;
	pa.sample_period = 1;
	pa.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	/* this task, any CPU: the event follows the writer */
	fd = syscall(SYS_perf_event_open, &pa, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ring = mmap(NULL, (PERF_PAGES + 1) * getpagesize(),
		    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		close(fd);
		return -errno;
	}
	perf_ring = ring;
	return fd;
}

/* Where ubench_uprobe_target is in the file it was mapped from */
static int uprobe_spec(char *buf, size_t len)
{
	uintptr_t addr = (uintptr_t)ubench_uprobe_target;
	unsigned long start, end, off;
	char line[512], path[400];
	FILE *f = fopen("/proc/self/maps", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %399s",
			   &start, &end, &off, path) != 4)
			continue;
		if (addr < start || addr >= end)
			continue;
		snprintf(buf, len,
			 "p:ubench/hit %s:0x%lx a=+0(%%di):u64 b=+8(%%di):u64 c=+16(%%di):u64 d=+24(%%di):u64",
			 path, addr - start + off);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

static long event_id(const char *sys, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/id", sys, name);
	return read_long(path);
}

static int event_enable(const char *sys, const char *name, int on)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/events/%s/%s/enable", sys, name);
	return write_str(path, on ? "1" : "0", 0);
}

/* Set up every operation; one that cannot be set up is reported NA */
static void ops_setup(void)
{
	char spec[600];
	int i, ret;
	long id;

	for (i = 0; i < PAYLOAD / 8; i++)
		rec_raw.v[i] = 0x0101010101010101ull * (i + 1);
	memset(marker_text, 'm', PAYLOAD - 1);
	marker_text[PAYLOAD - 1] = '\n';
	rec_ftrace = rec_perf = rec_off = rec_raw;

	write_str(TRACEFS "/tracing_on", "1", 0);
	write_str(TRACEFS "/buffer_size_kb", "4096", 0);

	null_fd = open("/dev/null", O_WRONLY);
	marker_fd = open(TRACEFS "/trace_marker", O_WRONLY);
	marker_raw_fd = open(TRACEFS "/trace_marker_raw", O_WRONLY);
	ue_fd = ue_open();

	ret = ue_reg(ue_fd, "ub_ftrace " FIELDS, &en_ftrace, 0);
	if (ret < 0)
		errno = -ret, die("register ub_ftrace");
	rec_ftrace.idx = ret;
	ret = ue_reg(ue_fd, "ub_perf " FIELDS, &en_perf, 0);
	if (ret < 0)
		errno = -ret, die("register ub_perf");
	rec_perf.idx = ret;
	ret = ue_reg(ue_fd, "ub_off " FIELDS, &en_off, 0);
	if (ret < 0)
		errno = -ret, die("register ub_off");
	rec_off.idx = ret;
	rec_raw.idx = 1234;	/* trace_marker_raw: any id */

	if (event_enable("user_events", "ub_ftrace", 1) || !(en_ftrace & 1))
		fprintf(stderr, "ubench: ub_ftrace not enabled (bit %u)\n", en_ftrace);

	id = event_id("user_events", "ub_perf");
	perf_fd = id < 0 ? -ENOENT : perf_open_tracepoint(id);
	if (perf_fd < 0 || !(en_perf & 1)) {
		fprintf(stderr, "ubench: perf on ub_perf: %s (bit %u)\n",
			strerror(-perf_fd), en_perf);
		op_find("ue_write_perf")->ok = -1;
		op_find("ue_writev_perf")->ok = -1;
	}
	if (en_off & 1)
		fprintf(stderr, "ubench: ub_off is enabled?\n");

	/* It stays on: no other figure execs or renames a task */
	if (event_enable("task", "task_rename", 1)) {
		fprintf(stderr, "ubench: task/task_rename cannot be enabled\n");
		op_find("tevent")->ok = -1;
	}

	if (uprobe_spec(spec, sizeof(spec)) ||
	    write_str(TRACEFS "/uprobe_events", spec, O_APPEND) ||
	    event_enable("ubench", "hit", 1)) {
		fprintf(stderr, "ubench: uprobe '%s' failed\n", spec);
		op_find("uprobe")->ok = -1;
	}

	/* Each write once, checking that it does what it says */
	if (write(ue_fd, &rec_ftrace, sizeof(rec_ftrace)) != sizeof(rec_ftrace)) {
		fprintf(stderr, "ubench: write ub_ftrace: %s\n", strerror(errno));
		op_find("ue_write_ftrace")->ok = -1;
		op_find("ue_writev_ftrace")->ok = -1;
	}
	if (write(ue_fd, &rec_off, sizeof(rec_off)) >= 0)
		fprintf(stderr, "ubench: a write with nothing attached succeeded\n");
	if (write(marker_raw_fd, &rec_raw, sizeof(rec_raw)) != sizeof(rec_raw)) {
		fprintf(stderr, "ubench: trace_marker_raw: %s\n", strerror(errno));
		op_find("marker_raw")->ok = -1;
	}
	if (write(marker_fd, marker_text, PAYLOAD) != PAYLOAD) {
		fprintf(stderr, "ubench: trace_marker: %s\n", strerror(errno));
		op_find("marker")->ok = -1;
	}
	if (perf_ring && op_find("ue_write_perf")->ok >= 0) {
		uint64_t head = perf_ring->data_head;

		run_ue_perf(10);
		if (perf_ring->data_head == head) {
			fprintf(stderr, "ubench: perf ring got no record\n");
			op_find("ue_write_perf")->ok = -1;
			op_find("ue_writev_perf")->ok = -1;
		}
		perf_drain();
	}
}

static void ops_teardown(void)
{
	event_enable("user_events", "ub_ftrace", 0);
	event_enable("ubench", "hit", 0);
	event_enable("task", "task_rename", 0);
	write_str(TRACEFS "/uprobe_events", "-:ubench/hit", O_APPEND);
	ue_unreg(ue_fd, &en_ftrace, 0);
	ue_unreg(ue_fd, &en_perf, 0);
	ue_unreg(ue_fd, &en_off, 0);
	if (perf_ring)
		munmap(perf_ring, (PERF_PAGES + 1) * getpagesize());
	perf_ring = NULL;
	if (perf_fd >= 0)
		close(perf_fd);
	close(ue_fd);
	close(null_fd);
	close(marker_fd);
	close(marker_raw_fd);
}

static double time_batch(struct op *op)
{
	int n = BATCH * op->mult;
	uint64_t t0 = now_ns();

	op->run(n);
	return (double)(now_ns() - t0) / n;
}

static void bench_ops(void)
{
	int nops = ARRAY_SIZE(ops), r, k;

	for (k = 0; k < nops; k++)
		ops[k].ns = calloc(rounds_ops, sizeof(double));
	settle();

	/* Warm up: one batch each */
	for (k = 0; k < nops; k++)
		if (ops[k].ok >= 0) {
			time_batch(&ops[k]);
			if (ops[k].after)
				ops[k].after();
		}

	/* Round r runs every operation once, starting at a different one */
	for (r = 0; r < rounds_ops; r++)
		for (k = 0; k < nops; k++) {
			struct op *op = &ops[(r + k) % nops];

			if (op->ok < 0)
				continue;
			op->ns[r] = time_batch(op);
			if (op->after)
				op->after();
		}

	for (k = 0; k < nops; k++) {
		if (ops[k].ok < 0)
			result_na(ops[k].name, "setup failed");
		else {
			result(ops[k].name, median(ops[k].ns, rounds_ops), "ns/op",
			       rounds_ops);
			samples(ops[k].name, ops[k].ns, rounds_ops);
		}
	}
}

/*
 * Two threads of this process writing to the same file at once, one per
 * CPU: what a multi-threaded program's writes cost (the shared file table
 * makes every write() take a file reference, and the f_pos_lock of a
 * regular file that has FMODE_ATOMIC_POS)
 */
static const char * const duo_ops[] = {
	"null_write", "marker_raw", "ue_write_ftrace", "ue_write_off",
};

struct duo {
	struct op *op;
	int cpu;
	double ns;
};

static int duo_go;

static void *duo_main(void *arg)
{
	struct duo *d = arg;
	uint64_t t0;

	pin_cpu(d->cpu);
	while (!__atomic_load_n(&duo_go, __ATOMIC_ACQUIRE))
		;
	t0 = now_ns();
	d->op->run(BATCH);
	d->ns = (double)(now_ns() - t0) / BATCH;
	return NULL;
}

static double duo_batch(struct op *op)
{
	struct duo d[2] = { { op, 0 }, { op, 1 } };
	pthread_t t;

	duo_go = 0;
	if (pthread_create(&t, NULL, duo_main, &d[1]))
		die("pthread_create");
	__atomic_store_n(&duo_go, 1, __ATOMIC_RELEASE);
	duo_main(&d[0]);
	pthread_join(t, NULL);
	pin_cpu(0);
	return (d[0].ns + d[1].ns) / 2;
}

static void bench_threads(void)
{
	int n = ARRAY_SIZE(duo_ops), rounds = quick ? 3 : 11, r, k;
	double ns[ARRAY_SIZE(duo_ops)][11];
	char name[64];

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	for (r = 0; r < rounds; r++)
		for (k = 0; k < n; k++) {
			struct op *op = op_find(duo_ops[(r + k) % n]);

			ns[(r + k) % n][r] = op->ok < 0 ? 0 : duo_batch(op);
		}
	for (k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "%s_2t", duo_ops[k]);
		if (op_find(duo_ops[k])->ok < 0) {
			result_na(name, "setup failed");
		} else {
			result(name, median(ns[k], rounds), "ns/op", rounds);
			samples(name, ns[k], rounds);
		}
	}
}

/* -o: loop over some operations for a while (perf record runs meanwhile) */
static void loop_ops(char *list, int seconds)
{
	uint64_t end = now_ns() + (uint64_t)seconds * 1000000000ull;
	struct op *sel[ARRAY_SIZE(ops)];
	int n = 0, k;
	char *name;

	for (name = strtok(list, ","); name; name = strtok(NULL, ",")) {
		struct op *op = op_find(name);

		if (!op || op->ok < 0) {
			fprintf(stderr, "ubench: no usable operation %s\n", name);
			exit(2);
		}
		sel[n++] = op;
	}
	while (now_ns() < end)
		for (k = 0; k < n; k++) {
			double ns = time_batch(sel[k]);

			if (sel[k]->after)
				sel[k]->after();
			printf("L %-22s %10.1f ns/op\n", sel[k]->name, ns);
		}
}

/*
 * Toggling an event that 200 parked processes registered
 */

struct child {
	pid_t pid;
	int cmd;	/* write end: one command byte */
};

static int reply_rd;

static void child_reply(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		_exit(1);
}

/* A parked process: registers ub_prop, then obeys one byte at a time */
static void child_main(int cmd, int reply)
{
	static uint32_t word, unrel[NUNREL];
	char name[64];
	int fd, i, ok;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open(TRACEFS "/user_events_data", O_RDWR);
	child_reply(reply, fd >= 0 && ue_reg(fd, "ub_prop u32 a", &word, 0) >= 0 ? 'k' : 'e');

	while (read(cmd, &c, 1) == 1) {
		ok = 1;
		switch (c) {
		case 'r':	/* 50 unrelated registrations */
			for (i = 0; i < NUNREL; i++) {
				snprintf(name, sizeof(name), "ub_unrel_%d u32 a", i);
				ok &= ue_reg(fd, name, &unrel[i], 0) >= 0;
			}
			break;
		case 'u':
			for (i = 0; i < NUNREL; i++)
				ok &= ue_unreg(fd, &unrel[i], 0) == 0;
			break;
		case 'c':	/* report the bit */
			child_reply(reply, '0' + (__atomic_load_n(&word, __ATOMIC_RELAXED) & 1));
			continue;
		case 'q':
			_exit(0);
		}
		child_reply(reply, ok ? 'k' : 'e');
	}
	_exit(0);
}

/* Send @c to every child; the number of replies equal to @want */
static int children_cmd(struct child *ch, int n, char c, char want)
{
	int i, good = 0;
	char r;

	for (i = 0; i < n; i++)
		if (write(ch[i].cmd, &c, 1) != 1)
			die("command");
	if (c == 'q')
		return n;
	for (i = 0; i < n; i++) {
		if (read(reply_rd, &r, 1) != 1)
			die("reply");
		good += r == want;
	}
	return good;
}

/*
 * Grace periods on request.  Enabling an event attached through
 * tracepoint_probe_register() waits for an RCU grace period to have passed
 * since it was last disabled (up to 100 ms under TCG; the reference does
 * this, ours attaches its probes itself and does not wait).  So that both
 * kernels' figure is the toggle itself, one passes before each timed
 * write.  A thread on the other CPU waits for it (membarrier()) while this
 * one spins in user mode, which is its CPU's quiescent state: a task that
 * slept instead pays 40-100 us more in its next system call under TCG
 * (cold caches of the emulator, RCU callbacks), in both kernels alike,
 * which is more than our whole toggle.
 */
static int gp_req = -1;
static int gp_gen;
static pthread_t gp_thread;

static void *gp_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char c;

	pin_cpu(1);
	while (read(fd, &c, 1) == 1) {
		syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
		__atomic_add_fetch(&gp_gen, 1, __ATOMIC_RELEASE);
	}
	close(fd);
	return NULL;
}

static void gp_start(void)
{
	pthread_t t;
	int p[2];

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || pipe(p) ||
	    pthread_create(&t, NULL, gp_main, (void *)(intptr_t)p[0]))
		return;	/* grace_period() sleeps in membarrier() itself */
	gp_thread = t;
	gp_req = p[1];
}

/*
 * Back to one thread: a process whose file table is shared takes a file
 * reference in every write(), and the f_pos_lock of regular files
 */
static void gp_stop(void)
{
	if (gp_req < 0)
		return;
	close(gp_req);
	gp_req = -1;
	pthread_join(gp_thread, NULL);
}

static void grace_period(void)
{
	int gen = __atomic_load_n(&gp_gen, __ATOMIC_ACQUIRE);

	if (counting) {		/* the grace periods, and what follows them */
		settle();
		return;
	}

	if (gp_req < 0 || write(gp_req, "g", 1) != 1) {
		syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
		return;
	}
	while (__atomic_load_n(&gp_gen, __ATOMIC_ACQUIRE) == gen)
		;
}

/* One write to an enable file, timed, a grace period after the last */
static double toggle_us(int fd, const char *v)
{
	uint64_t t0;

	grace_period();
	t0 = now_ns();
	if (pwrite(fd, v, 1, 0) != 1)
		die("enable");
	return (now_ns() - t0) / 1000.0;
}

/* Enable then disable @fd; check the bits of the @n children when @check */
static void toggle_pair(int fd, double *on, double *off, struct child *ch,
			int n, int check)
{
	int good;

	*on = toggle_us(fd, "1");
	if (check && (good = children_cmd(ch, n, 'c', '1')) != n)
		fprintf(stderr, "ubench: enable reached %d of %d\n", good, n);
	*off = toggle_us(fd, "0");
	if (check && (good = children_cmd(ch, n, 'c', '0')) != n)
		fprintf(stderr, "ubench: disable reached %d of %d\n", good, n);
}

/*
 * Enable and disable back to back, without waiting: what a tool that
 * toggles an event repeatedly sees (the reference waits for a grace
 * period in every enable)
 */
static double toggle_pair_us(int fd)
{
	uint64_t t0 = now_ns();

	if (pwrite(fd, "1", 1, 0) != 1 || pwrite(fd, "0", 1, 0) != 1)
		die("enable");
	return (now_ns() - t0) / 1000.0;
}

/*
 * Events registered by this process only, toggled one after the other
 * once a grace period has passed: all but the first enable of a run, and
 * all but the first disable, find the system warm (no pause before them,
 * and no enable after a disable, so no grace-period wait in either kernel)
 */
#define NWARM	8

static uint32_t words_warm[NWARM];
static int efd_warm[NWARM];

static void toggle_run(double *on, double *off, int *n)
{
	double *v[2] = { on, off };
	uint64_t t0;
	int j, k;

	grace_period();
	for (k = 0; k < 2; k++)
		for (j = 0; j < NWARM; j++) {
			t0 = now_ns();
			if (pwrite(efd_warm[j], k ? "0" : "1", 1, 0) != 1)
				die("enable");
			if (j)
				v[k][*n + j - 1] = (now_ns() - t0) / 1000.0;
		}
	*n += NWARM - 1;
}

enum {
	T_ON1, T_OFF1, T_ON, T_OFF, T_ON1U, T_OFF1U, T_ONU, T_OFFU, T_PAIR1,
	T_ON1W, T_OFF1W, T_ON1UW, T_OFF1UW, T_NR
};

static const char * const toggle_names[T_NR] = {
	"toggle_on_1", "toggle_off_1", "toggle_on", "toggle_off",
	"toggle_on_1_unrel", "toggle_off_1_unrel", "toggle_on_unrel", "toggle_off_unrel",
	"toggle_pair_1",
	"toggle_on_1_warm", "toggle_off_1_warm",
	"toggle_on_1_unrel_warm", "toggle_off_1_unrel_warm",
};

/*
 * Event ub_prop is registered by nprocs parked processes, ub_prop1 by this
 * one only.  Each round toggles both, then has every parked process
 * register NUNREL unrelated events, toggles both again, and has them
 * unregister those.
 */
static void bench_propagation(void)
{
	int rounds = quick ? 3 : 9, per = quick ? 2 : 5;
	int nr = rounds * per, r, k, i, t, efd, efd1, ufd, good, nw = 0, nwu = 0;
	struct child *ch = calloc(nprocs, sizeof(*ch));
	static uint32_t word1, word_keep;
	double *v[T_NR];
	int rp[2];

	for (t = 0; t < T_NR; t++)
		v[t] = calloc(nr * NWARM, sizeof(double));
	if (pipe(rp))
		die("pipe");
	reply_rd = rp[0];
	for (i = 0; i < nprocs; i++) {
		int cp[2];

		if (pipe(cp))
			die("pipe");
		ch[i].pid = fork();
		if (ch[i].pid < 0)
			die("fork");
		if (!ch[i].pid) {
			close(cp[1]);
			child_main(cp[0], rp[1]);
		}
		close(cp[0]);
		ch[i].cmd = cp[1];
	}
	progress("processes forked");
	for (i = good = 0; i < nprocs; i++) {
		char c;

		if (read(reply_rd, &c, 1) != 1)
			die("reply");
		good += c == 'k';
	}
	progress("processes registered");
	settle();
	/*
	 * ub_keep stays enabled meanwhile: the first enabled event turns on
	 * ftrace's recording of task names (probes on the scheduler's
	 * tracepoints, code patching) and the last one turns it off, which
	 * would cost far more than what is measured here.
	 */
	ufd = ue_open();
	if (ue_reg(ufd, "ub_prop1 u32 a", &word1, 0) < 0 ||
	    ue_reg(ufd, "ub_keep u32 a", &word_keep, 0) < 0 ||
	    event_enable("user_events", "ub_keep", 1))
		die("register ub_prop1, ub_keep");
	efd = open(TRACEFS "/events/user_events/ub_prop/enable", O_WRONLY);
	efd1 = open(TRACEFS "/events/user_events/ub_prop1/enable", O_WRONLY);
	for (k = 0; k < NWARM; k++) {
		char cmd[64], path[128];

		snprintf(cmd, sizeof(cmd), "ub_warm_%d u32 a", k);
		snprintf(path, sizeof(path),
			 TRACEFS "/events/user_events/ub_warm_%d/enable", k);
		efd_warm[k] = -1;
		if (ue_reg(ufd, cmd, &words_warm[k], 0) >= 0)
			efd_warm[k] = open(path, O_WRONLY);
		if (efd_warm[k] < 0)
			good = -1;
	}
	if (good != nprocs || efd < 0 || efd1 < 0) {
		fprintf(stderr, "ubench: %d of %d processes registered ub_prop\n", good, nprocs);
		for (t = 0; t < T_NR; t++)
			result_na(toggle_names[t], "setup failed");
		goto out;
	}

	for (r = 0; r < rounds; r++) {
		for (k = 0; k < per; k++) {
			i = r * per + k;
			toggle_pair(efd1, &v[T_ON1][i], &v[T_OFF1][i], ch, 0, 0);
			toggle_pair(efd, &v[T_ON][i], &v[T_OFF][i], ch, nprocs, !i);
			v[T_PAIR1][i] = toggle_pair_us(efd1);
			toggle_run(v[T_ON1W], v[T_OFF1W], &nw);
		}
		if ((good = children_cmd(ch, nprocs, 'r', 'k')) != nprocs)
			fprintf(stderr, "ubench: unrelated registrations failed in %d\n",
				nprocs - good);
		settle();
		for (k = 0; k < per; k++) {
			i = r * per + k;
			toggle_pair(efd1, &v[T_ON1U][i], &v[T_OFF1U][i], ch, 0, 0);
			toggle_run(v[T_ON1UW], v[T_OFF1UW], &nwu);
			toggle_pair(efd, &v[T_ONU][i], &v[T_OFFU][i], ch, nprocs, !i);
		}
		if ((good = children_cmd(ch, nprocs, 'u', 'k')) != nprocs)
			fprintf(stderr, "ubench: unregistering failed in %d\n", nprocs - good);
		settle();
		progress("round");
	}
	for (t = 0; t < T_NR; t++) {
		int n = t == T_ON1W || t == T_OFF1W ? nw :
			t == T_ON1UW || t == T_OFF1UW ? nwu : nr;

		if (verbose)
			samples(toggle_names[t], v[t], n);
		result(toggle_names[t], median(v[t], n), "us", n);
	}
out:
	if (efd >= 0)
		close(efd);
	if (efd1 >= 0)
		close(efd1);
	for (k = 0; k < NWARM; k++) {
		if (efd_warm[k] >= 0)
			close(efd_warm[k]);
		ue_unreg(ufd, &words_warm[k], 0);
	}
	event_enable("user_events", "ub_keep", 0);
	ue_unreg(ufd, &word1, 0);
	ue_unreg(ufd, &word_keep, 0);
	close(ufd);
	children_cmd(ch, nprocs, 'q', 0);
	for (i = 0; i < nprocs; i++) {
		close(ch[i].cmd);
		waitpid(ch[i].pid, NULL, 0);
	}
	close(rp[0]);
	close(rp[1]);
	free(ch);
	for (t = 0; t < T_NR; t++)
		free(v[t]);
}

/*
 * Registrations per second and memory per event
 */

static uint32_t words_new[NREG], words_old[NREG];

/* Registers NREG new events on *@fd_new (kept for the fork figure) */
static void bench_registration(int *fd_new)
{
	int rounds = NREG / REG_ROUND, r, i, fd_old, bad = 0;
	double rate_new[NREG / REG_ROUND], rate_old[NREG / REG_ROUND];
	long slab_new = 0, slab_old = 0, obj_new = 0, obj_old = 0, s0, o0;
	char cmd[64];
	uint64_t t0;

	*fd_new = ue_open();
	fd_old = ue_open();
	for (r = 0; r < rounds; r++) {
		/* REG_ROUND events that do not exist yet */
		settle();
		mem_settle();
		s0 = meminfo("Slab");
		o0 = slab_obj_bytes();
		t0 = now_ns();
		for (i = r * REG_ROUND; i < (r + 1) * REG_ROUND; i++) {
			snprintf(cmd, sizeof(cmd), "ub_reg_%d u32 a", i);
			bad += ue_reg(*fd_new, cmd, &words_new[i], 0) < 0;
		}
		rate_new[r] = REG_ROUND * 1e9 / (now_ns() - t0);
		mem_settle();
		slab_new += meminfo("Slab") - s0;
		obj_new += slab_obj_bytes() - o0;

		/* The same events again, now existing, from another file */
		settle();
		s0 = meminfo("Slab");
		o0 = slab_obj_bytes();
		t0 = now_ns();
		for (i = r * REG_ROUND; i < (r + 1) * REG_ROUND; i++) {
			snprintf(cmd, sizeof(cmd), "ub_reg_%d u32 a", i);
			bad += ue_reg(fd_old, cmd, &words_old[i], 0) < 0;
		}
		rate_old[r] = REG_ROUND * 1e9 / (now_ns() - t0);
		mem_settle();
		slab_old += meminfo("Slab") - s0;
		obj_old += slab_obj_bytes() - o0;
	}
	if (bad)
		fprintf(stderr, "ubench: %d registrations failed\n", bad);
	result("reg_new", median(rate_new, rounds), "1/s", rounds);
	result("reg_existing", median(rate_old, rounds), "1/s", rounds);
	result("slab_per_event", slab_new * 1024.0 / NREG, "B", 1);
	result("slabobj_per_event", obj_new / (double)NREG, "B", 1);
	result("slab_per_reg", slab_old * 1024.0 / NREG, "B", 1);
	result("slabobj_per_reg", obj_old / (double)NREG, "B", 1);
	/* What frees land in which round is the kernel's business: both */
	result("slab_per_both", (slab_new + slab_old) * 1024.0 / NREG, "B", 1);
	result("slabobj_per_both", (obj_new + obj_old) / (double)NREG, "B", 1);

	/* Keep only the NREG registrations of *fd_new */
	for (i = 0; i < NREG; i++)
		ue_unreg(fd_old, &words_old[i], 0);
	close(fd_old);
}

/*
 * fork() with NREG registrations, against a twin process with none
 */

/* K forks: time to fork() return and to the child reaped, in ns */
static void forks(int k, uint64_t *fork_ns, uint64_t *cycle_ns)
{
	uint64_t t0, t1;
	pid_t pid;

	*fork_ns = *cycle_ns = 0;
	while (k--) {
		t0 = now_ns();
		pid = fork();
		if (!pid)
			_exit(0);
		t1 = now_ns();
		if (pid < 0)
			die("fork");
		waitpid(pid, NULL, 0);
		*fork_ns += t1 - t0;
		*cycle_ns += now_ns() - t0;
	}
}

static int twin_cmd, twin_reply;
static pid_t twin_pid;

/*
 * Counting mode, one vCPU: whether the parent or the child runs first
 * after fork() is the scheduler's choice, and the child's instructions
 * land in fork()'s figure when it does.  A SCHED_FIFO parent whose
 * children start as SCHED_OTHER (SCHED_RESET_ON_FORK) always runs on
 * until it waits: fork() is counted alone, the same in every run.
 */
static void fork_sched(bool on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	if (counting &&
	    sched_setscheduler(0, on ? SCHED_FIFO | SCHED_RESET_ON_FORK :
			       SCHED_OTHER, &sp))
		fprintf(stderr, "ubench: sched_setscheduler: %s\n", strerror(errno));
}

/* The twin: forked before any registration, forks on request */
static void twin_start(void)
{
	int c[2], r[2];

	if (pipe(c) || pipe(r))
		die("pipe");
	twin_pid = fork();
	if (twin_pid < 0)
		die("fork");
	if (!twin_pid) {
		uint64_t res[2];
		int k;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(c[1]);
		close(r[0]);
		pin_cpu(0);
		fork_sched(true);
		while (read(c[0], &k, sizeof(k)) == sizeof(k) && k > 0) {
			forks(k, &res[0], &res[1]);
			if (write(r[1], res, sizeof(res)) != sizeof(res))
				_exit(1);
		}
		_exit(0);
	}
	close(c[0]);
	close(r[1]);
	twin_cmd = c[1];
	twin_reply = r[0];
}

static void bench_fork(void)
{
	int rounds = quick ? 3 : 11, k = quick ? 10 : 40, r, stop = 0;
	double f0[11], c0[11], f1[11], c1[11];
	uint64_t res[2];

	fork_sched(true);
	for (r = 0; r < rounds; r++) {
		settle();
		if (write(twin_cmd, &k, sizeof(k)) != sizeof(k) ||
		    read(twin_reply, res, sizeof(res)) != sizeof(res))
			die("twin");
		f0[r] = res[0] / 1000.0 / k;
		c0[r] = res[1] / 1000.0 / k;
		settle();
		forks(k, &res[0], &res[1]);
		f1[r] = res[0] / 1000.0 / k;
		c1[r] = res[1] / 1000.0 / k;
	}
	fork_sched(false);
	if (write(twin_cmd, &stop, sizeof(stop)) != sizeof(stop))
		die("twin");
	waitpid(twin_pid, NULL, 0);
	if (verbose) {
		samples("fork_0", f0, rounds);
		samples("fork_1000", f1, rounds);
	}
	result("fork_0", median(f0, rounds), "us", rounds);
	result("fork_1000", median(f1, rounds), "us", rounds);
	result("forkexit_0", median(c0, rounds), "us", rounds);
	result("forkexit_1000", median(c1, rounds), "us", rounds);
}

int main(int argc, char **argv)
{
	char *only = NULL;
	int opt, seconds = 10, fd_reg, ops_only = 0, threaded = 0, fork_only = 0;

	progress("start");
	while ((opt = getopt(argc, argv, "cqvFPTr:o:t:p:")) != -1) {
		switch (opt) {
		case 'F':
			fork_only = 1;
			break;
		case 'T':
			threaded = 1;
			break;
		case 'c':
			counting = 1;
			break;
		case 'P':
			ops_only = 1;
			break;
		case 'q':
			quick = 1;
			rounds_ops = 5;
			break;
		case 'r':
			rounds_ops = atoi(optarg);
			break;
		case 'o':
			only = optarg;
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		case 'p':
			nprocs = atoi(optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-c] [-q] [-F|-P] [-r ROUNDS] [-o OPS [-t SEC]]\n",
				argv[0]);
			return 2;
		}
	}
	if (rounds_ops < 1)
		rounds_ops = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* The grace-period thread: it sleeps until asked, and asks nothing */
	if (threaded && (only || ops_only))
		gp_start();
	if (only) {
		pin_cpu(0);
		ops_setup();
		loop_ops(only, seconds);
		ops_teardown();
		return 0;
	}

	if (ops_only) {
		pin_cpu(0);
		ops_setup();
		bench_ops();
		bench_threads();
		ops_teardown();
		return 0;
	}

	/* Forked while this process has no registration */
	twin_start();
	if (fork_only)
		goto fork;

	printf("# toggling an event with %d registered processes\n", nprocs);
	gp_start();
	bench_propagation();
	gp_stop();

	pin_cpu(0);
	printf("# per operation, batches of %d, %d rounds\n", BATCH, rounds_ops);
	ops_setup();
	bench_ops();
	printf("# two threads writing at once\n");
	bench_threads();
	ops_teardown();

fork:
	printf("# registrations\n");
	bench_registration(&fd_reg);

	printf("# fork with %d registrations\n", NREG);
	bench_fork();
	close(fd_reg);
	return 0;
}
