/* The project's own declarations of the slice of the CUDA driver, CUDA
 * runtime, cuDNN and NCCL ABIs that the fake libraries implement and the fake
 * programs call.  Used where the real headers are absent; where they are
 * present, abi_check.c holds every value and layout here against them.
 *
 * Rules: enums are 4-byte enums (int-sized), handles are pointers to opaque
 * structs with the real struct tags, structs have the real layout.  The
 * driver functions are declared under the names libcuda.so.1 exports
 * (cuMemAlloc_v2), not under cuda.h's macro aliases.
 *
 * The file has two sections, each with its own guard:
 *   types       every name passes through DLT_FA(), so that abi_check.c can
 *               include them next to the real headers with a prefix;
 *               skipped when DLT_FAKE_ABI_NO_TYPES is defined.
 *   prototypes  plain names, resolved against whichever types are in scope;
 *               skipped when DLT_FAKE_ABI_NO_PROTOS is defined.
 * The enumerator lists and the struct layouts are those of
 * include/dltrace/gpu_abi.def, the project's one list of the GPU ABI, which
 * tests/test_gpu_abi.c holds against the real headers. */

#ifndef DLT_FA
#define DLT_FA(name) name
#endif

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "dltrace/gpu_abi.def"

#ifndef DLT_FA_ENUMERATOR
#define DLT_FA_ENUMERATOR(name, value) DLT_FA(name) = (value),
#define DLT_FA_CUDNN_STATUS(name, value) DLT_FA(CUDNN_STATUS_##name) = (value),
#define DLT_FA_MEMBER(type, member, dims) type member dims;
#endif

/* ---------------------------------------------------------------------
 * Types. */

#if !defined(DLT_FAKE_ABI_NO_TYPES) && !defined(DLT_FAKE_ABI_TYPES_DONE)
#define DLT_FAKE_ABI_TYPES_DONE

/* CUDA driver (cuda.h) */
typedef uint64_t DLT_FA(cuuint64_t);
typedef unsigned long long DLT_FA(CUdeviceptr);
typedef int DLT_FA(CUdevice);
typedef struct CUctx_st *DLT_FA(CUcontext);
typedef struct CUmod_st *DLT_FA(CUmodule);
typedef struct CUfunc_st *DLT_FA(CUfunction);
typedef struct CUstream_st *DLT_FA(CUstream);
typedef enum DLT_FA(cudaError_enum) {
	DLT_ABI_CUDA_STATUS(DLT_FA_ENUMERATOR)
} DLT_FA(CUresult);
typedef enum DLT_FA(CUdriverProcAddress_flags_enum) {
	DLT_ABI_CU_PROC_FLAGS(DLT_FA_ENUMERATOR)
} DLT_FA(CUdriverProcAddress_flags);
typedef enum DLT_FA(CUdriverProcAddressQueryResult_enum) {
	DLT_ABI_CU_PROC_RESULT(DLT_FA_ENUMERATOR)
} DLT_FA(CUdriverProcAddressQueryResult);

/* CUDA runtime (driver_types.h, vector_types.h) */
enum DLT_FA(cudaError) { DLT_ABI_CUDART_STATUS(DLT_FA_ENUMERATOR) };
typedef enum DLT_FA(cudaError) DLT_FA(cudaError_t);
enum DLT_FA(cudaMemcpyKind) { DLT_ABI_CUDA_MEMCPY_KIND(DLT_FA_ENUMERATOR) };
enum DLT_FA(cudaGetDriverEntryPointFlags) {
	DLT_ABI_CUDA_ENTRY_FLAGS(DLT_FA_ENUMERATOR)
};
enum DLT_FA(cudaDriverEntryPointQueryResult) {
	DLT_ABI_CUDA_ENTRY_RESULT(DLT_FA_ENUMERATOR)
};
typedef struct CUstream_st *DLT_FA(cudaStream_t);
typedef struct CUevent_st *DLT_FA(cudaEvent_t);
struct DLT_FA(dim3) {
	DLT_ABI_DIM3(DLT_FA_MEMBER)
};
typedef struct DLT_FA(dim3) DLT_FA(dim3);

