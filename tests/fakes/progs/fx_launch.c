/* Launches kernels through the fake CUDA runtime, many of them, then
 * (optionally) enters a collective of a one-rank communicator of the fake
 * NCCL, which waits for good under FAKE_NCCL_ALLREDUCE_HANG=1: a job that
 * ran for long and then hung (issue 32).
 *
 *   fx_launch N [--allreduce]   N launches (N < 0: for ever)
 *
 * With --progress F it writes the number of launches made to F every
 * 65,536 launches (a test reads how far it got after killing it).
 * Exit status: 0 when every call succeeded, 1 otherwise, 2 on a usage
 * error. */
#define _GNU_SOURCE
#include "fake_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void kernel(void)
{
}

/* Written beside the file and renamed over it: a SIGKILL between the
 * truncation of fopen "w" and the write left the test an empty file (a
 * journal wait on a loaded machine made that window milliseconds long;
 * test_gpu_hang's ring SIGKILL read "0 launches" about once in five full
 * runs). */
static int progress(const char *path, long long n)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -1;
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "%lld\n", n);
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: fx_launch N [--allreduce] "
				"[--progress FILE]\n");
		return 2;
	}
	long long n = atoll(argv[1]);
	int allreduce = 0;
	const char *prog = NULL;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--allreduce") == 0)
			allreduce = 1;
		else if (strcmp(argv[i], "--progress") == 0 && i + 1 < argc)
			prog = argv[++i];
		else
			return 2;
	}
	dim3 g = {1, 1, 1}, b = {32, 1, 1};
	int bad = 0;
	long long i;
	for (i = 0; n < 0 || i < n; i++) {
		bad |= cudaLaunchKernel((const void *)kernel, g, b, NULL, 0,
					NULL) != cudaSuccess;
		if (prog && (i & 65535) == 65535)
			progress(prog, i + 1);
	}
	printf("launches=%lld failed=%d\n", i, bad);
	fflush(stdout);
	if (allreduce) {
		ncclUniqueId id;
		ncclComm_t comm = NULL;
		float buf[16] = {0};
		bad |= ncclGetUniqueId(&id) != ncclSuccess;
		bad |= ncclCommInitRank(&comm, 1, id, 0) != ncclSuccess;
		bad |= ncclAllReduce(buf, buf, 16, ncclFloat, ncclSum, comm,
				     NULL) != ncclSuccess;
		printf("allreduce returned\n");
	}
	return bad ? 1 : 0;
}
