// SPDX-License-Identifier: GPL-2.0
/*
 * user_events: command parser, print_fmt generation and record checks.
 *
 * A command registers or names a user event:
 *
 *	name[:FLAG1[,FLAG2...]] [Field1[;Field2...]]
 *
 * and a field is "type name" or "struct type name size".  This file
 * turns such a command into a struct user_event_format (the event name
 * and its fields with type, size, offset and signedness), generates the
 * print_fmt tools read from the format file, checks the __data_loc and
 * __rel_loc words of a written record and prints a record for the trace
 * file.  It knows nothing about tracefs, registrations or the ring
 * buffer, so that KUnit can test it directly.
 *
 * Records are packed: the first field starts right after the common
 * header (USER_EVENT_FIELDS_START) and each field follows the previous
 * one without padding, as a writer lays the payload out.
 */

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_seq.h>
#include <linux/unaligned.h>

#include "trace.h"
#include "trace_events_user.h"

/* Messages for tracing_log_err(), indexed by enum user_event_err */
const char *user_event_errs[USER_EVENT_ERR_MAX] = {
	[USER_EVENT_ERR_NONE] = "No error",
	[USER_EVENT_ERR_CMD_TOO_LONG] = "Command too long",
	[USER_EVENT_ERR_NO_NAME] = "Missing event name",
	[USER_EVENT_ERR_BAD_NAME] = "Invalid character in event name",
	[USER_EVENT_ERR_RESERVED_NAME] =
		"Reserved event name (a file of the system directory)",
	[USER_EVENT_ERR_BAD_FLAG] = "Unknown flag",
	[USER_EVENT_ERR_NO_FIELD_TYPE] = "Missing field type",
	[USER_EVENT_ERR_BAD_TYPE] = "Unsupported field type",
	[USER_EVENT_ERR_NO_FIELD_NAME] = "Missing field name",
	[USER_EVENT_ERR_BAD_FIELD_NAME] = "Invalid field name",
	[USER_EVENT_ERR_DUP_FIELD_NAME] = "Duplicate field name",
	[USER_EVENT_ERR_BAD_SIZE] = "Invalid field size",
	[USER_EVENT_ERR_SIZE_NOT_STRUCT] = "Size is only valid for struct types",
	[USER_EVENT_ERR_STRUCT_NO_SIZE] = "Struct field needs a size",
	[USER_EVENT_ERR_BAD_ARRAY_LEN] = "Invalid array length",
	[USER_EVENT_ERR_TRAILING] = "Unexpected token",
	[USER_EVENT_ERR_EMPTY_FIELD] = "Empty field",
	[USER_EVENT_ERR_TOO_BIG] = "Event too large",
	[USER_EVENT_ERR_NOT_PERMITTED] = "Operation not permitted",
	[USER_EVENT_ERR_EVENT_EXISTS] = "Event exists with other fields",
	[USER_EVENT_ERR_TOO_MANY] = "Too many events (kernel.user_events_max)",
	[USER_EVENT_ERR_TOO_MANY_GROUP] =
		"Too many events in this group (its instance's user_events_max)",
	[USER_EVENT_ERR_GROUP_NAME_CHAR] =
		"No user_events group: name has a byte other than A-Z a-z 0-9 _",
	[USER_EVENT_ERR_GROUP_NAME_LONG] =
		"No user_events group: name longer than 64 bytes",
	[USER_EVENT_ERR_GROUP_NAME_MULTI] =
		"No user_events group: multi and multi_* are reserved",
	[USER_EVENT_ERR_TOO_MANY_REGS] =
		"Too many registrations in this process (kernel.user_events_max_enablers)",
	[USER_EVENT_ERR_NO_EVENT] = "No such event",
	[USER_EVENT_ERR_NO_TYPES] = "No trace event types left for user events",
};

/* Element and integer types, with their size in bytes */
struct user_basic_type {
	const char	*name;
	u8		size;
	bool		is_signed;
};

static const struct user_basic_type user_basic_types[] = {
	{ "s8",			1, true },
	{ "u8",			1, false },
	{ "char",		1, true },
	{ "unsigned char",	1, false },
	{ "s16",		2, true },
	{ "u16",		2, false },
	{ "short",		2, true },
	{ "unsigned short",	2, false },
	{ "s32",		4, true },
	{ "u32",		4, false },
	{ "int",		4, true },
	{ "unsigned int",	4, false },
	{ "s64",		8, true },
	{ "u64",		8, false },
};

/* Field names the common header already uses */
static const char * const user_common_fields[] = {
	"common_type",
	"common_flags",
	"common_preempt_count",
	"common_pid",
};

/*
 * The length of an array is written in at most this many characters
 * ("0x00400", "0002000"), whatever its value
 */
#define USER_ARRAY_LEN_CHARS	7

/*
 * Event names that are files of the system directory (events/user_events/
 * has "enable" and "filter" besides the event directories): an event of
 * that name would hide the file
 */
static const char * const user_reserved_names[] = {
	"enable",
	"filter",
};

