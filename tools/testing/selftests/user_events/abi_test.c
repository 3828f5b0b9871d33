// SPDX-License-Identifier: GPL-2.0
/*
 * The registration ABI of user_events as programs see it: the UAPI
 * layout, every errno of DIAG_IOCSREG (the struct size, flags, enable
 * size, alignment and bit, enable addresses that cannot be written, an
 * address and bit registered twice, the command string), write indexes
 * per file, DIAG_IOCSUNREG and DIAG_IOCSDEL.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"

#define TIMEOUT		300

#define EV_A		UE_PREFIX "ab_a"
#define EV_B		UE_PREFIX "ab_b"
#define EV_LONG		UE_PREFIX "ab_long"
#define EV_PERSIST	UE_PREFIX "ab_persist"

static const char * const events[] = {
	EV_A, EV_B, EV_LONG, EV_PERSIST,
};

#include "abi_fixture.h"

/* A struct user_reg that registers @cmd at @addr/@size/@bit */
static void fill_reg(struct user_reg *reg, const char *cmd, void *addr,
		     int size, int bit)
{
	memset(reg, 0, sizeof(*reg));
	reg->size = sizeof(*reg);
	reg->enable_bit = bit;
	reg->enable_size = size;
	reg->enable_addr = (__u64)(uintptr_t)addr;
	reg->name_args = (__u64)(uintptr_t)cmd;
}

TEST(uapi_layout)
{
	/* Programs built against the existing header must work unchanged */
	EXPECT_EQ(28, sizeof(struct user_reg));
	EXPECT_EQ(0, offsetof(struct user_reg, size));
	EXPECT_EQ(4, offsetof(struct user_reg, enable_bit));
	EXPECT_EQ(5, offsetof(struct user_reg, enable_size));
	EXPECT_EQ(6, offsetof(struct user_reg, flags));
	EXPECT_EQ(8, offsetof(struct user_reg, enable_addr));
	EXPECT_EQ(16, offsetof(struct user_reg, name_args));
	EXPECT_EQ(24, offsetof(struct user_reg, write_index));
	EXPECT_EQ(16, sizeof(struct user_unreg));
	EXPECT_EQ(4, offsetof(struct user_unreg, disable_bit));
	EXPECT_EQ(5, offsetof(struct user_unreg, __reserved));
	EXPECT_EQ(6, offsetof(struct user_unreg, __reserved2));
	EXPECT_EQ(8, offsetof(struct user_unreg, disable_addr));
	/* The ioctl numbers encode the size of a pointer: 4 in 32-bit programs */
	EXPECT_EQ(sizeof(void *) == 8 ? 0xc0082a00 : 0xc0042a00, DIAG_IOCSREG);
	EXPECT_EQ(sizeof(void *) == 8 ? 0x40082a01 : 0x40042a01, DIAG_IOCSDEL);
	EXPECT_EQ(sizeof(void *) == 8 ? 0x40082a02 : 0x40042a02, DIAG_IOCSUNREG);
	EXPECT_EQ(1, USER_EVENT_REG_PERSIST);
	EXPECT_EQ(2, USER_EVENT_REG_MULTI_FORMAT);
	EXPECT_EQ(4, USER_EVENT_REG_MAX);
	EXPECT_EQ(0x00050010, DYN_LOC(0x10, 5));
	EXPECT_STREQ("user_events", USER_EVENTS_SYSTEM);
	EXPECT_STREQ("user_events_multi", USER_EVENTS_MULTI_SYSTEM);
	EXPECT_STREQ("u:", USER_EVENTS_PREFIX);
}

