/* Fake libcudart.so.<major>: the CUDA runtime as a program sees it, with no
 * GPU.  Like the real runtime (>= 11.3) it opens the driver on first use
 * with dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), takes
 * cuGetProcAddress_v2 with one dlsym, asks it for cuGetProcAddress itself
 * and then for every driver function it needs (docs/library-facts.md §1).
 *
 * Error semantics follow the real runtime: a failure is remembered per
 * thread, cudaGetLastError returns and clears it, cudaPeekAtLastError does
 * not clear it; an initialisation failure (no driver: 35) and the sticky
 * errors (700, 710, 714-719: a "corrupted context") are returned by every
 * later call and never cleared.
 *
 * Knobs:
 *   FAKE_CUDART_VERSION  cudaRuntimeGetVersion, and the version the
 *                        runtime asks the driver for (default
 *                        DLT_FAKE_CUDART_DEFAULT_VERSION)
 *   FAKE_CUDART_DRIVER   the name dlopen'ed instead of libcuda.so.1 (a
 *                        name that does not exist gives "no driver" even on
 *                        a machine with a real driver)
 *   FAKE_CUDA_FAIL       "cudaFunc:code[@n],…": that exported function
 *                        returns code (from its n-th call on) */
#define _GNU_SOURCE
#include "fake_api.h"
#include "fake_env.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#undef cuGetProcAddress

#ifndef DLT_FAKE_CUDART_DEFAULT_VERSION
#define DLT_FAKE_CUDART_DEFAULT_VERSION 12040
#endif

#define STREAM_MAGIC 0x53545246u
#define EVENT_MAGIC 0x45565446u

struct CUstream_st {
	uint32_t magic;
};

struct CUevent_st {
	uint32_t magic;
	int recorded;
};

/* The driver functions the runtime uses, each asked for by base name. */
typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t,
			    CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*init_fn)(unsigned int);
typedef CUresult (*intp_fn)(int *);
typedef CUresult (*devget_fn)(CUdevice *, int);
typedef CUresult (*retain_fn)(CUcontext *, CUdevice);
typedef CUresult (*setcur_fn)(CUcontext);
typedef CUresult (*void_fn)(void);
typedef CUresult (*modload_fn)(CUmodule *, const void *);
typedef CUresult (*modfunc_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*launch_fn)(CUfunction, unsigned int, unsigned int,
			      unsigned int, unsigned int, unsigned int,
			      unsigned int, unsigned int, CUstream, void **,
			      void **);
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);

static struct {
	gpa2_fn gpa2;
	gpa1_fn gpa1;
	init_fn cuInit;
	intp_fn cuDriverGetVersion;
	intp_fn cuDeviceGetCount;
	devget_fn cuDeviceGet;
	retain_fn cuDevicePrimaryCtxRetain;
	setcur_fn cuCtxSetCurrent;
	void_fn cuCtxSynchronize;
	modload_fn cuModuleLoadData;
	modfunc_fn cuModuleGetFunction;
	launch_fn cuLaunchKernel;
	alloc_fn cuMemAlloc;
	free_fn cuMemFree;
} drv;

/* Store a data pointer from dlsym or cuGetProcAddress in a function
 * pointer, as POSIX allows. */
#define SETFN(field, p)                            \
	do {                                       \
		void *p_ = (p);                    \
		memcpy(&(field), &p_, sizeof(p_)); \
	} while (0)

static pthread_once_t rt_once = PTHREAD_ONCE_INIT;
static int rt_have_driver;   /* the driver was opened */
static int rt_driver_ver;    /* its cuDriverGetVersion */
static cudaError_t rt_init;  /* why the runtime cannot run, or 0 */
static int rt_ndev;	     /* devices after cuInit */
static int rt_sticky;	     /* a sticky error, once one happened */
static CUfunction rt_kernel; /* what every cudaLaunchKernel launches */
static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;

static __thread cudaError_t rt_last;
static __thread int rt_device;
static __thread int rt_ctx_ready;

