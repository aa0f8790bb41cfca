#include "status.h"

#include <inttypes.h>
#include <stdio.h>

#include "dltrace/format.h"

struct dlt_code_name {
	int32_t code;
	const char *name;
};

#define DLT_LOOKUP(tab, value)                                               \
	do {                                                                 \
		for (size_t i_ = 0; i_ < sizeof(tab) / sizeof(tab[0]); i_++) \
			if ((tab)[i_].code == (value))                       \
				return (tab)[i_].name;                       \
	} while (0)

/* cudaError_t: the codes a deep-learning program meets (driver_types.h of
 * CUDA 13.0; the numbers have been stable since CUDA 10.1). */
static const struct dlt_code_name dlt_cudart_names[] = {
	{0, "cudaSuccess"},
	{1, "cudaErrorInvalidValue"},
	{2, "cudaErrorMemoryAllocation"},
	{3, "cudaErrorInitializationError"},
	{4, "cudaErrorCudartUnloading"},
	{9, "cudaErrorInvalidConfiguration"},
	{17, "cudaErrorInvalidDevicePointer"},
	{21, "cudaErrorInvalidMemcpyDirection"},
	{34, "cudaErrorStubLibrary"},
	{35, "cudaErrorInsufficientDriver"},
	{36, "cudaErrorCallRequiresNewerDriver"},
	{46, "cudaErrorDevicesUnavailable"},
	{49, "cudaErrorIncompatibleDriverContext"},
	{98, "cudaErrorInvalidDeviceFunction"},
	{100, "cudaErrorNoDevice"},
	{101, "cudaErrorInvalidDevice"},
	{127, "cudaErrorStartupFailure"},
	{200, "cudaErrorInvalidKernelImage"},
	{201, "cudaErrorDeviceUninitialized"},
	{209, "cudaErrorNoKernelImageForDevice"},
	{214, "cudaErrorECCUncorrectable"},
	{216, "cudaErrorDeviceAlreadyInUse"},
	{218, "cudaErrorInvalidPtx"},
	{222, "cudaErrorUnsupportedPtxVersion"},
	{400, "cudaErrorInvalidResourceHandle"},
	{500, "cudaErrorSymbolNotFound"},
	{600, "cudaErrorNotReady"},
	{700, "cudaErrorIllegalAddress"},
	{701, "cudaErrorLaunchOutOfResources"},
	{702, "cudaErrorLaunchTimeout"},
	{719, "cudaErrorLaunchFailure"},
	{800, "cudaErrorNotPermitted"},
	{801, "cudaErrorNotSupported"},
	{802, "cudaErrorSystemNotReady"},
	{803, "cudaErrorSystemDriverMismatch"},
	{804, "cudaErrorCompatNotSupportedOnDevice"},
	{999, "cudaErrorUnknown"},
};

