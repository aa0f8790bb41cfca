/* Fake cuDNN, what libcudnn_ops.so.9 holds: tensor and filter descriptors.
 * Also part of the 7.x fake.
 *
 * Knobs (9.x):
 *   FAKE_CUDNN_OPS_VERSION  this sub-library's version only (default
 *                           FAKE_CUDNN_VERSION): a mismatch makes
 *                           cudnnOpsVersionCheck, and so cudnnCreate
 *                           through libcudnn.so.9, fail with 1002 */
#include "fake_cudnn.h"

#include <stdlib.h>
#include <string.h>

#if DLT_CUDNN_MAJOR >= 9
/* The real 9.x ops library still exports its word under the 8.x name. */
FAKE_EXPORT unsigned int cudnn_ops_infer_version;
extern unsigned int cudnn_graph_version;

__attribute__((constructor)) static void ops_init(void)
{
	long v = fake_env_long("FAKE_CUDNN_OPS_VERSION", dlt_cudnn_version());
	cudnn_ops_infer_version = dlt_cudnn_word(v);
}

FAKE_EXPORT cudnnStatus_t cudnnOpsVersionCheck(void)
{
	return cudnn_ops_infer_version == cudnn_graph_version
		       ? DLT_ST_SUCCESS
		       : DLT_ST_VERSION_MISMATCH;
}
#endif

static int dtype_ok(int t)
{
	return t >= CUDNN_DATA_FLOAT && t <= CUDNN_DATA_FP8_E5M2;
}

FAKE_EXPORT cudnnStatus_t
cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc)
{
	if (tensorDesc == NULL)
		return DLT_ST_BAD_PARAM;
	struct cudnnTensorStruct *t = calloc(1, sizeof(*t));
	if (t == NULL)
		return DLT_ST_ALLOC_FAILED;
	t->magic = DLT_MAGIC_TENSOR;
	*tensorDesc = t;
	return DLT_ST_SUCCESS;
}