TEST_F_TIMEOUT(abi, reg_struct_size, TIMEOUT)
{
	static __u32 word;
	struct user_reg *reg;
	unsigned char *buf;

	/* Two pages, so that sizes up to PAGE_SIZE + 1 are readable */
	buf = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	reg = (struct user_reg *)buf;
	fill_reg(reg, EV_A " u32 a", &word, 4, 0);

	reg->size = page_size + 1;
	EXPECT_EQ(-E2BIG, ue_reg_raw(self->fd, reg));
	reg->size = 0xffffffff;
	EXPECT_EQ(-E2BIG, ue_reg_raw(self->fd, reg));

	reg->size = 0;
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));
	reg->size = 4;
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));
	reg->size = offsetof(struct user_reg, write_index);
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));
	reg->size = sizeof(*reg) - 1;
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, reg));

	/* Larger than the kernel's struct: only zeroes may follow */
	reg->size = sizeof(*reg) + 8;
	buf[sizeof(*reg) + 7] = 1;
	EXPECT_EQ(-E2BIG, ue_reg_raw(self->fd, reg));
	buf[sizeof(*reg) + 7] = 0;
	buf[page_size - 1] = 1;
	reg->size = page_size;
	EXPECT_EQ(-E2BIG, ue_reg_raw(self->fd, reg));
	buf[page_size - 1] = 0;

	reg->size = sizeof(*reg) + 8;
	reg->write_index = 0xffffffff;
	EXPECT_EQ(0, ue_reg_raw(self->fd, reg));
	EXPECT_NE(0xffffffff, reg->write_index);

	reg->size = page_size;
	reg->enable_bit = 1;
	EXPECT_EQ(0, ue_reg_raw(self->fd, reg));
	reg->size = sizeof(*reg);
	reg->enable_bit = 2;
	EXPECT_EQ(0, ue_reg_raw(self->fd, reg));

	munmap(buf, 2 * page_size);
}

TEST_F_TIMEOUT(abi, reg_flags, TIMEOUT)
{
	static __u32 word;
	struct user_reg reg;
	int bit;

	/* Unknown flags are EINVAL, so callers can retry without them */
	for (bit = 2; bit < 16; bit++) {
		fill_reg(&reg, EV_A " u32 a", &word, 4, 0);
		reg.flags = 1U << bit;
		EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg)) TH_LOG("bit %d", bit);
		reg.flags |= USER_EVENT_REG_PERSIST;
		EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg)) TH_LOG("bit %d", bit);
	}
	fill_reg(&reg, EV_A " u32 a", &word, 4, 0);
	reg.flags = USER_EVENT_REG_MAX;
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg));
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));

	/* The retry without flags */
	reg.flags = 0;
	EXPECT_EQ(0, ue_reg_raw(self->fd, &reg));
	EXPECT_TRUE(ue_event_exists(NULL, EV_A));
}

TEST_F_TIMEOUT(abi, reg_enable_size_align_bit, TIMEOUT)
{
	static __u64 words[4];
	char *base = (char *)&words[1];
	static const int bad_sizes[] = { 0, 1, 2, 3, 5, 6, 7, 16, 255 };
	struct user_reg reg;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_sizes); i++) {
		fill_reg(&reg, EV_A " u32 a", base, bad_sizes[i], 0);
		EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg))
			TH_LOG("enable_size %d", bad_sizes[i]);
	}

	/* Natural alignment */
	for (i = 1; i < 4; i++) {
		fill_reg(&reg, EV_A " u32 a", base + i, 4, 0);
		EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg)) TH_LOG("+%u", i);
	}
	for (i = 1; i < 8; i++) {
		fill_reg(&reg, EV_A " u32 a", base + i, 8, 0);
		EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg)) TH_LOG("+%u", i);
	}

	/* The bit must be inside the word */
	fill_reg(&reg, EV_A " u32 a", base, 4, 32);
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg));
	fill_reg(&reg, EV_A " u32 a", base, 4, 255);
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg));
	fill_reg(&reg, EV_A " u32 a", base, 8, 64);
	EXPECT_EQ(-EINVAL, ue_reg_raw(self->fd, &reg));
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));

	/* The edges that are fine */
	fill_reg(&reg, EV_A " u32 a", base + 4, 4, 31);
	EXPECT_EQ(0, ue_reg_raw(self->fd, &reg));
	fill_reg(&reg, EV_A " u32 a", &words[2], 8, 63);
	EXPECT_EQ(0, ue_reg_raw(self->fd, &reg));
}