/* A word of a field, and where it starts in the command */
struct user_word {
	const char	*s;
	int		len;
	int		pos;
};

/* The element type of a __data_loc or __rel_loc field has up to 3 words */
#define USER_LOC_TYPE_WORDS	3

/*
 * The longest field is a __data_loc or __rel_loc field with the longest
 * element type: five words.  One more is kept to report what follows.
 */
#define USER_FIELD_WORDS	(USER_LOC_TYPE_WORDS + 3)

/* A parsed field, before the format is allocated */
struct user_field_tok {
	const struct user_basic_type	*basic;	/* known type, else NULL */
	struct user_word		tname;	/* struct and loc fields: T */
	struct user_word		name;
	u32				array_len;	/* char[N]: N */
	u32				size;
	u8				kind;
	int				pos;	/* first word of the field */
};

static int user_parse_fail(struct user_parse_err *err, int type, int pos)
{
	if (err) {
		err->type = type;
		err->pos = pos;
	}
	return -EINVAL;
}

/*
 * Commands are ASCII: the kernel's ctype also classifies Latin-1 bytes,
 * which must not slip into names or act as separators.
 */
static bool user_is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool user_is_ident(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		(!first && c >= '0' && c <= '9');
}

static bool user_word_is(const struct user_word *w, const char *s)
{
	return strlen(s) == w->len && !memcmp(w->s, s, w->len);
}

/* The core takes a type for a loc field if the keyword is anywhere in it */
static bool user_word_has_loc(const struct user_word *w)
{
	return strnstr(w->s, "__data_loc", w->len) ||
		strnstr(w->s, "__rel_loc", w->len);
}

static bool user_name_reserved(const struct user_word *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(user_reserved_names); i++) {
		if (user_word_is(name, user_reserved_names[i]))
			return true;
	}
	return false;
}

/*
 * Returns the offset of the first character of @s[0..@len) that cannot
 * be part of a C identifier, or -1 if it is one.  An empty string fails
 * at offset 0.
 */
static int user_ident_bad_char(const char *s, int len)
{
	int i;

	for (i = 0; i < len; i++) {
		if (!user_is_ident(s[i], !i))
			return i;
	}
	return len ? -1 : 0;
}

/*
 * A decimal or 0x hexadecimal number filling @s[0..@len), below 2^28.
 * Unlike kstrtou32() no sign and no octal, and @s need not end there.
 */
static bool user_parse_num(const char *s, int len, u32 *val)
{
	int base = 10;
	u32 v = 0;
	int i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i >= len)
		return false;

	for (; i < len; i++) {
		int d = hex_to_bin(s[i]);

		if (d < 0 || d >= base || v >= (1U << 28) / base)
			return false;
		v = v * base + d;
	}
	*val = v;
	return true;
}

/*
 * The N of char[N], @s[0..@len): read by kstrtouint() with base 0, as
 * programs written for Linux expect (decimal, 0x hexadecimal, octal with
 * a leading 0: "010" is 8), in at most USER_ARRAY_LEN_CHARS characters,
 * from 1 to USER_EVENT_ARRAY_MAX.
 */
static bool user_parse_array_len(const char *s, int len, u32 *val)
{
	char buf[USER_ARRAY_LEN_CHARS + 1];
	unsigned int v;

	if (!len || len > USER_ARRAY_LEN_CHARS)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (kstrtouint(buf, 0, &v) || !v || v > USER_EVENT_ARRAY_MAX)
		return false;
	*val = v;
	return true;
}

/* Splits @s[0..@len) into whitespace-separated words */
static int user_split_words(const char *s, int len, int pos,
			    struct user_word *words)
{
	int n = 0;
	int i = 0;

	while (i < len && n < USER_FIELD_WORDS) {
		int start;

		while (i < len && user_is_space(s[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !user_is_space(s[i]))
			i++;
		words[n].s = s + start;
		words[n].len = i - start;
		words[n].pos = pos + start;
		n++;
	}
	return n;
}

static const struct user_basic_type *user_basic_lookup(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(user_basic_types); i++) {
		if (!strcmp(name, user_basic_types[i].name))
			return &user_basic_types[i];
	}
	return NULL;
}

/*
 * Parses an integer or element type: "unsigned" plus a word, or one
 * word.  The word may carry a suffix starting with '[', returned in
 * @suffix (empty if there is none).  Advances *@i past the type.
 */
static int user_parse_basic(const struct user_word *words, int nr, int *i,
			    const struct user_basic_type **type,
			    struct user_word *suffix,
			    struct user_parse_err *err)
{
	const struct user_word *w = &words[*i];
	char name[sizeof("unsigned short")];
	const char *bracket;
	int base_len;
	int prefix;
	int start;

	if (user_word_is(w, "unsigned")) {
		if (*i + 1 >= nr)
			return user_parse_fail(err, USER_EVENT_ERR_BAD_TYPE,
					       w->pos);
		start = w->pos;
		w = &words[++*i];
		strscpy(name, "unsigned ", sizeof(name));
	} else {
		start = w->pos;
		name[0] = '\0';
	}
	(*i)++;

