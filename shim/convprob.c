/* Convolution problems (CONV_PROBLEM records), from the legacy API's
 * descriptors (cudnn.c) or the backend API's operation graph
 * (cudnn_backend.c): one id per shape whichever API described it, and
 * each problem written once per trace. */
#include "hot.h"
#include "convprob.h"

#include <stddef.h>
#include <string.h>

#include "hash.h"
#include "state.h"

#define DLT_PROBLEMS_SEEN 4096

/* The ids written in this process's trace: a lock-free set. */
static _Atomic uint64_t dlt_seen[DLT_PROBLEMS_SEEN];
DLT_HOT static _Atomic uint32_t dlt_seen_n; /* ids in dlt_seen */

/* 0 means "no problem" in the records. */
static uint64_t dlt_hash_bytes(const void *p, size_t n)
{
	uint64_t h = dlt_fnv1a(p, n);
	return h ? h : 1;
}

uint64_t dlt_conv_problem_emit(struct dlt_rec_conv_problem *p)
{
	/* The id leaves out the filter format and the math type, which the
	 * backend API does not describe the way the legacy one does: the same
	 * convolution gets the same id through either API, in any run. */
	struct dlt_rec_conv_problem k = *p;
	k.format = 0;
	k.math_type = 0;
	const size_t skip = offsetof(struct dlt_rec_conv_problem, data_type);
	uint64_t id = dlt_hash_bytes((const char *)&k + skip, sizeof(k) - skip);
	p->id = id;
	/* Once per process: a lock-free set of the ids written so far. */
	for (uint32_t i = 0; i < DLT_PROBLEMS_SEEN; i++) {
		_Atomic uint64_t *slot =
			&dlt_seen[(id + i) & (DLT_PROBLEMS_SEEN - 1)];
		uint64_t cur = atomic_load(slot);
		if (cur == id)
			return id;
		if (cur == 0) {
			uint64_t zero = 0;
			if (atomic_compare_exchange_strong(slot, &zero, id)) {
				atomic_fetch_add(&dlt_seen_n, 1);
				break;
			}
			if (zero == id)
				return id;
		}
	}
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL)
		return id;
	struct dlt_rec_conv_problem *r =
		dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return id;
	memcpy((char *)r + sizeof(r->h), (const char *)p + sizeof(p->h),
	       sizeof(*r) - sizeof(r->h));
	r->h.ts = dlt_now_ns();
	dlt_rec_commit(r, DLT_REC_CONV_PROBLEM, 0, sizeof(*r));
	return id;
}

void dlt_convprob_after_fork(void)
{
	/* The child writes a trace of its own: it must write its problems
	 * there again. */
	if (atomic_load(&dlt_seen_n) == 0 ||
	    atomic_exchange(&dlt_seen_n, 0) == 0)
		return; /* untouched: even a store would copy its page */
	for (uint32_t i = 0; i < DLT_PROBLEMS_SEEN; i++)
		atomic_store_explicit(&dlt_seen[i], 0, memory_order_relaxed);
}
