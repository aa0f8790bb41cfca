/* cuDNN convolutions of one process (or of several merged): per problem and
 * direction, the latest selection and its candidates, what ran and how
 * often, and for the backend API the execution plans finalized and
 * executed.  Built while a trace is read (gpu.c feeds it record by record)
 * and bounded by the number of distinct problems and plans, never by the
 * number of records. */
#ifndef DLTRACE_CONV_H
#define DLTRACE_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dltrace/format.h"

enum dlt_conv_dir {
	DLT_CONV_FWD = 0,
	DLT_CONV_BWD_DATA = 1,
	DLT_CONV_BWD_FILTER = 2,
	DLT_CONV_NDIRS
};

/* What a legacy cuDNN API does for convolutions. */
enum dlt_conv_kind {
	DLT_CONV_NONE = 0,
	DLT_CONV_PREF, /* cudnnGet*Algorithm: preference form, one answer */
	DLT_CONV_HEUR, /* cudnnGet*Algorithm_v7: heuristics, ranked list */
	DLT_CONV_FIND, /* cudnnFind*Algorithm(Ex): measured list */
	DLT_CONV_EXEC, /* cudnnConvolution{Forward,BackwardData,...} */
};

/* Kind and direction of an API id; DLT_CONV_NONE for other APIs. */
enum dlt_conv_kind dlt_conv_api(uint16_t api, int *dir);
const char *dlt_conv_dir_name(int dir); /* "forward", ... */
/* "IMPLICIT_PRECOMP_GEMM", or NULL (numbering: docs/library-facts.md §2). */
const char *dlt_conv_algo_name(int dir, int algo);
const char *dlt_cudnn_dtype_name(int dtype); /* "FLOAT", or NULL */
/* "x=[32,3,224,224] w=[64,3,7,7] y=[...] pad=[3,3] stride=[2,2]
 * dilation=[1,1] FLOAT groups=1". */
const char *dlt_conv_problem_str(const struct dlt_rec_conv_problem *p,
				 char *buf, size_t cap);

#define DLT_CONV_MAX_CANDS 64
#define DLT_BK_MAX_KNOBS 8
#define DLT_BK_MAX_PLANS 256 /* finalize attempts kept per problem */
#define DLT_BK_PLAN_DESC 5   /* CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR */

struct dlt_conv_cand {
	int32_t algo;
	int32_t status;
	float time_ms; /* negative: not measured */
	uint64_t memory;
	int32_t determinism;
	int32_t math_type;
};

/* Timing of repeated calls. */
struct dlt_timing {
	uint64_t count;
	uint64_t failed; /* calls that returned an error */
	uint64_t timed;	 /* calls whose duration is known */
	uint64_t total_ns, min_ns, max_ns;
	uint64_t first_ts, last_ts;
	int32_t last_error; /* status of the last failed call */
};
void dlt_timing_add(struct dlt_timing *t, uint64_t ts, int32_t status,
		    bool have_dur, uint64_t dur_ns);
void dlt_timing_merge(struct dlt_timing *dst, const struct dlt_timing *src);
/* Mean duration in microseconds, negative when nothing was timed. */
double dlt_timing_mean_us(const struct dlt_timing *t);

struct dlt_conv_sel {
	bool valid;
	uint64_t seq; /* 1 for the problem's first selection, and so on */
	uint16_t api;
	enum dlt_conv_kind kind;
	int32_t status; /* of the call */
	uint64_t ts;
	uint32_t tid;
	/* The API_CALL of the selection: what was asked for, how long. */
	bool have_call;
	uint64_t call_ns;
	int64_t requested; /* candidates asked for; -1 unknown */
	int64_t workspace; /* FindEx workspace bytes; -1 unknown */
	uint32_t n;
	struct dlt_conv_cand c[DLT_CONV_MAX_CANDS];
};

/* Executions of one algorithm after one selection: an algorithm is judged
 * against the selection that preceded it (a program may select by
 * heuristics, then by measurement, and run after each). */
struct dlt_conv_exec {
	int32_t algo;
	uint64_t sel_seq;    /* the selection in force, 0 none or unknown */
	struct dlt_timing t; /* host-side durations of the execution calls */
};

#define DLT_CONV_KEEP_SELS 8 /* latest selections kept per problem */

struct dlt_bk_plan {
	uint64_t desc;
	int32_t engine; /* -1 unknown */
	int32_t status; /* of the finalize */
	uint64_t ts;
	uint32_t n_knobs;
	struct dlt_knob knobs[DLT_BK_MAX_KNOBS];
	struct dlt_timing t; /* cudnnBackendExecute calls of this plan */
};

