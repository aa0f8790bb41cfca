/* Holds fake_abi.h against the real CUDA, cuDNN and NCCL headers, at
 * compile time; built only where CMake found them.  Every struct must have
 * the real size, alignment and member offsets, every handle type the real
 * type, every enum the real size, and every
 * prototype must be compatible with the real declaration (a conflicting
 * redeclaration does not compile). */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nccl.h>

#include <stddef.h>
#include <stdio.h>

/* The types, each name prefixed with fa_. */
#define DLT_FA(name) fa_##name
#define DLT_FAKE_ABI_NO_PROTOS
#include "fake_abi.h"

/* The enumerator values and struct layouts come from
 * include/dltrace/gpu_abi.def, which tests/test_gpu_abi.c holds against the
 * real headers; here the fake's own types and prototypes are. */

#define SAME_TYPE(t) \
	_Static_assert(__builtin_types_compatible_p(fa_##t, t), #t);
#define SAME_LAYOUT(t)                                          \
	_Static_assert(sizeof(fa_##t) == sizeof(t) &&           \
			       _Alignof(fa_##t) == _Alignof(t), \
		       #t);
#define SAME_MEMBER(t, m)                                       \
	_Static_assert(offsetof(fa_##t, m) == offsetof(t, m) && \
			       sizeof(((fa_##t *)0)->m) ==      \
				       sizeof(((t *)0)->m),     \
		       #t "." #m);

#define SAME_TAG(tag)                                                         \
	_Static_assert(sizeof(enum fa_##tag) == sizeof(enum tag) &&           \
			       _Alignof(enum fa_##tag) == _Alignof(enum tag), \
		       #tag);

/* Scalars and handles: the same C type. */
SAME_TYPE(cuuint64_t)
SAME_TYPE(CUdeviceptr)
SAME_TYPE(CUdevice)
SAME_TYPE(CUcontext)
SAME_TYPE(CUmodule)
SAME_TYPE(CUfunction)
SAME_TYPE(CUstream)
SAME_TYPE(cudaStream_t)
SAME_TYPE(cudaEvent_t)
SAME_TYPE(cudnnHandle_t)
SAME_TYPE(cudnnTensorDescriptor_t)
SAME_TYPE(cudnnFilterDescriptor_t)
SAME_TYPE(cudnnConvolutionDescriptor_t)
SAME_TYPE(cudnnBackendDescriptor_t)
SAME_TYPE(ncclComm_t)

/* Enums: the same size and alignment (the values are checked above). */
SAME_LAYOUT(CUresult)
SAME_LAYOUT(CUdriverProcAddress_flags)
SAME_LAYOUT(CUdriverProcAddressQueryResult)
SAME_LAYOUT(cudaError_t)
SAME_TAG(cudaMemcpyKind)
SAME_TAG(cudaDriverEntryPointQueryResult)
SAME_TAG(cudaGetDriverEntryPointFlags)
SAME_LAYOUT(cudnnStatus_t)
SAME_LAYOUT(cudnnDataType_t)
SAME_LAYOUT(cudnnMathType_t)
SAME_LAYOUT(cudnnTensorFormat_t)
SAME_LAYOUT(cudnnConvolutionMode_t)
SAME_LAYOUT(cudnnDeterminism_t)
SAME_LAYOUT(cudnnConvolutionFwdAlgo_t)
SAME_LAYOUT(cudnnConvolutionBwdDataAlgo_t)
SAME_LAYOUT(cudnnConvolutionBwdFilterAlgo_t)
SAME_LAYOUT(cudnnBackendDescriptorType_t)
SAME_LAYOUT(cudnnBackendAttributeName_t)
SAME_LAYOUT(cudnnBackendAttributeType_t)
SAME_LAYOUT(cudnnBackendKnobType_t)
SAME_LAYOUT(cudnnBackendHeurMode_t)
SAME_LAYOUT(cudnnBackendNumericalNote_t)
SAME_LAYOUT(ncclResult_t)
SAME_LAYOUT(ncclRedOp_t)
SAME_LAYOUT(ncclDataType_t)

/* Structs: size, alignment and every member. */
SAME_LAYOUT(dim3)
SAME_MEMBER(dim3, x)
SAME_MEMBER(dim3, y)
SAME_MEMBER(dim3, z)

#define PERF_MEMBERS(t)             \
	SAME_LAYOUT(t)              \
	SAME_MEMBER(t, algo)        \
	SAME_MEMBER(t, status)      \
	SAME_MEMBER(t, time)        \
	SAME_MEMBER(t, memory)      \
	SAME_MEMBER(t, determinism) \
	SAME_MEMBER(t, mathType)    \
	SAME_MEMBER(t, reserved)
PERF_MEMBERS(cudnnConvolutionFwdAlgoPerf_t)
PERF_MEMBERS(cudnnConvolutionBwdDataAlgoPerf_t)
PERF_MEMBERS(cudnnConvolutionBwdFilterAlgoPerf_t)

SAME_LAYOUT(cudnnFraction_t)
SAME_MEMBER(cudnnFraction_t, numerator)
SAME_MEMBER(cudnnFraction_t, denominator)

SAME_LAYOUT(ncclUniqueId)
SAME_MEMBER(ncclUniqueId, internal)

SAME_LAYOUT(ncclConfig_t)
SAME_MEMBER(ncclConfig_t, size)
SAME_MEMBER(ncclConfig_t, magic)
SAME_MEMBER(ncclConfig_t, version)
SAME_MEMBER(ncclConfig_t, blocking)
SAME_MEMBER(ncclConfig_t, cgaClusterSize)
SAME_MEMBER(ncclConfig_t, minCTAs)
SAME_MEMBER(ncclConfig_t, maxCTAs)
SAME_MEMBER(ncclConfig_t, netName)
SAME_MEMBER(ncclConfig_t, splitShare)
SAME_MEMBER(ncclConfig_t, trafficClass)
SAME_MEMBER(ncclConfig_t, commName)
SAME_MEMBER(ncclConfig_t, collnetEnable)
SAME_MEMBER(ncclConfig_t, CTAPolicy)
SAME_MEMBER(ncclConfig_t, shrinkShare)
SAME_MEMBER(ncclConfig_t, nvlsCTAs)
SAME_MEMBER(ncclConfig_t, nChannelsPerNetPeer)
SAME_MEMBER(ncclConfig_t, nvlinkCentricSched)

/* Macros fake_abi.h defines when the real headers are absent. */
_Static_assert(CUDNN_DIM_MAX == 8, "CUDNN_DIM_MAX");
_Static_assert(NCCL_UNIQUE_ID_BYTES == 128, "NCCL_UNIQUE_ID_BYTES");
_Static_assert(NCCL_SPLIT_NOCOLOR == -1, "NCCL_SPLIT_NOCOLOR");
_Static_assert(NCCL_CONFIG_UNDEF_INT == INT_MIN, "NCCL_CONFIG_UNDEF_INT");

/* The prototypes, against the real types: each is a redeclaration of the
 * real function, an error if incompatible.  Functions the real headers
 * declare only in other modes (_ptsz, cuCtxCreate_v2, the 4-argument
 * cuGetProcAddress) are new declarations and go unchecked. */
#undef DLT_FAKE_ABI_NO_PROTOS
#define DLT_FAKE_ABI_NO_TYPES
#include "fake_abi.h"

int main(void)
{
	printf("fake_abi.h matches CUDA %d, cuDNN %d, NCCL %d\n", CUDA_VERSION,
	       CUDNN_VERSION, NCCL_VERSION_CODE);
	return 0;
}