/* A stand-in for the fat binary nvcc would have registered. */
static const char rt_image[] = "DLTFAKE cubin: dlt_fake_kernel";

static int rt_version(void)
{
	return (int)fake_env_long("FAKE_CUDART_VERSION",
				  DLT_FAKE_CUDART_DEFAULT_VERSION);
}

/* One driver function by base name, the way the runtime asks for it. */
static void *rt_proc(const char *name)
{
	void *p = NULL;
	CUdriverProcAddressQueryResult st;
	if (drv.gpa2 != NULL)
		drv.gpa2(name, &p, rt_version(), CU_GET_PROC_ADDRESS_DEFAULT,
			 &st);
	else if (drv.gpa1 != NULL)
		drv.gpa1(name, &p, rt_version(), CU_GET_PROC_ADDRESS_DEFAULT);
	return p;
}

static cudaError_t rt_from_cu(CUresult r)
{
	switch ((int)r) {
	case CUDA_SUCCESS:
		return cudaSuccess;
	case CUDA_ERROR_INVALID_VALUE:
		return cudaErrorInvalidValue;
	case CUDA_ERROR_OUT_OF_MEMORY:
		return cudaErrorMemoryAllocation;
	case CUDA_ERROR_NOT_INITIALIZED:
		return cudaErrorInitializationError;
	case CUDA_ERROR_NO_DEVICE:
		return cudaErrorNoDevice;
	case CUDA_ERROR_INVALID_DEVICE:
		return cudaErrorInvalidDevice;
	case CUDA_ERROR_INVALID_IMAGE:
		return cudaErrorInvalidKernelImage;
	case CUDA_ERROR_INVALID_HANDLE:
		return cudaErrorInvalidResourceHandle;
	case CUDA_ERROR_NOT_FOUND:
		return cudaErrorSymbolNotFound;
	case CUDA_ERROR_STUB_LIBRARY:
		return cudaErrorStubLibrary;
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
		return cudaErrorSystemDriverMismatch;
	case CUDA_ERROR_NOT_SUPPORTED:
		return cudaErrorNotSupported;
	default:
		/* The launch/memory faults share their numbers. */
		if (r >= 700 && r <= 720)
			return (cudaError_t)r;
		return cudaErrorUnknown;
	}
}

