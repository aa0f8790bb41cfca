/* Wrappers for the CUDA runtime, CUDA driver, cuDNN and NCCL functions in
 * include/dltrace/apis.def, and the three ways a program reaches them:
 *
 *  - by name, through the PLT: the exported wrapper (same name as the real
 *    function) calls the real one, found in the loaded objects by
 *    symlookup.c;
 *  - through dlsym(handle, name) on a library the program dlopen'ed
 *    (TensorFlow, JAX, cuDNN 9's own dispatcher): the dlsym entry returns a
 *    wrapper bound to exactly the function dlsym found;
 *  - through cuGetProcAddress / cudaGetDriverEntryPoint (every CUDA runtime
 *    since 11.3 gets the driver that way): the returned pointer is swapped
 *    for a wrapper bound to it.
 *
 * A call made while the same thread is already inside a wrapper (cuDNN's
 * front library calling its sub-library, NCCL initialising CUDA) passes
 * straight through: each program-level call is recorded once. */
#define _GNU_SOURCE
#include "api.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "apitable.h"
#include "calls.h"
#include "hooks.h"
#include "prefetch.h"
#include "state.h"
#include "versions.h"
#include "watchdog.h"

/* Calls in progress per family: a call into a family the thread is already
 * inside (cuDNN's front library forwarding to a sub-library) is part of the
 * outer call; a call into another family (the runtime calling the driver)
 * is recorded. */
static __thread uint8_t dlt_fam_depth[8];

/* ---- records ------------------------------------------------------------ */

static void dlt_rec_enter(struct dlt_writer *w, uint16_t id, const uint64_t *v,
			  uint32_t n)
{
	/* A call that can block is about to start: if it never returns, the
	 * watchdog must already be there to see where it waits. */
	if (__builtin_expect(!dlt_watchdog_running(), 0))
		dlt_watchdog_start("a GPU call that can block");
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_enter) + 8 * n);
	struct dlt_rec_api_enter *r = dlt_rec_reserve(w, &dlt_tls, len);
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	for (uint32_t i = 0; i < n; i++)
		r->v[i] = v[i];
	dlt_rec_commit(r, DLT_REC_API_ENTER, id, len);
}

/* ---- the wrappers ------------------------------------------------------- */

#define DLT_UNPAREN(...) __VA_ARGS__

