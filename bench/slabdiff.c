// SPDX-License-Identifier: GPL-2.0
/*
 * slabdiff: which slab caches grow, and by how much, when N new user
 * events are registered (one registration each, through one file).
 *
 * Runs as root in a guest of the kernel to look at:
 *
 *   gcc -O2 -static -isystem build/bench/usr/include \
 *	-o build/bench-bin/slabdiff bench/slabdiff.c
 *   scripts/vm.sh --kernel build/bench/arch/x86/boot/bzImage -- \
 *	$PWD/build/bench-bin/slabdiff [N] [FORMAT]
 *
 * FORMAT is the command with a %d for the event's number (default
 * "sd_%d u32 a").  Prints every cache whose objects in use grew or shrank
 * by more than 2 bytes per event, then the total.  Reports only.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <linux/user_events.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#define MAX_CACHES	1024

struct cache {
	char name[64];
	long active, size;
};

static struct cache before[MAX_CACHES], after[MAX_CACHES];

static int read_slabinfo(struct cache *c)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512];
	long total;
	int n = 0;

	if (!f) {
		perror("/proc/slabinfo");
		exit(1);
	}
	while (n < MAX_CACHES && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld %ld %ld", c[n].name, &c[n].active,
			   &total, &c[n].size) == 4)
			n++;
	fclose(f);
	return n;
}

/* Let kfree_rcu() and deferred frees happen before a snapshot */
static void settle(void)
{
	int fd;

	syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	usleep(200000);
	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror("stat_refresh");
		close(fd);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, nb, na, i, j, fd;
	const char *format = argc > 2 ? argv[2] : "sd_%d u32 a";
	uint32_t *words = calloc(n > 0 ? n : 1, sizeof(*words));
	long sum = 0, d;
	char cmd[256];

	fd = open("/sys/kernel/tracing/user_events_data", O_RDWR);
	if (fd < 0 || n <= 0 || !words) {
		perror("user_events_data");
		return 1;
	}
	settle();
	nb = read_slabinfo(before);
	for (i = 0; i < n; i++) {
		struct user_reg reg = {
			.size = sizeof(reg),
			.enable_size = sizeof(words[i]),
			.enable_addr = (uintptr_t)&words[i],
			.name_args = (uintptr_t)cmd,
		};

		snprintf(cmd, sizeof(cmd), format, i);
		if (ioctl(fd, DIAG_IOCSREG, &reg)) {
			perror(cmd);
			return 1;
		}
	}
	settle();
	na = read_slabinfo(after);

	printf("%-28s %10s %10s %8s\n", "cache", "B/event", "obj/event", "objsize");
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb; j++)
			if (!strcmp(before[j].name, after[i].name))
				break;
		d = (after[i].active - (j < nb ? before[j].active : 0)) *
		    after[i].size;
		sum += d;
		if (d > 2L * n || d < -2L * n)
			printf("%-28s %10.1f %10.2f %8ld\n", after[i].name,
			       (double)d / n,
			       (double)(d / after[i].size) / n, after[i].size);
	}
	printf("%-28s %10.1f\n", "total", (double)sum / n);
	return 0;
}
