/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the user_events selftests: finding (or mounting)
 * tracefs, reading and writing its files, registering, unregistering and
 * deleting events, enabling them, reading the trace file, and child
 * processes that cannot outlive the test.
 *
 * Every helper returns 0 or a negative errno and never exits, so that a
 * test decides with ASSERT_*() / EXPECT_*() / SKIP() what a failure means.
 *
 * tracefs_enabled() and tracefs_unmount() serve other tracing selftests
 * (ring-buffer) that need tracefs at /sys/kernel/tracing.
 */
#ifndef _USER_EVENTS_SELFTESTS_H
#define _USER_EVENTS_SELFTESTS_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/user_events.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define UE_PATH_MAX	512
#define UE_CMD_MAX	512	/* name, fields and NUL */
#define UE_HDR_SIZE	8	/* struct trace_entry before the first field */

/* Names of every test event start with this, so leftovers are recognisable */
#define UE_PREFIX	"__self_"

/* A user address no process can have: the start of the kernel mapping */
#define UE_KERNEL_ADDR	0xffffffff81000000ULL

#define UE_TRACEFS_ROOT	"/sys/kernel/tracing"

static char ue_tracefs[UE_PATH_MAX];

/* Format a path below the tracefs mount into @buf. */
static inline const char *ue_path(char *buf, const char *fmt, ...)
{
	size_t len = strlen(ue_tracefs);
	va_list ap;

	memcpy(buf, ue_tracefs, len);
	buf[len++] = '/';
	va_start(ap, fmt);
	vsnprintf(buf + len, UE_PATH_MAX - len, fmt, ap);
	va_end(ap);
	return buf;
}

static inline bool ue_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/*
 * Make tracefs usable at /sys/kernel/tracing: true when it is, after
 * mounting it there if it was not (then *@umount is set, and
 * tracefs_unmount() undoes the mount).  Otherwise false, with the reason
 * in *@message and *@fail set if setting tracefs up failed (clear when
 * the kernel or the system has no tracefs to give: a reason to skip).
 */
static inline bool tracefs_enabled(char **message, bool *fail, bool *umount)
{
	static char why[128];
	int err;

	*message = "";
	*fail = false;
	*umount = false;
	if (ue_exists(UE_TRACEFS_ROOT "/trace"))
		return true;
	if (!ue_exists(UE_TRACEFS_ROOT)) {
		*message = "no " UE_TRACEFS_ROOT " to mount tracefs on";
		return false;
	}
	if (mount("nodev", UE_TRACEFS_ROOT, "tracefs", 0, NULL)) {
		err = errno;
		if (err == EBUSY)
			return true;
		snprintf(why, sizeof(why),
			 "tracefs cannot be mounted at %s (CONFIG_TRACING?): %s",
			 UE_TRACEFS_ROOT, strerror(err));
		*message = why;
		*fail = err != ENODEV;
		return false;
	}
	*umount = true;
	return true;
}

/*
 * Undo the mount of tracefs_enabled() (when it set *umount); 0 or -errno.
 * Lazily: the caller may still have files of it open or mapped.
 */
static inline int tracefs_unmount(void)
{
	return umount2(UE_TRACEFS_ROOT, MNT_DETACH) ? -errno : 0;
}

/*
 * Find tracefs (mount it at /sys/kernel/tracing when it is not mounted
 * anywhere) and check that the kernel has user_events.  Returns NULL when
 * the tests can run, otherwise the reason to skip them.
 */
static inline const char *ue_setup(void)
{
	static const char * const dirs[] = {
		UE_TRACEFS_ROOT, "/sys/kernel/debug/tracing",
	};
	char path[UE_PATH_MAX], *why;
	bool fail, umount;
	unsigned int i;

	if (geteuid() != 0)
		return "user_events selftests must run as root";

	ue_tracefs[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/trace", dirs[i]);
		if (ue_exists(path)) {
			snprintf(ue_tracefs, sizeof(ue_tracefs), "%s", dirs[i]);
			break;
		}
	}

	if (!ue_tracefs[0]) {
		if (!tracefs_enabled(&why, &fail, &umount))
			return why;
		snprintf(ue_tracefs, sizeof(ue_tracefs), "%s", dirs[0]);
	}

	if (!ue_exists(ue_path(path, "user_events_data")))
		return "no user_events_data in tracefs (CONFIG_USER_EVENTS?)";

	return NULL;
}

