/* Fake cuDNN, what libcudnn_cnn.so.9 holds: convolution descriptors,
 * legacy algorithm selection (_v7, Find, FindEx; the 7.x preference forms
 * in the 7.x fake) and the convolutions themselves, which check their
 * arguments and compute nothing.
 *
 * Knobs:
 *   FAKE_CUDNN_FAIL_ALGOS  "[fwd|bwdd|bwdf/]id[:nsup|alloc|code],…": those
 *                          algorithms keep their rank in every candidate
 *                          list but carry a failure status (NOT_SUPPORTED
 *                          from _v7, ALLOC_FAILED from Find/FindEx unless
 *                          named), and running them returns it
 *   FAKE_CUDNN_ALGO_SEED   N != 0 changes the fastest algorithm of every
 *                          problem with >= 64 input channels */
#include "fake_cudnn.h"

#include <stdlib.h>
#include <string.h>

#if DLT_CUDNN_MAJOR >= 9
extern unsigned int cudnn_graph_version;
extern unsigned int cudnn_ops_infer_version;

FAKE_EXPORT cudnnStatus_t cudnnCnnVersionCheck(void)
{
	unsigned int mine = dlt_cudnn_word(dlt_cudnn_version());
	return mine == cudnn_graph_version && mine == cudnn_ops_infer_version
		       ? DLT_ST_SUCCESS
		       : DLT_ST_VERSION_MISMATCH;
}
#endif

static int conv_ok(const struct cudnnConvolutionStruct *c)
{
	return c != NULL && c->magic == DLT_MAGIC_CONV;
}

FAKE_EXPORT cudnnStatus_t
cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc)
{
	if (convDesc == NULL)
		return DLT_ST_BAD_PARAM;
	struct cudnnConvolutionStruct *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return DLT_ST_ALLOC_FAILED;
	c->magic = DLT_MAGIC_CONV;
	c->groups = 1;
	c->math = CUDNN_DEFAULT_MATH;
	*convDesc = c;
	return DLT_ST_SUCCESS;
}

