/* include/dltrace/apis.def against the real CUDA, cuDNN and NCCL headers.
 *
 * Every interposed function becomes a function here with the parameter list
 * the table gives it, the table's types standing for the real ones
 * (DLT_GPU_ABI_REAL in dltrace/gpu_abi.h), that passes its parameters on to
 * the real declaration.  A parameter of another type, size or signedness,
 * one too many or too few, or a status that is not int-sized does not
 * compile (the flags are in tests/CMakeLists.txt).  Built only where the
 * real headers are installed; the program itself only counts, and links
 * against none of the libraries. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nccl.h>

#include <stdint.h>
#include <stdio.h>

#define DLT_GPU_ABI_REAL
#include "dltrace/apiflags.h"
#include "dltrace/gpu_abi.h"

/* Functions the libraries export that the installed headers declare under
 * another name or not at all. */

/* The per-thread default stream variants: the headers name them only when
 * CUDA_API_PER_THREAD_DEFAULT_STREAM is defined, with the same types. */
__typeof__(cudaMemcpyAsync) cudaMemcpyAsync_ptsz;
__typeof__(cudaLaunchKernel) cudaLaunchKernel_ptsz;
__typeof__(cudaStreamSynchronize) cudaStreamSynchronize_ptsz;
__typeof__(cudaEventRecord) cudaEventRecord_ptsz;

/* CUDA 13's cuda.h maps these names to newer versions; drivers still
 * export the versions the table wraps, as CUDA 11.3-12.x declared them. */
#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
			  cuuint64_t flags);
#if CUDA_VERSION >= 13000
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
#endif

/* cuDNN 7's preference forms, removed in 8.0 (the preference and the
 * algorithm were enums; their values did not change). */
#if CUDNN_MAJOR >= 8
cudnnStatus_t cudnnGetConvolutionForwardAlgorithm(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const cudnnFilterDescriptor_t wDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t yDesc, int preference,
	size_t memoryLimitInBytes, int *algo);
cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm(
	cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
	const cudnnTensorDescriptor_t dyDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnTensorDescriptor_t dxDesc, int preference,
	size_t memoryLimitInBytes, int *algo);
cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm(
	cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
	const cudnnTensorDescriptor_t dyDesc,
	const cudnnConvolutionDescriptor_t convDesc,
	const cudnnFilterDescriptor_t dwDesc, int preference,
	size_t memoryLimitInBytes, int *algo);
#endif

/* static inline: compiled and checked, never emitted, so nothing links
 * against the libraries. */
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	static inline int dlt_abi_##name params                               \
	{                                                                     \
		_Static_assert(sizeof(name args) == sizeof(int),              \
			       #name " returns an int-sized status");         \
		return (int)name args;                                        \
	}
#include "dltrace/apis.def"
#undef DLT_API

enum {
	DLT_ABI_CHECKED = 0
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) +1
#include "dltrace/apis.def"
#undef DLT_API
};

int main(void)
{
	printf("%d interposed functions match CUDA %d, cuDNN %d.%d, NCCL "
	       "%d.%d\n",
	       DLT_ABI_CHECKED, CUDA_VERSION, CUDNN_MAJOR, CUDNN_MINOR,
	       NCCL_MAJOR, NCCL_MINOR);
	return 0;
}
