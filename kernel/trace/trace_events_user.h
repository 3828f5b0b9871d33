/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user_events command parser (trace_events_user_parse.c): what a
 * command defines, and what the trace core needs from it.  Shared with
 * the rest of user_events and the KUnit tests.
 */
#ifndef _TRACE_EVENTS_USER_H
#define _TRACE_EVENTS_USER_H

#include <linux/trace_events.h>
#include <linux/types.h>

/* A command, name and fields with its NUL, is at most this long */
#define USER_EVENT_CMD_MAX	512

/* char[N] and unsigned char[N]: 1 <= N <= USER_EVENT_ARRAY_MAX */
#define USER_EVENT_ARRAY_MAX	1024

/* Offset of the first field in a record: after the common header */
#define USER_EVENT_FIELDS_START	((u32)sizeof(struct trace_entry))

/*
 * Largest fixed part of a record (common header plus all fields), so
 * that a record with some dynamic data still fits a ring-buffer page
 * (whose usable size is a little under PAGE_SIZE).  Larger -> TOO_BIG.
 */
#define USER_EVENT_FIXED_MAX	((u32)(PAGE_SIZE - 256))

enum user_field_kind {
	USER_FIELD_INT,		/* s8..u64, char, short, int and unsigned forms */
	USER_FIELD_ARRAY,	/* char[N], unsigned char[N] */
	USER_FIELD_STRUCT,	/* struct T name SIZE */
	USER_FIELD_DATA_LOC,	/* __data_loc T[]: offset from record start */
	USER_FIELD_REL_LOC,	/* __rel_loc T[]: offset from end of the word */
};

/**
 * struct user_field - one field of a user event
 * @type:	type as the format file shows it ("u32", "char[16]",
 *		"__data_loc char[]", "struct foo")
 * @name:	field name
 * @offset:	offset in the record, counted from the start of the entry
 *		(the first field is at USER_EVENT_FIELDS_START)
 * @size:	bytes the field occupies in the fixed part of the record
 * @kind:	enum user_field_kind
 * @is_signed:	integer (or element) type is signed
 * @is_string:	element type is char: printed with %s
 * @filter_type: FILTER_* for trace_define_field(), as the core reads the
 *		type (filter_assign_type()); the data of a loc field it
 *		takes for a string must end with a NUL inside its bounds
 */
struct user_field {
	char	*type;
	char	*name;
	u32	offset;
	u32	size;
	u8	kind;
	bool	is_signed;
	bool	is_string;
	int	filter_type;
};

/**
 * struct user_event_format - a parsed command
 * @name:	event name, without flags
 * @nr_fields:	number of entries in @fields
 * @size:	record size without dynamic data: USER_EVENT_FIELDS_START plus
 *		the sizes of all fields; a write must carry at least
 *		@size - USER_EVENT_FIELDS_START payload bytes
 * @nr_locs:	number of __data_loc/__rel_loc fields (0: nothing to validate)
 * @fields:	the fields, in command order
 */
struct user_event_format {
	char			*name;
	u32			nr_fields;
	u32			size;
	u32			nr_locs;
	struct user_field	fields[] __counted_by(nr_fields);
};

/*
 * Errors of a command, in the form tracing_log_err() takes them: the
 * index of a message in user_event_errs[] and the position of the
 * offending token in the command.
 */
enum user_event_err {
	USER_EVENT_ERR_NONE,
	USER_EVENT_ERR_CMD_TOO_LONG,
	USER_EVENT_ERR_NO_NAME,
	USER_EVENT_ERR_BAD_NAME,
	USER_EVENT_ERR_RESERVED_NAME,
	USER_EVENT_ERR_BAD_FLAG,
	USER_EVENT_ERR_NO_FIELD_TYPE,
	USER_EVENT_ERR_BAD_TYPE,
	USER_EVENT_ERR_NO_FIELD_NAME,
	USER_EVENT_ERR_BAD_FIELD_NAME,
	USER_EVENT_ERR_DUP_FIELD_NAME,
	USER_EVENT_ERR_BAD_SIZE,
	USER_EVENT_ERR_SIZE_NOT_STRUCT,
	USER_EVENT_ERR_STRUCT_NO_SIZE,
	USER_EVENT_ERR_BAD_ARRAY_LEN,
	USER_EVENT_ERR_TRAILING,
	USER_EVENT_ERR_EMPTY_FIELD,
	USER_EVENT_ERR_TOO_BIG,
	USER_EVENT_ERR_NOT_PERMITTED,
	USER_EVENT_ERR_EVENT_EXISTS,
	USER_EVENT_ERR_TOO_MANY,
	USER_EVENT_ERR_TOO_MANY_GROUP,
	USER_EVENT_ERR_GROUP_NAME_CHAR,
	USER_EVENT_ERR_GROUP_NAME_LONG,
	USER_EVENT_ERR_GROUP_NAME_MULTI,
	USER_EVENT_ERR_TOO_MANY_REGS,
	USER_EVENT_ERR_NO_EVENT,
	USER_EVENT_ERR_NO_TYPES,
	USER_EVENT_ERR_MAX,
};

extern const char *user_event_errs[USER_EVENT_ERR_MAX];

/**
 * struct user_parse_err - where and why a command was rejected
 * @type:	enum user_event_err
 * @pos:	byte offset of the offending token in the command
 */
struct user_parse_err {
	int	type;
	int	pos;
};

int user_event_parse(const char *cmd, struct user_event_format **out,
		     struct user_parse_err *err);
void user_event_format_free(struct user_event_format *fmt);
bool user_event_format_equal(const struct user_event_format *a,
			     const struct user_event_format *b);
bool user_event_format_match_args(const struct user_event_format *fmt,
				  int argc, const char **argv);
int user_event_format_fields_text(const struct user_event_format *fmt,
				  char *buf, int len);
char *user_event_print_fmt(const struct user_event_format *fmt);
int user_event_validate(const struct user_event_format *fmt,
			const void *entry, u32 len);
void user_event_print_fields(struct trace_seq *s,
			     const struct user_event_format *fmt,
			     const void *entry, u32 len);

#endif /* _TRACE_EVENTS_USER_H */
