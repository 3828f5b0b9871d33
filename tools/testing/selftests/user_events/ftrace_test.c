// SPDX-License-Identifier: GPL-2.0
/*
 * user_events with ftrace: registering, the status file, enable bits
 * following events/user_events/NAME/enable in one and in many processes,
 * records in the trace file for every field type, events without fields,
 * EBADF while nothing listens, records too large for the buffer, the
 * __data_loc/__rel_loc validators,
 * filters and hist triggers, one event enabled in two trace instances,
 * the stacktrace option and its first frame,
 * and the records of a deleted event, which the next event registered
 * must not show as its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_format.h"
#include "user_events_status.h"

#define EV_STATUS	UE_PREFIX "ft_status"
#define EV_BIT		UE_PREFIX "ft_bit"
#define EV_FORK		UE_PREFIX "ft_fork"
#define EV_TYPES	UE_PREFIX "ft_types"
#define EV_EMPTY	UE_PREFIX "ft_empty"
#define EV_BADF		UE_PREFIX "ft_badf"
#define EV_DLOC		UE_PREFIX "ft_dloc"
#define EV_RLOC		UE_PREFIX "ft_rloc"
#define EV_FILTER	UE_PREFIX "ft_filter"
#define EV_HIST		UE_PREFIX "ft_hist"
#define EV_GONE		UE_PREFIX "ft_gone"
#define EV_OLD		UE_PREFIX "ft_old"
#define EV_NEW		UE_PREFIX "ft_new"
#define EV_INST		UE_PREFIX "ft_inst"
#define EV_STACK	UE_PREFIX "ft_stack"
#define EV_BYTES	UE_PREFIX "ft_bytes"
#define EV_MASK		UE_PREFIX "ft_mask"

/* Trace instances of the instances test */
#define INST_A		"instances/" UE_PREFIX "ft-a"
#define INST_B		"instances/" UE_PREFIX "ft-b"

#define NR_CHILDREN	50
#define TIMEOUT		300	/* seconds per test: TCG + debug kernel */

static const char * const all_events[] = {
	EV_STATUS, EV_BIT, EV_FORK, EV_TYPES, EV_EMPTY, EV_BADF, EV_DLOC,
	EV_RLOC, EV_FILTER, EV_HIST, EV_GONE, EV_OLD, EV_NEW, EV_INST,
	EV_STACK, EV_BYTES, EV_MASK,
};

/* Enable or disable @name in the trace instance @inst */
static int inst_enable(const char *inst, const char *name, bool on)
{
	char path[UE_PATH_MAX];

	return ue_write_str(ue_path(path, "%s/events/user_events/%s/enable",
				    inst, name), on ? "1\n" : "0\n");
}

/* Records of @name in @inst's trace file */
static int inst_count(const char *inst, const char *name)
{
	char rel[UE_PATH_MAX];
	char *buf;
	int n;

	snprintf(rel, sizeof(rel), "%s/trace", inst);
	buf = ue_read_tracefs(rel);
	if (!buf)
		return -1;
	n = ue_trace_count(buf, name);
	free(buf);
	return n;
}

static void inst_remove(void)
{
	char path[UE_PATH_MAX];

	rmdir(ue_path(path, INST_A));
	rmdir(ue_path(path, INST_B));
}

/*
 * The enable word of the tests: private memory of the test process, not a
 * field of the fixture data, which FIXTURE_TEARDOWN_PARENT shares.
 */
static __u32 enable_word;

/* Shared with the teardown: @fd and @trace belong to the test process */
FIXTURE(ftrace) {
	int fd;
	char *trace;
};

FIXTURE_SETUP(ftrace)
{
	const char *reason = ue_setup();

	self->fd = -1;
	self->trace = NULL;
	if (reason)
		SKIP(return, "%s", reason);
	ue_cleanup_names(all_events, ARRAY_SIZE(all_events));
	ASSERT_EQ(0, ue_trace_clear());
	self->fd = ue_open();
	ASSERT_LE(0, self->fd) TH_LOG("open user_events_data: %d", self->fd);
	enable_word = 0;
}

/*
 * After the test process exited: its registrations went with its memory
 * and its files were released, so every event it made can be deleted.
 */
FIXTURE_TEARDOWN_PARENT(ftrace)
{
	char path[UE_PATH_MAX];

	if (!ue_setup()) {
		ue_cleanup_names(all_events, ARRAY_SIZE(all_events));
		inst_remove();
		ue_write_str(ue_path(path, "options/stacktrace"), "0\n");
	}
}

/* Re-read the trace file into self->trace. */
TEST_F_TIMEOUT(ftrace, register_and_status, TIMEOUT)
{
	long active0 = 0, busy0 = 0, active = 0, busy = 0;
	char line[256];
	int idx = -1;

	ASSERT_EQ(0, ue_status_counts(&active0, &busy0));
	ASSERT_EQ(-ENOENT, ue_status_line(EV_STATUS, line, sizeof(line)));

	ASSERT_EQ(0, ue_reg(self->fd, EV_STATUS " u32 a", &enable_word, 0,
			    &idx));
	EXPECT_LE(0, idx);
	EXPECT_EQ(0, enable_word);
	EXPECT_TRUE(ue_event_exists(NULL, EV_STATUS));

	/* Registered, nobody listening */
	ASSERT_EQ(0, ue_status_line(EV_STATUS, line, sizeof(line)));
	EXPECT_STREQ(EV_STATUS, line);
	ASSERT_EQ(0, ue_status_counts(&active, &busy));
	EXPECT_EQ(active0 + 1, active);
	EXPECT_EQ(busy0, busy);

	/* ftrace attached */
	ASSERT_EQ(0, ue_enable(EV_STATUS, true));
	EXPECT_EQ(1, enable_word);
	ASSERT_EQ(0, ue_status_line(EV_STATUS, line, sizeof(line)));
	EXPECT_STREQ(EV_STATUS " # Used by ftrace", line);
	ASSERT_EQ(0, ue_status_counts(&active, &busy));
	EXPECT_EQ(active0 + 1, active);
	EXPECT_EQ(busy0 + 1, busy);

	/* Detached again */
	ASSERT_EQ(0, ue_enable(EV_STATUS, false));
	EXPECT_EQ(0, enable_word);
	ASSERT_EQ(0, ue_status_line(EV_STATUS, line, sizeof(line)));
	EXPECT_STREQ(EV_STATUS, line);
	ASSERT_EQ(0, ue_status_counts(&active, &busy));
	EXPECT_EQ(active0 + 1, active);
	EXPECT_EQ(busy0, busy);

	/* The registration and the file gone, the event is gone */
	ASSERT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(-ENOENT, ue_status_line(EV_STATUS, line, sizeof(line)));
	EXPECT_FALSE(ue_event_exists(NULL, EV_STATUS));
	ASSERT_EQ(0, ue_status_counts(&active, &busy));
	EXPECT_EQ(active0, active);
	EXPECT_EQ(busy0, busy);
}

