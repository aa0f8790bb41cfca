/* API_ERROR: traced calls that returned errors, one finding per function
 * and status, with the count and the first occurrence.
 *
 * Left out: statuses that are the library's normal way of answering (the
 * CUDA runtime probing driver entry points that an older driver lacks;
 * cudnn-frontend finalizing engines that do not apply), and calls whose
 * failure an earlier rule explains (no driver, cuDNN sub-libraries that
 * disagree, a failed algorithm selection), so
 * that the cause stands out: they are listed in that finding's evidence
 * (failed_calls) and not repeated here. */
#include <stdio.h>
#include <string.h>

#include "dltrace/gpu_abi.h"
#include "rules.h"
#include "units.h"

/* The runtime and the driver share these numbers: one test serves both. */
_Static_assert(
	DLT_ABI_cudaErrorSymbolNotFound == DLT_ABI_CUDA_ERROR_NOT_FOUND &&
		DLT_ABI_cudaErrorMemoryAllocation ==
			DLT_ABI_CUDA_ERROR_OUT_OF_MEMORY &&
		DLT_ABI_cudaErrorNoDevice == DLT_ABI_CUDA_ERROR_NO_DEVICE &&
		DLT_ABI_cudaErrorInvalidDevice ==
			DLT_ABI_CUDA_ERROR_INVALID_DEVICE &&
		DLT_ABI_cudaErrorInvalidKernelImage ==
			DLT_ABI_CUDA_ERROR_INVALID_IMAGE &&
		DLT_ABI_cudaErrorNoKernelImageForDevice ==
			DLT_ABI_CUDA_ERROR_NO_BINARY_FOR_GPU &&
		DLT_ABI_cudaErrorInvalidPtx == DLT_ABI_CUDA_ERROR_INVALID_PTX &&
		DLT_ABI_cudaErrorUnsupportedPtxVersion ==
			DLT_ABI_CUDA_ERROR_UNSUPPORTED_PTX_VERSION &&
		DLT_ABI_cudaErrorIllegalAddress ==
			DLT_ABI_CUDA_ERROR_ILLEGAL_ADDRESS &&
		DLT_ABI_cudaErrorLaunchFailure ==
			DLT_ABI_CUDA_ERROR_LAUNCH_FAILED &&
		DLT_ABI_cudaErrorAssert == DLT_ABI_CUDA_ERROR_ASSERT &&
		DLT_ABI_cudaErrorSystemDriverMismatch ==
			DLT_ABI_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
	"cudaError_t and CUresult agree");

static bool dlt_routine(const struct dlt_gpu *g, const struct dlt_gpu_err *e)
{
	uint32_t roles = dlt_api_roles(e->api);
	/* CUDA_ERROR_NOT_FOUND and cudaErrorSymbolNotFound are the same. */
	if (roles & DLT_ROLE_SYMBOL_QUERY)
		return e->status == DLT_ABI_cudaErrorSymbolNotFound;
	if (roles & DLT_ROLE_BK_FINALIZE)
		return dlt_cudnn_not_supported(
			dlt_cudnn_status_major(dlt_gpu_cudnn_version(g),
					       e->status),
			e->status);
	return false;
}

