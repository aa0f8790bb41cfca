/* State shared by the two halves of libdltrace.so: the LD_PRELOAD shim
 * (shim.c) and the LD_AUDIT module (audit.c).  The same file is loaded once
 * in each role, as two independent copies; see docs/design.md. */
#ifndef DLTRACE_SHIM_H
#define DLTRACE_SHIM_H

#include <stdint.h>

#include "record.h"

#define DLT_EXPORT __attribute__((visibility("default")))
#define DLT_LIKELY(x) __builtin_expect(!!(x), 1)
#define DLT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The process's writer, as this copy sees it (NULL: not tracing). */
extern struct dlt_writer *dlt_w;
/* This copy's per-thread chunk. */
extern __thread struct dlt_tls dlt_tls;

/* What the audit copy writes into the preload copy before the latter is
 * relocated, so that the preload copy finds the writer.  Lives in .bss. */
#define DLT_RENDEZVOUS_MAGIC 0x646c742d72656e64ull
struct dlt_rendezvous {
	uint64_t magic;
	struct dlt_writer *w;
	uint32_t layout;
	uint32_t pad;
};
extern struct dlt_rendezvous dlt_rendezvous;

/* Absolute path of this library file. */
extern char dlt_self_path[DLT_PATH_MAX];

/* Reads DLTRACE_PARENT and the trace directory; used by both copies when
 * they start a process's first trace. */
void dlt_start_params(struct dlt_open_params *p, char *dirbuf, size_t cap,
		      char *hostbuf, size_t hcap);

static inline struct dlt_writer *dlt_writer_on(void)
{
	struct dlt_writer *w = dlt_w;
	if (DLT_LIKELY(w != NULL) &&
	    DLT_LIKELY(atomic_load_explicit(&w->enabled, memory_order_relaxed)))
		return w;
	return NULL;
}

#endif
