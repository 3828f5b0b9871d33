/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracepoint provider of bench/lttng.c: two events of the same shape
 * as ubench's user event (u64 a; u64 b; u64 c; u64 d: 32 bytes), one that
 * bench/lttng.sh enables in its session and one that it leaves disabled.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ubench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "lttng_tp.h"

#if !defined(LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT_CLASS(ubench, payload,
	LTTNG_UST_TP_ARGS(uint64_t, a, uint64_t, b, uint64_t, c, uint64_t, d),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, a, a)
		lttng_ust_field_integer(uint64_t, b, b)
		lttng_ust_field_integer(uint64_t, c, c)
		lttng_ust_field_integer(uint64_t, d, d)
	)
)

/* enabled in the session: the figure lttng_hit */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(ubench, payload, ubench, hit,
	LTTNG_UST_TP_ARGS(uint64_t, a, uint64_t, b, uint64_t, c, uint64_t, d)
)

/* never enabled: the figure lttng_off, a disabled tracepoint site */
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(ubench, payload, ubench, off,
	LTTNG_UST_TP_ARGS(uint64_t, a, uint64_t, b, uint64_t, c, uint64_t, d)
)

#endif /* LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
