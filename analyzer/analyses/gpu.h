/* What one process did with the GPU libraries, aggregated while its trace
 * is read (a struct dlt_load_hook for dlt_process_read_hooked): which files
 * answered for each family and the versions they reported, which objects
 * carry their own CUDA runtime, calls that failed grouped by function and
 * status, calls that never returned, RTLD_DEEPBIND opens, and the
 * convolutions (conv.h).
 *
 * Memory grows with the number of distinct things (functions, statuses,
 * threads, problems), never with the number of records, so hundreds of
 * long traces can be checked one after another. */
#ifndef DLTRACE_GPU_H
#define DLTRACE_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conv.h"
#include "model.h"
#include "reader.h"

/* A LIB_FAMILY record. */
struct dlt_gpu_family {
	int family; /* enum dlt_family */
	const char *path;
	uint16_t api;	 /* whose first call found it */
	uint32_t source; /* enum dlt_family_source */
	const char *kdrv;
	int64_t v[8];
	uint64_t ts;
};

/* An object with a static CUDA runtime of its own. */
struct dlt_gpu_static {
	const char *object;
	const char *via; /* the symbol or library it looked up */
	uint64_t ts;
};

#define DLT_GPU_ERR_VALS 4

/* Calls of one API that returned one status. */
struct dlt_gpu_err {
	uint16_t api;
	int32_t status;
	uint64_t count;
	uint64_t first_ts, last_ts;
	uint32_t first_tid;
	uint32_t nv; /* values of the first such call */
	uint64_t v[DLT_GPU_ERR_VALS];
};

#define DLT_GPU_OPEN_VALS 6

/* An API_ENTER that no API_CALL closed: the call never returned. */
struct dlt_gpu_open {
	uint32_t tid;
	uint16_t api;
	uint64_t ts;
	uint32_t nv;
	uint64_t v[DLT_GPU_OPEN_VALS];
};

/* dlopen calls with one name from one object with RTLD_DEEPBIND. */
struct dlt_gpu_deepbind {
	const char *name;
	const char *caller;
	int32_t mode;
	uint64_t count;
	uint64_t first_ts;
};

struct dlt_gpu_tid;

#define DLT_GPU_API_MAX 256 /* api ids below this get call counts */

struct dlt_gpu {
	struct dlt_arena_blk *arena;
	struct dlt_gpu_family *fams; /* after a first call: what rules read */
	size_t nfams, capfams;
	/* Format 2.1: versions seen at load, from the library (source LOAD)
	 * or its file (FILE): only what the process loaded, not used. */
	struct dlt_gpu_family *loaded;
	size_t nloaded, caploaded;
	struct dlt_gpu_static *statics;
	size_t nstatics, capstatics;
	struct dlt_gpu_err *errs;
	size_t nerrs, caperrs;
	struct dlt_gpu_open *opens; /* after dlt_gpu_finish */
	size_t nopens;
	struct dlt_gpu_deepbind *deep;
	size_t ndeep, capdeep;
	uint64_t calls[DLT_GPU_API_MAX];  /* API_CALL records per api id */
	uint64_t errors[DLT_GPU_API_MAX]; /* of which returned non-zero */
	uint64_t api_calls;
	uint64_t first_ts, last_ts; /* over every record with a time */
	struct dlt_conv_set conv;
	/* Private: per-thread pairing state while the trace is read. */
	struct dlt_gpu_tid *tids;
	size_t ntids, captids;
	size_t last_tid; /* index of the thread of the previous record */
};

void dlt_gpu_init(struct dlt_gpu *g);
/* The dlt_load_hook callback; ctx is the struct dlt_gpu. */
void dlt_gpu_rec(void *ctx, struct dlt_trace *t, const struct dlt_rec_view *v);
/* After the load: calls left open, backend plans tied to executions. */
void dlt_gpu_finish(struct dlt_gpu *g);
void dlt_gpu_free(struct dlt_gpu *g);

/* Reads an opened trace with its GPU aggregate (g initialised here). */
struct dlt_process *dlt_process_read_gpu(struct dlt_trace *t,
					 struct dlt_gpu *g);

/* The first LIB_FAMILY of a family, or NULL. */
const struct dlt_gpu_family *dlt_gpu_family(const struct dlt_gpu *g,
					    int family);
/* The version a family's file reported (the runtime's, the driver's,
 * cuDNN's, NCCL's), 0 or less when it did not; and as people write it
 * ("" when none). */
int64_t dlt_gpu_family_version(const struct dlt_gpu_family *f);
const char *dlt_gpu_family_version_str(const struct dlt_gpu_family *f,
				       char *buf, size_t cap);
/* The version of a loaded row: the one its library reported (a LIB_FAMILY
 * record, *from "library"), else the one its file name carries ("file
 * name": "13.0.96" of libcudart.so.13.0.96, "9" of libcudnn.so.9); "" and
 * NULL when neither. */
const char *dlt_lib_version_str(const struct dlt_process *p,
				const struct dlt_lib *lib, char *buf,
				size_t cap, const char **from);
/* The driver API version the process saw: what the runtime's or the
 * driver's first call was told by cuDriverGetVersion; 0 no driver, -1
 * unknown. */
int64_t dlt_gpu_driver_api(const struct dlt_gpu *g);
/* cudnnGetVersion of the process's cuDNN, 0 when unknown. */
int64_t dlt_gpu_cudnn_version(const struct dlt_gpu *g);
/* "cudaGetDeviceCount returned cudaErrorInsufficientDriver (35)". */
const char *dlt_gpu_err_str(const struct dlt_gpu *g,
			    const struct dlt_gpu_err *e, char *buf, size_t cap);

#endif
