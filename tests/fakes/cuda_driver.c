/* Fake libcuda.so.1: the CUDA driver API as the runtime uses it, with no
 * GPU.  Exports the versioned names the real driver exports (cuMemAlloc_v2,
 * cuCtxCreate_v2, cuGetProcAddress_v2 …) and hands out the right version
 * for a base name through cuGetProcAddress{,_v2}, the way the runtime
 * (>= 11.3) reaches every driver function (docs/library-facts.md §1).
 *
 * Knobs:
 *   FAKE_CUDA_DRIVER_VERSION  cuDriverGetVersion (default
 *                             DLT_FAKE_DRIVER_DEFAULT_VERSION)
 *   FAKE_CUDA_DEVICES         device count (default 1); 0 makes cuInit
 *                             return CUDA_ERROR_NO_DEVICE
 *   FAKE_CUDA_DRIVER_FAIL     "cuFunc:code[@n],…": that exported function
 *                             returns code (from its n-th call on) */
#define _GNU_SOURCE
#include "fake_api.h"
#include "fake_env.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Define the exported names, not cuda.h's aliases of them. */
#undef cuCtxCreate
#undef cuMemAlloc
#undef cuMemFree
#undef cuGetProcAddress
#undef cuLaunchKernel
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
			  cuuint64_t flags);

#ifndef DLT_FAKE_DRIVER_DEFAULT_VERSION
#define DLT_FAKE_DRIVER_DEFAULT_VERSION 12040
#endif

#define DRV_MAX_DEVICES 64
#define CTX_MAGIC 0x43545846u
#define MOD_MAGIC 0x4d4f4446u
#define FUNC_MAGIC 0x464e4346u
#define MEM_MAGIC 0x4d454d46u

struct CUctx_st {
	uint32_t magic;
	CUdevice dev;
};

struct CUmod_st {
	uint32_t magic;
};

struct CUfunc_st {
	uint32_t magic;
	char name[64];
};

/* Each allocation carries a header so that cuMemFree can reject a pointer
 * it did not hand out instead of corrupting the heap. */
struct mem_hdr {
	uint64_t magic;
	uint64_t size;
};

static int drv_initialized;
static int drv_ndev;
static pthread_mutex_t drv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUctx_st drv_primary[DRV_MAX_DEVICES];
static __thread CUcontext drv_current;

/* The misbehaviour knob, counted per exported function. */
#define DRV_FAIL(name)                                                        \
	do {                                                                  \
		static long calls_;                                           \
		long code_;                                                   \
		long n_ = __atomic_add_fetch(&calls_, 1, __ATOMIC_RELAXED);   \
		if (fake_env_fail("FAKE_CUDA_DRIVER_FAIL", name, n_, &code_)) \
			return (CUresult)code_;                               \
	} while (0)

static int drv_version(void)
{
	return (int)fake_env_long("FAKE_CUDA_DRIVER_VERSION",
				  DLT_FAKE_DRIVER_DEFAULT_VERSION);
}

static int drv_ready(void)
{
	return __atomic_load_n(&drv_initialized, __ATOMIC_ACQUIRE);
}

