// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the user_events ABI with generated input and check each answer
 * against a model of what the kernel must say.
 *
 * Every call is DIAG_IOCSREG, DIAG_IOCSUNREG, DIAG_IOCSDEL, write() or
 * writev() with generated structs, command strings, enable words and
 * iovecs, drawn from a seeded PRNG (UE_FUZZ_SEED to replay a run,
 * UE_FUZZ_CALLS for the number of calls, default 100000).  The model
 * knows which events exist, which files hold which write indexes, which
 * bits of memory are registered, and the order in which abi.md checks
 * things, so it predicts the exact errno of every call, or, for the
 * randomly mutated commands whose validity it does not know, the set of
 * errnos the call may fail with.  Enable words live in a page whose copy
 * the model keeps: a bit the kernel writes must be a registered bit with
 * the value of its event's state, and no other byte may change.
 *
 * Registrations belong to the process, not to the file they were made
 * through: closing a file ends its write indexes only, its registrations
 * stay (the fuzzer then unregisters them, before or after the close, only
 * half of the time), and any file can unregister any of them.  An event
 * is referenced by every registration and every write index of it.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "../kselftest_harness.h"
#include "user_events_selftests.h"

#define TIMEOUT		1200
#define DEFAULT_CALLS	100000

#define NAME_K		UE_PREFIX "fzk"	/* kept: registered by the keeper */
#define NAME_F		UE_PREFIX "fzf"	/* fresh: come and go */
#define NAME_R		UE_PREFIX "fzr"	/* randomly mutated commands */

#define NR_K		4		/* K0 and K1 are enabled in ftrace */
#define NR_F		8
#define NR_NAMES	(NR_K + NR_F)
#define NR_FD		3
#define NR_SLOTS	64		/* 8-byte slots of the arena used */
#define MAX_EVENTS	256
#define MAX_ENABLERS	512
#define MAX_IDX		64

/*
 * Holes at fixed low addresses, far below where mmap() places things, so
 * that no later mapping fills them: a page never mapped, the page whose
 * words are freed after registering, a command running into a hole
 */
#define UNMAPPED_ADDR	((void *)0x200000000ULL)
#define FREED_ADDR	((void *)0x210000000ULL)
#define TAIL_ADDR	((void *)0x220000000ULL)
#define NONCANON_ADDR	0x800000000000ULL	/* 1 << 47 */

/* Field lists; K<i> has list i, fresh names use any */
static const char * const field_lists[][4] = {
	{ "u32 a", "__data_loc char[] s", "__rel_loc u8[] r", "char[4] c" },
	{ "u64 x", "struct foo st 12", "__rel_loc char[] t", NULL },
	{ NULL },
	{ "s16 h", "unsigned char[3] b", NULL },
	{ "int i", "unsigned short us", "char ch", NULL },
	{ "__data_loc unsigned char[] d", "s8 e", NULL },
};

#define NR_FL		ARRAY_SIZE(field_lists)

/* Fields that make a command malformed, whatever else it has */
static const char * const bad_fields[] = {
	"long l", "unsigned long ul", "u32", "foo f", "u32 a 4",
	"char[0] z", "char[1025] z", "char[] z", "struct s v",
	"struct s v 0", "u32 common_pid", "u32 9a", "u32 a-b", "u32 x y",
	"__data_loc char q", "__rel_loc char[4] q", "u16[2] w",
	"struct s v 5000", "struct 1s v 4",
};

enum { OP_REG, OP_UNREG, OP_DEL, OP_WRITE, OP_CLOSE, OP_PAGE, OP_TOGGLE,
	NR_OPS };
static const char * const op_names[] = {
	"DIAG_IOCSREG", "DIAG_IOCSUNREG", "DIAG_IOCSDEL", "write/writev",
	"close", "munmap/mmap", "enable toggle",
};

struct m_event {
	int name;		/* 0..NR_NAMES-1 */
	int fl;
	bool multi;
	bool persist;
	bool keeper;		/* the keeper's index and registration hold it */
	unsigned int fdmask;	/* fuzzed files holding a write index */
	int regs;		/* registrations of it in en[] */
};

struct m_enabler {
	bool used;
	int fd;			/* the file slot it was registered through */
	unsigned long addr;
	int bit;
	int size;
	int ev;			/* index in events[], -1: random command */
};

struct m_file {
	int fd;
	int idx[MAX_EVENTS];	/* write index of each model event, or -1 */
};

static struct {
	unsigned long long rng, seed;
	long page;
	unsigned char *arena, *shadow;	/* enable words and their model */
	unsigned char *ro, *none, *unmapped, *freed, *freed_shadow;
	bool freed_mapped;
	unsigned char *rbuf;		/* 2 pages RW, then one PROT_NONE */
	unsigned char *rostruct;	/* a page mprotect()ed RO */
	unsigned char *big;		/* a payload no buffer can hold */
	char *cmd_tail;			/* a command ending at a hole */
	int keeper;
	int kidx[NR_K];
	bool enabled[NR_K];
	struct m_event events[MAX_EVENTS];
	int nr_events;
	struct m_enabler en[MAX_ENABLERS];
	struct m_file files[NR_FD];
	/* results */
	long calls;
	long counts[NR_OPS][2];		/* [op][ok, failed] */
	long errnos[NR_OPS][140];
	long unknown_cmds;
	int mismatches;
} g;

static unsigned long long rnd(void)
{
	/* xorshift64* */
	g.rng ^= g.rng >> 12;
	g.rng ^= g.rng << 25;
	g.rng ^= g.rng >> 27;
	return g.rng * 2685821657736338717ULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? (unsigned int)((rnd() >> 16) % n) : 0;
}

static bool chance(unsigned int percent)
{
	return rn(1000) < percent * 10;
}

static void name_of(int name, char *buf, size_t size)
{
	if (name < NR_K)
		snprintf(buf, size, NAME_K "%d", name);
	else
		snprintf(buf, size, NAME_F "%d", name - NR_K);
}