static void rt_load(void)
{
	const char *name = getenv("FAKE_CUDART_DRIVER");
	if (name == NULL || *name == '\0')
		name = "libcuda.so.1";
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		rt_init = cudaErrorInsufficientDriver;
		return;
	}
	SETFN(drv.gpa2, dlsym(h, "cuGetProcAddress_v2"));
	if (drv.gpa2 == NULL)
		SETFN(drv.gpa1, dlsym(h, "cuGetProcAddress"));
	if (drv.gpa2 == NULL && drv.gpa1 == NULL) {
		rt_init = cudaErrorInsufficientDriver;
		return;
	}
	rt_have_driver = 1;

	/* From here on, use the cuGetProcAddress the driver hands out. */
	void *self = rt_proc("cuGetProcAddress");
	if (self != NULL) {
		if (rt_version() >= 12000) {
			SETFN(drv.gpa2, self);
			drv.gpa1 = NULL;
		} else {
			SETFN(drv.gpa1, self);
			drv.gpa2 = NULL;
		}
	}
	SETFN(drv.cuInit, rt_proc("cuInit"));
	SETFN(drv.cuDriverGetVersion, rt_proc("cuDriverGetVersion"));
	SETFN(drv.cuDeviceGetCount, rt_proc("cuDeviceGetCount"));
	SETFN(drv.cuDeviceGet, rt_proc("cuDeviceGet"));
	SETFN(drv.cuDevicePrimaryCtxRetain,
	      rt_proc("cuDevicePrimaryCtxRetain"));
	SETFN(drv.cuCtxSetCurrent, rt_proc("cuCtxSetCurrent"));
	SETFN(drv.cuCtxSynchronize, rt_proc("cuCtxSynchronize"));
	SETFN(drv.cuModuleLoadData, rt_proc("cuModuleLoadData"));
	SETFN(drv.cuModuleGetFunction, rt_proc("cuModuleGetFunction"));
	SETFN(drv.cuLaunchKernel, rt_proc("cuLaunchKernel"));
	SETFN(drv.cuMemAlloc, rt_proc("cuMemAlloc"));
	SETFN(drv.cuMemFree, rt_proc("cuMemFree"));

	if (drv.cuInit == NULL || drv.cuDriverGetVersion == NULL ||
	    drv.cuDeviceGetCount == NULL || drv.cuDeviceGet == NULL ||
	    drv.cuDevicePrimaryCtxRetain == NULL ||
	    drv.cuCtxSetCurrent == NULL || drv.cuCtxSynchronize == NULL ||
	    drv.cuModuleLoadData == NULL || drv.cuModuleGetFunction == NULL ||
	    drv.cuLaunchKernel == NULL || drv.cuMemAlloc == NULL ||
	    drv.cuMemFree == NULL) {
		rt_init = cudaErrorInsufficientDriver;
		return;
	}
	if (drv.cuDriverGetVersion(&rt_driver_ver) != CUDA_SUCCESS)
		rt_driver_ver = 0;
	/* Minor version compatibility: any driver of the same major. */
	if (rt_driver_ver < rt_version() / 1000 * 1000) {
		rt_init = cudaErrorInsufficientDriver;
		return;
	}
	CUresult r = drv.cuInit(0);
	if (r != CUDA_SUCCESS) {
		rt_init = rt_from_cu(r);
		return;
	}
	r = drv.cuDeviceGetCount(&rt_ndev);
	if (r != CUDA_SUCCESS)
		rt_init = rt_from_cu(r);
}

static cudaError_t rt_fail(cudaError_t e)
{
	if (e != cudaSuccess) {
		rt_last = e;
		if ((e >= 700 && e <= 720 && e != 702) ||
		    e == cudaErrorECCUncorrectable)
			__atomic_store_n(&rt_sticky, (int)e, __ATOMIC_RELAXED);
	}
	return e;
}

/* Set up this thread's context on the current device: what the runtime
 * does lazily before the first call that needs one. */
static cudaError_t rt_context(void)
{
	if (rt_ctx_ready)
		return cudaSuccess;
	CUdevice dev;
	CUcontext ctx;
	CUresult r = drv.cuDeviceGet(&dev, rt_device);
	if (r == CUDA_SUCCESS)
		r = drv.cuDevicePrimaryCtxRetain(&ctx, dev);
	if (r == CUDA_SUCCESS)
		r = drv.cuCtxSetCurrent(ctx);
	if (r != CUDA_SUCCESS)
		return rt_from_cu(r);
	pthread_mutex_lock(&rt_lock);
	if (rt_kernel == NULL) {
		CUmodule mod;
		r = drv.cuModuleLoadData(&mod, rt_image);
		if (r == CUDA_SUCCESS)
			r = drv.cuModuleGetFunction(&rt_kernel, mod,
						    "dlt_fake_kernel");
	}
	pthread_mutex_unlock(&rt_lock);
	if (r != CUDA_SUCCESS)
		return rt_from_cu(r);
	rt_ctx_ready = 1;
	return cudaSuccess;
}

/* The start of every call that needs the device: the injected failure, then
 * the initialisation and sticky errors, then this thread's context. */
#define RT_ENTER(name, need_ctx)                                             \
	do {                                                                 \
		static long calls_;                                          \
		long code_;                                                  \
		long n_ = __atomic_add_fetch(&calls_, 1, __ATOMIC_RELAXED);  \
		if (fake_env_fail("FAKE_CUDA_FAIL", name, n_, &code_))       \
			return rt_fail((cudaError_t)code_);                  \
		pthread_once(&rt_once, rt_load);                             \
		if (rt_init != cudaSuccess)                                  \
			return rt_fail(rt_init);                             \
		int sticky_ = __atomic_load_n(&rt_sticky, __ATOMIC_RELAXED); \
		if (sticky_ != 0)                                            \
			return rt_fail((cudaError_t)sticky_);                \
		if (need_ctx) {                                              \
			cudaError_t e_ = rt_context();                       \
			if (e_ != cudaSuccess)                               \
				return rt_fail(e_);                          \
		}                                                            \
	} while (0)

