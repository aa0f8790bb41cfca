/* The parts of the CUDA runtime, CUDA driver, cuDNN and NCCL ABIs that
 * dltrace's wrappers need, declared here so that dltrace builds without any
 * NVIDIA header.  Only the ABI matters: enums are int, handles are opaque
 * pointers, structs have the real layout.
 *
 * With DLT_GPU_ABI_REAL defined (after the real headers are included),
 * every name stands for the real type instead: tests/test_gpu_abi.c
 * compiles include/dltrace/apis.def that way, so that each interposed
 * function's parameters as the table writes them are checked against the
 * real declaration. */
#ifndef DLTRACE_GPU_ABI_H
#define DLTRACE_GPU_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef DLT_GPU_ABI_REAL
typedef cudaError_t dlt_cudaError_t;
typedef cudaStream_t dlt_cudaStream_t;
typedef cudaEvent_t dlt_cudaEvent_t;
typedef dim3 dlt_dim3;
typedef enum cudaDriverEntryPointQueryResult
	dlt_cudaDriverEntryPointQueryResult;
typedef CUresult dlt_CUresult;
typedef CUdevice dlt_CUdevice;
typedef CUdeviceptr dlt_CUdeviceptr;
typedef CUcontext dlt_CUcontext;
typedef CUmodule dlt_CUmodule;
typedef CUfunction dlt_CUfunction;
typedef cuuint64_t dlt_cuuint64_t;
typedef CUdriverProcAddressQueryResult dlt_CUdriverProcAddressQueryResult;
typedef cudnnStatus_t dlt_cudnnStatus_t;
typedef cudnnHandle_t dlt_cudnnHandle_t;
typedef cudnnTensorDescriptor_t dlt_cudnnTensorDescriptor_t;
typedef cudnnFilterDescriptor_t dlt_cudnnFilterDescriptor_t;
typedef cudnnConvolutionDescriptor_t dlt_cudnnConvolutionDescriptor_t;
typedef cudnnBackendDescriptor_t dlt_cudnnBackendDescriptor_t;
typedef cudnnConvolutionFwdAlgoPerf_t dlt_cudnnConvolutionFwdAlgoPerf_t;
typedef cudnnConvolutionBwdDataAlgoPerf_t dlt_cudnnConvolutionBwdDataAlgoPerf_t;
typedef cudnnConvolutionBwdFilterAlgoPerf_t
	dlt_cudnnConvolutionBwdFilterAlgoPerf_t;
typedef ncclResult_t dlt_ncclResult_t;
typedef ncclComm_t dlt_ncclComm_t;
typedef ncclUniqueId dlt_ncclUniqueId;
typedef ncclConfig_t dlt_ncclConfig_t;
#else

/* CUDA runtime */
typedef int dlt_cudaError_t;
typedef struct dlt_CUstream_st *dlt_cudaStream_t;
typedef struct dlt_CUevent_st *dlt_cudaEvent_t;
typedef struct {
	unsigned int x, y, z;
} dlt_dim3;
typedef int dlt_cudaDriverEntryPointQueryResult; /* an enum */

/* CUDA driver */
typedef int dlt_CUresult;
typedef int dlt_CUdevice;
typedef unsigned long long dlt_CUdeviceptr;
typedef struct dlt_CUctx_st *dlt_CUcontext;
typedef struct dlt_CUmod_st *dlt_CUmodule;
typedef struct dlt_CUfunc_st *dlt_CUfunction;
typedef uint64_t dlt_cuuint64_t;
typedef int dlt_CUdriverProcAddressQueryResult; /* an enum */

/* cuDNN */
typedef int dlt_cudnnStatus_t;
typedef struct dlt_cudnnContext *dlt_cudnnHandle_t;
typedef struct dlt_cudnnTensorStruct *dlt_cudnnTensorDescriptor_t;
typedef struct dlt_cudnnFilterStruct *dlt_cudnnFilterDescriptor_t;
typedef struct dlt_cudnnConvolutionStruct *dlt_cudnnConvolutionDescriptor_t;
typedef void *dlt_cudnnBackendDescriptor_t;

/* cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t share this layout in
 * cuDNN 7, 8 and 9. */
typedef struct {
	int algo;
	int status;
	float time;
	size_t memory;
	int determinism;
	int mathType;
	int reserved[3];
} dlt_cudnnAlgoPerf_t;
typedef dlt_cudnnAlgoPerf_t dlt_cudnnConvolutionFwdAlgoPerf_t;
typedef dlt_cudnnAlgoPerf_t dlt_cudnnConvolutionBwdDataAlgoPerf_t;
typedef dlt_cudnnAlgoPerf_t dlt_cudnnConvolutionBwdFilterAlgoPerf_t;

/* NCCL */
typedef int dlt_ncclResult_t;
typedef struct dlt_ncclComm *dlt_ncclComm_t;
typedef struct {
	char internal[128];
} dlt_ncclUniqueId;
typedef struct dlt_ncclConfig dlt_ncclConfig_t; /* only passed by pointer */

#endif /* DLT_GPU_ABI_REAL */

/* Values dltrace interprets. */
#define DLT_CUDA_SUCCESS 0
#define DLT_CUDNN_DATA_FLOAT 0
#define DLT_NCCL_SUCCESS 0

#endif
