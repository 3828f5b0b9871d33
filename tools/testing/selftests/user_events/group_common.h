/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the group tests share: the two instances they make (each with a
 * group), the event name they use in them, and the files of an instance.
 */
#ifndef _USER_EVENTS_GROUP_COMMON_H
#define _USER_EVENTS_GROUP_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "user_events_selftests.h"

#define GA		"selftest_ga"
#define GB		"selftest_gb"
#define SYS_A		"user_events_" GA
#define SYS_B		"user_events_" GB

#define EV		UE_PREFIX "gr"

/* Instance @name's file @file */
static inline const char *gpath(char *buf, const char *name, const char *file)
{
	return ue_path(buf, "instances/%s%s%s", name, file ? "/" : "",
		       file ? file : "");
}

static inline int gopen(const char *name, const char *file, int flags)
{
	char path[UE_PATH_MAX];
	int fd = open(gpath(path, name, file), flags);

	return fd < 0 ? -errno : fd;
}

static inline int grmdir(const char *name)
{
	char path[UE_PATH_MAX];

	return rmdir(gpath(path, name, NULL)) ? -errno : 0;
}

static inline int gmkdir(const char *name)
{
	char path[UE_PATH_MAX];

	return mkdir(gpath(path, name, NULL), 0755) ? -errno : 0;
}

/* The status text of group @name (NULL: the global one) */
static inline char *gstatus(const char *name)
{
	char path[UE_PATH_MAX];

	if (!name)
		return ue_read_tracefs("user_events_status");
	return ue_read_file(gpath(path, name, "user_events_status"));
}

static inline bool listed(const char *status, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = status; p && *p; p = strchrnul(p, '\n'), p += !!*p)
		if (!strncmp(p, name, len) &&
		    (p[len] == '\n' || p[len] == ' '))
			return true;
	return false;
}

#endif /* _USER_EVENTS_GROUP_COMMON_H */
