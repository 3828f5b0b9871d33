// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of how the trace core hands out event types, which user
 * events rely on: the records a deleted event left in a buffer print as
 * an unknown type only while no other event has its type, so a freed
 * type must not be given again while other types are free, also after a
 * wrap-around and with the type space nearly full.  And user events take
 * no type from the reserve they leave to the rest of the kernel.
 *
 * The tests register output-only trace events (no event call, nothing in
 * tracefs) until no type is left, so they must run while nothing else
 * registers events: at boot, built in.  The reserve case also creates a
 * user event, and deletes it.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/trace_events.h>

#include "trace_events_user_core.h"
#include "trace_output.h"

#define TYPES_ALL	(TRACE_EVENT_TYPE_MAX + 1)
/* Entries are not reused: room to fill the space twice */
#define TYPES_ENTRIES	(2 * TYPES_ALL)

struct types_ctx {
	struct trace_event	*ev;	/* type 0: not registered */
	unsigned int		nr;	/* entries of @ev used */
};

static enum print_line_t types_print(struct trace_iterator *iter, int flags,
				     struct trace_event *event)
{
	return TRACE_TYPE_HANDLED;
}

static struct trace_event_functions types_funcs = {
	.trace	= types_print,
};

static int types_init(struct kunit *test)
{
	struct types_ctx *c;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->ev = kvcalloc(TYPES_ENTRIES, sizeof(*c->ev), GFP_KERNEL);
	if (!c->ev)
		return -ENOMEM;
	test->priv = c;
	return 0;
}

static void types_exit(struct kunit *test)
{
	struct types_ctx *c = test->priv;
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		if (c->ev[i].type)
			unregister_trace_event(&c->ev[i]);
	kvfree(c->ev);
}

/* Register one more event: its type, or 0 when none was left */
static int types_reg(struct types_ctx *c)
{
	struct trace_event *ev = &c->ev[c->nr];

	if (c->nr == TYPES_ENTRIES)
		return 0;
	ev->type = 0;
	ev->funcs = &types_funcs;
	if (!register_trace_event(ev))
		return 0;
	c->nr++;
	return ev->type;
}

static void types_unreg(struct types_ctx *c, unsigned int i)
{
	unregister_trace_event(&c->ev[i]);
	c->ev[i].type = 0;
}

/* The entry that holds @type, or -1 */
static int types_find(struct types_ctx *c, int type)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		if (c->ev[i].type == type)
			return i;
	return -1;
}

/* Take every type there is: the space is full afterwards */
static void types_fill(struct kunit *test, struct types_ctx *c)
{
	while (types_reg(c))
		;
	KUNIT_ASSERT_EQ(test, trace_event_types_free(), 0);
}

/*
 * With @nr_free types free after a wrap-around, a type freed just above
 * the last one given is not given again while the others are free; once
 * only it is left, it is given rather than fail.
 */
static void types_kept_out(struct kunit *test, unsigned int nr_free)
{
	struct types_ctx *c = test->priv;
	unsigned int filled, i;
	int cursor, victim, want, t;

	types_fill(test, c);
	filled = c->nr;
	KUNIT_ASSERT_GT(test, filled, nr_free + 2);

	/* Free @nr_free + 1 types spread over the space */
	for (i = 0; i <= nr_free; i++)
		types_unreg(c, (i + 1) * (filled / (nr_free + 2)));
	KUNIT_EXPECT_EQ(test, trace_event_types_free(), nr_free + 1);

	/* Nothing is free but what was just freed: one of it is given */
	cursor = types_reg(c);
	KUNIT_ASSERT_NE(test, cursor, 0);

	/* The type right after the cursor goes */
	want = cursor < TRACE_EVENT_TYPE_MAX ? cursor + 1 : cursor;
	victim = types_find(c, want);
	if (victim < 0 || want == cursor)
		kunit_skip(test, "type %d after %d is not taken", want, cursor);
	types_unreg(c, victim);
	KUNIT_EXPECT_EQ(test, trace_event_types_free(), nr_free + 1);

	for (i = 0; i < nr_free; i++) {
		t = types_reg(c);
		KUNIT_ASSERT_NE(test, t, 0);
		KUNIT_EXPECT_NE_MSG(test, t, want,
				    "freed type given again, %u of %u free",
				    nr_free - i, nr_free);
	}

	/* Only the freed one is left */
	KUNIT_EXPECT_EQ(test, types_reg(c), want);
	KUNIT_EXPECT_EQ(test, trace_event_types_free(), 0);
	KUNIT_EXPECT_EQ(test, types_reg(c), 0);
}

