// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program with one user event.
 *
 * It registers the event "test u32 count; char[16] msg" and asks the
 * kernel to keep bit 31 of the word "enabled" set while any tool (ftrace,
 * perf, eBPF) listens to it.  Then, once per interval, it checks the bit:
 * a single load costs next to nothing while nobody listens, and only when
 * the bit is set does it pay for a writev() of the write index and the
 * payload.
 *
 * Try it:
 *	./example &
 *	echo 1 > /sys/kernel/tracing/events/user_events/test/enable
 *	cat /sys/kernel/tracing/trace
 *
 * Usage: example [COUNT [INTERVAL_MS]]: stop after COUNT checks (default:
 * run until interrupted), one every INTERVAL_MS milliseconds (default 1000).
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/user_events.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define ENABLE_BIT 31

/* The kernel sets and clears bit ENABLE_BIT of this word */
static __u32 enabled;

/*
 * The payload, laid out as the event's fields say: in order, without
 * padding (pack the struct if its members would leave holes)
 */
struct example_payload {
	__u32 count;
	char msg[16];
};

static_assert(sizeof(struct example_payload) == 20, "no padding");

static int done;

static void on_signal(int sig)
{
	__atomic_store_n(&done, 1, __ATOMIC_RELAXED);
}

static const char *tracefs_file(const char *name)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	static char path[256];
	struct stat st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (!stat(path, &st))
			return path;
	}
	return NULL;
}

static int is_enabled(void)
{
	return __atomic_load_n(&enabled, __ATOMIC_RELAXED) &
	       (1U << ENABLE_BIT);
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? strtol(argv[1], NULL, 0) : -1;
	long interval_ms = argc > 2 ? strtol(argv[2], NULL, 0) : 1000;
	struct timespec ts = {
		.tv_sec = interval_ms / 1000,
		.tv_nsec = (interval_ms % 1000) * 1000000,
	};
	struct example_payload payload;
	struct user_unreg unreg;
	struct user_reg reg;
	struct iovec io[2];
	const char *path;
	__u32 written = 0;
	int fd;

	path = tracefs_file("user_events_data");
	if (!path) {
		fprintf(stderr, "no user_events_data: %s\n",
			"is tracefs mounted and CONFIG_USER_EVENTS set?");
		return 1;
	}
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 1;
	}

	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.enable_bit = ENABLE_BIT;
	reg.enable_size = sizeof(enabled);
	reg.enable_addr = (__u64)(uintptr_t)&enabled;
	reg.name_args = (__u64)(uintptr_t)"test u32 count; char[16] msg";

	if (ioctl(fd, DIAG_IOCSREG, &reg) == -1) {
		perror("DIAG_IOCSREG");
		return 1;
	}
	printf("registered user_events:test, write index %u\n",
	       reg.write_index);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	/* First the index, then the payload */
	io[0].iov_base = &reg.write_index;
	io[0].iov_len = sizeof(reg.write_index);
	io[1].iov_base = &payload;
	io[1].iov_len = sizeof(payload);

	while (!__atomic_load_n(&done, __ATOMIC_RELAXED) && count--) {
		if (is_enabled()) {
			memset(&payload, 0, sizeof(payload));
			payload.count = written;
			snprintf(payload.msg, sizeof(payload.msg), "hello %u",
				 written);
			/* EBADF: the tool went away since the check */
			if (writev(fd, io, 2) >= 0)
				written++;
			else if (errno != EBADF)
				perror("writev");
		}
		nanosleep(&ts, NULL);
	}

	/* Stop the kernel from updating the word, then let the event go */
	memset(&unreg, 0, sizeof(unreg));
	unreg.size = sizeof(unreg);
	unreg.disable_bit = ENABLE_BIT;
	unreg.disable_addr = (__u64)(uintptr_t)&enabled;
	if (ioctl(fd, DIAG_IOCSUNREG, &unreg) == -1)
		perror("DIAG_IOCSUNREG");
	close(fd);

	printf("wrote %u records\n", written);
	return 0;
}