	bracket = memchr(w->s, '[', w->len);
	base_len = bracket ? bracket - w->s : w->len;
	suffix->s = w->s + base_len;
	suffix->len = w->len - base_len;
	suffix->pos = w->pos + base_len;

	prefix = strlen(name);
	if (prefix + base_len >= sizeof(name))
		return user_parse_fail(err, USER_EVENT_ERR_BAD_TYPE, start);
	memcpy(name + prefix, w->s, base_len);
	name[prefix + base_len] = '\0';

	*type = user_basic_lookup(name);
	if (!*type)
		return user_parse_fail(err, USER_EVENT_ERR_BAD_TYPE, start);
	return 0;
}

/* Appends to @buf at @pos like snprintf(); returns the new position */
static __printf(4, 5) int user_cat(char *buf, int len, int pos,
				   const char *f, ...)
{
	va_list args;
	int n;

	va_start(args, f);
	n = vsnprintf(pos < len ? buf + pos : NULL, pos < len ? len - pos : 0,
		      f, args);
	va_end(args);
	return pos + n;
}

/*
 * The element type of loc field @tok, its words joined by one space, at
 * @pos of @buf as user_cat() appends
 */
static int user_cat_loc_type(const struct user_field_tok *tok, char *buf,
			     int len, int pos)
{
	struct user_word words[USER_FIELD_WORDS];
	int nr = user_split_words(tok->tname.s, tok->tname.len, 0, words);
	int j;

	for (j = 0; j < nr; j++)
		pos = user_cat(buf, len, pos, "%s%.*s", j ? " " : "",
			       words[j].len, words[j].s);
	return pos;
}

/*
 * The element type of a __data_loc or __rel_loc field: one to
 * USER_LOC_TYPE_WORDS C identifiers, the last one ending in "[]".  Any
 * type is taken, as in Linux: the field is a loc word whatever it points
 * to.  @tok->tname spans the words, "[]" left out, and @tok->basic is set
 * for a known type.  Advances *@i past the type.
 */
static int user_parse_loc_type(const struct user_word *words, int nr,
			       int *i, struct user_field_tok *tok,
			       struct user_parse_err *err)
{
	char name[sizeof("unsigned short")];
	const struct user_word *first = &words[*i];
	struct user_word w;
	bool last = false;
	int bad;
	int n;

	for (n = 0; !last; n++) {
		if (*i >= nr)
			return user_parse_fail(err, USER_EVENT_ERR_BAD_TYPE,
					       first->pos);
		w = words[(*i)++];
		if (n == USER_LOC_TYPE_WORDS)
			return user_parse_fail(err, USER_EVENT_ERR_BAD_TYPE,
					       w.pos);
		last = w.len > 2 && !memcmp(w.s + w.len - 2, "[]", 2);
		if (last)
			w.len -= 2;
		bad = user_ident_bad_char(w.s, w.len);
		if (bad >= 0)
			return user_parse_fail(err, USER_EVENT_ERR_BAD_TYPE,
					       w.pos + bad);
		if (user_word_has_loc(&w))
			return user_parse_fail(err, USER_EVENT_ERR_BAD_TYPE,
					       w.pos);
	}

	tok->tname = *first;
	tok->tname.len = w.s + w.len - first->s;
	tok->basic = NULL;
	if (user_cat_loc_type(tok, name, sizeof(name), 0) < sizeof(name))
		tok->basic = user_basic_lookup(name);
	return 0;
}

/* The type part of a field: everything before its name */
static int user_parse_type(const struct user_word *words, int nr, int *i,
			   struct user_field_tok *tok,
			   struct user_parse_err *err)
{
	const struct user_word *w = &words[*i];
	struct user_word suffix;
	int ret;

	if (user_word_is(w, "struct")) {
		if (*i + 1 >= nr ||
		    user_ident_bad_char(words[*i + 1].s, words[*i + 1].len) >= 0 ||
		    user_word_has_loc(&words[*i + 1]))
			return user_parse_fail(err, USER_EVENT_ERR_BAD_TYPE,
					       *i + 1 < nr ? words[*i + 1].pos :
					       w->pos);
		tok->kind = USER_FIELD_STRUCT;
		tok->tname = words[*i + 1];
		*i += 2;
		return 0;
	}

	if (user_word_is(w, "__data_loc") || user_word_is(w, "__rel_loc")) {
		tok->kind = user_word_is(w, "__data_loc") ?
			USER_FIELD_DATA_LOC : USER_FIELD_REL_LOC;
		if (++*i >= nr)
			return user_parse_fail(err, USER_EVENT_ERR_NO_FIELD_TYPE,
					       w->pos + w->len);
		tok->size = sizeof(u32);
		return user_parse_loc_type(words, nr, i, tok, err);
	}

	ret = user_parse_basic(words, nr, i, &tok->basic, &suffix, err);
	if (ret)
		return ret;
	if (!suffix.len) {
		tok->kind = USER_FIELD_INT;
		tok->size = tok->basic->size;
		return 0;
	}

