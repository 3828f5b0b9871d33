// SPDX-License-Identifier: GPL-2.0
/*
 * The write path of user_events: files not open for writing, write() and
 * writev() errors, records from pages not yet present, a write index
 * alone, threads that share a file and an fd passed over SCM_RIGHTS.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"

#define TIMEOUT		300

#define EV_WRITE	UE_PREFIX "aw_write"
#define EV_NOFIELD	UE_PREFIX "aw_nofield"
#define EV_THREADS	UE_PREFIX "aw_threads"
#define EV_SCM		UE_PREFIX "aw_scm"
#define EV_RO		UE_PREFIX "aw_ro"

static const char * const events[] = {
	EV_WRITE, EV_NOFIELD, EV_THREADS, EV_SCM, EV_RO,
};

#include "abi_fixture.h"

/*
 * DIAG_IOCSREG, DIAG_IOCSUNREG and DIAG_IOCSDEL change what the kernel
 * keeps: on a file not open for writing they fail with EBADF, as write()
 * does, and change nothing.  O_WRONLY is enough.
 */
TEST_F_TIMEOUT(abi, read_only_file, TIMEOUT)
{
	char path[UE_PATH_MAX];
	static __u32 word, word2;
	int rd, wr, idx = -1;
	__u32 val = 1;

	rd = open(ue_path(path, "user_events_data"), O_RDONLY);
	ASSERT_LE(0, rd);

	/* Nothing is registered, nor created */
	EXPECT_EQ(-EBADF, ue_reg(rd, EV_RO " u32 a", &word, 0, &idx));
	EXPECT_EQ(-1, idx);
	EXPECT_FALSE(ue_event_exists(NULL, EV_RO));
	EXPECT_EQ(-EBADF, ue_unreg(rd, &word, 0));
	EXPECT_EQ(-EBADF, ue_del_fd(rd, EV_RO));
	/* write() says the same */
	EXPECT_EQ(-1, write(rd, &val, sizeof(val)));
	EXPECT_EQ(EBADF, errno);

	/* A registration made through a writable file stays */
	ASSERT_EQ(0, ue_reg(self->fd, EV_RO " u32 a", &word, 0, NULL));
	ASSERT_EQ(0, ue_enable(EV_RO, true));
	EXPECT_EQ(1, word);
	EXPECT_EQ(-EBADF, ue_unreg(rd, &word, 0));
	EXPECT_EQ(1, word);
	EXPECT_EQ(-EBADF, ue_del_fd(rd, EV_RO));
	EXPECT_TRUE(ue_event_exists(NULL, EV_RO));
	/* EBADF comes first: the same for an unknown address */
	EXPECT_EQ(-EBADF, ue_unreg(rd, &word2, 3));
	/* Other ioctls are still unknown */
	EXPECT_EQ(-1, ioctl(rd, _IOW(DIAG_IOC_MAGIC, 9, char *), "x"));
	EXPECT_EQ(ENOTTY, errno);
	close(rd);

	/* Open for writing only: all three work */
	wr = open(path, O_WRONLY);
	ASSERT_LE(0, wr);
	EXPECT_EQ(0, ue_reg(wr, EV_RO " u32 a", &word2, 0, NULL));
	EXPECT_EQ(1, word2);
	EXPECT_EQ(0, ue_unreg(wr, &word2, 0));
	EXPECT_EQ(0, ue_unreg(wr, &word, 0));
	EXPECT_EQ(0, word);
	ASSERT_EQ(0, ue_enable(EV_RO, false));
	close(self->fd);
	self->fd = -1;
	close(wr);
	EXPECT_EQ(-ENOENT, ue_del(EV_RO));
}

/* Put a record of @idx with u32 fields @a and @b at @at */
static void put_rec(void *at, int idx, __u32 a, __u32 b)
{
	char *p = at;

	memcpy(p, &idx, sizeof(idx));
	memcpy(p + 4, &a, sizeof(a));
	memcpy(p + 8, &b, sizeof(b));
}

