/* Internal to the fake cuDNN libraries (7.x in one library, 9.x split into
 * graph/ops/cnn like the real one): status numbering per major, descriptor
 * layouts shared between the sub-libraries, the deterministic algorithm
 * ranking.  DLT_CUDNN_MAJOR (7 or 9) is set by CMake. */
#ifndef DLT_FAKE_CUDNN_H
#define DLT_FAKE_CUDNN_H

#include "fake_api.h"
#include "fake_env.h"

#include <stddef.h>
#include <stdint.h>

#ifndef DLT_CUDNN_MAJOR
#error "DLT_CUDNN_MAJOR must be 7 or 9"
#endif

/* The statuses the fake returns, in the numbering of its major. */
#if DLT_CUDNN_MAJOR >= 9
#define DLT_ST_SUCCESS 0
#define DLT_ST_NOT_INITIALIZED 1001
#define DLT_ST_VERSION_MISMATCH 1002
#define DLT_ST_LOADING_FAILED 1008
#define DLT_ST_BAD_PARAM 2000
#define DLT_ST_BAD_PARAM_NULL 2002
#define DLT_ST_BAD_PARAM_ATTR_TYPE 2010
#define DLT_ST_NOT_SUPPORTED 3000
#define DLT_ST_INTERNAL_ERROR 4000
#define DLT_ST_ALLOC_FAILED 4003
#define DLT_ST_EXECUTION_FAILED 5000
#define DLT_CUDNN_DEFAULT_VERSION 91900
#define DLT_CUDNN_DEFAULT_CUDART 12040
#else
#define DLT_ST_SUCCESS ((cudnnStatus_t)DLT_CUDNN7_STATUS_SUCCESS)
#define DLT_ST_NOT_INITIALIZED \
	((cudnnStatus_t)DLT_CUDNN7_STATUS_NOT_INITIALIZED)
#define DLT_ST_BAD_PARAM ((cudnnStatus_t)DLT_CUDNN7_STATUS_BAD_PARAM)
#define DLT_ST_BAD_PARAM_NULL ((cudnnStatus_t)DLT_CUDNN7_STATUS_BAD_PARAM)
#define DLT_ST_NOT_SUPPORTED ((cudnnStatus_t)DLT_CUDNN7_STATUS_NOT_SUPPORTED)
#define DLT_ST_INTERNAL_ERROR ((cudnnStatus_t)DLT_CUDNN7_STATUS_INTERNAL_ERROR)
#define DLT_ST_ALLOC_FAILED ((cudnnStatus_t)DLT_CUDNN7_STATUS_ALLOC_FAILED)
#define DLT_ST_EXECUTION_FAILED \
	((cudnnStatus_t)DLT_CUDNN7_STATUS_EXECUTION_FAILED)
#define DLT_CUDNN_DEFAULT_VERSION 7605
#define DLT_CUDNN_DEFAULT_CUDART 10010
#endif

#define DLT_MAGIC_HANDLE 0x484e444cu
#define DLT_MAGIC_TENSOR 0x544e5352u
#define DLT_MAGIC_FILTER 0x46494c54u
#define DLT_MAGIC_CONV 0x434f4e56u

struct cudnnContext {
	uint32_t magic;
	cudaStream_t stream;
};

struct cudnnTensorStruct {
	uint32_t magic;
	int set;
	int dtype;
	int nb;
	int dim[CUDNN_DIM_MAX];
	int stride[CUDNN_DIM_MAX];
};

struct cudnnFilterStruct {
	uint32_t magic;
	int set;
	int dtype;
	int format;
	int nb;
	int dim[CUDNN_DIM_MAX];
};

struct cudnnConvolutionStruct {
	uint32_t magic;
	int set;
	int nspatial;
	int pad[CUDNN_DIM_MAX - 2];
	int stride[CUDNN_DIM_MAX - 2];
	int dil[CUDNN_DIM_MAX - 2];
	int mode;
	int ctype;
	int groups;
	int math;
};

static inline int dlt_handle_ok(const struct cudnnContext *h)
{
	return h != NULL && h->magic == DLT_MAGIC_HANDLE;
}

/* cudnnGetVersion of this fake, and the sub-library version word
 * (major << 16 | minor << 8 | patch) that cuDNN 9 compares. */
static inline long dlt_cudnn_version(void)
{
	return fake_env_long("FAKE_CUDNN_VERSION", DLT_CUDNN_DEFAULT_VERSION);
}

static inline unsigned int dlt_cudnn_word(long v)
{
	if (v >= 10000)
		return (unsigned int)((v / 10000) << 16 | (v / 100 % 100) << 8 |
				      v % 100);
	return (unsigned int)((v / 1000) << 16 | (v / 100 % 10) << 8 | v % 100);
}

/* ---------------------------------------------------------------------
 * Ranking (cudnn_rank.c): deterministic fake timings derived from the
 * problem, so two runs agree and a problem ranks the same in every
 * process.  FAKE_CUDNN_ALGO_SEED=N (N != 0) changes the winner of every
 * problem with at least 64 input channels and of no other. */

enum dlt_conv_dir {
	DLT_DIR_FWD,
	DLT_DIR_BWD_DATA,
	DLT_DIR_BWD_FILTER,
	DLT_DIR_ENGINE, /* backend engines of a convolution-forward graph */
};

/* How candidates are listed: by heuristic (_v7, preference, backend
 * heuristics), measured (Find), measured in caller memory (FindEx). */
enum dlt_rank_mode {
	DLT_RANK_HEURISTIC,
	DLT_RANK_FIND,
	DLT_RANK_FINDEX,
};

#define DLT_MAX_CANDIDATES 10

struct dlt_conv_problem {
	long n, c, h, w; /* input */
	long k, r, s;	 /* filter: k outputs of (c / groups) x r x s */
	long oh, ow;	 /* output */
	long pad_h, pad_w, str_h, str_w, dil_h, dil_w;
	long groups;
	int dtype;
	int math;
};

struct dlt_candidate {
	int algo;
	int status;
	float time;
	size_t memory;
	int determinism;
};

/* Number of algorithms (engines) of a direction. */
int dlt_rank_count(enum dlt_conv_dir dir);

/* Whether the problem allows the algorithm at all, and what it needs. */
int dlt_rank_supported(const struct dlt_conv_problem *p, enum dlt_conv_dir dir,
		       int algo);
size_t dlt_rank_memory(const struct dlt_conv_problem *p, enum dlt_conv_dir dir,
		       int algo);

/* Every algorithm of DIR for P, best first, into OUT (DLT_MAX_CANDIDATES
 * entries); returns how many.  Unsupported ones come last with status
 * NOT_SUPPORTED and time -1; those FAKE_CUDNN_FAIL_ALGOS names keep their
 * place with the injected status.  WS_LIMIT only matters for FINDEX. */
int dlt_rank(const struct dlt_conv_problem *p, enum dlt_conv_dir dir,
	     enum dlt_rank_mode mode, size_t ws_limit,
	     struct dlt_candidate *out);

/* The status FAKE_CUDNN_FAIL_ALGOS injects for ALGO of DIR ("[dir/]id
 * [:status]" entries, dir one of fwd, bwdd, bwdf; status nsup, alloc or a
 * number), DFLT when the entry names none, 0 when not listed. */
int dlt_rank_injected(enum dlt_conv_dir dir, int algo, int dflt);

#endif
