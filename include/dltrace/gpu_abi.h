/* The parts of the CUDA runtime, CUDA driver, cuDNN and NCCL ABIs that
 * dltrace's wrappers need, declared here so that dltrace builds without any
 * NVIDIA header.  Only the ABI matters: enums are int, handles are opaque
 * pointers, structs have the real layout.  tests/test_gpu_abi.c compiles
 * these against the real headers where they exist and checks that every
 * wrapped function has the same type. */
#ifndef DLTRACE_GPU_ABI_H
#define DLTRACE_GPU_ABI_H

#include <stddef.h>
#include <stdint.h>

/* CUDA runtime */
typedef int dlt_cudaError_t;
typedef struct dlt_CUstream_st *dlt_cudaStream_t;
typedef struct dlt_CUevent_st *dlt_cudaEvent_t;
typedef struct {
	unsigned int x, y, z;
} dlt_dim3;

/* CUDA driver */
typedef int dlt_CUresult;
typedef int dlt_CUdevice;
typedef unsigned long long dlt_CUdeviceptr;
typedef struct dlt_CUctx_st *dlt_CUcontext;
typedef struct dlt_CUmod_st *dlt_CUmodule;
typedef struct dlt_CUfunc_st *dlt_CUfunction;
typedef uint64_t dlt_cuuint64_t;

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

/* NCCL */
typedef int dlt_ncclResult_t;
typedef struct dlt_ncclComm *dlt_ncclComm_t;
typedef struct {
	char internal[128];
} dlt_ncclUniqueId;
typedef struct dlt_ncclConfig dlt_ncclConfig_t; /* only passed by pointer */

/* Values dltrace interprets. */
#define DLT_CUDA_SUCCESS 0
#define DLT_CUDNN_DATA_FLOAT 0
#define DLT_NCCL_SUCCESS 0

#endif
