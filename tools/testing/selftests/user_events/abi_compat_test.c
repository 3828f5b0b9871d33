// SPDX-License-Identifier: GPL-2.0
/*
 * The user_events ABI as only a 32-bit program sees it (the Makefile
 * builds this test with -m32 only).  On a 64-bit kernel its ioctls come
 * in through the compat ioctl, whose command numbers encode a 4-byte
 * pointer; a 4-byte enable word at an address that is 4- but not
 * 8-aligned is one half of a kernel long; and the 64-bit address fields
 * of struct user_reg and struct user_unreg can hold values no 32-bit
 * pointer has, which must not be cut to 32 bits.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/utsname.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"

#define TIMEOUT		300

#define EV_A		UE_PREFIX "ac_a"
#define EV_Q		UE_PREFIX "ac_q"
#define EV_HIGH		UE_PREFIX "ac_high"

/* 4 GiB: added to a 32-bit address, it names memory outside the program */
#define ABOVE_4G	0x100000000ULL

static const char * const events[] = {
	EV_A, EV_Q, EV_HIGH,
};

/*
 * Whether the kernel is 64-bit, as far as a 32-bit program can tell:
 * uname() reports the kernel's machine unless the personality asks for
 * a 32-bit one.  -1 when it cannot tell.
 */
static int kernel_64bit(void)
{
	struct utsname u;
	int pers = personality(0xffffffff);

	if (pers == -1 || (pers & PER_MASK) == PER_LINUX32 || uname(&u))
		return -1;
	return strstr(u.machine, "64") || !strcmp(u.machine, "s390x");
}

/* The fixture data is shared with the process that runs the teardown */
FIXTURE(compat) {
	int fd;
};

FIXTURE_SETUP(compat)
{
	const char *reason = ue_setup();

	self->fd = -1;
	if (sizeof(void *) != 4)
		SKIP(return, "not a 32-bit program");
	if (reason)
		SKIP(return, "%s", reason);
	ue_cleanup_names(events, ARRAY_SIZE(events));
	ASSERT_EQ(0, ue_trace_clear());
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN_PARENT(compat)
{
	if (!ue_setup())
		ue_cleanup_names(events, ARRAY_SIZE(events));
}

/* The first 8-aligned address in @raw, which has room for 6 words after it */
static __u32 *eight_aligned(__u32 *raw)
{
	return (__u32 *)(((uintptr_t)raw + 7) & ~(uintptr_t)7);
}

static void fill_reg(struct user_reg *reg, const char *cmd, __u64 addr,
		     int size, int bit)
{
	memset(reg, 0, sizeof(*reg));
	reg->size = sizeof(*reg);
	reg->enable_bit = bit;
	reg->enable_size = size;
	reg->enable_addr = addr;
	reg->name_args = (__u64)(uintptr_t)cmd;
}

TEST(uapi_layout_32)
{
	if (sizeof(void *) != 4)
		SKIP(return, "not a 32-bit program");

	/*
	 * The structs are packed: a 32-bit program, whose __u64 members
	 * are only 4-aligned, lays them out as a 64-bit one does.
	 */
	EXPECT_EQ(28, sizeof(struct user_reg));
	EXPECT_EQ(4, offsetof(struct user_reg, enable_bit));
	EXPECT_EQ(5, offsetof(struct user_reg, enable_size));
	EXPECT_EQ(6, offsetof(struct user_reg, flags));
	EXPECT_EQ(8, offsetof(struct user_reg, enable_addr));
	EXPECT_EQ(16, offsetof(struct user_reg, name_args));
	EXPECT_EQ(24, offsetof(struct user_reg, write_index));
	EXPECT_EQ(16, sizeof(struct user_unreg));
	EXPECT_EQ(4, offsetof(struct user_unreg, disable_bit));
	EXPECT_EQ(8, offsetof(struct user_unreg, disable_addr));

	/* The ioctl numbers encode a pointer's size: 4 here, 8 in 64-bit */
	EXPECT_EQ(0xc0042a00, DIAG_IOCSREG);
	EXPECT_EQ(0x40042a01, DIAG_IOCSDEL);
	EXPECT_EQ(0x40042a02, DIAG_IOCSUNREG);
}

TEST_F_TIMEOUT(compat, unknown_ioctl, TIMEOUT)
{
	char name[] = EV_A;

	EXPECT_EQ(-1, ioctl(self->fd, _IOW(DIAG_IOC_MAGIC, 3, char *), name));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOW('x', 1, char *), name));
	EXPECT_EQ(ENOTTY, errno);
}

/*
 * REG, UNREG and DEL through the compat ioctl, on a 4-byte word whose
 * address is 4- but not 8-aligned: each bit lands in that word, and the
 * words on either side never change.
 */