/* Append field list @fl with random spacing; @bad: one malformed field */
static int put_fields(char *buf, int pos, int size, int fl, const char *bad)
{
	static const char * const sp[] = { "", " ", "  ", "\t", " \t " };
	const char * const *f = field_lists[fl];
	const char *list[5];
	int i, n = 0, nr = 0, at;

	while (n < 4 && f[n])
		n++;
	at = bad ? (int)rn(n + 1) : -1;
	for (i = 0; i < n; i++) {
		if (i == at)
			list[nr++] = bad;
		list[nr++] = f[i];
	}
	if (at == n)
		list[nr++] = bad;
	for (i = 0; i < nr; i++) {
		const char *field = list[i];

		/* char[4] and char[0x4] are the same type */
		if (!strcmp(field, "char[4] c") && chance(30))
			field = "char[0x4] c";
		pos += snprintf(buf + pos, size - pos, "%s%s%s%s",
				i ? sp[rn(5)] : "", field, sp[rn(5)],
				i < nr - 1 || chance(20) ? ";" : "");
	}
	if (chance(20))
		pos += snprintf(buf + pos, size - pos, "  ");
	return pos;
}

/* A valid command for model name @name and field list @fl */
static void gen_cmd(char *buf, int size, int name, int fl, const char *bad)
{
	int pos = 0;

	if (chance(10))
		pos += snprintf(buf, size, " ");
	name_of(name, buf + pos, size - pos);
	pos = strlen(buf);
	if (field_lists[fl][0] || bad)
		pos += snprintf(buf + pos, size - pos, " ");
	put_fields(buf, pos, size, fl, bad);
}

/* Commands malformed by their name or a flag */
static void gen_bad_name(char *buf, int size)
{
	static const char * const forms[] = {
		"", " ", "\t", "9" NAME_F "0 u32 a", NAME_F "0:flag u32 a",
		NAME_F "0:persist", NAME_F "-0 u32 a", NAME_F "0;u32 a",
		NAME_F ".0 u32 a", NAME_F "0 u32 a;;u32 b",
		NAME_F "0 u32 a; u32 a", ":" NAME_F "0", NAME_F "\xe9 u32 a",
	};

	snprintf(buf, size, "%s", forms[rn(ARRAY_SIZE(forms))]);
}

/* 512 bytes or more before the NUL */
static void gen_too_long(char *buf, int size)
{
	int len = 512 + rn(64), pos;

	pos = snprintf(buf, size, NAME_F "0 ");
	while (pos < len - 12)
		pos += snprintf(buf + pos, size - pos, "u8 f%d;", pos);
	while (pos < len)
		buf[pos++] = 'z';
	buf[pos] = '\0';
}

/* A valid command of the random pool, with a few bytes changed */
static void gen_mutated(char *buf, int size)
{
	int n, i, pos, len;

	pos = snprintf(buf, size, NAME_R "%u ", rn(4));
	put_fields(buf, pos, size, rn(NR_FL), NULL);
	len = strlen(buf);
	n = 1 + rn(3);
	for (i = 0; i < n; i++) {
		int at = strlen(NAME_R) + rn(len - strlen(NAME_R) + 1);
		static const char pool[] = " ;:[]0x9aZ_\t-";

		switch (rn(3)) {
		case 0:		/* replace */
			if (at < len)
				buf[at] = rn(2) ? pool[rn(sizeof(pool) - 1)] :
					  (char)(1 + rn(255));
			break;
		case 1:		/* insert */
			if (len + 1 < size) {
				memmove(buf + at + 1, buf + at, len - at + 1);
				buf[at] = pool[rn(sizeof(pool) - 1)];
				len++;
			}
			break;
		default:	/* delete */
			if (at < len) {
				memmove(buf + at, buf + at + 1, len - at);
				len--;
			}
		}
	}
}

static int find_event(int name, int fl, bool multi)
{
	int i;

	for (i = 0; i < g.nr_events; i++)
		if (g.events[i].name == name && g.events[i].multi == multi &&
		    (multi ? g.events[i].fl == fl : true))
			return i;
	return -1;
}

/* Referenced: DIAG_IOCSDEL says EBUSY */
static bool ev_busy(const struct m_event *ev)
{
	return ev->keeper || ev->fdmask || ev->regs;
}

static bool ev_exists(const struct m_event *ev)
{
	return ev_busy(ev) || ev->persist;
}

static bool ev_enabled(int ev)
{
	const struct m_event *e = &g.events[ev];

	return !e->multi && e->name < NR_K && g.enabled[e->name];
}

/* Forget events nothing holds any more */
static void gc_events(void)
{
	int i, j;

	for (i = 0; i < g.nr_events; ) {
		if (ev_exists(&g.events[i])) {
			i++;
			continue;
		}
		/* Move the last one here; fix references to it */
		j = --g.nr_events;
		if (i != j) {
			int k;

			g.events[i] = g.events[j];
			for (k = 0; k < NR_FD; k++)
				g.files[k].idx[i] = g.files[k].idx[j];
			for (k = 0; k < MAX_ENABLERS; k++)
				if (g.en[k].used && g.en[k].ev == j)
					g.en[k].ev = i;
		}
		for (j = 0; j < NR_FD; j++)
			g.files[j].idx[g.nr_events] = -1;
	}
}

/* Byte and bit of memory an (address, bit, size) names (little endian) */
static unsigned long mem_bit(unsigned long addr, int bit)
{
	return (addr + bit / 8) * 8 + bit % 8;
}

static struct m_enabler *find_bit(unsigned long addr, int bit)
{
	unsigned long mb = mem_bit(addr, bit);
	int i;

	for (i = 0; i < MAX_ENABLERS; i++)
		if (g.en[i].used &&
		    mem_bit(g.en[i].addr, g.en[i].bit) == mb)
			return &g.en[i];
	return NULL;
}

static struct m_enabler *find_exact(unsigned long addr, int bit)
{
	int i;

	for (i = 0; i < MAX_ENABLERS; i++)
		if (g.en[i].used && g.en[i].addr == addr && g.en[i].bit == bit)
			return &g.en[i];
	return NULL;
}

static int nr_enablers(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_ENABLERS; i++)
		n += g.en[i].used;
	return n;
}

/* The model's copy of the byte holding memory bit @mb, or NULL */
static unsigned char *shadow_byte(unsigned long mb)
{
	unsigned long a = mb / 8;

	if (a >= (unsigned long)g.arena && a < (unsigned long)g.arena + g.page)
		return g.shadow + (a - (unsigned long)g.arena);
	if (g.freed_mapped && a >= (unsigned long)g.freed &&
	    a < (unsigned long)g.freed + g.page)
		return g.freed_shadow + (a - (unsigned long)g.freed);
	return NULL;
}

