/* include/dltrace/apis.def and include/dltrace/gpu_abi.def against the
 * real CUDA, cuDNN and NCCL headers, at compile time:
 *
 *  - every interposed function's whole type, as the table writes it (the
 *    table's types standing for the real ones: DLT_GPU_ABI_REAL in
 *    dltrace/gpu_abi.h), is the real declaration's type
 *    (__builtin_types_compatible_p): a parameter of another type, two
 *    parameters swapped, one too many or too few do not compile;
 *  - the table's argument list passes the parameters, in order, to the
 *    real function without a conversion (-Wconversion, -Werror);
 *  - every stand-in type has the real size and alignment, every member of
 *    a stand-in struct the real offset and size;
 *  - every status code, enumerator and macro value of gpu_abi.def is the
 *    header's (the cuDNN 8.x statuses excepted: no 8.x header is installed
 *    with 9.x).
 *
 * tests/abi_mutants.cmake compiles this file against wrong variants of the
 * two tables and expects each to fail.  The program itself only counts, and
 * links against none of the libraries.  Built only where the real headers
 * are installed (tests/CMakeLists.txt; elsewhere test_gpu_abi_absent.c
 * reports the test skipped). */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nccl.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DLT_GPU_ABI_REAL
#include "dltrace/apiflags.h"
#include "dltrace/apirules.h"
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

/* ---- whole function types ---------------------------------------------- */

/* Each family's status type: the wrappers return it as an int. */
#define DLT_ABI_RET_CUDART cudaError_t
#define DLT_ABI_RET_CUDA CUresult
#define DLT_ABI_RET_CUDNN cudnnStatus_t
#define DLT_ABI_RET_NCCL ncclResult_t
_Static_assert(sizeof(cudaError_t) == sizeof(int) &&
		       sizeof(CUresult) == sizeof(int) &&
		       sizeof(cudnnStatus_t) == sizeof(int) &&
		       sizeof(ncclResult_t) == sizeof(int),
	       "every status is int-sized");

#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post)  \
	_Static_assert(__builtin_types_compatible_p(__typeof__(name),          \
						    DLT_ABI_RET_##fam params), \
		       #name                                                   \
		       ": the type apis.def gives it is not the header's");
#include "dltrace/apis.def"
#undef DLT_API

/* The argument list, passed on: static inline, so compiled and checked but
 * never emitted, and nothing links against the libraries. */
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	static inline int dlt_abi_##name params                               \
	{                                                                     \
		return (int)name args;                                        \
	}
#include "dltrace/apis.def"
#undef DLT_API

/* ---- stand-in types and layouts ---------------------------------------- */

#define DLT_ABI_SAME_TYPE(name, stand_in, real)                      \
	_Static_assert(sizeof(stand_in) == sizeof(real) &&           \
			       _Alignof(stand_in) == _Alignof(real), \
		       #name ": the stand-in " #stand_in " is not " #real);
DLT_ABI_TYPES(DLT_ABI_SAME_TYPE)

/* One function per stand-in struct and real type, for the local typedefs
 * the member checks need; never called. */
#define DLT_ABI_SAME_MEMBER(type, member, dims)                                \
	_Static_assert(offsetof(dlt_stand_in, member) ==                       \
				       offsetof(dlt_real, member) &&           \
			       sizeof(((dlt_stand_in *)0)->member) ==          \
				       sizeof(((dlt_real *)0)->member),        \
		       "member " #member " of a stand-in struct is not where " \
		       "or what the header has it");
#define DLT_ABI_SAME_LAYOUT(layout, real)                                  \
	__attribute__((unused)) static void dlt_abi_layout_##real(void)    \
	{                                                                  \
		typedef DLT_ABI_STRUCT_##layout dlt_stand_in;              \
		typedef real dlt_real;                                     \
		_Static_assert(sizeof(dlt_stand_in) == sizeof(dlt_real) && \
				       _Alignof(dlt_stand_in) ==           \
					       _Alignof(dlt_real),         \
			       #layout " is not the size of " #real);      \
		DLT_ABI_##layout(DLT_ABI_SAME_MEMBER)                      \
	}
DLT_ABI_LAYOUTS(DLT_ABI_SAME_LAYOUT)

/* ---- values -------------------------------------------------------------- */

#define DLT_ABI_SAME_VALUE(name, value)                           \
	_Static_assert((long long)(name) == (long long)(value) && \
			       (long long)DLT_ABI_##name ==       \
				       (long long)(value),        \
		       #name " is not " #value " in the header");
#define DLT_ABI_SAME_CUDNN9(name, value)                                       \
	_Static_assert((long long)(CUDNN_STATUS_##name) == (long long)(value), \
		       "CUDNN_STATUS_" #name " is not " #value                 \
		       " in the header");
DLT_ABI_CUDA_STATUS(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDART_STATUS(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN9_STATUS(DLT_ABI_SAME_CUDNN9)
DLT_ABI_NCCL_STATUS(DLT_ABI_SAME_VALUE)
DLT_ABI_CU_PROC_FLAGS(DLT_ABI_SAME_VALUE)
DLT_ABI_CU_PROC_RESULT(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDA_MEMCPY_KIND(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDA_ENTRY_FLAGS(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDA_ENTRY_RESULT(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_DATA_TYPE(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_MATH_TYPE(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_TENSOR_FORMAT(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_CONV_MODE(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_DETERMINISM(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_FWD_ALGO(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_BWD_FILTER_ALGO(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_BWD_DATA_ALGO(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_BACKEND_DESC(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_ATTR(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_ATTR_TYPE(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_KNOB_TYPE(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_HEUR_MODE(DLT_ABI_SAME_VALUE)
DLT_ABI_CUDNN_NUM_NOTE(DLT_ABI_SAME_VALUE)
DLT_ABI_NCCL_RED_OP(DLT_ABI_SAME_VALUE)
DLT_ABI_NCCL_DATA_TYPE(DLT_ABI_SAME_VALUE)
DLT_ABI_MACROS(DLT_ABI_SAME_VALUE)

/* ---- counts -------------------------------------------------------------- */

#define DLT_ABI_COUNT(...) +1
enum {
	DLT_ABI_NFUNCS = 0
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) +1
#include "dltrace/apis.def"
#undef DLT_API
	,
	DLT_ABI_NVALUES = 0 DLT_ABI_CUDA_STATUS(DLT_ABI_COUNT)
		DLT_ABI_CUDART_STATUS(DLT_ABI_COUNT)
			DLT_ABI_CUDNN9_STATUS(DLT_ABI_COUNT)
				DLT_ABI_NCCL_STATUS(DLT_ABI_COUNT),
	DLT_ABI_NTYPES = 0 DLT_ABI_TYPES(DLT_ABI_COUNT),
	DLT_ABI_NLAYOUTS = 0 DLT_ABI_LAYOUTS(DLT_ABI_COUNT),
};

int main(void)
{
	dlt_apis_def_rules();
	if (!dlt_apis_def_id_known(152)) /* ncclAllReduce */
		return 1;
	printf("%d interposed functions, %d types, %d struct layouts and %d "
	       "status codes match CUDA %d, cuDNN %d.%d, NCCL %d.%d\n",
	       DLT_ABI_NFUNCS, DLT_ABI_NTYPES, DLT_ABI_NLAYOUTS,
	       DLT_ABI_NVALUES, CUDA_VERSION, CUDNN_MAJOR, CUDNN_MINOR,
	       NCCL_MAJOR, NCCL_MINOR);
	return 0;
}