/* The type space nearly full: eight types free */
static void types_kept_out_near_full(struct kunit *test)
{
	types_kept_out(test, 8);
}

/* After a wrap-around, with a quarter of the space free */
static void types_kept_out_after_wrap(struct kunit *test)
{
	types_kept_out(test, TYPES_ALL / 4);
}

/* A freed type counts as free, and comes back only after the others */
static void types_freed_counts(struct kunit *test)
{
	struct types_ctx *c = test->priv;
	unsigned int before = trace_event_types_free();
	int a, b;

	a = types_reg(c);
	KUNIT_ASSERT_NE(test, a, 0);
	KUNIT_EXPECT_EQ(test, trace_event_types_free(), before - 1);
	types_unreg(c, 0);
	KUNIT_EXPECT_EQ(test, trace_event_types_free(), before);
	b = types_reg(c);
	KUNIT_ASSERT_NE(test, b, 0);
	KUNIT_EXPECT_NE(test, a, b);
}

#define TYPES_UE_CMD		"__kunit_reserve u32 a"
#define TYPES_UE_OVER_CMD	"__kunit_reserve_over u32 a"

/*
 * With USER_EVENT_TYPES_RESERVED + 1 types free a user event is created,
 * and the next one is -ENOSPC (and a line in the top-level error_log)
 * while the core still gives the rest of the kernel a type.  Both
 * commands are parsed first: no assertion can fail while the test holds
 * the event.
 */
static void types_user_events_reserve(struct kunit *test)
{
	struct user_event_format *fmt, *fmt_over;
	struct types_ctx *c = test->priv;
	struct user_event *ue, *over;
	struct user_parse_err err;
	bool created;

	KUNIT_ASSERT_EQ(test, user_event_parse(TYPES_UE_CMD, &fmt, &err), 0);
	if (user_event_parse(TYPES_UE_OVER_CMD, &fmt_over, &err)) {
		user_event_format_free(fmt);
		KUNIT_FAIL_AND_ABORT(test, "cannot parse %s", TYPES_UE_OVER_CMD);
	}
	while (trace_event_types_free() > USER_EVENT_TYPES_RESERVED + 1)
		if (!types_reg(c))
			break;
	if (trace_event_types_free() != USER_EVENT_TYPES_RESERVED + 1) {
		user_event_format_free(fmt);
		user_event_format_free(fmt_over);
		KUNIT_FAIL_AND_ABORT(test, "%u types free, not %u",
				     trace_event_types_free(),
				     USER_EVENT_TYPES_RESERVED + 1);
	}

	/* user_event_get() takes the format either way */
	ue = user_event_get(&user_event_global, fmt, false, TYPES_UE_CMD, 0,
			    &created);
	if (IS_ERR(ue)) {
		user_event_format_free(fmt_over);
		KUNIT_FAIL_AND_ABORT(test, "not created: %ld", PTR_ERR(ue));
	}
	KUNIT_EXPECT_TRUE(test, created);
	KUNIT_EXPECT_EQ(test, trace_event_types_free(),
			USER_EVENT_TYPES_RESERVED);

	over = user_event_get(&user_event_global, fmt_over, false,
			      TYPES_UE_OVER_CMD, 0, &created);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(over), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, created);
	if (!IS_ERR(over))
		user_event_put(over);
	KUNIT_EXPECT_EQ(test, trace_event_types_free(),
			USER_EVENT_TYPES_RESERVED);
	KUNIT_EXPECT_NE(test, types_reg(c), 0);

	/* The last reference of a non-persistent event: it goes */
	user_event_put(ue);
	KUNIT_EXPECT_EQ(test, trace_event_types_free(),
			USER_EVENT_TYPES_RESERVED);
}

static struct kunit_case types_cases[] = {
	KUNIT_CASE(types_freed_counts),
	KUNIT_CASE_SLOW(types_kept_out_near_full),
	KUNIT_CASE_SLOW(types_kept_out_after_wrap),
	KUNIT_CASE_SLOW(types_user_events_reserve),
	{}
};

static struct kunit_suite types_suite = {
	.name		= "user_events_types",
	.init		= types_init,
	.exit		= types_exit,
	.test_cases	= types_cases,
};

kunit_test_suite(types_suite);

MODULE_DESCRIPTION("KUnit tests of the event types user events rely on");
MODULE_LICENSE("GPL");
