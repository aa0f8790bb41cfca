/* CUDNN_CUDART_MISMATCH: cuDNN was built for a CUDA runtime
 * (cudnnGetCudartVersion) other than the one loaded in the process.
 *
 * Across major versions that is an error: cuDNN and the framework then
 * disagree on the CUDA ABI (streams, memory, graphs).  Within one major it is
 * what minor-version compatibility allows, and cuDNN 9 carries its own
 * static runtime anyway (docs/library-facts.md §2: cuDNN 9.19 says 13010 next
 * to a 13.0 toolkit): an info, unless the driver is older than the runtime
 * cuDNN was built for, which makes it a warning (cuDNN's kernels may need what
 * the driver lacks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

/* The process's CUDA runtime: what libcudart said, else its file name. */
static int64_t dlt_runtime_version(const struct dlt_process *p,
				   const struct dlt_gpu *g, const char **path,
				   const char **source)
{
	const struct dlt_gpu_family *f = dlt_gpu_family(g, DLT_FAM_CUDART);
	if (f && f->v[DLT_FV_CUDART_runtime_version] > 0) {
		*path = f->path;
		*source = "cudaRuntimeGetVersion";
		return f->v[DLT_FV_CUDART_runtime_version];
	}
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *l = &p->libs[i];
		char fam[64], ver[64];
		const char *file = l->realpath ? l->realpath : l->path;
		if (l->failed)
			continue;
		dlt_lib_family(file, fam, sizeof(fam), NULL);
		if (strcmp(fam, "libcudart") != 0)
			continue;
		dlt_lib_file_version(file, ver, sizeof(ver));
		int major = atoi(ver);
		const char *dot = strchr(ver, '.');
		int minor = dot ? atoi(dot + 1) : 0;
		if (major <= 0 || dot == NULL)
			continue;
		*path = file;
		*source = "file name";
		return (int64_t)major * 1000 + minor * 10;
	}
	return 0;
}

static void dlt_rule_cudnn_cudart(struct dlt_rule_ctx *c)
{
	const char *rpath = NULL, *source = NULL;
	int64_t rt = dlt_runtime_version(c->p, c->g, &rpath, &source);
	if (rt <= 0)
		return; /* cuDNN on its own runtime only: nothing to compare */
	int64_t driver_api = dlt_gpu_driver_api(c->g);
	for (size_t i = 0; i < c->g->nfams; i++) {
		const struct dlt_gpu_family *f = &c->g->fams[i];
		int64_t cudnn_rt = f->v[DLT_FV_CUDNN_cudart_version];
		if (f->family != DLT_FAM_CUDNN || cudnn_rt <= 0 ||
		    cudnn_rt == rt)
			continue;
		char built[32], loaded[32], ver[32];
		dlt_cuda_version_str(cudnn_rt, built, sizeof(built));
		dlt_cuda_version_str(rt, loaded, sizeof(loaded));
		dlt_cudnn_version_str(f->v[DLT_FV_CUDNN_version], ver,
				      sizeof(ver));
		bool major = cudnn_rt / 1000 != rt / 1000;
		bool driver_old = driver_api > 0 && driver_api < cudnn_rt;
		enum dlt_severity sev = major	     ? DLT_SEV_ERROR
					: driver_old ? DLT_SEV_WARNING
						     : DLT_SEV_INFO;
		struct dlt_finding *f2;
		if (major)
			f2 = dlt_rule_finding(c, sev,
					      "cuDNN %s was built for CUDA %s "
					      "but the process runs CUDA %s",
					      ver, built, loaded);
		else if (driver_old)
			f2 = dlt_rule_finding(
				c, sev,
				"cuDNN %s was built for CUDA %s, newer than "
				"both the CUDA %s runtime and the driver",
				ver, built, loaded);
		else
			f2 = dlt_rule_finding(
				c, sev,
				"cuDNN %s was built for CUDA %s, the process "
				"runs CUDA %s (fine within one major version)",
				ver, built, loaded);
		f2->ts = f->ts;
		struct dlt_val *ev = f2->evidence;
		dlt_obj_str(ev, "cudnn_version", ver);
		dlt_obj_str(ev, "cudnn_path", f->path);
		dlt_obj_str(ev, "cudnn_cuda_runtime", built);
		dlt_obj_str(ev, "process_cuda_runtime", loaded);
		dlt_obj_str(ev, "process_cuda_runtime_path", rpath);
		dlt_obj_str(ev, "process_cuda_runtime_from", source);
		if (driver_api > 0) {
			char d[32];
			dlt_obj_str(
				ev, "driver_api_version",
				dlt_cuda_version_str(driver_api, d, sizeof(d)));
		}
		char pkg[128];
		int want = (int)(rt / 1000);
		const char *pip =
			dlt_pip_package("libcudnn", want, pkg, sizeof(pkg));
		if (major)
			dlt_finding_fix(c, f2,
					"install the cuDNN build for CUDA %d "
					"(pip install %s, or the framework "
					"wheel that bundles it) and make sure "
					"no other cuDNN comes first on "
					"LD_LIBRARY_PATH",
					want, pip);
		else if (driver_old)
			dlt_finding_fix(c, f2,
					"upgrade the NVIDIA driver to one "
					"that supports CUDA %s, or install "
					"a cuDNN built for CUDA %s",
					built, loaded);
		else
			dlt_finding_fix(c, f2, "nothing to do");
	}
}

DLT_RULE(cudnn_cudart, 70, "CUDNN_CUDART_MISMATCH", DLT_SEV_WARNING,
	 dlt_rule_cudnn_cudart, NULL,
	 "cuDNN was built for another CUDA runtime than the one loaded");