TEST_F_TIMEOUT(abi, write_errors, TIMEOUT)
{
	static __u32 word;
	unsigned char buf[64], rec[12];
	struct iovec io[2], iv[4];
	int idx = -1, bad, fd2;
	__u32 val = 7;
	char *page;

	ASSERT_EQ(0, ue_reg(self->fd, EV_WRITE " u32 a; u32 b", &word, 0,
			    &idx));
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &idx, sizeof(idx));

	/* Nothing attached */
	EXPECT_EQ(-1, write(self->fd, buf, 12));
	EXPECT_EQ(EBADF, errno);

	ASSERT_EQ(0, ue_enable(EV_WRITE, true));
	ASSERT_EQ(1, word);

	/* Fewer than 4 bytes */
	EXPECT_EQ(-1, write(self->fd, buf, 3));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, write(self->fd, buf, 0));
	EXPECT_EQ(EFAULT, errno);
	/* A file position */
	EXPECT_EQ(-1, pwrite(self->fd, buf, 12, 1));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(12, pwrite(self->fd, buf, 12, 0));

	/* Negative and unknown indexes */
	bad = -1;
	EXPECT_EQ(-EINVAL, ue_emit(self->fd, bad, &val, sizeof(val)));
	bad = INT_MIN;
	EXPECT_EQ(-EINVAL, ue_emit(self->fd, bad, &val, sizeof(val)));
	EXPECT_EQ(-ENOENT, ue_emit(self->fd, idx + 1000, buf + 4, 8));

	/* Short payload: the fixed fields are 8 bytes */
	EXPECT_EQ(-EINVAL, ue_emit(self->fd, idx, buf + 4, 4));
	EXPECT_EQ(-EINVAL, ue_emit(self->fd, idx, buf + 4, 7));
	EXPECT_EQ(-EINVAL, ue_emit(self->fd, idx, NULL, 0));

	/* Faults while copying */
	page = mmap(NULL, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	io[0].iov_base = &idx;
	io[0].iov_len = sizeof(idx);
	io[1].iov_base = page;
	io[1].iov_len = 8;
	EXPECT_EQ(-1, writev(self->fd, io, 2));
	EXPECT_EQ(EFAULT, errno);
	io[0].iov_base = page;
	io[1].iov_base = buf + 4;
	EXPECT_EQ(-1, writev(self->fd, io, 2));
	EXPECT_EQ(EFAULT, errno);
	munmap(page, page_size);

	/* The index split over iovecs, the payload over several */
	put_rec(rec, idx, 11, 12);
	iv[0].iov_base = rec;
	iv[0].iov_len = 2;
	iv[1].iov_base = rec + 2;
	iv[1].iov_len = 3;
	iv[2].iov_base = rec + 5;
	iv[2].iov_len = 0;
	iv[3].iov_base = rec + 5;
	iv[3].iov_len = 7;
	EXPECT_EQ(12, writev(self->fd, iv, 4));
	/* Longer than the fixed fields is fine */
	EXPECT_EQ(4 + 20, ue_emit(self->fd, idx, buf + 4, 20));

	ASSERT_EQ(0, ue_enable(EV_WRITE, false));
	ue_trace_read(&self->trace);
	/* pwrite at 0, the split writev, the long write */
	EXPECT_EQ(3, ue_trace_count(self->trace, EV_WRITE));

	/* A file without registrations */
	fd2 = ue_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOENT, ue_emit(fd2, 0, buf + 4, 8));
	close(fd2);
}

/*
 * write() of a record whose pages are not present: shared memory whose
 * page table entries MADV_DONTNEED drops, the contents kept, so that the
 * first touch of each page faults.  The kernel must fault them in and
 * record the write, whether the index or only the payload is missing and
 * whatever the size; a payload running into a PROT_NONE page is EFAULT,
 * unless nothing is attached (EBADF comes first).
 */