TEST_F_TIMEOUT(abi, reg_bad_enable_addr, TIMEOUT)
{
	struct user_reg reg;
	char *page;

	/* Not a user address */
	fill_reg(&reg, EV_A " u32 a", (void *)(uintptr_t)UE_KERNEL_ADDR, 4, 0);
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg));
	fill_reg(&reg, EV_A " u32 a", (void *)(uintptr_t)-8ULL, 8, 0);
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg));

	/* User addresses that cannot be written */
	fill_reg(&reg, EV_A " u32 a", NULL, 4, 0);
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg));

	page = mmap(NULL, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	fill_reg(&reg, EV_A " u32 a", page, 4, 0);
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg)) TH_LOG("read-only");
	ASSERT_EQ(0, mprotect(page, page_size, PROT_NONE));
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg)) TH_LOG("PROT_NONE");
	ASSERT_EQ(0, munmap(page, page_size));
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg)) TH_LOG("unmapped");

	/* A failed registration leaves neither an event nor a registration */
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
	page = mmap(page, page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	fill_reg(&reg, EV_A " u32 a", page, 4, 0);
	EXPECT_EQ(0, ue_reg_raw(self->fd, &reg));
	munmap(page, page_size);
}

TEST_F_TIMEOUT(abi, reg_addr_in_use, TIMEOUT)
{
	static __u64 qword;
	static __u32 word;
	int fd2, i1 = -1, i2 = -1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 0, &i1));
	/* Same address and bit: refused, for any event, on any file */
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 a", &word, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_B " u32 a", &word, 0, NULL));
	fd2 = ue_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EADDRINUSE, ue_reg(fd2, EV_B " u32 a", &word, 0, NULL));
	EXPECT_FALSE(ue_event_exists(NULL, EV_B));

	/* Another bit of the same word is fine */
	EXPECT_EQ(0, ue_reg(self->fd, EV_B " u32 a", &word, 1, &i2));
	EXPECT_EQ(0, ue_reg(fd2, EV_A " u32 a", &word, 2, NULL));

	/* Free again after UNREG */
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 0));
	EXPECT_EQ(0, ue_reg(fd2, EV_B " u32 a", &word, 0, NULL));

	/* The same address and bit whatever the size of the word */
	ASSERT_EQ(0, ue_reg_flags(self->fd, EV_A " u32 a", 0, &qword, 4, 5,
				  NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg_flags(fd2, EV_B " u32 a", 0, &qword, 8,
					    5, NULL));
	/* UNREG through another file than the one that registered */
	EXPECT_EQ(0, ue_unreg(fd2, &qword, 5));
	EXPECT_EQ(0, ue_reg_flags(fd2, EV_B " u32 a", 0, &qword, 8, 5, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg_flags(self->fd, EV_A " u32 a", 0,
					    &qword, 4, 5, NULL));

	/* The registrations made through fd2 outlive it */
	close(fd2);
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 a", &word, 0, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 a", &word, 2, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg_flags(self->fd, EV_A " u32 a", 0, &qword,
					    8, 5, NULL));
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 2));
	EXPECT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 2, NULL));
	EXPECT_EQ(0, ue_unreg(self->fd, &qword, 5));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &qword, 5));
}