TEST_F_TIMEOUT(ftrace, enable_bit_one_process, TIMEOUT)
{
	/* Neighbour words and neighbour bits must never change */
	static __u32 words[3];
	const __u32 pattern = 0xa5a5a5a5 & ~(1U << 6);
	int i;

	words[0] = 0x11111111;
	words[1] = pattern;
	words[2] = 0x22222222;

	ASSERT_EQ(0, ue_reg(self->fd, EV_BIT " u32 a", &words[1], 6, NULL));
	EXPECT_EQ(pattern, words[1]);

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, ue_enable(EV_BIT, true));
		EXPECT_EQ(pattern | (1U << 6), words[1]);
		ASSERT_EQ(0, ue_enable(EV_BIT, false));
		EXPECT_EQ(pattern, words[1]);
	}
	EXPECT_EQ(0x11111111, words[0]);
	EXPECT_EQ(0x22222222, words[2]);

	/* Enabling twice is still one bit, disabling once clears it */
	ASSERT_EQ(0, ue_enable(EV_BIT, true));
	ASSERT_EQ(0, ue_enable(EV_BIT, true));
	EXPECT_EQ(pattern | (1U << 6), words[1]);
	ASSERT_EQ(0, ue_enable(EV_BIT, false));
	EXPECT_EQ(pattern, words[1]);

	ASSERT_EQ(0, ue_unreg(self->fd, &words[1], 6));
}

/* What the parent and its children share in the many-process test */
struct fork_shared {
	int ready;		/* children registered */
	int phase;		/* 1: enabled, 2: disabled, 3: finish */
	int seen_on;		/* children that saw their bit set */
	int seen_off;		/* children that saw their bit clear */
	int checked_on;
	int checked_off;
	int failed;		/* children that hit an error */
};

static __u32 child_word;

static int wait_value(int *p, int value, int timeout_ms)
{
	long long end = ue_now_ms() + timeout_ms;

	while (__atomic_load_n(p, __ATOMIC_SEQ_CST) < value) {
		if (ue_now_ms() > end)
			return -ETIMEDOUT;
		usleep(1000);
	}
	return 0;
}

static void fork_child(struct fork_shared *sh)
{
	int fd = ue_open();

	child_word = 0;
	if (fd < 0 || ue_reg(fd, EV_FORK " u32 a", &child_word, 0, NULL)) {
		__atomic_add_fetch(&sh->failed, 1, __ATOMIC_SEQ_CST);
		_exit(1);
	}
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_SEQ_CST);

	/* The bit must be set before the enable write returned: no polling */
	if (wait_value(&sh->phase, 1, 120000))
		_exit(2);
	if (__atomic_load_n(&child_word, __ATOMIC_SEQ_CST) == 1)
		__atomic_add_fetch(&sh->seen_on, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&sh->checked_on, 1, __ATOMIC_SEQ_CST);

	if (wait_value(&sh->phase, 2, 120000))
		_exit(3);
	if (__atomic_load_n(&child_word, __ATOMIC_SEQ_CST) == 0)
		__atomic_add_fetch(&sh->seen_off, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&sh->checked_off, 1, __ATOMIC_SEQ_CST);

	if (wait_value(&sh->phase, 3, 120000))
		_exit(4);
	if (ue_unreg(fd, &child_word, 0))
		_exit(5);
	close(fd);
	_exit(0);
}

TEST_F_TIMEOUT(ftrace, enable_bit_many_processes, TIMEOUT)
{
	struct fork_shared *sh;
	pid_t pids[NR_CHILDREN];
	int i, status, nr = 0, bad_exit = 0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));

	for (i = 0; i < NR_CHILDREN; i++) {
		pids[i] = ue_fork();
		if (pids[i] == 0)
			fork_child(sh);
		if (pids[i] < 0)
			break;
		nr++;
	}
	EXPECT_EQ(NR_CHILDREN, nr);
	EXPECT_EQ(0, wait_value(&sh->ready, nr, 120000));
	EXPECT_EQ(0, sh->failed);

	/* The parent listens too, on a word of its own */
	EXPECT_EQ(0, ue_reg(self->fd, EV_FORK " u32 a", &enable_word, 0,
			    NULL));

	if (sh->ready == nr && !sh->failed) {
		EXPECT_EQ(0, ue_enable(EV_FORK, true));
		EXPECT_EQ(1, enable_word);
		__atomic_store_n(&sh->phase, 1, __ATOMIC_SEQ_CST);
		EXPECT_EQ(0, wait_value(&sh->checked_on, nr, 120000));
		EXPECT_EQ(nr, sh->seen_on);

		EXPECT_EQ(0, ue_enable(EV_FORK, false));
		EXPECT_EQ(0, enable_word);
		__atomic_store_n(&sh->phase, 2, __ATOMIC_SEQ_CST);
		EXPECT_EQ(0, wait_value(&sh->checked_off, nr, 120000));
		EXPECT_EQ(nr, sh->seen_off);
	}

	__atomic_store_n(&sh->phase, 3, __ATOMIC_SEQ_CST);
	for (i = 0; i < nr; i++) {
		if (ue_wait_child(pids[i], 120000, &status) ||
		    ue_exit_code(status) != 0)
			bad_exit++;
	}
	EXPECT_EQ(0, bad_exit);
	ue_enable(EV_FORK, false);
	munmap(sh, sizeof(*sh));
}

