// SPDX-License-Identifier: GPL-2.0
/*
 * A registrant that stalls blocks only itself.  With a FUSE server that
 * withholds its answers, a registrant can stall its own mmap_lock on a
 * FUSE page: the enable of its event still returns and other processes
 * still fork.  A word in a shared FUSE page whose READs are withheld never
 * parks a kernel worker.  A registrant whose enable word waits for FUSE
 * delays no other registrant of its file description.  And a registration
 * whose last store faults leaves another thread's alone.
 */
#include <errno.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/fuse.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "mm_common.h"

#define TIMEOUT		600

#define HUNG_SYSCTL	"/proc/sys/kernel/hung_task_timeout_secs"

static pid_t my_tid(void)
{
	return syscall(SYS_gettid);
}

/* --- fixture ----------------------------------------------------------- */

struct fuse_ctl;
#define FUSE_DIR_SIZE	64

/* Shared with the teardown, which runs in the harness's process */
FIXTURE(mm) {
	char ev[EV_SIZE], cmd[CMD_SIZE];	/* the main event */
	char ev2[EV_SIZE], cmd2[CMD_SIZE];	/* a second one */
	long saved_hung;		/* hung_task_timeout_secs, or -1 */
	struct fuse_ctl *fuse;		/* shared with the FUSE server */
	char fuse_dir[FUSE_DIR_SIZE];
	bool fuse_mounted;
};

FIXTURE_SETUP(mm)
{
	const char *reason = ue_setup();

	self->saved_hung = -1;
	if (reason)
		SKIP(return, "%s", reason);
	ASSERT_EQ(0, setup_events(self->ev, self->cmd, self->ev2, self->cmd2));
}

/*
 * In the harness's process, once the test process is gone: its
 * registrations went with its memory and its children (ue_fork()) were
 * killed with it, which also ended a FUSE server and so any stall.
 */
FIXTURE_TEARDOWN_PARENT(mm)
{
	if (self->fuse_mounted) {
		umount2(self->fuse_dir, MNT_DETACH);
		rmdir(self->fuse_dir);
	}
	if (self->saved_hung >= 0)
		ue_write_long(HUNG_SYSCTL, self->saved_hung);
	if (!ue_setup()) {
		cleanup_event(self->ev);
		cleanup_event(self->ev2);
	}
}

/* --- 1: liveness while a registrant stalls its own mmap_lock ----------- */

/*
 * A tiny FUSE file system served by a child of the test: the root
 * directory and one writable file whose READs can be held until the test
 * releases them (or FUSE_HOLD_MAX_MS pass, so that nothing hangs for
 * good): either by a server that answers nothing meanwhile (hold) or by
 * one that keeps answering everything else (withhold).
 */
#define FUSE_FILE	"file"
#define FUSE_FILE_INO	2
#define FUSE_FILE_SIZE	(64 * 1024)
#define FUSE_HOLD_MAX_MS 45000
#define FUSE_BYTE	'F'
#define FUSE_NR_HELD	64	/* READs withheld at most */

/* The protocol's "not implemented" errno (checkpatch flags the name) */
#define PASTE(a, b)	a##b
#define FUSE_NOT_IMPL	PASTE(ENO, SYS)

struct fuse_ctl {
	int hold;	/* hold READs until release */
	int release;
	int held;	/* READs that were held */
	int answered;	/* READs answered */
	int opcodes;	/* requests served */
	int withhold;	/* queue READs, answer the rest, until cleared */
	int withheld;	/* READs that were queued */
	int flush;	/* changed: answer the queued READs, withhold on */
	int writes;	/* WRITEs served */
};

/* The file's contents, in the server */
static char fuse_data[FUSE_FILE_SIZE];

struct fuse_held_read {
	__u64 unique;
	__u64 offset;
	__u32 size;
};

static void fuse_reply(int fd, __u64 unique, int err, const void *data,
		       size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + len,
		.error = err,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ .iov_base = &out, .iov_len = sizeof(out) },
		{ .iov_base = (void *)data, .iov_len = len },
	};

	/* ENOENT: the request was interrupted meanwhile */
	if (writev(fd, iov, len ? 2 : 1) < 0 && errno != ENOENT)
		_exit(40);
}

static void fuse_attr_of(__u64 ino, struct fuse_attr *a)
{
	bool root = ino == FUSE_ROOT_ID;

	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = root ? S_IFDIR | 0755 : S_IFREG | 0666;
	a->nlink = root ? 2 : 1;
	a->size = root ? 0 : FUSE_FILE_SIZE;
	a->blocks = a->size / 512;
	a->blksize = 4096;
}

static void fuse_answer_read(int fd, const struct fuse_held_read *r,
			     struct fuse_ctl *ctl)
{
	size_t len = 0;

	if (r->offset < FUSE_FILE_SIZE) {
		len = FUSE_FILE_SIZE - r->offset;
		if (len > r->size)
			len = r->size;
	}
	/* Counted first: the reader may check the count once it has the data */
	__atomic_add_fetch(&ctl->answered, 1, __ATOMIC_SEQ_CST);
	fuse_reply(fd, r->unique, 0, fuse_data + (len ? r->offset : 0), len);
}

