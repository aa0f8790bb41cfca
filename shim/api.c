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
	if (__builtin_expect(!dlt_watch_asked(), 0))
		dlt_watch_ask("a GPU call that can block");
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

/* What dlt_wrap() needs of one function: its numbers and flags, and the
 * four parts that depend on its parameters, each a small function over
 * the arguments gathered in a struct (struct dlt_args_<name>).  Every
 * descriptor is a constant and dlt_wrap() is inlined into each wrapper, so
 * the compiler makes the four calls direct and inlines them: the code is
 * what one wrapper written out by hand would be. */
struct dlt_wrap_api {
	uint16_t id;  /* apis.def's id, stored in the records */
	uint16_t idx; /* dlt_apis[], dlt_slots[] */
	uint8_t fam;
	uint8_t once;	/* DLT_API_ONCE: one API_CALL, opened, closed */
	uint8_t enter;	/* DLT_AF_ENTER */
	uint8_t record; /* not DLT_AF_NORECORD */
	uint8_t subst;	/* the hook swaps pointers even when nested */
	uint8_t ring;	/* its successful calls go to the ring */
	int (*call)(void *real, const void *a);	      /* the real call */
	uint32_t (*pre)(const void *a, uint64_t *v);  /* values before */
	uint32_t (*post)(const void *a, uint64_t *v); /* values after */
	void (*hook)(int ret, const void *a);	      /* or NULL */
};

/* The cuGetProcAddress family swaps what it hands out even when called
 * inside another wrapped call (the runtime asks the driver for its
 * functions from inside its own calls). */
#define DLT_SUBST_ALWAYS(idx)                        \
	((idx) == DLT_IDX_cuGetProcAddress ||        \
	 (idx) == DLT_IDX_cuGetProcAddress_v2 ||     \
	 (idx) == DLT_IDX_cudaGetDriverEntryPoint || \
	 (idx) == DLT_IDX_cudaGetDriverEntryPointByVersion)

/* Which functions' successful calls go to the ring (format 2.6): not those
 * whose every call explains the job (communicators made and ended, the
 * unique id, convolution selections, backend finalizations, driver
 * look-ups), nor those with a hook of their own or an API_ENTER before
 * them (records that go with the others). */
#define DLT_RING_NEVER                                             \
	(DLT_ROLE_INITS | DLT_ROLE_COMM_END | DLT_ROLE_UNIQUE_ID | \
	 DLT_ROLE_CONV_SELECT | DLT_ROLE_BK_FINALIZE | DLT_ROLE_SYMBOL_QUERY)
#define DLT_API_RING(flags, roles, pre, post)                           \
	(((roles)&DLT_RING_NEVER) == 0 && ((flags)&DLT_AF_POST) == 0 && \
	 (((flags)&DLT_AF_ENTER) == 0 || DLT_API_ONCE(flags, pre, post)))

/* One call of the function d describes, real being the function to call,
 * a its arguments. */
static inline __attribute__((always_inline)) int
dlt_wrap(const struct dlt_wrap_api *d, void *real, const void *a)
{
	if (__builtin_expect(real == NULL, 0))
		return dlt_missing(d->fam);
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL || dlt_api_depth > 0 || dlt_fam_depth[d->fam] > 0) {
		int r0 = d->call(real, a);
		if (d->hook && d->subst) {
			int e0 = errno;
			d->hook(r0, a);
			errno = e0;
		}
		return r0;
	}
	dlt_fam_depth[d->fam]++;
	struct dlt_open_call open = {NULL, NULL, 0, 0, 0};
	uint64_t v[DLT_API_MAX_VALS];
	uint64_t t0;
	if (d->once) {
		uint32_t n = d->pre(a, v);
		t0 = dlt_now_ns();
		dlt_call_open(w, d->id, d->ring, t0, v, n, &open);
	} else {
		if (d->enter) {
			/* v untouched when there is no value: not passed. */
			uint32_t n = d->pre(a, v);
			dlt_rec_enter(w, d->id, n ? v : NULL, n);
		}
		t0 = dlt_now_ns();
	}
	uint64_t wdc = 0;
	if (d->enter)
		wdc = dlt_wd_call_begin(t0);
	int r = d->call(real, a);
	uint64_t t1 = dlt_now_ns();
	int e = errno;
	if (d->enter)
		dlt_wd_call_end(wdc);
	if (d->record && !dlt_call_close(w, &open, r, t1 - t0))
		dlt_call_done(w, d->id, d->ring, r, t0, t1, v, d->post(a, v));
	if (d->hook)
		d->hook(r, a);
	if (__builtin_expect(!atomic_load_explicit(&dlt_slots[d->idx].noted,
						   memory_order_relaxed),
			     0))
		dlt_family_note(d->idx, real);
	dlt_fam_depth[d->fam]--;
	errno = e;
	return r;
}

/* Per function: the struct of its arguments (nothing for (void)), and the
 * four parts, each of which names the arguments as the table does. */
#define DLT_ARG_MEMBER(p, decl) decl;
#define DLT_ARG_MEMBERS_1(params)
#define DLT_ARG_MEMBERS_0(params) \
	DLT_PP_EACH_X(DLT_ARG_MEMBER, _, DLT_UNPAREN params)
#define DLT_ARG_LOCAL(ptr, x) \
	__attribute__((unused)) __typeof__(ptr->x) x = ptr->x;
#define DLT_ARG_LOCALS(ptr, args) \
	DLT_PP_EACH_X(DLT_ARG_LOCAL, ptr, DLT_UNPAREN args)