TEST_F_TIMEOUT(compat, word_4_not_8_aligned, TIMEOUT)
{
	static __u32 raw[8];
	__u32 *area = eight_aligned(raw);
	__u32 *word = &area[3];
	__u32 payload = 42;
	char *trace = NULL;
	int idx = -1, idx2 = -2;

	ASSERT_EQ(4, (uintptr_t)word % 8);
	memset(area, 0x5a, 6 * sizeof(*area));
	*word = 0;

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", word, 5, &idx));
	EXPECT_EQ(0, *word);
	ASSERT_EQ(0, ue_enable(EV_A, true));
	EXPECT_EQ(1U << 5, *word);

	/* Registered while enabled: set at once */
	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", word, 31, &idx2));
	EXPECT_EQ(idx, idx2);
	EXPECT_EQ(1U << 5 | 1U << 31, *word);

	/* The record of a write() from a 32-bit program */
	EXPECT_EQ(8, ue_emit(self->fd, idx, &payload, sizeof(payload)));
	EXPECT_EQ(1, ue_trace_count(ue_trace_read(&trace), EV_A));
	EXPECT_NE(NULL, strstr(trace, " a=42"));
	free(trace);

	ASSERT_EQ(0, ue_enable(EV_A, false));
	EXPECT_EQ(0, *word);
	ASSERT_EQ(0, ue_enable(EV_A, true));
	EXPECT_EQ(1U << 5 | 1U << 31, *word);

	/* UNREG clears its bit only */
	EXPECT_EQ(0, ue_unreg(self->fd, word, 5));
	EXPECT_EQ(1U << 31, *word);
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, word, 5));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &area[2], 31));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &area[4], 31));
	EXPECT_EQ(0, ue_unreg(self->fd, word, 31));
	EXPECT_EQ(0, *word);
	ASSERT_EQ(0, ue_enable(EV_A, false));

	/* DEL: busy while the file holds the index, gone after */
	EXPECT_EQ(-EBUSY, ue_del_fd(self->fd, EV_A));
	close(self->fd);
	self->fd = -1;
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
	EXPECT_EQ(-ENOENT, ue_del(EV_A));

	/* The memory around the word */
	*word = 0x5a5a5a5a;
	for (idx = 0; idx < 6; idx++)
		EXPECT_EQ(0x5a5a5a5a, area[idx]) TH_LOG("word %d", idx);
}

/*
 * An 8-byte word from a 32-bit program: a 64-bit kernel takes it when it
 * is 8-aligned (which a 32-bit program's __u64 need not be), a 32-bit
 * kernel never.
 */
TEST_F_TIMEOUT(compat, enable_size_8, TIMEOUT)
{
	static __u32 raw[8];
	__u64 *q = (__u64 *)eight_aligned(raw);
	int is64 = kernel_64bit();
	struct user_reg reg;

	if (is64 < 0)
		SKIP(return, "cannot tell the kernel's word size");

	q[0] = 0x5a5a5a5a5a5a5a5aULL;
	q[2] = q[0];
	q[1] = 0;
	fill_reg(&reg, EV_Q " u32 a", (uintptr_t)&q[1] + 4, 8, 0);
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg));

	fill_reg(&reg, EV_Q " u32 a", (uintptr_t)&q[1], 8, 40);
	if (!is64) {
		EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg));
		return;
	}
	ASSERT_EQ(0, ue_reg_raw(self->fd, &reg));
	EXPECT_EQ(0, q[1]);
	ASSERT_EQ(0, ue_enable(EV_Q, true));
	EXPECT_EQ(1ULL << 40, q[1]);
	EXPECT_EQ(0, ue_unreg(self->fd, &q[1], 40));
	EXPECT_EQ(0, q[1]);
	ASSERT_EQ(0, ue_enable(EV_Q, false));
	EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, q[0]);
	EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, q[2]);
}

/*
 * enable_addr, name_args and disable_addr above 4 GiB: the kernel takes
 * all 64 bits, so each names memory a 32-bit program does not have
 * (EFAULT, ENOENT), never the program's own memory at the low 32 bits.
 */
TEST_F_TIMEOUT(compat, addresses_above_4g, TIMEOUT)
{
	static __u32 word;
	const char *cmd = EV_HIGH " u32 a";
	__u64 addr = (uintptr_t)&word;
	struct user_reg reg;
	struct user_unreg unreg;

	word = 0;

	/* enable_addr: the word plus 4 GiB, and sign-extended */
	fill_reg(&reg, cmd, addr + ABOVE_4G, 4, 1);
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg));
	fill_reg(&reg, cmd, addr | 0xffffffff00000000ULL, 4, 1);
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg));
	EXPECT_EQ(0, word);
	EXPECT_FALSE(ue_event_exists(NULL, EV_HIGH));

	/* name_args: the command plus 4 GiB */
	fill_reg(&reg, cmd, addr, 4, 1);
	reg.name_args += ABOVE_4G;
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg));
	EXPECT_FALSE(ue_event_exists(NULL, EV_HIGH));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &word, 1));

	/* disable_addr: not the registration at its low 32 bits */
	fill_reg(&reg, cmd, addr, 4, 1);
	ASSERT_EQ(0, ue_reg_raw(self->fd, &reg));
	ASSERT_EQ(0, ue_enable(EV_HIGH, true));
	EXPECT_EQ(2, word);
	memset(&unreg, 0, sizeof(unreg));
	unreg.size = sizeof(unreg);
	unreg.disable_bit = 1;
	unreg.disable_addr = addr + ABOVE_4G;
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSUNREG, &unreg));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(2, word);
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 1));
	EXPECT_EQ(0, word);
	ASSERT_EQ(0, ue_enable(EV_HIGH, false));
}

TEST_HARNESS_MAIN
