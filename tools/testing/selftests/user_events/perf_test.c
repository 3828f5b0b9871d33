// SPDX-License-Identifier: GPL-2.0
/*
 * user_events with perf: perf_event_open() on an event's id sets its
 * enable bit and the status file says "perf"; each record written lands in
 * the ring buffer as a PERF_RECORD_SAMPLE whose raw data has the layout of
 * the format file (fields, __data_loc and __rel_loc included, never the
 * write index); a record too large for perf is dropped, the write
 * succeeds.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_format.h"
#include "user_events_status.h"

#define TIMEOUT		300

#define EV_TYPES	UE_PREFIX "pf_types"
#define EV_EMPTY	UE_PREFIX "pf_empty"
#define EV_STATUS	UE_PREFIX "pf_status"
#define EV_GONE		UE_PREFIX "pf_gone"

#define RING_PAGES	16	/* data pages, a power of two */
#define MAX_SAMPLES	64

static const char * const events[] = {
	EV_TYPES, EV_EMPTY, EV_STATUS, EV_GONE,
};

struct sample {
	__u32 size;
	unsigned char raw[4096];
};

/* A perf event on a user event, its ring and the samples read from it */
struct perf_ring {
	int perf_fd;
	void *map;
	size_t map_len;
	struct sample samples[MAX_SAMPLES];
	int nr_samples;
	int nr_other;		/* records of other types (lost, ...) */
};

/*
 * The enable word of the tests: private memory of the test process, not a
 * field of the fixture data, which FIXTURE_TEARDOWN_PARENT shares.
 */
static __u32 enable_word;

/* Shared with the teardown: @fd and @r belong to the test process */
FIXTURE(perf) {
	int fd;
	struct perf_ring r;
};

FIXTURE_SETUP(perf)
{
	const char *reason = ue_setup();

	self->fd = -1;
	self->r.perf_fd = -1;
	self->r.map = NULL;
	if (reason)
		SKIP(return, "%s", reason);
	if (!ue_exists("/proc/sys/kernel/perf_event_paranoid"))
		SKIP(return, "no perf events (CONFIG_PERF_EVENTS?)");
	ue_cleanup_names(events, ARRAY_SIZE(events));
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	enable_word = 0;
}

static void perf_close(struct perf_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
	if (r->perf_fd >= 0)
		close(r->perf_fd);
	r->perf_fd = -1;
}

/*
 * After the test process exited: its registrations went with its memory
 * and its files were released, so every event it made can be deleted.
 */
FIXTURE_TEARDOWN_PARENT(perf)
{
	if (!ue_setup())
		ue_cleanup_names(events, ARRAY_SIZE(events));
}

/* perf_event_open() on user event @name and map its ring; 0 or -errno */
static int perf_attach(struct perf_ring *r, const char *name)
{
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	ret = ue_perf_open(NULL, name);
	if (ret < 0)
		return ret;
	r->perf_fd = ret;
	r->map_len = (RING_PAGES + 1) * page;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      r->perf_fd, 0);
	if (r->map == MAP_FAILED) {
		ret = -errno;
		r->map = NULL;
		perf_close(r);
		return ret;
	}
	return 0;
}

/* Copy @len bytes at ring position @pos, wrapping around the data area */
static void ring_copy(const unsigned char *data, __u64 size, __u64 pos,
		      void *out, size_t len)
{
	size_t off = pos % size, first = len;

	if (first > size - off)
		first = size - off;
	memcpy(out, data + off, first);
	memcpy((unsigned char *)out + first, data, len - first);
}