static struct fuse_held_read fuse_queue[FUSE_NR_HELD];
static int fuse_nr_queued;
static long long fuse_queue_end;
static int fuse_flushed;

/* Answer the withheld READs once the test says so or time is up */
static void fuse_flush_queue(int fd, struct fuse_ctl *ctl)
{
	int flush = ld_int(&ctl->flush);
	int i;

	if (!fuse_nr_queued ||
	    (ld_int(&ctl->withhold) && flush == fuse_flushed &&
	     ue_now_ms() < fuse_queue_end))
		return;
	fuse_flushed = flush;
	for (i = 0; i < fuse_nr_queued; i++)
		fuse_answer_read(fd, &fuse_queue[i], ctl);
	fuse_nr_queued = 0;
}

static void fuse_read_reply(int fd, const struct fuse_in_header *in,
			    const struct fuse_read_in *ri,
			    struct fuse_ctl *ctl)
{
	struct fuse_held_read r = {
		.unique = in->unique,
		.offset = ri->offset,
		.size = ri->size,
	};
	long long end = ue_now_ms() + FUSE_HOLD_MAX_MS;

	if (ld_int(&ctl->withhold) && fuse_nr_queued < FUSE_NR_HELD) {
		if (!fuse_nr_queued)
			fuse_queue_end = end;
		fuse_queue[fuse_nr_queued++] = r;
		__atomic_add_fetch(&ctl->withheld, 1, __ATOMIC_SEQ_CST);
		return;
	}
	if (ld_int(&ctl->hold)) {
		__atomic_add_fetch(&ctl->held, 1, __ATOMIC_SEQ_CST);
		while (!ld_int(&ctl->release) && ue_now_ms() < end)
			usleep(5000);
	}
	fuse_answer_read(fd, &r, ctl);
}

/* Store what a WRITE brings (within the file's fixed size) */
static void fuse_write_reply(int fd, const struct fuse_in_header *in,
			     const struct fuse_write_in *wi,
			     struct fuse_ctl *ctl)
{
	struct fuse_write_out out = { .size = wi->size };
	size_t len = wi->size;

	if (wi->offset < FUSE_FILE_SIZE) {
		if (len > FUSE_FILE_SIZE - wi->offset)
			len = FUSE_FILE_SIZE - wi->offset;
		memcpy(fuse_data + wi->offset, wi + 1, len);
	}
	fuse_reply(fd, in->unique, 0, &out, sizeof(out));
	__atomic_add_fetch(&ctl->writes, 1, __ATOMIC_SEQ_CST);
}

/* Serve /dev/fuse @fd until the connection goes away; the exit code */
static int fuse_serve(int fd, struct fuse_ctl *ctl)
{
	static char buf[FUSE_MIN_READ_BUFFER + 256 * 1024];
	const struct fuse_in_header *in = (void *)buf;
	const void *arg = buf + sizeof(*in);
	struct fuse_init_out init;
	struct fuse_entry_out entry;
	struct fuse_attr_out attr;
	struct fuse_open_out open_out;
	const struct fuse_init_in *ii;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	memset(fuse_data, FUSE_BYTE, sizeof(fuse_data));
	for (;;) {
		fuse_flush_queue(fd, ctl);
		if (poll(&pfd, 1, 20) == 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR || errno == ENOENT ||
			    errno == EAGAIN)
				continue;
			return errno == ENODEV ? 0 : 41;
		}
		if ((size_t)n < sizeof(*in))
			continue;
		__atomic_add_fetch(&ctl->opcodes, 1, __ATOMIC_SEQ_CST);
		switch (in->opcode) {
		case FUSE_INIT:
			ii = arg;
			memset(&init, 0, sizeof(init));
			init.major = FUSE_KERNEL_VERSION;
			init.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
				     ii->minor : FUSE_KERNEL_MINOR_VERSION;
			init.max_readahead = ii->max_readahead;
			init.max_background = 16;
			init.congestion_threshold = 12;
			init.max_write = 4096;
			init.time_gran = 1;
			fuse_reply(fd, in->unique, 0, &init, sizeof(init));
			break;
		case FUSE_LOOKUP:
			if (in->nodeid != FUSE_ROOT_ID ||
			    strcmp(arg, FUSE_FILE)) {
				fuse_reply(fd, in->unique, -ENOENT, NULL, 0);
				break;
			}
			memset(&entry, 0, sizeof(entry));
			entry.nodeid = FUSE_FILE_INO;
			entry.entry_valid = 3600;
			entry.attr_valid = 3600;
			fuse_attr_of(FUSE_FILE_INO, &entry.attr);
			fuse_reply(fd, in->unique, 0, &entry, sizeof(entry));
			break;
		case FUSE_GETATTR:
		case FUSE_SETATTR:	/* the size and times stay */
			memset(&attr, 0, sizeof(attr));
			attr.attr_valid = 3600;
			fuse_attr_of(in->nodeid, &attr.attr);
			fuse_reply(fd, in->unique, 0, &attr, sizeof(attr));
			break;
		case FUSE_OPEN:
			memset(&open_out, 0, sizeof(open_out));
			open_out.fh = 1;
			fuse_reply(fd, in->unique, 0, &open_out,
				   sizeof(open_out));
			break;
		case FUSE_READ:
			fuse_read_reply(fd, in, arg, ctl);
			break;
		case FUSE_WRITE:
			fuse_write_reply(fd, in, arg, ctl);
			break;
		case FUSE_RELEASE:
		case FUSE_FLUSH:
		case FUSE_FSYNC:
			fuse_reply(fd, in->unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		default:
			fuse_reply(fd, in->unique, -FUSE_NOT_IMPL, NULL, 0);
			break;
		}
	}
}