static void shadow_set(const struct m_enabler *e, bool on)
{
	unsigned long mb = mem_bit(e->addr, e->bit);
	unsigned char *b = shadow_byte(mb);

	if (!b)
		return;
	if (on)
		*b |= 1U << (mb % 8);
	else
		*b &= ~(1U << (mb % 8));
}

/* The registration ended (UNREG): its bit is cleared */
static void drop_enabler(struct m_enabler *e)
{
	shadow_set(e, false);
	if (e->ev >= 0)
		g.events[e->ev].regs--;
	e->used = false;
}

/*
 * Compare memory with the model.  The arena is exact; in the freed page
 * (its words may be faulted in asynchronously) only bytes with no
 * registered bit must match.
 */
static int check_memory(char *why, size_t size)
{
	static unsigned char *mask;
	long i;

	for (i = 0; i < g.page; i++) {
		if (g.arena[i] != g.shadow[i]) {
			snprintf(why, size, "arena byte %ld: %#x, model %#x",
				 i, g.arena[i], g.shadow[i]);
			return -1;
		}
	}
	if (!g.freed_mapped)
		return 0;
	if (!mask)
		mask = malloc(g.page);
	memset(mask, 0, g.page);
	for (i = 0; i < MAX_ENABLERS; i++) {
		unsigned long mb = mem_bit(g.en[i].addr, g.en[i].bit);
		unsigned long a = mb / 8 - (unsigned long)g.freed;

		if (g.en[i].used && a < (unsigned long)g.page)
			mask[a] |= 1U << (mb % 8);
	}
	for (i = 0; i < g.page; i++) {
		if ((g.freed[i] ^ g.freed_shadow[i]) & ~mask[i]) {
			snprintf(why, size, "freed byte %ld: %#x, model %#x",
				 i, g.freed[i], g.freed_shadow[i]);
			return -1;
		}
	}
	return 0;
}

struct expect {
	int err;		/* expected errno, 0 success */
	bool unknown;		/* command of unknown validity */
	int late;		/* errno after the command, if any */
};

static void note(struct __test_metadata *_metadata, int op, int ret,
		 const char *what, const struct expect *x, bool ok)
{
	g.calls++;
	g.counts[op][ret != 0]++;
	if (ret > 0 && ret < 140)
		g.errnos[op][ret]++;
	if (ok)
		return;
	g.mismatches++;
	if (g.mismatches <= 20)
		TH_LOG("call %ld %s: got %d (%s), expected %d%s: %s", g.calls,
		       op_names[op], -ret, ret ? strerror(ret) : "ok", -x->err,
		       x->unknown ? " or unknown-command errnos" : "", what);
}

/* Pick an enable address and say which errno it causes */
enum { A_OK, A_EARLY, A_LATE };

static unsigned long gen_addr(int size, int *kind, bool *arena_word)
{
	unsigned long a;
	int slot = rn(NR_SLOTS);

	*arena_word = false;
	*kind = A_OK;
	switch (rn(100)) {
	case 0 ... 69:
		*arena_word = true;
		a = (unsigned long)g.arena + slot * 8;
		if (size == 4 && rn(2))
			a += 4;
		return a;
	case 70 ... 74:			/* unaligned (EINVAL before all) */
		return (unsigned long)g.arena + slot * 8 + 1 + rn(7);
	case 75 ... 77:
		*kind = A_LATE;
		return 0;
	case 78 ... 80:
		*kind = A_EARLY;
		return rn(2) ? UE_KERNEL_ADDR : NONCANON_ADDR;
	case 81 ... 84:
		*kind = A_LATE;
		return (unsigned long)g.ro + slot * 8;
	case 85 ... 87:
		*kind = A_LATE;
		return (unsigned long)g.none + slot * 8;
	case 88 ... 90:
		*kind = A_LATE;
		return (unsigned long)g.unmapped + slot * 8;
	default:
		if (!g.freed_mapped)
			*kind = A_LATE;
		return (unsigned long)g.freed + (slot % 8) * 8;
	}
}

static int errno_of(int ret)
{
	return ret ? errno : 0;
}

