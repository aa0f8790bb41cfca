/* Drives cuDNN convolution selection the way frameworks do, printing every
 * status and choice in a stable form.
 *
 *   fx_cudnn MODE [--dlopen]
 *     legacy7   cuDNN 7.x: _v7, Find, FindEx and the preference forms
 *     legacy9   cuDNN 9.x legacy API: _v7, Find, FindEx
 *     backend   cuDNN 9.x backend API: operation graph, heuristics, engine
 *               configurations with a knob choice, plans, Execute
 *
 * For three problems (3->16 channels 3x3, 64->64 3x3, 128->128 1x1 stride
 * 2) it selects an algorithm for each direction by each method and runs
 * the first candidate whose status is success.  Built three times:
 * fx_cudnn links libcudnn.so.9, fx_cudnn7 links libcudnn.so.7, fx_cudnn_dl
 * links neither and always uses dlopen(RTLD_LOCAL) + dlsym, as TensorFlow
 * does; --dlopen makes the linked ones take that path too.
 *
 * Exit status: 0 when every selection found a candidate that ran, 1
 * otherwise, 2 on a usage error or a library that cannot be opened. */
#define _GNU_SOURCE
#include "fake_api.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FX_LINKED
#define FX_LINKED 0 /* 7 or 9: the cuDNN major linked in */
#endif

#define FX_CUDNN_FUNCS(X)                                     \
	X(cudnnGetVersion)                                    \
	X(cudnnGetCudartVersion)                              \
	X(cudnnGetErrorString)                                \
	X(cudnnCreate)                                        \
	X(cudnnDestroy)                                       \
	X(cudnnCreateTensorDescriptor)                        \
	X(cudnnSetTensor4dDescriptor)                         \
	X(cudnnSetTensorNdDescriptor)                         \
	X(cudnnGetTensorNdDescriptor)                         \
	X(cudnnDestroyTensorDescriptor)                       \
	X(cudnnCreateFilterDescriptor)                        \
	X(cudnnSetFilter4dDescriptor)                         \
	X(cudnnGetFilterNdDescriptor)                         \
	X(cudnnDestroyFilterDescriptor)                       \
	X(cudnnCreateConvolutionDescriptor)                   \
	X(cudnnSetConvolution2dDescriptor)                    \
	X(cudnnGetConvolutionNdDescriptor)                    \
	X(cudnnSetConvolutionGroupCount)                      \
	X(cudnnGetConvolutionGroupCount)                      \
	X(cudnnSetConvolutionMathType)                        \
	X(cudnnGetConvolutionMathType)                        \
	X(cudnnDestroyConvolutionDescriptor)                  \
	X(cudnnGetConvolution2dForwardOutputDim)              \
	X(cudnnGetConvolutionForwardAlgorithmMaxCount)        \
	X(cudnnGetConvolutionBackwardDataAlgorithmMaxCount)   \
	X(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount) \
	X(cudnnGetConvolutionForwardAlgorithm_v7)             \
	X(cudnnGetConvolutionBackwardDataAlgorithm_v7)        \
	X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)      \
	X(cudnnFindConvolutionForwardAlgorithm)               \
	X(cudnnFindConvolutionBackwardDataAlgorithm)          \
	X(cudnnFindConvolutionBackwardFilterAlgorithm)        \
	X(cudnnFindConvolutionForwardAlgorithmEx)             \
	X(cudnnFindConvolutionBackwardDataAlgorithmEx)        \
	X(cudnnFindConvolutionBackwardFilterAlgorithmEx)      \
	X(cudnnConvolutionForward)                            \
	X(cudnnConvolutionBackwardData)                       \
	X(cudnnConvolutionBackwardFilter)

#define FX_CUDNN7_FUNCS(X)                          \
	X(cudnnGetConvolutionForwardAlgorithm)      \
	X(cudnnGetConvolutionBackwardDataAlgorithm) \
	X(cudnnGetConvolutionBackwardFilterAlgorithm)

#define FX_CUDNN9_FUNCS(X)               \
	X(cudnnBackendCreateDescriptor)  \
	X(cudnnBackendDestroyDescriptor) \
	X(cudnnBackendSetAttribute)      \
	X(cudnnBackendGetAttribute)      \
	X(cudnnBackendFinalize)          \
	X(cudnnBackendExecute)