/* Write @len bytes of @buf to @path opened with @flags; 0 or -errno. */
static inline int ue_write_flags(const char *path, int flags,
				 const void *buf, size_t len)
{
	ssize_t ret;
	int fd, err = 0;

	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	if (ret < 0)
		err = -errno;
	else if ((size_t)ret != len)
		err = -EIO;
	close(fd);
	return err;
}

/* Write a string to a tracefs file (truncating, as `echo >` does). */
static inline int ue_write_str(const char *path, const char *str)
{
	return ue_write_flags(path, O_TRUNC, str, strlen(str));
}

/*
 * Append a command to dynamic_events.  Never O_TRUNC: opening
 * dynamic_events for truncation deletes every dynamic event.
 */
static inline int ue_dyn_cmd(const char *cmd)
{
	char path[UE_PATH_MAX];

	return ue_write_flags(ue_path(path, "dynamic_events"), O_APPEND,
			      cmd, strlen(cmd));
}

/* Read a whole file into a NUL-terminated malloc()ed buffer, or NULL. */
static inline char *ue_read_file(const char *path)
{
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap), *nbuf;
	ssize_t ret;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			nbuf = realloc(buf, cap);
			if (!nbuf)
				break;
			buf = nbuf;
		}
		ret = read(fd, buf + len, cap - len - 1);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0)
			break;
		len += ret;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Read a tracefs file given relative to the mount. */
static inline char *ue_read_tracefs(const char *rel)
{
	char path[UE_PATH_MAX];

	return ue_read_file(ue_path(path, "%s", rel));
}

/* Read an integer from a file; 0 or -errno. */
static inline int ue_read_long(const char *path, long *val)
{
	char *buf = ue_read_file(path);
	char *end;

	if (!buf)
		return -errno ? -errno : -ENOMEM;
	errno = 0;
	*val = strtol(buf, &end, 0);
	if (errno || end == buf) {
		free(buf);
		return -EINVAL;
	}
	free(buf);
	return 0;
}

static inline int ue_write_long(const char *path, long val)
{
	char str[32];

	snprintf(str, sizeof(str), "%ld\n", val);
	return ue_write_str(path, str);
}

/* Milliseconds on the monotonic clock. */
static inline long long ue_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * The value of the enable word at @word once it reads @want, or after
 * @timeout_ms.  A toggle writes a word before it returns only when it can
 * without waiting: a word whose page is not present, is copy-on-write
 * (after fork()) or whose mm's mmap_lock is taken is written by the mm's
 * work item a little later.
 */
static inline __u32 ue_word_wait(const __u32 *word, __u32 want,
				 int timeout_ms)
{
	long long end = ue_now_ms() + timeout_ms;
	__u32 val;

	while ((val = __atomic_load_n(word, __ATOMIC_SEQ_CST)) != want &&
	       ue_now_ms() <= end)
		usleep(1000);
	return val;
}

/* --- user_events_data ---------------------------------------------- */

static inline int ue_open(void)
{
	char path[UE_PATH_MAX];
	int fd = open(ue_path(path, "user_events_data"), O_RDWR);

	return fd < 0 ? -errno : fd;
}

/*
 * DIAG_IOCSREG of @cmd with its enable bit at @addr (@size bytes, @bit).
 * Stores the write index in @idx (if not NULL); 0 or -errno.
 */
static inline int ue_reg_flags(int fd, const char *cmd, __u16 flags,
			       void *addr, int size, int bit, int *idx)
{
	struct user_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.enable_bit = bit;
	reg.enable_size = size;
	reg.flags = flags;
	reg.enable_addr = (__u64)(uintptr_t)addr;
	reg.name_args = (__u64)(uintptr_t)cmd;
	reg.write_index = 0xdeadbeef;

	if (ioctl(fd, DIAG_IOCSREG, &reg) == -1)
		return -errno;
	if (idx)
		*idx = reg.write_index;
	return 0;
}

static inline int ue_reg(int fd, const char *cmd, __u32 *word, int bit,
			 int *idx)
{
	return ue_reg_flags(fd, cmd, 0, word, sizeof(*word), bit, idx);
}

/* DIAG_IOCSREG of @reg as it is; 0 or -errno. */
static inline int ue_reg_raw(int fd, struct user_reg *reg)
{
	return ioctl(fd, DIAG_IOCSREG, reg) ? -errno : 0;
}

