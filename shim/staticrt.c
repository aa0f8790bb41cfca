/* Objects that carry a static copy of the CUDA runtime: they fetch the
 * driver themselves (dlopen of libcuda, or dlsym of cuGetProcAddress from
 * outside libcudart), and their runtime calls never reach the shared
 * libcudart the shim wraps.  Said once per object, so that the analyzer
 * can say why those calls are not in the trace. */
#define _GNU_SOURCE
#include "staticrt.h"

#include <dlfcn.h>
#include <string.h>

#include "seen.h"
#include "state.h"

void dlt_static_runtime(const char *sym, void *caller)
{
	Dl_info info;
	if (caller == NULL || !dladdr(caller, &info) || info.dli_fname == NULL)
		return;
	const char *b = strrchr(info.dli_fname, '/');
	b = b ? b + 1 : info.dli_fname;
	if (strncmp(b, "libcudart", 9) == 0)
		return; /* the shared runtime itself */
	static struct dlt_seen seen;
	if (!dlt_seen_add(&seen, (uint64_t)(uintptr_t)info.dli_fbase))
		return;
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL)
		return;
	uint32_t os = dlt_str(w, &dlt_tls, info.dli_fname);
	uint32_t ss = dlt_str(w, &dlt_tls, sym);
	struct dlt_rec_static_rt *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->object = os;
	r->symbol = ss;
	dlt_rec_commit(r, DLT_REC_STATIC_RUNTIME, 0, sizeof(*r));
}