/* One field of every type, and the value the record carries */
#define TYPES_CMD EV_TYPES " u8 f_u8; s8 f_s8; char f_char; "		\
	"unsigned char f_uchar; u16 f_u16; s16 f_s16; short f_short; "	\
	"unsigned short f_ushort; u32 f_u32; s32 f_s32; int f_int; "	\
	"unsigned int f_uint; u64 f_u64; s64 f_s64; char[16] f_arr; "	\
	"unsigned char[4] f_uarr; __data_loc char[] f_dl; "		\
	"__rel_loc char[] f_rl; struct ft_pair f_st 8"

static const struct {
	const char *name;
	int size;
	int is_signed;
	__u64 value;
	const char *text;	/* how the trace file shows the value */
} int_fields[] = {
	{ "f_u8",	1, 0, 250,			"250" },
	{ "f_s8",	1, 1, (__u64)-100,		"-100" },
	{ "f_char",	1, 1, (__u64)-3,		"-3" },
	{ "f_uchar",	1, 0, 200,			"200" },
	{ "f_u16",	2, 0, 65000,			"65000" },
	{ "f_s16",	2, 1, (__u64)-30000,		"-30000" },
	{ "f_short",	2, 1, (__u64)-2,		"-2" },
	{ "f_ushort",	2, 0, 60000,			"60000" },
	{ "f_u32",	4, 0, 4000000000ULL,		"4000000000" },
	{ "f_s32",	4, 1, (__u64)-2000000000LL,	"-2000000000" },
	{ "f_int",	4, 1, (__u64)-7,		"-7" },
	{ "f_uint",	4, 0, 3000000000ULL,		"3000000000" },
	{ "f_u64",	8, 0, 18000000000000000000ULL,	"18000000000000000000" },
	{ "f_s64",	8, 1, (__u64)-9000000000000000000LL,
							"-9000000000000000000" },
};

/* Is the value of @name in @line the bytes @hex (in hex, with or without 0x)? */
static bool has_hex_value(const char *line, const char *name, const char *hex)
{
	char tok[128];

	snprintf(tok, sizeof(tok), "%s=0x%s", name, hex);
	if (ue_has_token(line, tok))
		return true;
	snprintf(tok, sizeof(tok), "%s=%s", name, hex);
	return ue_has_token(line, tok);
}

TEST_F_TIMEOUT(ftrace, records_every_type, TIMEOUT)
{
	static const unsigned char st[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const unsigned char uarr[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct ue_format fmt;
	struct ue_rec rec;
	char line[1024], tok[128];
	const struct ue_field *f;
	unsigned int i;
	int idx = -1, expect_off = UE_HDR_SIZE;

	ASSERT_EQ(0, ue_reg(self->fd, TYPES_CMD, &enable_word, 0, &idx));
	ASSERT_EQ(0, ue_format_read(NULL, EV_TYPES, &fmt));
	EXPECT_EQ(19, fmt.nr);

	/* Fields are packed, in command order, with their sizes and signs */
	for (i = 0; i < (unsigned int)fmt.nr; i++) {
		EXPECT_EQ(expect_off, fmt.fields[i].offset)
			TH_LOG("field %s", fmt.fields[i].name);
		expect_off += fmt.fields[i].size;
	}
	for (i = 0; i < ARRAY_SIZE(int_fields); i++) {
		f = ue_field(&fmt, int_fields[i].name);
		ASSERT_NE(NULL, f) TH_LOG("no field %s", int_fields[i].name);
		EXPECT_EQ(int_fields[i].size, f->size) TH_LOG("%s", f->name);
		EXPECT_EQ(int_fields[i].is_signed, f->is_signed)
			TH_LOG("%s", f->name);
	}
	f = ue_field(&fmt, "f_arr");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(16, f->size);
	f = ue_field(&fmt, "f_uarr");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(4, f->size);
	f = ue_field(&fmt, "f_dl");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(4, f->size);
	EXPECT_EQ(0, strncmp(f->decl, "__data_loc", 10)) TH_LOG("%s", f->decl);
	f = ue_field(&fmt, "f_rl");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(4, f->size);
	EXPECT_EQ(0, strncmp(f->decl, "__rel_loc", 9)) TH_LOG("%s", f->decl);
	f = ue_field(&fmt, "f_st");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(8, f->size);

	ue_rec_init(&rec, &fmt);
	for (i = 0; i < ARRAY_SIZE(int_fields); i++)
		ASSERT_EQ(0, ue_rec_set_u64(&rec, &fmt, int_fields[i].name,
					    int_fields[i].value));
	ASSERT_EQ(0, ue_rec_set(&rec, &fmt, "f_arr", "fixed-array", 12));
	ASSERT_EQ(0, ue_rec_set(&rec, &fmt, "f_uarr", uarr, 4));
	ASSERT_EQ(0, ue_rec_set(&rec, &fmt, "f_st", st, 8));
	ASSERT_EQ(0, ue_rec_dyn(&rec, &fmt, "f_dl", "data-loc-string", 16));
	ASSERT_EQ(0, ue_rec_dyn(&rec, &fmt, "f_rl", "rel-loc-string", 15));

	ASSERT_EQ(0, ue_enable(EV_TYPES, true));
	ASSERT_EQ(1, enable_word);
	ASSERT_EQ(ue_rec_total(&rec), ue_emit_rec(self->fd, idx, &rec));
	ASSERT_EQ(0, ue_enable(EV_TYPES, false));

	ue_trace_read(&self->trace);
	ASSERT_EQ(1, ue_trace_count(self->trace, EV_TYPES));
	ASSERT_EQ(0, ue_trace_line(self->trace, EV_TYPES, 0, line,
				   sizeof(line)));
	TH_LOG("%s", line);

	for (i = 0; i < ARRAY_SIZE(int_fields); i++) {
		snprintf(tok, sizeof(tok), "%s=%s", int_fields[i].name,
			 int_fields[i].text);
		EXPECT_TRUE(ue_has_token(line, tok)) TH_LOG("want %s", tok);
	}
	EXPECT_TRUE(ue_has_token(line, "f_arr=fixed-array"));
	EXPECT_TRUE(ue_has_token(line, "f_dl=data-loc-string"));
	EXPECT_TRUE(ue_has_token(line, "f_rl=rel-loc-string"));
	EXPECT_TRUE(has_hex_value(line, "f_uarr", "deadbeef"));
	EXPECT_TRUE(has_hex_value(line, "f_st", "0102030405060708"));
}

TEST_F_TIMEOUT(ftrace, empty_event, TIMEOUT)
{
	struct ue_format fmt;
	char line[256];
	int idx = -1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_EMPTY, &enable_word, 31, &idx));
	ASSERT_EQ(0, ue_format_read(NULL, EV_EMPTY, &fmt));
	EXPECT_EQ(0, fmt.nr);

	ASSERT_EQ(0, ue_enable(EV_EMPTY, true));
	ASSERT_EQ(1U << 31, enable_word);
	EXPECT_EQ(4, ue_emit(self->fd, idx, NULL, 0));
	EXPECT_EQ(4, write(self->fd, &idx, sizeof(idx)));
	ASSERT_EQ(0, ue_enable(EV_EMPTY, false));
	EXPECT_EQ(0, enable_word);

	ue_trace_read(&self->trace);
	EXPECT_EQ(2, ue_trace_count(self->trace, EV_EMPTY));
	EXPECT_EQ(0, ue_trace_line(self->trace, EV_EMPTY, 0, line,
				   sizeof(line)));
}