static cudnnStatus_t conv_set(cudnnConvolutionDescriptor_t c, int n,
			      const int *pad, const int *stride, const int *dil,
			      int mode, int ctype)
{
	if (!conv_ok(c) || n < 1 || n > CUDNN_DIM_MAX - 2 || pad == NULL ||
	    stride == NULL || dil == NULL ||
	    (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION) ||
	    ctype < CUDNN_DATA_FLOAT || ctype > CUDNN_DATA_FP8_E5M2)
		return DLT_ST_BAD_PARAM;
	for (int i = 0; i < n; i++)
		if (pad[i] < 0 || stride[i] <= 0 || dil[i] <= 0)
			return DLT_ST_BAD_PARAM;
	c->nspatial = n;
	memcpy(c->pad, pad, sizeof(int) * (size_t)n);
	memcpy(c->stride, stride, sizeof(int) * (size_t)n);
	memcpy(c->dil, dil, sizeof(int) * (size_t)n);
	c->mode = mode;
	c->ctype = ctype;
	c->set = 1;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnSetConvolution2dDescriptor(
	cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w, int u,
	int v, int dilation_h, int dilation_w, cudnnConvolutionMode_t mode,
	cudnnDataType_t computeType)
{
	int pad[2] = {pad_h, pad_w}, stride[2] = {u, v};
	int dil[2] = {dilation_h, dilation_w};
	return conv_set(convDesc, 2, pad, stride, dil, mode, computeType);
}

FAKE_EXPORT cudnnStatus_t cudnnSetConvolutionNdDescriptor(
	cudnnConvolutionDescriptor_t convDesc, int arrayLength,
	const int padA[], const int filterStrideA[], const int dilationA[],
	cudnnConvolutionMode_t mode, cudnnDataType_t computeType)
{
	return conv_set(convDesc, arrayLength, padA, filterStrideA, dilationA,
			mode, computeType);
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionNdDescriptor(
	const cudnnConvolutionDescriptor_t convDesc, int arrayLengthRequested,
	int *arrayLength, int padA[], int strideA[], int dilationA[],
	cudnnConvolutionMode_t *mode, cudnnDataType_t *computeType)
{
	if (!conv_ok(convDesc) || !convDesc->set || arrayLengthRequested < 0 ||
	    arrayLength == NULL || mode == NULL || computeType == NULL)
		return DLT_ST_BAD_PARAM;
	*arrayLength = convDesc->nspatial;
	for (int i = 0; i < arrayLengthRequested && i < convDesc->nspatial;
	     i++) {
		if (padA != NULL)
			padA[i] = convDesc->pad[i];
		if (strideA != NULL)
			strideA[i] = convDesc->stride[i];
		if (dilationA != NULL)
			dilationA[i] = convDesc->dil[i];
	}
	*mode = (cudnnConvolutionMode_t)convDesc->mode;
	*computeType = (cudnnDataType_t)convDesc->ctype;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnSetConvolutionGroupCount(
	cudnnConvolutionDescriptor_t convDesc, int groupCount)
{
	if (!conv_ok(convDesc) || groupCount < 1)
		return DLT_ST_BAD_PARAM;
	convDesc->groups = groupCount;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionGroupCount(
	cudnnConvolutionDescriptor_t convDesc, int *groupCount)
{
	if (!conv_ok(convDesc) || groupCount == NULL)
		return DLT_ST_BAD_PARAM;
	*groupCount = convDesc->groups;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnSetConvolutionMathType(
	cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType)
{
	if (!conv_ok(convDesc) || (int)mathType < CUDNN_DEFAULT_MATH ||
	    (int)mathType > CUDNN_FMA_MATH)
		return DLT_ST_BAD_PARAM;
	convDesc->math = mathType;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionMathType(
	cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t *mathType)
{
	if (!conv_ok(convDesc) || mathType == NULL)
		return DLT_ST_BAD_PARAM;
	*mathType = (cudnnMathType_t)convDesc->math;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t
cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc)
{
	if (convDesc == NULL)
		return DLT_ST_SUCCESS;
	if (!conv_ok(convDesc))
		return DLT_ST_BAD_PARAM;
	convDesc->magic = 0;
	free(convDesc);
	return DLT_ST_SUCCESS;
}

static int tensor_ok(const struct cudnnTensorStruct *t)
{
	return t != NULL && t->magic == DLT_MAGIC_TENSOR && t->set;
}

static int filter_ok(const struct cudnnFilterStruct *f)
{
	return f != NULL && f->magic == DLT_MAGIC_FILTER && f->set;
}

/* The output shape of x convolved with w; BAD_PARAM for shapes that do
 * not fit together. */
static cudnnStatus_t out_dims(const struct cudnnConvolutionStruct *c,
			      const struct cudnnTensorStruct *x,
			      const struct cudnnFilterStruct *w, int nb,
			      int *out)
{
	if (!conv_ok(c) || !c->set || !tensor_ok(x) || !filter_ok(w) ||
	    x->nb != w->nb || x->nb != c->nspatial + 2 || nb < x->nb)
		return DLT_ST_BAD_PARAM;
	if (x->dim[1] != w->dim[1] * c->groups || w->dim[0] % c->groups != 0)
		return DLT_ST_BAD_PARAM;
	out[0] = x->dim[0];
	out[1] = w->dim[0];
	for (int i = 0; i < c->nspatial; i++) {
		int span = c->dil[i] * (w->dim[i + 2] - 1) + 1;
		int o = (x->dim[i + 2] + 2 * c->pad[i] - span) / c->stride[i] +
			1;
		if (x->dim[i + 2] + 2 * c->pad[i] < span || o <= 0)
			return DLT_ST_BAD_PARAM;
		out[i + 2] = o;
	}
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t inputTensorDesc,
	const cudnnFilterDescriptor_t filterDesc, int *n, int *c, int *h,
	int *w)
{
	int out[4];
	if (n == NULL || c == NULL || h == NULL || w == NULL)
		return DLT_ST_BAD_PARAM;
	cudnnStatus_t st =
		out_dims(convDesc, inputTensorDesc, filterDesc, 4, out);
	if (st != DLT_ST_SUCCESS)
		return st;
	*n = out[0], *c = out[1], *h = out[2], *w = out[3];
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t inputTensorDesc,
	const cudnnFilterDescriptor_t filterDesc, int nbDims,
	int tensorOuputDimA[])
{
	if (tensorOuputDimA == NULL)
		return DLT_ST_BAD_PARAM;
	return out_dims(convDesc, inputTensorDesc, filterDesc, nbDims,
			tensorOuputDimA);
}

/* The problem behind a selection or a convolution; x is the input
 * activation and y the output one, whichever direction. */
static cudnnStatus_t problem(cudnnHandle_t handle,
			     const struct cudnnTensorStruct *x,
			     const struct cudnnFilterStruct *w,
			     const struct cudnnConvolutionStruct *c,
			     const struct cudnnTensorStruct *y,
			     struct dlt_conv_problem *p)
{
	int out[CUDNN_DIM_MAX];
	if (!dlt_handle_ok(handle))
		return DLT_ST_BAD_PARAM;
	cudnnStatus_t st = out_dims(c, x, w, CUDNN_DIM_MAX, out);
	if (st != DLT_ST_SUCCESS)
		return st;
	if (!tensor_ok(y) || y->nb != x->nb)
		return DLT_ST_BAD_PARAM;
	for (int i = 0; i < y->nb; i++)
		if (y->dim[i] != out[i])
			return DLT_ST_BAD_PARAM;
	if (x->nb != 4)
		return DLT_ST_NOT_SUPPORTED;
	memset(p, 0, sizeof(*p));
	p->n = x->dim[0], p->c = x->dim[1], p->h = x->dim[2];
	p->w = x->dim[3];
	p->k = w->dim[0], p->r = w->dim[2], p->s = w->dim[3];
	p->oh = out[2], p->ow = out[3];
	p->pad_h = c->pad[0], p->pad_w = c->pad[1];
	p->str_h = c->stride[0], p->str_w = c->stride[1];
	p->dil_h = c->dil[0], p->dil_w = c->dil[1];
	p->groups = c->groups;
	p->dtype = x->dtype;
	p->math = c->math;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t
cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle, int *count)
{
	if (!dlt_handle_ok(handle) || count == NULL)
		return DLT_ST_BAD_PARAM;
	*count = dlt_rank_count(DLT_DIR_FWD);
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(
	cudnnHandle_t handle, int *count)
{
	if (!dlt_handle_ok(handle) || count == NULL)
		return DLT_ST_BAD_PARAM;
	*count = dlt_rank_count(DLT_DIR_BWD_DATA);
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(
	cudnnHandle_t handle, int *count)
{
	if (!dlt_handle_ok(handle) || count == NULL)
		return DLT_ST_BAD_PARAM;
	*count = dlt_rank_count(DLT_DIR_BWD_FILTER);
	return DLT_ST_SUCCESS;
}

/* The three perf structs share one layout (checked by abi_check.c); the
 * macro fills whichever one it is given. */
#define FILL_PERF(perf, cand, n, math)                                        \
	do {                                                                  \
		for (int i_ = 0; i_ < (n); i_++) {                            \
			memset(&(perf)[i_], 0, sizeof((perf)[i_]));           \
			(perf)[i_].algo = (cand)[i_].algo;                    \
			(perf)[i_].status = (cudnnStatus_t)(cand)[i_].status; \
			(perf)[i_].time = (cand)[i_].time;                    \
			(perf)[i_].memory = (cand)[i_].memory;                \
			(perf)[i_].determinism =                              \
				(cudnnDeterminism_t)(cand)[i_].determinism;   \
			(perf)[i_].mathType = (cudnnMathType_t)(math);        \
		}                                                             \
	} while (0)

/* Rank the candidates for a selection call; *n is how many to return. */
static cudnnStatus_t
select_common(cudnnHandle_t handle, const struct cudnnTensorStruct *x,
	      const struct cudnnFilterStruct *w,
	      const struct cudnnConvolutionStruct *c,
	      const struct cudnnTensorStruct *y, enum dlt_conv_dir dir,
	      enum dlt_rank_mode mode, size_t ws, int requested, int *returned,
	      const void *perf, struct dlt_candidate *cand, int *n)
{
	struct dlt_conv_problem p;
	if (requested < 1 || returned == NULL || perf == NULL)
		return DLT_ST_BAD_PARAM;
	cudnnStatus_t st = problem(handle, x, w, c, y, &p);
	if (st != DLT_ST_SUCCESS)
		return st;
	int total = dlt_rank(&p, dir, mode, ws, cand);
	*n = requested < total ? requested : total;
	*returned = *n;
	return DLT_ST_SUCCESS;
}

#define SELECT(dir, mode, ws, x, w, c, y, req, ret, perf)                     \
	do {                                                                  \
		struct dlt_candidate cand_[DLT_MAX_CANDIDATES];               \
		int n_ = 0;                                                   \
		cudnnStatus_t st_ =                                           \
			select_common(handle, x, w, c, y, dir, mode, ws, req, \
				      ret, perf, cand_, &n_);                 \
		if (st_ != DLT_ST_SUCCESS)                                    \
			return st_;                                           \
		FILL_PERF(perf, cand_, n_, (c)->math);                        \
		return DLT_ST_SUCCESS;                                        \
	} while (0)

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
	const cudnnFilterDescriptor_t filterDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t destDesc, const int requestedAlgoCount,
	int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
	SELECT(DLT_DIR_FWD, DLT_RANK_HEURISTIC, 0, srcDesc, filterDesc,
	       convDesc, destDesc, requestedAlgoCount, returnedAlgoCount,
	       perfResults);
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
	cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
	const cudnnTensorDescriptor_t diffDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,
	int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
	SELECT(DLT_DIR_BWD_DATA, DLT_RANK_HEURISTIC, 0, gradDesc, filterDesc,
	       convDesc, diffDesc, requestedAlgoCount, returnedAlgoCount,
	       perfResults);
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
	const cudnnTensorDescriptor_t diffDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnFilterDescriptor_t gradDesc, const int requestedAlgoCount,
	int *returnedAlgoCount,
	cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
	SELECT(DLT_DIR_BWD_FILTER, DLT_RANK_HEURISTIC, 0, srcDesc, gradDesc,
	       convDesc, diffDesc, requestedAlgoCount, returnedAlgoCount,
	       perfResults);
}

FAKE_EXPORT cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const cudnnFilterDescriptor_t wDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
	int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults)
{
	SELECT(DLT_DIR_FWD, DLT_RANK_FIND, 0, xDesc, wDesc, convDesc, yDesc,
	       requestedAlgoCount, returnedAlgoCount, perfResults);
}

FAKE_EXPORT cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const void *x, const cudnnFilterDescriptor_t wDesc, const void *w,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t yDesc, void *y,
	const int requestedAlgoCount, int *returnedAlgoCount,
	cudnnConvolutionFwdAlgoPerf_t *perfResults, void *workSpace,
	size_t workSpaceSizeInBytes)
{
	if (x == NULL || w == NULL || y == NULL)
		return DLT_ST_BAD_PARAM;
	if (workSpace == NULL)
		workSpaceSizeInBytes = 0;
	SELECT(DLT_DIR_FWD, DLT_RANK_FINDEX, workSpaceSizeInBytes, xDesc, wDesc,
	       convDesc, yDesc, requestedAlgoCount, returnedAlgoCount,
	       perfResults);
}

FAKE_EXPORT cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(
	cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
	const cudnnTensorDescriptor_t dyDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount,
	int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults)
{
	SELECT(DLT_DIR_BWD_DATA, DLT_RANK_FIND, 0, dxDesc, wDesc, convDesc,
	       dyDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
}

FAKE_EXPORT cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
	cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
	const void *w, const cudnnTensorDescriptor_t dyDesc, const void *dy,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t dxDesc, void *dx,
	const int requestedAlgoCount, int *returnedAlgoCount,
	cudnnConvolutionBwdDataAlgoPerf_t *perfResults, void *workSpace,
	size_t workSpaceSizeInBytes)
{
	if (w == NULL || dy == NULL || dx == NULL)
		return DLT_ST_BAD_PARAM;
	if (workSpace == NULL)
		workSpaceSizeInBytes = 0;
	SELECT(DLT_DIR_BWD_DATA, DLT_RANK_FINDEX, workSpaceSizeInBytes, dxDesc,
	       wDesc, convDesc, dyDesc, requestedAlgoCount, returnedAlgoCount,
	       perfResults);
}

FAKE_EXPORT cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const cudnnTensorDescriptor_t dyDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount,
	int *returnedAlgoCount,
	cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)
{
	SELECT(DLT_DIR_BWD_FILTER, DLT_RANK_FIND, 0, xDesc, dwDesc, convDesc,
	       dyDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
}

FAKE_EXPORT cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const void *x, const cudnnTensorDescriptor_t dyDesc, const void *y,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnFilterDescriptor_t dwDesc, void *dw,
	const int requestedAlgoCount, int *returnedAlgoCount,
	cudnnConvolutionBwdFilterAlgoPerf_t *perfResults, void *workSpace,
	size_t workSpaceSizeInBytes)
{
	if (x == NULL || y == NULL || dw == NULL)
		return DLT_ST_BAD_PARAM;
	if (workSpace == NULL)
		workSpaceSizeInBytes = 0;
	SELECT(DLT_DIR_BWD_FILTER, DLT_RANK_FINDEX, workSpaceSizeInBytes, xDesc,
	       dwDesc, convDesc, dyDesc, requestedAlgoCount, returnedAlgoCount,
	       perfResults);
}

static cudnnStatus_t workspace(cudnnHandle_t handle,
			       const struct cudnnTensorStruct *x,
			       const struct cudnnFilterStruct *w,
			       const struct cudnnConvolutionStruct *c,
			       const struct cudnnTensorStruct *y,
			       enum dlt_conv_dir dir, int algo, size_t *size)
{
	struct dlt_conv_problem p;
	if (size == NULL || algo < 0 || algo >= dlt_rank_count(dir))
		return DLT_ST_BAD_PARAM;
	cudnnStatus_t st = problem(handle, x, w, c, y, &p);
	if (st != DLT_ST_SUCCESS)
		return st;
	if (!dlt_rank_supported(&p, dir, algo))
		return DLT_ST_NOT_SUPPORTED;
	*size = dlt_rank_memory(&p, dir, algo);
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const cudnnFilterDescriptor_t wDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t yDesc, cudnnConvolutionFwdAlgo_t algo,
	size_t *sizeInBytes)
{
	return workspace(handle, xDesc, wDesc, convDesc, yDesc, DLT_DIR_FWD,
			 algo, sizeInBytes);
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
	cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
	const cudnnTensorDescriptor_t dyDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t dxDesc,
	cudnnConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes)
{
	return workspace(handle, dxDesc, wDesc, convDesc, dyDesc,
			 DLT_DIR_BWD_DATA, algo, sizeInBytes);
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const cudnnTensorDescriptor_t dyDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnFilterDescriptor_t gradDesc,
	cudnnConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes)
{
	return workspace(handle, xDesc, gradDesc, convDesc, dyDesc,
			 DLT_DIR_BWD_FILTER, algo, sizeInBytes);
}

/* A convolution: every check the real one makes on its arguments, no
 * arithmetic.  An algorithm FAKE_CUDNN_FAIL_ALGOS names fails here too. */
static cudnnStatus_t run(cudnnHandle_t handle, const void *alpha,
			 const void *beta, const struct cudnnTensorStruct *x,
			 const struct cudnnFilterStruct *w,
			 const struct cudnnConvolutionStruct *c,
			 const struct cudnnTensorStruct *y, const void *in1,
			 const void *in2, void *out, enum dlt_conv_dir dir,
			 int algo, void *ws, size_t ws_size)
{
	struct dlt_conv_problem p;
	if (alpha == NULL || beta == NULL || in1 == NULL || in2 == NULL ||
	    out == NULL || algo < 0 || algo >= dlt_rank_count(dir))
		return DLT_ST_BAD_PARAM;
	cudnnStatus_t st = problem(handle, x, w, c, y, &p);
	if (st != DLT_ST_SUCCESS)
		return st;
	if (!dlt_rank_supported(&p, dir, algo))
		return DLT_ST_NOT_SUPPORTED;
	int inj = dlt_rank_injected(dir, algo, DLT_ST_NOT_SUPPORTED);
	if (inj != 0)
		return inj;
	if (dlt_rank_memory(&p, dir, algo) > (ws != NULL ? ws_size : 0))
		return DLT_ST_BAD_PARAM;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t
cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
			const cudnnTensorDescriptor_t xDesc, const void *x,
			const cudnnFilterDescriptor_t wDesc, const void *w,
			const cudnnConvolutionDescriptor_t convDesc,
			cudnnConvolutionFwdAlgo_t algo, void *workSpace,
			size_t workSpaceSizeInBytes, const void *beta,
			const cudnnTensorDescriptor_t yDesc, void *y)
{
	return run(handle, alpha, beta, xDesc, wDesc, convDesc, yDesc, x, w, y,
		   DLT_DIR_FWD, algo, workSpace, workSpaceSizeInBytes);
}

FAKE_EXPORT cudnnStatus_t cudnnConvolutionBackwardData(
	cudnnHandle_t handle, const void *alpha,
	const cudnnFilterDescriptor_t wDesc, const void *w,
	const cudnnTensorDescriptor_t dyDesc, const void *dy,
	const cudnnConvolutionDescriptor_t convDesc,
	cudnnConvolutionBwdDataAlgo_t algo, void *workSpace,
	size_t workSpaceSizeInBytes, const void *beta,
	const cudnnTensorDescriptor_t dxDesc, void *dx)
{
	return run(handle, alpha, beta, dxDesc, wDesc, convDesc, dyDesc, w, dy,
		   dx, DLT_DIR_BWD_DATA, algo, workSpace, workSpaceSizeInBytes);
}

FAKE_EXPORT cudnnStatus_t cudnnConvolutionBackwardFilter(
	cudnnHandle_t handle, const void *alpha,
	const cudnnTensorDescriptor_t xDesc, const void *x,
	const cudnnTensorDescriptor_t dyDesc, const void *dy,
	const cudnnConvolutionDescriptor_t convDesc,
	cudnnConvolutionBwdFilterAlgo_t algo, void *workSpace,
	size_t workSpaceSizeInBytes, const void *beta,
	const cudnnFilterDescriptor_t dwDesc, void *dw)
{
	return run(handle, alpha, beta, xDesc, dwDesc, convDesc, dyDesc, x, dy,
		   dw, DLT_DIR_BWD_FILTER, algo, workSpace,
		   workSpaceSizeInBytes);
}

#if DLT_CUDNN_MAJOR < 8
/* The 7.x preference forms: the fastest algorithm within the memory the
 * preference allows, by heuristic.  They do not run anything, so an
 * algorithm FAKE_CUDNN_FAIL_ALGOS names can be chosen and then fail when
 * the convolution runs. */
static cudnnStatus_t prefer(cudnnHandle_t handle,
			    const struct cudnnTensorStruct *x,
			    const struct cudnnFilterStruct *w,
			    const struct cudnnConvolutionStruct *c,
			    const struct cudnnTensorStruct *y,
			    enum dlt_conv_dir dir, int preference, size_t limit,
			    int *algo)
{
	struct dlt_conv_problem p;
	struct dlt_candidate cand[DLT_MAX_CANDIDATES];
	if (algo == NULL || preference < 0 || preference > 2)
		return DLT_ST_BAD_PARAM;
	cudnnStatus_t st = problem(handle, x, w, c, y, &p);
	if (st != DLT_ST_SUCCESS)
		return st;
	/* NO_WORKSPACE 0, PREFER_FASTEST 1, SPECIFY_WORKSPACE_LIMIT 2 in
	 * all three directions. */
	if (preference == 0)
		limit = 0;
	else if (preference == 1)
		limit = (size_t)-1;
	int n = dlt_rank(&p, dir, DLT_RANK_HEURISTIC, 0, cand);
	for (int i = 0; i < n; i++) {
		if (cand[i].time >= 0 && cand[i].memory <= limit) {
			*algo = cand[i].algo;
			return DLT_ST_SUCCESS;
		}
	}
	return DLT_ST_NOT_SUPPORTED;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionForwardAlgorithm(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const cudnnFilterDescriptor_t wDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t yDesc,
	cudnnConvolutionFwdPreference_t preference, size_t memoryLimitInBytes,
	cudnnConvolutionFwdAlgo_t *algo)
{
	int a = 0;
	cudnnStatus_t st = prefer(handle, xDesc, wDesc, convDesc, yDesc,
				  DLT_DIR_FWD, preference, memoryLimitInBytes,
				  algo != NULL ? &a : NULL);
	if (st == DLT_ST_SUCCESS)
		*algo = (cudnnConvolutionFwdAlgo_t)a;
	return st;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm(
	cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
	const cudnnTensorDescriptor_t dyDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t dxDesc,
	cudnnConvolutionBwdDataPreference_t preference,
	size_t memoryLimitInBytes, cudnnConvolutionBwdDataAlgo_t *algo)
{
	int a = 0;
	cudnnStatus_t st = prefer(handle, dxDesc, wDesc, convDesc, dyDesc,
				  DLT_DIR_BWD_DATA, preference,
				  memoryLimitInBytes, algo != NULL ? &a : NULL);
	if (st == DLT_ST_SUCCESS)
		*algo = (cudnnConvolutionBwdDataAlgo_t)a;
	return st;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const cudnnTensorDescriptor_t dyDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnFilterDescriptor_t dwDesc,
	cudnnConvolutionBwdFilterPreference_t preference,
	size_t memoryLimitInBytes, cudnnConvolutionBwdFilterAlgo_t *algo)
{
	int a = 0;
	cudnnStatus_t st = prefer(handle, xDesc, dwDesc, convDesc, dyDesc,
				  DLT_DIR_BWD_FILTER, preference,
				  memoryLimitInBytes, algo != NULL ? &a : NULL);
	if (st == DLT_ST_SUCCESS)
		*algo = (cudnnConvolutionBwdFilterAlgo_t)a;
	return st;
}
#endif
