/* CUDA_DRIVER_INSUFFICIENT: no NVIDIA driver, or a driver older than the
 * CUDA runtime needs (lmdeploy#1267: driver API 11070 < runtime 11080, the
 * error surfacing inside ncclCommInitRank).  Evidence: the runtimes loaded
 * and their versions, cudaDriverGetVersion, the kernel module's version
 * against the minimum-driver table (analyzer/data/cuda_min_driver.def, with
 * its source), the fate of libcuda.so.1 and the calls that failed.
 *
 * A machine without a driver is only worth an info when nothing needed the
 * driver (a program that asks for versions); when calls failed because of
 * it, those calls are explained here and API_ERROR lists them as such. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dltrace/gpu_abi.h"
#include "rules.h"

static const struct {
	int major, minor; /* minor -1: every minor release */
	const char *driver;
} dlt_min_driver[] = {
#define DLT_MIN_DRIVER(maj, min, drv) {maj, min, drv},
#include "cuda_min_driver.def"
#undef DLT_MIN_DRIVER
};

#define DLT_TABLE_SOURCE                                                 \
	"NVIDIA CUDA Toolkit Release Notes, Table 3 \"CUDA Toolkit and " \
	"Corresponding Driver Versions\" (docs/findings.md, "            \
	"analyzer/data/cuda_min_driver.def)"

static const char *dlt_min_for(int64_t runtime)
{
	int major = (int)(runtime / 1000), minor = (int)(runtime % 1000 / 10);
	for (size_t i = 0;
	     i < sizeof(dlt_min_driver) / sizeof(dlt_min_driver[0]); i++)
		if (dlt_min_driver[i].major == major &&
		    (dlt_min_driver[i].minor < 0 ||
		     dlt_min_driver[i].minor == minor))
			return dlt_min_driver[i].driver;
	return NULL;
}

/* Compares dotted driver versions ("525.60.13" < "550.54.14"). */
static int dlt_cmp_dotted(const char *a, const char *b)
{
	while (*a || *b) {
		char *ea, *eb;
		unsigned long x = strtoul(a, &ea, 10);
		unsigned long y = strtoul(b, &eb, 10);
		if (x != y)
			return x < y ? -1 : 1;
		a = *ea == '.' ? ea + 1 : ea;
		b = *eb == '.' ? eb + 1 : eb;
		if (ea == a && eb == b && *a == '\0' && *b == '\0')
			break;
		if (*ea != '.' && *eb != '.')
			break;
	}
	return 0;
}

static bool dlt_is_version_string(const char *s)
{
	return s && s[0] >= '0' && s[0] <= '9';
}

/* Calls that fail when the driver is missing or too old. */
static bool dlt_driver_symptom(const struct dlt_gpu *g,
			       const struct dlt_gpu_err *e)
{
	const struct dlt_api_desc *a = dlt_api_by_id(e->api);
	if (a == NULL)
		return false;
	int32_t s = e->status;
	switch (a->family) {
	case DLT_FAM_CUDART:
		return s == DLT_ABI_cudaErrorInitializationError ||
		       s == DLT_ABI_cudaErrorStubLibrary ||
		       s == DLT_ABI_cudaErrorInsufficientDriver ||
		       s == DLT_ABI_cudaErrorCallRequiresNewerDriver ||
		       s == DLT_ABI_cudaErrorNoDevice;
	case DLT_FAM_CUDA:
		return s == DLT_ABI_CUDA_ERROR_NOT_INITIALIZED ||
		       s == DLT_ABI_CUDA_ERROR_STUB_LIBRARY ||
		       s == DLT_ABI_CUDA_ERROR_NO_DEVICE;
	case DLT_FAM_CUDNN:
		return dlt_cudnn_not_initialized(
			dlt_cudnn_status_major(dlt_gpu_cudnn_version(g), s), s);
	case DLT_FAM_NCCL:
		return s == DLT_ABI_ncclUnhandledCudaError;
	}
	return false;
}

struct dlt_runtime {
	const char *what; /* "libcudart", "cuDNN's own runtime" */
	const char *path;
	int64_t version;
};