FAKE_EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
	static long calls;
	long code;
	if (fake_env_fail("FAKE_CUDA_FAIL", "cudaGetDeviceCount",
			  __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED),
			  &code))
		return rt_fail((cudaError_t)code);
	pthread_once(&rt_once, rt_load);
	if (count == NULL)
		return rt_fail(cudaErrorInvalidValue);
	/* Real runtime: no device is an error, but the count is written. */
	if (rt_init == cudaErrorNoDevice)
		*count = 0;
	if (rt_init != cudaSuccess)
		return rt_fail(rt_init);
	*count = rt_ndev;
	return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaSetDevice(int device)
{
	RT_ENTER("cudaSetDevice", 0);
	if (device < 0 || device >= rt_ndev)
		return rt_fail(cudaErrorInvalidDevice);
	if (device != rt_device) {
		rt_device = device;
		rt_ctx_ready = 0;
	}
	return rt_fail(rt_context());
}

FAKE_EXPORT cudaError_t cudaGetDevice(int *device)
{
	RT_ENTER("cudaGetDevice", 0);
	if (device == NULL)
		return rt_fail(cudaErrorInvalidValue);
	*device = rt_device;
	return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
	if (runtimeVersion == NULL)
		return rt_fail(cudaErrorInvalidValue);
	*runtimeVersion = rt_version();
	return cudaSuccess;
}

/* Succeeds with 0 when there is no driver, as the real one does. */
FAKE_EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion)
{
	static long calls;
	long code;
	if (fake_env_fail("FAKE_CUDA_FAIL", "cudaDriverGetVersion",
			  __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED),
			  &code))
		return rt_fail((cudaError_t)code);
	if (driverVersion == NULL)
		return rt_fail(cudaErrorInvalidValue);
	pthread_once(&rt_once, rt_load);
	*driverVersion = rt_have_driver ? rt_driver_ver : 0;
	return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	RT_ENTER("cudaMalloc", 1);
	if (devPtr == NULL)
		return rt_fail(cudaErrorInvalidValue);
	if (size == 0) {
		*devPtr = NULL;
		return cudaSuccess;
	}
	CUdeviceptr p = 0;
	CUresult r = drv.cuMemAlloc(&p, size);
	if (r != CUDA_SUCCESS)
		return rt_fail(rt_from_cu(r));
	*devPtr = (void *)(uintptr_t)p;
	return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaFree(void *devPtr)
{
	RT_ENTER("cudaFree", 1);
	if (devPtr == NULL)
		return cudaSuccess;
	return rt_fail(
		rt_from_cu(drv.cuMemFree((CUdeviceptr)(uintptr_t)devPtr)));
}

static cudaError_t rt_memcpy(void *dst, const void *src, size_t count,
			     enum cudaMemcpyKind kind)
{
	if ((int)kind < 0 || (int)kind > cudaMemcpyDefault)
		return rt_fail(cudaErrorInvalidMemcpyDirection);
	if (count == 0)
		return cudaSuccess;
	if (dst == NULL || src == NULL)
		return rt_fail(cudaErrorInvalidValue);
	memmove(dst, src, count);
	return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
				   enum cudaMemcpyKind kind)
{
	RT_ENTER("cudaMemcpy", 1);
	return rt_memcpy(dst, src, count, kind);
}

FAKE_EXPORT cudaError_t cudaMemcpy_ptds(void *dst, const void *src,
					size_t count, enum cudaMemcpyKind kind)
{
	RT_ENTER("cudaMemcpy_ptds", 1);
	return rt_memcpy(dst, src, count, kind);
}