/* The arguments read from the struct, for the real call: (a->x, a->y). */
#define DLT_ARG_FIELD(ptr, x) , ptr->x
#define DLT_ARG_DROP_FIRST_(first, ...) (__VA_ARGS__)
#define DLT_ARG_DROP_FIRST(...) DLT_ARG_DROP_FIRST_(__VA_ARGS__)
#define DLT_ARG_FIELDS(ptr, args) \
	DLT_ARG_DROP_FIRST(       \
		0 DLT_PP_EACH_X(DLT_ARG_FIELD, ptr, DLT_UNPAREN args))
#define DLT_HOOK_ARGS_1(args) (dlt_ret_)
#define DLT_HOOK_ARGS_0(args) (dlt_ret_, DLT_UNPAREN args)
#define DLT_WRAP_PART static inline __attribute__((always_inline))
/* fn(a, v): the values of list (pre or post) into v, their count. */
#define DLT_WRAP_VALUES(fn, name, args, list)                           \
	DLT_WRAP_PART uint32_t fn(const void *dlt_p_, uint64_t *dlt_v_) \
	{                                                               \
		__attribute__((unused))                                 \
		const struct dlt_args_##name *dlt_ap_ = dlt_p_;         \
		DLT_ARG_LOCALS(dlt_ap_, args)                           \
		const uint64_t dlt_x_[] = {DLT_UNPAREN list};           \
		__builtin_memcpy(dlt_v_, dlt_x_, sizeof(dlt_x_));       \
		return sizeof(dlt_x_) / sizeof(uint64_t);               \
	}
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	struct dlt_args_##name {                                              \
		DLT_PP_CAT(DLT_ARG_MEMBERS_, DLT_PP_IS_EMPTY(args))(params)   \
	};                                                                    \
	DLT_WRAP_PART int dlt_call_##name(void *real, const void *dlt_p_)     \
	{                                                                     \
		__attribute__((unused))                                       \
		const struct dlt_args_##name *dlt_ap_ = dlt_p_;               \
		return ((dlt_fn_##name)real)DLT_ARG_FIELDS(dlt_ap_, args);    \
	}                                                                     \
	DLT_WRAP_VALUES(dlt_pre_##name, name, args, pre)                      \
	DLT_WRAP_VALUES(dlt_postv_##name, name, args, post)                   \
	DLT_WRAP_PART void dlt_hook_##name(int dlt_ret_, const void *dlt_p_)  \
	{                                                                     \
		__attribute__((unused))                                       \
		const struct dlt_args_##name *dlt_ap_ = dlt_p_;               \
		DLT_ARG_LOCALS(dlt_ap_, args)                                 \
		dlt_post_##name DLT_PP_CAT(DLT_HOOK_ARGS_,                    \
					   DLT_PP_IS_EMPTY(args))(args);      \
	}                                                                     \
	static const struct dlt_wrap_api dlt_w_##name = {                     \
		id,                                                           \
		DLT_IDX_##name,                                               \
		DLT_FAM_##fam,                                                \
		DLT_API_ONCE(flags, pre, post),                               \
		((flags)&DLT_AF_ENTER) != 0,                                  \
		((flags)&DLT_AF_NORECORD) == 0,                               \
		DLT_SUBST_ALWAYS(DLT_IDX_##name),                             \
		DLT_API_RING(flags, roles, pre, post),                        \
		dlt_call_##name,                                              \
		dlt_pre_##name,                                               \
		dlt_postv_##name,                                             \
		((flags)&DLT_AF_POST) ? dlt_hook_##name : NULL,               \
	};
#include "dltrace/apis.def"
#undef DLT_API

/* The exported wrapper calls the function the program would have bound;
 * the handle wrapper the one dlsym or cuGetProcAddress handed out. */
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	DLT_EXPORT int name params                                            \
	{                                                                     \
		const struct dlt_args_##name dlt_a = {DLT_UNPAREN args};      \
		return dlt_wrap(&dlt_w_##name, dlt_link_real(DLT_IDX_##name), \
				&dlt_a);                                      \
	}                                                                     \
	static int dlt_h_##name params                                        \
	{                                                                     \
		const struct dlt_args_##name dlt_a = {DLT_UNPAREN args};      \
		return dlt_wrap(&dlt_w_##name,                                \
				atomic_load_explicit(                         \
					&dlt_slots[DLT_IDX_##name].h_real,    \
					memory_order_acquire),                \
				&dlt_a);                                      \
	}
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

void dlt_post_cuGetProcAddress(int ret, const char *sym, void **fn, int ver,
			       dlt_cuuint64_t flags)
{
	(void)sym, (void)ver, (void)flags;
	if (ret == 0)
		dlt_swap_driver_fn(fn);
}

void dlt_post_cuGetProcAddress_v2(int ret, const char *sym, void **fn, int ver,
				  dlt_cuuint64_t flags, int *st)
{
	(void)sym, (void)ver, (void)flags, (void)st;
	if (ret == 0)
		dlt_swap_driver_fn(fn);
}

void dlt_post_cudaGetDriverEntryPoint(int ret, const char *sym, void **fn,
				      unsigned long long flags, int *st)
{
	(void)sym, (void)flags, (void)st;
	if (ret == 0)
		dlt_swap_driver_fn(fn);
}

void dlt_post_cudaGetDriverEntryPointByVersion(int ret, const char *sym,
					       void **fn, unsigned int ver,
					       unsigned long long flags,
					       int *st)
{
	(void)sym, (void)ver, (void)flags, (void)st;
	if (ret == 0)
		dlt_swap_driver_fn(fn);
}