TEST_F_TIMEOUT(ftrace, ebadf_when_nothing_attached, TIMEOUT)
{
	__u32 val = 42;
	int idx = -1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_BADF " u32 a", &enable_word, 0,
			    &idx));
	EXPECT_EQ(-EBADF, ue_emit(self->fd, idx, &val, sizeof(val)));

	ASSERT_EQ(0, ue_enable(EV_BADF, true));
	EXPECT_EQ(8, ue_emit(self->fd, idx, &val, sizeof(val)));

	ASSERT_EQ(0, ue_enable(EV_BADF, false));
	EXPECT_EQ(-EBADF, ue_emit(self->fd, idx, &val, sizeof(val)));

	ue_trace_read(&self->trace);
	EXPECT_EQ(1, ue_trace_count(self->trace, EV_BADF));
}

/*
 * A record larger than the ring buffer's largest event is dropped and the
 * write succeeds, as when the buffer is full; whatever the size, no write
 * fails for it.
 */
TEST_F_TIMEOUT(ftrace, oversized_record_dropped, TIMEOUT)
{
	static char big[4 + 70000];
	__u32 val = 7;
	int idx = -1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_BADF " u32 a", &enable_word, 0,
			    &idx));
	ASSERT_EQ(0, ue_enable(EV_BADF, true));

	memcpy(big, &idx, sizeof(idx));
	EXPECT_EQ(4 + 65528, write(self->fd, big, 4 + 65528));
	EXPECT_EQ((ssize_t)sizeof(big), write(self->fd, big, sizeof(big)));
	EXPECT_EQ(8, ue_emit(self->fd, idx, &val, sizeof(val)));
	ASSERT_EQ(0, ue_enable(EV_BADF, false));

	ue_trace_read(&self->trace);
	EXPECT_EQ(1, ue_trace_count(self->trace, EV_BADF));
}

/*
 * Write records with broken loc words to an event "u32 a; LOC char[] s":
 * each must fail with EFAULT and leave nothing in the trace; then a good
 * record goes through.
 */