#define FX_FIELD(name) __typeof__(&name) name;
static struct {
	FX_CUDNN_FUNCS(FX_FIELD)
	FX_CUDNN7_FUNCS(FX_FIELD)
	FX_CUDNN9_FUNCS(FX_FIELD)
} dl;
static int use_dl;

/* A call: direct where this build links the library, else through dlsym.
 * C7 and C9 are for functions only one major has. */
#if FX_LINKED
#define C(name, args) (use_dl ? dl.name args : name args)
#else
#define C(name, args) (dl.name args)
#endif
#if FX_LINKED == 7
#define C7(name, args) C(name, args)
#else
#define C7(name, args) (dl.name args)
#endif
#if FX_LINKED == 9
#define C9(name, args) C(name, args)
#else
#define C9(name, args) (dl.name args)
#endif

static int failures;

struct problem {
	int n, c, h, w, k, r, s, pad, stride;
};

static const struct problem problems[] = {
	{8, 3, 32, 32, 16, 3, 3, 1, 1},
	{8, 64, 32, 32, 64, 3, 3, 1, 1},
	{8, 128, 16, 16, 128, 1, 1, 0, 2},
};

/* Host buffers stand in for device memory: the fakes never touch them. */
enum { BUF = 64 << 20, FINDEX_WS = 1 << 20 };
static void *buf_x, *buf_w, *buf_y, *buf_ws;

static int open_cudnn(const char *soname, int major)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		printf("dlopen %s failed\n", soname);
		return -1;
	}
	printf("dlopen %s ok\n", soname);
	int missing = 0;
