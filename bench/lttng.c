// SPDX-License-Identifier: GPL-2.0
/*
 * lttng: what an LTTng-UST tracepoint hit costs, next to ubench's figures.
 *
 * The in-process ring buffer that users pick instead of a system call: a
 * tracepoint with the same 32-byte payload as ubench's user event (u64 a;
 * u64 b; u64 c; u64 d), recorded by a session that bench/lttng.sh sets up
 * (lttng-sessiond, a channel with buffers large enough that no record is
 * discarded, the event ubench:hit enabled in it) before it runs this.
 *
 * Prints, in ubench's format ("R name value unit rounds", "S name batch
 * of each round..."), for bench/report.py:
 *
 *   lttng_hit   ns per hit of ubench:hit, which the session records
 *   lttng_off   ns per hit of ubench:off, a site of the same provider that
 *               no session enables (a load and a branch)
 *
 * Pinned to CPU 0; batches of 2000 hits timed with clock_gettime(
 * CLOCK_MONOTONIC); one warm-up batch of each, then rounds that run one
 * batch of each (alternating which goes first); the figure is the median
 * batch, as in ubench's bench_ops().
 *
 * Usage: lttng [-c] [-r ROUNDS] [-w SEC]
 *   -c      counting mode (QEMU -icount): let deferred work settle first
 *   -r N    rounds (default 31)
 *   -w SEC  wait up to SEC seconds for the session daemon to enable
 *           ubench:hit in this process (default 10)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include "bench_util.h"

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "lttng_tp.h"

#define BATCH		2000

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int counting;
static int rounds = 31;

/*
 * The payload, read from memory at every hit as ubench's buffers are (the
 * probe is called through a pointer: the compiler cannot keep it in
 * registers across hits)
 */
uint64_t payload[4] = {
	0x0123456789abcdefull, 1, 2, 3,
};

static void result(const char *name, double value, const char *unit, int n)
{
	fprintf(stderr, "lttng: %s\n", name);
	printf("R %-22s %14.3f %-8s %d\n", name, value, unit, n);
	fflush(stdout);
}

static void result_na(const char *name, const char *why)
{
	printf("R %-22s %14s %-8s 0 %s\n", name, "NA", "-", why);
	fflush(stdout);
}

/* bench_settle() in counting mode only */
static void settle(void)
{
	if (counting)
		bench_settle();
}

static __attribute__((noinline)) void run_hit(int n)
{
	int i;

	for (i = 0; i < n; i++)
		lttng_ust_tracepoint(ubench, hit, payload[0], payload[1],
				     payload[2], payload[3]);
}

static __attribute__((noinline)) void run_off(int n)
{
	int i;

	for (i = 0; i < n; i++)
		lttng_ust_tracepoint(ubench, off, payload[0], payload[1],
				     payload[2], payload[3]);
}

struct op {
	const char *name;
	void (*run)(int n);
	int ok;
	double *ns;
};

static struct op ops[] = {
	{ "lttng_hit", run_hit },
	{ "lttng_off", run_off },
};

#define NOPS	((int)ARRAY_SIZE(ops))

static double time_batch(struct op *op)
{
	uint64_t t0 = now_ns();

	op->run(BATCH);
	return (double)(now_ns() - t0) / BATCH;
}

int main(int argc, char **argv)
{
	int wait_s = 10, opt, r, k;
	uint64_t t0;

	while ((opt = getopt(argc, argv, "cr:w:")) != -1) {
		switch (opt) {
		case 'c':
			counting = 1;
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'w':
			wait_s = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-c] [-r ROUNDS] [-w SEC]\n",
				argv[0]);
			return 2;
		}
	}
	if (rounds < 1)
		rounds = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	pin_cpu(0);

	/*
	 * liblttng-ust registers with the session daemon in a constructor
	 * and waits (3 s at most) for the enablers; wait longer if need be
	 */
	t0 = now_ns();
	while (!lttng_ust_tracepoint_enabled(ubench, hit) &&
	       now_ns() - t0 < wait_s * 1000000000ull)
		usleep(10000);
	if (!lttng_ust_tracepoint_enabled(ubench, hit)) {
		fprintf(stderr, "lttng: ubench:hit is not enabled (no session?)\n");
		ops[0].ok = -1;
	}
	if (lttng_ust_tracepoint_enabled(ubench, off)) {
		fprintf(stderr, "lttng: ubench:off is enabled\n");
		ops[1].ok = -1;
	}

	printf("# lttng-ust tracepoint, batches of %d, %d rounds\n", BATCH,
	       rounds);
	for (k = 0; k < NOPS; k++)
		ops[k].ns = calloc(rounds, sizeof(double));
	settle();

	/* Warm up: one batch each */
	for (k = 0; k < NOPS; k++)
		if (ops[k].ok >= 0)
			time_batch(&ops[k]);

	for (r = 0; r < rounds; r++)
		for (k = 0; k < NOPS; k++) {
			struct op *op = &ops[(r + k) % NOPS];

			if (op->ok >= 0)
				op->ns[r] = time_batch(op);
		}

	for (k = 0; k < NOPS; k++) {
		if (ops[k].ok < 0) {
			result_na(ops[k].name, "setup failed");
		} else {
			result(ops[k].name, median(ops[k].ns, rounds), "ns/op",
			       rounds);
			samples(ops[k].name, ops[k].ns, rounds);
		}
	}
	return 0;
}
