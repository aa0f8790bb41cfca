/* STATIC_CUDART: objects that carry a static copy of the CUDA runtime and
 * fetch the driver themselves (cuDNN 9, NCCL, programs built by nvcc with
 * its default static runtime).  Their CUDA runtime calls never reach
 * libcudart.so, so the trace cannot show them: said, so that silence is not
 * read as evidence. */
#include <string.h>

#include "rules.h"

static void dlt_rule_static_cudart(struct dlt_rule_ctx *c)
{
	const struct dlt_gpu *g = c->g;
	if (g->nstatics == 0)
		return;
	char list[512] = "";
	size_t at = 0;
	for (size_t i = 0; i < g->nstatics && at < sizeof(list); i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s",
				       i ? ", " : "",
				       dlt_basename(g->statics[i].object));
	struct dlt_finding *f = dlt_rule_finding(
		c, DLT_SEV_INFO,
		"%zu object%s carr%s a static CUDA runtime (%s): %s CUDA "
		"runtime calls are not in the trace",
		g->nstatics, g->nstatics == 1 ? "" : "s",
		g->nstatics == 1 ? "ies" : "y", list,
		g->nstatics == 1 ? "its" : "their");
	f->ts = g->statics[0].ts;
	struct dlt_val *arr = dlt_obj_array(f->evidence, "objects");
	for (size_t i = 0; i < g->nstatics; i++) {
		struct dlt_val *o = dlt_arr_object(arr);
		dlt_obj_str(o, "object", g->statics[i].object);
		dlt_obj_str(o, "via", g->statics[i].via);
	}
	dlt_finding_fix(c, f,
			"nothing to do: this is how cuDNN 9, NCCL and "
			"nvcc-built programs are linked; their driver calls "
			"are still traced when they go through "
			"cuGetProcAddress");
}

DLT_RULE(static_cudart, 120, "STATIC_CUDART", DLT_SEV_INFO,
	 dlt_rule_static_cudart, NULL,
	 "objects with their own static CUDA runtime, whose runtime calls are "
	 "not traced");
