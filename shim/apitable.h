/* The table of interposed GPU library functions, generated from
 * include/dltrace/apis.def: each function's index, id, family and flags,
 * where its real definition is, and the helpers the table's value lists
 * use. */
#ifndef DLTRACE_APITABLE_H
#define DLTRACE_APITABLE_H

#include <stdatomic.h>
#include <stdint.h>

#include "dltrace/apiflags.h"
#include "dltrace/format.h"
#include "dltrace/gpu_abi.h"
#include "hash.h"

#define DLT_API_MAX_VALS 8

#define DLT_P(x) ((uint64_t)(uintptr_t)(x))
/* cudaMemcpyAsync: bytes in the low 56 bits, the copy kind above. */
#define DLT_PACK_BYTES_KIND(n, k) \
	(((uint64_t)(n)&0x00ffffffffffffffull) | ((uint64_t)(k) << 56))

/* The id carries the root's address and a secret: never record it, only a
 * hash that ties the ranks of one communicator together. */
static inline uint64_t dlt_nccl_id_hash(const dlt_ncclUniqueId *id)
{
	return id ? dlt_fnv1a(id->internal, sizeof(id->internal))
		  : DLT_FNV_OFFSET;
}

enum dlt_api_index {
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	DLT_IDX_##name,
#include "dltrace/apis.def"
#undef DLT_API
	DLT_API_N
};

struct dlt_api_info {
	uint16_t id;
	uint8_t family; /* DLT_FAM_* */
	uint8_t flags;	/* DLT_AF_* */
	const char *name;
};
extern const struct dlt_api_info dlt_apis[DLT_API_N];

/* What is known of each function in this process. */
struct dlt_api_slot {
	_Atomic(void *) link_real; /* what the exported wrapper calls */
	_Atomic(void *) h_real;	   /* what the handle wrapper calls */
	_Atomic int noted;	   /* LIB_FAMILY written for its library */
	_Atomic int second_copy;   /* NOTE written: a third real seen */
};
extern struct dlt_api_slot dlt_slots[DLT_API_N];

/* The index of a wrapped function by name (pnccl names too), or -1. */
int dlt_api_lookup(const char *name);

/* Which value of the calls of API id is their key in an AGG row (format
 * 2.6): its communicator, else its stream; -1 none. */
int dlt_api_key_index(uint16_t id);

/* The real function behind the exported wrapper of idx: the first
 * definition in load order outside this library, found once (inline: every
 * call asks; dlt_link_real_find the first time). */
void *dlt_link_real_find(int idx);
static inline void *dlt_link_real(int idx)
{
	void *p = atomic_load_explicit(&dlt_slots[idx].link_real,
				       memory_order_acquire);
	return __builtin_expect(p != NULL, 1) ? p : dlt_link_real_find(idx);
}

/* What a wrapper answers when its library is not loaded (a weak reference
 * called): the library's own "symbol not found" status. */
int dlt_missing(int fam);

/* Encodes a duration for API_CALL.dur and SOCK.dur. */
static inline uint32_t dlt_dur(uint64_t ns)
{
	if (ns < DLT_DUR_US_FLAG)
		return (uint32_t)ns;
	uint64_t us = ns / 1000;
	return us < DLT_DUR_US_FLAG - 1 ? (uint32_t)us | DLT_DUR_US_FLAG
					: DLT_DUR_OPEN - 1;
}

#endif
