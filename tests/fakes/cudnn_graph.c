/* Fake cuDNN, what libcudnn_graph.so.9 holds (handles, versions, error
 * strings; the backend API is in cudnn_backend.c).  Also part of the 7.x
 * fake, which is one library.
 *
 * Knobs:
 *   FAKE_CUDNN_VERSION        cudnnGetVersion and the version word
 *                             (default 91900, 7.x: 7605)
 *   FAKE_CUDNN_CUDART         cudnnGetCudartVersion (default 12040,
 *                             7.x: 10010)
 *   FAKE_CUDNN_CREATE_STATUS  cudnnCreate returns this instead of success */
#include "fake_cudnn.h"

#include <stdlib.h>

#if DLT_CUDNN_MAJOR >= 9
/* What the ops and cnn sub-libraries compare their own word with. */
FAKE_EXPORT unsigned int cudnn_graph_version;

__attribute__((constructor)) static void graph_init(void)
{
	cudnn_graph_version = dlt_cudnn_word(dlt_cudnn_version());
}

/* The bottom of the stack: nothing to compare with. */
FAKE_EXPORT cudnnStatus_t cudnnGraphVersionCheck(void)
{
	return DLT_ST_SUCCESS;
}
#endif

FAKE_EXPORT size_t cudnnGetVersion(void)
{
	return (size_t)dlt_cudnn_version();
}

FAKE_EXPORT size_t cudnnGetCudartVersion(void)
{
	return (size_t)fake_env_long("FAKE_CUDNN_CUDART",
				     DLT_CUDNN_DEFAULT_CUDART);
}

struct st_name {
	int code;
	const char *name;
};

#define DLT_ST_NAME(name, value) {value, "CUDNN_STATUS_" #name},
#if DLT_CUDNN_MAJOR >= 9
static const struct st_name st_names[] = {DLT_ABI_CUDNN9_STATUS(DLT_ST_NAME)};
#else
static const struct st_name st_names[] = {DLT_ABI_CUDNN8_STATUS(DLT_ST_NAME)};
#endif

FAKE_EXPORT const char *cudnnGetErrorString(cudnnStatus_t status)
{
	/* The first name wins: 4003 is INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
	 * not its deprecated alias ALLOC_FAILED, as in the real 9.x. */
	for (size_t i = 0; i < sizeof(st_names) / sizeof(st_names[0]); i++)
		if (st_names[i].code == (int)status)
			return st_names[i].name;
	return "CUDNN_UNKNOWN_STATUS";
}

FAKE_EXPORT cudnnStatus_t cudnnCreate(cudnnHandle_t *handle)
{
	long st = fake_env_long("FAKE_CUDNN_CREATE_STATUS", 0);
	if (st != 0)
		return (cudnnStatus_t)st;
	if (handle == NULL)
		return DLT_ST_BAD_PARAM;
	struct cudnnContext *h = calloc(1, sizeof(*h));
	if (h == NULL)
		return DLT_ST_ALLOC_FAILED;
	h->magic = DLT_MAGIC_HANDLE;
	*handle = h;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnDestroy(cudnnHandle_t handle)
{
	if (handle == NULL) /* success in 9.19 */
		return DLT_ST_SUCCESS;
	if (!dlt_handle_ok(handle))
		return DLT_ST_BAD_PARAM;
	handle->magic = 0;
	free(handle);
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnSetStream(cudnnHandle_t handle,
					 cudaStream_t streamId)
{
	if (!dlt_handle_ok(handle))
		return DLT_ST_BAD_PARAM;
	handle->stream = streamId;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetStream(cudnnHandle_t handle,
					 cudaStream_t *streamId)
{
	if (!dlt_handle_ok(handle) || streamId == NULL)
		return DLT_ST_BAD_PARAM;
	*streamId = handle->stream;
	return DLT_ST_SUCCESS;
}