static void check_validator(struct __test_metadata *_metadata, int fd,
			    __u32 *word, char **trace, const char *name,
			    bool rel)
{
	char cmd[128], line[256];
	struct ue_format fmt;
	struct ue_rec rec;
	__u32 a = 7, loc, base;
	unsigned int i;
	int idx = -1;
	struct {
		const char *what;
		__u16 off;	/* __data_loc: from record start */
		__u16 size;
		const char *data;
		int data_len;
	} bad[] = {
		{ "offset beyond the record", 200, 4, "abc", 4 },
		{ "size beyond the record", 0, 100, "abc", 4 },
		{ "offset and size at u16 max", 0xffff, 0xffff, "abc", 4 },
		{ "no NUL within bounds", 0, 3, "abc", 3 },
		{ "no NUL, data ends the record", 0, 5, "abcde", 5 },
	};

	snprintf(cmd, sizeof(cmd), "%s u32 a; %s char[] s", name,
		 rel ? "__rel_loc" : "__data_loc");
	ASSERT_EQ(0, ue_reg(fd, cmd, word, 0, &idx));
	ASSERT_EQ(0, ue_format_read(NULL, name, &fmt));
	ASSERT_EQ(2, fmt.nr);
	ASSERT_EQ(0, ue_enable(name, true));
	ASSERT_EQ(1, *word);

	/* Where dynamic data starts, counted as this loc kind counts */
	base = rel ? 0 : fmt.fields[1].offset + 4;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ue_rec_init(&rec, &fmt);
		ue_rec_set_u64(&rec, &fmt, "a", a);
		memcpy(rec.data + rec.fixed, bad[i].data, bad[i].data_len);
		rec.len = rec.fixed + bad[i].data_len;
		if (bad[i].off == 0xffff)
			loc = DYN_LOC(0xffffU, 0xffffU);
		else
			loc = DYN_LOC(base + bad[i].off, (__u32)bad[i].size);
		ue_rec_set(&rec, &fmt, "s", &loc, 4);
		EXPECT_EQ(-EFAULT, ue_emit_rec(fd, idx, &rec))
			TH_LOG("%s", bad[i].what);
	}

	if (!rel) {
		/* Pointing into the common header, before the payload */
		for (i = 0; i < UE_HDR_SIZE; i += 4) {
			ue_rec_init(&rec, &fmt);
			ue_rec_set_u64(&rec, &fmt, "a", a);
			memcpy(rec.data + rec.fixed, "xy", 3);
			rec.len = rec.fixed + 3;
			loc = DYN_LOC(i, 3U);
			ue_rec_set(&rec, &fmt, "s", &loc, 4);
			EXPECT_EQ(-EFAULT, ue_emit_rec(fd, idx, &rec))
				TH_LOG("offset %u, in the header", i);
		}
	}

	/* A loc word but no room for it: the fixed part is short */
	EXPECT_EQ(-EINVAL, ue_emit(fd, idx, &a, sizeof(a)));

	ue_trace_read(trace);
	EXPECT_EQ(0, ue_trace_count(*trace, name));

	/* A good record */
	ue_rec_init(&rec, &fmt);
	ue_rec_set_u64(&rec, &fmt, "a", a);
	ASSERT_EQ(0, ue_rec_dyn(&rec, &fmt, "s", "good", 5));
	EXPECT_EQ(ue_rec_total(&rec), ue_emit_rec(fd, idx, &rec));
	/* An empty string, just the NUL */
	ue_rec_init(&rec, &fmt);
	ue_rec_set_u64(&rec, &fmt, "a", a + 1);
	ASSERT_EQ(0, ue_rec_dyn(&rec, &fmt, "s", "", 1));
	EXPECT_EQ(ue_rec_total(&rec), ue_emit_rec(fd, idx, &rec));
	ASSERT_EQ(0, ue_enable(name, false));

	ue_trace_read(trace);
	ASSERT_EQ(2, ue_trace_count(*trace, name));
	ASSERT_EQ(0, ue_trace_line(*trace, name, 0, line, sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "a=7")) TH_LOG("%s", line);
	EXPECT_TRUE(ue_has_token(line, "s=good")) TH_LOG("%s", line);
	ASSERT_EQ(0, ue_trace_line(*trace, name, 1, line, sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "a=8")) TH_LOG("%s", line);
}

TEST_F_TIMEOUT(ftrace, validate_data_loc, TIMEOUT)
{
	check_validator(_metadata, self->fd, &enable_word, &self->trace,
			EV_DLOC, false);
}

TEST_F_TIMEOUT(ftrace, validate_rel_loc, TIMEOUT)
{
	check_validator(_metadata, self->fd, &enable_word, &self->trace,
			EV_RLOC, true);
}

static int emit_filter_rec(int fd, int idx, const struct ue_format *fmt,
			   __u32 a, const char *s)
{
	struct ue_rec rec;

	ue_rec_init(&rec, fmt);
	ue_rec_set_u64(&rec, fmt, "a", a);
	ue_rec_dyn(&rec, fmt, "s", s, strlen(s) + 1);
	return ue_emit(fd, idx, rec.data, rec.len) == ue_rec_total(&rec);
}

TEST_F_TIMEOUT(ftrace, filter, TIMEOUT)
{
	char path[UE_PATH_MAX], line[256];
	struct ue_format fmt;
	int idx = -1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_FILTER " u32 a; __data_loc char[] s",
			    &enable_word, 0, &idx));
	ASSERT_EQ(0, ue_format_read(NULL, EV_FILTER, &fmt));
	ue_evpath(path, NULL, EV_FILTER, "filter");

	/* On an integer field */
	ASSERT_EQ(0, ue_write_str(path, "a > 5\n"));
	ASSERT_EQ(0, ue_enable(EV_FILTER, true));
	EXPECT_TRUE(emit_filter_rec(self->fd, idx, &fmt, 3, "three"));
	EXPECT_TRUE(emit_filter_rec(self->fd, idx, &fmt, 7, "seven"));
	EXPECT_TRUE(emit_filter_rec(self->fd, idx, &fmt, 5, "five"));
	EXPECT_TRUE(emit_filter_rec(self->fd, idx, &fmt, 9, "nine"));
	ASSERT_EQ(0, ue_enable(EV_FILTER, false));

	ue_trace_read(&self->trace);
	ASSERT_EQ(2, ue_trace_count(self->trace, EV_FILTER));
	ASSERT_EQ(0, ue_trace_line(self->trace, EV_FILTER, 0, line,
				   sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "a=7")) TH_LOG("%s", line);
	ASSERT_EQ(0, ue_trace_line(self->trace, EV_FILTER, 1, line,
				   sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "a=9")) TH_LOG("%s", line);

	/* On a __data_loc string */
	ASSERT_EQ(0, ue_trace_clear());
	ASSERT_EQ(0, ue_write_str(path, "s == \"seven\"\n"));
	ASSERT_EQ(0, ue_enable(EV_FILTER, true));
	EXPECT_TRUE(emit_filter_rec(self->fd, idx, &fmt, 3, "three"));
	EXPECT_TRUE(emit_filter_rec(self->fd, idx, &fmt, 7, "seven"));
	EXPECT_TRUE(emit_filter_rec(self->fd, idx, &fmt, 8, "sevens"));
	ASSERT_EQ(0, ue_enable(EV_FILTER, false));

	ue_trace_read(&self->trace);
	ASSERT_EQ(1, ue_trace_count(self->trace, EV_FILTER));
	ASSERT_EQ(0, ue_trace_line(self->trace, EV_FILTER, 0, line,
				   sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "s=seven")) TH_LOG("%s", line);

	/* A filter on a field the event does not have is refused */
	EXPECT_NE(0, ue_write_str(path, "nosuchfield == 1\n"));
	EXPECT_EQ(0, ue_write_str(path, "0\n"));
}

