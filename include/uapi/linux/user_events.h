/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * user_events: trace events created and written by user processes.
 *
 * A process opens tracefs/user_events_data, registers an event with
 * DIAG_IOCSREG and gets back a write index.  The kernel keeps one bit of
 * the process's memory set while any tool listens to the event; while it
 * is set, the process writes records with write() or writev(): the 32-bit
 * write index first, the payload after it.
 *
 * See Documentation/trace/user_events.rst.
 */
#ifndef _UAPI_LINUX_USER_EVENTS_H
#define _UAPI_LINUX_USER_EVENTS_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Trace system of single-format events: events/user_events/NAME */
#define USER_EVENTS_SYSTEM "user_events"

/* Trace system of multi-format events: events/user_events_multi/NAME.ID */
#define USER_EVENTS_MULTI_SYSTEM "user_events_multi"

/* Prefix of user events in tracefs/dynamic_events */
#define USER_EVENTS_PREFIX "u:"

/*
 * A __data_loc or __rel_loc field is one 32-bit word: the offset of the
 * data in its low 16 bits and the size of the data in its high 16 bits.
 */
#define DYN_LOC(offset, size) ((size) << 16 | (offset))

/* Flags of struct user_reg */
enum user_reg_flag {
	/* The event stays after its last reference goes, until deleted */
	USER_EVENT_REG_PERSIST		= 1U << 0,

	/* The event may exist with several formats under one name */
	USER_EVENT_REG_MULTI_FORMAT	= 1U << 1,

	/* First bit that is not a flag */
	USER_EVENT_REG_MAX		= 1U << 2,
};

/*
 * Argument of DIAG_IOCSREG.
 *
 * @size:        sizeof(struct user_reg) as the caller knows it
 * @enable_bit:  bit of the word at @enable_addr that mirrors "enabled"
 * @enable_size: size of that word: 4, or 8 on 64-bit kernels
 * @flags:       enum user_reg_flag bits
 * @enable_addr: address of the word, naturally aligned, writable
 * @name_args:   address of the command "name[:FLAGS] [type name[;...]]"
 * @write_index: (output) index to start each write() of this event with
 */
struct user_reg {
	__u32	size;
	__u8	enable_bit;
	__u8	enable_size;
	__u16	flags;
	__u64	enable_addr;
	__u64	name_args;
	__u32	write_index;
} __attribute__((__packed__));

/*
 * Argument of DIAG_IOCSUNREG: stop updating the bit registered at
 * @disable_addr / @disable_bit.  Both reserved fields must be zero.
 */
struct user_unreg {
	__u32	size;
	__u8	disable_bit;
	__u8	__reserved;
	__u16	__reserved2;
	__u64	disable_addr;
} __attribute__((__packed__));

#define DIAG_IOC_MAGIC '*'

/* Register an event: struct user_reg */
#define DIAG_IOCSREG _IOWR(DIAG_IOC_MAGIC, 0, struct user_reg *)

/* Delete an event by name: char * */
#define DIAG_IOCSDEL _IOW(DIAG_IOC_MAGIC, 1, char *)

/* Unregister an enable bit: struct user_unreg */
#define DIAG_IOCSUNREG _IOW(DIAG_IOC_MAGIC, 2, struct user_unreg *)

#endif /* _UAPI_LINUX_USER_EVENTS_H */
