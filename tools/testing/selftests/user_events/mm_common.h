/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of the registrations of an address space share: their
 * events' prefix, names and timeouts, atomic loads and polls of shared
 * words, registering through a file closed at once, DIAG_IOCSDEL tried
 * again while a holder goes away, and a child process that answers
 * questions about its copy of an enable word.
 */
#ifndef _USER_EVENTS_MM_COMMON_H
#define _USER_EVENTS_MM_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "user_events_selftests.h"

#define EV_PREFIX	"__mm_"

#define WAIT_MS		10000	/* for anything that should be quick */
#define ASYNC_MS	5000	/* for a bit the kernel updates later */

static long page_size;

/* --- small helpers ----------------------------------------------------- */

static inline int ld_int(const int *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static inline void st_int(int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

static inline __u32 ld_u32(const __u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

/* Poll until *@p == @want, for up to @ms; true once it is */
static inline bool wait_int(const int *p, int want, int ms)
{
	long long end = ue_now_ms() + ms;

	while (ld_int(p) != want) {
		if (ue_now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/* Poll until (*@word & @mask) == @want, for up to @ms */
static inline bool wait_bits(const __u32 *word, __u32 mask, __u32 want,
			     int ms)
{
	long long end = ue_now_ms() + ms;

	while ((ld_u32(word) & mask) != want) {
		if (ue_now_ms() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/*
 * The word once it reads @want, or after ASYNC_MS: after fork() its page
 * is copy-on-write shared, and such a word is updated by a work item.
 */
static inline __u32 settled(const __u32 *word, __u32 want)
{
	wait_bits(word, ~0U, want, ASYNC_MS);
	return ld_u32(word);
}

/* Register with PERSIST: a DEL after the last reference is deterministic */
static inline int reg_p(int fd, const char *cmd, void *addr, int size,
			int bit, int *idx)
{
	return ue_reg_flags(fd, cmd, USER_EVENT_REG_PERSIST, addr, size, bit,
			    idx);
}

/* Register through a file of its own and close the file at once */
static inline int reg_closed(const char *cmd, void *addr, int size, int bit)
{
	int fd = ue_open(), ret;

	if (fd < 0)
		return fd;
	ret = reg_p(fd, cmd, addr, size, bit, NULL);
	close(fd);
	return ret;
}

/*
 * DIAG_IOCSDEL of @name, tried again while it is EBUSY for up to @ms (a
 * process that held it is going away).  Returns the last result and
 * stores the number of tries in @tries.
 */
static inline int del_retry(const char *name, int ms, int *tries)
{
	long long end = ue_now_ms() + ms;
	int ret;

	*tries = 0;
	for (;;) {
		ret = ue_del(name);
		(*tries)++;
		if (ret != -EBUSY || ue_now_ms() > end)
			return ret;
		usleep(2000);
	}
}

/* State letter of /proc/@pid/task/@tid/stat, 0 if unreadable */
static inline char task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* A MAP_SHARED page, present in this process, or NULL */
static inline void *shared_page(void)
{
	void *p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, page_size);
	return p;
}

/* Delete whatever an interrupted earlier run of this test left */
static inline void cleanup_leftovers(void)
{
	char *buf = ue_read_tracefs("user_events_status");
	char name[128], *p, *eol;
	size_t len;

	for (p = buf; p && *p; p = *eol ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		if (strncmp(p, EV_PREFIX, strlen(EV_PREFIX)))
			continue;
		len = strcspn(p, "\n ");
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		ue_cleanup(name);
	}
	free(buf);
}

/* The sizes of a fixture's event names and registration commands */
#define EV_SIZE		64
#define CMD_SIZE	96

/*
 * What each fixture's setup does once the test can run: delete what an
 * interrupted earlier run left, name this run's two events after its
 * process ("u32 n" each) and empty the trace.  0, or -1 if the trace
 * could not be emptied.
 */
static inline int setup_events(char ev[EV_SIZE], char cmd[CMD_SIZE],
			       char ev2[EV_SIZE], char cmd2[CMD_SIZE])
{
	cleanup_leftovers();
	snprintf(ev, EV_SIZE, EV_PREFIX "%d_a", getpid());
	snprintf(cmd, CMD_SIZE, "%s u32 n", ev);
	snprintf(ev2, EV_SIZE, EV_PREFIX "%d_b", getpid());
	snprintf(cmd2, CMD_SIZE, "%s u32 n", ev2);
	return ue_trace_clear();
}

/* --- a child process that answers questions about its word ------------- */

enum { PEER_READ = 1, PEER_REG, PEER_UNREG, PEER_QUIT };

struct peer_msg {
	int op;
	int bit;
};

struct chan {
	int to_child[2];
	int to_parent[2];
};

static inline int chan_open(struct chan *c)
{
	if (pipe(c->to_child))
		return -errno;
	if (pipe(c->to_parent)) {
		close(c->to_child[0]);
		close(c->to_child[1]);
		return -errno;
	}
	return 0;
}

/* Keep the ends this side uses: the child reads [0] of to_child */
static inline void chan_side(struct chan *c, bool child)
{
	close(child ? c->to_child[1] : c->to_child[0]);
	close(child ? c->to_parent[0] : c->to_parent[1]);
}

static inline void chan_close(struct chan *c, bool child)
{
	close(child ? c->to_child[0] : c->to_child[1]);
	close(child ? c->to_parent[1] : c->to_parent[0]);
}

/* Read exactly @len bytes within @ms; 0, -ETIMEDOUT, -EPIPE or -errno */
static inline int recv_all(int fd, void *buf, size_t len, int ms)
{
	long long end = ue_now_ms() + ms;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;
	int left;

	while (got < len) {
		left = end - ue_now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = read(fd, (char *)buf + got, len - got);
		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += n;
	}
	return 0;
}

static inline int send_all(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

struct peer {
	int rfd, wfd;
	__u32 *word;
	const char *cmd;
};

/*
 * The child side: answer PEER_READ with the word, PEER_REG / PEER_UNREG
 * with the result of registering / unregistering the bit through a new
 * file (closed at once), until PEER_QUIT.  Returns the exit code.
 */
static inline int peer_loop(const struct peer *p)
{
	struct peer_msg m;
	int reply;

	for (;;) {
		if (recv_all(p->rfd, &m, sizeof(m), 300000))
			return 90;
		switch (m.op) {
		case PEER_READ:
			reply = ld_u32(p->word);
			break;
		case PEER_REG:
			reply = reg_closed(p->cmd, p->word, 4, m.bit);
			break;
		case PEER_UNREG:
			reply = ue_unreg_own(p->word, m.bit);
			break;
		case PEER_QUIT:
			return 0;
		default:
			return 91;
		}
		if (send_all(p->wfd, &reply, sizeof(reply)))
			return 92;
	}
}

/* The parent side: one request, its reply in @reply; 0 or -errno */
static inline int peer_call(struct chan *c, int op, int bit, int *reply)
{
	struct peer_msg m = { .op = op, .bit = bit };
	int ret;

	ret = send_all(c->to_child[1], &m, sizeof(m));
	if (ret || op == PEER_QUIT)
		return ret;
	return recv_all(c->to_parent[0], reply, sizeof(*reply), WAIT_MS);
}

/*
 * The child's word once it reads @want, or what it read last after
 * ASYNC_MS (-1 when it did not answer): a word in a page that is still
 * copy-on-write shared after fork() is updated by a work item.
 */
static inline long peer_word(struct chan *c, __u32 want)
{
	long long end = ue_now_ms() + ASYNC_MS;
	int v;

	for (;;) {
		if (peer_call(c, PEER_READ, 0, &v))
			return -1;
		if ((__u32)v == want || ue_now_ms() > end)
			return (__u32)v;
		usleep(2000);
	}
}

/* The child's result of PEER_REG / PEER_UNREG, or -EPIPE & co */
static inline int peer_result(struct chan *c, int op, int bit)
{
	int v, ret = peer_call(c, op, bit, &v);

	return ret ? ret : v;
}

/* Delete @name, giving dying holders (killed children) a moment */
static inline void cleanup_event(const char *name)
{
	int tries;

	ue_cleanup(name);
	if (ue_event_exists(NULL, name))
		del_retry(name, 3000, &tries);
}

/* Fork a child that runs peer_loop() on @word; its pid or -1 */
static inline pid_t fork_peer(struct chan *c, __u32 *word, const char *cmd)
{
	struct peer p;
	pid_t pid;

	if (chan_open(c))
		return -1;
	pid = ue_fork();
	if (pid == 0) {
		chan_side(c, true);
		p.rfd = c->to_child[0];
		p.wfd = c->to_parent[1];
		p.word = word;
		p.cmd = cmd;
		_exit(peer_loop(&p));
	}
	chan_side(c, false);
	return pid;
}

#endif /* _USER_EVENTS_MM_COMMON_H */