TEST_F_TIMEOUT(abi, reg_name_args, TIMEOUT)
{
	static const char * const malformed[] = {
		"",
		" ",
		EV_A " u32",
		EV_A " foo a",
		EV_A " long a",
		EV_A " unsigned long a",
		EV_A " u32 a 4",
		EV_A " u32 a; u32 b 8",
		EV_A " __data_loc char[] a 4",
		EV_A " struct foo a",
		EV_A " struct foo a 0",
		EV_A " u32 a;; u32 b",
		EV_A " u32 a; u32 a",
		EV_A " char[0] a",
		EV_A " char[1025] a",
		EV_A " char[] a",
		EV_A " u32 a b",
	};
	static const char * const text_flags[] = {
		EV_A ":flag u32 a",
		EV_A ":persist u32 a",
		EV_A ":BPF_ITER u32 a",
		EV_A ":a,b u32 a",
	};
	static __u32 word;
	char cmd[UE_CMD_MAX * 4];
	struct user_reg reg;
	unsigned int i;
	char *pages;

	/* Unreadable */
	fill_reg(&reg, NULL, &word, 4, 0);
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg));
	fill_reg(&reg, (const char *)(uintptr_t)UE_KERNEL_ADDR, &word, 4, 0);
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg));

	/*
	 * Above what a user pointer holds: EFAULT, as for enable_addr, also
	 * where the low half alone would be the command (32-bit kernels)
	 */
	fill_reg(&reg, EV_A " u32 a", &word, 4, 0);
	reg.name_args |= 0xffffffff00000000ULL;
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg));

	/* A string that runs into an unmapped page before its NUL */
	pages = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, pages);
	ASSERT_EQ(0, munmap(pages + page_size, page_size));
	memcpy(pages + page_size - 3, "abc", 3);
	fill_reg(&reg, pages + page_size - 3, &word, 4, 0);
	EXPECT_EQ(-EFAULT, ue_reg_raw(self->fd, &reg));
	munmap(pages, page_size);

	/* At most 512 bytes with the NUL */
	ue_long_cmd(cmd, EV_LONG, UE_CMD_MAX);
	ASSERT_EQ(UE_CMD_MAX, strlen(cmd));
	EXPECT_EQ(-EINVAL, ue_reg(self->fd, cmd, &word, 0, NULL));
	ue_long_cmd(cmd, EV_LONG, 2 * UE_CMD_MAX);
	EXPECT_EQ(-EINVAL, ue_reg(self->fd, cmd, &word, 0, NULL));
	EXPECT_FALSE(ue_event_exists(NULL, EV_LONG));
	ue_long_cmd(cmd, EV_LONG, UE_CMD_MAX - 1);
	ASSERT_EQ(UE_CMD_MAX - 1, strlen(cmd));
	EXPECT_EQ(0, ue_reg(self->fd, cmd, &word, 0, NULL)) TH_LOG("%s", cmd);
	EXPECT_TRUE(ue_event_exists(NULL, EV_LONG));

	for (i = 0; i < ARRAY_SIZE(malformed); i++) {
		EXPECT_EQ(-EINVAL, ue_reg(self->fd, malformed[i], &word, 1,
					  NULL))
			TH_LOG("\"%s\"", malformed[i]);
	}
	for (i = 0; i < ARRAY_SIZE(text_flags); i++) {
		EXPECT_EQ(-EINVAL, ue_reg(self->fd, text_flags[i], &word, 1,
					  NULL))
			TH_LOG("\"%s\"", text_flags[i]);
	}
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
}

TEST_F_TIMEOUT(abi, reg_name_exists_other_fields, TIMEOUT)
{
	static __u32 word;
	int i1 = -1, i2 = -2;

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a; char[4] b", &word, 0,
			    &i1));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u64 a; char[4] b",
				      &word, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 a; char[5] b",
				      &word, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 a", &word, 1,
				      NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A, &word, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " u32 x; char[4] b",
				      &word, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd, EV_A " char[4] b; u32 a",
				      &word, 1, NULL));
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd,
				      EV_A " u32 a; char[4] b; u32 c",
				      &word, 1, NULL));
	/* The same fields are the same event, with the same index */
	EXPECT_EQ(0, ue_reg(self->fd, EV_A " u32 a;char[4] b", &word, 1, &i2));
	EXPECT_EQ(i1, i2);
}

/* The format file's offset and size of field @decl ("u32 n") */
static int field_layout(const char *name, const char *decl, int *offset,
			int *size)
{
	char path[UE_PATH_MAX], key[128];
	char *fmt, *p;
	int ret = -ENOENT;

	fmt = ue_read_file(ue_evpath(path, NULL, name, "format"));
	if (!fmt)
		return -errno;
	snprintf(key, sizeof(key), "field:%s;", decl);
	p = strstr(fmt, key);
	if (p && sscanf(p + strlen(key), "\toffset:%d;\tsize:%d;", offset,
			size) == 2)
		ret = 0;
	free(fmt);
	return ret;
}

/*
 * The N of char[N] is read as kstrtouint() with base 0 reads it: a
 * leading 0 makes it octal (char[010] is 8 bytes), 0x hexadecimal; at
 * most 7 characters, 1 to 1024.
 */
