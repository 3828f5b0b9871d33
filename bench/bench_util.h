/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bench/ubench.c and bench/lttng.c share: the clock, medians, the
 * per-round samples report.py pairs, quiescing for counting mode, and
 * pinning.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline double median(double *v, int n)
{
	double *s = malloc(n * sizeof(*s));
	double m;

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

/* Every round's figure, in round order (report.py pairs them by round) */
static inline void samples(const char *name, double *v, int n)
{
	int i;

	printf("S %s", name);
	for (i = 0; i < n; i++)
		printf(" %.1f", v[i]);
	printf("\n");
}

/*
 * Counting mode: let what earlier work left behind (RCU callbacks, work
 * items, timers) run now rather than inside the next figure.  Under
 * -icount with sleep=off an idle guest's clock jumps to its next timer, so
 * the sleep costs no host time.  Not for timing: a pause makes the next
 * system calls slower under TCG.
 */
static inline void bench_settle(void)
{
	syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	usleep(500000);
	syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	usleep(500000);
}

static inline void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

#endif
