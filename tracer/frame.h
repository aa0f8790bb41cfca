/* A record's frame: its length rounded to 8 bytes, and the commit that
 * publishes it (format.h says why the first 8 bytes go last). */
#ifndef DLTRACE_FRAME_H
#define DLTRACE_FRAME_H

#include <stdatomic.h>
#include <stdint.h>

#include "dltrace/format.h"

static inline uint32_t dlt_rec_round(uint32_t len)
{
	return (len + DLT_REC_ALIGN - 1) & ~(DLT_REC_ALIGN - 1);
}

/* Publishes a record: the release store of the first 8 bytes comes last. */
static inline void dlt_rec_commit(void *rec, uint16_t type, uint16_t flags,
				  uint32_t len)
{
	struct dlt_rec_hdr *h = rec;
	uint64_t word = (uint64_t)dlt_rec_round(len) | ((uint64_t)type << 32) |
			((uint64_t)flags << 48);
	atomic_store_explicit((_Atomic uint64_t *)(void *)h, word,
			      memory_order_release);
}

#endif