FAKE_EXPORT CUresult cuInit(unsigned int Flags)
{
	DRV_FAIL("cuInit");
	if (Flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	long n = fake_env_long("FAKE_CUDA_DEVICES", 1);
	if (n <= 0)
		return CUDA_ERROR_NO_DEVICE;
	if (n > DRV_MAX_DEVICES)
		n = DRV_MAX_DEVICES;
	pthread_mutex_lock(&drv_lock);
	drv_ndev = (int)n;
	for (int i = 0; i < drv_ndev; i++) {
		drv_primary[i].magic = CTX_MAGIC;
		drv_primary[i].dev = i;
	}
	__atomic_store_n(&drv_initialized, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&drv_lock);
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDriverGetVersion(int *driverVersion)
{
	DRV_FAIL("cuDriverGetVersion");
	if (driverVersion == NULL)
		return CUDA_ERROR_INVALID_VALUE;
	*driverVersion = drv_version();
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count)
{
	DRV_FAIL("cuDeviceGetCount");
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (count == NULL)
		return CUDA_ERROR_INVALID_VALUE;
	*count = drv_ndev;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
	DRV_FAIL("cuDeviceGet");
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (device == NULL)
		return CUDA_ERROR_INVALID_VALUE;
	if (ordinal < 0 || ordinal >= drv_ndev)
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags,
				    CUdevice dev)
{
	DRV_FAIL("cuCtxCreate_v2");
	(void)flags;
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (pctx == NULL)
		return CUDA_ERROR_INVALID_VALUE;
	if (dev < 0 || dev >= drv_ndev)
		return CUDA_ERROR_INVALID_DEVICE;
	struct CUctx_st *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return CUDA_ERROR_OUT_OF_MEMORY;
	c->magic = CTX_MAGIC;
	c->dev = dev;
	*pctx = c;
	drv_current = c;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	DRV_FAIL("cuDevicePrimaryCtxRetain");
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (pctx == NULL)
		return CUDA_ERROR_INVALID_VALUE;
	if (dev < 0 || dev >= drv_ndev)
		return CUDA_ERROR_INVALID_DEVICE;
	*pctx = &drv_primary[dev];
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
	DRV_FAIL("cuCtxSetCurrent");
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (ctx != NULL && ctx->magic != CTX_MAGIC)
		return CUDA_ERROR_INVALID_CONTEXT;
	drv_current = ctx;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSynchronize(void)
{
	DRV_FAIL("cuCtxSynchronize");
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (drv_current == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	return CUDA_SUCCESS;
}

/* Images the fake accepts: an ELF file (a cubin) or anything starting with
 * "DLTFAKE" (what the fake runtime loads). */
FAKE_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
	DRV_FAIL("cuModuleLoadData");
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (drv_current == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (module == NULL || image == NULL)
		return CUDA_ERROR_INVALID_VALUE;
	if (memcmp(image, "\177ELF", 4) != 0 &&
	    memcmp(image, "DLTFAKE", 7) != 0)
		return CUDA_ERROR_INVALID_IMAGE;
	struct CUmod_st *m = calloc(1, sizeof(*m));
	if (m == NULL)
		return CUDA_ERROR_OUT_OF_MEMORY;
	m->magic = MOD_MAGIC;
	*module = m;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
					 const char *name)
{
	DRV_FAIL("cuModuleGetFunction");
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (hfunc == NULL || name == NULL)
		return CUDA_ERROR_INVALID_VALUE;
	if (hmod == NULL || hmod->magic != MOD_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	struct CUfunc_st *f = calloc(1, sizeof(*f));
	if (f == NULL)
		return CUDA_ERROR_OUT_OF_MEMORY;
	f->magic = FUNC_MAGIC;
	strncpy(f->name, name, sizeof(f->name) - 1);
	*hfunc = f;
	return CUDA_SUCCESS;
}

static CUresult launch(CUfunction f, unsigned int gx, unsigned int gy,
		       unsigned int gz, unsigned int bx, unsigned int by,
		       unsigned int bz)
{
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (drv_current == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (f == NULL || f->magic != FUNC_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
	    (unsigned long)bx * by * bz > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuLaunchKernel(
	CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
	unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
	unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
	void **kernelParams, void **extra)
{
	DRV_FAIL("cuLaunchKernel");
	(void)sharedMemBytes, (void)hStream, (void)kernelParams, (void)extra;
	return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
		      blockDimZ);
}

FAKE_EXPORT CUresult cuLaunchKernel_ptsz(
	CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
	unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
	unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
	void **kernelParams, void **extra)
{
	DRV_FAIL("cuLaunchKernel_ptsz");
	(void)sharedMemBytes, (void)hStream, (void)kernelParams, (void)extra;
	return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
		      blockDimZ);
}

/* "Device" memory is host memory: tests may read what they wrote. */
FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	DRV_FAIL("cuMemAlloc_v2");
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (drv_current == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (dptr == NULL || bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	struct mem_hdr *h = malloc(sizeof(*h) + bytesize);
	if (h == NULL)
		return CUDA_ERROR_OUT_OF_MEMORY;
	h->magic = MEM_MAGIC;
	h->size = bytesize;
	*dptr = (CUdeviceptr)(uintptr_t)(h + 1);
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	DRV_FAIL("cuMemFree_v2");
	if (!drv_ready())
		return CUDA_ERROR_NOT_INITIALIZED;
	if (drv_current == NULL)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (dptr == 0)
		return CUDA_ERROR_INVALID_VALUE;
	struct mem_hdr *h = (struct mem_hdr *)(uintptr_t)dptr - 1;
	if (h->magic != MEM_MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	h->magic = 0;
	free(h);
	return CUDA_SUCCESS;
}

struct drv_err {
	int code;
	const char *name;
	const char *text;
};

/* Names and texts as the real driver gives them. */
static const struct drv_err drv_errs[] = {
	{0, "CUDA_SUCCESS", "no error"},
	{1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	{2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	{3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	{4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
	{100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	{101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	{200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
	{201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	{400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	{500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
	{700, "CUDA_ERROR_ILLEGAL_ADDRESS",
	 "an illegal memory access was encountered"},
	{719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
	{801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
	{999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static const struct drv_err *drv_err_find(CUresult e)
{
	for (size_t i = 0; i < sizeof(drv_errs) / sizeof(drv_errs[0]); i++)
		if (drv_errs[i].code == (int)e)
			return &drv_errs[i];
	return NULL;
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr)
{
	if (pStr == NULL)
		return CUDA_ERROR_INVALID_VALUE;
	const struct drv_err *d = drv_err_find(error);
	*pStr = d != NULL ? d->text : NULL;
	return d != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr)
{
	if (pStr == NULL)
		return CUDA_ERROR_INVALID_VALUE;
	const struct drv_err *d = drv_err_find(error);
	*pStr = d != NULL ? d->name : NULL;
	return d != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* What cuGetProcAddress hands out: for each base name, the versions of it
 * and the CUDA version each appeared in.  A request gets the newest entry
 * not newer than the version asked for (and than the driver itself). */
struct proc {
	const char *name;
	int since;
	void *fn;
	void *ptsz; /* per-thread default stream variant, if any */
};

static const struct proc procs[] = {
	{"cuInit", 2000, (void *)cuInit, NULL},
	{"cuDriverGetVersion", 2020, (void *)cuDriverGetVersion, NULL},
	{"cuDeviceGetCount", 2000, (void *)cuDeviceGetCount, NULL},
	{"cuDeviceGet", 2000, (void *)cuDeviceGet, NULL},
	{"cuCtxCreate", 3020, (void *)cuCtxCreate_v2, NULL},
	{"cuCtxSetCurrent", 4000, (void *)cuCtxSetCurrent, NULL},
	{"cuCtxSynchronize", 2000, (void *)cuCtxSynchronize, NULL},
	{"cuDevicePrimaryCtxRetain", 7000, (void *)cuDevicePrimaryCtxRetain,
	 NULL},
	{"cuModuleLoadData", 2000, (void *)cuModuleLoadData, NULL},
	{"cuModuleGetFunction", 2000, (void *)cuModuleGetFunction, NULL},
	{"cuLaunchKernel", 4000, (void *)cuLaunchKernel,
	 (void *)cuLaunchKernel_ptsz},
	{"cuMemAlloc", 3020, (void *)cuMemAlloc_v2, NULL},
	{"cuMemFree", 3020, (void *)cuMemFree_v2, NULL},
	{"cuGetErrorString", 6000, (void *)cuGetErrorString, NULL},
	{"cuGetErrorName", 6000, (void *)cuGetErrorName, NULL},
	{"cuGetProcAddress", 11030, (void *)cuGetProcAddress, NULL},
	{"cuGetProcAddress", 12000, (void *)cuGetProcAddress_v2, NULL},
};

static CUresult proc_lookup(const char *symbol, void **pfn, int cudaVersion,
			    cuuint64_t flags,
			    CUdriverProcAddressQueryResult *status)
{
	CUdriverProcAddressQueryResult st =
		CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	const struct proc *best = NULL;
	const cuuint64_t known = CU_GET_PROC_ADDRESS_LEGACY_STREAM |
				 CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;

	if (symbol == NULL || pfn == NULL || (flags & ~known) != 0)
		return CUDA_ERROR_INVALID_VALUE;
	int limit = cudaVersion < drv_version() ? cudaVersion : drv_version();
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		if (strcmp(procs[i].name, symbol) != 0)
			continue;
		st = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
		if (procs[i].since <= limit &&
		    (best == NULL || procs[i].since > best->since))
			best = &procs[i];
	}
	if (best == NULL) {
		*pfn = NULL;
		if (status != NULL)
			*status = st;
		return CUDA_ERROR_NOT_FOUND;
	}
	*pfn = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) &&
			       best->ptsz != NULL
		       ? best->ptsz
		       : best->fn;
	if (status != NULL)
		*status = CU_GET_PROC_ADDRESS_SUCCESS;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGetProcAddress_v2(
	const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
	CUdriverProcAddressQueryResult *symbolStatus)
{
	DRV_FAIL("cuGetProcAddress_v2");
	return proc_lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}

FAKE_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn,
				      int cudaVersion, cuuint64_t flags)
{
	DRV_FAIL("cuGetProcAddress");
	return proc_lookup(symbol, pfn, cudaVersion, flags, NULL);
}
