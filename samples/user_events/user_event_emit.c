// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_event_emit: register a user event from the command line and write
 * records of it, so that shell scripts can emit user events.
 *
 *	user_event_emit 'myev u32 n; char[16] s' 7 hello
 *
 * registers "myev" with the fields u32 n and char[16] s, and writes one
 * record with n = 7 and s = "hello".  One value per field, in order:
 *
 *	s8 .. u64, char, short, int and their unsigned forms: a number
 *		(decimal, 0x hex or 0 octal); a char also takes one character
 *	char[N]: a string of at most N bytes, padded with NULs
 *	__data_loc char[], __rel_loc char[]: a string of any length
 *	unsigned char[N], struct T name SIZE, __data_loc/__rel_loc of other
 *		types: bytes in hex ("0a0b0c" or "0x0a0b0c"); fixed-size fields
 *		are padded with zero bytes
 *
 * Options:
 *	-w MS	wait up to MS milliseconds for a tool to enable the event and
 *		fail (exit 3) if none does; without -w the record is written
 *		at once and fails (exit 2) if nothing listens
 *	-n N	write N records (default 1)
 *	-i MS	wait MS milliseconds between records
 *	-p	register with USER_EVENT_REG_PERSIST
 *	-m	register with USER_EVENT_REG_MULTI_FORMAT
 *	-v	say what was written
 *	-d	do not register or write: print the payload in hex
 *
 *	user_event_emit --wait NAME [-w MS] [STATUS_FILE]
 *
 * registers nothing: waits until user_events_status (or another status
 * file, STATUS_FILE) lists the event NAME (up to
 * MS milliseconds with -w), polling the status file for EPOLLPRI, as a
 * consumer that starts before the producer does.
 *
 * Exit status: 0 written, 1 bad arguments, 2 the kernel refused (the errno
 * is printed), 3 nothing enabled the event within -w (--wait: the event
 * did not appear within -w).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/user_events.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define MAX_FIELDS	64
#define MAX_RECORD	65535	/* __data_loc offsets and sizes are 16 bits */
#define HDR_SIZE	8	/* common fields before the first field */

enum kind { K_INT, K_STR, K_BYTES, K_DATA_LOC, K_REL_LOC };

struct field {
	char name[64];
	enum kind kind;
	bool is_signed;
	bool is_char;		/* element type is char: values are strings */
	unsigned int size;	/* bytes in the fixed part of the record */
	unsigned int offset;	/* in the payload (after the write index) */
};

static const struct {
	const char *name;
	unsigned int size;
	bool is_signed;
} int_types[] = {
	{ "s8", 1, true }, { "u8", 1, false },
	{ "char", 1, true }, { "unsigned char", 1, false },
	{ "s16", 2, true }, { "u16", 2, false },
	{ "short", 2, true }, { "unsigned short", 2, false },
	{ "s32", 4, true }, { "u32", 4, false },
	{ "int", 4, true }, { "unsigned int", 4, false },
	{ "s64", 8, true }, { "u64", 8, false },
};

static const char *prog = "user_event_emit";
static __u32 enabled;

static void print_usage(void)
{
	fprintf(stderr,
		"usage: %s [-w MS] [-n N] [-i MS] [-p] [-m] [-v] [-d] 'NAME [FIELD[; FIELD...]]' [VALUE...]\n"
		"       %s --wait NAME [-w MS] [STATUS_FILE]\n"
		"  e.g. %s 'myev u32 n; char[16] s' 7 hello\n",
		prog, prog, prog);
	exit(1);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static int find_int_type(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(int_types); i++)
		if (!strcmp(int_types[i].name, name))
			return i;
	return -1;
}

/*
 * Parse one field, "type name" or "struct type name size", into @f.  The
 * kernel checks the command again; this only needs to know how to encode.
 */