static int rt_stream_ok(cudaStream_t s)
{
	/* 0, cudaStreamLegacy (1) and cudaStreamPerThread (2) are valid. */
	return (uintptr_t)s <= 2 || s->magic == STREAM_MAGIC;
}

FAKE_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src,
					size_t count, enum cudaMemcpyKind kind,
					cudaStream_t stream)
{
	RT_ENTER("cudaMemcpyAsync", 1);
	if (!rt_stream_ok(stream))
		return rt_fail(cudaErrorInvalidResourceHandle);
	return rt_memcpy(dst, src, count, kind);
}

FAKE_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src,
					     size_t count,
					     enum cudaMemcpyKind kind,
					     cudaStream_t stream)
{
	RT_ENTER("cudaMemcpyAsync_ptsz", 1);
	if (!rt_stream_ok(stream))
		return rt_fail(cudaErrorInvalidResourceHandle);
	return rt_memcpy(dst, src, count, kind);
}

static cudaError_t rt_memset(void *devPtr, int value, size_t count)
{
	if (count == 0)
		return cudaSuccess;
	if (devPtr == NULL)
		return rt_fail(cudaErrorInvalidValue);
	memset(devPtr, value, count);
	return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	RT_ENTER("cudaMemset", 1);
	return rt_memset(devPtr, value, count);
}

FAKE_EXPORT cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
	RT_ENTER("cudaMemset_ptds", 1);
	return rt_memset(devPtr, value, count);
}

/* Any non-NULL host function stands for a registered kernel; it is
 * launched as the one function of the fake module. */
static cudaError_t rt_launch(const void *func, dim3 g, dim3 b,
			     cudaStream_t stream)
{
	if (func == NULL)
		return rt_fail(cudaErrorInvalidDeviceFunction);
	if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 ||
	    b.z == 0 || (unsigned long)b.x * b.y * b.z > 1024)
		return rt_fail(cudaErrorInvalidConfiguration);
	if (!rt_stream_ok(stream))
		return rt_fail(cudaErrorInvalidResourceHandle);
	CUresult r = drv.cuLaunchKernel(rt_kernel, g.x, g.y, g.z, b.x, b.y, b.z,
					0, NULL, NULL, NULL);
	return rt_fail(rt_from_cu(r));
}

FAKE_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim,
					 dim3 blockDim, void **args,
					 size_t sharedMem, cudaStream_t stream)
{
	RT_ENTER("cudaLaunchKernel", 1);
	(void)args, (void)sharedMem;
	return rt_launch(func, gridDim, blockDim, stream);
}

FAKE_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim,
					      dim3 blockDim, void **args,
					      size_t sharedMem,
					      cudaStream_t stream)
{
	RT_ENTER("cudaLaunchKernel_ptsz", 1);
	(void)args, (void)sharedMem;
	return rt_launch(func, gridDim, blockDim, stream);
}

FAKE_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
	RT_ENTER("cudaStreamCreate", 1);
	if (pStream == NULL)
		return rt_fail(cudaErrorInvalidValue);
	struct CUstream_st *s = calloc(1, sizeof(*s));
	if (s == NULL)
		return rt_fail(cudaErrorMemoryAllocation);
	s->magic = STREAM_MAGIC;
	*pStream = s;
	return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	RT_ENTER("cudaStreamDestroy", 1);
	if ((uintptr_t)stream <= 2 || stream->magic != STREAM_MAGIC)
		return rt_fail(cudaErrorInvalidResourceHandle);
	stream->magic = 0;
	free(stream);
	return cudaSuccess;
}

static cudaError_t rt_sync(void)
{
	return rt_fail(rt_from_cu(drv.cuCtxSynchronize()));
}

FAKE_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
	RT_ENTER("cudaStreamSynchronize", 1);
	if (!rt_stream_ok(stream))
		return rt_fail(cudaErrorInvalidResourceHandle);
	return rt_sync();
}