	/* Arrays exist of char and unsigned char only */
	if (strcmp(tok->basic->name, "char") &&
	    strcmp(tok->basic->name, "unsigned char"))
		return user_parse_fail(err, USER_EVENT_ERR_BAD_TYPE, w->pos);

	if (suffix.len < 2 || suffix.s[suffix.len - 1] != ']' ||
	    !user_parse_array_len(suffix.s + 1, suffix.len - 2,
				  &tok->array_len))
		return user_parse_fail(err, USER_EVENT_ERR_BAD_ARRAY_LEN,
				       suffix.pos + 1);
	tok->kind = USER_FIELD_ARRAY;
	tok->size = tok->array_len;
	return 0;
}

static int user_check_field_name(const struct user_word *w,
				 struct user_parse_err *err)
{
	int bad = user_ident_bad_char(w->s, w->len);
	int i;

	if (bad >= 0)
		return user_parse_fail(err, USER_EVENT_ERR_BAD_FIELD_NAME,
				       w->pos + bad);

	for (i = 0; i < ARRAY_SIZE(user_common_fields); i++) {
		if (user_word_is(w, user_common_fields[i]))
			return user_parse_fail(err,
					       USER_EVENT_ERR_BAD_FIELD_NAME,
					       w->pos);
	}
	return 0;
}

/* One field, @s[0..@len), known to hold at least one word */
static int user_parse_field(const char *s, int len, int pos,
			    struct user_field_tok *tok,
			    struct user_parse_err *err)
{
	struct user_word words[USER_FIELD_WORDS];
	int nr = user_split_words(s, len, pos, words);
	const struct user_word *last;
	int i = 0;
	int ret;

	tok->pos = words[0].pos;
	ret = user_parse_type(words, nr, &i, tok, err);
	if (ret)
		return ret;

	if (i >= nr) {
		last = &words[nr - 1];
		return user_parse_fail(err, USER_EVENT_ERR_NO_FIELD_NAME,
				       last->pos + last->len);
	}
	tok->name = words[i++];
	ret = user_check_field_name(&tok->name, err);
	if (ret)
		return ret;

	if (tok->kind == USER_FIELD_STRUCT) {
		if (i >= nr)
			return user_parse_fail(err,
					       USER_EVENT_ERR_STRUCT_NO_SIZE,
					       tok->name.pos + tok->name.len);
		if (!user_parse_num(words[i].s, words[i].len, &tok->size) ||
		    !tok->size)
			return user_parse_fail(err, USER_EVENT_ERR_BAD_SIZE,
					       words[i].pos);
		if (tok->size > USER_EVENT_FIXED_MAX - USER_EVENT_FIELDS_START)
			return user_parse_fail(err, USER_EVENT_ERR_TOO_BIG,
					       words[i].pos);
		i++;
	} else if (i < nr && isdigit(words[i].s[0])) {
		return user_parse_fail(err, USER_EVENT_ERR_SIZE_NOT_STRUCT,
				       words[i].pos);
	}

