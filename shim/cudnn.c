/* cuDNN legacy convolution API: the problem a call is about, read back
 * from its descriptors, and every candidate a selection call returned.
 *
 * The descriptor getters are pure queries (cuDNN keeps no error state), so
 * calling them after the program's call changes nothing it can see. */
#define _GNU_SOURCE
#include <string.h>

#include "apitable.h"
#include "convprob.h"
#include "hooks.h"
#include "real.h"
#include "state.h"

typedef int (*dlt_get_tensor_fn)(dlt_cudnnTensorDescriptor_t, int, int *, int *,
				 int *, int *);
typedef int (*dlt_get_filter_fn)(dlt_cudnnFilterDescriptor_t, int, int *, int *,
				 int *, int *);
typedef int (*dlt_get_conv_fn)(dlt_cudnnConvolutionDescriptor_t, int, int *,
			       int *, int *, int *, int *, int *);
typedef int (*dlt_get_int_fn)(dlt_cudnnConvolutionDescriptor_t, int *);

static struct {
	_Atomic int resolved;
	dlt_get_tensor_fn tensor;
	dlt_get_filter_fn filter;
	dlt_get_conv_fn conv;
	dlt_get_int_fn groups;
	dlt_get_int_fn math;
} dlt_getters;

static void dlt_resolve_getters(void)
{
	if (atomic_load(&dlt_getters.resolved))
		return;
	dlt_getters.tensor = (dlt_get_tensor_fn)dlt_real_lookup(
		"cudnnGetTensorNdDescriptor");
	dlt_getters.filter = (dlt_get_filter_fn)dlt_real_lookup(
		"cudnnGetFilterNdDescriptor");
	dlt_getters.conv = (dlt_get_conv_fn)dlt_real_lookup(
		"cudnnGetConvolutionNdDescriptor");
	dlt_getters.groups = (dlt_get_int_fn)dlt_real_lookup(
		"cudnnGetConvolutionGroupCount");
	dlt_getters.math =
		(dlt_get_int_fn)dlt_real_lookup("cudnnGetConvolutionMathType");
	atomic_store(&dlt_getters.resolved, 1);
}

static uint64_t dlt_cudnn_problem(int dir, dlt_cudnnTensorDescriptor_t x,
				  dlt_cudnnFilterDescriptor_t w,
				  dlt_cudnnConvolutionDescriptor_t c,
				  dlt_cudnnTensorDescriptor_t y)
{
	dlt_resolve_getters();
	if (!dlt_getters.tensor || !dlt_getters.filter || !dlt_getters.conv)
		return 0;
	struct dlt_rec_conv_problem p;
	memset(&p, 0, sizeof(p));
	int nd = 0, strides[8], dt = 0;
	if (dlt_getters.tensor(x, 8, &p.data_type, &p.nb_dims, p.x, strides) !=
	    0)
		return 0;
	if (dlt_getters.filter(w, 8, &dt, &p.format, &nd, p.w) != 0)
		return 0;
	if (dlt_getters.tensor(y, 8, &dt, &nd, p.y, strides) != 0)
		return 0;
	if (dlt_getters.conv(c, 6, &p.conv_dims, p.pad, p.stride, p.dilation,
			     &p.mode, &p.compute_type) != 0)
		return 0;
	p.groups = 1;
	if (dlt_getters.groups)
		dlt_getters.groups(c, &p.groups);
	if (dlt_getters.math)
		dlt_getters.math(c, &p.math_type);
	(void)dir; /* the direction is the calling API's, not the problem's */
	return dlt_conv_problem_emit(&p);
}

