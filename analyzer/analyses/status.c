#include "status.h"

#include <inttypes.h>
#include <stdio.h>

#include "dltrace/format.h"
#include "dltrace/gpu_abi.h"

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

/* The names come from dltrace/gpu_abi.def, whose values
 * tests/test_gpu_abi.c holds against the real headers. */
#define DLT_CODE_NAME(name, value) {(value), #name},
#define DLT_CUDNN_CODE_NAME(name, value) {(value), "CUDNN_STATUS_" #name},
static const struct dlt_code_name dlt_cudart_names[] = {
	DLT_ABI_CUDART_STATUS(DLT_CODE_NAME)};
static const struct dlt_code_name dlt_cu_names[] = {
	DLT_ABI_CUDA_STATUS(DLT_CODE_NAME)};
/* A lookup returns the first name of a value: the 9.x aliases of 8.x names
 * are at the end of their list. */
static const struct dlt_code_name dlt_cudnn8_names[] = {
	DLT_ABI_CUDNN8_STATUS(DLT_CUDNN_CODE_NAME)};
static const struct dlt_code_name dlt_cudnn9_names[] = {
	DLT_ABI_CUDNN9_STATUS(DLT_CUDNN_CODE_NAME)};
static const struct dlt_code_name dlt_nccl_names[] = {
	DLT_ABI_NCCL_STATUS(DLT_CODE_NAME)};
#undef DLT_CODE_NAME
#undef DLT_CUDNN_CODE_NAME

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
	return status >= DLT_ABI_CUDNN9_NOT_INITIALIZED ? 9 : 8;
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
	/* 9.x: the whole 3000 class (NOT_SUPPORTED_*). */
	if (major >= 9)
		return st >= DLT_ABI_CUDNN9_NOT_SUPPORTED &&
		       st < DLT_ABI_CUDNN9_INTERNAL_ERROR;
	return st == DLT_ABI_CUDNN8_NOT_SUPPORTED ||
	       st == DLT_ABI_CUDNN8_ARCH_MISMATCH;
}

bool dlt_cudnn_alloc_failed(int major, int32_t st)
{
	if (major >= 9)
		return st == DLT_ABI_CUDNN9_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
		       st == DLT_ABI_CUDNN9_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED;
	return st == DLT_ABI_CUDNN8_ALLOC_FAILED;
}

bool dlt_cudnn_sublib_status(int major, int32_t st)
{
	if (major >= 9)
		return st == DLT_ABI_CUDNN9_SUBLIBRARY_VERSION_MISMATCH ||
		       st == DLT_ABI_CUDNN9_SUBLIBRARY_LOADING_FAILED ||
		       st == DLT_ABI_CUDNN9_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE;
	return st == DLT_ABI_CUDNN8_VERSION_MISMATCH;
}

bool dlt_cudnn_not_initialized(int major, int32_t st)
{
	return major >= 9 ? st == DLT_ABI_CUDNN9_NOT_INITIALIZED
			  : st == DLT_ABI_CUDNN8_NOT_INITIALIZED;
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

/* A version word M*10000+m*100+p from wide_from on, M*1000+m*100+p below
 * it (cuDNN from 9.0, NCCL from 2.9), a bare number under 1000. */
static const char *dlt_version_word_str(int64_t v, int64_t wide_from, char *buf,
					size_t cap)
{
	if (v >= wide_from)
		snprintf(buf, cap, "%" PRId64 ".%" PRId64 ".%" PRId64,
			 v / 10000, v % 10000 / 100, v % 100);
	else if (v >= 1000)
		snprintf(buf, cap, "%" PRId64 ".%" PRId64 ".%" PRId64, v / 1000,
			 v % 1000 / 100, v % 100);
	else
		snprintf(buf, cap, "%" PRId64, v);
	return buf;
}

const char *dlt_cudnn_version_str(int64_t v, char *buf, size_t cap)
{
	return dlt_version_word_str(v, 90000, buf, cap);
}

const char *dlt_nccl_version_str(int64_t v, char *buf, size_t cap)
{
	/* NCCL <= 2.8: X*1000+Y*100+Z; later X*10000+Y*100+Z. */
	return dlt_version_word_str(v, 20900, buf, cap);
}

const char *dlt_family_version_str(uint32_t family, int64_t v, char *buf,
				   size_t cap)
{
	buf[0] = '\0';
	if (v <= 0)
		return buf;
	switch (family) {
	case DLT_FAM_NCCL:
		return dlt_nccl_version_str(v, buf, cap);
	case DLT_FAM_CUDNN:
		return dlt_cudnn_version_str(v, buf, cap);
	case DLT_FAM_CUBLAS:
	case DLT_FAM_CUBLASLT:
		/* major * 10000 + minor * 100 + patch */
		snprintf(buf, cap, "%" PRId64 ".%" PRId64 ".%" PRId64,
			 v / 10000, v % 10000 / 100, v % 100);
		return buf;
	default:
		return dlt_cuda_version_str(v, buf, cap);
	}
}
