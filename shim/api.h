/* Interposed GPU library functions: shared by the generated wrappers
 * (api.c) and the hand-written hooks (cudnn.c, cudnn_backend.c). */
#ifndef DLTRACE_API_H
#define DLTRACE_API_H

#include <stdint.h>

#include "dltrace/apiflags.h"
#include "dltrace/gpu_abi.h"
#include "shim.h"

#define DLT_API_MAX_VALS 8

#define DLT_P(x) ((uint64_t)(uintptr_t)(x))
/* cudaMemcpyAsync: bytes in the low 56 bits, the copy kind above. */
#define DLT_PACK_BYTES_KIND(n, k) \
	(((uint64_t)(n)&0x00ffffffffffffffull) | ((uint64_t)(k) << 56))

enum dlt_api_index {
#define DLT_API(id, fam, name, params, args, flags, labels, pre, post) \
	DLT_IDX_##name,
#include "dltrace/apis.def"
#undef DLT_API
	DLT_API_N
};

/* The return value of the call whose post hook is running. */
extern __thread int dlt_post_ret;

uint64_t dlt_nccl_id_hash(const dlt_ncclUniqueId *id);

/* cuDNN convolution problems (cudnn.c).  dir: 0 forward, 1 backward data,
 * 2 backward filter.  Returns the CONV_PROBLEM id, writing the record the
 * first time this process sees the problem; 0 if it cannot be read. */
uint64_t dlt_cudnn_problem(int dir, dlt_cudnnTensorDescriptor_t x,
			   dlt_cudnnFilterDescriptor_t w,
			   dlt_cudnnConvolutionDescriptor_t c,
			   dlt_cudnnTensorDescriptor_t y);

/* In a forked child: forget which problems were written (they are in the
 * parent's trace, not the child's). */
void dlt_cudnn_after_fork(void);

/* Writes a CONV_PROBLEM whose fields (all but the header and id) are
 * filled in; returns its id.  Writes each distinct problem once. */
uint64_t dlt_conv_problem_emit(struct dlt_rec_conv_problem *p);

/* Backend API state (cudnn_backend.c). */
void dlt_bk_created(int status, int type, void *desc);
void dlt_bk_destroyed(int status, void *desc);
void dlt_bk_set(int status, void *desc, int attr, int type, int64_t n,
		const void *el);
void dlt_bk_get(int status, void *desc, int attr, int type, int64_t req,
		const int64_t *n, const void *el);
void dlt_bk_finalized(int status, void *desc);

/* The object holding caller fetched the CUDA driver itself (dlopen of
 * libcuda or dlsym of cuGetProcAddress from outside libcudart): it carries
 * a static CUDA runtime.  Writes STATIC_RUNTIME once per object. */
void dlt_static_runtime(const char *what, void *caller);

/* Encodes a duration for API_CALL.dur. */
static inline uint32_t dlt_dur(uint64_t ns)
{
	if (ns < DLT_DUR_US_FLAG)
		return (uint32_t)ns;
	uint64_t us = ns / 1000;
	return us < DLT_DUR_US_FLAG - 1 ? (uint32_t)us | DLT_DUR_US_FLAG
					: DLT_DUR_OPEN - 1;
}

#endif
