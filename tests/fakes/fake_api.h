/* What every fake library and fake program includes: the real CUDA, cuDNN
 * and NCCL headers where CMake found them (DLT_HAVE_REAL_HEADERS), the
 * project's own declarations (fake_abi.h) otherwise. */
#ifndef DLT_FAKE_API_H
#define DLT_FAKE_API_H

#ifdef DLT_HAVE_REAL_HEADERS
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nccl.h>

/* Exported symbols the real headers declare only in other modes (the
 * per-thread default stream, NVIDIA's internal build) or not at all. */
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX,
			     unsigned int gridDimY, unsigned int gridDimZ,
			     unsigned int blockDimX, unsigned int blockDimY,
			     unsigned int blockDimZ,
			     unsigned int sharedMemBytes, CUstream hStream,
			     void **kernelParams, void **extra);
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
			    enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
				 enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
				  void **args, size_t sharedMem,
				  cudaStream_t stream);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaGetDriverEntryPoint_ptsz(
	const char *symbol, void **funcPtr, unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus);
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
	const char *symbol, void **funcPtr, unsigned int cudaVersion,
	unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus);
#else
#include "fake_abi.h"
#endif

#include "dltrace/gpu_abi.def"
#include "fake_cudnn7.h"

#endif