FAKE_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
	RT_ENTER("cudaStreamSynchronize_ptsz", 1);
	if (!rt_stream_ok(stream))
		return rt_fail(cudaErrorInvalidResourceHandle);
	return rt_sync();
}

FAKE_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
	RT_ENTER("cudaDeviceSynchronize", 1);
	return rt_sync();
}

FAKE_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
	RT_ENTER("cudaEventCreate", 1);
	if (event == NULL)
		return rt_fail(cudaErrorInvalidValue);
	struct CUevent_st *e = calloc(1, sizeof(*e));
	if (e == NULL)
		return rt_fail(cudaErrorMemoryAllocation);
	e->magic = EVENT_MAGIC;
	*event = e;
	return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	RT_ENTER("cudaEventDestroy", 1);
	if (event == NULL || event->magic != EVENT_MAGIC)
		return rt_fail(cudaErrorInvalidResourceHandle);
	event->magic = 0;
	free(event);
	return cudaSuccess;
}

static cudaError_t rt_record(cudaEvent_t event, cudaStream_t stream)
{
	if (event == NULL || event->magic != EVENT_MAGIC ||
	    !rt_stream_ok(stream))
		return rt_fail(cudaErrorInvalidResourceHandle);
	event->recorded = 1;
	return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	RT_ENTER("cudaEventRecord", 1);
	return rt_record(event, stream);
}

FAKE_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event,
					     cudaStream_t stream)
{
	RT_ENTER("cudaEventRecord_ptsz", 1);
	return rt_record(event, stream);
}

FAKE_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
	RT_ENTER("cudaEventSynchronize", 1);
	if (event == NULL || event->magic != EVENT_MAGIC)
		return rt_fail(cudaErrorInvalidResourceHandle);
	return rt_sync();
}

static cudaError_t rt_pending(int clear)
{
	if (rt_init != cudaSuccess)
		return rt_init;
	int sticky = __atomic_load_n(&rt_sticky, __ATOMIC_RELAXED);
	if (sticky != 0)
		return (cudaError_t)sticky;
	cudaError_t e = rt_last;
	if (clear)
		rt_last = cudaSuccess;
	return e;
}

FAKE_EXPORT cudaError_t cudaGetLastError(void)
{
	return rt_pending(1);
}

FAKE_EXPORT cudaError_t cudaPeekAtLastError(void)
{
	return rt_pending(0);
}

struct rt_err {
	int code;
	const char *name;
	const char *text;
};

