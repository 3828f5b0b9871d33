// SPDX-License-Identifier: GPL-2.0
/*
 * user_events with eBPF: a BPF_PROG_TYPE_TRACEPOINT program attached to a
 * user event with PERF_EVENT_IOC_SET_BPF runs once per record, whether or
 * not the perf event it is attached through records anything, and reads
 * the record's fields at the offsets of the event's format file.  The
 * program is built with the raw bpf() syscall: no libbpf, no compiler.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"
#include "user_events_format.h"

#define TIMEOUT		300

#define EV_BPF		UE_PREFIX "bpf_prog"

/*
 * The enable word of the test: private memory of the test process, not a
 * field of the fixture data, which FIXTURE_TEARDOWN_PARENT shares.
 */
static __u32 enable_word;

/* Shared with the teardown: @fd and @perf_fd belong to the test process */
FIXTURE(bpf) {
	int fd;
	int perf_fd;
};

FIXTURE_SETUP(bpf)
{
	const char *reason = ue_setup();

	self->fd = -1;
	self->perf_fd = -1;
	if (reason)
		SKIP(return, "%s", reason);
	if (!ue_exists("/proc/sys/kernel/perf_event_paranoid"))
		SKIP(return, "no perf events (CONFIG_PERF_EVENTS?)");
	ue_cleanup(EV_BPF);
	self->fd = ue_open();
	ASSERT_LE(0, self->fd);
	enable_word = 0;
}

/*
 * After the test process exited: its registrations went with its memory
 * and its files were released, so the event it made can be deleted.
 */
FIXTURE_TEARDOWN_PARENT(bpf)
{
	if (!ue_setup())
		ue_cleanup(EV_BPF);
}

#define INSN(c, d, s, o, i)						\
	((struct bpf_insn) { .code = (c), .dst_reg = (d), .src_reg = (s),\
			     .off = (o), .imm = (i) })
#define MOV64_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD64_IMM(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ST_W(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define LDX_W(d, s, o)	INSN(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define STX_DW(d, s, o)	INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define XADD_DW(d, s, o) INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
/* A 64-bit immediate takes two instructions: the map's fd, then zero */
#define LD_MAP_FD(d, fd) INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd)
#define LD_IMM64_HI()	INSN(0, 0, 0, 0, 0)
#define JEQ_IMM(d, i, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	int ret = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return ret < 0 ? -errno : ret;
}

/*
 * map[0] += 1 for every record; map[1] = the u32 at @field_off of the
 * record (ctx points at the record as the format file lays it out).
 */
static int load_prog(int map_fd, int field_off, char *log, size_t log_size)
{
	struct bpf_insn insns[] = {
		MOV64_REG(BPF_REG_6, BPF_REG_1),
		ST_W(BPF_REG_10, -4, 0),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -4),
		LD_MAP_FD(BPF_REG_1, map_fd),
		LD_IMM64_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(BPF_REG_0, 0, 2),
		MOV64_IMM(BPF_REG_1, 1),
		XADD_DW(BPF_REG_0, BPF_REG_1, 0),
		LDX_W(BPF_REG_7, BPF_REG_6, field_off),
		ST_W(BPF_REG_10, -4, 1),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -4),
		LD_MAP_FD(BPF_REG_1, map_fd),
		LD_IMM64_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(BPF_REG_0, 0, 1),
		STX_DW(BPF_REG_0, BPF_REG_7, 0),
		MOV64_IMM(BPF_REG_0, 0),
		EXIT(),
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	attr.insns = (__u64)(uintptr_t)insns;
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = (__u64)(uintptr_t)"GPL";
	attr.log_buf = (__u64)(uintptr_t)log;
	attr.log_size = log_size;
	attr.log_level = 1;
	log[0] = '\0';
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

static int map_get(int map_fd, __u32 key, __u64 *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (__u64)(uintptr_t)&key;
	attr.value = (__u64)(uintptr_t)value;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
}

TEST_F_TIMEOUT(bpf, bpf_program_runs_per_record, TIMEOUT)
{
	static char log[65536];
	const struct ue_field *f;
	struct ue_format fmt;
	union bpf_attr attr;
	int map_fd, prog_fd, idx = -1, i;
	__u64 count = 0, value = 0;
	const int nr = 10;
	__u32 rec[2];
	long id = 0;

	/* The sysctl exists exactly when the kernel has the bpf() syscall */
	if (!ue_exists("/proc/sys/kernel/unprivileged_bpf_disabled"))
		SKIP(return, "no bpf() (CONFIG_BPF_SYSCALL?)");

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = 2;
	map_fd = sys_bpf(BPF_MAP_CREATE, &attr);
	ASSERT_LE(0, map_fd) TH_LOG("BPF_MAP_CREATE: %d", map_fd);

	ASSERT_EQ(0, ue_reg(self->fd, EV_BPF " u32 a; u32 b", &enable_word, 0,
			    &idx));
	ASSERT_EQ(0, ue_format_read(NULL, EV_BPF, &fmt));
	f = ue_field(&fmt, "b");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, f->offset % 4);

	prog_fd = load_prog(map_fd, f->offset, log, sizeof(log));
	ASSERT_LE(0, prog_fd) TH_LOG("BPF_PROG_LOAD: %d\n%s", prog_fd, log);

	ASSERT_EQ(0, ue_event_id(NULL, EV_BPF, &id));
	self->perf_fd = ue_perf_open_id(id);
	ASSERT_LE(0, self->perf_fd);
	EXPECT_EQ(1, enable_word);
	ASSERT_EQ(0, ioctl(self->perf_fd, PERF_EVENT_IOC_SET_BPF, prog_fd))
		TH_LOG("PERF_EVENT_IOC_SET_BPF: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->perf_fd, PERF_EVENT_IOC_ENABLE, 0));

	for (i = 0; i < nr; i++) {
		rec[0] = i;
		rec[1] = 1000 + i;
		EXPECT_EQ(12, ue_emit(self->fd, idx, rec, sizeof(rec)));
	}

	ASSERT_EQ(0, map_get(map_fd, 0, &count));
	ASSERT_EQ(0, map_get(map_fd, 1, &value));
	EXPECT_EQ(nr, count);
	EXPECT_EQ(1000 + nr - 1, value);

	close(self->perf_fd);
	self->perf_fd = -1;
	EXPECT_EQ(0, enable_word);
	close(prog_fd);
	close(map_fd);
}

TEST_HARNESS_MAIN