/* Consume the ring: PERF_RECORD_SAMPLEs into r->samples. */
static void read_samples(struct perf_ring *r)
{
	struct perf_event_mmap_page *meta = r->map;
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_header hdr;
	const unsigned char *data;
	static unsigned char rec[65536];	/* any perf_event_header.size */
	__u64 head, tail, size;
	struct sample *s;

	r->nr_samples = 0;
	r->nr_other = 0;
	if (!meta)
		return;
	data = (unsigned char *)meta + (meta->data_offset ?: page);
	size = meta->data_size ?: (__u64)RING_PAGES * page;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;

	while (tail + sizeof(hdr) <= head) {
		ring_copy(data, size, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > sizeof(rec))
			break;
		if (hdr.type == PERF_RECORD_SAMPLE &&
		    r->nr_samples < MAX_SAMPLES) {
			ring_copy(data, size, tail, rec, hdr.size);
			s = &r->samples[r->nr_samples++];
			memcpy(&s->size, rec + sizeof(hdr), sizeof(s->size));
			if (s->size > sizeof(s->raw) ||
			    s->size + sizeof(hdr) + 4 > hdr.size)
				s->size = 0;
			memcpy(s->raw, rec + sizeof(hdr) + 4, s->size);
		} else {
			r->nr_other++;
		}
		tail += hdr.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static __u64 raw_get(const struct sample *s, int off, int size)
{
	__u64 v = 0;

	memcpy(&v, s->raw + off, size);
	return v;
}

/* A field of every type, and the value the record carries */
#define TYPES_CMD EV_TYPES " u8 f_u8; s8 f_s8; char f_char; "		\
	"unsigned char f_uchar; u16 f_u16; s16 f_s16; short f_short; "	\
	"unsigned short f_ushort; u32 f_u32; s32 f_s32; int f_int; "	\
	"unsigned int f_uint; u64 f_u64; s64 f_s64; char[16] f_arr; "	\
	"unsigned char[4] f_uarr; __data_loc char[] f_dl; "		\
	"__rel_loc char[] f_rl; struct pf_pair f_st 8"

static const struct {
	const char *name;
	__u64 value;
} int_fields[] = {
	{ "f_u8", 250 }, { "f_s8", (__u8)-100 }, { "f_char", (__u8)-3 },
	{ "f_uchar", 200 }, { "f_u16", 65000 }, { "f_s16", (__u16)-30000 },
	{ "f_short", (__u16)-2 }, { "f_ushort", 60000 },
	{ "f_u32", 4000000000U }, { "f_s32", (__u32)-2000000000 },
	{ "f_int", (__u32)-7 }, { "f_uint", 3000000000U },
	{ "f_u64", 18000000000000000000ULL },
	{ "f_s64", (__u64)-9000000000000000000LL },
};

TEST_F_TIMEOUT(perf, sample_every_field, TIMEOUT)
{
	static const unsigned char st[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };
	static const unsigned char uarr[4] = { 0xca, 0xfe, 0xf0, 0x0d };
	const struct ue_field *f;
	struct ue_format fmt;
	struct ue_rec rec;
	struct sample *s;
	__u32 loc, start;
	unsigned int i;
	long id = 0;
	int idx = -1;

	ASSERT_EQ(0, ue_reg(self->fd, TYPES_CMD, &enable_word, 0, &idx));
	ASSERT_EQ(0, ue_format_read(NULL, EV_TYPES, &fmt));
	ASSERT_EQ(19, fmt.nr);
	ASSERT_EQ(0, ue_event_id(NULL, EV_TYPES, &id));

	ue_rec_init(&rec, &fmt);
	for (i = 0; i < ARRAY_SIZE(int_fields); i++)
		ASSERT_EQ(0, ue_rec_set_u64(&rec, &fmt, int_fields[i].name,
					    int_fields[i].value));
	ASSERT_EQ(0, ue_rec_set(&rec, &fmt, "f_arr", "perf-array", 11));
	ASSERT_EQ(0, ue_rec_set(&rec, &fmt, "f_uarr", uarr, 4));
	ASSERT_EQ(0, ue_rec_set(&rec, &fmt, "f_st", st, 8));
	ASSERT_EQ(0, ue_rec_dyn(&rec, &fmt, "f_dl", "perf-data-loc", 14));
	ASSERT_EQ(0, ue_rec_dyn(&rec, &fmt, "f_rl", "perf-rel-loc", 13));

	ASSERT_EQ(0, perf_attach(&self->r, EV_TYPES));
	ASSERT_EQ(1, enable_word);
	ASSERT_EQ(ue_rec_total(&rec), ue_emit_rec(self->fd, idx, &rec));

	read_samples(&self->r);
	ASSERT_EQ(1, self->r.nr_samples);
	s = &self->r.samples[0];

	/* The record, padded to 8 bytes with the size word; no index */
	EXPECT_LE(UE_HDR_SIZE + rec.len, s->size);
	EXPECT_GT(UE_HDR_SIZE + rec.len + 8, s->size);
	ASSERT_LE(UE_HDR_SIZE + rec.fixed, s->size);
	EXPECT_EQ(id, raw_get(s, 0, 2));		/* common_type */
	EXPECT_EQ(getpid(), (pid_t)raw_get(s, 4, 4));	/* common_pid */

	for (i = 0; i < ARRAY_SIZE(int_fields); i++) {
		f = ue_field(&fmt, int_fields[i].name);
		ASSERT_NE(NULL, f);
		EXPECT_EQ(int_fields[i].value, raw_get(s, f->offset, f->size))
			TH_LOG("%s at %d", f->name, f->offset);
	}
	f = ue_field(&fmt, "f_arr");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(0, memcmp(s->raw + f->offset, "perf-array\0\0\0\0\0", 16));
	f = ue_field(&fmt, "f_uarr");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(0, memcmp(s->raw + f->offset, uarr, 4));
	f = ue_field(&fmt, "f_st");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(0, memcmp(s->raw + f->offset, st, 8));

	/* __data_loc: offset from the start of the record */
	f = ue_field(&fmt, "f_dl");
	ASSERT_NE(NULL, f);
	loc = raw_get(s, f->offset, 4);
	EXPECT_EQ(14, loc >> 16);
	start = loc & 0xffff;
	ASSERT_GE(s->size, start + 14);
	EXPECT_STREQ("perf-data-loc", (char *)s->raw + start);

	/* __rel_loc: offset from the end of the loc word */
	f = ue_field(&fmt, "f_rl");
	ASSERT_NE(NULL, f);
	loc = raw_get(s, f->offset, 4);
	EXPECT_EQ(13, loc >> 16);
	start = f->offset + 4 + (loc & 0xffff);
	ASSERT_GE(s->size, start + 13);
	EXPECT_STREQ("perf-rel-loc", (char *)s->raw + start);

	/* Detached: the bit clears, writes have nowhere to go */
	perf_close(&self->r);
	EXPECT_EQ(0, enable_word);
	EXPECT_EQ(-EBADF, ue_emit_rec(self->fd, idx, &rec));
}

TEST_F_TIMEOUT(perf, validators_drop_bad_records, TIMEOUT)
{
	struct ue_format fmt;
	struct ue_rec rec;
	__u32 loc;
	int idx = -1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_STATUS " u32 a; __data_loc char[] s",
			    &enable_word, 0, &idx));
	ASSERT_EQ(0, ue_format_read(NULL, EV_STATUS, &fmt));
	ASSERT_EQ(0, perf_attach(&self->r, EV_STATUS));

	/* Out of bounds, then no NUL: EFAULT and no sample */
	ue_rec_init(&rec, &fmt);
	memcpy(rec.data + rec.fixed, "abcd", 4);
	rec.len = rec.fixed + 4;
	loc = DYN_LOC(UE_HDR_SIZE + rec.fixed + 100, 4U);
	ue_rec_set(&rec, &fmt, "s", &loc, 4);
	EXPECT_EQ(-EFAULT, ue_emit_rec(self->fd, idx, &rec));
	loc = DYN_LOC(UE_HDR_SIZE + rec.fixed, 4U);
	ue_rec_set(&rec, &fmt, "s", &loc, 4);
	EXPECT_EQ(-EFAULT, ue_emit_rec(self->fd, idx, &rec));

	read_samples(&self->r);
	EXPECT_EQ(0, self->r.nr_samples);

	/* and a good one */
	ue_rec_init(&rec, &fmt);
	ASSERT_EQ(0, ue_rec_dyn(&rec, &fmt, "s", "abc", 4));
	EXPECT_EQ(ue_rec_total(&rec), ue_emit_rec(self->fd, idx, &rec));
	read_samples(&self->r);
	EXPECT_EQ(1, self->r.nr_samples);
}

