// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of how the trace core hands out event types, which user
 * events rely on: the records a deleted event left in a buffer print as
 * an unknown type only while no other event has its type, so a freed
 * type must not be given again while other types are free, also after a
 * wrap-around and with the type space nearly full.
 *
 * The tests register output-only trace events (no event call, nothing in
 * tracefs) until no type is left, so they must run while nothing else
 * registers events: at boot, built in.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/trace_events.h>

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

static struct kunit_case types_cases[] = {
	KUNIT_CASE(types_freed_counts),
	KUNIT_CASE_SLOW(types_kept_out_near_full),
	KUNIT_CASE_SLOW(types_kept_out_after_wrap),
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
