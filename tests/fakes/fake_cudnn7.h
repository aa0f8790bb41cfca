/* What cuDNN 7.x declares differently from cuDNN 9 (checked against the
 * 7.x cudnn.h): the status numbering, and the preference forms of algorithm
 * selection that 8.0 removed.  Needed whichever headers are in use, as no
 * 7.x header is installed anywhere the project builds. */
#ifndef DLT_FAKE_CUDNN7_H
#define DLT_FAKE_CUDNN7_H

/* cudnnStatus_t of cuDNN <= 8 (cuDNN 9 renumbered, docs/library-facts.md §2),
 * from include/dltrace/gpu_abi.def. */
#include "dltrace/gpu_abi.def"

#define DLT_CUDNN7_ENUMERATOR(name, value) DLT_CUDNN7_STATUS_##name = (value),
enum { DLT_ABI_CUDNN8_STATUS(DLT_CUDNN7_ENUMERATOR) };
#undef DLT_CUDNN7_ENUMERATOR

typedef enum {
	CUDNN_CONVOLUTION_FWD_NO_WORKSPACE = 0,
	CUDNN_CONVOLUTION_FWD_PREFER_FASTEST = 1,
	CUDNN_CONVOLUTION_FWD_SPECIFY_WORKSPACE_LIMIT = 2,
} cudnnConvolutionFwdPreference_t;

typedef enum {
	CUDNN_CONVOLUTION_BWD_FILTER_NO_WORKSPACE = 0,
	CUDNN_CONVOLUTION_BWD_FILTER_PREFER_FASTEST = 1,
	CUDNN_CONVOLUTION_BWD_FILTER_SPECIFY_WORKSPACE_LIMIT = 2,
} cudnnConvolutionBwdFilterPreference_t;

typedef enum {
	CUDNN_CONVOLUTION_BWD_DATA_NO_WORKSPACE = 0,
	CUDNN_CONVOLUTION_BWD_DATA_PREFER_FASTEST = 1,
	CUDNN_CONVOLUTION_BWD_DATA_SPECIFY_WORKSPACE_LIMIT = 2,
} cudnnConvolutionBwdDataPreference_t;

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const cudnnFilterDescriptor_t wDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t yDesc,
	cudnnConvolutionFwdPreference_t preference, size_t memoryLimitInBytes,
	cudnnConvolutionFwdAlgo_t *algo);

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const cudnnTensorDescriptor_t dyDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnFilterDescriptor_t dwDesc,
	cudnnConvolutionBwdFilterPreference_t preference,
	size_t memoryLimitInBytes, cudnnConvolutionBwdFilterAlgo_t *algo);

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm(
	cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
	const cudnnTensorDescriptor_t dyDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t dxDesc,
	cudnnConvolutionBwdDataPreference_t preference,
	size_t memoryLimitInBytes, cudnnConvolutionBwdDataAlgo_t *algo);

#endif