/* Names and texts as the real runtime (13.0) gives them. */
static const struct rt_err rt_errs[] = {
	{0, "cudaSuccess", "no error"},
	{1, "cudaErrorInvalidValue", "invalid argument"},
	{2, "cudaErrorMemoryAllocation", "out of memory"},
	{3, "cudaErrorInitializationError", "initialization error"},
	{4, "cudaErrorCudartUnloading", "driver shutting down"},
	{9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
	{21, "cudaErrorInvalidMemcpyDirection",
	 "invalid copy direction for memcpy"},
	{34, "cudaErrorStubLibrary", "CUDA driver is a stub library"},
	{35, "cudaErrorInsufficientDriver",
	 "CUDA driver version is insufficient for CUDA runtime version"},
	{36, "cudaErrorCallRequiresNewerDriver",
	 "API call is not supported in the installed CUDA driver"},
	{46, "cudaErrorDevicesUnavailable",
	 "CUDA-capable device(s) is/are busy or unavailable"},
	{98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
	{100, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
	{101, "cudaErrorInvalidDevice", "invalid device ordinal"},
	{200, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
	{209, "cudaErrorNoKernelImageForDevice",
	 "no kernel image is available for execution on the device"},
	{214, "cudaErrorECCUncorrectable",
	 "uncorrectable ECC error encountered"},
	{400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
	{500, "cudaErrorSymbolNotFound", "named symbol not found"},
	{600, "cudaErrorNotReady", "device not ready"},
	{700, "cudaErrorIllegalAddress",
	 "an illegal memory access was encountered"},
	{702, "cudaErrorLaunchTimeout",
	 "the launch timed out and was terminated"},
	{710, "cudaErrorAssert", "device-side assert triggered"},
	{714, "cudaErrorHardwareStackError", "hardware stack error"},
	{715, "cudaErrorIllegalInstruction",
	 "an illegal instruction was encountered"},
	{716, "cudaErrorMisalignedAddress", "misaligned address"},
	{717, "cudaErrorInvalidAddressSpace",
	 "operation not supported on global/shared address space"},
	{718, "cudaErrorInvalidPc", "invalid program counter"},
	{719, "cudaErrorLaunchFailure", "unspecified launch failure"},
	{801, "cudaErrorNotSupported", "operation not supported"},
	{803, "cudaErrorSystemDriverMismatch",
	 "system has unsupported display driver / cuda driver combination"},
	{999, "cudaErrorUnknown", "unknown error"},
};

static const struct rt_err *rt_err_find(cudaError_t e)
{
	for (size_t i = 0; i < sizeof(rt_errs) / sizeof(rt_errs[0]); i++)
		if (rt_errs[i].code == (int)e)
			return &rt_errs[i];
	return NULL;
}

FAKE_EXPORT const char *cudaGetErrorString(cudaError_t error)
{
	const struct rt_err *d = rt_err_find(error);
	return d != NULL ? d->text : "unrecognized error code";
}

FAKE_EXPORT const char *cudaGetErrorName(cudaError_t error)
{
	const struct rt_err *d = rt_err_find(error);
	return d != NULL ? d->name : "unrecognized error code";
}

/* The driver's answer for a base name: success with NULL and a status when
 * the driver has no such function, as documented. */
static cudaError_t rt_entry(const char *symbol, void **funcPtr, int version,
			    unsigned long long flags,
			    enum cudaDriverEntryPointQueryResult *status)
{
	if (symbol == NULL || funcPtr == NULL ||
	    (flags & ~(unsigned long long)(cudaEnableLegacyStream |
					   cudaEnablePerThreadDefaultStream)))
		return rt_fail(cudaErrorInvalidValue);
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
	CUresult r;
	*funcPtr = NULL;
	if (drv.gpa2 != NULL)
		r = drv.gpa2(symbol, funcPtr, version, flags, &st);
	else
		r = drv.gpa1(symbol, funcPtr, version, flags);
	if (r == CUDA_ERROR_NOT_FOUND) {
		*funcPtr = NULL;
		if (drv.gpa2 == NULL)
			st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	} else if (r != CUDA_SUCCESS) {
		return rt_fail(rt_from_cu(r));
	}
	if (status != NULL)
		*status = (enum cudaDriverEntryPointQueryResult)st;
	return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaGetDriverEntryPoint(
	const char *symbol, void **funcPtr, unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus)
{
	RT_ENTER("cudaGetDriverEntryPoint", 0);
	return rt_entry(symbol, funcPtr, rt_version(), flags, driverStatus);
}

FAKE_EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(
	const char *symbol, void **funcPtr, unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus)
{
	RT_ENTER("cudaGetDriverEntryPoint_ptsz", 0);
	return rt_entry(symbol, funcPtr, rt_version(), flags, driverStatus);
}

FAKE_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(
	const char *symbol, void **funcPtr, unsigned int cudaVersion,
	unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus)
{
	RT_ENTER("cudaGetDriverEntryPointByVersion", 0);
	return rt_entry(symbol, funcPtr, (int)cudaVersion, flags, driverStatus);
}

FAKE_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
	const char *symbol, void **funcPtr, unsigned int cudaVersion,
	unsigned long long flags,
	enum cudaDriverEntryPointQueryResult *driverStatus)
{
	RT_ENTER("cudaGetDriverEntryPointByVersion_ptsz", 0);
	return rt_entry(symbol, funcPtr, (int)cudaVersion, flags, driverStatus);
}