/*
 * The trace core's filters take every loc field whose type has "char" in
 * it for a string, and read a cpumask at a __data_loc cpumask_t: the
 * records they read must hold what they expect, and a type they would
 * read as another kind of field is refused.
 */
TEST_F_TIMEOUT(ftrace, filter_on_loc_bytes, TIMEOUT)
{
	char path[UE_PATH_MAX];
	struct ue_format fmt;
	struct ue_rec rec;
	int idx = -1;
	__u32 loc;

	ASSERT_EQ(0, ue_reg(self->fd,
			    EV_BYTES " u32 a; __data_loc unsigned char[] s",
			    &enable_word, 0, &idx));
	ASSERT_EQ(0, ue_format_read(NULL, EV_BYTES, &fmt));
	ue_evpath(path, NULL, EV_BYTES, "filter");
	ASSERT_EQ(0, ue_write_str(path, "s ~ \"*x*\"\n"));
	ASSERT_EQ(0, ue_enable(EV_BYTES, true));

	/* No data at all: the filter would read on to the next NUL */
	ue_rec_init(&rec, &fmt);
	ue_rec_set_u64(&rec, &fmt, "a", 1);
	loc = DYN_LOC(UE_HDR_SIZE + rec.len, 0U);
	ue_rec_set(&rec, &fmt, "s", &loc, 4);
	EXPECT_EQ(-EFAULT, ue_emit_rec(self->fd, idx, &rec));

	/* Bytes without a NUL */
	ue_rec_init(&rec, &fmt);
	ue_rec_set_u64(&rec, &fmt, "a", 2);
	ASSERT_EQ(0, ue_rec_dyn(&rec, &fmt, "s", "xyz", 3));
	EXPECT_EQ(-EFAULT, ue_emit_rec(self->fd, idx, &rec));

	/* A string the filter does not match */
	ue_rec_init(&rec, &fmt);
	ue_rec_set_u64(&rec, &fmt, "a", 3);
	ASSERT_EQ(0, ue_rec_dyn(&rec, &fmt, "s", "abc", 4));
	EXPECT_EQ(ue_rec_total(&rec), ue_emit_rec(self->fd, idx, &rec));

	/* A string the filter matches */
	ue_rec_init(&rec, &fmt);
	ue_rec_set_u64(&rec, &fmt, "a", 4);
	ASSERT_EQ(0, ue_rec_dyn(&rec, &fmt, "s", "xyz", 4));
	EXPECT_EQ(ue_rec_total(&rec), ue_emit_rec(self->fd, idx, &rec));
	ASSERT_EQ(0, ue_enable(EV_BYTES, false));
	EXPECT_EQ(0, ue_write_str(path, "0\n"));

	ue_trace_read(&self->trace);
	EXPECT_EQ(1, ue_trace_count(self->trace, EV_BYTES));

	/* A cpumask's size is the kernel's, not the writer's */
	EXPECT_EQ(-EINVAL, ue_reg(self->fd, EV_MASK " __data_loc cpumask_t[] m",
				  &enable_word, 1, NULL));

	/*
	 * The filters take a struct whose name holds "__data_loc" and
	 * "char" for a __data_loc string, and a __rel_loc field whose type
	 * holds "__data_loc" for one too: such types are refused.
	 */
	EXPECT_EQ(-EINVAL, ue_reg(self->fd, EV_MASK " struct __data_locchar m 4",
				  &enable_word, 1, NULL));
	EXPECT_EQ(-EINVAL, ue_reg(self->fd,
				  EV_MASK " __rel_loc x__data_loc char[] m",
				  &enable_word, 1, NULL));
}

/* Hit count of key @key in a hist file with "keys=a", or -1. */
static long hist_hits(const char *hist, unsigned long long key)
{
	unsigned long long k, hits;
	const char *p;

	for (p = hist; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (sscanf(p, "{ a: %llu } hitcount: %llu", &k, &hits) == 2 &&
		    k == key)
			return hits;
	}
	return -1;
}

/* Put a "keys=a" hist trigger on EV_HIST, or take it off; 0 or -errno */
static int hist_trigger_set(bool on)
{
	char path[UE_PATH_MAX];

	ue_evpath(path, NULL, EV_HIST, "trigger");
	if (on)
		return ue_write_str(path, "hist:keys=a\n");
	return ue_write_flags(path, O_APPEND, "!hist:keys=a\n", 13);
}

TEST_F_TIMEOUT(ftrace, hist_trigger, TIMEOUT)
{
	char path[UE_PATH_MAX];
	char *hist;
	__u32 a;
	int idx = -1, i;

	ASSERT_EQ(0, ue_reg(self->fd, EV_HIST " u32 a; u32 b", &enable_word,
			    0, &idx));
	ASSERT_EQ(0, hist_trigger_set(true));

	/* A hist trigger is a listener: the bit is set */
	EXPECT_EQ(1, enable_word);

	for (i = 0; i < 5; i++) {
		__u32 rec[2];

		a = i < 3 ? 1 : 2;
		rec[0] = a;
		rec[1] = i;
		EXPECT_EQ(12, ue_emit(self->fd, idx, rec, sizeof(rec)));
	}

	hist = ue_read_file(ue_evpath(path, NULL, EV_HIST, "hist"));
	ASSERT_NE(NULL, hist);
	EXPECT_EQ(3, hist_hits(hist, 1)) TH_LOG("%s", hist);
	EXPECT_EQ(2, hist_hits(hist, 2)) TH_LOG("%s", hist);
	EXPECT_EQ(-1, hist_hits(hist, 0));
	free(hist);

	ASSERT_EQ(0, hist_trigger_set(false));
	EXPECT_EQ(0, enable_word);
}