/*
 * Mount the test's FUSE file system on a new directory (@dir, of
 * FUSE_DIR_SIZE; *@mounted once it is) and fork its server (which alone
 * holds the connection: killing it aborts it), controlled through *@ctl;
 * the path of its file in @file.  0; 1 if FUSE is missing, with the
 * reason in @why; or -errno.
 */
static int fuse_start(char *dir, bool *mounted, struct fuse_ctl **ctl,
		      char *file, size_t size, const char **why)
{
	static char reason[96];
	char opts[128];
	struct stat st;
	pid_t server;
	int ffd, err;

	ffd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (ffd < 0) {
		snprintf(reason, sizeof(reason), "no /dev/fuse: %s",
			 strerror(errno));
		*why = reason;
		return 1;
	}
	snprintf(dir, FUSE_DIR_SIZE, "/tmp/mm_fuse_test.XXXXXX");
	if (!mkdtemp(dir)) {
		err = -errno;
		close(ffd);
		dir[0] = '\0';
		return err;
	}
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", ffd);
	if (mount("mm_fuse_test", dir, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		err = errno;
		close(ffd);
		rmdir(dir);
		dir[0] = '\0';
		if (err != ENODEV)
			return -err;
		*why = "no FUSE file system (CONFIG_FUSE_FS?)";
		return 1;
	}
	*mounted = true;
	*ctl = shared_page();
	server = *ctl ? ue_fork() : -1;
	if (server == 0)
		_exit(fuse_serve(ffd, *ctl));
	close(ffd);
	if (server < 0)
		return -ENOMEM;
	snprintf(file, size, "%s/" FUSE_FILE, dir);
	if (stat(file, &st))
		return -errno;
	return st.st_size == FUSE_FILE_SIZE ? 0 : -EIO;
}

/* fuse_start() on the fixture's (FIXTURE_DATA(mm)) mount point */
static int fuse_start_test(struct _test_data_mm *self, char *file,
			   size_t size, const char **why)
{
	return fuse_start(self->fuse_dir, &self->fuse_mounted, &self->fuse,
			  file, size, why);
}

/* Let every held READ go, so that nothing stays blocked on the FUSE page */
static void fuse_release(struct fuse_ctl *ctl)
{
	st_int(&ctl->hold, 0);
	st_int(&ctl->release, 1);
}

/* The test's FUSE file mapped private with @prot, or MAP_FAILED */
static char *fuse_map_private(const char *file, int prot)
{
	int fd = open(file, O_RDONLY);
	char *map;

	if (fd < 0)
		return MAP_FAILED;
	map = mmap(NULL, FUSE_FILE_SIZE, prot, MAP_PRIVATE, fd, 0);
	close(fd);
	return map;
}

/* Whether the server has withheld @n READs within WAIT_MS */
static bool fuse_wait_withheld(struct fuse_ctl *ctl, int n)
{
	long long end = ue_now_ms() + WAIT_MS;

	while (ld_int(&ctl->withheld) < n && ue_now_ms() < end)
		usleep(1000);
	return ld_int(&ctl->withheld) >= n;
}

/* What the registrant (a child of the test) shares with the test */
struct registrant {
	__u32 word;		/* copy of the private enable word */
	int ready;
	int go_read, go_mmap, quit;
	int read_tid, mmap_tid;
	int read_done, mmap_done;
	long read_ret;
	int read_errno;
	char read_byte;
	int mmap_ok;
};

struct registrant_ctx {
	struct registrant *sh;
	char *fuse_map;
	int mem_fd;
};

static char read_buf[64];

/* pread() /proc/self/mem at the FUSE page: faults it with mmap_lock held */
static void *stall_read_fn(void *arg)
{
	struct registrant_ctx *ctx = arg;
	struct registrant *sh = ctx->sh;
	ssize_t n;

	st_int(&sh->read_tid, my_tid());
	while (!ld_int(&sh->go_read))
		usleep(1000);
	n = pread(ctx->mem_fd, read_buf, 16, (off_t)(uintptr_t)ctx->fuse_map);
	sh->read_errno = n < 0 ? errno : 0;
	sh->read_ret = n;
	sh->read_byte = read_buf[0];
	st_int(&sh->read_done, 1);
	return NULL;
}

/* mmap(): queues for mmap_lock for writing behind the stalled reader */
static void *stall_mmap_fn(void *arg)
{
	struct registrant_ctx *ctx = arg;
	struct registrant *sh = ctx->sh;
	void *p;

	st_int(&sh->mmap_tid, my_tid());
	while (!ld_int(&sh->go_mmap))
		usleep(1000);
	p = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sh->mmap_ok = p != MAP_FAILED;
	st_int(&sh->mmap_done, 1);
	return NULL;
}

/*
 * The registrant: registers @cmd with its bit in private anonymous
 * memory, starts both stall threads (before the stall: creating a thread
 * maps its stack) and then only copies its word into the shared page,
 * which needs no mmap_lock, until it is told to quit.
 */
static int registrant_main(struct registrant *sh, const char *file,
			   const char *cmd)
{
	static struct registrant_ctx ctx;
	pthread_t rt, mt;
	__u32 *word;
	int fd, ufd;

	memset(read_buf, 0, sizeof(read_buf));
	ctx.sh = sh;
	fd = open(file, O_RDONLY);
	if (fd < 0)
		return 50;
	ctx.fuse_map = mmap(NULL, FUSE_FILE_SIZE, PROT_READ, MAP_PRIVATE,
			    fd, 0);
	if (ctx.fuse_map == MAP_FAILED)
		return 51;
	ctx.mem_fd = open("/proc/self/mem", O_RDONLY);
	if (ctx.mem_fd < 0)
		return 52;
	word = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (word == MAP_FAILED)
		return 53;
	*word = 0;
	ufd = ue_open();
	if (ufd < 0 || reg_p(ufd, cmd, word, 4, 0, NULL))
		return 54;
	if (pthread_create(&rt, NULL, stall_read_fn, &ctx) ||
	    pthread_create(&mt, NULL, stall_mmap_fn, &ctx))
		return 55;
	while (!ld_int(&sh->read_tid) || !ld_int(&sh->mmap_tid))
		usleep(1000);
	st_int(&sh->ready, 1);
	while (!ld_int(&sh->quit)) {
		__atomic_store_n(&sh->word, ld_u32(word), __ATOMIC_SEQ_CST);
		usleep(1000);
	}
	pthread_join(rt, NULL);
	pthread_join(mt, NULL);
	return 0;
}

/* Results of the two liveness probes, in a shared page */
struct probes {
	long long reg_ms, fork_ms;
	int forks, fork_err, reg_err;
	long long en_ms, dis_ms;
	int en_ret, dis_ret;
};

#define NR_FORKS	50
#define LIVE_BOUND_MS	15000

/* Probe (a): another process, with a registration of its own, forks */
static int fork_probe(struct probes *pr, const char *cmd)
{
	static __u32 word;
	long long t0 = ue_now_ms();
	int i, status;
	pid_t pid;

	pr->reg_err = reg_closed(cmd, &word, 4, 0);
	pr->reg_ms = ue_now_ms() - t0;
	t0 = ue_now_ms();
	for (i = 0; i < NR_FORKS; i++) {
		pid = fork();
		if (pid < 0) {
			pr->fork_err = errno;
			break;
		}
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid) {
			pr->fork_err = errno;
			break;
		}
		pr->forks++;
	}
	pr->fork_ms = ue_now_ms() - t0;
	return 0;
}