static void op_reg(struct __test_metadata *_metadata)
{
	struct user_reg *reg;
	struct expect x = { 0 };
	char cmd[1024], what[1400];
	int f = rn(NR_FD), ret, size_kind, addr_kind = A_OK, name = -1;
	int fl = -1, ev = -1, size, bit, i;
	unsigned long addr;
	bool arena_word, multi, persist, rostruct = false;
	unsigned int flags = 0;
	const char *cmdp = cmd;
	int cmd_kind;
	__u32 rsize = sizeof(*reg);

	/* Where the struct is and how big it says it is */
	reg = (struct user_reg *)(g.rbuf + g.page - sizeof(*reg));
	memset(g.rbuf, 0, 2 * g.page);
	size_kind = rn(100);
	if (size_kind < 85) {
		rsize = sizeof(*reg);
	} else if (size_kind < 88) {
		rsize = rn(sizeof(*reg));
	} else if (size_kind < 90) {
		rsize = g.page + 1 + rn(100000);
	} else if (size_kind < 94) {
		rsize = sizeof(*reg) + 1 + rn(g.page - sizeof(*reg));
	} else if (size_kind < 97) {
		rsize = sizeof(*reg) + 1 + rn(g.page - sizeof(*reg));
		g.rbuf[g.page + rn(rsize - sizeof(*reg))] = 1 + rn(255);
	} else if (size_kind < 98) {
		/* the tail runs into the PROT_NONE page */
		reg = (struct user_reg *)(g.rbuf + 2 * g.page - sizeof(*reg));
		rsize = sizeof(*reg) + 1 + rn(64);
	} else if (size_kind < 99) {
		rostruct = true;
	} else {
		reg = NULL;
	}

	flags = 0;
	if (chance(15))
		flags |= USER_EVENT_REG_MULTI_FORMAT;
	if (chance(4))
		flags |= USER_EVENT_REG_PERSIST;
	if (chance(8))
		flags |= 1U << (2 + rn(14));
	multi = flags & USER_EVENT_REG_MULTI_FORMAT;
	persist = flags & USER_EVENT_REG_PERSIST;

	size = chance(92) ? (rn(2) ? 4 : 8) : rn(256);
	addr = gen_addr(size == 8 ? 8 : 4, &addr_kind, &arena_word);
	bit = chance(95) ? rn(size == 8 ? 64 : 32) : rn(256);

	/* The command */
	cmd_kind = rn(100);
	if (cmd_kind < 72) {
		name = rn(NR_NAMES);
		if (name < NR_K && !persist && chance(70))
			fl = name;
		else
			fl = rn(NR_FL);
		gen_cmd(cmd, sizeof(cmd), name, fl, NULL);
	} else if (cmd_kind < 80) {
		gen_cmd(cmd, sizeof(cmd), rn(NR_NAMES), rn(NR_FL),
			bad_fields[rn(ARRAY_SIZE(bad_fields))]);
	} else if (cmd_kind < 84) {
		gen_bad_name(cmd, sizeof(cmd));
	} else if (cmd_kind < 86) {
		gen_too_long(cmd, sizeof(cmd));
	} else if (cmd_kind < 96) {
		gen_mutated(cmd, sizeof(cmd));
	} else if (cmd_kind < 97) {
		cmdp = NULL;
	} else if (cmd_kind < 98) {
		cmdp = (const char *)(uintptr_t)UE_KERNEL_ADDR;
	} else {
		cmdp = g.cmd_tail;
	}
	/* Persistent events only of fresh names, so they are deleted */
	if (persist && (cmd_kind >= 72 || name < NR_K)) {
		flags &= ~USER_EVENT_REG_PERSIST;
		persist = false;
	}

	if (reg) {
		struct user_reg r = {
			.size = rsize, .enable_bit = bit, .enable_size = size,
			.flags = flags, .enable_addr = addr,
			.name_args = (__u64)(uintptr_t)cmdp,
			.write_index = 0xdeadbeef,
		};

		if (rostruct) {
			mprotect(g.rostruct, g.page, PROT_READ | PROT_WRITE);
			reg = (struct user_reg *)g.rostruct;
			memcpy(reg, &r, sizeof(r));
			mprotect(g.rostruct, g.page, PROT_READ);
		} else {
			memcpy(reg, &r, sizeof(r));
		}
	}

	/* The model, in the order abi.md gives */
	if (!reg)
		x.err = EFAULT;
	else if (rsize > g.page)
		x.err = E2BIG;
	else if (rsize < sizeof(*reg))
		x.err = EINVAL;
	else if (rsize > sizeof(*reg) && (unsigned char *)reg + rsize >
		 g.rbuf + 2 * g.page)
		x.err = EFAULT;
	else if (rsize > sizeof(*reg) && size_kind >= 94 && size_kind < 97)
		x.err = E2BIG;
	else if (flags >= USER_EVENT_REG_MAX)
		x.err = EINVAL;
	else if (size != 4 && size != 8)
		x.err = EINVAL;
	else if (addr % size)
		x.err = EINVAL;
	else if (bit >= size * 8)
		x.err = EINVAL;
	else if (addr_kind == A_EARLY)
		x.err = EFAULT;
	else if (find_bit(addr, bit))
		x.err = EADDRINUSE;
	else if (cmd_kind >= 96)
		x.err = EFAULT;
	else if (cmd_kind >= 72 && cmd_kind < 86)
		x.err = EINVAL;
	else if (cmd_kind >= 86)
		x.unknown = true;
	else if (rostruct)
		/* write_index: checked before the name is looked up */
		x.err = EFAULT;
	else if (!multi && find_event(name, fl, false) >= 0 &&
		 g.events[find_event(name, fl, false)].fl != fl)
		x.err = EADDRINUSE;

	if (!x.err) {
		if (rostruct || addr_kind == A_LATE)
			x.late = EFAULT;
		if (!x.unknown)
			x.err = x.late;
	}

	ret = errno_of(ioctl(g.files[f].fd, DIAG_IOCSREG, reg));

	snprintf(what, sizeof(what),
		 "fd%d size %u flags %#x enable %d@%#lx bit %d cmd \"%s\"",
		 f, rsize, flags, size, addr, bit,
		 cmdp == cmd ? cmd : cmdp ? "(bad pointer)" : "(NULL)");
	if (x.unknown) {
		g.unknown_cmds++;
		note(_metadata, OP_REG, ret, what, &x,
		     ret == 0 ? !x.late :
		     ret == EINVAL || ret == EADDRINUSE || ret == x.late);
	} else {
		note(_metadata, OP_REG, ret, what, &x, ret == x.err);
	}
	if (ret)
		return;

	/* Registered: maybe an event, an index, and a registration */
	if (!x.unknown) {
		ev = find_event(name, fl, multi);
		if (ev < 0) {
			/* PERSIST applies only to an event REG creates */
			ev = g.nr_events++;
			g.events[ev] = (struct m_event){ .name = name, .fl = fl,
				.multi = multi, .persist = persist };
		}
		if (g.files[f].idx[ev] >= 0 &&
		    g.files[f].idx[ev] != (int)reg->write_index) {
			g.mismatches++;
			TH_LOG("call %ld: index %u, earlier %d: %s", g.calls,
			       reg->write_index, g.files[f].idx[ev], what);
		}
		g.files[f].idx[ev] = reg->write_index;
		g.events[ev].fdmask |= 1U << f;
	}
	for (i = 0; i < MAX_ENABLERS && g.en[i].used; i++)
		;
	if (i == MAX_ENABLERS) {
		/* The model is full: drop it again, which clears the bit */
		struct m_enabler e = { .addr = addr, .bit = bit, .ev = -1 };
		struct user_unreg u = {
			.size = sizeof(u), .disable_bit = bit,
			.disable_addr = addr,
		};

		ret = errno_of(ioctl(g.files[f].fd, DIAG_IOCSUNREG, &u));
		note(_metadata, OP_UNREG, ret, what, &(struct expect){ 0 },
		     !ret);
		shadow_set(&e, false);
		return;
	}
	g.en[i] = (struct m_enabler){ .used = true, .fd = f, .addr = addr,
		.bit = bit, .size = size, .ev = ev };
	if (ev >= 0)
		g.events[ev].regs++;
	shadow_set(&g.en[i], ev >= 0 && ev_enabled(ev));
}