/*
 * A valid command of exactly @len characters (and its NUL) for event
 * @name: the name and then "u32 fNNN;" fields, the last one's name
 * stretched to fit.
 */
static inline void ue_long_cmd(char *buf, const char *name, int len)
{
	int pos, i = 0;

	pos = sprintf(buf, "%s ", name);
	while (len - pos > 24)
		pos += sprintf(buf + pos, "u32 f%03d;", i++);
	pos += sprintf(buf + pos, "u32 ");
	while (pos < len)
		buf[pos++] = 'z';
	buf[pos] = '\0';
}

static inline int ue_unreg(int fd, void *addr, int bit)
{
	struct user_unreg unreg;

	memset(&unreg, 0, sizeof(unreg));
	unreg.size = sizeof(unreg);
	unreg.disable_bit = bit;
	unreg.disable_addr = (__u64)(uintptr_t)addr;

	if (ioctl(fd, DIAG_IOCSUNREG, &unreg) == -1)
		return -errno;
	return 0;
}

/*
 * DIAG_IOCSUNREG of @addr/@bit on a file of its own; 0 or -errno.  A
 * registration belongs to the process's memory, not to the file it was
 * made through: it outlives that file's close(), and any user_events_data
 * file of the process can end it.
 */
static inline int ue_unreg_own(void *addr, int bit)
{
	int fd = ue_open(), ret;

	if (fd < 0)
		return fd;
	ret = ue_unreg(fd, addr, bit);
	close(fd);
	return ret;
}

/* DIAG_IOCSDEL of @name on @fd; 0 or -errno. */
static inline int ue_del_fd(int fd, const char *name)
{
	if (ioctl(fd, DIAG_IOCSDEL, name) == -1)
		return -errno;
	return 0;
}

/* DIAG_IOCSDEL of @name on a file of its own; 0 or -errno. */
static inline int ue_del(const char *name)
{
	int fd = ue_open(), ret;

	if (fd < 0)
		return fd;
	ret = ue_del_fd(fd, name);
	close(fd);
	return ret;
}

/* writev() of the index and one payload buffer: bytes written or -errno */
static inline ssize_t ue_emit(int fd, int idx, const void *data, size_t len)
{
	struct iovec io[2] = {
		{ .iov_base = &idx, .iov_len = sizeof(idx) },
		{ .iov_base = (void *)data, .iov_len = len },
	};
	ssize_t ret = writev(fd, io, len ? 2 : 1);

	return ret < 0 ? -errno : ret;
}

/* --- events/ files ---------------------------------------------------- */

/* Path of events/user_events/@name/@file (@sys NULL: user_events). */
static inline const char *ue_evpath(char *buf, const char *sys,
				    const char *name, const char *file)
{
	return ue_path(buf, "events/%s/%s%s%s", sys ? sys : USER_EVENTS_SYSTEM,
		       name, file ? "/" : "", file ? file : "");
}

static inline bool ue_event_exists(const char *sys, const char *name)
{
	char path[UE_PATH_MAX];

	return ue_exists(ue_evpath(path, sys, name, NULL));
}