/* Writes the ALGO_RESULT of a selection call. */
static void dlt_algo_result(uint16_t api, uint64_t problem, int status,
			    const dlt_cudnnAlgoPerf_t *perf, int n, int algo)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL)
		return;
	if (perf == NULL || n < 0)
		n = 0;
	if (n > 64)
		n = 64;
	int single = perf == NULL && algo >= 0;
	uint32_t count = single ? 1 : (uint32_t)n;
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_algo_result) +
				  count * sizeof(struct dlt_algo_cand));
	struct dlt_rec_algo_result *r = dlt_rec_reserve(w, &dlt_tls, len);
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->problem = problem;
	r->status = status;
	r->n = count;
	for (uint32_t i = 0; i < count; i++) {
		struct dlt_algo_cand *c = &r->c[i];
		memset(c, 0, sizeof(*c));
		if (single) {
			c->algo = algo;
			c->time_ms = -1.0f;
			c->determinism = -1;
			c->math_type = -1;
			continue;
		}
		c->algo = perf[i].algo;
		c->status = perf[i].status;
		c->time_ms = perf[i].time;
		c->memory = perf[i].memory;
		c->determinism = perf[i].determinism;
		c->math_type = perf[i].mathType;
	}
	dlt_rec_commit(r, DLT_REC_ALGO_RESULT, api, len);
}

#define DLT_SEL(name, idx, dir, xa, wa, ya)                                   \
	void dlt_post_##name(int ret, dlt_cudnnHandle_t h, xa, wa,            \
			     dlt_cudnnConvolutionDescriptor_t c, ya, int req, \
			     int *n, dlt_cudnnAlgoPerf_t *perf)               \
	{                                                                     \
		(void)h, (void)req;                                           \
		dlt_algo_result(dlt_apis[idx].id, DLT_SEL_PROBLEM(dir), ret,  \
				perf, n ? *n : 0, -1);                        \
	}