static void parse_field(char *text, struct field *f)
{
	char *tok[8], *p, *bracket, type[128];
	unsigned long n;
	int nt = 0, t, i;

	for (p = strtok(text, " \t"); p && nt < 8; p = strtok(NULL, " \t"))
		tok[nt++] = p;
	if (nt < 2)
		die("field \"%s\": want \"type name\"", text);

	memset(f, 0, sizeof(*f));

	if (!strcmp(tok[0], "struct")) {
		if (nt != 4)
			die("field \"struct %s\": want \"struct type name size\"",
			    tok[1]);
		snprintf(f->name, sizeof(f->name), "%s", tok[2]);
		n = strtoul(tok[3], &p, 0);
		if (*p || !n)
			die("field %s: bad size \"%s\"", f->name, tok[3]);
		f->kind = K_BYTES;
		f->size = n;
		return;
	}

	/* The type is every token but the last: "unsigned char[4] name" */
	snprintf(f->name, sizeof(f->name), "%s", tok[nt - 1]);
	type[0] = '\0';
	for (i = 0; i < nt - 1; i++) {
		if (i)
			strncat(type, " ", sizeof(type) - strlen(type) - 1);
		strncat(type, tok[i], sizeof(type) - strlen(type) - 1);
	}

	if (!strncmp(type, "__data_loc ", 11) ||
	    !strncmp(type, "__rel_loc ", 10)) {
		f->kind = type[2] == 'd' ? K_DATA_LOC : K_REL_LOC;
		p = strchr(type, ' ') + 1;
		f->is_char = !strcmp(p, "char[]");
		f->size = 4;
		return;
	}

	bracket = strchr(type, '[');
	if (bracket) {
		*bracket = '\0';
		n = strtoul(bracket + 1, &p, 0);
		if (*p != ']' || p[1] || !n)
			die("field %s: bad array size in \"%s\"", f->name,
			    bracket + 1);
		t = find_int_type(type);
		if (t < 0)
			die("field %s: unknown type \"%s\"", f->name, type);
		f->is_char = !strcmp(type, "char");
		f->kind = f->is_char ? K_STR : K_BYTES;
		f->size = n * int_types[t].size;
		return;
	}

	t = find_int_type(type);
	if (t < 0)
		die("field %s: unknown type \"%s\"", f->name, type);
	f->kind = K_INT;
	f->size = int_types[t].size;
	f->is_signed = int_types[t].is_signed;
	f->is_char = !strcmp(type, "char") || !strcmp(type, "unsigned char");
}

/* Split "name[:flags] fields" into the name and the fields. */
static int parse_command(const char *cmd, char *name, size_t name_size,
			 struct field *fields)
{
	char *copy = strdup(cmd), *p, *rest, *next;
	int nr = 0;

	if (!copy)
		die("out of memory");
	p = trim(copy);
	rest = p + strcspn(p, " \t");
	if (*rest)
		*rest++ = '\0';
	if (!*p)
		die("no event name in \"%s\"", cmd);
	snprintf(name, name_size, "%.*s", (int)strcspn(p, ":"), p);