TEST_F_TIMEOUT(abi, reg_array_len, TIMEOUT)
{
	static const char * const bad[] = {
		EV_A " char[09] s",
		EV_A " char[02001] s",
		EV_A " char[00] s",
		EV_A " char[0x] s",
		EV_A " char[00000001] s",
		EV_A " char[0x0000000000001] s",
	};
	static __u32 word;
	int offset = -1, size = -1, i1 = -1, i2 = -2;
	unsigned int i;

	ASSERT_EQ(0, ue_reg(self->fd,
			    EV_A " char[010] s; u32 n; unsigned char[0x10] b;"
			    " char[0000012] t; u8 c", &word, 0, &i1));
	ASSERT_EQ(0, field_layout(EV_A, "u32 n", &offset, &size));
	EXPECT_EQ(UE_HDR_SIZE + 8, offset);
	EXPECT_EQ(4, size);
	ASSERT_EQ(0, field_layout(EV_A, "u8 c", &offset, &size));
	EXPECT_EQ(UE_HDR_SIZE + 8 + 4 + 16 + 10, offset);
	EXPECT_EQ(1, size);

	/* The same lengths written otherwise are the same event */
	EXPECT_EQ(0, ue_reg(self->fd,
			    EV_A " char[8] s; u32 n; unsigned char[16] b;"
			    " char[10] t; u8 c", &word, 1, &i2));
	EXPECT_EQ(i1, i2);
	EXPECT_EQ(-EADDRINUSE, ue_reg(self->fd,
				      EV_A " char[10] s; u32 n; unsigned char[16] b;"
				      " char[10] t; u8 c", &word, 2, NULL));

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, ue_reg(self->fd, bad[i], &word, 3, NULL))
			TH_LOG("\"%s\"", bad[i]);
	}
}

/*
 * PERSIST on an event that exists without it leaves the event as it is:
 * it still goes with its last reference, whoever asked for PERSIST.
 */
TEST_F_TIMEOUT(abi, reg_persist_existing, TIMEOUT)
{
	static __u32 word;
	int i1 = -1, i2 = -2;

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 0, &i1));
	EXPECT_EQ(0, ue_reg_flags(self->fd, EV_A " u32 a",
				  USER_EVENT_REG_PERSIST, &word, 4, 1, &i2));
	EXPECT_EQ(i1, i2);
	ASSERT_EQ(0, ue_unreg(self->fd, &word, 0));
	ASSERT_EQ(0, ue_unreg(self->fd, &word, 1));
	close(self->fd);
	self->fd = -1;
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
	EXPECT_EQ(-ENOENT, ue_del(EV_A));
}

TEST_F_TIMEOUT(abi, write_index_per_file, TIMEOUT)
{
	static __u32 word;
	int fd2, fd3, ia = -1, ib = -1, ia2 = -1, ib2 = -1;
	__u32 val = 1;

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 0, &ia));
	ASSERT_EQ(0, ue_reg(self->fd, EV_B " u32 a", &word, 1, &ib));
	EXPECT_LE(0, ia);
	EXPECT_LE(0, ib);
	EXPECT_NE(ia, ib);

	/* The same event again on the same file: the same index */
	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 2, &ia2));
	EXPECT_EQ(ia, ia2);
	ASSERT_EQ(0, ue_reg_flags(self->fd, EV_B " u32 a", 0, &word, 4, 3,
				  &ib2));
	EXPECT_EQ(ib, ib2);

	/* Indexes belong to their file */
	fd2 = ue_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ue_enable(EV_A, true));
	EXPECT_EQ(-ENOENT, ue_emit(fd2, ia, &val, sizeof(val)));
	EXPECT_EQ(-ENOENT, ue_emit(fd2, ib, &val, sizeof(val)));
	EXPECT_EQ(8, ue_emit(self->fd, ia, &val, sizeof(val)));

	fd3 = ue_open();
	ASSERT_LE(0, fd3);
	EXPECT_EQ(0, ue_reg(fd3, EV_A " u32 a", &word, 4, &ia2));
	EXPECT_EQ(8, ue_emit(fd3, ia2, &val, sizeof(val)));
	ASSERT_EQ(0, ue_enable(EV_A, false));
	close(fd2);
	close(fd3);

	ue_trace_read(&self->trace);
	EXPECT_EQ(2, ue_trace_count(self->trace, EV_A));
}