static void op_unreg(struct __test_metadata *_metadata)
{
	unsigned char *buf = g.rbuf + g.page - sizeof(struct user_unreg);
	struct user_unreg *u = (struct user_unreg *)buf;
	struct m_enabler *e = NULL;
	struct expect x = { 0 };
	char what[200];
	int f = rn(NR_FD), ret, k = rn(100), i;
	__u32 size = sizeof(*u);

	memset(g.rbuf, 0, 2 * g.page);
	memset(u, 0, sizeof(*u));
	if (k < 60) {
		/* A registration, if there is one */
		for (i = rn(MAX_ENABLERS); i < MAX_ENABLERS; i++)
			if (g.en[i].used)
				break;
		if (i < MAX_ENABLERS) {
			u->disable_addr = g.en[i].addr;
			u->disable_bit = g.en[i].bit;
		} else {
			u->disable_addr = (unsigned long)g.arena;
		}
	} else {
		u->disable_addr = (unsigned long)g.arena + rn(NR_SLOTS * 8);
		u->disable_bit = rn(64);
	}
	if (k >= 85 && k < 88) {
		u->__reserved = 1 + rn(255);
	} else if (k >= 88 && k < 90) {
		u->__reserved2 = 1 + rn(65535);
	} else if (k >= 90 && k < 93) {
		size = rn(sizeof(*u));
	} else if (k >= 93 && k < 95) {
		size = g.page + 1 + rn(1000);
	} else if (k >= 95 && k < 97) {
		size = sizeof(*u) + 1 + rn(64);
	} else if (k >= 97 && k < 99) {
		size = sizeof(*u) + 1 + rn(64);
		buf[sizeof(*u) + rn(size - sizeof(*u))] = 1 + rn(255);
	}
	u->size = size;

	if (k == 99)
		x.err = EFAULT;
	else if (size > g.page)
		x.err = E2BIG;
	else if (size < sizeof(*u))
		x.err = EINVAL;
	else if (k >= 97)
		x.err = E2BIG;
	else if (u->__reserved || u->__reserved2)
		x.err = EINVAL;
	else if (!find_exact(u->disable_addr, u->disable_bit))
		x.err = ENOENT;
	e = find_exact(u->disable_addr, u->disable_bit);

	ret = errno_of(ioctl(g.files[f].fd, DIAG_IOCSUNREG, k == 99 ? NULL : u));
	snprintf(what, sizeof(what), "size %u addr %#llx bit %u res %u/%u",
		 size, (unsigned long long)u->disable_addr, u->disable_bit,
		 u->__reserved, u->__reserved2);
	note(_metadata, OP_UNREG, ret, what, &x, ret == x.err);
	if (!ret && e) {
		/* Its event may have lost its last reference */
		drop_enabler(e);
		gc_events();
	}
}

/* What DIAG_IOCSDEL of model name @n must say */
static int del_expect(int n)
{
	bool busy = false, found = false;
	int i;

	for (i = 0; i < g.nr_events; i++) {
		if (g.events[i].name != n)
			continue;
		found = true;
		busy |= ev_busy(&g.events[i]);
	}
	return !found ? ENOENT : busy ? EBUSY : 0;
}

/* After DIAG_IOCSDEL of @n: every unreferenced format of it is gone */
static void del_done(int n)
{
	int i;

	for (i = 0; i < g.nr_events; i++)
		if (g.events[i].name == n && !ev_busy(&g.events[i]))
			g.events[i].persist = false;
	gc_events();
}

/* DIAG_IOCSDEL of model name @n through @fd, checked against the model */
static void del_checked(struct __test_metadata *_metadata, int fd, int n)
{
	struct expect x = { .err = del_expect(n) };
	char name[64];
	int ret;

	name_of(n, name, sizeof(name));
	ret = errno_of(ioctl(fd, DIAG_IOCSDEL, name));
	note(_metadata, OP_DEL, ret, name, &x, ret == x.err);
	del_done(n);
}

static void op_del(struct __test_metadata *_metadata)
{
	struct expect x = { .err = ENOENT };
	char name[600], what[700];
	int ret, k = rn(100), n = -1;
	const char *p = name;

	if (k < 80) {
		n = rn(NR_NAMES);
		name_of(n, name, sizeof(name));
	} else if (k < 90) {
		snprintf(name, sizeof(name), NAME_R "%u", rn(4));
	} else if (k < 95) {
		snprintf(name, sizeof(name), "%s", rn(2) ? "" : "no such");
	} else if (k < 97) {
		memset(name, 'a', 590);
		name[590] = '\0';
		x.err = EINVAL;
	} else {
		p = NULL;
		x.err = EFAULT;
	}

	if (n >= 0)
		x.err = del_expect(n);
	ret = errno_of(ioctl(g.files[rn(NR_FD)].fd, DIAG_IOCSDEL, p));
	snprintf(what, sizeof(what), "\"%.40s\"", p ? p : "(NULL)");
	if (k >= 80 && k < 90)
		note(_metadata, OP_DEL, ret, what, &x,
		     ret == ENOENT || ret == EBUSY);
	else
		note(_metadata, OP_DEL, ret, what, &x, ret == x.err);

	if (n >= 0)
		del_done(n);
}

/* Build a record for K0 or K1; @bad: make one loc word wrong */
static size_t gen_payload(int k, unsigned char *p, bool bad)
{
	__u32 loc, off;
	size_t len, dlen;
	int which = rn(3);

	memset(p, 0x41, 256);
	if (k == 0) {
		/* u32 a; __data_loc char[] s; __rel_loc u8[] r; char[4] c */
		len = 16;
		dlen = 1 + rn(20);		/* s, with its NUL */
		memset(p + len, 's', dlen - 1);
		p[len + dlen - 1] = '\0';
		loc = DYN_LOC(UE_HDR_SIZE + len, dlen);
		if (bad && which == 0)
			loc = DYN_LOC(UE_HDR_SIZE + len + dlen + rn(50), 1);
		else if (bad && which == 1)
			loc = DYN_LOC(UE_HDR_SIZE + len, dlen - 1);
		else if (bad)
			loc = DYN_LOC(rn(UE_HDR_SIZE), dlen);
		memcpy(p + 4, &loc, 4);
		len += dlen;
		dlen = rn(10);			/* r: bytes, may be empty */
		off = UE_HDR_SIZE + len - (UE_HDR_SIZE + 8 + 4);
		loc = DYN_LOC(off, dlen);
		if (bad && which == 2)
			loc = DYN_LOC(off, dlen + 1 + rn(30));
		memcpy(p + 8, &loc, 4);
		len += dlen;
	} else {
		/* u64 x; struct foo st 12; __rel_loc char[] t */
		len = 24;
		dlen = 1 + rn(30);
		memset(p + len, 't', dlen - 1);
		p[len + dlen - 1] = bad && which == 1 ? 'x' : '\0';
		off = 0;
		loc = DYN_LOC(off, dlen);
		if (bad && which == 0)
			loc = DYN_LOC(off + dlen, 1 + rn(4));
		else if (bad && which == 2)
			loc = DYN_LOC(0, 0);
		memcpy(p + 20, &loc, 4);
		len += dlen;
	}
	/* Extra bytes after the data are fine */
	if (!bad && chance(10))
		len += rn(20);
	return len;
}