/* cuDNN (cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h) */
struct cudnnContext;
typedef struct cudnnContext *DLT_FA(cudnnHandle_t);
typedef struct cudnnTensorStruct *DLT_FA(cudnnTensorDescriptor_t);
typedef struct cudnnFilterStruct *DLT_FA(cudnnFilterDescriptor_t);
typedef struct cudnnConvolutionStruct *DLT_FA(cudnnConvolutionDescriptor_t);
typedef void *DLT_FA(cudnnBackendDescriptor_t);
typedef enum {
	DLT_ABI_CUDNN9_STATUS(DLT_FA_CUDNN_STATUS)
} DLT_FA(cudnnStatus_t);
typedef enum {
	DLT_ABI_CUDNN_DATA_TYPE(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnDataType_t);
typedef enum {
	DLT_ABI_CUDNN_MATH_TYPE(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnMathType_t);
typedef enum {
	DLT_ABI_CUDNN_TENSOR_FORMAT(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnTensorFormat_t);
typedef enum {
	DLT_ABI_CUDNN_CONV_MODE(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnConvolutionMode_t);
typedef enum {
	DLT_ABI_CUDNN_DETERMINISM(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnDeterminism_t);
typedef enum {
	DLT_ABI_CUDNN_FWD_ALGO(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnConvolutionFwdAlgo_t);
typedef enum {
	DLT_ABI_CUDNN_BWD_FILTER_ALGO(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnConvolutionBwdFilterAlgo_t);
typedef enum {
	DLT_ABI_CUDNN_BWD_DATA_ALGO(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnConvolutionBwdDataAlgo_t);

typedef struct DLT_FA(cudnnConvolutionFwdAlgoPerfStruct) {
	DLT_ABI_CUDNN_ALGO_PERF(DLT_FA_MEMBER)
} DLT_FA(cudnnConvolutionFwdAlgoPerf_t);

typedef struct DLT_FA(cudnnConvolutionBwdDataAlgoPerfStruct) {
	DLT_ABI_CUDNN_ALGO_PERF(DLT_FA_MEMBER)
} DLT_FA(cudnnConvolutionBwdDataAlgoPerf_t);

typedef struct DLT_FA(cudnnConvolutionBwdFilterAlgoPerfStruct) {
	DLT_ABI_CUDNN_ALGO_PERF(DLT_FA_MEMBER)
} DLT_FA(cudnnConvolutionBwdFilterAlgoPerf_t);

typedef enum {
	DLT_ABI_CUDNN_BACKEND_DESC(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnBackendDescriptorType_t);
typedef enum {
	DLT_ABI_CUDNN_ATTR(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnBackendAttributeName_t);
typedef enum {
	DLT_ABI_CUDNN_ATTR_TYPE(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnBackendAttributeType_t);
typedef enum {
	DLT_ABI_CUDNN_KNOB_TYPE(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnBackendKnobType_t);
typedef enum {
	DLT_ABI_CUDNN_HEUR_MODE(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnBackendHeurMode_t);
typedef enum {
	DLT_ABI_CUDNN_NUM_NOTE(DLT_FA_ENUMERATOR)
} DLT_FA(cudnnBackendNumericalNote_t);
typedef struct DLT_FA(cudnnFractionStruct) {
	DLT_ABI_CUDNN_FRACTION(DLT_FA_MEMBER)
} DLT_FA(cudnnFraction_t);

/* NCCL (nccl.h, 2.28 layout of ncclConfig_t) */
typedef struct ncclComm *DLT_FA(ncclComm_t);
typedef struct {
	DLT_ABI_NCCL_UNIQUE_ID(DLT_FA_MEMBER)
} DLT_FA(ncclUniqueId);
typedef enum { DLT_ABI_NCCL_STATUS(DLT_FA_ENUMERATOR) } DLT_FA(ncclResult_t);
typedef enum { DLT_ABI_NCCL_RED_OP(DLT_FA_ENUMERATOR) } DLT_FA(ncclRedOp_t);
typedef enum {
	DLT_ABI_NCCL_DATA_TYPE(DLT_FA_ENUMERATOR)
} DLT_FA(ncclDataType_t);
typedef struct DLT_FA(ncclConfig_v22800) {
	DLT_ABI_NCCL_CONFIG(DLT_FA_MEMBER)
} DLT_FA(ncclConfig_t);

/* Macros the programs use; the real headers define the same. */
#ifndef CUDNN_DIM_MAX
#define CUDNN_DIM_MAX 8
#endif
#ifndef NCCL_UNIQUE_ID_BYTES
#define NCCL_UNIQUE_ID_BYTES 128
#endif
#ifndef NCCL_SPLIT_NOCOLOR
#define NCCL_SPLIT_NOCOLOR -1
#endif
#ifndef NCCL_CONFIG_UNDEF_INT
#define NCCL_CONFIG_UNDEF_INT INT_MIN
#endif
#ifndef NCCL_CONFIG_UNDEF_PTR
#define NCCL_CONFIG_UNDEF_PTR NULL
#endif
#ifndef NCCL_CONFIG_INITIALIZER
#define NCCL_CONFIG_INITIALIZER                                       \
	{                                                             \
		sizeof(ncclConfig_t), 0xcafebeef, 22809,              \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, \
			NCCL_CONFIG_UNDEF_PTR, NCCL_CONFIG_UNDEF_INT, \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_PTR, \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT  \
	}
#endif

#endif /* types */

/* ---------------------------------------------------------------------
 * Prototypes. */

#if !defined(DLT_FAKE_ABI_NO_PROTOS) && !defined(DLT_FAKE_ABI_PROTOS_DONE)
#define DLT_FAKE_ABI_PROTOS_DONE

/* cuda.h maps these names to versioned symbols; the declarations below are
 * of the exported symbols themselves. */
#undef cuCtxCreate
#undef cuMemAlloc
#undef cuMemFree
#undef cuGetProcAddress

/* CUDA driver, as exported by libcuda.so.1 */
CUresult cuInit(unsigned int Flags);
CUresult cuDriverGetVersion(int *driverVersion);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
			     const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX,
			unsigned int gridDimY, unsigned int gridDimZ,
			unsigned int blockDimX, unsigned int blockDimY,
			unsigned int blockDimZ, unsigned int sharedMemBytes,
			CUstream hStream, void **kernelParams, void **extra);
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX,
			     unsigned int gridDimY, unsigned int gridDimZ,
			     unsigned int blockDimX, unsigned int blockDimY,
			     unsigned int blockDimZ,
			     unsigned int sharedMemBytes, CUstream hStream,
			     void **kernelParams, void **extra);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuGetErrorString(CUresult error, const char **pStr);
CUresult cuGetErrorName(CUresult error, const char **pStr);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
			  cuuint64_t flags);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
			     cuuint64_t flags,
			     CUdriverProcAddressQueryResult *symbolStatus);

/* CUDA runtime */
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
cudaError_t cudaDriverGetVersion(int *driverVersion);
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
		       enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
			    enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
			    enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
				 enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count);
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
			     void **args, size_t sharedMem,
			     cudaStream_t stream);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
				  void **args, size_t sharedMem,
				  cudaStream_t stream);
cudaError_t cudaStreamCreate(cudaStream_t *pStream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t
cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
			unsigned long long flags,
			enum cudaDriverEntryPointQueryResult *driverStatus);
cudaError_t cudaGetDriverEntryPoint_ptsz(
	const char *symbol, void **funcPtr, unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus);
cudaError_t cudaGetDriverEntryPointByVersion(
	const char *symbol, void **funcPtr, unsigned int cudaVersion,
	unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus);
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
	const char *symbol, void **funcPtr, unsigned int cudaVersion,
	unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus);

/* cuDNN: every function of cudnn_api.def (both majors; the 9.x-only ones
 * are simply never defined by the 7.x fake). */
#define DLT_CUDNN_API(sub, ret, name, params, args, fail) ret name params;
#include "cudnn_api.def"
#undef DLT_CUDNN_API

/* NCCL: pncclX is the function, ncclX its weak alias. */
#define DLT_NCCL_API(ret, name, params, args) \
	ret name params;                      \
	ret p##name params;
#include "nccl_api.def"
#undef DLT_NCCL_API

#endif /* prototypes */