#define DLT_SEL_PROBLEM(dir) \
	dlt_cudnn_problem(dir, DLT_X_##dir, DLT_W_##dir, c, DLT_Y_##dir)
/* Canonical (x, w, y) for each direction's parameter names. */
#define DLT_X_0 x
#define DLT_W_0 w
#define DLT_Y_0 y
#define DLT_X_1 dx
#define DLT_W_1 w
#define DLT_Y_1 dy
#define DLT_X_2 x
#define DLT_W_2 dw
#define DLT_Y_2 dy

DLT_SEL(cudnnGetConvolutionForwardAlgorithm_v7,
	DLT_IDX_cudnnGetConvolutionForwardAlgorithm_v7, 0,
	dlt_cudnnTensorDescriptor_t x, dlt_cudnnFilterDescriptor_t w,
	dlt_cudnnTensorDescriptor_t y)
DLT_SEL(cudnnFindConvolutionForwardAlgorithm,
	DLT_IDX_cudnnFindConvolutionForwardAlgorithm, 0,
	dlt_cudnnTensorDescriptor_t x, dlt_cudnnFilterDescriptor_t w,
	dlt_cudnnTensorDescriptor_t y)
DLT_SEL(cudnnGetConvolutionBackwardDataAlgorithm_v7,
	DLT_IDX_cudnnGetConvolutionBackwardDataAlgorithm_v7, 1,
	dlt_cudnnFilterDescriptor_t w, dlt_cudnnTensorDescriptor_t dy,
	dlt_cudnnTensorDescriptor_t dx)
DLT_SEL(cudnnFindConvolutionBackwardDataAlgorithm,
	DLT_IDX_cudnnFindConvolutionBackwardDataAlgorithm, 1,
	dlt_cudnnFilterDescriptor_t w, dlt_cudnnTensorDescriptor_t dy,
	dlt_cudnnTensorDescriptor_t dx)
DLT_SEL(cudnnGetConvolutionBackwardFilterAlgorithm_v7,
	DLT_IDX_cudnnGetConvolutionBackwardFilterAlgorithm_v7, 2,
	dlt_cudnnTensorDescriptor_t x, dlt_cudnnTensorDescriptor_t dy,
	dlt_cudnnFilterDescriptor_t dw)
DLT_SEL(cudnnFindConvolutionBackwardFilterAlgorithm,
	DLT_IDX_cudnnFindConvolutionBackwardFilterAlgorithm, 2,
	dlt_cudnnTensorDescriptor_t x, dlt_cudnnTensorDescriptor_t dy,
	dlt_cudnnFilterDescriptor_t dw)

/* The Ex forms take data pointers and a workspace between descriptors. */
void dlt_post_cudnnFindConvolutionForwardAlgorithmEx(
	int ret, dlt_cudnnHandle_t h, dlt_cudnnTensorDescriptor_t x,
	const void *xp, dlt_cudnnFilterDescriptor_t w, const void *wp,
	dlt_cudnnConvolutionDescriptor_t c, dlt_cudnnTensorDescriptor_t y,
	void *yp, int req, int *n, dlt_cudnnAlgoPerf_t *perf, void *ws,
	size_t wsz)
{
	(void)h, (void)xp, (void)wp, (void)yp, (void)req, (void)ws, (void)wsz;
	dlt_algo_result(
		dlt_apis[DLT_IDX_cudnnFindConvolutionForwardAlgorithmEx].id,
		dlt_cudnn_problem(0, x, w, c, y), ret, perf, n ? *n : 0, -1);
}

void dlt_post_cudnnFindConvolutionBackwardDataAlgorithmEx(
	int ret, dlt_cudnnHandle_t h, dlt_cudnnFilterDescriptor_t w,
	const void *wp, dlt_cudnnTensorDescriptor_t dy, const void *dyp,
	dlt_cudnnConvolutionDescriptor_t c, dlt_cudnnTensorDescriptor_t dx,
	void *dxp, int req, int *n, dlt_cudnnAlgoPerf_t *perf, void *ws,
	size_t wsz)
{
	(void)h, (void)wp, (void)dyp, (void)dxp, (void)req, (void)ws, (void)wsz;
	dlt_algo_result(
		dlt_apis[DLT_IDX_cudnnFindConvolutionBackwardDataAlgorithmEx]
			.id,
		dlt_cudnn_problem(1, dx, w, c, dy), ret, perf, n ? *n : 0, -1);
}

void dlt_post_cudnnFindConvolutionBackwardFilterAlgorithmEx(
	int ret, dlt_cudnnHandle_t h, dlt_cudnnTensorDescriptor_t x,
	const void *xp, dlt_cudnnTensorDescriptor_t dy, const void *dyp,
	dlt_cudnnConvolutionDescriptor_t c, dlt_cudnnFilterDescriptor_t dw,
	void *dwp, int req, int *n, dlt_cudnnAlgoPerf_t *perf, void *ws,
	size_t wsz)
{
	(void)h, (void)xp, (void)dyp, (void)dwp, (void)req, (void)ws, (void)wsz;
	dlt_algo_result(
		dlt_apis[DLT_IDX_cudnnFindConvolutionBackwardFilterAlgorithmEx]
			.id,
		dlt_cudnn_problem(2, x, dw, c, dy), ret, perf, n ? *n : 0, -1);
}

/* Pre-8.0 preference forms: one algorithm, no candidate list. */
void dlt_post_cudnnGetConvolutionForwardAlgorithm(
	int ret, dlt_cudnnHandle_t h, dlt_cudnnTensorDescriptor_t x,
	dlt_cudnnFilterDescriptor_t w, dlt_cudnnConvolutionDescriptor_t c,
	dlt_cudnnTensorDescriptor_t y, int pref, size_t limit, int *algo)
{
	(void)h, (void)pref, (void)limit;
	dlt_algo_result(
		dlt_apis[DLT_IDX_cudnnGetConvolutionForwardAlgorithm].id,
		dlt_cudnn_problem(0, x, w, c, y), ret, NULL, 0,
		algo && ret == 0 ? *algo : -1);
}

void dlt_post_cudnnGetConvolutionBackwardDataAlgorithm(
	int ret, dlt_cudnnHandle_t h, dlt_cudnnFilterDescriptor_t w,
	dlt_cudnnTensorDescriptor_t dy, dlt_cudnnConvolutionDescriptor_t c,
	dlt_cudnnTensorDescriptor_t dx, int pref, size_t limit, int *algo)
{
	(void)h, (void)pref, (void)limit;
	dlt_algo_result(
		dlt_apis[DLT_IDX_cudnnGetConvolutionBackwardDataAlgorithm].id,
		dlt_cudnn_problem(1, dx, w, c, dy), ret, NULL, 0,
		algo && ret == 0 ? *algo : -1);
}

void dlt_post_cudnnGetConvolutionBackwardFilterAlgorithm(
	int ret, dlt_cudnnHandle_t h, dlt_cudnnTensorDescriptor_t x,
	dlt_cudnnTensorDescriptor_t dy, dlt_cudnnConvolutionDescriptor_t c,
	dlt_cudnnFilterDescriptor_t dw, int pref, size_t limit, int *algo)
{
	(void)h, (void)pref, (void)limit;
	dlt_algo_result(
		dlt_apis[DLT_IDX_cudnnGetConvolutionBackwardFilterAlgorithm].id,
		dlt_cudnn_problem(2, x, dw, c, dy), ret, NULL, 0,
		algo && ret == 0 ? *algo : -1);
}

/* Executions: the problem, so that the analyzer can tie the algorithm run
 * to what the selection offered. */
static void dlt_exec_problem(uint16_t api, int ret, uint64_t problem, int algo)
{
	dlt_algo_result(api, problem, ret, NULL, 0, algo);
}

void dlt_post_cudnnConvolutionForward(
	int ret, dlt_cudnnHandle_t h, const void *alpha,
	dlt_cudnnTensorDescriptor_t x, const void *xp,
	dlt_cudnnFilterDescriptor_t w, const void *wp,
	dlt_cudnnConvolutionDescriptor_t c, int algo, void *ws, size_t wsz,
	const void *beta, dlt_cudnnTensorDescriptor_t y, void *yp)
{
	(void)h, (void)alpha, (void)xp, (void)wp, (void)ws, (void)wsz,
		(void)beta, (void)yp;
	dlt_exec_problem(dlt_apis[DLT_IDX_cudnnConvolutionForward].id, ret,
			 dlt_cudnn_problem(0, x, w, c, y), algo);
}

void dlt_post_cudnnConvolutionBackwardData(
	int ret, dlt_cudnnHandle_t h, const void *alpha,
	dlt_cudnnFilterDescriptor_t w, const void *wp,
	dlt_cudnnTensorDescriptor_t dy, const void *dyp,
	dlt_cudnnConvolutionDescriptor_t c, int algo, void *ws, size_t wsz,
	const void *beta, dlt_cudnnTensorDescriptor_t dx, void *dxp)
{
	(void)h, (void)alpha, (void)wp, (void)dyp, (void)ws, (void)wsz,
		(void)beta, (void)dxp;
	dlt_exec_problem(dlt_apis[DLT_IDX_cudnnConvolutionBackwardData].id, ret,
			 dlt_cudnn_problem(1, dx, w, c, dy), algo);
}

void dlt_post_cudnnConvolutionBackwardFilter(
	int ret, dlt_cudnnHandle_t h, const void *alpha,
	dlt_cudnnTensorDescriptor_t x, const void *xp,
	dlt_cudnnTensorDescriptor_t dy, const void *dyp,
	dlt_cudnnConvolutionDescriptor_t c, int algo, void *ws, size_t wsz,
	const void *beta, dlt_cudnnFilterDescriptor_t dw, void *dwp)
{
	(void)h, (void)alpha, (void)xp, (void)dyp, (void)ws, (void)wsz,
		(void)beta, (void)dwp;
	dlt_exec_problem(dlt_apis[DLT_IDX_cudnnConvolutionBackwardFilter].id,
			 ret, dlt_cudnn_problem(2, x, dw, c, dy), algo);
}
