/* The C side of the assembly entries of dl_x86_64.S: dlopen is recorded
 * and then reached with the program's own return address; dlsym and dlvsym
 * on a real handle may hand back a wrapper (api.c); and dlerror, whose
 * message is recorded and passed on unchanged.  What a dlopen mapped or
 * failed to find comes from the audit module (audit.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "pystack.h"
#include "dl.h"

#include "api.h"
#include "apitable.h"
#include "real.h"
#include "state.h"
#include "staticrt.h"
#include "versions.h"
#include "watchdog.h"

static void *dlt_dlopen_missing(const char *name, int mode)
{
	(void)name;
	(void)mode;
	return NULL;
}

/* Called by the assembly dlopen() entry (dl_x86_64.S) with the caller's
 * return address.  It records the call and returns the real dlopen, which
 * the entry then jumps to: the real dlopen must see the program's return
 * address, or RUNPATH and $ORIGIN would be taken from this library
 * (docs/design.md, "dlopen without changing resolution"). */
__attribute__((used)) void *dlt_dlopen_enter(const char *name, int mode,
					     void *caller)
{
	int saved = errno;
	dlt_dlopen_fn real = DLT_REAL(dlopen);
	struct dlt_writer *w = dlt_writer_on();
	if (w && w->pid == dlt_self_pid(w)) {
		/* Every earlier dlopen has returned: what it loaded is
		 * initialised and can say its version. */
		dlt_versions_loaded();
		Dl_info info;
		const char *cobj = NULL;
		if (dladdr(caller, &info) && info.dli_fname)
			cobj = info.dli_fname;
		uint32_t ns = dlt_str(w, &dlt_tls, name);
		uint32_t cs = dlt_str(w, &dlt_tls, cobj);
		struct dlt_rec_dlopen *r =
			dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
		if (r) {
			r->h.ts = dlt_now_ns();
			r->caller = (uint64_t)(uintptr_t)caller;
			r->name = ns;
			r->mode = mode;
			r->caller_obj = cs;
			r->pad = 0;
			dlt_rec_commit(r, DLT_REC_DLOPEN, 0, sizeof(*r));
		}
		const char *b = name ? strrchr(name, '/') : NULL;
		b = b ? b + 1 : name;
		if (b && strncmp(b, "libcuda.so", 10) == 0)
			dlt_static_runtime(name, caller);
		/* Python importing a deep-learning framework: the kind of
		 * process whose hangs the watchdog is for. */
		if (b && (strstr(b, "torch") || strstr(b, "jax") ||
			  strstr(b, "tensorflow") || strstr(b, "nccl")))
			dlt_watch_ask("framework loaded");
		/* Python importing an extension module: the interpreter is
		 * there to be found, for the crash handler's Python stack and
		 * the rank at the rendezvous.  CPython's own SIGINT handler
		 * usually finds it first, but a rank started in the
		 * background by a shell has SIGINT ignored and CPython then
		 * sets none. */
		if (b && strstr(b, ".cpython-") && !dlt_no_loader &&
		    !dlt_pystack_present())
			dlt_pystack_prepare();
	}
	errno = saved;
	return real ? (void *)real : (void *)dlt_dlopen_missing;
}

DLT_EXPORT char *dlerror(void)
{
	dlt_dlerror_fn real = DLT_REAL(dlerror);
	if (real == NULL)
		return NULL;
	char *r = real();
	struct dlt_writer *w = dlt_writer_on();
	if (r && w && w->pid == dlt_self_pid(w)) {
		int saved = errno;
		uint32_t s = dlt_str(w, &dlt_tls, r);
		struct dlt_rec_dlerror *e =
			dlt_rec_reserve(w, &dlt_tls, sizeof(*e));
		if (e) {
			e->h.ts = dlt_now_ns();
			e->text = s;
			e->pad = 0;
			dlt_rec_commit(e, DLT_REC_DLERROR, 0, sizeof(*e));
		}
		errno = saved;
	}
	return r;
}

typedef void *(*dlt_dlsym_fn)(void *, const char *);
typedef void *(*dlt_dlvsym_fn)(void *, const char *, const char *);

/* The real dlsym and dlvsym, found without calling either (our own are
 * the ones a call by name would reach), kept once found. */
static void *dlt_kept_real(_Atomic(void *) *slot, const char *name)
{
	void *r = atomic_load(slot);
	if (r == NULL) {
		r = dlt_real_lookup(name);
		atomic_store(slot, r);
	}
	return r;
}

__attribute__((used)) void *dlt_dlsym_real(void)
{
	static _Atomic(void *) p;
	return dlt_kept_real(&p, "dlsym");
}

__attribute__((used)) void *dlt_dlvsym_real(void)
{
	static _Atomic(void *) p;
	return dlt_kept_real(&p, "dlvsym");
}

static void *dlt_after_dlsym(const char *name, void *r, void *caller)
{
	if (dlt_w == NULL)
		return r;
	/* A lookup in a handle: the libraries dlopen loaded are initialised
	 * (ctypes, Python's import of an extension, TensorFlow and JAX reach
	 * the GPU libraries this way).  errno is the program's: kept. */
	int e0 = errno;
	dlt_versions_loaded();
	errno = e0;
	if (r == NULL || name == NULL)
		return r;
	if (name[0] != 'c' && name[0] != 'n' && name[0] != 'p')
		return r;
	int saved = errno;
	if (strncmp(name, "cuGetProcAddress", 16) == 0)
		dlt_static_runtime(name, caller);
	int idx = dlt_api_lookup(name);
	if (idx >= 0)
		r = dlt_substitute(idx, r);
	errno = saved;
	return r;
}

/* Called by the dlsym entry in dl_x86_64.S for real handles only;
 * RTLD_DEFAULT and RTLD_NEXT lookups go to the real dlsym untouched (their
 * result depends on the caller's address, and RTLD_DEFAULT finds our
 * exported wrappers anyway). */
__attribute__((used)) void *dlt_dlsym_impl(void *handle, const char *name,
					   void *caller)
{
	dlt_dlsym_fn real = (dlt_dlsym_fn)dlt_dlsym_real();
	if (real == NULL)
		return NULL;
	return dlt_after_dlsym(name, real(handle, name), caller);
}

__attribute__((used)) void *dlt_dlvsym_impl(void *handle, const char *name,
					    const char *version, void *caller)
{
	dlt_dlvsym_fn real = (dlt_dlvsym_fn)dlt_dlvsym_real();
	if (real == NULL)
		return NULL;
	return dlt_after_dlsym(name, real(handle, name, version), caller);
}