/* Fixed part of a record of field list @fl */
static const size_t fl_fixed[] = { 16, 24, 0, 5, 7, 5 };

static void op_write(struct __test_metadata *_metadata)
{
	static unsigned char rec[512];
	static struct iovec iov[1100];
	struct expect x = { 0 };
	unsigned char *payload = rec + 4;
	int fd, idx = -1, k = -1, ret = 0, nr = 0, i, kind = rn(100);
	size_t plen = 0, fixed = 0, total, pos;
	bool enabled = false, known = true, bad = false, unreadable = false;
	bool big = false;
	char what[200];
	ssize_t wr;

	/* Which file and index */
	if (rn(2)) {
		k = rn(NR_K);
		fd = g.keeper;
		idx = g.kidx[k];
	} else {
		int f = rn(NR_FD), ev;

		fd = g.files[f].fd;
		ev = g.nr_events ? (int)rn(g.nr_events) : -1;
		if (ev >= 0 && g.files[f].idx[ev] >= 0) {
			idx = g.files[f].idx[ev];
			if (!g.events[ev].multi && g.events[ev].name < NR_K)
				k = g.events[ev].name;
			else
				fixed = fl_fixed[g.events[ev].fl];
		} else {
			known = false;
			idx = rn(3) ? 100000 + rn(1000) : -1 - (int)rn(1000);
		}
	}
	if (k >= 0) {
		enabled = g.enabled[k];
		fixed = fl_fixed[k];
	}

	memcpy(rec, &idx, 4);
	if (k == 0 || k == 1) {
		bad = kind >= 60 && kind < 75;
		plen = gen_payload(k, payload, bad);
	} else {
		plen = rn(40);
		memset(payload, 0, plen);
	}
	if (kind >= 75 && kind < 82 && fixed)
		plen = rn(fixed);		/* short */

	/* Split into iovecs, the index too */
	total = 4 + plen;
	pos = 0;
	while (pos < total && nr < 16) {
		size_t n = rn(2) ? total - pos : rn(total - pos + 1);

		if (nr == 15)
			n = total - pos;
		iov[nr].iov_base = rec + pos;
		iov[nr].iov_len = n;
		nr++;
		pos += n;
	}

	/* Hostile shapes */
	if (kind >= 82 && kind < 85) {
		/* fewer than 4 bytes */
		iov[0].iov_base = rec;
		iov[0].iov_len = rn(4);
		nr = 1;
		x.err = EFAULT;
	} else if (kind >= 85 && kind < 88) {
		/* an unreadable payload iovec */
		iov[nr].iov_base = rn(2) ? g.none : g.unmapped;
		iov[nr].iov_len = 1 + rn(64);
		plen += iov[nr].iov_len;
		nr++;
		unreadable = true;
	} else if (kind >= 88 && kind < 90) {
		/* the index itself unreadable */
		iov[0].iov_base = NULL;
		iov[0].iov_len = 4 + plen;
		nr = 1;
		x.err = EFAULT;
	} else if (kind >= 90 && kind < 92) {
		/* a kernel pointer: refused before the call */
		iov[nr].iov_base = (void *)(uintptr_t)UE_KERNEL_ADDR;
		iov[nr].iov_len = 1 + rn(64);
		nr++;
		x.err = EFAULT;
	} else if (kind >= 92 && kind < 94) {
		/* a length that does not fit */
		iov[nr].iov_base = rec;
		iov[nr].iov_len = rn(2) ? (size_t)-1 - rn(100) : 1ULL << 62;
		x.err = (ssize_t)iov[nr].iov_len < 0 ? EINVAL : EFAULT;
		nr++;
	} else if (kind >= 94 && kind < 96) {
		/* a payload too large for any buffer: dropped, not an error */
		iov[nr].iov_base = g.big;
		iov[nr].iov_len = 65536 + rn(40000);
		plen += iov[nr].iov_len;
		nr++;
		big = true;
	} else if (kind == 96) {
		/* more iovecs than IOV_MAX */
		for (i = nr; i < 1025; i++) {
			iov[i].iov_base = rec;
			iov[i].iov_len = 0;
		}
		nr = 1025;
		x.err = EINVAL;
	} else if (kind == 98) {
		/* pwritev() at a file position */
		x.err = EFAULT;
	}
	if (!nr) {
		iov[0].iov_base = rec;
		iov[0].iov_len = 0;
		nr = 1;
	}

	/* The model, in the order abi.md gives, unless the shape decided */
	total = 0;
	for (i = 0; i < nr; i++)
		total += iov[i].iov_len;
	if (!total && kind != 96 && !(kind >= 92 && kind < 94))
		x.err = 0;	/* the VFS returns 0 without calling us */
	else if (x.err)
		;
	else if (total < 4)
		x.err = EFAULT;
	else if (idx < 0)
		x.err = EINVAL;
	else if (!known)
		x.err = ENOENT;
	else if (plen < fixed)
		x.err = EINVAL;
	else if (!enabled)
		x.err = EBADF;
	else if (big)
		x.err = 0;	/* no probe reserves it, so none copies it */
	else if (unreadable || bad)
		x.err = EFAULT;

	if (kind == 97 && nr == 1)
		wr = write(fd, iov[0].iov_base, iov[0].iov_len);
	else if (kind == 98)
		wr = pwritev(fd, iov, nr, 1 + rn(100));
	else
		wr = writev(fd, iov, nr);

	ret = wr < 0 ? errno : 0;
	total = 0;
	for (i = 0; i < nr; i++)
		total += iov[i].iov_len;
	snprintf(what, sizeof(what),
		 "idx %d (K%d, %s) payload %zu, %d iovecs, kind %d", idx, k,
		 enabled ? "enabled" : "disabled", plen, nr, kind);
	note(_metadata, OP_WRITE, ret, what, &x,
	     ret == x.err && (ret || (size_t)wr == total));
}