TEST_F_TIMEOUT(abi, unreg, TIMEOUT)
{
	static __u32 word;
	struct user_unreg unreg;

	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 3, NULL));
	ASSERT_EQ(0, ue_enable(EV_A, true));
	EXPECT_EQ(8, word);

	/* Reserved fields must be zero */
	memset(&unreg, 0, sizeof(unreg));
	unreg.size = sizeof(unreg);
	unreg.disable_bit = 3;
	unreg.disable_addr = (__u64)(uintptr_t)&word;
	unreg.__reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSUNREG, &unreg));
	EXPECT_EQ(EINVAL, errno);
	unreg.__reserved = 0;
	unreg.__reserved2 = 1;
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSUNREG, &unreg));
	EXPECT_EQ(EINVAL, errno);
	unreg.__reserved2 = 0x8000;
	EXPECT_EQ(-1, ioctl(self->fd, DIAG_IOCSUNREG, &unreg));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(8, word);

	/* Nothing registered there */
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &word, 4));
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, (__u32 *)&word + 1, 3));
	EXPECT_EQ(8, word);

	/* Clears the bit at once, and never touches it again */
	EXPECT_EQ(0, ue_unreg(self->fd, &word, 3));
	EXPECT_EQ(0, word);
	EXPECT_EQ(-ENOENT, ue_unreg(self->fd, &word, 3));
	ASSERT_EQ(0, ue_enable(EV_A, false));
	word = 0xffffffff;
	ASSERT_EQ(0, ue_enable(EV_A, true));
	ASSERT_EQ(0, ue_enable(EV_A, false));
	EXPECT_EQ(0xffffffff, word);
	word = 0;
	ASSERT_EQ(0, ue_enable(EV_A, true));
	EXPECT_EQ(0, word);
	ASSERT_EQ(0, ue_enable(EV_A, false));
}

TEST_F_TIMEOUT(abi, del, TIMEOUT)
{
	static __u32 word;
	int fd;

	EXPECT_EQ(-ENOENT, ue_del(EV_A));

	/* Referenced by a registration */
	ASSERT_EQ(0, ue_reg(self->fd, EV_A " u32 a", &word, 0, NULL));
	EXPECT_EQ(-EBUSY, ue_del(EV_A));
	/* UNREG drops the bit, the file still holds the event */
	ASSERT_EQ(0, ue_unreg(self->fd, &word, 0));
	EXPECT_EQ(-EBUSY, ue_del(EV_A));
	EXPECT_TRUE(ue_event_exists(NULL, EV_A));
	/* DEL on the file that registered it */
	EXPECT_EQ(-EBUSY, ue_del_fd(self->fd, EV_A));
	close(self->fd);
	self->fd = -1;
	/* Gone once the last reference is (not persistent) */
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
	EXPECT_EQ(-ENOENT, ue_del(EV_A));

	/* A registration holds the event after its file is closed */
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg(fd, EV_A " u32 a", &word, 0, NULL));
	close(fd);
	EXPECT_EQ(-EBUSY, ue_del(EV_A));
	EXPECT_TRUE(ue_event_exists(NULL, EV_A));
	/* The file's index went with close(): gone once UNREG returns */
	ASSERT_EQ(0, ue_unreg_own(&word, 0));
	EXPECT_FALSE(ue_event_exists(NULL, EV_A));
	EXPECT_EQ(-ENOENT, ue_del(EV_A));

	/* A persistent event: referenced by ftrace, then by nothing */
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_reg_flags(fd, EV_PERSIST " u32 a",
				  USER_EVENT_REG_PERSIST, &word, 4, 0, NULL));
	EXPECT_EQ(-EBUSY, ue_del(EV_PERSIST));
	ASSERT_EQ(0, ue_unreg(fd, &word, 0));
	close(fd);
	EXPECT_TRUE(ue_event_exists(NULL, EV_PERSIST));
	ASSERT_EQ(0, ue_enable(EV_PERSIST, true));
	EXPECT_EQ(-EBUSY, ue_del(EV_PERSIST));
	ASSERT_EQ(0, ue_enable(EV_PERSIST, false));
	EXPECT_EQ(0, ue_del(EV_PERSIST));
	EXPECT_FALSE(ue_event_exists(NULL, EV_PERSIST));
	EXPECT_EQ(-ENOENT, ue_del(EV_PERSIST));
}

TEST_HARNESS_MAIN