/* What a status usually means for the person reading, by family. */
static const char *dlt_hint(const struct dlt_gpu *g, int family, int32_t st)
{
	int major = dlt_cudnn_status_major(dlt_gpu_cudnn_version(g), st);
	switch (family) {
	case DLT_FAM_CUDART:
	case DLT_FAM_CUDA:
		if (st == DLT_ABI_cudaErrorMemoryAllocation)
			return "out of GPU memory: lower the batch size or "
			       "free memory held elsewhere (nvidia-smi shows "
			       "other processes)";
		if (st == DLT_ABI_cudaErrorNoDevice ||
		    st == DLT_ABI_cudaErrorInvalidDevice)
			return "no (such) GPU visible: check "
			       "CUDA_VISIBLE_DEVICES and nvidia-smi";
		if (st == DLT_ABI_cudaErrorNoKernelImageForDevice ||
		    st == DLT_ABI_cudaErrorInvalidKernelImage ||
		    st == DLT_ABI_cudaErrorInvalidPtx ||
		    st == DLT_ABI_cudaErrorUnsupportedPtxVersion)
			return "the code was not built for this GPU: install a "
			       "build with kernels for its compute "
			       "capability";
		if (st == DLT_ABI_cudaErrorIllegalAddress ||
		    st == DLT_ABI_cudaErrorLaunchFailure ||
		    st == DLT_ABI_cudaErrorAssert)
			return "a kernel failed; later calls then fail too: "
			       "rerun with CUDA_LAUNCH_BLOCKING=1 to find "
			       "the kernel";
		if (st == DLT_ABI_cudaErrorSystemDriverMismatch)
			return "libcuda and the kernel module are of "
			       "different driver versions: reboot after a "
			       "driver upgrade, or fix the container's "
			       "driver mounts";
		return "the first failing call is usually the cause of the "
		       "later ones";
	case DLT_FAM_CUDNN:
		if (dlt_cudnn_not_initialized(major, st))
			return "cuDNN could not start: no usable GPU or "
			       "driver, or no GPU memory left when the "
			       "handle was created (tensorflow#24496)";
		if (dlt_cudnn_alloc_failed(major, st))
			return "cuDNN ran out of memory: lower the batch size";
		if (dlt_cudnn_sublib_status(major, st))
			return "cuDNN's libraries do not match: load them all "
			       "from one installation";
		if (dlt_cudnn_not_supported(major, st))
			return "this cuDNN does not support the operation as "
			       "configured (type, layout, GPU)";
		return "CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=stderr makes "
		       "cuDNN say why";
	case DLT_FAM_NCCL:
		if (st == DLT_ABI_ncclUnhandledCudaError)
			return "a CUDA call inside NCCL failed: rerun with "
			       "NCCL_DEBUG=INFO";
		if (st == DLT_ABI_ncclSystemError)
			return "a system call failed (network, /dev/shm): "
			       "rerun with NCCL_DEBUG=INFO; containers need "
			       "a larger /dev/shm (--shm-size)";
		if (st == DLT_ABI_ncclRemoteError)
			return "a remote rank failed or the connection broke: "
			       "look at the other ranks' traces";
		return "rerun with NCCL_DEBUG=INFO for NCCL's reason";
	}
	return NULL;
}

static void dlt_rule_api_error(struct dlt_rule_ctx *c)
{
	const struct dlt_gpu *g = c->g;
	int64_t ver = dlt_gpu_cudnn_version(g);
	for (size_t i = 0; i < g->nerrs; i++) {
		const struct dlt_gpu_err *e = &g->errs[i];
		if (dlt_routine(g, e))
			continue;
		const struct dlt_api_desc *a = dlt_api_by_id(e->api);
		int family = a ? a->family : 0;
		/* cudaGetLastError hands back an earlier failure. */
		bool report = dlt_api_roles(e->api) & DLT_ROLE_LAST_ERROR;
		const char *by = c->explained[i];
		if (by)
			continue;
		enum dlt_severity sev = report ? DLT_SEV_INFO : DLT_SEV_WARNING;
		char call[256];
		dlt_gpu_err_str(g, e, call, sizeof(call));
		struct dlt_finding *f;
		if (report)
			f = dlt_rule_finding(
				c, sev,
				"%s %" PRIu64 " time%s: an earlier "
				"call, possibly untraced, failed",
				call, e->count, e->count == 1 ? "" : "s");
		else {
			/* "first at +12 ms": after the process's start. */
			char at[32];
			dlt_units_secs(dlt_rel_s(c->p, e->first_ts), at,
				       sizeof(at));
			f = dlt_rule_finding(c, sev,
					     "%s %" PRIu64 " time%s, first at "
					     "+%s in thread %" PRIu32,
					     call, e->count,
					     e->count == 1 ? "" : "s", at,
					     e->first_tid);
		}
		f->ts = e->first_ts;
		struct dlt_val *ev = f->evidence;
		dlt_obj_str(ev, "function", a ? a->name : NULL);
		dlt_obj_str(ev, "family", dlt_family_name(family));
		dlt_obj_int(ev, "status", e->status);
		dlt_obj_str(ev, "status_name",
			    dlt_status_name(family, ver, e->status));
		dlt_obj_uint(ev, "count", e->count);
		dlt_obj_uint(ev, "calls",
			     e->api < DLT_GPU_API_MAX ? g->calls[e->api] : 0);
		dlt_obj_double(ev, "first_s", dlt_rel_s(c->p, e->first_ts));
		dlt_obj_uint(ev, "first_thread", e->first_tid);
		dlt_obj_double(ev, "last_s", dlt_rel_s(c->p, e->last_ts));
		struct dlt_val *vals = dlt_obj_object(ev, "first_call_values");
		dlt_ev_api_values(vals, a, e->v, e->nv);
		const char *hint = dlt_hint(g, family, e->status);
		if (hint)
			dlt_finding_fix(c, f, "%s", hint);
	}
}

DLT_RULE(api_error, 100, "API_ERROR", DLT_SEV_WARNING, dlt_rule_api_error, NULL,
	 "traced GPU library calls returned errors");