/* DIAG_IOCSUNREG of registration @e through @fd: it must succeed */
static void unreg_one(struct __test_metadata *_metadata, struct m_enabler *e,
		      int fd)
{
	struct user_unreg u = {
		.size = sizeof(u), .disable_bit = e->bit,
		.disable_addr = e->addr,
	};
	char what[200];
	int ret;

	ret = errno_of(ioctl(fd, DIAG_IOCSUNREG, &u));
	snprintf(what, sizeof(what), "addr %#lx bit %d, registered through fd%d",
		 e->addr, e->bit, e->fd);
	note(_metadata, OP_UNREG, ret, what, &(struct expect){ 0 }, !ret);
	if (!ret)
		drop_enabler(e);
}

/* Unregister what was registered through file slot @f, through @via */
static void unreg_slot(struct __test_metadata *_metadata, int f, int via)
{
	int i;

	for (i = 0; i < MAX_ENABLERS; i++)
		if (g.en[i].used && g.en[i].fd == f)
			unreg_one(_metadata, &g.en[i], g.files[via].fd);
	gc_events();
}

/*
 * Close a file: its write indexes end, its registrations stay.  Half of
 * the time the program unregisters them too: before the close through
 * the file itself, or after it through any file.
 */
static void op_close(struct __test_metadata *_metadata)
{
	int f = rn(NR_FD), how = rn(4), i;

	if (how == 0)
		unreg_slot(_metadata, f, f);
	close(g.files[f].fd);
	for (i = 0; i < g.nr_events; i++) {
		g.events[i].fdmask &= ~(1U << f);
		g.files[f].idx[i] = -1;
	}
	gc_events();
	g.files[f].fd = ue_open();
	ASSERT_LE(0, g.files[f].fd);
	if (how == 1)
		unreg_slot(_metadata, f, rn(NR_FD));
	g.counts[OP_CLOSE][0]++;
}