/*
 * A record larger than perf's trace buffer (8 KiB) is dropped for perf,
 * and the write succeeds, as when the ring is full; smaller ones still
 * arrive.
 */
TEST_F_TIMEOUT(perf, oversized_record_dropped, TIMEOUT)
{
	static char big[4 + 70000];
	__u32 val = 5;
	int idx = -1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_EMPTY " u32 a", &enable_word, 0,
			    &idx));
	ASSERT_EQ(0, perf_attach(&self->r, EV_EMPTY));

	memcpy(big, &idx, sizeof(idx));
	/* 8 header bytes + 8181 + the u32 size word, 8-aligned: 8196 */
	EXPECT_EQ(4 + 8181, write(self->fd, big, 4 + 8181));
	EXPECT_EQ((ssize_t)sizeof(big), write(self->fd, big, sizeof(big)));
	read_samples(&self->r);
	EXPECT_EQ(0, self->r.nr_samples);

	/* The largest that fits: 8188 bytes of raw data */
	EXPECT_EQ(4 + 8180, write(self->fd, big, 4 + 8180));
	EXPECT_EQ(8, ue_emit(self->fd, idx, &val, sizeof(val)));
	read_samples(&self->r);
	EXPECT_EQ(2, self->r.nr_samples);
}

TEST_F_TIMEOUT(perf, empty_event, TIMEOUT)
{
	long id = 0;
	int idx = -1, i;

	ASSERT_EQ(0, ue_reg(self->fd, EV_EMPTY, &enable_word, 7, &idx));
	ASSERT_EQ(0, ue_event_id(NULL, EV_EMPTY, &id));
	ASSERT_EQ(0, perf_attach(&self->r, EV_EMPTY));
	ASSERT_EQ(1U << 7, enable_word);

	for (i = 0; i < 3; i++)
		EXPECT_EQ(4, ue_emit(self->fd, idx, NULL, 0));

	read_samples(&self->r);
	ASSERT_EQ(3, self->r.nr_samples);
	for (i = 0; i < 3; i++) {
		EXPECT_LE(UE_HDR_SIZE, self->r.samples[i].size);
		EXPECT_GT(UE_HDR_SIZE + 8, self->r.samples[i].size);
		EXPECT_EQ(id, raw_get(&self->r.samples[i], 0, 2));
	}
	perf_close(&self->r);
	EXPECT_EQ(0, enable_word);
}