struct dlt_conv_entry {
	uint64_t problem;
	int dir;
	bool has_shape;
	struct dlt_rec_conv_problem shape;
	/* Legacy API. */
	uint64_t nsel, nsel_failed;
	struct dlt_conv_sel last;	 /* latest selection */
	struct dlt_conv_sel last_failed; /* latest selection that failed */
	struct dlt_conv_sel *recent; /* DLT_CONV_KEEP_SELS, by seq; or NULL */
	struct dlt_conv_exec *exec;
	size_t nexec, capexec;
	/* Backend API: execution plan finalizes in the order they came. */
	struct dlt_bk_plan *plans;
	size_t nplans, capplans;
	uint64_t plans_dropped;	 /* attempts past DLT_BK_MAX_PLANS */
	uint64_t other_failures; /* engine/engine config finalizes failed */
};

struct dlt_conv_bx; /* backend executions by plan, until resolved */

struct dlt_conv_set {
	struct dlt_conv_entry *e;
	size_t n, cap;
	size_t *slots; /* open addressing over e, by (problem, dir) */
	size_t nslots;
	struct dlt_rec_conv_problem *shapes;
	size_t nshapes, capshapes;
	struct dlt_conv_bx *bx;
	size_t nbx, capbx;
	int64_t cudnn_version; /* decodes statuses; 0 unknown */
};

void dlt_conv_init(struct dlt_conv_set *s);
void dlt_conv_free(struct dlt_conv_set *s);
struct dlt_conv_entry *dlt_conv_entry(struct dlt_conv_set *s, uint64_t problem,
				      int dir);
const struct dlt_conv_entry *dlt_conv_find(const struct dlt_conv_set *s,
					   uint64_t problem, int dir);

/* An API_CALL as the convolution code needs it. */
struct dlt_call_info {
	uint16_t api;
	int32_t ret;
	uint64_t ts;
	uint64_t dur_ns; /* UINT64_MAX: too long to say */
	uint32_t nv;
	uint64_t v[4];
};
void dlt_call_info_of(const struct dlt_rec_api_call *r,
		      struct dlt_call_info *out);

/* Feeding, record by record. */
void dlt_conv_on_problem(struct dlt_conv_set *s,
			 const struct dlt_rec_conv_problem *p);
/* A selection's ALGO_RESULT; call (may be NULL) is its API_CALL. */
void dlt_conv_on_selection(struct dlt_conv_set *s,
			   const struct dlt_rec_algo_result *r, uint32_t n,
			   uint32_t tid, const struct dlt_call_info *call);
/* An execution's ALGO_RESULT (its first candidate, n of them readable)
 * and, when seen, its API_CALL. */
void dlt_conv_on_exec(struct dlt_conv_set *s,
		      const struct dlt_rec_algo_result *r, uint32_t n,
		      const struct dlt_call_info *call);
void dlt_conv_on_finalize(struct dlt_conv_set *s,
			  const struct dlt_rec_bk_finalize *r, uint32_t nknobs);
void dlt_conv_on_bk_execute(struct dlt_conv_set *s,
			    const struct dlt_call_info *call);
/* After the last record: ties executions to plans and shapes to entries,
 * and sorts the entries by (problem, direction). */
void dlt_conv_finish(struct dlt_conv_set *s);

/* Adds src's entries into dst (several processes of one run). */
void dlt_conv_merge(struct dlt_conv_set *dst, const struct dlt_conv_set *src);

/* What a problem ended up running. */
struct dlt_conv_choice {
	bool known;
	bool backend;	  /* engine (+ knobs) rather than legacy algo */
	bool executed;	  /* from executions; else the selection's pick */
	int32_t id;	  /* algo or engine */
	char knobs[160];  /* backend: "k1=2,k3=0" */
	uint64_t count;	  /* executions */
	double mean_us;	  /* host time per execution, <0 unknown */
	double select_ms; /* time the selection measured for it, <0 */
	/* Every algorithm (or engine and knobs) executed, sorted: "1,5" or
	 * "e2[k2=3];e9[]".  Two runs made the same choice when these agree;
	 * call counts may differ with the length of the runs. */
	char executed_set[256];
};
void dlt_conv_choice(const struct dlt_conv_entry *e, struct dlt_conv_choice *c);
/* "algo 1 (IMPLICIT_PRECOMP_GEMM)", "engine 42 knobs k1=2". */
const char *dlt_conv_choice_str(const struct dlt_conv_entry *e,
				const struct dlt_conv_choice *c, char *buf,
				size_t cap);
bool dlt_conv_choice_same(const struct dlt_conv_choice *a,
			  const struct dlt_conv_choice *b);

/* The selection with this seq if it is still kept, else NULL. */
const struct dlt_conv_sel *dlt_conv_sel_by_seq(const struct dlt_conv_entry *e,
					       uint64_t seq);

/* The selection's best successful candidate: the fastest measured one, or
 * the first successful one in the returned order when none was measured.
 * Returns its index in sel->c, or -1. */
int dlt_conv_best(const struct dlt_conv_sel *sel);

#endif