TEST_F_TIMEOUT(abi, write_pages_not_present, TIMEOUT)
{
	static __u32 word;
	char *map, *p1, *p2, line[256], a[16], b[16];
	int idx = -1, n;

	ASSERT_EQ(0, ue_reg(self->fd, EV_WRITE " u32 a; u32 b", &word, 0,
			    &idx));
	map = mmap(NULL, 3 * page_size, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	p1 = map + page_size;
	p2 = map + 2 * page_size;
	/* At the end of p1: the index and a, then b in p2, made PROT_NONE */
	memcpy(p2 - 8, &idx, sizeof(idx));
	ASSERT_EQ(0, mprotect(p2, page_size, PROT_NONE));

	/* Nothing attached: EBADF, even with the payload unreadable */
	EXPECT_EQ(-1, write(self->fd, p2 - 8, 12));
	EXPECT_EQ(EBADF, errno);
	ASSERT_EQ(0, ue_enable(EV_WRITE, true));
	ASSERT_EQ(1, word);

	/* The whole record on a page not present */
	put_rec(map, idx, 3, 4);
	ASSERT_EQ(0, madvise(map, 2 * page_size, MADV_DONTNEED));
	EXPECT_EQ(12, write(self->fd, map, 12));

	/* The index on one page, the payload on the next, neither present */
	put_rec(p1 - 4, idx, 5, 6);
	ASSERT_EQ(0, madvise(map, 2 * page_size, MADV_DONTNEED));
	EXPECT_EQ(12, write(self->fd, p1 - 4, 12));

	/* Longer than any inline copy: 4 + 300 bytes, not present */
	put_rec(p1, idx, 7, 8);
	ASSERT_EQ(0, madvise(map, 2 * page_size, MADV_DONTNEED));
	EXPECT_EQ(304, write(self->fd, p1, 304));

	/* The payload running into the PROT_NONE page: nothing recorded */
	ASSERT_EQ(0, madvise(map, 2 * page_size, MADV_DONTNEED));
	EXPECT_EQ(-1, write(self->fd, p2 - 8, 12));
	EXPECT_EQ(EFAULT, errno);

	ASSERT_EQ(0, ue_enable(EV_WRITE, false));
	munmap(map, 3 * page_size);

	ue_trace_read(&self->trace);
	ASSERT_EQ(3, ue_trace_count(self->trace, EV_WRITE));
	for (n = 0; n < 3; n++) {
		snprintf(a, sizeof(a), "a=%d", 3 + 2 * n);
		snprintf(b, sizeof(b), "b=%d", 4 + 2 * n);
		ASSERT_EQ(0, ue_trace_line(self->trace, EV_WRITE, n, line,
					   sizeof(line)));
		EXPECT_TRUE(ue_has_token(line, a)) TH_LOG("%s", line);
		EXPECT_TRUE(ue_has_token(line, b)) TH_LOG("%s", line);
	}
}

/*
 * writev() whose index uses up every iovec, UIO_FASTIOV of them (the
 * kernel's on-stack array): nothing may be read past the last one.
 */
TEST_F_TIMEOUT(abi, writev_index_only, TIMEOUT)
{
	static __u32 word, word2;
	struct iovec iv[8];
	int idx = -1, idx2 = -1;
	unsigned int i;

	ASSERT_EQ(0, ue_reg(self->fd, EV_NOFIELD, &word, 0, &idx));
	ASSERT_EQ(0, ue_reg(self->fd, EV_WRITE " u32 a; u32 b", &word2, 0,
			    &idx2));
	ASSERT_EQ(0, ue_enable(EV_NOFIELD, true));
	ASSERT_EQ(0, ue_enable(EV_WRITE, true));

	for (i = 0; i < ARRAY_SIZE(iv); i++) {
		iv[i].iov_base = &idx;
		iv[i].iov_len = 0;
	}
	/* The index first, then empty iovecs */
	iv[0].iov_len = sizeof(idx);
	EXPECT_EQ(4, writev(self->fd, iv, ARRAY_SIZE(iv)));
	/* The index last */
	iv[0].iov_len = 0;
	iv[7].iov_len = sizeof(idx);
	EXPECT_EQ(4, writev(self->fd, iv, ARRAY_SIZE(iv)));
	/* The index split over the last two */
	iv[6].iov_base = &idx;
	iv[6].iov_len = 1;
	iv[7].iov_base = (char *)&idx + 1;
	iv[7].iov_len = sizeof(idx) - 1;
	EXPECT_EQ(4, writev(self->fd, iv, ARRAY_SIZE(iv)));
	/* An event with fields gets no payload: too short */
	iv[6].iov_base = &idx2;
	iv[7].iov_base = (char *)&idx2 + 1;
	EXPECT_EQ(-1, writev(self->fd, iv, ARRAY_SIZE(iv)));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, ue_enable(EV_NOFIELD, false));
	ASSERT_EQ(0, ue_enable(EV_WRITE, false));
	ue_trace_read(&self->trace);
	EXPECT_EQ(3, ue_trace_count(self->trace, EV_NOFIELD));
	EXPECT_EQ(0, ue_trace_count(self->trace, EV_WRITE));
}

