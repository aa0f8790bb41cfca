/* Names of the statuses and version words the GPU libraries return.
 *
 * A trace stores raw numbers; their meaning depends on the library and, for
 * cuDNN, on its major version (cudnnStatus_t was renumbered in 9.0, see
 * docs/library-facts.md §2).  Everything here is a pure function of the
 * numbers. */
#ifndef DLTRACE_STATUS_H
#define DLTRACE_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* cuDNN major version of a cudnnGetVersion word (7605 -> 7, 91900 -> 9), or
 * 0 when the word is not a version. */
int dlt_cudnn_major(int64_t version);
/* The major to decode a cuDNN status with: that of version when known,
 * else a guess from the status itself (9.x statuses are all >= 1000). */
int dlt_cudnn_status_major(int64_t version, int32_t status);

/* Name of a status of a family (enum dlt_family), NULL when unknown.
 * cudnn_version only matters for cuDNN (0: unknown). */
const char *dlt_status_name(int family, int64_t cudnn_version, int32_t status);
/* "cudaErrorInsufficientDriver (35)", or "status 1234" when unknown. */
const char *dlt_status_describe(int family, int64_t cudnn_version,
				int32_t status, char *buf, size_t cap);

/* Classes of cuDNN statuses the rules reason about. */
bool dlt_cudnn_not_supported(int major, int32_t status);
bool dlt_cudnn_alloc_failed(int major, int32_t status);
/* SUBLIBRARY_VERSION_MISMATCH, SUBLIBRARY_LOADING_FAILED (9.x),
 * VERSION_MISMATCH (8.x). */
bool dlt_cudnn_sublib_status(int major, int32_t status);
/* NOT_INITIALIZED: what cudnnCreate says without a usable GPU. */
bool dlt_cudnn_not_initialized(int major, int32_t status);

/* Version words as people write them ("13.0", "9.19.0", "2.28.9").  The
 * CUDA form is M*1000+m*10; cuDNN and NCCL changed theirs over time. */
const char *dlt_cuda_version_str(int64_t v, char *buf, size_t cap);
const char *dlt_cudnn_version_str(int64_t v, char *buf, size_t cap);
const char *dlt_nccl_version_str(int64_t v, char *buf, size_t cap);
/* A LIB_FAMILY version word of family (enum dlt_family) as people write
 * it; "" for none. */
const char *dlt_family_version_str(uint32_t family, int64_t v, char *buf,
				   size_t cap);

#endif