/* Wait up to @timeout_ms for @path to disappear; true once it is gone. */
static inline bool ue_wait_gone_path(const char *path, int timeout_ms)
{
	long long end = ue_now_ms() + timeout_ms;

	while (ue_exists(path)) {
		if (ue_now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/*
 * Wait up to @timeout_ms for event @name to disappear (a process that held
 * it is exiting); true once it is gone.
 */
static inline bool ue_wait_gone(const char *sys, const char *name,
				int timeout_ms)
{
	char path[UE_PATH_MAX];

	return ue_wait_gone_path(ue_evpath(path, sys, name, NULL), timeout_ms);
}

static inline int ue_enable_sys(const char *sys, const char *name, bool on)
{
	char path[UE_PATH_MAX];

	return ue_write_str(ue_evpath(path, sys, name, "enable"),
			    on ? "1\n" : "0\n");
}

static inline int ue_enable(const char *name, bool on)
{
	return ue_enable_sys(NULL, name, on);
}

/*
 * Undo whatever an earlier, interrupted run may have left on event @name:
 * the enable, a filter, every trigger, then delete it (persistent events
 * created by a test outlive it).  Errors are ignored: usually there is
 * nothing to undo.  The delete is EBUSY while the calling process still
 * has a registration of the event (registrations outlive their files), so
 * a fixture cleans up after its test process is gone
 * (FIXTURE_TEARDOWN_PARENT) or after unregistering.
 */
static inline void ue_cleanup_sys(const char *sys, const char *name)
{
	char path[UE_PATH_MAX], cmd[600];
	char *trig, *line, *next, *end;

	if (ue_event_exists(sys, name)) {
		ue_enable_sys(sys, name, false);
		ue_write_str(ue_evpath(path, sys, name, "filter"), "0\n");
		trig = ue_read_file(ue_evpath(path, sys, name, "trigger"));
		for (line = trig; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			else
				next = line + strlen(line);
			if (*line == '#' || !*line)
				continue;
			end = strstr(line, " [");
			if (end)
				*end = '\0';
			snprintf(cmd, sizeof(cmd), "!%s\n", line);
			ue_write_flags(path, O_APPEND, cmd, strlen(cmd));
		}
		free(trig);
	}
	ue_del(name);
}

static inline void ue_cleanup(const char *name)
{
	ue_cleanup_sys(NULL, name);
}

/* ue_cleanup() each of the @n global events named in @names */
static inline void ue_cleanup_names(const char * const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ue_cleanup(names[i]);
}

/* --- trace ---------------------------------------------------- */

/* Re-read the trace file into *@buf (freeing the old text) */
static inline const char *ue_trace_read(char **buf)
{
	free(*buf);
	*buf = ue_read_tracefs("trace");
	return *buf ? *buf : "";
}

static inline int ue_trace_clear(void)
{
	char path[UE_PATH_MAX];

	ue_write_str(ue_path(path, "tracing_on"), "1\n");
	return ue_write_str(ue_path(path, "trace"), "");
}

/*
 * Find the next record of event @name in trace text @p: a line holding
 * " name:" followed by a space or the end of the line.  Returns a pointer
 * to the event name, or NULL.
 */
static inline const char *ue_trace_next(const char *p, const char *name)
{
	char needle[128];
	size_t n;

	n = snprintf(needle, sizeof(needle), " %s:", name);
	for (; p && (p = strstr(p, needle)); p += n) {
		if (p[n] == ' ' || p[n] == '\n' || p[n] == '\0')
			return p + 1;
	}
	return NULL;
}

/* Number of lines of @buf that hold a record of event @name. */
static inline int ue_trace_count(const char *buf, const char *name)
{
	const char *p = buf;
	int n = 0;

	while ((p = ue_trace_next(p, name))) {
		n++;
		p += strlen(name);
	}
	return n;
}

/*
 * Copy the @nth (0-based) line of @buf holding a record of @name, from the
 * event name on, into @line.  0 or -ENOENT.
 */
static inline int ue_trace_line(const char *buf, const char *name, int nth,
				char *line, size_t size)
{
	const char *p = buf, *eol;

	while ((p = ue_trace_next(p, name))) {
		if (!nth--) {
			eol = strchrnul(p, '\n');
			snprintf(line, size, "%.*s", (int)(eol - p), p);
			return 0;
		}
		p += strlen(name);
	}
	return -ENOENT;
}

/*
 * Does @line hold the token @tok ("name=value"), delimited by spaces or
 * the line's ends?
 */
static inline bool ue_has_token(const char *line, const char *tok)
{
	size_t n = strlen(tok);
	const char *p;

	for (p = line; (p = strstr(p, tok)); p++) {
		if ((p == line || p[-1] == ' ') &&
		    (p[n] == ' ' || p[n] == '\0' || p[n] == '\n'))
			return true;
	}
	return false;
}

/* --- child processes -------------------------------------------------------- */

/*
 * fork() whose child is killed when the test process dies, so that a
 * failed test never leaves a helper behind holding events.
 */
static inline pid_t ue_fork(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(99);
	}
	return pid;
}

/* waitpid() with a deadline; kills the child when it passes. */
static inline int ue_wait_child(pid_t pid, int timeout_ms, int *status)
{
	long long end = ue_now_ms() + timeout_ms;
	pid_t ret;

	for (;;) {
		ret = waitpid(pid, status, WNOHANG);
		if (ret == pid)
			return 0;
		if (ret < 0)
			return -errno;
		if (ue_now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			return -ETIMEDOUT;
		}
		usleep(1000);
	}
}

/* Exit status of a child that ended with _exit(), or -1. */
static inline int ue_exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif /* _USER_EVENTS_SELFTESTS_H */