#define WRITERS		4
#define WRITES		500

struct writer {
	int fd, idx;
	__u32 n;
	int done;
};

/* WRITES records of index w->idx with field n = w->n */
static void *writer_main(void *arg)
{
	struct writer *w = arg;
	int i;

	for (i = 0; i < WRITES; i++)
		if (ue_emit(w->fd, w->idx, &w->n, sizeof(w->n)) == 8)
			w->done++;
	return NULL;
}

/*
 * Threads of one process share one file and write at once: every record
 * lands (the file has no position the writes would have to agree on).
 */
TEST_F_TIMEOUT(abi, threads_share_file, TIMEOUT)
{
	int idx = -1, i, got[WRITERS] = { 0 };
	struct writer w[WRITERS];
	pthread_t t[WRITERS];
	char want[32], line[256];
	static __u32 word;
	const char *p;

	ASSERT_EQ(0, ue_reg(self->fd, EV_THREADS " u32 n", &word, 0, &idx));
	ASSERT_EQ(0, ue_enable(EV_THREADS, true));
	for (i = 0; i < WRITERS; i++) {
		w[i] = (struct writer){ .fd = self->fd, .idx = idx, .n = 100 + i };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, writer_main, &w[i]));
	}
	for (i = 0; i < WRITERS; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(WRITES, w[i].done) TH_LOG("writer %d", i);
	}
	ASSERT_EQ(0, ue_enable(EV_THREADS, false));

	/* Each writer's records, by their field: one pass over the trace */
	p = ue_trace_read(&self->trace);
	while ((p = ue_trace_next(p, EV_THREADS))) {
		snprintf(line, sizeof(line), "%.*s",
			 (int)(strchrnul(p, '\n') - p), p);
		for (i = 0; i < WRITERS; i++) {
			snprintf(want, sizeof(want), "n=%u", 100 + i);
			got[i] += ue_has_token(line, want);
		}
		p += strlen(EV_THREADS);
	}
	for (i = 0; i < WRITERS; i++)
		EXPECT_EQ(WRITES, got[i]) TH_LOG("records of writer %d", i);
}

/* Send @fd and @idx over unix socket @sock */
static int send_fd(int sock, int fd, int idx)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { .iov_base = &idx, .iov_len = sizeof(idx) };
	struct msghdr msg = {
		.msg_iov = &io, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == sizeof(idx) ? 0 : -errno;
}

static int recv_fd(int sock, int *idx)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { .iov_base = idx, .iov_len = sizeof(*idx) };
	struct msghdr msg = {
		.msg_iov = &io, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != sizeof(*idx))
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

TEST_F_TIMEOUT(abi, fd_over_scm_rights, TIMEOUT)
{
	static __u32 word;
	char line[256];
	int sv[2], idx = -1, status = 0;
	long result = 0;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));

	/* The other process exists before the file is opened */
	close(self->fd);
	self->fd = -1;
	pid = ue_fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u32 val = 0x5151;
		int fd, own, i;

		close(sv[0]);
		fd = recv_fd(sv[1], &i);
		if (fd < 0)
			_exit(1);
		result = ue_emit(fd, i, &val, sizeof(val));
		/* its own file does not know the index */
		own = ue_open();
		if (own >= 0 && ue_emit(own, i, &val, sizeof(val)) != -ENOENT)
			result = -1000;
		write(sv[1], &result, sizeof(result));
		_exit(0);
	}
	close(sv[1]);

	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ue_reg(self->fd, EV_SCM " u32 a", &word, 0, &idx));
	ASSERT_EQ(0, ue_enable(EV_SCM, true));
	ASSERT_EQ(0, send_fd(sv[0], self->fd, idx));
	EXPECT_EQ(sizeof(result), read(sv[0], &result, sizeof(result)));
	EXPECT_EQ(8, result);
	ASSERT_EQ(0, ue_wait_child(pid, 60000, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	ASSERT_EQ(0, ue_enable(EV_SCM, false));
	close(sv[0]);

	ue_trace_read(&self->trace);
	ASSERT_EQ(1, ue_trace_count(self->trace, EV_SCM));
	ASSERT_EQ(0, ue_trace_line(self->trace, EV_SCM, 0, line, sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "a=20817")) TH_LOG("%s", line);
}

TEST_HARNESS_MAIN