#define FX_LOOKUP(name)                                     \
	do {                                                \
		void *p_ = dlsym(h, #name);                 \
		memcpy(&dl.name, &p_, sizeof(p_));          \
		if (p_ == NULL) {                           \
			printf("dlsym %s failed\n", #name); \
			missing++;                          \
		}                                           \
	} while (0);
	FX_CUDNN_FUNCS(FX_LOOKUP)
	if (major == 7) {
		FX_CUDNN7_FUNCS(FX_LOOKUP)
	} else {
		FX_CUDNN9_FUNCS(FX_LOOKUP)
	}
	return missing ? -1 : 0;
}

struct descs {
	cudnnTensorDescriptor_t x, y;
	cudnnFilterDescriptor_t w;
	cudnnConvolutionDescriptor_t conv;
};

static int setup(cudnnHandle_t h, const struct problem *p, struct descs *d)
{
	(void)h;
	int on, oc, oh, ow;
	int st = C(cudnnCreateTensorDescriptor, (&d->x));
	st = st ? st : (int)C(cudnnCreateTensorDescriptor, (&d->y));
	st = st ? st : (int)C(cudnnCreateFilterDescriptor, (&d->w));
	st = st ? st : (int)C(cudnnCreateConvolutionDescriptor, (&d->conv));
	st = st ? st
		: (int)C(cudnnSetTensor4dDescriptor,
			 (d->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, p->n, p->c,
			  p->h, p->w));
	st = st ? st
		: (int)C(cudnnSetFilter4dDescriptor,
			 (d->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, p->k, p->c,
			  p->r, p->s));
	st = st ? st
		: (int)C(cudnnSetConvolution2dDescriptor,
			 (d->conv, p->pad, p->pad, p->stride, p->stride, 1, 1,
			  CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
	st = st ? st : (int)C(cudnnSetConvolutionGroupCount, (d->conv, 1));
	st = st ? st
		: (int)C(cudnnSetConvolutionMathType,
			 (d->conv, CUDNN_DEFAULT_MATH));
	st = st ? st
		: (int)C(cudnnGetConvolution2dForwardOutputDim,
			 (d->conv, d->x, d->w, &on, &oc, &oh, &ow));
	st = st ? st
		: (int)C(cudnnSetTensor4dDescriptor,
			 (d->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on, oc, oh,
			  ow));
	if (st != 0) {
		printf("  descriptors status=%d\n", st);
		return -1;
	}

	/* Read back what was set. */
	int nb, dims[4], strides[4], arr, pad[2], str[2], dil[2], groups;
	cudnnDataType_t dt;
	cudnnTensorFormat_t fmt;
	cudnnConvolutionMode_t mode;
	cudnnMathType_t math;
	st = C(cudnnGetTensorNdDescriptor, (d->y, 4, &dt, &nb, dims, strides));
	printf("  y status=%d dims=%dx%dx%dx%d strides=%d,%d,%d,%d\n", st,
	       dims[0], dims[1], dims[2], dims[3], strides[0], strides[1],
	       strides[2], strides[3]);
	st = C(cudnnGetFilterNdDescriptor, (d->w, 4, &dt, &fmt, &nb, dims));
	printf("  w status=%d dims=%dx%dx%dx%d format=%d\n", st, dims[0],
	       dims[1], dims[2], dims[3], (int)fmt);
	st = C(cudnnGetConvolutionNdDescriptor,
	       (d->conv, 2, &arr, pad, str, dil, &mode, &dt));
	int st2 = C(cudnnGetConvolutionGroupCount, (d->conv, &groups));
	int st3 = C(cudnnGetConvolutionMathType, (d->conv, &math));
	printf("  conv status=%d,%d,%d pad=%d,%d stride=%d,%d dil=%d,%d "
	       "mode=%d groups=%d math=%d\n",
	       st, st2, st3, pad[0], pad[1], str[0], str[1], dil[0], dil[1],
	       (int)mode, groups, (int)math);
	return 0;
}

static void teardown(struct descs *d)
{
	C(cudnnDestroyTensorDescriptor, (d->x));
	C(cudnnDestroyTensorDescriptor, (d->y));
	C(cudnnDestroyFilterDescriptor, (d->w));
	C(cudnnDestroyConvolutionDescriptor, (d->conv));
}

/* Print a candidate list and return the first candidate that succeeded. */
#define PRINT_PERF(label, st, n, perf, choice)                        \
	do {                                                          \
		printf("  %s status=%d n=%d:", label, st, n);         \
		choice = -1;                                          \
		for (int i_ = 0; st == 0 && i_ < n; i_++) {           \
			printf(" %d/%d/%.3f/%zu", (int)perf[i_].algo, \
			       (int)perf[i_].status, perf[i_].time,   \
			       perf[i_].memory);                      \
			if (choice < 0 && perf[i_].status == 0)       \
				choice = (int)perf[i_].algo;          \
		}                                                     \
		printf("\n");                                         \
	} while (0)

static const float one = 1.0f, zero = 0.0f;

static int run_fwd(cudnnHandle_t h, struct descs *d, int algo)
{
	return C(cudnnConvolutionForward,
		 (h, &one, d->x, buf_x, d->w, buf_w, d->conv,
		  (cudnnConvolutionFwdAlgo_t)algo, buf_ws, BUF, &zero, d->y,
		  buf_y));
}

static int run_bwdd(cudnnHandle_t h, struct descs *d, int algo)
{
	return C(cudnnConvolutionBackwardData,
		 (h, &one, d->w, buf_w, d->y, buf_y, d->conv,
		  (cudnnConvolutionBwdDataAlgo_t)algo, buf_ws, BUF, &zero, d->x,
		  buf_x));
}

static int run_bwdf(cudnnHandle_t h, struct descs *d, int algo)
{
	return C(cudnnConvolutionBackwardFilter,
		 (h, &one, d->x, buf_x, d->y, buf_y, d->conv,
		  (cudnnConvolutionBwdFilterAlgo_t)algo, buf_ws, BUF, &zero,
		  d->w, buf_w));
}

static void run_choice(cudnnHandle_t h, struct descs *d, const char *label,
		       int dir, int choice)
{
	int st = -1;
	if (choice >= 0)
		st = dir == 0	? run_fwd(h, d, choice)
		     : dir == 1 ? run_bwdd(h, d, choice)
				: run_bwdf(h, d, choice);
	printf("  %s choice=%d run status=%d\n", label, choice, st);
	if (st != 0)
		failures++;
}

static void legacy(cudnnHandle_t h, int major)
{
	int maxf = -1, maxd = -1, maxw = -1;
	int s1 = C(cudnnGetConvolutionForwardAlgorithmMaxCount, (h, &maxf));
	int s2 =
		C(cudnnGetConvolutionBackwardDataAlgorithmMaxCount, (h, &maxd));
	int s3 = C(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount,
		   (h, &maxw));
	printf("max counts status=%d,%d,%d fwd=%d bwd_data=%d bwd_filter=%d\n",
	       s1, s2, s3, maxf, maxd, maxw);

	for (size_t pi = 0; pi < sizeof(problems) / sizeof(problems[0]); pi++) {
		const struct problem *p = &problems[pi];
		struct descs d;
		printf("problem %zu: n=%d c=%d h=%d w=%d k=%d r=%d s=%d pad=%d "
		       "stride=%d\n",
		       pi + 1, p->n, p->c, p->h, p->w, p->k, p->r, p->s, p->pad,
		       p->stride);
		if (setup(h, p, &d) != 0) {
			failures++;
			continue;
		}
		int n, st, choice;
		cudnnConvolutionFwdAlgoPerf_t fp[8];
		cudnnConvolutionBwdDataAlgoPerf_t dp[8];
		cudnnConvolutionBwdFilterAlgoPerf_t wp[8];

		st = C(cudnnGetConvolutionForwardAlgorithm_v7,
		       (h, d.x, d.w, d.conv, d.y, 8, &n, fp));
		PRINT_PERF("fwd get_v7", st, n, fp, choice);
		run_choice(h, &d, "fwd get_v7", 0, choice);
		st = C(cudnnFindConvolutionForwardAlgorithm,
		       (h, d.x, d.w, d.conv, d.y, 8, &n, fp));
		PRINT_PERF("fwd find", st, n, fp, choice);
		run_choice(h, &d, "fwd find", 0, choice);
		st = C(cudnnFindConvolutionForwardAlgorithmEx,
		       (h, d.x, buf_x, d.w, buf_w, d.conv, d.y, buf_y, 8, &n,
			fp, buf_ws, FINDEX_WS));
		PRINT_PERF("fwd findex(ws=1MiB)", st, n, fp, choice);
		run_choice(h, &d, "fwd findex", 0, choice);

		st = C(cudnnGetConvolutionBackwardDataAlgorithm_v7,
		       (h, d.w, d.y, d.conv, d.x, 8, &n, dp));
		PRINT_PERF("bwd_data get_v7", st, n, dp, choice);
		run_choice(h, &d, "bwd_data get_v7", 1, choice);
		st = C(cudnnFindConvolutionBackwardDataAlgorithm,
		       (h, d.w, d.y, d.conv, d.x, 8, &n, dp));
		PRINT_PERF("bwd_data find", st, n, dp, choice);
		run_choice(h, &d, "bwd_data find", 1, choice);
		st = C(cudnnFindConvolutionBackwardDataAlgorithmEx,
		       (h, d.w, buf_w, d.y, buf_y, d.conv, d.x, buf_x, 8, &n,
			dp, buf_ws, FINDEX_WS));
		PRINT_PERF("bwd_data findex(ws=1MiB)", st, n, dp, choice);
		run_choice(h, &d, "bwd_data findex", 1, choice);

		st = C(cudnnGetConvolutionBackwardFilterAlgorithm_v7,
		       (h, d.x, d.y, d.conv, d.w, 8, &n, wp));
		PRINT_PERF("bwd_filter get_v7", st, n, wp, choice);
		run_choice(h, &d, "bwd_filter get_v7", 2, choice);
		st = C(cudnnFindConvolutionBackwardFilterAlgorithm,
		       (h, d.x, d.y, d.conv, d.w, 8, &n, wp));
		PRINT_PERF("bwd_filter find", st, n, wp, choice);
		run_choice(h, &d, "bwd_filter find", 2, choice);
		st = C(cudnnFindConvolutionBackwardFilterAlgorithmEx,
		       (h, d.x, buf_x, d.y, buf_y, d.conv, d.w, buf_w, 8, &n,
			wp, buf_ws, FINDEX_WS));
		PRINT_PERF("bwd_filter findex(ws=1MiB)", st, n, wp, choice);
		run_choice(h, &d, "bwd_filter findex", 2, choice);

		if (major == 7) {
			static const char *const pref[3] = {
				"no_workspace", "prefer_fastest",
				"workspace_limit(1MiB)"};
			for (int k = 0; k < 3; k++) {
				cudnnConvolutionFwdAlgo_t fa = 0;
				cudnnConvolutionBwdDataAlgo_t da = 0;
				cudnnConvolutionBwdFilterAlgo_t wa = 0;
				char label[64];
				st = C7(cudnnGetConvolutionForwardAlgorithm,
					(h, d.x, d.w, d.conv, d.y,
					 (cudnnConvolutionFwdPreference_t)k,
					 FINDEX_WS, &fa));
				snprintf(label, sizeof(label),
					 "fwd prefer %s status=%d", pref[k],
					 st);
				run_choice(h, &d, label, 0, st ? -1 : (int)fa);
				st = C7(cudnnGetConvolutionBackwardDataAlgorithm,
					(h, d.w, d.y, d.conv, d.x,
					 (cudnnConvolutionBwdDataPreference_t)k,
					 FINDEX_WS, &da));
				snprintf(label, sizeof(label),
					 "bwd_data prefer %s status=%d",
					 pref[k], st);
				run_choice(h, &d, label, 1, st ? -1 : (int)da);
				st = C7(cudnnGetConvolutionBackwardFilterAlgorithm,
					(h, d.x, d.y, d.conv, d.w,
					 (cudnnConvolutionBwdFilterPreference_t)
						 k,
					 FINDEX_WS, &wa));
				snprintf(label, sizeof(label),
					 "bwd_filter prefer %s status=%d",
					 pref[k], st);
				run_choice(h, &d, label, 2, st ? -1 : (int)wa);
			}
		}
		teardown(&d);
	}
}

/* ---------------------------------------------------------------------
 * Backend API. */

#define SET(d, name, type, count, ptr) \
	((int)C9(cudnnBackendSetAttribute, (d, name, type, count, ptr)))

static cudnnBackendDescriptor_t make(cudnnBackendDescriptorType_t t)
{
	cudnnBackendDescriptor_t d = NULL;
	int st = C9(cudnnBackendCreateDescriptor, (t, &d));
	if (st != 0) {
		printf("  create(%d) status=%d\n", (int)t, st);
		return NULL;
	}
	return d;
}

static cudnnBackendDescriptor_t tensor(int64_t uid, const int64_t dims[4])
{
	int64_t strides[4] = {dims[1] * dims[2] * dims[3], dims[2] * dims[3],
			      dims[3], 1};
	int64_t align = 16;
	cudnnDataType_t dt = CUDNN_DATA_FLOAT;
	cudnnBackendDescriptor_t t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
	int st = SET(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1,
		     &dt);
	st = st ? st
		: SET(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4,
		      dims);
	st = st ? st
		: SET(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4,
		      strides);
	st = st ? st
		: SET(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1,
		      &uid);
	st = st ? st
		: SET(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1,
		      &align);
	st = st ? st : (int)C9(cudnnBackendFinalize, (t));
	if (st != 0)
		printf("  tensor %ld status=%d\n", (long)uid, st);
	return st ? NULL : t;
}

struct graph {
	cudnnBackendDescriptor_t x, w, y, conv, op, graph;
};

static int build_graph(cudnnHandle_t h, const struct problem *p,
		       struct graph *g)
{
	int oh = (p->h + 2 * p->pad - p->r) / p->stride + 1;
	int ow = (p->w + 2 * p->pad - p->s) / p->stride + 1;
	int64_t xd[4] = {p->n, p->c, p->h, p->w};
	int64_t wd[4] = {p->k, p->c, p->r, p->s};
	int64_t yd[4] = {p->n, p->k, oh, ow};
	int64_t nsp = 2, pad[2] = {p->pad, p->pad};
	int64_t str[2] = {p->stride, p->stride}, dil[2] = {1, 1};
	cudnnDataType_t ct = CUDNN_DATA_FLOAT;
	cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
	float alpha = 1.0f, beta = 0.0f;

	memset(g, 0, sizeof(*g));
	g->x = tensor('x', xd);
	g->w = tensor('w', wd);
	g->y = tensor('y', yd);
	g->conv = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
	g->op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
	g->graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
	if (!g->x || !g->w || !g->y || !g->conv || !g->op || !g->graph)
		return -1;
	int st = SET(g->conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS,
		     CUDNN_TYPE_INT64, 1, &nsp);
	st = st ? st
		: SET(g->conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE,
		      CUDNN_TYPE_DATA_TYPE, 1, &ct);
	st = st ? st
		: SET(g->conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE,
		      CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
	st = st ? st
		: SET(g->conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS,
		      CUDNN_TYPE_INT64, 2, pad);
	st = st ? st
		: SET(g->conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
		      CUDNN_TYPE_INT64, 2, pad);
	st = st ? st
		: SET(g->conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
		      CUDNN_TYPE_INT64, 2, str);
	st = st ? st
		: SET(g->conv, CUDNN_ATTR_CONVOLUTION_DILATIONS,
		      CUDNN_TYPE_INT64, 2, dil);
	st = st ? st : (int)C9(cudnnBackendFinalize, (g->conv));
	printf("  convolution status=%d\n", st);
	if (st != 0)
		return -1;

	st = SET(g->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->x);
	st = st ? st
		: SET(g->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
		      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->w);
	st = st ? st
		: SET(g->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
		      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->y);
	st = st ? st
		: SET(g->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
		      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->conv);
	st = st ? st
		: SET(g->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
		      CUDNN_TYPE_FLOAT, 1, &alpha);
	st = st ? st
		: SET(g->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
		      CUDNN_TYPE_FLOAT, 1, &beta);
	st = st ? st : (int)C9(cudnnBackendFinalize, (g->op));
	printf("  operation status=%d\n", st);
	if (st != 0)
		return -1;

	st = SET(g->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE,
		 1, &h);
	st = st ? st
		: SET(g->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS,
		      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->op);
	st = st ? st : (int)C9(cudnnBackendFinalize, (g->graph));
	printf("  operation graph status=%d\n", st);
	return st ? -1 : 0;
}

static void free_graph(struct graph *g)
{
	cudnnBackendDescriptor_t all[] = {g->graph, g->op, g->conv,
					  g->y,	    g->w,  g->x};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] != NULL)
			C9(cudnnBackendDestroyDescriptor, (all[i]));
}

/* A plan for an engine configuration; NULL when it does not finalize. */
static cudnnBackendDescriptor_t plan_for(cudnnHandle_t h,
					 cudnnBackendDescriptor_t cfg, int *st)
{
	cudnnBackendDescriptor_t plan =
		make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
	*st = SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
		  &h);
	*st = *st ? *st
		  : SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
			CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
	*st = *st ? *st : (int)C9(cudnnBackendFinalize, (plan));
	if (*st != 0) {
		C9(cudnnBackendDestroyDescriptor, (plan));
		return NULL;
	}
	return plan;
}

/* What PyTorch's benchmark mode does with a plan: run it a few times. */
static void execute(cudnnHandle_t h, cudnnBackendDescriptor_t plan,
		    const char *label)
{
	int64_t ws = -1, len = 0, n;
	char json[512] = "";
	int st = C9(cudnnBackendGetAttribute,
		    (plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
		     CUDNN_TYPE_INT64, 1, &n, &ws));
	int st2 = C9(cudnnBackendGetAttribute,
		     (plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
		      CUDNN_TYPE_CHAR, 0, &len, NULL));
	if (st2 == 0 && len > 0 && len <= (int64_t)sizeof(json))
		st2 = C9(cudnnBackendGetAttribute,
			 (plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
			  CUDNN_TYPE_CHAR, len, &n, json));
	printf("  %s workspace status=%d size=%ld json status=%d len=%ld "
	       "%s\n",
	       label, st, (long)ws, st2, (long)len, json);

	cudnnBackendDescriptor_t pack =
		make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
	int64_t uids[3] = {'x', 'w', 'y'};
	void *ptrs[3] = {buf_x, buf_w, buf_y};
	st = SET(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3,
		 uids);
	st = st ? st
		: SET(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
		      CUDNN_TYPE_VOID_PTR, 3, ptrs);
	st = st ? st
		: SET(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
		      CUDNN_TYPE_VOID_PTR, 1, &buf_ws);
	st = st ? st : (int)C9(cudnnBackendFinalize, (pack));
	printf("  %s variant pack status=%d execute:", label, st);
	for (int i = 0; i < 3; i++) {
		int e = C9(cudnnBackendExecute, (h, plan, pack));
		printf(" %d", e);
		failures += e != 0;
	}
	printf("\n");
	C9(cudnnBackendDestroyDescriptor, (pack));
}

/* cudnn-frontend's default: ask the heuristic, build plans in its order,
 * keep the first that finalizes. */
static void by_heuristic(cudnnHandle_t h, struct graph *g)
{
	cudnnBackendDescriptor_t heur =
		make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
	cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_INSTANT;
	int64_t count = 0, n = 0;
	int st = SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
		     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->graph);
	st = st ? st
		: SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1,
		      &mode);
	st = st ? st : (int)C9(cudnnBackendFinalize, (heur));
	st = st ? st
		: (int)C9(cudnnBackendGetAttribute,
			  (heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
			   CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL));
	if (count > 16)
		count = 16;
	cudnnBackendDescriptor_t cfgs[16];
	for (int64_t i = 0; i < count; i++)
		cfgs[i] = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
	st = st ? st
		: (int)C9(cudnnBackendGetAttribute,
			  (heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
			   CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &n, cfgs));
	printf("  heuristic status=%d results=%ld\n", st, (long)n);

	cudnnBackendDescriptor_t plan = NULL;
	int failed = 0;
	for (int64_t i = 0; st == 0 && i < n && plan == NULL; i++) {
		cudnnBackendDescriptor_t eng =
			make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
		int64_t gi = -1, k;
		int est = C9(cudnnBackendGetAttribute,
			     (cfgs[i], CUDNN_ATTR_ENGINECFG_ENGINE,
			      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &k, &eng));
		est = est ? est
			  : (int)C9(cudnnBackendGetAttribute,
				    (eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
				     CUDNN_TYPE_INT64, 1, &k, &gi));
		int pst;
		plan = plan_for(h, cfgs[i], &pst);
		printf("  heuristic #%ld engine status=%d global_index=%ld "
		       "plan status=%d\n",
		       (long)i, est, (long)gi, pst);
		failed += plan == NULL;
		C9(cudnnBackendDestroyDescriptor, (eng));
	}
	printf("  heuristic: %d candidate(s) failed before one finalized\n",
	       failed);
	if (plan != NULL) {
		execute(h, plan, "heuristic plan");
		C9(cudnnBackendDestroyDescriptor, (plan));
	} else {
		failures++;
	}
	for (int64_t i = 0; i < count; i++)
		C9(cudnnBackendDestroyDescriptor, (cfgs[i]));
	C9(cudnnBackendDestroyDescriptor, (heur));
}