	if (i < nr)
		return user_parse_fail(err, USER_EVENT_ERR_TRAILING,
				       words[i].pos);
	return 0;
}

/*
 * The type of a field as the format file shows it, snprintf() style.
 * Array lengths are written in decimal whatever the command used.
 */
static int user_tok_type(const struct user_field_tok *tok, char *buf, int len)
{
	int pos;

	switch (tok->kind) {
	case USER_FIELD_ARRAY:
		return snprintf(buf, len, "%s[%u]", tok->basic->name,
				tok->array_len);
	case USER_FIELD_STRUCT:
		return snprintf(buf, len, "struct %.*s", tok->tname.len,
				tok->tname.s);
	case USER_FIELD_DATA_LOC:
	case USER_FIELD_REL_LOC:
		pos = user_cat(buf, len, 0, "%s ",
			       tok->kind == USER_FIELD_DATA_LOC ?
			       "__data_loc" : "__rel_loc");
		pos = user_cat_loc_type(tok, buf, len, pos);
		return user_cat(buf, len, pos, "[]");
	default:
		return snprintf(buf, len, "%s", tok->basic->name);
	}
}

static bool user_tok_is_string(const struct user_field_tok *tok)
{
	return tok->kind != USER_FIELD_INT && tok->basic &&
		!strcmp(tok->basic->name, "char");
}

/* Allocates the format of @name and @toks: one block, strings packed */
static struct user_event_format *
user_format_alloc(const struct user_word *name,
		  const struct user_field_tok *toks, int nr)
{
	struct user_event_format *fmt;
	size_t strings = name->len + 1;
	u32 offset = USER_EVENT_FIELDS_START;
	char *p;
	int i;

	for (i = 0; i < nr; i++)
		strings += user_tok_type(&toks[i], NULL, 0) + 1 +
			toks[i].name.len + 1;

	fmt = kzalloc(struct_size(fmt, fields, nr) + strings, GFP_KERNEL_ACCOUNT);
	if (!fmt)
		return NULL;

	fmt->nr_fields = nr;
	p = (char *)fmt + struct_size(fmt, fields, nr);
	fmt->name = p;
	memcpy(p, name->s, name->len);
	p += name->len + 1;

	for (i = 0; i < nr; i++) {
		const struct user_field_tok *tok = &toks[i];
		struct user_field *field = &fmt->fields[i];
		int len = user_tok_type(tok, NULL, 0) + 1;

		field->type = p;
		user_tok_type(tok, p, len);
		p += len;
		field->name = p;
		memcpy(p, tok->name.s, tok->name.len);
		p += tok->name.len + 1;

		field->offset = offset;
		field->size = tok->size;
		field->kind = tok->kind;
		field->is_signed = tok->basic && tok->basic->is_signed;
		field->is_string = user_tok_is_string(tok);
		/*
		 * What trace_define_field() makes of the type anyway: the
		 * filters and the validator must agree on which fields hold
		 * strings ("char" anywhere in a type, as the core reads it).
		 */
		field->filter_type = filter_assign_type(field->type);
		offset += tok->size;

		if (tok->kind == USER_FIELD_DATA_LOC ||
		    tok->kind == USER_FIELD_REL_LOC)
			fmt->nr_locs++;
	}
	fmt->size = offset;
	return fmt;
}

/*
 * Whether the core's filters read @field as the kind it is.  A cpumask is
 * always refused: the filters read a kernel-sized one, not the writer's.
 */
static bool user_filter_type_ok(const struct user_field *field)
{
	switch (field->filter_type) {
	case FILTER_OTHER:
		return true;
	case FILTER_STATIC_STRING:
		return field->kind == USER_FIELD_ARRAY;
	case FILTER_DYN_STRING:
		return field->kind == USER_FIELD_DATA_LOC;
	case FILTER_RDYN_STRING:
		return field->kind == USER_FIELD_REL_LOC;
	default:
		return false;
	}
}

/*
 * Parses the fields text @fields (positions in the command start at
 * @pos) and builds the format of event @name.
 */
static int user_parse_build(const struct user_word *name, const char *fields,
			    int pos, struct user_event_format **out,
			    struct user_parse_err *err)
{
	struct user_field_tok *toks = NULL;
	u32 total = USER_EVENT_FIELDS_START;
	const char *seg = fields;
	int max = 1;
	int nr = 0;
	int ret = 0;
	int i;

	for (i = 0; fields[i]; i++)
		max += fields[i] == ';';

	toks = kcalloc(max, sizeof(*toks), GFP_KERNEL_ACCOUNT);
	if (!toks)
		return -ENOMEM;

	for (;;) {
		const char *end = strchrnul(seg, ';');
		int seg_pos = pos + (seg - fields);
		struct user_field_tok *tok = &toks[nr];
		const char *p = seg;

		while (p < end && user_is_space(*p))
			p++;
		if (p == end) {
			/* Nothing at all, or one ';' closing the last field */
			if (!*end)
				break;
			ret = user_parse_fail(err, USER_EVENT_ERR_EMPTY_FIELD,
					      pos + (end - fields));
			goto out;
		}

		ret = user_parse_field(seg, end - seg, seg_pos, tok, err);
		if (ret)
			goto out;

		for (i = 0; i < nr; i++) {
			if (toks[i].name.len == tok->name.len &&
			    !memcmp(toks[i].name.s, tok->name.s, tok->name.len)) {
				ret = user_parse_fail(err,
						      USER_EVENT_ERR_DUP_FIELD_NAME,
						      tok->name.pos);
				goto out;
			}
		}

		total += tok->size;
		if (total > USER_EVENT_FIXED_MAX) {
			ret = user_parse_fail(err, USER_EVENT_ERR_TOO_BIG,
					      tok->pos);
			goto out;
		}
		nr++;

		if (!*end)
			break;
		seg = end + 1;
	}

	*out = user_format_alloc(name, toks, nr);
	if (!*out) {
		ret = -ENOMEM;
		goto out;
	}

	for (i = 0; i < nr; i++) {
		if (!user_filter_type_ok(&(*out)->fields[i])) {
			ret = user_parse_fail(err, USER_EVENT_ERR_BAD_TYPE,
					      toks[i].tname.pos);
			user_event_format_free(*out);
			*out = NULL;
			break;
		}
	}
out:
	kfree(toks);
	return ret;
}

static void user_parse_init(struct user_event_format **out,
			    struct user_parse_err *err)
{
	*out = NULL;
	if (err) {
		err->type = USER_EVENT_ERR_NONE;
		err->pos = 0;
	}
}

/**
 * user_event_parse - parse a user_events command
 * @cmd:	"name[:FLAG1[,FLAG2...]] [Field1[;Field2...]]"
 * @out:	on success, the parsed format (free with user_event_format_free())
 * @err:	on -EINVAL, why and where (byte offset in @cmd); may be NULL
 *
 * Leading and trailing whitespace and whitespace around ';' are ignored;
 * one ';' may close the last field.  No text flags exist: any ":FLAG" is
 * rejected, and so are the names of the files of a system directory
 * ("enable", "filter").  The whole command must fit USER_EVENT_CMD_MAX bytes with its
 * NUL, and the fixed part of a record USER_EVENT_FIXED_MAX bytes.
 *
 * Return: 0, -EINVAL for a malformed command, or -ENOMEM.
 */
int user_event_parse(const char *cmd, struct user_event_format **out,
		     struct user_parse_err *err)
{
	struct user_word name;
	const char *p;
	int bad;