TEST_F_TIMEOUT(perf, status_and_bit, TIMEOUT)
{
	long active0 = 0, busy0 = 0, active = 0, busy = 0;
	char line[256];
	int perf2;
	long id = 0;

	ASSERT_EQ(0, ue_status_counts(&active0, &busy0));
	ASSERT_EQ(0, ue_reg(self->fd, EV_STATUS " u32 a", &enable_word, 0,
			    NULL));
	ASSERT_EQ(0, ue_event_id(NULL, EV_STATUS, &id));

	ASSERT_EQ(0, perf_attach(&self->r, EV_STATUS));
	EXPECT_EQ(1, enable_word);
	ASSERT_EQ(0, ue_status_line(EV_STATUS, line, sizeof(line)));
	EXPECT_STREQ(EV_STATUS " # Used by perf", line);
	ASSERT_EQ(0, ue_status_counts(&active, &busy));
	EXPECT_EQ(busy0 + 1, busy);

	/* A second perf event: closing one leaves the bit set */
	perf2 = ue_perf_open_id(id);
	ASSERT_LE(0, perf2);
	EXPECT_EQ(1, enable_word);

	/* ftrace as well */
	ASSERT_EQ(0, ue_enable(EV_STATUS, true));
	ASSERT_EQ(0, ue_status_line(EV_STATUS, line, sizeof(line)));
	EXPECT_STREQ(EV_STATUS " # Used by ftrace perf", line);

	perf_close(&self->r);
	EXPECT_EQ(1, enable_word);
	close(perf2);
	EXPECT_EQ(1, enable_word);
	ASSERT_EQ(0, ue_status_line(EV_STATUS, line, sizeof(line)));
	EXPECT_STREQ(EV_STATUS " # Used by ftrace", line);

	ASSERT_EQ(0, ue_enable(EV_STATUS, false));
	EXPECT_EQ(0, enable_word);
	ASSERT_EQ(0, ue_status_line(EV_STATUS, line, sizeof(line)));
	EXPECT_STREQ(EV_STATUS, line);
	ASSERT_EQ(0, ue_status_counts(&active, &busy));
	EXPECT_EQ(busy0, busy);

	/* A perf event references the event: DEL is EBUSY until it closes */
	ASSERT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	close(self->fd);
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ue_reg_flags(self->fd, EV_STATUS " u32 a",
				  USER_EVENT_REG_PERSIST, &enable_word, 4, 0,
				  NULL));
	ASSERT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, perf_attach(&self->r, EV_STATUS));
	EXPECT_EQ(-EBUSY, ue_del(EV_STATUS));
	perf_close(&self->r);
	EXPECT_EQ(0, ue_del(EV_STATUS));
}

/* A perf event keeps a non-persistent event alive until it closes */
TEST_F_TIMEOUT(perf, gone_after_perf_close, TIMEOUT)
{
	ASSERT_EQ(0, ue_reg(self->fd, EV_GONE " u32 a", &enable_word, 0, NULL));
	ASSERT_EQ(0, perf_attach(&self->r, EV_GONE));
	ASSERT_EQ(0, ue_unreg(self->fd, &enable_word, 0));
	close(self->fd);
	self->fd = -1;

	EXPECT_TRUE(ue_event_exists(NULL, EV_GONE));
	EXPECT_EQ(-EBUSY, ue_del(EV_GONE));
	perf_close(&self->r);
	EXPECT_TRUE(ue_wait_gone(NULL, EV_GONE, 5000));
}

TEST_HARNESS_MAIN
