/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture of the registration and write tests (abi_test.c,
 * abi_write_test.c): each test process starts with a cleared trace and a
 * user_events_data descriptor, and the events the test file names in its
 * events[] are deleted before the test and after it.  The including file
 * defines events[], the names of the events its tests make, before it
 * includes this header; page_size is the system's, set by the setup.
 */
#ifndef _USER_EVENTS_ABI_FIXTURE_H
#define _USER_EVENTS_ABI_FIXTURE_H

#include <unistd.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"

static long page_size;

/*
 * The fixture data is shared with the process that runs the teardown:
 * @fd and @trace belong to the test process, and go with it.
 */
FIXTURE(abi) {
	int fd;
	char *trace;
};

FIXTURE_SETUP(abi)
{
	const char *reason = ue_setup();

	self->fd = -1;
	self->trace = NULL;
	page_size = sysconf(_SC_PAGESIZE);
	if (reason)
		SKIP(return, "%s", reason);
	ue_cleanup_names(events, ARRAY_SIZE(events));
	ASSERT_EQ(0, ue_trace_clear());
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
}

/*
 * After the test process exited: its registrations went with its memory
 * and its files were released, so every event it made can be deleted.
 */
FIXTURE_TEARDOWN_PARENT(abi)
{
	if (!ue_setup())
		ue_cleanup_names(events, ARRAY_SIZE(events));
}

#endif /* _USER_EVENTS_ABI_FIXTURE_H */
