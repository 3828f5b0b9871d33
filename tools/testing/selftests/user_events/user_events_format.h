/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An event as consumers see it, for the user_events selftests: its id
 * and perf events on it, its format file parsed into fields, and records
 * built to follow that format.
 */
#ifndef _USER_EVENTS_FORMAT_H
#define _USER_EVENTS_FORMAT_H

#include <linux/perf_event.h>

#include "user_events_selftests.h"

#define UE_MAX_FIELDS	64

/* --- ids and perf ------------------------------------------------------ */

static inline int ue_event_id(const char *sys, const char *name, long *id)
{
	char path[UE_PATH_MAX];

	return ue_read_long(ue_evpath(path, sys, name, "id"), id);
}

/*
 * perf_event_open() of this task, any CPU, on tracepoint id @id: every
 * record as a raw sample.  The fd or -errno.
 */
static inline int ue_perf_open_id(long id)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_type = PERF_SAMPLE_RAW;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* ue_perf_open_id() on event @sys/@name (@sys NULL: user_events) */
static inline int ue_perf_open(const char *sys, const char *name)
{
	long id;
	int ret = ue_event_id(sys, name, &id);

	return ret ? ret : ue_perf_open_id(id);
}

/* --- format files -------------------------------------------------------- */

struct ue_field {
	char name[64];
	char decl[160];		/* what follows "field:" up to the ';' */
	int offset;
	int size;
	int is_signed;
};

struct ue_format {
	int nr;			/* fields after the common_* ones */
	int nr_common;
	struct ue_field fields[UE_MAX_FIELDS];
	char print_fmt[2048];
};

/*
 * Name of a declaration: its last identifier, after dropping an array
 * suffix ("char s[16]", "__rel_loc char s[]"); in "__data_loc char[] s"
 * the brackets belong to the type.
 */
static inline void ue_decl_name(const char *decl, char *name, size_t size)
{
	const char *end = decl + strlen(decl);
	const char *start;

	while (end > decl && end[-1] == ' ')
		end--;
	if (end > decl && end[-1] == ']') {
		while (end > decl && *end != '[')
			end--;
	}
	while (end > decl && end[-1] == ' ')
		end--;
	start = end;
	while (start > decl && (isalnum((unsigned char)start[-1]) ||
				start[-1] == '_'))
		start--;
	snprintf(name, size, "%.*s", (int)(end - start), start);
}

/*
 * Parse events/@sys/@name/format.  Common fields (common_*) are counted in
 * nr_common and left out of fields[].  0 or -errno.
 */
static inline int ue_format_read(const char *sys, const char *name,
				 struct ue_format *fmt)
{
	char path[UE_PATH_MAX];
	char *buf, *p, *eol, *semi, *q, *c;
	struct ue_field *f;

	memset(fmt, 0, sizeof(*fmt));
	buf = ue_read_file(ue_evpath(path, sys, name, "format"));
	if (!buf)
		return -errno;

	for (p = buf; *p; p = *eol ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		q = strstr(p, "print fmt: ");
		if (q == p) {
			snprintf(fmt->print_fmt, sizeof(fmt->print_fmt),
				 "%.*s", (int)(eol - p - 11), p + 11);
			continue;
		}
		q = strstr(p, "field:");
		if (!q || q > eol)
			continue;
		q += 6;
		semi = strchr(q, ';');
		if (!semi || semi > eol)
			continue;
		c = strstr(q, " common_");
		if (c && c < semi) {
			fmt->nr_common++;
			continue;
		}
		if (fmt->nr == UE_MAX_FIELDS)
			break;
		f = &fmt->fields[fmt->nr++];
		snprintf(f->decl, sizeof(f->decl), "%.*s", (int)(semi - q), q);
		ue_decl_name(f->decl, f->name, sizeof(f->name));
		q = strstr(semi, "offset:");
		f->offset = q && q < eol ? atoi(q + 7) : -1;
		q = strstr(semi, "size:");
		f->size = q && q < eol ? atoi(q + 5) : -1;
		q = strstr(semi, "signed:");
		f->is_signed = q && q < eol ? atoi(q + 7) : -1;
	}
	free(buf);
	return 0;
}

static inline const struct ue_field *ue_field(const struct ue_format *fmt,
					      const char *name)
{
	int i;

	for (i = 0; i < fmt->nr; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return &fmt->fields[i];
	return NULL;
}

/*
 * A record under construction: @data is the payload (what follows the
 * write index), laid out as the format file says; @fixed is the size of the
 * fixed fields, dynamic data is appended after them.
 */
struct ue_rec {
	unsigned char data[4096];
	size_t fixed;
	size_t len;
};

static inline void ue_rec_init(struct ue_rec *r, const struct ue_format *fmt)
{
	int i, end;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < fmt->nr; i++) {
		end = fmt->fields[i].offset + fmt->fields[i].size - UE_HDR_SIZE;
		if (end > (int)r->fixed)
			r->fixed = end;
	}
	r->len = r->fixed;
}

/* Store @size bytes of @val at field @name; 0 or -ENOENT / -EINVAL. */
static inline int ue_rec_set(struct ue_rec *r, const struct ue_format *fmt,
			     const char *name, const void *val, size_t size)
{
	const struct ue_field *f = ue_field(fmt, name);

	if (!f)
		return -ENOENT;
	if ((size_t)f->size < size || f->offset < UE_HDR_SIZE)
		return -EINVAL;
	memcpy(r->data + f->offset - UE_HDR_SIZE, val, size);
	return 0;
}

static inline int ue_rec_set_u64(struct ue_rec *r,
				 const struct ue_format *fmt,
				 const char *name, __u64 v)
{
	const struct ue_field *f = ue_field(fmt, name);
	__u8 b = v;
	__u16 h = v;
	__u32 w = v;

	if (!f)
		return -ENOENT;
	switch (f->size) {
	case 1: return ue_rec_set(r, fmt, name, &b, 1);
	case 2: return ue_rec_set(r, fmt, name, &h, 2);
	case 4: return ue_rec_set(r, fmt, name, &w, 4);
	case 8: return ue_rec_set(r, fmt, name, &v, 8);
	}
	return -EINVAL;
}

/*
 * Append @len bytes of dynamic data and point the __data_loc or __rel_loc
 * field @name at them, computing the offset the way its kind counts it.
 */
static inline int ue_rec_dyn(struct ue_rec *r, const struct ue_format *fmt,
			     const char *name, const void *val, size_t len)
{
	const struct ue_field *f = ue_field(fmt, name);
	__u32 loc, off;

	if (!f || f->size != 4)
		return -ENOENT;
	if (r->len + len > sizeof(r->data))
		return -E2BIG;
	if (!strncmp(f->decl, "__rel_loc", 9))
		off = r->len - (f->offset - UE_HDR_SIZE + 4);
	else if (!strncmp(f->decl, "__data_loc", 10))
		off = r->len + UE_HDR_SIZE;
	else
		return -EINVAL;
	loc = DYN_LOC(off, (__u32)len);
	memcpy(r->data + r->len, val, len);
	r->len += len;
	return ue_rec_set(r, fmt, name, &loc, 4);
}

/* Bytes a write of the record takes: the index and the payload */
static inline ssize_t ue_rec_total(const struct ue_rec *r)
{
	return sizeof(int) + r->len;
}

/* writev() of the record: bytes written or -errno */
static inline ssize_t ue_emit_rec(int fd, int idx, const struct ue_rec *r)
{
	return ue_emit(fd, idx, r->data, r->len);
}

#endif /* _USER_EVENTS_FORMAT_H */
