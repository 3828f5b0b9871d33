// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the user_events command parser (trace_events_user_parse.c):
 * accepted and rejected commands, types, sizes, offsets, matching, the
 * canonical fields text, print_fmt, record validation and printing; and
 * what the status file says is attached to an event.
 */

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_seq.h>
#include <linux/unaligned.h>

#include "trace_events_user_core.h"

/* Record offset of the first field */
#define S		USER_EVENT_FIELDS_START

/* A __data_loc/__rel_loc word */
#define LOC(off, size)	((u32)(size) << 16 | (u32)(off))

#define E(x)		USER_EVENT_ERR_##x

KUNIT_DEFINE_ACTION_WRAPPER(user_test_free_fmt, user_event_format_free,
			    struct user_event_format *);

/* KTAP lines must stay one line: no control characters in descriptions */
static void user_test_desc(char *desc, const char *s)
{
	int i;

	strscpy(desc, s, KUNIT_PARAM_DESC_SIZE);
	for (i = 0; desc[i]; i++) {
		if (!isprint(desc[i]) || desc[i] == '#')
			desc[i] = '?';
	}
}

/* A test-managed formatted string, as long as a command can be */
static __printf(2, 3) char *user_test_printf(struct kunit *test,
					     const char *f, ...)
{
	char *buf = kunit_kzalloc(test, USER_EVENT_CMD_MAX, GFP_KERNEL);
	va_list args;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	va_start(args, f);
	vsnprintf(buf, USER_EVENT_CMD_MAX, f, args);
	va_end(args);
	return buf;
}

static struct user_event_format *user_test_parse(struct kunit *test,
						 const char *cmd)
{
	struct user_parse_err err = { -1, -1 };
	struct user_event_format *fmt;
	int ret;

	ret = user_event_parse(cmd, &fmt, &err);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "\"%s\": error %d at %d", cmd,
			    err.type, err.pos);
	KUNIT_ASSERT_NOT_NULL(test, fmt);
	KUNIT_EXPECT_EQ(test, err.type, E(NONE));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, user_test_free_fmt, fmt));
	return fmt;
}

/* One field of each accepted form */

struct user_accept_case {
	const char	*field;
	const char	*type;
	u32		size;
	u8		kind;
	bool		is_signed;
	bool		is_string;
	int		filter_type;
};

#define INT_CASE(f, t, sz, sig) \
	{ f, t, sz, USER_FIELD_INT, sig, false, FILTER_OTHER }