	rest = trim(rest);
	while (*rest) {
		next = strchr(rest, ';');
		if (next)
			*next++ = '\0';
		if (nr == MAX_FIELDS)
			die("more than %d fields", MAX_FIELDS);
		rest = trim(rest);
		if (!*rest)
			die("empty field in \"%s\"", cmd);
		parse_field(rest, &fields[nr++]);
		rest = next ? next : rest + strlen(rest);
	}
	free(copy);
	return nr;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode hex @s into @out (at most @max bytes); the number of bytes. */
static size_t decode_hex(const struct field *f, const char *s,
			 unsigned char *out, size_t max)
{
	size_t len, i;
	int hi, lo;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	len = strlen(s);
	if (len % 2)
		die("field %s: odd number of hex digits in \"%s\"", f->name, s);
	if (len / 2 > max)
		die("field %s: %zu bytes given, at most %zu fit", f->name,
		    len / 2, max);
	for (i = 0; i < len / 2; i++) {
		hi = hexval(s[2 * i]);
		lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			die("field %s: \"%s\" is not hex", f->name, s);
		out[i] = hi << 4 | lo;
	}
	return len / 2;
}

static void store16(unsigned char *out, __u16 v)
{
	memcpy(out, &v, sizeof(v));
}

static void store32(unsigned char *out, __u32 v)
{
	memcpy(out, &v, sizeof(v));
}

static void encode_int(const struct field *f, const char *s, unsigned char *out)
{
	unsigned int bits = f->size * 8;
	unsigned long long u;
	long long v;
	char *end;

	errno = 0;
	if (f->is_char && s[0] && !s[1] && !isdigit((unsigned char)s[0])) {
		u = (unsigned char)s[0];	/* one character */
	} else if (f->is_signed) {
		v = strtoll(s, &end, 0);
		if (errno || *end || end == s)
			die("field %s: \"%s\" is not a number", f->name, s);
		if (bits < 64 && (v < -(1LL << (bits - 1)) ||
				  v >= (1LL << (bits - 1))))
			die("field %s: %s does not fit in %u bits", f->name,
			    s, bits);
		u = v;
	} else {
		if (s[0] == '-')
			die("field %s: %s is negative", f->name, s);
		u = strtoull(s, &end, 0);
		if (errno || *end || end == s)
			die("field %s: \"%s\" is not a number", f->name, s);
		if (bits < 64 && u >> bits)
			die("field %s: %s does not fit in %u bits", f->name,
			    s, bits);
	}

	switch (f->size) {
	case 1:
		*out = u;
		break;
	case 2:
		store16(out, u);
		break;
	case 4:
		store32(out, u);
		break;
	default:
		memcpy(out, &u, 8);
		break;
	}
}

/* Lay out the payload: fixed fields, then the dynamic data. */
static size_t encode(struct field *fields, int nr, char **values,
		     unsigned char *rec)
{
	size_t fixed = 0, len, n;
	__u32 loc, off;
	int i;

	for (i = 0; i < nr; i++) {
		fields[i].offset = fixed;
		fixed += fields[i].size;
	}
	if (fixed > MAX_RECORD)
		die("the fields take %zu bytes, more than %d", fixed,
		    MAX_RECORD);
	memset(rec, 0, fixed);
	len = fixed;

	for (i = 0; i < nr; i++) {
		struct field *f = &fields[i];
		unsigned char *p = rec + f->offset;

		switch (f->kind) {
		case K_INT:
			encode_int(f, values[i], p);
			break;
		case K_STR:
			n = strlen(values[i]);
			if (n > f->size)
				die("field %s: \"%s\" is longer than %u bytes",
				    f->name, values[i], f->size);
			memcpy(p, values[i], n);
			break;
		case K_BYTES:
			decode_hex(f, values[i], p, f->size);
			break;
		case K_DATA_LOC:
		case K_REL_LOC:
			if (f->is_char) {
				n = strlen(values[i]) + 1;
				if (len + n > MAX_RECORD)
					die("record too long at field %s",
					    f->name);
				memcpy(rec + len, values[i], n);
			} else {
				n = decode_hex(f, values[i], rec + len,
					       MAX_RECORD - len);
			}
			/*
			 * __data_loc: offset from the start of the record,
			 * common fields included; __rel_loc: from the end of
			 * the loc word itself.
			 */
			if (f->kind == K_DATA_LOC)
				off = HDR_SIZE + len;
			else
				off = len - (f->offset + 4);
			if (off > 0xffff || n > 0xffff)
				die("record too long at field %s", f->name);
			loc = DYN_LOC(off, (__u32)n);
			memcpy(p, &loc, sizeof(loc));
			len += n;
			break;
		}
	}
	return len;
}

static const char *tracefs_file(const char *name)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	static char path[256];
	struct stat st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (!stat(path, &st))
			return path;
	}
	return NULL;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static long parse_ms(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*end || end == s || v < 0)
		die("%s: \"%s\" is not a count", what, s);
	return v;
}

/* Whether the status text @buf lists event @name */
static bool status_lists(const char *buf, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = buf; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "") {
		if (!strncmp(p, name, len) &&
		    (p[len] == '\n' || p[len] == ' '))
			return true;
	}
	return false;
}

/*
 * --wait NAME: read user_events_status from offset 0; while it does not
 * list NAME, wait for EPOLLPRI (an event was created or deleted) and read
 * it again.  0 once listed, 3 at the deadline, 2 on an error.
 */
static int wait_for_event(const char *name, long wait_ms, const char *path)
{
	static char buf[1 << 16];
	long long end = now_ms() + wait_ms;
	struct pollfd pfd;
	ssize_t n, len;
	int fd, timeout;

	if (!path)
		path = tracefs_file("user_events_status");
	if (!path) {
		fprintf(stderr, "%s: no user_events_status\n", prog);
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 2;
	}
	for (;;) {
		len = 0;
		if (lseek(fd, 0, SEEK_SET) < 0)
			break;
		while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += n;
		if (n < 0)
			break;
		buf[len] = '\0';
		if (status_lists(buf, name)) {
			close(fd);
			return 0;
		}

		timeout = -1;
		if (wait_ms >= 0) {
			if (now_ms() >= end)
				break;
			timeout = end - now_ms();
		}
		pfd.fd = fd;
		pfd.events = POLLPRI;
		if (poll(&pfd, 1, timeout) < 0)
			break;
	}
	close(fd);
	if (wait_ms >= 0 && now_ms() >= end) {
		fprintf(stderr, "%s: no event %s within %ld ms\n", prog, name,
			wait_ms);
		return 3;
	}
	fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
	return 2;
}