static cudnnStatus_t tensor_set(cudnnTensorDescriptor_t t, int dtype, int nb,
				const int *dim, const int *stride)
{
	/* 9.19 takes 2-d tensors in spite of its documentation. */
	if (t == NULL || t->magic != DLT_MAGIC_TENSOR || !dtype_ok(dtype) ||
	    nb < 1 || nb > CUDNN_DIM_MAX || dim == NULL || stride == NULL)
		return DLT_ST_BAD_PARAM;
	for (int i = 0; i < nb; i++)
		if (dim[i] <= 0 || stride[i] <= 0)
			return DLT_ST_BAD_PARAM;
	t->dtype = dtype;
	t->nb = nb;
	memcpy(t->dim, dim, sizeof(int) * (size_t)nb);
	memcpy(t->stride, stride, sizeof(int) * (size_t)nb);
	t->set = 1;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnSetTensor4dDescriptor(
	cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format,
	cudnnDataType_t dataType, int n, int c, int h, int w)
{
	int dim[4] = {n, c, h, w}, stride[4];
	if (format == CUDNN_TENSOR_NHWC) {
		stride[0] = h * w * c, stride[1] = 1, stride[2] = w * c;
		stride[3] = c;
	} else if (format == CUDNN_TENSOR_NCHW) {
		stride[0] = c * h * w, stride[1] = h * w, stride[2] = w;
		stride[3] = 1;
	} else {
		return DLT_ST_BAD_PARAM;
	}
	return tensor_set(tensorDesc, dataType, 4, dim, stride);
}

FAKE_EXPORT cudnnStatus_t cudnnSetTensorNdDescriptor(
	cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType,
	int nbDims, const int dimA[], const int strideA[])
{
	return tensor_set(tensorDesc, dataType, nbDims, dimA, strideA);
}

FAKE_EXPORT cudnnStatus_t cudnnGetTensorNdDescriptor(
	const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
	cudnnDataType_t *dataType, int *nbDims, int dimA[], int strideA[])
{
	if (tensorDesc == NULL || tensorDesc->magic != DLT_MAGIC_TENSOR ||
	    !tensorDesc->set || nbDimsRequested < 0 || dataType == NULL ||
	    nbDims == NULL)
		return DLT_ST_BAD_PARAM;
	*dataType = (cudnnDataType_t)tensorDesc->dtype;
	*nbDims = tensorDesc->nb;
	for (int i = 0; i < nbDimsRequested && i < tensorDesc->nb; i++) {
		if (dimA != NULL)
			dimA[i] = tensorDesc->dim[i];
		if (strideA != NULL)
			strideA[i] = tensorDesc->stride[i];
	}
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t
cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc)
{
	if (tensorDesc == NULL)
		return DLT_ST_SUCCESS;
	if (tensorDesc->magic != DLT_MAGIC_TENSOR)
		return DLT_ST_BAD_PARAM;
	tensorDesc->magic = 0;
	free(tensorDesc);
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t
cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc)
{
	if (filterDesc == NULL)
		return DLT_ST_BAD_PARAM;
	struct cudnnFilterStruct *f = calloc(1, sizeof(*f));
	if (f == NULL)
		return DLT_ST_ALLOC_FAILED;
	f->magic = DLT_MAGIC_FILTER;
	*filterDesc = f;
	return DLT_ST_SUCCESS;
}

static cudnnStatus_t filter_set(cudnnFilterDescriptor_t f, int dtype,
				int format, int nb, const int *dim)
{
	if (f == NULL || f->magic != DLT_MAGIC_FILTER || !dtype_ok(dtype) ||
	    format < CUDNN_TENSOR_NCHW || format > CUDNN_TENSOR_NCHW_VECT_C ||
	    nb < 3 || nb > CUDNN_DIM_MAX || dim == NULL)
		return DLT_ST_BAD_PARAM;
	for (int i = 0; i < nb; i++)
		if (dim[i] <= 0)
			return DLT_ST_BAD_PARAM;
	f->dtype = dtype;
	f->format = format;
	f->nb = nb;
	memcpy(f->dim, dim, sizeof(int) * (size_t)nb);
	f->set = 1;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnSetFilter4dDescriptor(
	cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
	cudnnTensorFormat_t format, int k, int c, int h, int w)
{
	int dim[4] = {k, c, h, w};
	return filter_set(filterDesc, dataType, format, 4, dim);
}

FAKE_EXPORT cudnnStatus_t cudnnSetFilterNdDescriptor(
	cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
	cudnnTensorFormat_t format, int nbDims, const int filterDimA[])
{
	return filter_set(filterDesc, dataType, format, nbDims, filterDimA);
}

FAKE_EXPORT cudnnStatus_t cudnnGetFilterNdDescriptor(
	const cudnnFilterDescriptor_t filterDesc, int nbDimsRequested,
	cudnnDataType_t *dataType, cudnnTensorFormat_t *format, int *nbDims,
	int filterDimA[])
{
	if (filterDesc == NULL || filterDesc->magic != DLT_MAGIC_FILTER ||
	    !filterDesc->set || nbDimsRequested < 0 || dataType == NULL ||
	    format == NULL || nbDims == NULL)
		return DLT_ST_BAD_PARAM;
	*dataType = (cudnnDataType_t)filterDesc->dtype;
	*format = (cudnnTensorFormat_t)filterDesc->format;
	*nbDims = filterDesc->nb;
	for (int i = 0; i < nbDimsRequested && i < filterDesc->nb; i++)
		if (filterDimA != NULL)
			filterDimA[i] = filterDesc->dim[i];
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t
cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc)
{
	if (filterDesc == NULL)
		return DLT_ST_SUCCESS;
	if (filterDesc->magic != DLT_MAGIC_FILTER)
		return DLT_ST_BAD_PARAM;
	filterDesc->magic = 0;
	free(filterDesc);
	return DLT_ST_SUCCESS;
}
