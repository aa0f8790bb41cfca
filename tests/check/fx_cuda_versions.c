/* The real CUDA runtime, cuDNN and NCCL, linked.  Without arguments it
 * only asks for versions, which works on a machine without a GPU or a
 * driver (a healthy run for `check`).  With --devices it also counts
 * devices and creates a cuDNN handle and a one-rank NCCL communicator,
 * which fail without a driver (cudaErrorInsufficientDriver,
 * CUDNN_STATUS_NOT_INITIALIZED, ncclUnhandledCudaError). */
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nccl.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int v = 0;
	printf("cudaRuntimeGetVersion rc=%d", (int)cudaRuntimeGetVersion(&v));
	printf(" value=%d\n", v);
	printf("cudaDriverGetVersion rc=%d", (int)cudaDriverGetVersion(&v));
	printf(" value=%d\n", v);
	printf("cudnnGetVersion=%zu cudnnGetCudartVersion=%zu\n",
	       cudnnGetVersion(), cudnnGetCudartVersion());
	printf("ncclGetVersion rc=%d", (int)ncclGetVersion(&v));
	printf(" value=%d\n", v);
	if (argc > 1 && strcmp(argv[1], "--devices") == 0) {
		int n = -1;
		printf("cudaGetDeviceCount rc=%d\n",
		       (int)cudaGetDeviceCount(&n));
		cudnnHandle_t h;
		printf("cudnnCreate rc=%d\n", (int)cudnnCreate(&h));
		ncclUniqueId id;
		printf("ncclGetUniqueId rc=%d\n", (int)ncclGetUniqueId(&id));
		ncclComm_t c;
		printf("ncclCommInitRank rc=%d\n",
		       (int)ncclCommInitRank(&c, 1, id, 0));
	}
	return 0;
}