static const struct user_accept_case user_accept_cases[] = {
	INT_CASE("s8 f", "s8", 1, true),
	INT_CASE("u8 f", "u8", 1, false),
	INT_CASE("char f", "char", 1, true),
	INT_CASE("unsigned char f", "unsigned char", 1, false),
	INT_CASE("s16 f", "s16", 2, true),
	INT_CASE("u16 f", "u16", 2, false),
	INT_CASE("short f", "short", 2, true),
	INT_CASE("unsigned short f", "unsigned short", 2, false),
	INT_CASE("s32 f", "s32", 4, true),
	INT_CASE("u32 f", "u32", 4, false),
	INT_CASE("int f", "int", 4, true),
	INT_CASE("unsigned int f", "unsigned int", 4, false),
	INT_CASE("unsigned \t int  f", "unsigned int", 4, false),
	INT_CASE("s64 f", "s64", 8, true),
	INT_CASE("u64 f", "u64", 8, false),
	{ "char[16] f", "char[16]", 16, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	{ "char[0x10] f", "char[16]", 16, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	{ "char[1] f", "char[1]", 1, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	{ "char[1024] f", "char[1024]", 1024, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	{ "char[0X400] f", "char[1024]", 1024, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	/* A leading 0 is octal, as kstrtouint() reads it */
	{ "char[010] f", "char[8]", 8, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	{ "char[02000] f", "char[1024]", 1024, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	{ "char[+4] f", "char[4]", 4, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	/* A length in 7 characters, the most there may be */
	{ "char[0000010] f", "char[8]", 8, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	{ "char[0x00400] f", "char[1024]", 1024, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	{ "char[0001024] f", "char[532]", 532, USER_FIELD_ARRAY, true, true,
	  FILTER_STATIC_STRING },
	/* The core's filters take any char array for a string */
	{ "unsigned char[017] f", "unsigned char[15]", 15, USER_FIELD_ARRAY,
	  false, false, FILTER_STATIC_STRING },
	{ "unsigned char[8] f", "unsigned char[8]", 8, USER_FIELD_ARRAY,
	  false, false, FILTER_STATIC_STRING },
	{ "__data_loc char[] f", "__data_loc char[]", 4,
	  USER_FIELD_DATA_LOC, true, true, FILTER_DYN_STRING },
	{ "__rel_loc char[] f", "__rel_loc char[]", 4,
	  USER_FIELD_REL_LOC, true, true, FILTER_RDYN_STRING },
	{ "__data_loc u8[] f", "__data_loc u8[]", 4,
	  USER_FIELD_DATA_LOC, false, false, FILTER_OTHER },
	{ "__rel_loc u8[] f", "__rel_loc u8[]", 4,
	  USER_FIELD_REL_LOC, false, false, FILTER_OTHER },
	{ "__data_loc unsigned char[] f", "__data_loc unsigned char[]", 4,
	  USER_FIELD_DATA_LOC, false, false, FILTER_DYN_STRING },
	{ "__rel_loc unsigned char[] f", "__rel_loc unsigned char[]", 4,
	  USER_FIELD_REL_LOC, false, false, FILTER_RDYN_STRING },
	{ "__data_loc s32[] f", "__data_loc s32[]", 4,
	  USER_FIELD_DATA_LOC, true, false, FILTER_OTHER },
	{ "__rel_loc u64[] f", "__rel_loc u64[]", 4,
	  USER_FIELD_REL_LOC, false, false, FILTER_OTHER },
	/* Any element type, as in Linux: the field is a loc word */
	{ "__rel_loc long[] f", "__rel_loc long[]", 4,
	  USER_FIELD_REL_LOC, false, false, FILTER_OTHER },
	{ "__data_loc foo[] f", "__data_loc foo[]", 4,
	  USER_FIELD_DATA_LOC, false, false, FILTER_OTHER },
	{ "__data_loc struct pair[] f", "__data_loc struct pair[]", 4,
	  USER_FIELD_DATA_LOC, false, false, FILTER_OTHER },
	{ "__rel_loc unsigned  long\tlong[] f",
	  "__rel_loc unsigned long long[]", 4,
	  USER_FIELD_REL_LOC, false, false, FILTER_OTHER },
	{ "__data_loc  unsigned \t short[] f", "__data_loc unsigned short[]",
	  4, USER_FIELD_DATA_LOC, false, false, FILTER_OTHER },
	{ "__data_loc unsigned short x[] f", "__data_loc unsigned short x[]",
	  4, USER_FIELD_DATA_LOC, false, false, FILTER_OTHER },
	{ "__data_loc struct charge[] f", "__data_loc struct charge[]", 4,
	  USER_FIELD_DATA_LOC, false, false, FILTER_DYN_STRING },
	{ "__rel_loc cpumask_t[] f", "__rel_loc cpumask_t[]", 4,
	  USER_FIELD_REL_LOC, false, false, FILTER_OTHER },
	/* With "char" the filters read a string there, not a cpumask */
	{ "__data_loc cpumask_tchar[] f", "__data_loc cpumask_tchar[]", 4,
	  USER_FIELD_DATA_LOC, false, false, FILTER_DYN_STRING },
	{ "struct foo f 20", "struct foo", 20, USER_FIELD_STRUCT, false,
	  false, FILTER_OTHER },
	{ "struct foo f 0x14", "struct foo", 20, USER_FIELD_STRUCT, false,
	  false, FILTER_OTHER },
	{ "struct _Bar_1 f 1", "struct _Bar_1", 1, USER_FIELD_STRUCT, false,
	  false, FILTER_OTHER },
};

static void user_accept_desc(const struct user_accept_case *c, char *desc)
{
	user_test_desc(desc, c->field);
}

KUNIT_ARRAY_PARAM(user_accept, user_accept_cases, user_accept_desc);

static void user_test_accept(struct kunit *test)
{
	const struct user_accept_case *c = test->param_value;
	bool loc = c->kind == USER_FIELD_DATA_LOC ||
		   c->kind == USER_FIELD_REL_LOC;
	const struct user_field *f;
	struct user_event_format *fmt;
	char *cmd;

	cmd = user_test_printf(test, "ev %s", c->field);
	fmt = user_test_parse(test, cmd);

	KUNIT_EXPECT_STREQ(test, fmt->name, "ev");
	KUNIT_ASSERT_EQ(test, fmt->nr_fields, 1);
	KUNIT_EXPECT_EQ(test, fmt->size, S + c->size);
	KUNIT_EXPECT_EQ(test, fmt->nr_locs, loc ? 1 : 0);

	f = &fmt->fields[0];
	KUNIT_EXPECT_STREQ(test, f->type, c->type);
	KUNIT_EXPECT_STREQ(test, f->name, "f");
	KUNIT_EXPECT_EQ(test, f->offset, S);
	KUNIT_EXPECT_EQ(test, f->size, c->size);
	KUNIT_EXPECT_EQ(test, f->kind, c->kind);
	KUNIT_EXPECT_EQ(test, f->is_signed, c->is_signed);
	KUNIT_EXPECT_EQ(test, f->is_string, c->is_string);
	KUNIT_EXPECT_EQ(test, f->filter_type, c->filter_type);
}

/* Fields are packed in command order after the common header */
static void user_test_offsets(struct kunit *test)
{
	static const struct {
		const char	*name;
		u32		offset;
		u32		size;
	} want[] = {
		{ "a", S, 1 },
		{ "b", S + 1, 8 },
		{ "c", S + 9, 3 },
		{ "d", S + 12, 4 },
		{ "e", S + 16, 5 },
		{ "f", S + 21, 2 },
		{ "g", S + 23, 4 },
	};
	struct user_event_format *fmt;
	int i;

	fmt = user_test_parse(test,
			      "ev u8 a; u64 b; char[3] c; __data_loc char[] d; struct s e 5; u16 f; __rel_loc u8[] g");
	KUNIT_ASSERT_EQ(test, fmt->nr_fields, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, fmt->size, S + 27);
	KUNIT_EXPECT_EQ(test, fmt->nr_locs, 2);

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		KUNIT_EXPECT_STREQ(test, fmt->fields[i].name, want[i].name);
		KUNIT_EXPECT_EQ(test, fmt->fields[i].offset, want[i].offset);
		KUNIT_EXPECT_EQ(test, fmt->fields[i].size, want[i].size);
	}
}

/* Events without fields, with spacing and a closing ';' */

static const char * const user_nofield_cases[] = {
	"ev", "ev ", "  ev", "\tev\t", "ev\n",
};

static void user_nofield_desc(const char * const *c, char *desc)
{
	user_test_desc(desc, *c);
}

KUNIT_ARRAY_PARAM(user_nofield, user_nofield_cases, user_nofield_desc);

static void user_test_nofield(struct kunit *test)
{
	const char * const *cmd = test->param_value;
	struct user_event_format *fmt = user_test_parse(test, *cmd);

	KUNIT_EXPECT_STREQ(test, fmt->name, "ev");
	KUNIT_EXPECT_EQ(test, fmt->nr_fields, 0);
	KUNIT_EXPECT_EQ(test, fmt->nr_locs, 0);
	KUNIT_EXPECT_EQ(test, fmt->size, S);
}

static void user_test_trailing_semicolon(struct kunit *test)
{
	struct user_event_format *fmt;

	fmt = user_test_parse(test, "ev u32 a; u32 b ; ");
	KUNIT_EXPECT_EQ(test, fmt->nr_fields, 2);
	KUNIT_EXPECT_STREQ(test, fmt->fields[1].name, "b");

	fmt = user_test_parse(test, "ev u32 a;");
	KUNIT_EXPECT_EQ(test, fmt->nr_fields, 1);
	KUNIT_EXPECT_EQ(test, fmt->size, S + 4);
}

/* Rejected commands: the error and the position of the caret */

struct user_reject_case {
	const char	*cmd;
	int		err;
	int		pos;
};

static const struct user_reject_case user_reject_cases[] = {
	{ "", E(NO_NAME), 0 },
	{ "   ", E(NO_NAME), 3 },
	{ "1ev", E(BAD_NAME), 0 },
	{ "e-v u32 a", E(BAD_NAME), 1 },
	{ "ev;u32 a", E(BAD_NAME), 2 },
	{ " ev.1", E(BAD_NAME), 3 },
	{ "ev\xc3\xa9", E(BAD_NAME), 2 },
	{ "\xe9v", E(BAD_NAME), 0 },
	{ "ev\xa0u32 a", E(BAD_NAME), 2 },
	/* The files of the system directory */
	{ "enable", E(RESERVED_NAME), 0 },
	{ "filter u32 a", E(RESERVED_NAME), 0 },
	{ "  enable u32 a", E(RESERVED_NAME), 2 },
	{ "enable:x u32 a", E(RESERVED_NAME), 0 },
	{ "ev u32 \xe9", E(BAD_FIELD_NAME), 7 },
	{ "ev u32\xa0\x61", E(BAD_TYPE), 3 },
	{ "ev:", E(BAD_FLAG), 3 },
	{ "ev:BPF", E(BAD_FLAG), 3 },
	{ "ev:x,y u32 a", E(BAD_FLAG), 3 },
	{ "ev ;", E(EMPTY_FIELD), 3 },
	{ "ev ;u32 a", E(EMPTY_FIELD), 3 },
	{ "ev u32 a;;u32 b", E(EMPTY_FIELD), 9 },
	{ "ev u32 a; ;u32 b", E(EMPTY_FIELD), 10 },
	{ "ev u32 a;;", E(EMPTY_FIELD), 9 },
	{ "ev long a", E(BAD_TYPE), 3 },
	{ "ev unsigned long a", E(BAD_TYPE), 3 },
	{ "ev unsigned a", E(BAD_TYPE), 3 },
	{ "ev unsigned", E(BAD_TYPE), 3 },
	{ "ev signed char a", E(BAD_TYPE), 3 },
	{ "ev foo a", E(BAD_TYPE), 3 },
	{ "ev U32 a", E(BAD_TYPE), 3 },
	{ "ev u32 a;bool b", E(BAD_TYPE), 9 },
	{ "ev u32[4] a", E(BAD_TYPE), 3 },
	{ "ev unsigned int[4] a", E(BAD_TYPE), 3 },
	{ "ev struct", E(BAD_TYPE), 3 },
	{ "ev struct 1x a 4", E(BAD_TYPE), 10 },
	{ "ev __data_loc", E(NO_FIELD_TYPE), 13 },
	{ "ev __data_loc char a", E(BAD_TYPE), 14 },
	{ "ev __data_loc char[4] a", E(BAD_TYPE), 18 },
	{ "ev __rel_loc 1x[] a", E(BAD_TYPE), 13 },
	{ "ev __rel_loc char[][] a", E(BAD_TYPE), 17 },
	{ "ev __rel_loc [] a", E(BAD_TYPE), 13 },
	{ "ev __data_loc a-b[] c", E(BAD_TYPE), 15 },
	{ "ev __data_loc a b c d[] e", E(BAD_TYPE), 20 },
	{ "ev __rel_loc __data_loc char[] s", E(BAD_TYPE), 13 },
	{ "ev __data_loc __rel_loc[] s", E(BAD_TYPE), 14 },
	{ "ev __data_loc cpumask_t[] m", E(BAD_TYPE), 14 },
	{ "ev __rel_loc x__data_loc char[] s", E(BAD_TYPE), 13 },
	{ "ev __data_loc struct __rel_loc_t[] s", E(BAD_TYPE), 21 },
	{ "ev struct __data_locchar s 4", E(BAD_TYPE), 10 },
	{ "ev struct x__rel_loc s 4", E(BAD_TYPE), 10 },
	{ "ev __rel_loc a b c[] f g", E(TRAILING), 23 },
	{ "ev __data_loc a b c[] f 4", E(SIZE_NOT_STRUCT), 24 },
	{ "ev u32", E(NO_FIELD_NAME), 6 },
	{ "ev u32;u32 b", E(NO_FIELD_NAME), 6 },
	{ "ev unsigned int ", E(NO_FIELD_NAME), 15 },
	{ "ev __rel_loc char[]", E(NO_FIELD_NAME), 19 },
	{ "ev u32 1a", E(BAD_FIELD_NAME), 7 },
	{ "ev u32 a-b", E(BAD_FIELD_NAME), 8 },
	{ "ev u32 a:b", E(BAD_FIELD_NAME), 8 },
	{ "ev char x[4]", E(BAD_FIELD_NAME), 9 },
	{ "ev struct a 4", E(BAD_FIELD_NAME), 12 },
	{ "ev u32 common_pid", E(BAD_FIELD_NAME), 7 },
	{ "ev u16 common_type", E(BAD_FIELD_NAME), 7 },
	{ "ev u8 common_flags", E(BAD_FIELD_NAME), 6 },
	{ "ev u8 common_preempt_count", E(BAD_FIELD_NAME), 6 },
	{ "ev u32 a;u8 a", E(DUP_FIELD_NAME), 12 },
	{ "ev u32 a; char[4] b; struct x a 2", E(DUP_FIELD_NAME), 30 },
	{ "ev u32 a 4", E(SIZE_NOT_STRUCT), 9 },
	{ "ev char[4] a 4", E(SIZE_NOT_STRUCT), 13 },
	{ "ev __data_loc char[] a 4", E(SIZE_NOT_STRUCT), 23 },
	{ "ev u32 a b", E(TRAILING), 9 },
	{ "ev struct foo a 4 x", E(TRAILING), 18 },
	{ "ev struct foo a", E(STRUCT_NO_SIZE), 15 },
	{ "ev struct foo a;u8 b", E(STRUCT_NO_SIZE), 15 },
	{ "ev struct foo a 0", E(BAD_SIZE), 16 },
	{ "ev struct foo a 0x0", E(BAD_SIZE), 16 },
	{ "ev struct foo a x", E(BAD_SIZE), 16 },
	{ "ev struct foo a -1", E(BAD_SIZE), 16 },
	{ "ev struct foo a +4", E(BAD_SIZE), 16 },
	{ "ev struct foo a 0x", E(BAD_SIZE), 16 },
	{ "ev struct foo a 4x", E(BAD_SIZE), 16 },
	{ "ev struct foo a 99999999999", E(BAD_SIZE), 16 },
	{ "ev struct foo a 0x10000000", E(BAD_SIZE), 16 },
	{ "ev char[0] a", E(BAD_ARRAY_LEN), 8 },
	/* Lengths in more than 7 characters, whatever their value */
	{ "ev char[0x0000000000001] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[00000001] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[0x000400] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev unsigned char[00000004] a", E(BAD_ARRAY_LEN), 17 },
	{ "ev __data_loc char[] a; char[0x0000010] b", E(BAD_ARRAY_LEN), 29 },
	{ "ev char[0x0] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[1025] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[0x401] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[x] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[-1] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[+] a", E(BAD_ARRAY_LEN), 8 },
	/* Octal: no 8 or 9, and 02001 is 1025 */
	{ "ev char[09] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[0018] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[02001] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[00] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[0x] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[0x1g] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[1 6] a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[16 a", E(BAD_ARRAY_LEN), 8 },
	{ "ev char[16]x a", E(BAD_ARRAY_LEN), 8 },
	{ "ev unsigned char[0] a", E(BAD_ARRAY_LEN), 17 },
};

static void user_reject_desc(const struct user_reject_case *c, char *desc)
{
	user_test_desc(desc, c->cmd);
}

KUNIT_ARRAY_PARAM(user_reject, user_reject_cases, user_reject_desc);

static void user_test_reject(struct kunit *test)
{
	const struct user_reject_case *c = test->param_value;
	struct user_event_format *fmt = (void *)1;
	struct user_parse_err err = { -1, -1 };

	KUNIT_EXPECT_EQ(test, user_event_parse(c->cmd, &fmt, &err), -EINVAL);
	KUNIT_EXPECT_NULL(test, fmt);
	KUNIT_EXPECT_EQ(test, err.type, c->err);
	KUNIT_EXPECT_EQ(test, err.pos, c->pos);
	/* A NULL err is allowed */
	KUNIT_EXPECT_EQ(test, user_event_parse(c->cmd, &fmt, NULL), -EINVAL);
}

/* Length and size limits, around the exact boundary */
static void user_test_limits(struct kunit *test)
{
	u32 room = USER_EVENT_FIXED_MAX - S;
	struct user_event_format *fmt;
	struct user_parse_err err;
	int len;
	char *cmd;

	cmd = kunit_kzalloc(test, USER_EVENT_CMD_MAX + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);

	/* 511 bytes and the NUL fit, 512 do not */
	memset(cmd, 'e', USER_EVENT_CMD_MAX - 1);
	fmt = user_test_parse(test, cmd);
	KUNIT_EXPECT_EQ(test, strlen(fmt->name), USER_EVENT_CMD_MAX - 1);

	cmd[USER_EVENT_CMD_MAX - 1] = 'e';
	KUNIT_EXPECT_EQ(test, user_event_parse(cmd, &fmt, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.type, E(CMD_TOO_LONG));
	KUNIT_EXPECT_EQ(test, err.pos, 0);

	/* A struct filling the whole record fits, one byte more does not */
	cmd = user_test_printf(test, "ev struct s a %u", room);
	fmt = user_test_parse(test, cmd);
	KUNIT_EXPECT_EQ(test, fmt->size, USER_EVENT_FIXED_MAX);

	cmd = user_test_printf(test, "ev struct s a %u", room + 1);
	KUNIT_EXPECT_EQ(test, user_event_parse(cmd, &fmt, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.type, E(TOO_BIG));
	KUNIT_EXPECT_EQ(test, err.pos, 14);

	/* The sum counts: the field that overflows is blamed */
	cmd = user_test_printf(test, "ev u8 x; struct s a %u; u8 y", room - 2);
	fmt = user_test_parse(test, cmd);
	KUNIT_EXPECT_EQ(test, fmt->size, USER_EVENT_FIXED_MAX);

	cmd = user_test_printf(test, "ev u16 x; struct s a %u; u8 y", room - 1);
	KUNIT_EXPECT_EQ(test, user_event_parse(cmd, &fmt, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.type, E(TOO_BIG));
	KUNIT_EXPECT_EQ(test, err.pos, 10);

	/*
	 * Large char arrays add up too: blame the first that overflows.
	 * A struct takes the room the arrays leave, so that the command is
	 * as short on 64K pages as on 4K ones (the room is 3832 bytes with
	 * 4K pages: struct 760 + 3 * 1024; 65272 with 64K: 62200 + 3 * 1024).
	 */
	BUILD_BUG_ON(USER_EVENT_FIXED_MAX - S <= 3 * USER_EVENT_ARRAY_MAX);
	cmd = user_test_printf(test, "ev struct s a %u; %s", room - 3 * 1024,
			       "char[1024] b; char[1024] c; char[1024] d");
	fmt = user_test_parse(test, cmd);
	KUNIT_EXPECT_EQ(test, fmt->nr_fields, 4);
	KUNIT_EXPECT_EQ(test, fmt->size, USER_EVENT_FIXED_MAX);
	len = strlen(cmd);
	strcat(cmd, "; u8 e");
	KUNIT_EXPECT_EQ(test, user_event_parse(cmd, &fmt, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.type, E(TOO_BIG));
	KUNIT_EXPECT_EQ(test, err.pos, len + 2);

	cmd = user_test_printf(test, "ev struct s a %u; %s; u8 e",
			       room - 3 * 1024 + 1,
			       "char[1024] b; char[1024] c; char[1024] d");
	KUNIT_EXPECT_EQ(test, user_event_parse(cmd, &fmt, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.type, E(TOO_BIG));
	KUNIT_EXPECT_EQ(test, err.pos, strstr(cmd, "char[1024] d") - cmd);
}

/* As many fields as fit in a command */
static void user_test_many_fields(struct kunit *test)
{
	struct user_event_format *fmt;
	char *cmd;
	int len, i;

	cmd = kunit_kzalloc(test, USER_EVENT_CMD_MAX + 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);

	len = sprintf(cmd, "ev");
	for (i = 0; len + 9 < USER_EVENT_CMD_MAX; i++)
		len += sprintf(cmd + len, "%su8 f%d", i ? ";" : " ", i);

	fmt = user_test_parse(test, cmd);
	KUNIT_ASSERT_EQ(test, fmt->nr_fields, i);
	KUNIT_EXPECT_EQ(test, fmt->size, S + i);
	KUNIT_EXPECT_STREQ(test, fmt->fields[i - 1].type, "u8");
	KUNIT_EXPECT_EQ(test, fmt->fields[i - 1].offset, S + i - 1);
}

/* Only "enable" and "filter" are reserved: names like them are not */
static void user_test_reserved_alike(struct kunit *test)
{
	user_test_parse(test, "enabled u32 a");
	user_test_parse(test, "_filter");
	user_test_parse(test, "filters u8 b");
}

/* Matching: spacing does not matter, anything else does */

struct user_match_case {
	const char	*a;
	const char	*b;
	bool		equal;
};

static const struct user_match_case user_match_cases[] = {
	{ "ev u32 a;u32 b", "ev u32 a; u32 b", true },
	{ "ev u32 a;u32 b", " ev  u32\ta ;\tu32  b ; ", true },
	{ "ev", "ev ", true },
	{ "ev char[16] s", "ev char[0x10] s", true },
	{ "ev char[8] s", "ev char[010] s", true },
	{ "ev char[10] s", "ev char[010] s", false },
	{ "ev unsigned int a", "ev unsigned   int a", true },
	{ "ev struct x y 20", "ev struct x y 0x14", true },
	{ "ev __rel_loc unsigned char[] a", "ev __rel_loc  unsigned char[] a",
	  true },
	{ "ev __rel_loc unsigned long long[] f",
	  "ev __rel_loc  unsigned long\tlong[] f", true },
	{ "ev u32 a", "ev u32 b", false },
	{ "ev u32 a", "ev s32 a", false },
	{ "ev u32 a", "ev unsigned int a", false },
	{ "ev u32 a;u32 b", "ev u32 b;u32 a", false },
	{ "ev u32 a", "ev u32 a;u32 b", false },
	{ "ev u32 a", "ev2 u32 a", false },
	{ "ev", "ev u32 a", false },
	{ "ev char[16] s", "ev char[17] s", false },
	{ "ev char[16] s", "ev unsigned char[16] s", false },
	{ "ev struct x y 20", "ev struct x y 21", false },
	{ "ev struct x y 20", "ev struct z y 20", false },
	{ "ev __data_loc char[] a", "ev __rel_loc char[] a", false },
	{ "ev __data_loc char[] a", "ev __data_loc u8[] a", false },
	{ "ev __data_loc struct p[] d", "ev __data_loc struct q[] d", false },
};

static void user_match_desc(const struct user_match_case *c, char *desc)
{
	char buf[KUNIT_PARAM_DESC_SIZE];

	snprintf(buf, sizeof(buf), "%s %s %s", c->a, c->equal ? "==" : "!=",
		 c->b);
	user_test_desc(desc, buf);
}

KUNIT_ARRAY_PARAM(user_match, user_match_cases, user_match_desc);

static void user_test_match(struct kunit *test)
{
	const struct user_match_case *c = test->param_value;
	struct user_event_format *a = user_test_parse(test, c->a);
	struct user_event_format *b = user_test_parse(test, c->b);

	KUNIT_EXPECT_EQ(test, user_event_format_equal(a, b), c->equal);
	KUNIT_EXPECT_EQ(test, user_event_format_equal(b, a), c->equal);
	KUNIT_EXPECT_TRUE(test, user_event_format_equal(a, a));
}

/*
 * Matching the words of a dynamic_events command ("-:ev u32 a; u32 b"),
 * split at whitespace as dynamic_events splits them, field by field
 */

struct user_args_case {
	const char	*cmd;
	const char	*args;
	bool		match;
};

static const struct user_args_case user_args_cases[] = {
	{ "ev u32 a;u32 b", "u32 a; u32 b", true },
	{ "ev u32 a;u32 b", "u32 a;u32 b", true },
	{ "ev u32 a;u32 b", "  u32 a ; u32\tb ;", true },
	{ "ev u32 a;u32 b", "u32 a ;u32 b;", true },
	{ "ev", "", true },
	{ "ev char[16] s", "char[0x10] s", true },
	{ "ev char[8] s", "char[010] s", true },
	{ "ev struct x y 20", "struct x y 0x14", true },
	{ "ev unsigned int a", "unsigned  int a", true },
	{ "ev __data_loc char[] d; u8 e", "__data_loc char[] d;u8 e", true },
	{ "ev u32 a;u32 b", "u32 a", false },
	{ "ev u32 a;u32 b", "u32 a; u32 b; u32 c", false },
	{ "ev u32 a;u32 b", "u32 b; u32 a", false },
	{ "ev u32 a", "u32 a;;", false },
	{ "ev u32 a", "; u32 a", false },
	{ "ev u32 a", ";", false },
	{ "ev", "u32 a", false },
	{ "ev", ";", false },
	{ "ev u32 a", "", false },
	{ "ev u32 a", "s32 a", false },
	{ "ev u32 a", "u32 b", false },
	{ "ev u32 a", "u32 a b", false },
	{ "ev u32 a", "u32 a 4", false },
	{ "ev u32 a", "u32 a b c d e f", false },
	{ "ev u32 a", "u32", false },
	{ "ev char[10] s", "char[010] s", false },
	{ "ev struct x y 20", "struct x y 21", false },
	{ "ev struct x y 20", "struct z y 20", false },
	{ "ev __data_loc char[] d", "__rel_loc char[] d", false },
};

static void user_args_desc(const struct user_args_case *c, char *desc)
{
	char buf[KUNIT_PARAM_DESC_SIZE];

	snprintf(buf, sizeof(buf), "%s %s '%s'", c->cmd,
		 c->match ? "==" : "!=", c->args);
	user_test_desc(desc, buf);
}

KUNIT_ARRAY_PARAM(user_args, user_args_cases, user_args_desc);

static void user_test_match_args(struct kunit *test)
{
	const struct user_args_case *c = test->param_value;
	struct user_event_format *fmt = user_test_parse(test, c->cmd);
	char **argv;
	int argc;

	argv = argv_split(GFP_KERNEL, c->args, &argc);
	KUNIT_ASSERT_NOT_NULL(test, argv);
	KUNIT_EXPECT_EQ(test, user_event_format_match_args(fmt, argc,
							   (const char **)argv),
			c->match);
	argv_free(argv);
}

/* The canonical fields text, and parsing it back */

struct user_text_case {
	const char	*cmd;
	const char	*text;
};

static const struct user_text_case user_text_cases[] = {
	{ "ev", "" },
	{ "ev u32 a", "u32 a" },
	{ "ev  u32 a;char[0x10]  s ;struct x y 0x14;",
	  "u32 a; char[16] s; struct x y 20" },
	{ "ev unsigned  int a;__data_loc unsigned char[] b;__rel_loc char[] c",
	  "unsigned int a; __data_loc unsigned char[] b; __rel_loc char[] c" },
	{ "ev s8 a; u64 b; short c; unsigned char[3] d",
	  "s8 a; u64 b; short c; unsigned char[3] d" },
	{ "ev __data_loc  struct  p[] a;__rel_loc long[] b",
	  "__data_loc struct p[] a; __rel_loc long[] b" },
};

static void user_text_desc(const struct user_text_case *c, char *desc)
{
	user_test_desc(desc, c->cmd);
}

KUNIT_ARRAY_PARAM(user_text, user_text_cases, user_text_desc);

static void user_test_fields_text(struct kunit *test)
{
	const struct user_text_case *c = test->param_value;
	struct user_event_format *fmt = user_test_parse(test, c->cmd);
	struct user_event_format *back;
	int len = strlen(c->text);
	char *buf, cmd[128];

	KUNIT_EXPECT_EQ(test, user_event_format_fields_text(fmt, NULL, 0), len);

	buf = kunit_kzalloc(test, len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, user_event_format_fields_text(fmt, buf, len + 1),
			len);
	KUNIT_EXPECT_STREQ(test, buf, c->text);

	/* Truncated like snprintf(): NUL-terminated, full length returned */
	if (len > 2) {
		memset(buf, 'x', len + 1);
		KUNIT_EXPECT_EQ(test,
				user_event_format_fields_text(fmt, buf, len - 1),
				len);
		KUNIT_EXPECT_EQ(test, strlen(buf), len - 2);
		KUNIT_EXPECT_EQ(test, strncmp(buf, c->text, len - 2), 0);
	}

	/* After a name, the text parses back into the same format */
	snprintf(cmd, sizeof(cmd), "ev %s", c->text);
	back = user_test_parse(test, cmd);
	KUNIT_EXPECT_TRUE(test, user_event_format_equal(fmt, back));
}

/* print_fmt, exactly */

struct user_print_fmt_case {
	const char	*cmd;
	const char	*print_fmt;
};

static const struct user_print_fmt_case user_print_fmt_cases[] = {
	{ "ev", "\"\"" },
	{ "ev u32 a", "\"a=%u\", REC->a" },
	{ "ev u32 a; s32 b; char[8] s; __data_loc char[] d",
	  "\"a=%u b=%d s=%s d=%s\", REC->a, REC->b, REC->s, __get_str(d)" },
	{ "ev s8 a;u8 b;char c;unsigned char d",
	  "\"a=%d b=%u c=%d d=%u\", REC->a, REC->b, REC->c, REC->d" },
	{ "ev s16 e;u16 f;short g;unsigned short h",
	  "\"e=%d f=%u g=%d h=%u\", REC->e, REC->f, REC->g, REC->h" },
	{ "ev int a; unsigned int b; s64 c; u64 d",
	  "\"a=%d b=%u c=%lld d=%llu\", REC->a, REC->b, REC->c, REC->d" },
	{ "ev unsigned char[4] b", "\"b=%s\", __print_hex(REC->b, 4)" },
	{ "ev struct x y 20", "\"y=%s\", __print_hex(REC->y, 20)" },
	{ "ev __rel_loc char[] r", "\"r=%s\", __get_rel_str(r)" },
	{ "ev __data_loc u8[] d",
	  "\"d=%s\", __print_hex(__get_dynamic_array(d), __get_dynamic_array_len(d))" },
	{ "ev __rel_loc u32[] r",
	  "\"r=%s\", __print_hex(__get_rel_dynamic_array(r), (REC->r >> 16))" },
	{ "ev __data_loc struct p[] d",
	  "\"d=%s\", __print_hex(__get_dynamic_array(d), __get_dynamic_array_len(d))" },
};

static void user_print_fmt_desc(const struct user_print_fmt_case *c,
				char *desc)
{
	user_test_desc(desc, c->cmd);
}

KUNIT_ARRAY_PARAM(user_print_fmt, user_print_fmt_cases, user_print_fmt_desc);

static void user_test_print_fmt(struct kunit *test)
{
	const struct user_print_fmt_case *c = test->param_value;
	struct user_event_format *fmt = user_test_parse(test, c->cmd);
	char *print_fmt = user_event_print_fmt(fmt);

	KUNIT_ASSERT_NOT_NULL(test, print_fmt);
	KUNIT_EXPECT_STREQ(test, print_fmt, c->print_fmt);
	kfree(print_fmt);
}

/*
 * Validation of crafted records.  The record is the common header
 * (zeroed), then @payload (@plen bytes); @words[] are then stored at the
 * loc fields in order.
 */

struct user_validate_case {
	const char	*desc;
	const char	*cmd;
	const char	*payload;
	u32		plen;
	u32		words[2];
	int		ret;
};

#define V(d, c, p, r, ...)						\
	{ .desc = d, .cmd = c, .payload = p, .plen = sizeof(p) - 1,	\
	  .ret = r, .words = { __VA_ARGS__ } }

static const struct user_validate_case user_validate_cases[] = {
	V("no loc field", "ev u32 a",
	  "\xff\xff\xff\xff", 0),
	V("data_loc in bounds", "ev __data_loc char[] d",
	  "....hello\0", 0, LOC(S + 4, 6)),
	V("data_loc with room after", "ev __data_loc char[] d",
	  "....hello\0......", 0, LOC(S + 4, 6)),
	V("data_loc one byte out", "ev __data_loc char[] d",
	  "....hello\0", -EFAULT, LOC(S + 4, 7)),
	V("data_loc start out", "ev __data_loc u8[] d",
	  "....", -EFAULT, LOC(S + 100, 0)),
	V("data_loc empty at end", "ev __data_loc u8[] d",
	  "....", 0, LOC(S + 4, 0)),
	V("data_loc empty past end", "ev __data_loc u8[] d",
	  "....", -EFAULT, LOC(S + 5, 0)),
	V("data_loc into header", "ev __data_loc u8[] d",
	  "....ab", -EFAULT, LOC(S - 1, 2)),
	V("data_loc at record start", "ev __data_loc u8[] d",
	  "....ab", -EFAULT, LOC(0, 1)),
	V("data_loc over fixed fields", "ev __data_loc u8[] d",
	  "....ab", 0, LOC(S, 6)),
	V("data_loc size overflow", "ev __data_loc u8[] d",
	  "....ab", -EFAULT, LOC(S + 4, 0xffff)),
	V("data_loc both max", "ev __data_loc u8[] d",
	  "....ab", -EFAULT, LOC(0xffff, 0xffff)),
	V("string without NUL", "ev __data_loc char[] d",
	  "....hello!", -EFAULT, LOC(S + 4, 6)),
	V("string NUL not last", "ev __data_loc char[] d",
	  "....hi\0lo!", -EFAULT, LOC(S + 4, 6)),
	V("string of size 0", "ev __data_loc char[] d",
	  "....\0", -EFAULT, LOC(S + 4, 0)),
	V("empty string", "ev __data_loc char[] d",
	  "....\0", 0, LOC(S + 4, 1)),
	V("bytes need no NUL", "ev __data_loc u8[] d",
	  "....ab", 0, LOC(S + 4, 2)),
	V("any type of no char, no NUL", "ev __data_loc struct p[] d",
	  "....ab", 0, LOC(S + 4, 2)),
	/* The core's filters take these for strings */
	V("unsigned char needs a NUL", "ev __data_loc unsigned char[] d",
	  "....ab", -EFAULT, LOC(S + 4, 2)),
	V("unsigned char, empty", "ev __rel_loc unsigned char[] d",
	  "....", -EFAULT, LOC(0, 0)),
	V("struct charge needs a NUL", "ev __data_loc struct charge[] d",
	  "....ab", -EFAULT, LOC(S + 4, 2)),
	V("cpumask_tchar needs a NUL", "ev __data_loc cpumask_tchar[] d",
	  "....ab", -EFAULT, LOC(S + 4, 2)),
	V("unsigned char with a NUL", "ev __data_loc unsigned char[] d",
	  "....a\0", 0, LOC(S + 4, 2)),
	V("word cut off", "ev __data_loc char[] d",
	  "..", -EFAULT),
	V("rel_loc in bounds", "ev __rel_loc char[] r",
	  "....hello\0", 0, LOC(0, 6)),
	V("rel_loc skipping bytes", "ev __rel_loc char[] r",
	  "....xxhello\0", 0, LOC(2, 6)),
	V("rel_loc one byte out", "ev __rel_loc char[] r",
	  "....hello\0", -EFAULT, LOC(1, 6)),
	V("rel_loc no NUL", "ev __rel_loc char[] r",
	  "....hello!", -EFAULT, LOC(0, 6)),
	V("rel_loc size overflow", "ev __rel_loc u8[] r",
	  "....hello!", -EFAULT, LOC(0, 0xffff)),
	V("rel_loc offset overflow", "ev __rel_loc u8[] r",
	  "....hello!", -EFAULT, LOC(0xffff, 1)),
	V("unaligned word", "ev u8 x; __data_loc char[] d",
	  ".....ab\0", 0, LOC(S + 5, 3)),
	V("unaligned rel_loc, exact fit", "ev u8 x; __rel_loc char[] r",
	  ".....ab\0", 0, LOC(0, 3)),
	V("two locs fine", "ev __data_loc char[] a; __rel_loc char[] b",
	  "........a\0b\0", 0, LOC(S + 8, 2), LOC(2, 2)),
	V("two locs, second bad", "ev __data_loc char[] a; __rel_loc char[] b",
	  "........a\0b!", -EFAULT, LOC(S + 8, 2), LOC(2, 2)),
	V("two locs, first bad", "ev __data_loc char[] a; __rel_loc char[] b",
	  "........a\0b\0", -EFAULT, LOC(S + 8, 5), LOC(2, 2)),
};

static void user_validate_desc(const struct user_validate_case *c,
			       char *desc)
{
	user_test_desc(desc, c->desc);
}

KUNIT_ARRAY_PARAM(user_validate, user_validate_cases, user_validate_desc);

static void user_test_validate(struct kunit *test)
{
	const struct user_validate_case *c = test->param_value;
	struct user_event_format *fmt = user_test_parse(test, c->cmd);
	u32 len = S + c->plen;
	int misalign;
	u8 *buf;

	buf = kunit_kzalloc(test, len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* Each record at an aligned and at an odd address */
	for (misalign = 0; misalign < 2; misalign++) {
		u8 *rec = buf + misalign;
		int loc = 0;
		u32 i;

		memset(buf, 0, len + 1);
		memcpy(rec + S, c->payload, c->plen);

		for (i = 0; i < fmt->nr_fields; i++) {
			const struct user_field *f = &fmt->fields[i];

			if (f->kind != USER_FIELD_DATA_LOC &&
			    f->kind != USER_FIELD_REL_LOC)
				continue;
			KUNIT_ASSERT_LT(test, loc, ARRAY_SIZE(c->words));
			if (f->offset + 4 <= len)
				put_unaligned(c->words[loc],
					      (u32 *)(rec + f->offset));
			loc++;
		}

		KUNIT_EXPECT_EQ_MSG(test, user_event_validate(fmt, rec, len),
				    c->ret, "misaligned by %d", misalign);
	}
}

/*
 * Printing records for the trace file.  The record is built from one
 * value per field: a number for integers, the bytes of an array or
 * struct (zero-padded), the data of a loc field (a char string gets its
 * NUL), appended after the fixed fields.
 */

struct user_print_case {
	const char	*cmd;
	const char	*vals[8];
	const char	*out;
};

static const struct user_print_case user_print_cases[] = {
	{ "ev", { }, "" },
	{ "ev u32 a; s32 b; char[8] s; __data_loc char[] d; struct x st 3",
	  { "1", "-2", "hello", "world", "\x0a\x0b\x0c" },
	  "a=1 b=-2 s=hello d=world st=0x0a0b0c" },
	{ "ev s8 a; u8 b; s16 c; u16 d; s32 e; u32 f; s64 g; u64 h",
	  { "-1", "255", "-300", "65535", "-70000", "4294967295",
	    "-5000000000", "18446744073709551615" },
	  "a=-1 b=255 c=-300 d=65535 e=-70000 f=4294967295 g=-5000000000 h=18446744073709551615" },
	{ "ev char a; unsigned char b; short c; unsigned short d; int e; unsigned int f",
	  { "-128", "128", "-32768", "32768", "-2147483648", "2147483648" },
	  "a=-128 b=128 c=-32768 d=32768 e=-2147483648 f=2147483648" },
	{ "ev char[4] s; u8 z", { "abcd", "88" }, "s=abcd z=88" },
	{ "ev char[4] s; char[4] t", { "abcd", "ef" }, "s=abcd t=ef" },
	{ "ev unsigned char[3] b", { "\x01\x02" }, "b=0x010200" },
	{ "ev __rel_loc char[] r; __data_loc u8[] d; __rel_loc u8[] e",
	  { "rel", "\x01\xff", "" }, "r=rel d=0x01ff e=" },
	{ "ev __data_loc char[] a; __data_loc char[] b", { "", "x y" },
	  "a= b=x y" },
};

static void user_print_desc(const struct user_print_case *c, char *desc)
{
	user_test_desc(desc, c->cmd);
}

KUNIT_ARRAY_PARAM(user_print, user_print_cases, user_print_desc);

/* Lays out the record of @vals in @rec; returns its length */
static u32 user_test_record(struct kunit *test,
			    const struct user_event_format *fmt,
			    const char * const *vals, u8 *rec)
{
	u32 tail = fmt->size;
	u32 i;

	for (i = 0; i < fmt->nr_fields; i++) {
		const struct user_field *f = &fmt->fields[i];
		u8 *p = rec + f->offset;
		const char *v = vals[i];
		u32 n = strlen(v);
		s64 snum;
		u64 num;

		switch (f->kind) {
		case USER_FIELD_INT:
			if (f->is_signed) {
				KUNIT_ASSERT_EQ(test, kstrtos64(v, 10, &snum), 0);
				num = snum;
			} else {
				KUNIT_ASSERT_EQ(test, kstrtou64(v, 10, &num), 0);
			}
			if (f->size == 1)
				*p = num;
			else if (f->size == 2)
				put_unaligned((u16)num, (u16 *)p);
			else if (f->size == 4)
				put_unaligned((u32)num, (u32 *)p);
			else
				put_unaligned(num, (u64 *)p);
			break;
		case USER_FIELD_ARRAY:
		case USER_FIELD_STRUCT:
			memcpy(p, v, min(n, f->size));
			break;
		default:
			n += f->is_string;
			memcpy(rec + tail, v, n);
			if (f->kind == USER_FIELD_DATA_LOC)
				put_unaligned(LOC(tail, n), (u32 *)p);
			else
				put_unaligned(LOC(tail - f->offset - 4, n),
					      (u32 *)p);
			tail += n;
			break;
		}
	}
	return tail;
}

static struct trace_seq *user_test_seq(struct kunit *test)
{
	struct trace_seq *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	trace_seq_init(s);
	return s;
}

static const char *user_test_seq_str(struct kunit *test, struct trace_seq *s)
{
	KUNIT_ASSERT_LT(test, trace_seq_used(s), TRACE_SEQ_BUFFER_SIZE);
	s->buffer[trace_seq_used(s)] = '\0';
	return s->buffer;
}

static void user_test_print_fields(struct kunit *test)
{
	const struct user_print_case *c = test->param_value;
	struct user_event_format *fmt = user_test_parse(test, c->cmd);
	struct trace_seq *s = user_test_seq(test);
	u8 *rec;
	u32 len;

	rec = kunit_kzalloc(test, 256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	len = user_test_record(test, fmt, c->vals, rec);

	KUNIT_EXPECT_EQ(test, user_event_validate(fmt, rec, len), 0);
	user_event_print_fields(s, fmt, rec, len);
	KUNIT_EXPECT_STREQ(test, user_test_seq_str(test, s), c->out);
}

/* Bad records print without reading beyond them */
static void user_test_print_bad(struct kunit *test)
{
	struct user_event_format *fmt;
	struct trace_seq *s;
	u8 *rec;

	fmt = user_test_parse(test, "ev u32 a; __data_loc char[] d; __rel_loc u8[] r");
	rec = kunit_kzalloc(test, S + 12, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	put_unaligned(7, (u32 *)(rec + S));
	put_unaligned(LOC(S + 100, 2), (u32 *)(rec + S + 4));
	put_unaligned(LOC(0, 1), (u32 *)(rec + S + 8));

	/* d out of bounds, r's data would lie right after the record */
	s = user_test_seq(test);
	user_event_print_fields(s, fmt, rec, S + 12);
	KUNIT_EXPECT_STREQ(test, user_test_seq_str(test, s),
			   "a=7 d=(bad) r=(bad)");

	/* A record cut short: fields beyond it are not read */
	s = user_test_seq(test);
	user_event_print_fields(s, fmt, rec, S + 6);
	KUNIT_EXPECT_STREQ(test, user_test_seq_str(test, s),
			   "a=7 d=(bad) r=(bad)");

	/* A string without NUL stops at its size */
	fmt = user_test_parse(test, "ev __data_loc char[] d");
	memset(rec, 'x', S + 12);
	put_unaligned(LOC(S + 4, 3), (u32 *)(rec + S));
	s = user_test_seq(test);
	user_event_print_fields(s, fmt, rec, S + 7);
	KUNIT_EXPECT_STREQ(test, user_test_seq_str(test, s), "d=xxx");
}

/* Long byte arrays print whole, beyond %ph's 64 bytes */
static void user_test_print_long_hex(struct kunit *test)
{
	struct user_event_format *fmt = user_test_parse(test,
							"ev struct big b 100");
	struct trace_seq *s = user_test_seq(test);
	const char *out;
	u8 *rec;
	int i;

	rec = kunit_kzalloc(test, S + 100, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	for (i = 0; i < 100; i++)
		rec[S + i] = i;

	user_event_print_fields(s, fmt, rec, S + 100);
	out = user_test_seq_str(test, s);
	KUNIT_EXPECT_EQ(test, strlen(out), 4 + 200);
	KUNIT_EXPECT_EQ(test, strncmp(out, "b=0x000102", 10), 0);
	KUNIT_EXPECT_STREQ(test, out + strlen(out) - 6, "616263");
}

static void user_test_errs(struct kunit *test)
{
	int i;

	for (i = 0; i < USER_EVENT_ERR_MAX; i++) {
		KUNIT_ASSERT_NOT_NULL(test, user_event_errs[i]);
		KUNIT_EXPECT_GT(test, strlen(user_event_errs[i]), 0);
	}
	KUNIT_EXPECT_STREQ(test, user_event_errs[E(NONE)], "No error");
	KUNIT_EXPECT_STREQ(test, user_event_errs[E(NO_EVENT)], "No such event");

	/* Freeing NULL is fine */
	user_event_format_free(NULL);
}

/*
 * The status file's "# Used by": each probe of the reg callback counts
 * as what attached it, any other probe on the tracepoint as other
 */
static void user_test_probe_ftrace(void *data)
{
}

static void user_test_probe_other(void *data)
{
}

static unsigned int user_test_used(struct user_event *ue)
{
	unsigned int used;

	mutex_lock(&event_mutex);
	used = user_event_used(ue);
	mutex_unlock(&event_mutex);
	return used;
}

static const char *user_test_used_text(struct kunit *test, unsigned int used)
{
	struct seq_file *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->size = 64;
	m->buf = kunit_kzalloc(test, m->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	user_event_show_used(m, used);
	KUNIT_ASSERT_LT(test, m->count, m->size);
	return m->buf;
}

static void user_test_status_used(struct kunit *test)
{
	struct user_event *ue = kunit_kzalloc(test, sizeof(*ue), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, ue);
	ue->tp.name = "user_events_kunit";
	ue->class.probe = user_test_probe_ftrace;
	KUNIT_EXPECT_EQ(test, user_test_used(ue), 0);

	/* The ftrace probe, as the reg callback attaches it */
	ret = tracepoint_probe_register(&ue->tp, user_test_probe_ftrace, NULL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ue->status = USER_EVENT_USED_FTRACE;
	KUNIT_EXPECT_EQ(test, user_test_used(ue), USER_EVENT_USED_FTRACE);

	/* Another probe on the tracepoint */
	ret = tracepoint_probe_register(&ue->tp, user_test_probe_other, ue);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, user_test_used(ue),
			USER_EVENT_USED_FTRACE | USER_EVENT_USED_OTHER);

	tracepoint_probe_unregister(&ue->tp, user_test_probe_ftrace, NULL);
	ue->status = 0;
	KUNIT_EXPECT_EQ(test, user_test_used(ue), USER_EVENT_USED_OTHER);

	tracepoint_probe_unregister(&ue->tp, user_test_probe_other, ue);
	KUNIT_EXPECT_EQ(test, user_test_used(ue), 0);

	KUNIT_EXPECT_STREQ(test, user_test_used_text(test, 0), "");
	KUNIT_EXPECT_STREQ(test,
			   user_test_used_text(test, USER_EVENT_USED_OTHER),
			   " # Used by other");
	KUNIT_EXPECT_STREQ(test,
			   user_test_used_text(test, USER_EVENT_USED_FTRACE |
					       USER_EVENT_USED_OTHER),
			   " # Used by ftrace other");
	KUNIT_EXPECT_STREQ(test,
			   user_test_used_text(test, USER_EVENT_USED_FTRACE |
					       USER_EVENT_USED_PERF |
					       USER_EVENT_USED_OTHER),
			   " # Used by ftrace perf other");
}

static struct kunit_case user_events_parse_cases[] = {
	KUNIT_CASE_PARAM(user_test_accept, user_accept_gen_params),
	KUNIT_CASE(user_test_offsets),
	KUNIT_CASE_PARAM(user_test_nofield, user_nofield_gen_params),
	KUNIT_CASE(user_test_trailing_semicolon),
	KUNIT_CASE_PARAM(user_test_reject, user_reject_gen_params),
	KUNIT_CASE(user_test_limits),
	KUNIT_CASE(user_test_many_fields),
	KUNIT_CASE(user_test_reserved_alike),
	KUNIT_CASE_PARAM(user_test_match, user_match_gen_params),
	KUNIT_CASE_PARAM(user_test_match_args, user_args_gen_params),
	KUNIT_CASE_PARAM(user_test_fields_text, user_text_gen_params),
	KUNIT_CASE_PARAM(user_test_print_fmt, user_print_fmt_gen_params),
	KUNIT_CASE_PARAM(user_test_validate, user_validate_gen_params),
	KUNIT_CASE_PARAM(user_test_print_fields, user_print_gen_params),
	KUNIT_CASE(user_test_print_bad),
	KUNIT_CASE(user_test_print_long_hex),
	KUNIT_CASE(user_test_errs),
	KUNIT_CASE(user_test_status_used),
	{}
};

static struct kunit_suite user_events_parse_suite = {
	.name = "user_events_parse",
	.test_cases = user_events_parse_cases,
};

kunit_test_suite(user_events_parse_suite);

/*
 * An instance that the kernel makes through the trace_array API is its
 * own: it gets no group, so no user process can create events in it or
 * keep it from being destroyed.
 */
static void user_test_kernel_instance(struct kunit *test)
{
	const char *file = "user_events_data";
	struct trace_array *tr;
	struct dentry *d;

	tr = trace_array_get_by_name("user_events_kunit", NULL);
	KUNIT_ASSERT_NOT_NULL(test, tr);
	KUNIT_ASSERT_NOT_NULL(test, tr->dir);

	d = lookup_one_len_unlocked(file, tr->dir, strlen(file));
	KUNIT_EXPECT_FALSE(test, IS_ERR(d));
	if (!IS_ERR(d)) {
		KUNIT_EXPECT_TRUE(test, d_really_is_negative(d));
		dput(d);
	}

	trace_array_put(tr);
	KUNIT_EXPECT_EQ(test, trace_array_destroy(tr), 0);
}

static struct kunit_case user_events_groups_cases[] = {
	KUNIT_CASE(user_test_kernel_instance),
	{}
};

static struct kunit_suite user_events_groups_suite = {
	.name = "user_events_groups",
	.test_cases = user_events_groups_cases,
};

kunit_test_suite(user_events_groups_suite);
