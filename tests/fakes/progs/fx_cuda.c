/* Drives the CUDA runtime the way a program does, printing every return
 * code and result in a stable form (no addresses, no times).
 *
 * Built twice: fx_cuda_direct links libcudart (DT_NEEDED) and calls it
 * directly; fx_cuda_dlopen (FX_DLOPEN) opens FX_CUDART_SONAME with
 * dlopen(RTLD_NOW | RTLD_LOCAL) and takes every function with dlsym, as
 * TensorFlow and JAX do, and also takes driver functions through
 * cudaGetDriverEntryPoint{,ByVersion} and calls them.
 *
 * Exit status: 0 when every call that should succeed did, 1 otherwise, 2
 * when the runtime could not be opened. */
#define _GNU_SOURCE
#include "fake_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#undef cuMemAlloc
#undef cuMemFree

#define FX_CUDA_FUNCS(X)         \
	X(cudaRuntimeGetVersion) \
	X(cudaDriverGetVersion)  \
	X(cudaGetDeviceCount)    \
	X(cudaSetDevice)         \
	X(cudaGetDevice)         \
	X(cudaMalloc)            \
	X(cudaFree)              \
	X(cudaMemcpy)            \
	X(cudaMemcpyAsync)       \
	X(cudaMemcpyAsync_ptsz)  \
	X(cudaMemset)            \
	X(cudaLaunchKernel)      \
	X(cudaLaunchKernel_ptsz) \
	X(cudaStreamCreate)      \
	X(cudaStreamDestroy)     \
	X(cudaStreamSynchronize) \
	X(cudaDeviceSynchronize) \
	X(cudaEventCreate)       \
	X(cudaEventDestroy)      \
	X(cudaEventRecord)       \
	X(cudaEventSynchronize)  \
	X(cudaGetLastError)      \
	X(cudaPeekAtLastError)   \
	X(cudaGetErrorString)    \
	X(cudaGetErrorName)

#ifdef FX_DLOPEN
/* CUDA 13 deprecates cudaGetDriverEntryPoint; programs still call it. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define FX_CUDA_FUNCS_DL(X)        \
	X(cudaGetDriverEntryPoint) \
	X(cudaGetDriverEntryPointByVersion)
#define FX_FIELD(name) __typeof__(&name) name;
static struct {
	FX_CUDA_FUNCS(FX_FIELD) FX_CUDA_FUNCS_DL(FX_FIELD)
} rt;
#define RT(name) rt.name
#else
#define RT(name) name
#endif

static int failures;

/* One line per call: its name, what it returned, what it produced. */
static cudaError_t report(const char *what, cudaError_t rc, int expect_ok,
			  const char *extra)
{
	printf("%s rc=%d (%s)%s%s\n", what, (int)rc, RT(cudaGetErrorName)(rc),
	       extra[0] ? " " : "", extra);
	if (expect_ok && rc != cudaSuccess)
		failures++;
	return rc;
}

static void fx_kernel(void)
{
}