/* The other way: every engine by global index, each with a knob choice. */
static void by_index(cudnnHandle_t h, struct graph *g)
{
	int64_t count = 0, n = 0;
	int st = C9(cudnnBackendGetAttribute,
		    (g->graph, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
		     CUDNN_TYPE_INT64, 1, &n, &count));
	printf("  engine count status=%d count=%ld\n", st, (long)count);
	cudnnBackendDescriptor_t plan = NULL;
	int failed = 0;
	for (int64_t gi = 0; st == 0 && gi < count && plan == NULL; gi++) {
		cudnnBackendDescriptor_t eng =
			make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
		cudnnBackendDescriptor_t knob =
			make(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
		cudnnBackendDescriptor_t cfg =
			make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
		cudnnBackendKnobType_t kt = CUDNN_KNOB_TYPE_TILE_SIZE;
		int64_t kv = 1 + gi % 3;
		int est = SET(eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH,
			      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g->graph);
		est = est ? est
			  : SET(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
				CUDNN_TYPE_INT64, 1, &gi);
		est = est ? est : (int)C9(cudnnBackendFinalize, (eng));
		int kst = SET(knob, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
			      CUDNN_TYPE_KNOB_TYPE, 1, &kt);
		kst = kst ? kst
			  : SET(knob, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE,
				CUDNN_TYPE_INT64, 1, &kv);
		kst = kst ? kst : (int)C9(cudnnBackendFinalize, (knob));
		int cst = est;
		cst = cst ? cst
			  : SET(cfg, CUDNN_ATTR_ENGINECFG_ENGINE,
				CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &eng);
		cst = cst ? cst
			  : SET(cfg, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
				CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &knob);
		cst = cst ? cst : (int)C9(cudnnBackendFinalize, (cfg));
		int pst = -1;
		if (cst == 0)
			plan = plan_for(h, cfg, &pst);
		printf("  engine %ld status=%d knob status=%d cfg status=%d "
		       "plan status=%d\n",
		       (long)gi, est, kst, cst, pst);
		failed += plan == NULL;
		if (plan != NULL)
			execute(h, plan, "engine plan");
		C9(cudnnBackendDestroyDescriptor, (cfg));
		C9(cudnnBackendDestroyDescriptor, (knob));
		C9(cudnnBackendDestroyDescriptor, (eng));
	}
	printf("  by index: %d engine(s) failed before one finalized\n",
	       failed);
	if (plan != NULL)
		C9(cudnnBackendDestroyDescriptor, (plan));
	else
		failures++;
}

static void backend(cudnnHandle_t h)
{
	for (size_t pi = 0; pi < sizeof(problems) / sizeof(problems[0]); pi++) {
		const struct problem *p = &problems[pi];
		struct graph g;
		printf("problem %zu: n=%d c=%d h=%d w=%d k=%d r=%d s=%d pad=%d "
		       "stride=%d\n",
		       pi + 1, p->n, p->c, p->h, p->w, p->k, p->r, p->s, p->pad,
		       p->stride);
		if (build_graph(h, p, &g) == 0) {
			by_heuristic(h, &g);
			by_index(h, &g);
		} else {
			failures++;
		}
		free_graph(&g);
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: fx_cudnn legacy7|legacy9|backend [--dlopen]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	use_dl = !FX_LINKED;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--dlopen") == 0)
			use_dl = 1;
		else if (mode == NULL)
			mode = argv[i];
		else
			return usage();
	}
	if (mode == NULL)
		return usage();
	int major = strcmp(mode, "legacy7") == 0   ? 7
		    : strcmp(mode, "legacy9") == 0 ? 9
		    : strcmp(mode, "backend") == 0 ? 9
						   : 0;
	if (major == 0)
		return usage();
	if (!use_dl && major != FX_LINKED) {
		fprintf(stderr,
			"fx_cudnn: this build links cuDNN %d; use --dlopen "
			"for %s\n",
			FX_LINKED, mode);
		return 2;
	}
	if (use_dl &&
	    open_cudnn(major == 7 ? "libcudnn.so.7" : "libcudnn.so.9", major))
		return 2;

	buf_x = calloc(1, BUF);
	buf_w = calloc(1, BUF);
	buf_y = calloc(1, BUF);
	buf_ws = calloc(1, BUF);
	if (!buf_x || !buf_w || !buf_y || !buf_ws)
		return 2;

	printf("mode=%s path=%s\n", mode, use_dl ? "dlopen" : "linked");
	printf("cudnnGetVersion=%zu cudnnGetCudartVersion=%zu\n",
	       C(cudnnGetVersion, ()), C(cudnnGetCudartVersion, ()));
	cudnnHandle_t h = NULL;
	int st = C(cudnnCreate, (&h));
	printf("cudnnCreate status=%d (%s)\n", st,
	       C(cudnnGetErrorString, ((cudnnStatus_t)st)));
	if (st != 0)
		return 1;
	if (strcmp(mode, "backend") == 0)
		backend(h);
	else
		legacy(h, major);
	st = C(cudnnDestroy, (h));
	printf("cudnnDestroy status=%d\n", st);
	printf("failures=%d\n", failures);
	return failures ? 1 : 0;
}
