/* DEEPBIND: a library was opened with RTLD_DEEPBIND.  Its references then
 * bind to its own dependencies before the global scope, which is where the
 * preloaded dltrace sits: calls to CUDA, cuDNN or NCCL made from inside it
 * are not traced (heaptrack strips the flag and warns for the same reason).
 * Nothing is wrong with the program; the trace has a blind spot. */
#include <string.h>

#include "rules.h"

static void dlt_rule_deepbind(struct dlt_rule_ctx *c)
{
	const struct dlt_gpu *g = c->g;
	for (size_t i = 0; i < g->ndeep; i++) {
		const struct dlt_gpu_deepbind *d = &g->deep[i];
		const char *name = d->name ? d->name : "(dlopen(NULL))";
		struct dlt_finding *f = dlt_rule_finding(
			c, DLT_SEV_WARNING,
			"%s was opened with RTLD_DEEPBIND%s%s: calls made "
			"inside it bypass dltrace and are missing from the "
			"trace",
			dlt_basename(name), d->caller ? " by " : "",
			d->caller ? dlt_basename(d->caller) : "");
		f->ts = d->first_ts;
		struct dlt_val *ev = f->evidence;
		dlt_obj_str(ev, "library", name);
		dlt_obj_str(ev, "caller", d->caller);
		char names[16][DLT_NAME_LEN];
		size_t n = dlt_rtld_mode_names(d->mode, names, 16);
		struct dlt_val *m = dlt_obj_array(ev, "dlopen_mode");
		for (size_t k = 0; k < n; k++)
			dlt_arr_str(m, names[k]);
		dlt_obj_uint(ev, "count", d->count);
		/* The file that open mapped, when the trace has it. */
		for (size_t k = 0; k < c->p->nlibs; k++) {
			const struct dlt_lib *l = &c->p->libs[k];
			if (!l->failed && l->dlopen_name && d->name &&
			    strcmp(l->dlopen_name, d->name) == 0 &&
			    (l->flags & DLT_LIB_DEEPBIND)) {
				dlt_obj_str(ev, "loaded",
					    l->realpath ? l->realpath
							: l->path);
				break;
			}
		}
		dlt_finding_fix(c, f,
				"nothing to fix in the program; to trace "
				"calls inside %s, open it without "
				"RTLD_DEEPBIND if the program lets you",
				dlt_basename(name));
	}
}

DLT_RULE(deepbind, 110, "DEEPBIND", DLT_SEV_WARNING, dlt_rule_deepbind, NULL,
	 "a library was opened with RTLD_DEEPBIND and bypasses the tracer");