int main(int argc, char **argv)
{
	static unsigned char rec[MAX_RECORD + 1];
	struct field fields[MAX_FIELDS];
	long wait_ms = -1, interval_ms = 0, count = 1, i;
	bool verbose = false, dry_run = false;
	struct user_unreg unreg;
	struct user_reg reg;
	struct iovec io[2];
	char name[256];
	const char *path;
	__u16 flags = 0;
	int opt, nr, fd, ret = 0;
	size_t len;

	const char *wait_name = NULL;

	if (argc > 2 && !strcmp(argv[1], "--wait")) {
		wait_name = argv[2];
		argv += 2;
		argc -= 2;
	}
	while ((opt = getopt(argc, argv, "+w:n:i:pmvdh")) != -1) {
		switch (opt) {
		case 'w':
			wait_ms = parse_ms(optarg, "-w");
			break;
		case 'n':
			count = parse_ms(optarg, "-n");
			break;
		case 'i':
			interval_ms = parse_ms(optarg, "-i");
			break;
		case 'p':
			flags |= USER_EVENT_REG_PERSIST;
			break;
		case 'm':
			flags |= USER_EVENT_REG_MULTI_FORMAT;
			break;
		case 'v':
			verbose = true;
			break;
		case 'd':
			dry_run = true;
			break;
		default:
			print_usage();
		}
	}
	if (wait_name) {
		if (argc - optind > 1)
			print_usage();
		return wait_for_event(wait_name, wait_ms,
				      optind < argc ? argv[optind] : NULL);
	}
	if (optind >= argc)
		print_usage();

	nr = parse_command(argv[optind], name, sizeof(name), fields);
	if (argc - optind - 1 != nr)
		die("%d value(s) given for %d field(s) of %s", argc - optind - 1,
		    nr, name);
	len = encode(fields, nr, argv + optind + 1, rec);
	if (dry_run) {
		for (i = 0; i < (long)len; i++)
			printf("%02x", rec[i]);
		printf("\n");
		return 0;
	}

	path = tracefs_file("user_events_data");
	if (!path) {
		fprintf(stderr, "%s: no user_events_data: %s\n", prog,
			"is tracefs mounted and CONFIG_USER_EVENTS set?");
		return 2;
	}
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 2;
	}

	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.enable_bit = 0;
	reg.enable_size = sizeof(enabled);
	reg.flags = flags;
	reg.enable_addr = (__u64)(uintptr_t)&enabled;
	reg.name_args = (__u64)(uintptr_t)argv[optind];
	if (ioctl(fd, DIAG_IOCSREG, &reg) == -1) {
		fprintf(stderr, "%s: registering \"%s\": %s%s\n", prog,
			argv[optind], strerror(errno),
			errno == EADDRINUSE ?
			" (the event exists with other fields)" :
			errno == EINVAL ? " (see tracefs error_log)" : "");
		return 2;
	}

	if (wait_ms >= 0) {
		long long end = now_ms() + wait_ms;

		while (!__atomic_load_n(&enabled, __ATOMIC_RELAXED) &&
		       now_ms() < end)
			sleep_ms(1);
		if (!__atomic_load_n(&enabled, __ATOMIC_RELAXED)) {
			fprintf(stderr, "%s: nothing enabled %s within %ld ms\n",
				prog, name, wait_ms);
			ret = 3;
			goto out;
		}
	}

	io[0].iov_base = &reg.write_index;
	io[0].iov_len = sizeof(reg.write_index);
	io[1].iov_base = rec;
	io[1].iov_len = len;
	for (i = 0; i < count; i++) {
		if (i && interval_ms)
			sleep_ms(interval_ms);
		if (writev(fd, io, 2) < 0) {
			fprintf(stderr, "%s: writing %s: %s%s\n", prog, name,
				strerror(errno), errno == EBADF ?
				" (nothing is listening: enable the event, or use -w)" :
				"");
			ret = 2;
			goto out;
		}
	}
	if (verbose)
		printf("%s: %ld record(s) of %zu bytes\n", name, count, len);
out:
	memset(&unreg, 0, sizeof(unreg));
	unreg.size = sizeof(unreg);
	unreg.disable_bit = 0;
	unreg.disable_addr = (__u64)(uintptr_t)&enabled;
	ioctl(fd, DIAG_IOCSUNREG, &unreg);
	close(fd);
	return ret;
}