#ifdef FX_DLOPEN
static int open_runtime(void)
{
	void *h = dlopen(FX_CUDART_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		printf("dlopen %s failed\n", FX_CUDART_SONAME);
		return -1;
	}
	printf("dlopen %s ok\n", FX_CUDART_SONAME);
	int missing = 0;
#define FX_LOOKUP(name)                                     \
	do {                                                \
		void *p_ = dlsym(h, #name);                 \
		memcpy(&rt.name, &p_, sizeof(p_));          \
		if (p_ == NULL) {                           \
			printf("dlsym %s failed\n", #name); \
			missing++;                          \
		}                                           \
	} while (0);
	FX_CUDA_FUNCS(FX_LOOKUP)
	FX_CUDA_FUNCS_DL(FX_LOOKUP)
	return missing ? -1 : 0;
}

typedef CUresult (*fx_memalloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*fx_memfree_fn)(CUdeviceptr);

/* Driver functions by base name, as PyTorch takes them. */
static void driver_entry_points(int runtime_version)
{
	enum cudaDriverEntryPointQueryResult st = cudaDriverEntryPointSuccess;
	char extra[96];
	void *p = NULL;

	cudaError_t rc = RT(cudaGetDriverEntryPoint)("cuMemAlloc", &p,
						     cudaEnableDefault, &st);
	snprintf(extra, sizeof(extra), "status=%d fn=%s", (int)st,
		 p ? "set" : "null");
	report("cudaGetDriverEntryPoint(cuMemAlloc)", rc, 1, extra);
	CUdeviceptr dptr = 0;
	if (p != NULL) {
		fx_memalloc_fn memalloc;
		memcpy(&memalloc, &p, sizeof(p));
		CUresult r = memalloc(&dptr, 256);
		printf("cuMemAlloc(256) rc=%d ptr=%s\n", (int)r,
		       dptr ? "set" : "null");
		failures += r != CUDA_SUCCESS;
	}

	p = NULL;
	rc = RT(cudaGetDriverEntryPointByVersion)(
		"cuMemFree", &p, (unsigned int)(runtime_version / 1000 * 1000),
		cudaEnableDefault, &st);
	snprintf(extra, sizeof(extra), "version=%d status=%d fn=%s",
		 runtime_version / 1000 * 1000, (int)st, p ? "set" : "null");
	report("cudaGetDriverEntryPointByVersion(cuMemFree)", rc, 1, extra);
	if (p != NULL && dptr != 0) {
		fx_memfree_fn memfree;
		memcpy(&memfree, &p, sizeof(p));
		CUresult r = memfree(dptr);
		printf("cuMemFree rc=%d\n", (int)r);
		failures += r != CUDA_SUCCESS;
	}

	p = NULL;
	rc = RT(cudaGetDriverEntryPointByVersion)("cuGetProcAddress", &p, 12000,
						  cudaEnableDefault, &st);
	snprintf(extra, sizeof(extra), "status=%d fn=%s", (int)st,
		 p ? "set" : "null");
	report("cudaGetDriverEntryPointByVersion(cuGetProcAddress)", rc, 1,
	       extra);

	p = (void *)&st;
	rc = RT(cudaGetDriverEntryPoint)("cuDltNoSuchFunction", &p,
					 cudaEnableDefault, &st);
	snprintf(extra, sizeof(extra), "status=%d fn=%s", (int)st,
		 p ? "set" : "null");
	report("cudaGetDriverEntryPoint(cuDltNoSuchFunction)", rc, 1, extra);
}
#endif

int main(void)
{
	char extra[128];
	int v = -1, n = -1;
	cudaError_t rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef FX_DLOPEN
	if (open_runtime() != 0)
		return 2;
#endif
	rc = RT(cudaRuntimeGetVersion)(&v);
	snprintf(extra, sizeof(extra), "version=%d", rc ? -1 : v);
	report("cudaRuntimeGetVersion", rc, 1, extra);
	int runtime_version = v;

	v = -1;
	rc = RT(cudaDriverGetVersion)(&v);
	snprintf(extra, sizeof(extra), "version=%d", rc ? -1 : v);
	report("cudaDriverGetVersion", rc, 1, extra);

	rc = RT(cudaGetDeviceCount)(&n);
	snprintf(extra, sizeof(extra), "count=%d", rc ? -1 : n);
	report("cudaGetDeviceCount", rc, 1, extra);

	report("cudaSetDevice(0)", RT(cudaSetDevice)(0), 1, "");
	n = -1;
	rc = RT(cudaGetDevice)(&n);
	snprintf(extra, sizeof(extra), "device=%d", rc ? -1 : n);
	report("cudaGetDevice", rc, 1, extra);

	enum { LEN = 4096 };
	unsigned char *host = malloc(LEN), *back = malloc(LEN);
	if (host == NULL || back == NULL)
		return 1;
	for (int i = 0; i < LEN; i++)
		host[i] = (unsigned char)i;
	memset(back, 0, LEN);

	void *dev = NULL;
	rc = RT(cudaMalloc)(&dev, LEN);
	snprintf(extra, sizeof(extra), "ptr=%s",
		 rc == cudaSuccess && dev != NULL ? "set" : "null");
	report("cudaMalloc(4096)", rc, 1, extra);
	if (rc != cudaSuccess)
		dev = NULL;

	report("cudaMemcpy(HostToDevice)",
	       RT(cudaMemcpy)(dev, host, LEN, cudaMemcpyHostToDevice), 1, "");
	rc = RT(cudaMemcpy)(back, dev, LEN, cudaMemcpyDeviceToHost);
	report("cudaMemcpy(DeviceToHost)", rc, 1,
	       rc == cudaSuccess && memcmp(host, back, LEN) == 0 ? "data=same"
								 : "data=-");
	report("cudaMemset", RT(cudaMemset)(dev, 0, LEN), 1, "");

	cudaStream_t stream = NULL;
	rc = RT(cudaStreamCreate)(&stream);
	report("cudaStreamCreate", rc, 1, "");
	if (rc != cudaSuccess)
		stream = NULL;
	report("cudaMemcpyAsync(DeviceToHost)",
	       RT(cudaMemcpyAsync)(back, dev, LEN, cudaMemcpyDeviceToHost,
				   stream),
	       1, "");
	report("cudaMemcpyAsync_ptsz(HostToDevice)",
	       RT(cudaMemcpyAsync_ptsz)(dev, host, LEN, cudaMemcpyHostToDevice,
					stream),
	       1, "");

	dim3 grid = {4, 1, 1}, block = {128, 1, 1}, none = {0, 1, 1};
	void *args[1] = {&dev};
	const void *kernel = (const void *)(size_t)&fx_kernel;
	report("cudaLaunchKernel",
	       RT(cudaLaunchKernel)(kernel, grid, block, args, 0, stream), 1,
	       "");
	report("cudaLaunchKernel_ptsz",
	       RT(cudaLaunchKernel_ptsz)(kernel, grid, block, args, 0, NULL), 1,
	       "");
	/* Two launches that must fail, and what the error state says. */
	report("cudaLaunchKernel(grid 0)",
	       RT(cudaLaunchKernel)(kernel, none, block, args, 0, stream), 0,
	       "");
	report("cudaPeekAtLastError", RT(cudaPeekAtLastError)(), 0, "");
	report("cudaGetLastError", RT(cudaGetLastError)(), 0, "");
	report("cudaGetLastError(again)", RT(cudaGetLastError)(), 1, "");

	cudaEvent_t ev = NULL;
	rc = RT(cudaEventCreate)(&ev);
	report("cudaEventCreate", rc, 1, "");
	if (rc != cudaSuccess)
		ev = NULL;
	report("cudaEventRecord", RT(cudaEventRecord)(ev, stream), 1, "");
	report("cudaEventSynchronize", RT(cudaEventSynchronize)(ev), 1, "");
	report("cudaStreamSynchronize", RT(cudaStreamSynchronize)(stream), 1,
	       "");
	report("cudaDeviceSynchronize", RT(cudaDeviceSynchronize)(), 1, "");

#ifdef FX_DLOPEN
	driver_entry_points(runtime_version);
#else
	(void)runtime_version;
#endif

	if (ev != NULL)
		report("cudaEventDestroy", RT(cudaEventDestroy)(ev), 1, "");
	if (stream != NULL)
		report("cudaStreamDestroy", RT(cudaStreamDestroy)(stream), 1,
		       "");
	report("cudaFree", RT(cudaFree)(dev), 1, "");
	report("cudaGetLastError(end)", RT(cudaGetLastError)(), 1, "");
	printf("cudaGetErrorString(35)=\"%s\"\n",
	       RT(cudaGetErrorString)(cudaErrorInsufficientDriver));
	printf("failures=%d\n", failures);
	free(host);
	free(back);
	return failures ? 1 : 0;
}