#define HIST_WRITES	10

/*
 * A hist trigger on an event that is not enabled (soft disabled) counts
 * every write, also one whose payload was not in memory: the second pass
 * of the write, once the payload is faulted in, gives the trigger its
 * record as the first one does.  The index sits at the end of one page
 * and the payload (zeros) on the next, dropped before each write.
 */
TEST_F_TIMEOUT(ftrace, hist_trigger_payload_not_resident, TIMEOUT)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[UE_PATH_MAX], *map, *hist;
	struct iovec io[2];
	int idx = -1, i;

	ASSERT_EQ(0, ue_reg(self->fd, EV_HIST " u32 a; u32 b", &enable_word,
			    0, &idx));
	ASSERT_EQ(0, hist_trigger_set(true));
	EXPECT_EQ(1, enable_word);
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	memcpy(map + page - sizeof(idx), &idx, sizeof(idx));
	io[0].iov_base = &idx;
	io[0].iov_len = sizeof(idx);
	io[1].iov_base = map + page;
	io[1].iov_len = 2 * sizeof(__u32);

	for (i = 0; i < HIST_WRITES; i++) {
		ASSERT_EQ(0, madvise(map + page, page, MADV_DONTNEED));
		EXPECT_EQ(12, write(self->fd, map + page - sizeof(idx), 12));
		ASSERT_EQ(0, madvise(map + page, page, MADV_DONTNEED));
		EXPECT_EQ(12, writev(self->fd, io, 2));
	}

	hist = ue_read_file(ue_evpath(path, NULL, EV_HIST, "hist"));
	ASSERT_NE(NULL, hist);
	EXPECT_EQ(2 * HIST_WRITES, hist_hits(hist, 0)) TH_LOG("%s", hist);
	free(hist);
	munmap(map, 2 * page);
	ASSERT_EQ(0, hist_trigger_set(false));
	EXPECT_EQ(0, enable_word);
}

/*
 * ftrace's enable is a reference too: the event outlives its last
 * registration while enabled, and goes once ftrace lets it go.
 */
TEST_F_TIMEOUT(ftrace, gone_after_last_listener, TIMEOUT)
{
	char line[128];

	ASSERT_EQ(0, ue_reg(self->fd, EV_GONE " u32 a", &enable_word, 0, NULL));
	ASSERT_EQ(0, ue_enable(EV_GONE, true));
	ASSERT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	close(self->fd);
	self->fd = -1;

	EXPECT_TRUE(ue_event_exists(NULL, EV_GONE));
	ASSERT_EQ(0, ue_status_line(EV_GONE, line, sizeof(line)));
	EXPECT_STREQ(EV_GONE " # Used by ftrace", line);
	EXPECT_EQ(-EBUSY, ue_del(EV_GONE));

	ASSERT_EQ(0, ue_enable(EV_GONE, false));
	EXPECT_TRUE(ue_wait_gone(NULL, EV_GONE, 5000));
	EXPECT_EQ(-ENOENT, ue_status_line(EV_GONE, line, sizeof(line)));
}

/*
 * One event enabled in two trace instances: each gets the records while
 * it has the event enabled, and the event stays on (bit set, "Used by
 * ftrace") until the last of them disables it.
 */
TEST_F_TIMEOUT(ftrace, two_instances, TIMEOUT)
{
	char path[UE_PATH_MAX], line[128];
	__u32 val = 7;
	int idx = -1;

	inst_remove();
	ASSERT_EQ(0, mkdir(ue_path(path, INST_A), 0755));
	ASSERT_EQ(0, mkdir(ue_path(path, INST_B), 0755));
	ASSERT_EQ(0, ue_reg(self->fd, EV_INST " u32 a", &enable_word, 0, &idx));

	ASSERT_EQ(0, inst_enable(INST_A, EV_INST, true));
	ASSERT_EQ(0, inst_enable(INST_B, EV_INST, true));
	EXPECT_EQ(1, enable_word);
	ASSERT_EQ(0, ue_status_line(EV_INST, line, sizeof(line)));
	EXPECT_STREQ(EV_INST " # Used by ftrace", line);
	EXPECT_EQ(8, ue_emit(self->fd, idx, &val, sizeof(val)));
	EXPECT_EQ(1, inst_count(INST_A, EV_INST));
	EXPECT_EQ(1, inst_count(INST_B, EV_INST));
	/* The top-level buffer has it off */
	EXPECT_EQ(0, inst_count(".", EV_INST));

	/* One instance lets go: the other still records */
	ASSERT_EQ(0, inst_enable(INST_A, EV_INST, false));
	EXPECT_EQ(1, enable_word);
	ASSERT_EQ(0, ue_status_line(EV_INST, line, sizeof(line)));
	EXPECT_STREQ(EV_INST " # Used by ftrace", line);
	EXPECT_EQ(8, ue_emit(self->fd, idx, &val, sizeof(val)));
	EXPECT_EQ(1, inst_count(INST_A, EV_INST));
	EXPECT_EQ(2, inst_count(INST_B, EV_INST));

	/* The last one: off, and writes have nothing to go to */
	ASSERT_EQ(0, inst_enable(INST_B, EV_INST, false));
	EXPECT_EQ(0, enable_word);
	ASSERT_EQ(0, ue_status_line(EV_INST, line, sizeof(line)));
	EXPECT_STREQ(EV_INST, line);
	EXPECT_EQ(-EBADF, ue_emit(self->fd, idx, &val, sizeof(val)));

	/* An instance that goes while it has the event enabled lets go too */
	ASSERT_EQ(0, inst_enable(INST_A, EV_INST, true));
	EXPECT_EQ(1, enable_word);
	ASSERT_EQ(0, rmdir(ue_path(path, INST_A)));
	EXPECT_EQ(0, enable_word);
	ASSERT_EQ(0, ue_status_line(EV_INST, line, sizeof(line)));
	EXPECT_STREQ(EV_INST, line);
	ASSERT_EQ(0, rmdir(ue_path(path, INST_B)));
}