/* Each function's type, and the prototype of its exported wrapper. */
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	typedef int(*dlt_fn_##name) params;                                   \
	DLT_EXPORT int name params;
#include "dltrace/apis.def"
#undef DLT_API

/* The post hook of each function the table flags DLT_AF_POST, and NULL for
 * the others: the condition is a constant, so an unflagged function's hook
 * is never referred to, while a flagged one without a hook fails to link
 * (-Wl,--no-undefined) and a hook of the wrong type fails to compile
 * (hooks.h). */
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	static void(*const dlt_hook_##name) params =                          \
		((flags)&DLT_AF_POST) ? dlt_post_##name : (void(*) params)0;
#include "dltrace/apis.def"
#undef DLT_API

/* The cuGetProcAddress family swaps what it hands out even when called
 * inside another wrapped call (the runtime asks the driver for its
 * functions from inside its own calls). */
#define DLT_SUBST_ALWAYS(idx)                        \
	((idx) == DLT_IDX_cuGetProcAddress ||        \
	 (idx) == DLT_IDX_cuGetProcAddress_v2 ||     \
	 (idx) == DLT_IDX_cudaGetDriverEntryPoint || \
	 (idx) == DLT_IDX_cudaGetDriverEntryPointByVersion)

#define DLT_BODY(apiid, idx, fam, name, args, flags, pre, post, realexpr)     \
	{                                                                     \
		dlt_fn_##name dlt_real = (dlt_fn_##name)(realexpr);           \
		if (__builtin_expect(dlt_real == NULL, 0))                    \
			return dlt_missing(DLT_FAM_##fam);                    \
		struct dlt_writer *dlt_wr = dlt_writer_on();                  \
		if (dlt_wr == NULL || dlt_api_depth > 0 ||                    \
		    dlt_fam_depth[DLT_FAM_##fam] > 0) {                       \
			int dlt_r0 = dlt_real args;                           \
			if (dlt_hook_##name && DLT_SUBST_ALWAYS(idx)) {       \
				int dlt_e0 = errno;                           \
				dlt_hook_ret = dlt_r0;                        \
				dlt_hook_##name args;                         \
				errno = dlt_e0;                               \
			}                                                     \
			return dlt_r0;                                        \
		}                                                             \
		dlt_fam_depth[DLT_FAM_##fam]++;                               \
		struct dlt_open_call dlt_open = {NULL, 0, 0, 0};              \
		uint64_t dlt_t0;                                              \
		if (DLT_API_ONCE(flags, pre, post)) {                         \
			uint64_t dlt_pv[] = {DLT_UNPAREN pre};                \
			dlt_t0 = dlt_now_ns();                                \
			dlt_call_open(dlt_wr, apiid, dlt_t0, dlt_pv,          \
				      sizeof(dlt_pv) / sizeof(uint64_t),      \
				      &dlt_open);                             \
		} else {                                                      \
			if ((flags)&DLT_AF_ENTER) {                           \
				uint64_t dlt_pv[] = {DLT_UNPAREN pre};        \
				dlt_rec_enter(dlt_wr, apiid, dlt_pv,          \
					      sizeof(dlt_pv) /                \
						      sizeof(uint64_t));      \
			}                                                     \
			dlt_t0 = dlt_now_ns();                                \
		}                                                             \
		uint64_t dlt_wdc = 0;                                         \
		if (DLT_API_ONCE(flags, pre, post) || ((flags)&DLT_AF_ENTER)) \
			dlt_wdc = dlt_wd_call_begin(dlt_t0);                  \
		int dlt_r = dlt_real args;                                    \
		uint64_t dlt_t1 = dlt_now_ns();                               \
		int dlt_e = errno;                                            \
		if (DLT_API_ONCE(flags, pre, post) || ((flags)&DLT_AF_ENTER)) \
			dlt_wd_call_end(dlt_wdc);                             \
		if (!((flags)&DLT_AF_NORECORD) &&                             \
		    !dlt_call_close(dlt_wr, &dlt_open, dlt_r,                 \
				    dlt_t1 - dlt_t0)) {                       \
			uint64_t dlt_v[] = {DLT_UNPAREN post};                \
			dlt_call_done(dlt_wr, apiid, dlt_r, dlt_t0, dlt_t1,   \
				      dlt_v,                                  \
				      sizeof(dlt_v) / sizeof(uint64_t));      \
		}                                                             \
		if (dlt_hook_##name) {                                        \
			dlt_hook_ret = dlt_r;                                 \
			dlt_hook_##name args;                                 \
		}                                                             \
		if (__builtin_expect(                                         \
			    !atomic_load_explicit(&dlt_slots[idx].noted,      \
						  memory_order_relaxed),      \
			    0))                                               \
			dlt_family_note(idx, (void *)dlt_real);               \
		dlt_fam_depth[DLT_FAM_##fam]--;                               \
		errno = dlt_e;                                                \
		return dlt_r;                                                 \
	}

#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	DLT_EXPORT int name params DLT_BODY(                                  \
		id, DLT_IDX_##name, fam, name, args, flags, pre, post,        \
		dlt_link_real(DLT_IDX_##name)) static int dlt_h_##name params \
	DLT_BODY(id, DLT_IDX_##name, fam, name, args, flags, pre, post,       \
		 atomic_load_explicit(&dlt_slots[DLT_IDX_##name].h_real,      \
				      memory_order_acquire))
#include "dltrace/apis.def"
#undef DLT_API

/* Each exported wrapper under a second, hidden name: the table below
 * refers to this library's own wrapper (an exported name would be looked
 * up in the whole process when the library is relocated, twice per
 * process, and could bind to another object's function of that name). */
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	extern __typeof__(name) dlt_x_##name                                  \
		__attribute__((alias(#name), visibility("hidden")));
#include "dltrace/apis.def"
#undef DLT_API

static void *const dlt_link_wrappers[DLT_API_N] = {
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	[DLT_IDX_##name] = (void *)dlt_x_##name,
#include "dltrace/apis.def"
#undef DLT_API
};

static void *const dlt_h_wrappers[DLT_API_N] = {
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	[DLT_IDX_##name] = (void *)dlt_h_##name,
#include "dltrace/apis.def"
#undef DLT_API
};

/* ---- substitution ------------------------------------------------------- */

static void dlt_note_once(_Atomic int *flag, const char *text)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w && !atomic_exchange(flag, 1))
		dlt_note(w, &dlt_tls, DLT_NOTE_WARN, text);
}

/* What to hand out instead of real, a pointer to the function idx. */
void *dlt_substitute(int idx, void *real)
{
	struct dlt_api_slot *s = &dlt_slots[idx];
	if (real == dlt_link_wrappers[idx] || real == dlt_h_wrappers[idx])
		return real;
	if (real == dlt_link_real(idx))
		return dlt_link_wrappers[idx];
	void *expect = NULL;
	if (atomic_compare_exchange_strong(&s->h_real, &expect, real) ||
	    expect == real)
		return dlt_h_wrappers[idx];
	/* A third copy of the function: two libraries of one family in one
	 * process.  Calls into it are not traced; the load table shows both
	 * files. */
	char text[256];
	snprintf(text, sizeof(text),
		 "%s: a further copy of this function is in use and is not "
		 "traced",
		 dlt_apis[idx].name);
	dlt_note_once(&s->second_copy, text);
	return real;
}

/* A driver function pointer handed out by cuGetProcAddress or
 * cudaGetDriverEntryPoint: find which exported function it is (exactly)
 * and swap it for a wrapper if we wrap that function.  The versioned name
 * decides (cuMemAlloc asked for at 12000 is cuMemAlloc_v2), so a wrapper
 * always has the signature of what it stands for. */
static void dlt_swap_driver_fn(void **fn)
{
	if (fn == NULL || *fn == NULL)
		return;
	Dl_info info;
	if (!dladdr(*fn, &info) || info.dli_saddr != *fn ||
	    info.dli_sname == NULL)
		return;
	int idx = dlt_api_lookup(info.dli_sname);
	if (idx >= 0 && dlt_apis[idx].family == DLT_FAM_CUDA)
		*fn = dlt_substitute(idx, *fn);
}

void dlt_post_cuGetProcAddress(const char *sym, void **fn, int ver,
			       dlt_cuuint64_t flags)
{
	(void)sym, (void)ver, (void)flags;
	if (dlt_hook_ret == 0)
		dlt_swap_driver_fn(fn);
}

void dlt_post_cuGetProcAddress_v2(const char *sym, void **fn, int ver,
				  dlt_cuuint64_t flags, int *st)
{
	(void)sym, (void)ver, (void)flags, (void)st;
	if (dlt_hook_ret == 0)
		dlt_swap_driver_fn(fn);
}

void dlt_post_cudaGetDriverEntryPoint(const char *sym, void **fn,
				      unsigned long long flags, int *st)
{
	(void)sym, (void)flags, (void)st;
	if (dlt_hook_ret == 0)
		dlt_swap_driver_fn(fn);
}

void dlt_post_cudaGetDriverEntryPointByVersion(const char *sym, void **fn,
					       unsigned int ver,
					       unsigned long long flags,
					       int *st)
{
	(void)sym, (void)ver, (void)flags, (void)st;
	if (dlt_hook_ret == 0)
		dlt_swap_driver_fn(fn);
}
