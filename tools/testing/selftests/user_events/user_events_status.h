/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel says about user events besides their records, for the
 * user_events selftests: the lines and counts of user_events_status, the
 * entries of error_log, the tracepoints of a multi-format event; and
 * dropping the capabilities that PERSIST, deleting a persistent event and
 * dynamic_events need.
 */
#ifndef _USER_EVENTS_STATUS_H
#define _USER_EVENTS_STATUS_H

#include <dirent.h>
#include <regex.h>
#include <linux/capability.h>

#include "user_events_selftests.h"

/* --- user_events_status ------------------------------------------------ */

/*
 * Copy the status line of event @name (the name and its comment, if
 * any) into @line.  Returns 0, or -ENOENT when the event is not listed.
 */
static inline int ue_status_line(const char *name, char *line, size_t size)
{
	char *buf = ue_read_tracefs("user_events_status");
	size_t nlen = strlen(name);
	char *p, *eol;
	int ret = -ENOENT;

	if (!buf)
		return -errno;
	for (p = buf; *p; p = eol + 1) {
		eol = strchrnul(p, '\n');
		if (!strncmp(p, name, nlen) &&
		    (p[nlen] == '\n' || p[nlen] == ' ' || p[nlen] == '\0')) {
			snprintf(line, size, "%.*s", (int)(eol - p), p);
			ret = 0;
			break;
		}
		if (!*eol)
			break;
	}
	free(buf);
	return ret;
}

/* Read Active: and Busy: of user_events_status. */
static inline int ue_status_counts(long *active, long *busy)
{
	char *buf = ue_read_tracefs("user_events_status");
	char *a, *b;
	int ret = -EINVAL;

	if (!buf)
		return -errno;
	a = strstr(buf, "\nActive: ");
	b = strstr(buf, "\nBusy: ");
	if (!a && !strncmp(buf, "Active: ", 8))
		a = buf - 1;
	if (a && b) {
		*active = strtol(a + 9, NULL, 10);
		*busy = strtol(b + 7, NULL, 10);
		ret = 0;
	}
	free(buf);
	return ret;
}

/* --- error_log -------------------------------------------------------- */

static inline int ue_errlog_clear(void)
{
	char path[UE_PATH_MAX];

	return ue_write_str(ue_path(path, "error_log"), "\n");
}

/*
 * Find the last error_log entry whose command contains @cmd_part and
 * return in @pos the caret's position within that command (-1 if none).
 * The command text is copied to @cmd.  0 or -ENOENT.
 */
static inline int ue_errlog_find(const char *cmd_part, char *cmd, size_t size,
				 int *pos)
{
	static const char prefix[] = "  Command: ";
	char *buf = ue_read_tracefs("error_log");
	char *p, *eol, *caret, *ceol;
	int ret = -ENOENT;

	*pos = -1;
	if (!buf)
		return -errno;
	for (p = buf; *p; p = *eol ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		if (strncmp(p, prefix, sizeof(prefix) - 1))
			continue;
		if (!memmem(p, eol - p, cmd_part, strlen(cmd_part)))
			continue;
		snprintf(cmd, size, "%.*s", (int)(eol - p - sizeof(prefix) + 1),
			 p + sizeof(prefix) - 1);
		ret = 0;
		*pos = -1;
		if (!*eol)
			break;
		ceol = strchrnul(eol + 1, '\n');
		caret = memchr(eol + 1, '^', ceol - eol - 1);
		if (caret)
			*pos = caret - (eol + 1) - (int)(sizeof(prefix) - 1);
	}
	free(buf);
	return ret;
}

/*
 * The message of the last entry of the error_log at @log (relative to
 * tracefs) whose command is exactly @cmd, without its timestamp
 * ("user_events: error: ..."), and in @pos (unless NULL) where its caret
 * is in the command (-1: none); 0 or -ENOENT.
 */
static inline int ue_errlog_msg_in(const char *log, const char *cmd,
				   char *msg, size_t size, int *pos)
{
	static const char prefix[] = "  Command: ";
	char *buf = ue_read_tracefs(log);
	char *p, *eol, *prev = NULL, *ts, *caret;
	size_t plen = sizeof(prefix) - 1;
	int ret = -ENOENT;

	if (!buf)
		return -errno;
	for (p = buf; *p; p = *eol ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		if (prev && !strncmp(p, prefix, plen) &&
		    (size_t)(eol - p) == plen + strlen(cmd) &&
		    !strncmp(p + plen, cmd, strlen(cmd))) {
			ts = strstr(prev, "] ");
			if (ts && ts < p) {
				snprintf(msg, size, "%.*s",
					 (int)(p - 1 - ts - 2), ts + 2);
				ret = 0;
			}
			caret = *eol ? strchr(eol + 1, '^') : NULL;
			if (pos)
				*pos = caret && caret < strchrnul(eol + 1, '\n') ?
				       (int)(caret - eol - 1 - plen) : -1;
		}
		prev = p;
	}
	free(buf);
	return ret;
}

/* The same in the top-level error_log */
static inline int ue_errlog_msg(const char *cmd, char *msg, size_t size)
{
	return ue_errlog_msg_in("error_log", cmd, msg, size, NULL);
}

/* --- capabilities ---------------------------------------------------------- */

/* Drop the capabilities in @caps (CAP_* numbers) from this process */
static inline int ue_drop_caps(const int *caps, int n)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int i;

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	for (i = 0; i < n; i++) {
		__u32 mask = 1U << (caps[i] % 32);

		data[caps[i] / 32].effective &= ~mask;
		data[caps[i] / 32].permitted &= ~mask;
		data[caps[i] / 32].inheritable &= ~mask;
	}
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

/*
 * Drop CAP_PERFMON and CAP_SYS_ADMIN (which also grants what CAP_PERFMON
 * does) from this process, with the raw capset syscall: libcap need not be
 * installed.  The uid stays 0, so file permissions are unchanged.
 */
static inline int ue_drop_perfmon(void)
{
	static const int caps[] = { CAP_PERFMON, CAP_SYS_ADMIN };

	return ue_drop_caps(caps, 2);
}

/*
 * Names of the multi-format tracepoints of @name: the entries of
 * events/user_events_multi/ that match ^NAME\.[0-9a-fA-F]+$, the regex the
 * ABI document gives consumers.  Up to @max are copied; returns how many
 * there are, or -1.
 */
static inline int ue_multi_ids(const char *name, char ids[][64], int max)
{
	char path[UE_PATH_MAX], pattern[256], esc[128];
	struct dirent *de;
	regex_t re;
	DIR *dir;
	int n = 0, i, j;

	/* Event names have no regex metacharacters but '.' */
	for (i = 0, j = 0; name[i] && j < (int)sizeof(esc) - 2; i++) {
		if (name[i] == '.')
			esc[j++] = '\\';
		esc[j++] = name[i];
	}
	esc[j] = '\0';
	snprintf(pattern, sizeof(pattern), "^%s\\.[0-9a-fA-F]+$", esc);
	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return -1;
	dir = opendir(ue_path(path, "events/%s", USER_EVENTS_MULTI_SYSTEM));
	while (dir && (de = readdir(dir))) {
		if (regexec(&re, de->d_name, 0, NULL, 0))
			continue;
		if (n < max)
			snprintf(ids[n], 64, "%.63s", de->d_name);
		n++;
	}
	if (dir)
		closedir(dir);
	regfree(&re);
	return n;
}
#endif /* _USER_EVENTS_STATUS_H */