/* Unmap the page with registered words, or map it again */
static void op_page(struct __test_metadata *_metadata)
{
	void *p;

	if (g.freed_mapped) {
		ASSERT_EQ(0, munmap(g.freed, g.page));
		g.freed_mapped = false;
	} else {
		p = mmap(g.freed, g.page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		ASSERT_EQ(g.freed, p);
		memset(g.freed_shadow, 0, g.page);
		g.freed_mapped = true;
	}
	g.counts[OP_PAGE][0]++;
}

/* Enable or disable K@k in ftrace: its registered bits follow */
static void set_enabled(struct __test_metadata *_metadata, int k, bool on)
{
	int i;

	g.enabled[k] = on;
	ASSERT_EQ(0, ue_enable(k == 0 ? NAME_K "0" : k == 1 ? NAME_K "1" :
			       k == 2 ? NAME_K "2" : NAME_K "3",
			       g.enabled[k]));
	for (i = 0; i < MAX_ENABLERS; i++)
		if (g.en[i].used && g.en[i].ev >= 0 &&
		    !g.events[g.en[i].ev].multi &&
		    g.events[g.en[i].ev].name == k)
			shadow_set(&g.en[i], g.enabled[k]);
}

static void op_toggle(struct __test_metadata *_metadata)
{
	int k = rn(NR_K);

	set_enabled(_metadata, k, !g.enabled[k]);
	g.counts[OP_TOGGLE][0]++;
}

static void cleanup_names(void)
{
	char name[64];
	int i;

	for (i = 0; i < NR_NAMES; i++) {
		name_of(i, name, sizeof(name));
		ue_cleanup(name);
	}
}

static void *map_at(void *addr, int prot)
{
	void *p = mmap(addr, g.page, prot, MAP_PRIVATE | MAP_ANONYMOUS |
		       (addr ? MAP_FIXED_NOREPLACE : 0), -1, 0);

	return p == MAP_FAILED || (addr && p != addr) ? NULL : p;
}

static void *map(int prot)
{
	return map_at(NULL, prot);
}

FIXTURE(fz) {
	int unused;
};

FIXTURE_SETUP(fz)
{
}

/* After the test process exited, with its registrations */
FIXTURE_TEARDOWN_PARENT(fz)
{
	if (!ue_setup())
		cleanup_names();
}

TEST_F_TIMEOUT(fz, fuzz, TIMEOUT)
{
	const char *reason = ue_setup();
	const char *env;
	char why[200], name[64], cmd[256];
	long calls = DEFAULT_CALLS, i, n;
	int op, r, k, e, fd, mismatches;
	static __u32 kword;
	long long start;

	if (reason)
		SKIP(return, "%s", reason);

	memset(&g, 0, sizeof(g));
	g.page = sysconf(_SC_PAGESIZE);
	env = getenv("UE_FUZZ_SEED");
	g.rng = env ? strtoull(env, NULL, 0) :
		(unsigned long long)time(NULL) ^ (unsigned long long)getpid() << 32;
	if (!g.rng)
		g.rng = 1;
	g.seed = g.rng;
	env = getenv("UE_FUZZ_CALLS");
	if (env)
		calls = strtol(env, NULL, 0);
	ksft_print_msg("fuzz: seed %llu (UE_FUZZ_SEED=%llu replays it), %ld calls\n",
		       g.rng, g.rng, calls);

	g.arena = map(PROT_READ | PROT_WRITE);
	g.shadow = malloc(g.page);
	g.ro = map(PROT_READ);
	g.none = map(PROT_NONE);
	g.unmapped = map_at(UNMAPPED_ADDR, PROT_NONE);
	g.freed = map_at(FREED_ADDR, PROT_READ | PROT_WRITE);
	g.freed_shadow = calloc(1, g.page);
	g.rostruct = map(PROT_READ);
	g.big = malloc(110000);
	ASSERT_TRUE(g.arena && g.shadow && g.ro && g.none && g.unmapped &&
		    g.freed && g.freed_shadow && g.rostruct && g.big);
	ASSERT_EQ(0, munmap(g.unmapped, g.page));
	g.freed_mapped = true;
	memset(g.big, 0, 110000);
	for (i = 0; i < g.page; i++)
		g.arena[i] = rnd();
	memcpy(g.shadow, g.arena, g.page);
	g.rbuf = mmap(NULL, 3 * g.page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, g.rbuf);
	ASSERT_EQ(0, mprotect(g.rbuf + 2 * g.page, g.page, PROT_NONE));
	/* "__self_fzf0 u32" running into a hole */
	g.cmd_tail = map_at(TAIL_ADDR, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, g.cmd_tail);
	g.cmd_tail += g.page - 15;
	memcpy(g.cmd_tail, NAME_F "0 u32", 15);

	cleanup_names();
	ASSERT_EQ(0, ue_trace_clear());

	/* The keeper holds K0..K3; K0 and K1 are enabled */
	g.keeper = ue_open();
	ASSERT_LE(0, g.keeper);
	for (k = 0; k < NR_K; k++) {
		gen_cmd(cmd, sizeof(cmd), k, k, NULL);
		ASSERT_EQ(0, ue_reg(g.keeper, cmd, &kword, k, &g.kidx[k]))
			TH_LOG("%s", cmd);
		e = g.nr_events++;
		g.events[e] = (struct m_event){ .name = k, .fl = k,
			.keeper = true };
		if (k < 2) {
			name_of(k, name, sizeof(name));
			ASSERT_EQ(0, ue_enable(name, true));
			g.enabled[k] = true;
		}
	}
	for (i = 0; i < NR_FD; i++) {
		g.files[i].fd = ue_open();
		ASSERT_LE(0, g.files[i].fd);
		for (e = 0; e < MAX_EVENTS; e++)
			g.files[i].idx[e] = -1;
	}

	start = ue_now_ms();
	while (g.calls < calls && g.mismatches < 20) {
		r = rn(1000);
		op = r < 440 ? OP_REG : r < 590 ? OP_UNREG : r < 640 ? OP_DEL :
		     r < 990 ? OP_WRITE : r < 994 ? OP_CLOSE :
		     r < 997 ? OP_PAGE : OP_TOGGLE;
		switch (op) {
		case OP_REG:
			op_reg(_metadata);
			break;
		case OP_UNREG:
			op_unreg(_metadata);
			break;
		case OP_DEL:
			op_del(_metadata);
			break;
		case OP_WRITE:
			op_write(_metadata);
			break;
		case OP_CLOSE:
			op_close(_metadata);
			break;
		case OP_PAGE:
			op_page(_metadata);
			break;
		default:
			op_toggle(_metadata);
		}
		if (!(g.calls % 499) || op >= OP_CLOSE) {
			if (check_memory(why, sizeof(why))) {
				g.mismatches++;
				TH_LOG("after call %ld (%s): %s", g.calls,
				       op_names[op], why);
			}
		}
	}

	for (op = 0; op < NR_OPS; op++) {
		char line[600];
		int len;

		len = snprintf(line, sizeof(line), "%-15s %7ld ok %7ld failed",
			       op_names[op], g.counts[op][0], g.counts[op][1]);
		for (e = 1; e < 140; e++)
			if (g.errnos[op][e])
				len += snprintf(line + len, sizeof(line) - len,
						" %s:%ld", strerrorname_np(e) ?
						strerrorname_np(e) : "?",
						g.errnos[op][e]);
		ksft_print_msg("%s\n", line);
	}
	ksft_print_msg("%ld calls in %lld s, %ld commands of unknown validity\n",
		       g.calls, (ue_now_ms() - start) / 1000, g.unknown_cmds);
	ksft_print_msg("at the end: %d enablers, %d events\n",
		       nr_enablers(), g.nr_events);
	EXPECT_EQ(0, g.mismatches) TH_LOG("seed %llu", g.seed);
	EXPECT_LE(calls, g.calls);
	mismatches = g.mismatches;

	/* Nothing listens any more: every registered bit is clear */
	for (k = 0; k < NR_K; k++)
		set_enabled(_metadata, k, false);
	EXPECT_EQ(0, check_memory(why, sizeof(why))) TH_LOG("%s", why);

	/*
	 * Closing the files ends their write indexes only: the
	 * registrations stay and hold their events, no bit changes
	 */
	for (i = 0; i < NR_FD; i++)
		close(g.files[i].fd);
	close(g.keeper);
	for (e = 0; e < g.nr_events; e++)
		g.events[e].fdmask = 0;
	gc_events();
	EXPECT_EQ(0, check_memory(why, sizeof(why)))
		TH_LOG("after closing the files: %s", why);
	fd = ue_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < NR_NAMES; i++)
		del_checked(_metadata, fd, i);

	/* UNREG of every registration, through a file that made none */
	for (i = 0; i < MAX_ENABLERS; i++)
		if (g.en[i].used)
			unreg_one(_metadata, &g.en[i], fd);
	for (k = 0; k < NR_K; k++)
		EXPECT_EQ(0, ue_unreg(fd, &kword, k)) TH_LOG("K%d", k);
	for (e = 0; e < g.nr_events; e++)
		g.events[e].keeper = false;
	gc_events();
	EXPECT_EQ(0, nr_enablers());
	EXPECT_EQ(0, check_memory(why, sizeof(why)))
		TH_LOG("after UNREG of everything: %s", why);

	/* Nothing holds anything: DEL takes the persistent ones */
	n = 0;
	for (i = 0; i < NR_NAMES; i++) {
		n += !del_expect(i);
		del_checked(_metadata, fd, i);
	}
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), NAME_R "%ld", i);
		EXPECT_EQ(-ENOENT, ue_del_fd(fd, name)) TH_LOG("%s", name);
	}
	close(fd);
	ksft_print_msg("%ld persistent names deleted at the end\n", n);
	EXPECT_EQ(0, g.nr_events);
	for (i = 0; i < NR_NAMES; i++) {
		name_of(i, name, sizeof(name));
		EXPECT_FALSE(ue_event_exists(NULL, name)) TH_LOG("%s", name);
	}
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), NAME_R "%ld", i);
		EXPECT_FALSE(ue_event_exists(NULL, name)) TH_LOG("%s", name);
	}
	EXPECT_EQ(mismatches, g.mismatches)
		TH_LOG("seed %llu: at the end", g.seed);
}

TEST_HARNESS_MAIN