/* Probe (b): enable and disable the stalled registrant's event */
static int toggle_probe(struct probes *pr, const char *ev)
{
	long long t0 = ue_now_ms();

	pr->en_ret = ue_enable(ev, true);
	pr->en_ms = ue_now_ms() - t0;
	t0 = ue_now_ms();
	pr->dis_ret = ue_enable(ev, false);
	pr->dis_ms = ue_now_ms() - t0;
	return 0;
}

/*
 * Liveness while a registrant blocks its own mmap_lock: one of its
 * threads faults a FUSE page (through /proc/self/mem, so mmap_lock is held
 * for reading) whose READ the test's own FUSE server holds, another one
 * waits in mmap() for the write lock, so every new reader of that
 * mmap_lock blocks.  Meanwhile (a) an unrelated process forks, exits and
 * waits 50 times and (b) the registrant's event is enabled and disabled,
 * each within 15 s (clearly less than the stall, which lasts until both
 * are done); (c) once the READ is answered, the registrant's bit follows
 * the event again (the kernel updated it asynchronously).
 */
TEST_F_TIMEOUT(mm, liveness_mmap_lock_stall, TIMEOUT)
{
	struct registrant *sh;
	struct probes *pr;
	const char *why = NULL;
	char file[96];
	int status = 0, tries, i, ret;
	pid_t reg, fprobe, tprobe;
	long long end;
	char state;

	ret = fuse_start_test(self, file, sizeof(file), &why);
	if (ret == 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("FUSE: %s", strerror(-ret));
	sh = shared_page();
	ASSERT_NE(NULL, sh);
	pr = shared_page();
	ASSERT_NE(NULL, pr);

	reg = ue_fork();
	ASSERT_LE(0, reg);
	if (reg == 0)
		_exit(registrant_main(sh, file, self->cmd));
	ASSERT_TRUE(wait_int(&sh->ready, 1, WAIT_MS * 3));

	/* The stall: a reader held in the FUSE READ, a writer queued */
	st_int(&self->fuse->hold, 1);
	st_int(&sh->go_read, 1);
	ASSERT_TRUE(wait_int(&self->fuse->held, 1, WAIT_MS * 3))
		TH_LOG("the FUSE READ never came");
	st_int(&sh->go_mmap, 1);
	end = ue_now_ms() + WAIT_MS;
	do {
		state = task_state(reg, sh->mmap_tid);
		if (state == 'D' || ue_now_ms() > end)
			break;
		usleep(1000);
	} while (1);
	ASSERT_EQ('D', state) TH_LOG("mmap() is not waiting for mmap_lock");
	ASSERT_EQ(0, ld_int(&sh->mmap_done));
	ASSERT_EQ(0, ld_int(&sh->read_done));

	tprobe = ue_fork();
	ASSERT_LE(0, tprobe);
	if (tprobe == 0)
		_exit(toggle_probe(pr, self->ev));
	fprobe = ue_fork();
	ASSERT_LE(0, fprobe);
	if (fprobe == 0)
		_exit(fork_probe(pr, self->cmd2));
	EXPECT_EQ(0, ue_wait_child(fprobe, 4 * LIVE_BOUND_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	EXPECT_EQ(0, ue_wait_child(tprobe, 4 * LIVE_BOUND_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));

	TH_LOG("stalled: reg %lld ms, %d forks in %lld ms, enable %lld ms, disable %lld ms",
	       pr->reg_ms, pr->forks, pr->fork_ms, pr->en_ms, pr->dis_ms);
	/* All of it happened while the stall was still in place */
	EXPECT_EQ(0, ld_int(&self->fuse->answered));
	EXPECT_EQ(0, ld_int(&sh->mmap_done));
	EXPECT_EQ(0, pr->reg_err);
	EXPECT_EQ(0, pr->fork_err);
	EXPECT_EQ(NR_FORKS, pr->forks);
	EXPECT_GT(LIVE_BOUND_MS, pr->reg_ms + pr->fork_ms);
	EXPECT_EQ(0, pr->en_ret);
	EXPECT_EQ(0, pr->dis_ret);
	EXPECT_GT(LIVE_BOUND_MS, pr->en_ms);
	EXPECT_GT(LIVE_BOUND_MS, pr->dis_ms);

	/* (c) The READ is answered: the stall ends, the bit follows again */
	fuse_release(self->fuse);
	EXPECT_TRUE(wait_int(&sh->read_done, 1, WAIT_MS * 3));
	EXPECT_TRUE(wait_int(&sh->mmap_done, 1, WAIT_MS * 3));
	EXPECT_EQ(16, sh->read_ret) TH_LOG("pread: %s",
					   strerror(sh->read_errno));
	EXPECT_EQ(FUSE_BYTE, sh->read_byte);
	EXPECT_EQ(1, sh->mmap_ok);
	EXPECT_TRUE(wait_bits(&sh->word, 1, 0, ASYNC_MS));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, ue_enable(self->ev, true));
		EXPECT_TRUE(wait_bits(&sh->word, 1, 1, ASYNC_MS))
			TH_LOG("bit not set after the stall");
		ASSERT_EQ(0, ue_enable(self->ev, false));
		EXPECT_TRUE(wait_bits(&sh->word, 1, 0, ASYNC_MS))
			TH_LOG("bit not cleared after the stall");
	}

	st_int(&sh->quit, 1);
	EXPECT_EQ(0, ue_wait_child(reg, WAIT_MS * 3, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	EXPECT_EQ(0, del_retry(self->ev, ASYNC_MS, &tries));
	EXPECT_EQ(0, del_retry(self->ev2, ASYNC_MS, &tries));
}

/* --- 2: a word in a shared FUSE page never holds a kernel worker ------- */

#define STALL_MS	25000	/* READs withheld: beyond HUNG_SECS */
#define HUNG_SECS	10	/* hung_task_timeout_secs during the test */
#define STUCK_MS	5000	/* a kworker in D this long is parked */
#define TOGGLE_MS	10000	/* bound of an enable or disable */
#define NR_INHERIT	2
#define NR_WATCH	128

/* kworkers seen in D state: since when, in consecutive samples */
struct kw_watch {
	pid_t pid;
	unsigned int round;
	long long since;
};

struct dscan {
	struct kw_watch w[NR_WATCH];
	int nr;
	unsigned int round;
	int samples;		/* of a kworker in D */
	long long worst_ms;	/* longest run in D */
	pid_t worst_pid;
	char worst_comm[32];
	char worst_where[512];
};

/* The kernel stack of @pid (or else its wchan) on one line */
static void task_where(pid_t pid, char *buf, size_t size)
{
	char path[64], *text, *p;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	text = ue_read_file(path);
	if (!text || !*text) {
		free(text);
		snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
		text = ue_read_file(path);
	}
	snprintf(buf, size, "%s", text ? text : "?");
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	free(text);
}

/* One look at every kworker's state; one that is not in D starts over */
static void dscan_sample(struct dscan *ds)
{
	char path[64], buf[512], *l, *r;
	long long now = ue_now_ms();
	struct dirent *de;
	ssize_t n;
	pid_t pid;
	int i, fd;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return;
	ds->round++;
	while ((de = readdir(dir))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		l = strchr(buf, '(');
		r = strrchr(buf, ')');
		if (!l || !r || r < l || r[1] != ' ' || r[2] != 'D' ||
		    strncmp(l + 1, "kworker", 7))
			continue;
		ds->samples++;
		for (i = 0; i < ds->nr && ds->w[i].pid != pid; i++)
			;
		if (i == ds->nr) {
			if (ds->nr == NR_WATCH)
				continue;
			ds->nr++;
			ds->w[i].pid = pid;
			ds->w[i].since = now;
		}
		ds->w[i].round = ds->round;
		if (now - ds->w[i].since >= ds->worst_ms) {
			ds->worst_ms = now - ds->w[i].since;
			ds->worst_pid = pid;
			snprintf(ds->worst_comm, sizeof(ds->worst_comm),
				 "%.*s", (int)(r - l - 1), l + 1);
			task_where(pid, ds->worst_where,
				   sizeof(ds->worst_where));
		}
	}
	closedir(dir);
	for (i = 0; i < ds->nr; ) {
		if (ds->w[i].round != ds->round)
			ds->w[i] = ds->w[--ds->nr];
		else
			i++;
	}
}

/* What the toggling child and the inheriting children share */
struct stall_probe {
	long long en_ms, dis_ms;
	int en_ret, dis_ret;
	int done;
	int quit;
};

/* Enable the event, wait half the stall, disable it, timing both */
static int stall_toggle(struct stall_probe *pr, const char *ev)
{
	long long t0 = ue_now_ms();

	pr->en_ret = ue_enable(ev, true);
	pr->en_ms = ue_now_ms() - t0;
	usleep(STALL_MS / 2 * 1000);
	t0 = ue_now_ms();
	pr->dis_ret = ue_enable(ev, false);
	pr->dis_ms = ue_now_ms() - t0;
	st_int(&pr->done, 1);
	return 0;
}

/*
 * The enable word lives in a MAP_SHARED mapping of the test's FUSE file;
 * the registration faults the page in (its READ is answered) and two
 * forked children inherit the registration, so three mms have it.  Then
 * a second open() of the file drops the page from the page cache (FUSE
 * invalidates it without FOPEN_KEEP_CACHE), and for 25 s, longer than
 * the hung task timeout (lowered to 10 s if it is longer), the server
 * withholds every READ while it keeps answering the rest.  Meanwhile the
 * event is enabled and then disabled, each returning within 10 s, and no
 * kworker is in D state (folio_wait_bit_common, request_wait_answer ...)
 * for 5 s in a row: the kernel must not park a worker on the registrants'
 * page.  Once the READs are answered and the program has written its
 * page again (the kernel does not fault a word of a non-tmpfs file
 * mapping in for the program: that fault can wait for the filesystem),
 * one more enable and disable move the bit, within 10 s each.
 */
TEST_F_TIMEOUT(mm, fuse_shared_word_no_stuck_worker, TIMEOUT)
{
	static struct dscan ds;
	const char *why = NULL;
	struct stall_probe *pr;
	pid_t kids[NR_INHERIT], toggler;
	int fd, ret, i, status = 0, tries;
	long long t0, open_ms;
	unsigned char vec = 0;
	char file[96], *map;
	bool followed;
	__u32 *word;
	long v;

	memset(&ds, 0, sizeof(ds));
	ret = fuse_start_test(self, file, sizeof(file), &why);
	if (ret == 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("FUSE: %s", strerror(-ret));
	pr = shared_page();
	ASSERT_NE(NULL, pr);

	if (!ue_read_long(HUNG_SYSCTL, &v)) {
		if (!v || v > HUNG_SECS) {
			self->saved_hung = v;
			ASSERT_EQ(0, ue_write_long(HUNG_SYSCTL, HUNG_SECS));
		}
		TH_LOG("hung_task_timeout_secs %ld, %d during the test", v,
		       v && v < HUNG_SECS ? (int)v : HUNG_SECS);
	} else {
		TH_LOG("no %s: no hung task detector", HUNG_SYSCTL);
	}

	fd = open(file, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", file, strerror(errno));
	map = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	ASSERT_NE(MAP_FAILED, map);
	close(fd);
	word = (__u32 *)(map + 16);
	ASSERT_EQ(0, reg_closed(self->cmd, word, 4, 0));
	ASSERT_LT(0, ld_int(&self->fuse->answered));
	EXPECT_EQ(0, ld_u32(word) & 1);
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_TRUE(wait_bits(word, 1, 1, ASYNC_MS));
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_TRUE(wait_bits(word, 1, 0, ASYNC_MS));

	for (i = 0; i < NR_INHERIT; i++) {
		kids[i] = ue_fork();
		ASSERT_LE(0, kids[i]);
		if (kids[i] == 0) {
			/* Keeps the registration; never touches the page */
			while (!ld_int(&pr->quit))
				usleep(10000);
			_exit(0);
		}
	}

	/* From here on, no READ is answered and nothing touches the page */
	st_int(&self->fuse->withhold, 1);
	t0 = ue_now_ms();
	fd = open(file, O_RDONLY);
	ASSERT_LE(0, fd);
	close(fd);
	open_ms = ue_now_ms() - t0;
	ASSERT_EQ(0, mincore(map, page_size, &vec));
	ASSERT_EQ(0, vec & 1) TH_LOG("the second open() left the page cached");

	toggler = ue_fork();
	ASSERT_LE(0, toggler);
	if (toggler == 0)
		_exit(stall_toggle(pr, self->ev));
	while (ue_now_ms() - t0 < STALL_MS) {
		dscan_sample(&ds);
		usleep(200 * 1000);
	}
	EXPECT_EQ(1, ld_int(&pr->done))
		TH_LOG("enable + disable did not return within the stall");
	TH_LOG("stall: open %lld ms, %d READs withheld, enable %lld ms, disable %lld ms",
	       open_ms, ld_int(&self->fuse->withheld), pr->en_ms, pr->dis_ms);
	TH_LOG("%d samples of a kworker in D, longest %lld ms", ds.samples,
	       ds.worst_ms);
	EXPECT_GT(STUCK_MS, ds.worst_ms)
		TH_LOG("%s (pid %d) in D for %lld ms: %s", ds.worst_comm,
		       ds.worst_pid, ds.worst_ms, ds.worst_where);

	st_int(&self->fuse->withhold, 0);
	ASSERT_EQ(0, ue_wait_child(toggler, 3 * WAIT_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));
	EXPECT_EQ(0, pr->en_ret);
	EXPECT_EQ(0, pr->dis_ret);
	EXPECT_GT(TOGGLE_MS, pr->en_ms);
	EXPECT_GT(TOGGLE_MS, pr->dis_ms);

	/* The READs are answered: the bit follows, at least after a toggle */
	followed = wait_bits(word, 1, 0, WAIT_MS);
	TH_LOG("after the stall the bit %s", followed ?
	       "follows the event" : "did not follow the event");
	/* Another byte of the page: present and writable again */
	map[page_size - 1] ^= 1;
	ASSERT_EQ(0, ue_enable(self->ev, true));
	EXPECT_TRUE(wait_bits(word, 1, 1, WAIT_MS))
		TH_LOG("bit not set by the enable after the stall");
	ASSERT_EQ(0, ue_enable(self->ev, false));
	EXPECT_TRUE(wait_bits(word, 1, 0, WAIT_MS))
		TH_LOG("bit not cleared by the disable after the stall");

	st_int(&pr->quit, 1);
	for (i = 0; i < NR_INHERIT; i++) {
		EXPECT_EQ(0, ue_wait_child(kids[i], WAIT_MS, &status));
		EXPECT_EQ(0, ue_exit_code(status));
	}
	EXPECT_EQ(0, ue_unreg_own(word, 0));
	munmap(map, page_size);
	EXPECT_EQ(0, del_retry(self->ev, ASYNC_MS, &tries));
}

/* --- 3: registrants of one file description --------------------------- */

#define CALL_MS	5000	/* bound of a call that nothing delays */

/*
 * Registrants that share a file description do not wait for one another: a
 * child's DIAG_IOCSREG whose enable word is on a page of a private FUSE
 * mapping waits in the fault of that page while its READ is withheld, and
 * meanwhile a registration through the same description returns at once.
 * Once the READ is answered, the child's returns too.
 */
TEST_F_TIMEOUT(mm, shared_fd_registrant_not_stalled, TIMEOUT)
{
	static __u32 word;
	const char *why = NULL;
	int ufd, ret, status = 0;
	long long t0, ms;
	char file[96], *map;
	pid_t kid;

	ret = fuse_start_test(self, file, sizeof(file), &why);
	if (ret == 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("FUSE: %s", strerror(-ret));
	map = fuse_map_private(file, PROT_READ | PROT_WRITE);
	ASSERT_NE(MAP_FAILED, map);
	ufd = ue_open();
	ASSERT_LE(0, ufd);

	st_int(&self->fuse->withhold, 1);
	kid = ue_fork();
	ASSERT_LE(0, kid);
	if (kid == 0)
		_exit(ue_reg(ufd, self->cmd2, (__u32 *)(map + 2 * page_size),
			     0, NULL) ? 1 : 0);
	ASSERT_TRUE(fuse_wait_withheld(self->fuse, 1))
		TH_LOG("the child's enable word was never read");
	usleep(100 * 1000);

	t0 = ue_now_ms();
	EXPECT_EQ(0, ue_reg(ufd, self->cmd, &word, 0, NULL));
	ms = ue_now_ms() - t0;
	st_int(&self->fuse->withhold, 0);
	EXPECT_GT(CALL_MS, ms)
		TH_LOG("a registration waited %lld ms for a registrant's fault",
		       ms);
	ASSERT_EQ(0, ue_wait_child(kid, 3 * WAIT_MS, &status));
	EXPECT_EQ(0, ue_exit_code(status));

	EXPECT_EQ(0, ue_unreg(ufd, &word, 0));
	close(ufd);
	munmap(map, FUSE_FILE_SIZE);
	EXPECT_TRUE(ue_wait_gone(NULL, self->ev, ASYNC_MS));
	EXPECT_TRUE(ue_wait_gone(NULL, self->ev2, ASYNC_MS));
}

/* --- 4: a registration whose last step faults ------------------------- */

/* The user_reg's file page: the last, the enable word's is the first */
#define REG_OFF		(FUSE_FILE_SIZE - page_size)

struct reg_thread {
	int fd;
	struct user_reg *reg;
	int ret;
};

static void *reg_thread_fn(void *arg)
{
	struct reg_thread *t = arg;

	t->ret = ue_reg_raw(t->fd, t->reg);
	return NULL;
}

/*
 * A DIAG_IOCSREG whose last step, the store of write_index, faults
 * returns EFAULT and leaves the registrations as they are: another
 * thread may have unregistered its word and registered the word again
 * meanwhile, and that registration stays.  Two withheld READs stop the
 * registering thread where it matters: at its enable word, on a private
 * FUSE page, and then at its user_reg, whose page (a private copy of
 * another FUSE page) is dropped from memory meanwhile and unmapped while
 * its READ is withheld.
 */
TEST_F_TIMEOUT(mm, reg_last_store_faults, TIMEOUT)
{
	struct reg_thread t = { .fd = -1 };
	const char *why = NULL;
	char file[96], *w, *u;
	pthread_t th;
	int ffd, ret;

	if (FUSE_FILE_SIZE < 2 * page_size)
		SKIP(return, "the FUSE file has one page");
	ret = fuse_start_test(self, file, sizeof(file), &why);
	if (ret == 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("FUSE: %s", strerror(-ret));
	ffd = open(file, O_RDWR);
	ASSERT_LE(0, ffd);
	w = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, ffd, 0);
	ASSERT_NE(MAP_FAILED, w);
	u = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, ffd,
		 REG_OFF);
	ASSERT_NE(MAP_FAILED, u);
	/* A fault reads its own page only */
	ASSERT_EQ(0, madvise(w, page_size, MADV_RANDOM));
	ASSERT_EQ(0, madvise(u, page_size, MADV_RANDOM));
	t.reg = (struct user_reg *)u;
	memset(t.reg, 0, sizeof(*t.reg));
	t.reg->size = sizeof(*t.reg);
	t.reg->enable_size = sizeof(__u32);
	t.reg->enable_addr = (uintptr_t)w;
	t.reg->name_args = (uintptr_t)self->cmd;
	t.fd = ue_open();
	ASSERT_LE(0, t.fd);

	st_int(&self->fuse->withhold, 1);
	ASSERT_EQ(0, pthread_create(&th, NULL, reg_thread_fn, &t));
	ASSERT_TRUE(fuse_wait_withheld(self->fuse, 1))
		TH_LOG("the enable word was never read");
	/* The user_reg was read: its next access must read the file again */
	ASSERT_EQ(0, madvise(u, page_size, MADV_DONTNEED));
	ASSERT_EQ(0, posix_fadvise(ffd, REG_OFF, page_size,
				   POSIX_FADV_DONTNEED));
	__atomic_add_fetch(&self->fuse->flush, 1, __ATOMIC_SEQ_CST);
	ASSERT_TRUE(fuse_wait_withheld(self->fuse, 2))
		TH_LOG("write_index was stored without a fault");

	/* Registered, the thread waits in the store of its write_index */
	EXPECT_EQ(0, ue_unreg(t.fd, w, 0));
	EXPECT_EQ(0, ue_reg(t.fd, self->cmd2, (__u32 *)w, 0, NULL));
	ASSERT_EQ(0, munmap(u, page_size));
	st_int(&self->fuse->withhold, 0);
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-EFAULT, t.ret);

	/* The word's registration is the second one, and it is there */
	ASSERT_EQ(0, ue_enable(self->ev2, true));
	EXPECT_EQ(1, *(__u32 *)w & 1);
	ASSERT_EQ(0, ue_enable(self->ev2, false));
	EXPECT_EQ(0, *(__u32 *)w & 1);
	EXPECT_EQ(0, ue_unreg(t.fd, w, 0));
	EXPECT_EQ(-ENOENT, ue_unreg(t.fd, w, 0));
	close(t.fd);
	munmap(w, page_size);
	close(ffd);
	EXPECT_TRUE(ue_wait_gone(NULL, self->ev, ASYNC_MS));
	EXPECT_TRUE(ue_wait_gone(NULL, self->ev2, ASYNC_MS));
}

int main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	return test_harness_run(argc, argv);
}