static void dlt_rule_cuda_driver(struct dlt_rule_ctx *c)
{
	const struct dlt_process *p = c->p;
	const struct dlt_gpu *g = c->g;
	struct dlt_runtime rt[8];
	size_t nrt = 0;
	const char *kdrv = NULL;
	for (size_t i = 0; i < g->nfams; i++) {
		const struct dlt_gpu_family *f = &g->fams[i];
		if (dlt_is_version_string(f->kdrv) && kdrv == NULL)
			kdrv = f->kdrv;
		const int64_t *v = f->v;
		if (f->family == DLT_FAM_CUDART &&
		    v[DLT_FV_CUDART_runtime_version] > 0 &&
		    v[DLT_FV_CUDART_runtime_status] == 0 && nrt < 8)
			rt[nrt++] = (struct dlt_runtime){
				"libcudart", f->path,
				v[DLT_FV_CUDART_runtime_version]};
		else if (f->family == DLT_FAM_CUDNN &&
			 v[DLT_FV_CUDNN_cudart_version] > 0 && nrt < 8)
			rt[nrt++] = (struct dlt_runtime){
				"cuDNN's own runtime", f->path,
				v[DLT_FV_CUDNN_cudart_version]};
	}
	int64_t driver_api = dlt_gpu_driver_api(g); /* -1 unknown, 0 none */
	/* The driver library itself. */
	const struct dlt_lib *cuda_loaded = NULL, *cuda_failed = NULL;
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *l = &p->libs[i];
		const char *n = l->failed
					? l->requested
					: (l->realpath ? l->realpath : l->path);
		/* What the CUDA runtime opens is the driver, whatever it is
		 * called. */
		const char *rq = dlt_basename(l->requester);
		bool by_rt =
			l->failed && rq && strncmp(rq, "libcudart", 9) == 0;
		if (n == NULL ||
		    (!by_rt &&
		     !(dlt_is_driver_lib(n) &&
		       strncmp(dlt_basename(n), "libnvidia-ml", 12) != 0)))
			continue;
		if (!l->failed && cuda_loaded == NULL)
			cuda_loaded = l;
		else if (l->failed && cuda_failed == NULL)
			cuda_failed = l;
	}
	bool missing = (cuda_failed && !cuda_loaded) || driver_api == 0;
	uint64_t too_new = 0, symptoms = 0;
	for (size_t i = 0; i < g->nerrs; i++) {
		const struct dlt_gpu_err *e = &g->errs[i];
		const struct dlt_api_desc *a = dlt_api_by_id(e->api);
		if (a && a->family == DLT_FAM_CUDART &&
		    (e->status == DLT_ABI_cudaErrorInsufficientDriver ||
		     e->status == DLT_ABI_cudaErrorCallRequiresNewerDriver))
			too_new += e->count;
		if (dlt_driver_symptom(g, e))
			symptoms += e->count;
	}
	/* The runtime the driver has to serve: the newest one loaded. */
	const struct dlt_runtime *need = NULL, *shared = NULL;
	for (size_t i = 0; i < nrt; i++) {
		if (need == NULL || rt[i].version > need->version)
			need = &rt[i];
		if (strcmp(rt[i].what, "libcudart") == 0 &&
		    (shared == NULL || rt[i].version > shared->version))
			shared = &rt[i];
	}
	bool old_major = false, old_minor = false, kdrv_low = false;
	if (driver_api > 0) {
		for (size_t i = 0; i < nrt; i++)
			old_major |= driver_api / 1000 < rt[i].version / 1000;
		old_minor =
			!old_major && shared && driver_api < shared->version;
	}
	const char *min = need ? dlt_min_for(need->version) : NULL;
	if (kdrv && min)
		kdrv_low = dlt_cmp_dotted(kdrv, min) < 0;

	enum dlt_severity sev;
	if (too_new || old_major || kdrv_low ||
	    ((missing || old_minor) && symptoms))
		sev = DLT_SEV_ERROR;
	else if (old_minor)
		sev = DLT_SEV_WARNING;
	else if (missing)
		sev = DLT_SEV_INFO;
	else
		return;

	/* The first failed call that the driver explains, for the message. */
	const struct dlt_gpu_err *first = NULL;
	for (size_t i = 0; i < g->nerrs; i++)
		if (dlt_driver_symptom(g, &g->errs[i]) &&
		    (first == NULL || g->errs[i].first_ts < first->first_ts))
			first = &g->errs[i];
	char call[256] = "", rtv[32] = "", dav[32] = "";
	if (first)
		dlt_gpu_err_str(g, first, call, sizeof(call));
	if (need)
		dlt_cuda_version_str(need->version, rtv, sizeof(rtv));
	if (driver_api > 0)
		dlt_cuda_version_str(driver_api, dav, sizeof(dav));
	char shared_v[32] = "";
	if (shared)
		dlt_cuda_version_str(shared->version, shared_v,
				     sizeof(shared_v));

	struct dlt_finding *f;
	/* What happened to the driver library, for the message. */
	char fate[512];
	if (cuda_failed && !cuda_loaded)
		snprintf(fate, sizeof(fate), "%s could not be loaded",
			 cuda_failed->requested ? cuda_failed->requested
						: "libcuda.so.1");
	else
		snprintf(fate, sizeof(fate),
			 "libcuda.so.1 reports no CUDA version");
	if (missing && sev == DLT_SEV_INFO)
		f = dlt_rule_finding(c, sev,
				     "no NVIDIA driver here (%s); nothing in "
				     "this run needed it",
				     fate);
	else if (missing)
		f = dlt_rule_finding(
			c, sev, "no usable NVIDIA driver: %s, and %s", fate,
			call[0] ? call : "CUDA calls failed");
	else if (old_major || old_minor)
		f = dlt_rule_finding(
			c, sev,
			"the NVIDIA driver supports CUDA %s, older than the "
			"CUDA %s runtime loaded%s%s",
			dav, old_major ? rtv : shared_v, call[0] ? ": " : "",
			call[0] ? call
				: (old_minor ? " (it runs only under minor-"
					       "version compatibility)"
					     : ""));
	else if (kdrv_low)
		f = dlt_rule_finding(c, sev,
				     "NVIDIA driver %s is older than the %s "
				     "that CUDA %s needs",
				     kdrv, min, rtv);
	else
		f = dlt_rule_finding(c, sev,
				     "%s: the driver is older than the CUDA "
				     "runtime needs",
				     call[0] ? call : "CUDA calls failed");
	f->ts = first ? first->first_ts : 0;

	struct dlt_val *ev = f->evidence;
	struct dlt_val *ra = dlt_obj_array(ev, "runtimes");
	for (size_t i = 0; i < nrt; i++) {
		char buf[32];
		struct dlt_val *o = dlt_arr_object(ra);
		dlt_obj_str(o, "runtime", rt[i].what);
		dlt_obj_str(o, "path", rt[i].path);
		dlt_obj_str(
			o, "version",
			dlt_cuda_version_str(rt[i].version, buf, sizeof(buf)));
	}
	if (driver_api > 0)
		dlt_obj_str(ev, "driver_api_version", dav);
	else if (driver_api == 0)
		dlt_obj_str(ev, "driver_api_version", "none (no driver)");
	else
		dlt_obj_null(ev, "driver_api_version");
	dlt_obj_str(ev, "kernel_driver", kdrv);
	dlt_obj_str(ev, "min_driver", min);
	if (need) {
		char buf[32];
		dlt_obj_strf(
			ev, "min_driver_for", "CUDA %s",
			dlt_cuda_version_str(need->version, buf, sizeof(buf)));
	}
	dlt_obj_str(ev, "table_source", DLT_TABLE_SOURCE);
	struct dlt_val *lc = dlt_obj_object(ev, "libcuda");
	if (cuda_loaded) {
		dlt_obj_bool(lc, "loaded", true);
		dlt_obj_str(lc, "path",
			    cuda_loaded->realpath ? cuda_loaded->realpath
						  : cuda_loaded->path);
	} else {
		dlt_obj_bool(lc, "loaded", false);
		if (cuda_failed) {
			dlt_obj_str(lc, "requested", cuda_failed->requested);
			dlt_obj_str(lc, "requester", cuda_failed->requester);
			dlt_obj_uint(lc, "paths_tried", cuda_failed->n_tried);
			dlt_obj_str(lc, "loader_message", cuda_failed->error);
		}
	}
	struct dlt_val *fc = dlt_obj_array(ev, "failed_calls");
	for (size_t i = 0; i < g->nerrs; i++) {
		const struct dlt_gpu_err *e = &g->errs[i];
		if (!dlt_driver_symptom(g, e))
			continue;
		char buf[256];
		struct dlt_val *o = dlt_arr_object(fc);
		dlt_obj_str(o, "call", dlt_gpu_err_str(g, e, buf, sizeof(buf)));
		dlt_obj_uint(o, "count", e->count);
		dlt_obj_double(o, "first_s", dlt_rel_s(p, e->first_ts));
		if (sev != DLT_SEV_INFO)
			dlt_rule_explain(c, i);
	}

	char buf[32], example[160] = "";
	if (driver_api > 0)
		snprintf(example, sizeof(example),
			 " (e.g. pip install torch --index-url "
			 "https://download.pytorch.org/whl/cu%d%d)",
			 (int)(driver_api / 1000),
			 (int)(driver_api % 1000 / 10));
	if (missing)
		dlt_finding_fix(c, f,
				"install the NVIDIA driver%s%s%s and check "
				"that the loader finds libcuda.so.1 "
				"(ldconfig -p | grep libcuda); in a container, "
				"start it through the NVIDIA Container Toolkit "
				"(docker run --gpus all ...)",
				min ? " (>= " : "", min ? min : "",
				min ? ")" : "");
	else
		dlt_finding_fix(c, f,
				"upgrade the NVIDIA driver to >= %s (CUDA %s "
				"needs it), or use a build of the framework "
				"for the CUDA your driver supports%s",
				min ? min : "the one your CUDA needs",
				need ? dlt_cuda_version_str(need->version, buf,
							    sizeof(buf))
				     : "?",
				example);
}

DLT_RULE(cuda_driver, 60, "CUDA_DRIVER_INSUFFICIENT", DLT_SEV_ERROR,
	 dlt_rule_cuda_driver, NULL,
	 "no NVIDIA driver, or one older than the CUDA runtime needs");