/* CUresult (cuda.h). */
static const struct dlt_code_name dlt_cu_names[] = {
	{0, "CUDA_SUCCESS"},
	{1, "CUDA_ERROR_INVALID_VALUE"},
	{2, "CUDA_ERROR_OUT_OF_MEMORY"},
	{3, "CUDA_ERROR_NOT_INITIALIZED"},
	{4, "CUDA_ERROR_DEINITIALIZED"},
	{34, "CUDA_ERROR_STUB_LIBRARY"},
	{46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
	{100, "CUDA_ERROR_NO_DEVICE"},
	{101, "CUDA_ERROR_INVALID_DEVICE"},
	{200, "CUDA_ERROR_INVALID_IMAGE"},
	{201, "CUDA_ERROR_INVALID_CONTEXT"},
	{209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
	{214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
	{218, "CUDA_ERROR_INVALID_PTX"},
	{222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
	{400, "CUDA_ERROR_INVALID_HANDLE"},
	{500, "CUDA_ERROR_NOT_FOUND"},
	{600, "CUDA_ERROR_NOT_READY"},
	{700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
	{701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
	{702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
	{719, "CUDA_ERROR_LAUNCH_FAILED"},
	{801, "CUDA_ERROR_NOT_SUPPORTED"},
	{802, "CUDA_ERROR_SYSTEM_NOT_READY"},
	{803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
	{804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
	{999, "CUDA_ERROR_UNKNOWN"},
};

/* cudnnStatus_t up to 8.x (cudnn_ops_infer.h / cudnn.h of 7.x and 8.x). */
static const struct dlt_code_name dlt_cudnn8_names[] = {
	{0, "CUDNN_STATUS_SUCCESS"},
	{1, "CUDNN_STATUS_NOT_INITIALIZED"},
	{2, "CUDNN_STATUS_ALLOC_FAILED"},
	{3, "CUDNN_STATUS_BAD_PARAM"},
	{4, "CUDNN_STATUS_INTERNAL_ERROR"},
	{5, "CUDNN_STATUS_INVALID_VALUE"},
	{6, "CUDNN_STATUS_ARCH_MISMATCH"},
	{7, "CUDNN_STATUS_MAPPING_ERROR"},
	{8, "CUDNN_STATUS_EXECUTION_FAILED"},
	{9, "CUDNN_STATUS_NOT_SUPPORTED"},
	{10, "CUDNN_STATUS_LICENSE_ERROR"},
	{11, "CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING"},
	{12, "CUDNN_STATUS_RUNTIME_IN_PROGRESS"},
	{13, "CUDNN_STATUS_RUNTIME_FP_OVERFLOW"},
	{14, "CUDNN_STATUS_VERSION_MISMATCH"},
};

/* cudnnStatus_t from 9.0 (cudnn_graph.h of 9.19). */
static const struct dlt_code_name dlt_cudnn9_names[] = {
	{0, "CUDNN_STATUS_SUCCESS"},
	{1001, "CUDNN_STATUS_NOT_INITIALIZED"},
	{1002, "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH"},
	{1003, "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH"},
	{1004, "CUDNN_STATUS_DEPRECATED"},
	{1005, "CUDNN_STATUS_LICENSE_ERROR"},
	{1006, "CUDNN_STATUS_RUNTIME_IN_PROGRESS"},
	{1007, "CUDNN_STATUS_RUNTIME_FP_OVERFLOW"},
	{1008, "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED"},
	{2000, "CUDNN_STATUS_BAD_PARAM"},
	{2001, "CUDNN_STATUS_INVALID_VALUE"},
	{2002, "CUDNN_STATUS_BAD_PARAM_NULL_POINTER"},
	{2003, "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER"},
	{2004, "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED"},
	{2005, "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND"},
	{2006, "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT"},
	{2007, "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH"},
	{2008, "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH"},
	{2009, "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES"},
	{2010, "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE"},
	{2011, "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH"},
	{2012, "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE"},
	{3000, "CUDNN_STATUS_NOT_SUPPORTED"},
	{3001, "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN"},
	{3002, "CUDNN_STATUS_NOT_SUPPORTED_SHAPE"},
	{3003, "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE"},
	{3004, "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT"},
	{3005, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER"},
	{3006, "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART"},
	{3007, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH"},
	{3008, "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING"},
	{3009, "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE"},
	{3010, "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT"},
	{3011, "CUDNN_STATUS_NOT_SUPPORTED_PADDING"},
	{3012, "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM"},
	{3013, "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API"},
	{3014, "CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE"},
	{4000, "CUDNN_STATUS_INTERNAL_ERROR"},
	{4001, "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED"},
	{4002, "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE"},
	{4003, "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED"},
	{4004, "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED"},
	{4005, "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM"},
	{4006, "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED"},
	{5000, "CUDNN_STATUS_EXECUTION_FAILED"},
	{5001, "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER"},
	{5002, "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS"},
	{5003, "CUDNN_STATUS_EXECUTION_FAILED_CUDART"},
	{5004, "CUDNN_STATUS_EXECUTION_FAILED_CURAND"},
};

/* ncclResult_t (nccl.h). */
static const struct dlt_code_name dlt_nccl_names[] = {
	{0, "ncclSuccess"},	    {1, "ncclUnhandledCudaError"},
	{2, "ncclSystemError"},	    {3, "ncclInternalError"},
	{4, "ncclInvalidArgument"}, {5, "ncclInvalidUsage"},
	{6, "ncclRemoteError"},	    {7, "ncclInProgress"},
};

int dlt_cudnn_major(int64_t v)
{
	if (v >= 90000 && v < 1000000)
		return (int)(v / 10000);
	if (v >= 1000 && v < 90000)
		return (int)(v / 1000);
	return 0;
}

int dlt_cudnn_status_major(int64_t version, int32_t status)
{
	int m = dlt_cudnn_major(version);
	if (m)
		return m;
	return status >= 1000 ? 9 : 8;
}

static const char *dlt_cudnn_name(int major, int32_t st)
{
	if (major >= 9)
		DLT_LOOKUP(dlt_cudnn9_names, st);
	else
		DLT_LOOKUP(dlt_cudnn8_names, st);
	return NULL;
}

const char *dlt_status_name(int family, int64_t cudnn_version, int32_t st)
{
	switch (family) {
	case DLT_FAM_CUDART:
		DLT_LOOKUP(dlt_cudart_names, st);
		break;
	case DLT_FAM_CUDA:
		DLT_LOOKUP(dlt_cu_names, st);
		break;
	case DLT_FAM_CUDNN:
		return dlt_cudnn_name(dlt_cudnn_status_major(cudnn_version, st),
				      st);
	case DLT_FAM_NCCL:
		DLT_LOOKUP(dlt_nccl_names, st);
		break;
	}
	return NULL;
}

const char *dlt_status_describe(int family, int64_t cudnn_version,
				int32_t status, char *buf, size_t cap)
{
	const char *n = dlt_status_name(family, cudnn_version, status);
	if (n)
		snprintf(buf, cap, "%s (%" PRId32 ")", n, status);
	else
		snprintf(buf, cap, "status %" PRId32, status);
	return buf;
}

bool dlt_cudnn_not_supported(int major, int32_t st)
{
	if (major >= 9)
		return st >= 3000 && st < 4000;
	return st == 9 || st == 6; /* NOT_SUPPORTED, ARCH_MISMATCH */
}

bool dlt_cudnn_alloc_failed(int major, int32_t st)
{
	if (major >= 9)
		return st == 4003 || st == 4004;
	return st == 2;
}

bool dlt_cudnn_sublib_status(int major, int32_t st)
{
	if (major >= 9)
		return st == 1002 || st == 1008 || st == 3009;
	return st == 14;
}

bool dlt_cudnn_not_initialized(int major, int32_t st)
{
	return major >= 9 ? st == 1001 : st == 1;
}

const char *dlt_cuda_version_str(int64_t v, char *buf, size_t cap)
{
	if (v <= 0)
		snprintf(buf, cap, "%" PRId64, v);
	else
		snprintf(buf, cap, "%" PRId64 ".%" PRId64, v / 1000,
			 v % 1000 / 10);
	return buf;
}

const char *dlt_cudnn_version_str(int64_t v, char *buf, size_t cap)
{
	if (v >= 90000)
		snprintf(buf, cap, "%" PRId64 ".%" PRId64 ".%" PRId64,
			 v / 10000, v % 10000 / 100, v % 100);
	else if (v >= 1000)
		snprintf(buf, cap, "%" PRId64 ".%" PRId64 ".%" PRId64, v / 1000,
			 v % 1000 / 100, v % 100);
	else
		snprintf(buf, cap, "%" PRId64, v);
	return buf;
}

const char *dlt_nccl_version_str(int64_t v, char *buf, size_t cap)
{
	/* NCCL <= 2.8: X*1000+Y*100+Z; later X*10000+Y*100+Z. */
	if (v >= 20900)
		snprintf(buf, cap, "%" PRId64 ".%" PRId64 ".%" PRId64,
			 v / 10000, v % 10000 / 100, v % 100);
	else if (v >= 1000)
		snprintf(buf, cap, "%" PRId64 ".%" PRId64 ".%" PRId64, v / 1000,
			 v % 1000 / 100, v % 100);
	else
		snprintf(buf, cap, "%" PRId64, v);
	return buf;
}