/*
 * The stacktrace option applies to user events as to every trace event:
 * each record is followed by the kernel stack of the write(), which
 * starts below the trace core's own functions and the probe.
 */
TEST_F_TIMEOUT(ftrace, stacktrace_option, TIMEOUT)
{
	char path[UE_PATH_MAX];
	const char *rec, *stack, *end, *first;
	char *buf = NULL;
	__u32 val = 9;
	int idx = -1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_STACK " u32 a", &enable_word, 0, &idx));
	ASSERT_EQ(0, ue_enable(EV_STACK, true));
	ASSERT_EQ(0, ue_write_str(ue_path(path, "options/stacktrace"), "1\n"));
	EXPECT_EQ(8, ue_emit(self->fd, idx, &val, sizeof(val)));
	ASSERT_EQ(0, ue_write_str(ue_path(path, "options/stacktrace"), "0\n"));
	/* Off again: no stack after this one */
	EXPECT_EQ(8, ue_emit(self->fd, idx, &val, sizeof(val)));
	ASSERT_EQ(0, ue_enable(EV_STACK, false));

	ue_trace_read(&buf);
	ASSERT_NE(NULL, buf);
	EXPECT_EQ(2, ue_trace_count(buf, EV_STACK));
	rec = ue_trace_next(buf, EV_STACK);
	ASSERT_NE(NULL, rec);
	stack = strstr(rec, "<stack trace>");
	ASSERT_NE(NULL, stack) TH_LOG("no stack trace after the record");
	end = ue_trace_next(rec + strlen(EV_STACK), EV_STACK);
	ASSERT_NE(NULL, end);
	EXPECT_LT(stack, end);
	EXPECT_NE(NULL, strstr(stack, "=> ")) TH_LOG("no frame: %.300s", stack);
	/* The write's own path is there, the trace core's commit is not */
	EXPECT_NE(NULL, strstr(stack, "vfs_write")) TH_LOG("%.400s", stack);
	EXPECT_EQ(NULL, strstr(stack, "trace_event_buffer_commit"))
		TH_LOG("%.400s", stack);
	/*
	 * As for the kernel's own events, the trace core's frames and the
	 * probe's are skipped: the first frame is the write path that runs
	 * the probe (user_events_record(), or user_events_write() if the
	 * compiler inlined it), never the probe user_event_ftrace().
	 */
	first = strstr(stack, "=> ");
	ASSERT_NE(NULL, first);
	first += 3;
	EXPECT_EQ(0, strncmp(first, "user_events_", strlen("user_events_")))
		TH_LOG("first frame: %.60s", first);
	/* Nothing after the second record */
	EXPECT_EQ(NULL, strstr(end, "<stack trace>"));
	free(buf);
}

/*
 * A deleted event's records stay in the ring buffer (nothing clears it
 * when an event goes).  The next event registered must not get the
 * deleted one's type, or the trace file and trace_pipe print those
 * records as its own, decoded from the wrong data: only the record the
 * new event wrote may show under its name.
 */
TEST_F_TIMEOUT(ftrace, deleted_event_type_not_reused, TIMEOUT)
{
	/* u32 a = 0xdeadbeef; char[8] s = "oldrec" */
	static const char old[12] = "\xef\xbe\xad\xdeoldrec";
	long old_id = -1, new_id = -1;
	char line[256], path[UE_PATH_MAX];
	static char buf[1 << 16];
	size_t len = 0;
	__u64 x = 77;
	int idx = -1, fd, i;
	ssize_t n;

	ASSERT_EQ(0, ue_reg(self->fd, EV_OLD " u32 a; char[8] s", &enable_word,
			    0, &idx));
	ASSERT_EQ(0, ue_event_id(NULL, EV_OLD, &old_id));
	ASSERT_EQ(0, ue_enable(EV_OLD, true));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(4 + (ssize_t)sizeof(old),
			  ue_emit(self->fd, idx, &old, sizeof(old)));
	ASSERT_EQ(0, ue_enable(EV_OLD, false));

	/* Its registration and its file go: so does the event */
	ASSERT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	close(self->fd);
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	ASSERT_TRUE(ue_wait_gone(NULL, EV_OLD, 2000));

	/* The next event registered: another type */
	ASSERT_EQ(0, ue_reg(self->fd, EV_NEW " u64 x", &enable_word, 1, &idx));
	ASSERT_EQ(0, ue_event_id(NULL, EV_NEW, &new_id));
	EXPECT_NE(old_id, new_id);
	ASSERT_EQ(0, ue_enable(EV_NEW, true));
	ASSERT_EQ(4 + (ssize_t)sizeof(x), ue_emit(self->fd, idx, &x, sizeof(x)));
	ASSERT_EQ(0, ue_enable(EV_NEW, false));

	/* trace: the new event's one record under its name, and no other */
	ue_trace_read(&self->trace);
	EXPECT_EQ(1, ue_trace_count(self->trace, EV_NEW))
		TH_LOG("%s", self->trace);
	ASSERT_EQ(0, ue_trace_line(self->trace, EV_NEW, 0, line, sizeof(line)));
	EXPECT_TRUE(ue_has_token(line, "x=77")) TH_LOG("%s", line);

	/* trace_pipe, which consumes the records: the same */
	fd = open(ue_path(path, "trace_pipe"), O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	while (len < sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	EXPECT_EQ(1, ue_trace_count(buf, EV_NEW)) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "x=77"));
	EXPECT_EQ(0, ue_unreg(self->fd, &enable_word, 1));
}

TEST_HARNESS_MAIN
