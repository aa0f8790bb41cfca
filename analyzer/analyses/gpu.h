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

/* What one API's calls came to over the whole run (format 2.6): the calls
 * AGG records sum up (ring chunks used again, format.h) and the API_CALL
 * records still read, added together.  An AGG row's histogram buckets
 * (DLT_AGG_HIST) take the individual calls' durations too, so the median
 * of the run is one estimate over both kinds of calls. */
struct dlt_call_stats {
	uint16_t api;
	uint64_t calls;	     /* API_CALL records and AGG rows' counts */
	uint64_t errors;     /* of calls: returned other than 0 */
	uint64_t aggregated; /* of calls: summed up in AGG rows */
	/* Of calls: those with a duration (an old trace's "longer than 35
	 * minutes" has none), which total_ns, min_ns, max_ns and hist are
	 * about; min_ns is UINT64_MAX while there is none. */
	uint64_t timed;
	uint64_t total_ns, min_ns, max_ns;
	uint64_t hist[DLT_AGG_HIST];
};

/* A thread whose earlier calls of the frequent APIs survive only as
 * aggregates: the last call of the latest ring chunk an AGG summed up. */
struct dlt_agg_thread {
	uint32_t tid;
	uint64_t individual_from; /* the largest AGG last_ts, monotonic ns */
};

/* The whole run's calls per API, and where the individual ones begin. */
struct dlt_gpu_calls {
	/* One per API called; in first-seen order while the trace is read,
	 * most calls first after dlt_gpu_finish. */
	struct dlt_call_stats *api;
	size_t napi, capapi;
	/* Threads with an AGG (4,096 at most), by tid. */
	struct dlt_agg_thread *threads;
	size_t nthreads, capthreads;
	/* The latest of the threads' individual_from: before it, some
	 * thread's calls are only aggregates.  0: no AGG record. */
	uint64_t individual_from;
	uint64_t aggs; /* AGG records read */
	/* Private: index + 1 in api[] of ids below DLT_GPU_API_MAX. */
	uint16_t slot[DLT_GPU_API_MAX];
};

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
	/* Calls per api id: API_CALL records and (2.6) AGG rows' counts. */
	uint64_t calls[DLT_GPU_API_MAX];
	uint64_t errors[DLT_GPU_API_MAX]; /* of which returned non-zero */
	uint64_t api_calls;
	struct dlt_gpu_calls run;   /* the same per API, with durations */
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

/* The q-quantile (0 < q <= 1: 0.5 the median) of the n calls in hist's
 * DLT_AGG_HIST buckets, estimated by geometric interpolation inside the
 * bucket it falls in (durations spread evenly on a log scale there), the
 * bucket's bounds narrowed to [min_ns, max_ns] (pass 0 and UINT64_MAX when
 * unknown).  0 when the histogram is empty. */
uint64_t dlt_hist_quantile(const uint64_t hist[DLT_AGG_HIST], double q,
			   uint64_t min_ns, uint64_t max_ns);
/* The same for an API's whole-run calls. */
uint64_t dlt_call_stats_quantile(const struct dlt_call_stats *s, double q);
/* Moves g's whole-run calls into *out (which the caller frees with
 * dlt_gpu_calls_free), leaving g without them: for a command that keeps
 * them for many processes (summary) but not the rest. */
void dlt_gpu_calls_take(struct dlt_gpu *g, struct dlt_gpu_calls *out);
void dlt_gpu_calls_free(struct dlt_gpu_calls *c);

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