	user_parse_init(out, err);

	if (strnlen(cmd, USER_EVENT_CMD_MAX) >= USER_EVENT_CMD_MAX)
		return user_parse_fail(err, USER_EVENT_ERR_CMD_TOO_LONG, 0);

	p = cmd;
	while (user_is_space(*p))
		p++;
	name.s = p;
	name.pos = p - cmd;
	while (*p && !user_is_space(*p) && *p != ':')
		p++;
	name.len = p - name.s;

	if (!name.len)
		return user_parse_fail(err, USER_EVENT_ERR_NO_NAME, name.pos);
	bad = user_ident_bad_char(name.s, name.len);
	if (bad >= 0)
		return user_parse_fail(err, USER_EVENT_ERR_BAD_NAME,
				       name.pos + bad);
	if (user_name_reserved(&name))
		return user_parse_fail(err, USER_EVENT_ERR_RESERVED_NAME,
				       name.pos);
	if (*p == ':')
		return user_parse_fail(err, USER_EVENT_ERR_BAD_FLAG,
				       p + 1 - cmd);

	return user_parse_build(&name, p, p - cmd, out, err);
}

/**
 * user_event_format_free - free a format from user_event_parse()
 * @fmt:	the format, or NULL
 */
void user_event_format_free(struct user_event_format *fmt)
{
	kfree(fmt);
}

/**
 * user_event_format_equal - whether two formats describe the same event
 * @a:	a format
 * @b:	another format
 *
 * Formats are equal when they have the same name and the same fields
 * (type, name and size) in the same order, however the commands were
 * spaced: "u32 a;u32 b" equals "u32 a; u32 b".
 *
 * Return: true if @a and @b are equal.
 */
bool user_event_format_equal(const struct user_event_format *a,
			     const struct user_event_format *b)
{
	u32 i;

	if (strcmp(a->name, b->name) || a->nr_fields != b->nr_fields)
		return false;

	for (i = 0; i < a->nr_fields; i++) {
		const struct user_field *fa = &a->fields[i];
		const struct user_field *fb = &b->fields[i];

		if (fa->size != fb->size || strcmp(fa->type, fb->type) ||
		    strcmp(fa->name, fb->name))
			return false;
	}
	return true;
}

/* Whether field @n of @fmt is the field of @nr words (none: an empty one) */
static bool user_field_match(const struct user_event_format *fmt, u32 n,
			     const struct user_word *words, int nr)
{
	const struct user_field *field;
	struct user_field_tok tok = {};
	bool match = false;
	char *text, *type;
	int len = 0;
	int i;

	if (n >= fmt->nr_fields || !nr)
		return false;

	/* The words as one text: a loc field's type spans several */
	for (i = 0; i < nr; i++)
		len += words[i].len + 1;
	text = kmalloc(len, GFP_KERNEL);
	if (!text)
		return false;
	for (i = 0, len = 0; i < nr; i++) {
		if (i)
			text[len++] = ' ';
		memcpy(text + len, words[i].s, words[i].len);
		len += words[i].len;
	}

	field = &fmt->fields[n];
	if (user_parse_field(text, len, 0, &tok, NULL) ||
	    tok.size != field->size || !user_word_is(&tok.name, field->name))
		goto out;

	/* The type as the format has it: "char[0x10]" is "char[16]" */
	len = user_tok_type(&tok, NULL, 0) + 1;
	type = kmalloc(len, GFP_KERNEL);
	if (!type)
		goto out;
	user_tok_type(&tok, type, len);
	match = !strcmp(type, field->type);
	kfree(type);
out:
	kfree(text);
	return match;
}

/**
 * user_event_format_match_args - whether command words give a format's fields
 * @fmt:	the format
 * @argc:	number of words
 * @argv:	the fields text split at whitespace, as dynamic_events does
 *		("u32", "a;u64", "b")
 *
 * Compares the fields, split at ';', one by one with those of @fmt, by
 * the rules of user_event_format_equal(): "u32 a;u64 b" and "u32 a ;
 * u64 b;" are the fields "u32 a; u64 b", and so is "u32 a; u64 b".
 * No words match a format without fields.
 *
 * Return: true if the words give exactly the fields of @fmt.
 */
bool user_event_format_match_args(const struct user_event_format *fmt,
				  int argc, const char **argv)
{
	struct user_word words[USER_FIELD_WORDS];
	const char *p, *semi;
	int nr = 0;
	u32 n = 0;
	int i;

	for (i = 0; i < argc; i++) {
		for (p = argv[i]; ; p = semi + 1) {
			semi = strchrnul(p, ';');
			if (semi > p) {
				/* More words than any field has */
				if (nr == USER_FIELD_WORDS)
					return false;
				words[nr].s = p;
				words[nr].len = semi - p;
				words[nr].pos = 0;
				nr++;
			}
			if (!*semi)
				break;
			if (!user_field_match(fmt, n++, words, nr))
				return false;
			nr = 0;
		}
	}

	/* One ';' may close the last field */
	if (nr && !user_field_match(fmt, n++, words, nr))
		return false;
	return n == fmt->nr_fields;
}

/**
 * user_event_format_fields_text - the fields of a format as command text
 * @fmt:	the format
 * @buf:	where to write, may be NULL if @len is 0
 * @len:	size of @buf
 *
 * Writes the canonical fields text, "u32 a; char[16] s; struct x y 20",
 * which user_event_parse() parses back, after a name, into an equal
 * format.
 * An event without fields gives "".
 *
 * Return: the length of the whole text (without its NUL), as snprintf().
 */
int user_event_format_fields_text(const struct user_event_format *fmt,
				  char *buf, int len)
{
	int pos = 0;
	u32 i;

	if (len > 0)
		buf[0] = '\0';

	for (i = 0; i < fmt->nr_fields; i++) {
		const struct user_field *field = &fmt->fields[i];

		pos = user_cat(buf, len, pos, "%s%s %s", i ? "; " : "",
			       field->type, field->name);
		if (field->kind == USER_FIELD_STRUCT)
			pos = user_cat(buf, len, pos, " %u", field->size);
	}
	return pos;
}

/*
 * As Linux writes them: %d and %u for every integer narrower than 64 bits
 * (libtraceevent 1.7 then shows a negative s8 or s16 as its unsigned
 * value, as it does for Linux's own), %lld and %llu for 64 bits
 */
static const char *user_field_conv(const struct user_field *field)
{
	if (field->kind != USER_FIELD_INT)
		return "%s";
	if (field->size == 8)
		return field->is_signed ? "%lld" : "%llu";
	return field->is_signed ? "%d" : "%u";
}

static int user_field_arg(const struct user_field *field, char *buf, int len,
			  int pos)
{
	const char *n = field->name;

	switch (field->kind) {
	case USER_FIELD_INT:
		return user_cat(buf, len, pos, "REC->%s", n);
	case USER_FIELD_ARRAY:
	case USER_FIELD_STRUCT:
		if (field->is_string)
			return user_cat(buf, len, pos, "REC->%s", n);
		return user_cat(buf, len, pos, "__print_hex(REC->%s, %u)", n,
				field->size);
	case USER_FIELD_DATA_LOC:
		if (field->is_string)
			return user_cat(buf, len, pos, "__get_str(%s)", n);
		return user_cat(buf, len, pos,
				"__print_hex(__get_dynamic_array(%s), __get_dynamic_array_len(%s))",
				n, n);
	default:
		if (field->is_string)
			return user_cat(buf, len, pos, "__get_rel_str(%s)", n);
		/*
		 * The length is the high half of the word, as for
		 * __data_loc: libtraceevent 1.7 crashes on the
		 * __get_rel_dynamic_array_len() (and __get_dynamic_array_len())
		 * of a __rel_loc field, and older ones (perf's own copy) take
		 * an expression as a helper's argument only in parentheses.
		 */
		return user_cat(buf, len, pos,
				"__print_hex(__get_rel_dynamic_array(%s), (REC->%s >> 16))",
				n, n);
	}
}

static int user_print_fmt_text(const struct user_event_format *fmt,
			       char *buf, int len)
{
	int pos = 0;
	u32 i;

	pos = user_cat(buf, len, pos, "\"");
	for (i = 0; i < fmt->nr_fields; i++)
		pos = user_cat(buf, len, pos, "%s%s=%s", i ? " " : "",
			       fmt->fields[i].name,
			       user_field_conv(&fmt->fields[i]));
	pos = user_cat(buf, len, pos, "\"");

	for (i = 0; i < fmt->nr_fields; i++) {
		pos = user_cat(buf, len, pos, ", ");
		pos = user_field_arg(&fmt->fields[i], buf, len, pos);
	}
	return pos;
}

/**
 * user_event_print_fmt - the print_fmt of an event's format file
 * @fmt:	the format
 *
 * The text is what libtraceevent (perf, trace-cmd) parses to print a
 * record: integers with %u/%d (%llu/%lld for 8 bytes), char arrays and
 * char __data_loc/__rel_loc strings with %s, other arrays and structs
 * with __print_hex(), e.g. "a=%u s=%s d=%s", REC->a, REC->s, __get_str(d).
 * An event without fields gives "".
 *
 * Return: a kmalloc'd string (kfree() it), or NULL without memory.
 */
char *user_event_print_fmt(const struct user_event_format *fmt)
{
	int len = user_print_fmt_text(fmt, NULL, 0) + 1;
	char *buf = kmalloc(len, GFP_KERNEL_ACCOUNT);

	if (buf)
		user_print_fmt_text(fmt, buf, len);
	return buf;
}

/*
 * Where the data of loc field @field lies in a record of @len bytes.
 * False if the word at the field or the data is out of bounds.
 */
static bool user_loc_data(const struct user_field *field, const void *entry,
			  u32 len, u32 *start, u32 *size)
{
	u32 word;

	if (field->offset + sizeof(u32) > len)
		return false;

	word = get_unaligned((const u32 *)(entry + field->offset));
	*size = word >> 16;
	*start = word & 0xffff;
	if (field->kind == USER_FIELD_REL_LOC)
		*start += field->offset + sizeof(u32);

	return *start >= USER_EVENT_FIELDS_START && *start <= len &&
		*size <= len - *start;
}

/**
 * user_event_validate - check the dynamic fields of a written record
 * @fmt:	the event's format
 * @entry:	the record, common header first
 * @len:	length of the whole record
 *
 * Each __data_loc word (data at its offset from the record start) and
 * __rel_loc word (data at its offset from the end of the word) must
 * point within the record after the common header; the data of a field
 * whose filter type is a string (any type with "char" in it) must be at
 * least one byte and end with a NUL.  Words may be unaligned.  Called
 * for every write: no allocation, no locks.
 *
 * Return: 0 if the record is fine, -EFAULT if not.
 */
int user_event_validate(const struct user_event_format *fmt,
			const void *entry, u32 len)
{
	u32 start, size;
	u32 i;

	if (likely(!fmt->nr_locs))
		return 0;

	for (i = 0; i < fmt->nr_fields; i++) {
		const struct user_field *field = &fmt->fields[i];

		if (field->kind != USER_FIELD_DATA_LOC &&
		    field->kind != USER_FIELD_REL_LOC)
			continue;

		if (!user_loc_data(field, entry, len, &start, &size))
			return -EFAULT;

		if ((field->filter_type == FILTER_DYN_STRING ||
		     field->filter_type == FILTER_RDYN_STRING) &&
		    (!size || ((const char *)entry)[start + size - 1]))
			return -EFAULT;
	}
	return 0;
}

static void user_print_hex(struct trace_seq *s, const u8 *p, u32 size)
{
	u32 n;

	if (!size)
		return;

	trace_seq_puts(s, "0x");
	while (size) {
		/* %ph prints at most 64 bytes at once */
		n = min(size, 64U);
		trace_seq_printf(s, "%*phN", (int)n, p);
		p += n;
		size -= n;
	}
}

static void user_print_int(struct trace_seq *s, const struct user_field *field,
			   const void *p)
{
	u64 v;

	switch (field->size) {
	case 1:
		v = field->is_signed ? (s64)*(const s8 *)p : *(const u8 *)p;
		break;
	case 2:
		v = get_unaligned((const u16 *)p);
		if (field->is_signed)
			v = (s64)(s16)v;
		break;
	case 4:
		v = get_unaligned((const u32 *)p);
		if (field->is_signed)
			v = (s64)(s32)v;
		break;
	default:
		v = get_unaligned((const u64 *)p);
		break;
	}

	if (field->is_signed)
		trace_seq_printf(s, "%lld", (s64)v);
	else
		trace_seq_printf(s, "%llu", v);
}

/**
 * user_event_print_fields - print a record for the trace file
 * @s:		where to print
 * @fmt:	the event's format
 * @entry:	the record, common header first
 * @len:	length of the whole record
 *
 * Prints "name=value" for each field, separated by spaces: integers in
 * decimal, char arrays and strings as text, other arrays and structs as
 * 0x and their bytes in hex.  Nothing is read beyond @len bytes; a
 * field out of bounds prints as "(bad)".
 */
void user_event_print_fields(struct trace_seq *s,
			     const struct user_event_format *fmt,
			     const void *entry, u32 len)
{
	u32 i;

	for (i = 0; i < fmt->nr_fields; i++) {
		const struct user_field *field = &fmt->fields[i];
		const void *p = entry + field->offset;
		u32 start, size;

		trace_seq_printf(s, "%s%s=", i ? " " : "", field->name);

		if (field->offset + field->size > len) {
			trace_seq_puts(s, "(bad)");
			continue;
		}

		switch (field->kind) {
		case USER_FIELD_INT:
			user_print_int(s, field, p);
			continue;
		case USER_FIELD_ARRAY:
		case USER_FIELD_STRUCT:
			start = field->offset;
			size = field->size;
			break;
		default:
			if (!user_loc_data(field, entry, len, &start, &size)) {
				trace_seq_puts(s, "(bad)");
				continue;
			}
			break;
		}

		p = entry + start;
		if (field->is_string)
			trace_seq_printf(s, "%.*s", (int)strnlen(p, size),
					 (const char *)p);
		else
			user_print_hex(s, p, size);
	}
}
