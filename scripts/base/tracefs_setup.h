/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal tracefs discovery for selftests that need /sys/kernel/tracing.
 * Mounts tracefs there when it is not mounted yet and tells the caller
 * whether it has to unmount it again.
 */
#ifndef _SELFTESTS_TRACEFS_SETUP_H
#define _SELFTESTS_TRACEFS_SETUP_H

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define TRACEFS_SETUP_ROOT "/sys/kernel/tracing"

static inline bool tracefs_enabled(char **message, bool *fail, bool *umount)
{
	struct stat st;

	*message = "";
	*fail = false;
	*umount = false;

	if (stat(TRACEFS_SETUP_ROOT "/trace", &st) == 0)
		return true;

	if (stat(TRACEFS_SETUP_ROOT, &st) != 0) {
		*message = "tracefs mount point missing";
		return false;
	}

	if (mount("nodev", TRACEFS_SETUP_ROOT, "tracefs", 0, NULL) != 0) {
		*message = strerror(errno);
		*fail = true;
		return false;
	}

	*umount = true;
	return true;
}

static inline void tracefs_unmount(void)
{
	umount(TRACEFS_SETUP_ROOT);
}

#endif /* _SELFTESTS_TRACEFS_SETUP_H */
