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
#include "hash.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prefetch.h"
#include "symlookup.h"
#include "watchdog.h"

__thread int dlt_post_ret;
/* dltrace's own calls into the libraries: nothing is recorded. */
static __thread int dlt_api_depth;
/* Calls in progress per family: a call into a family the thread is already
 * inside (cuDNN's front library forwarding to a sub-library) is part of the
 * outer call; a call into another family (the runtime calling the driver)
 * is recorded. */
static __thread uint8_t dlt_fam_depth[8];

struct dlt_api_info {
	uint16_t id;
	uint8_t family;
	uint8_t flags;
	const char *name;
};

static const struct dlt_api_info dlt_apis[DLT_API_N] = {
#define DLT_API(id, fam, name, params, args, flags, labels, pre, post) \
	[DLT_IDX_##name] = {id, DLT_FAM_##fam, (flags), #name},
#include "dltrace/apis.def"
#undef DLT_API
};

struct dlt_api_slot {
	_Atomic(void *) link_real; /* what the exported wrapper calls */
	_Atomic(void *) h_real;	   /* what the handle wrapper calls */
	_Atomic int link_tried;
	_Atomic int noted;	 /* FAMILY written for its library */
	_Atomic int second_copy; /* NOTE written: a third real seen */
};
static struct dlt_api_slot dlt_slots[DLT_API_N];

/* ---- finding the real functions ----------------------------------------- */

static const char *dlt_self_base_name(void)
{
	const char *b = strrchr(dlt_self_path, '/');
	return b ? b + 1 : (dlt_self_path[0] ? dlt_self_path : "libdltrace.so");
}

static void *dlt_find_real(const char *name)
{
	void *p = dlt_sym_find(name, 0, dlt_self_base_name(), NULL);
	if (p == NULL && strncmp(name, "nccl", 4) == 0) {
		/* ncclX are weak aliases of the exported pncclX. */
		char alt[128];
		snprintf(alt, sizeof(alt), "p%s", name);
		p = dlt_sym_find(alt, 0, dlt_self_base_name(), NULL);
	}
	return p;
}

static void *dlt_link_real(int idx)
{
	struct dlt_api_slot *s = &dlt_slots[idx];
	void *p = atomic_load_explicit(&s->link_real, memory_order_acquire);
	if (__builtin_expect(p != NULL, 1))
		return p;
	p = dlt_find_real(dlt_apis[idx].name);
	if (p)
		atomic_store_explicit(&s->link_real, p, memory_order_release);
	return p;
}

static int dlt_missing(int fam)
{
	/* Only reached when a program calls a function whose library is not
	 * loaded (a weak reference): answer as that library would when a
	 * symbol is missing. */
	switch (fam) {
	case DLT_FAM_CUDART:
		return 500; /* cudaErrorSymbolNotFound */
	case DLT_FAM_CUDA:
		return 500; /* CUDA_ERROR_NOT_FOUND */
	case DLT_FAM_CUDNN:
		return 4000; /* CUDNN_STATUS_INTERNAL_ERROR (9.x) */
	default:
		return 3; /* ncclInternalError */
	}
}

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

/* The record of a blocking call, written before the call with ret 0 and
 * dur DLT_DUR_OPEN, and closed in place when it returns: one record per
 * call instead of API_ENTER + API_CALL (format.h).  tok says which chunk
 * of this thread it is in. */
static struct dlt_rec_api_call *dlt_rec_open(struct dlt_writer *w, uint16_t id,
					     uint64_t t0, const uint64_t *v,
					     uint32_t n, uint64_t *tok)
{
	if (__builtin_expect(!dlt_watchdog_running(), 0))
		dlt_watchdog_start("a GPU call that can block");
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_call) + 8 * n);
	struct dlt_rec_api_call *r = dlt_rec_reserve(w, &dlt_tls, len);
	if (r == NULL)
		return NULL;
	r->h.ts = t0;
	r->ret = 0;
	r->dur = DLT_DUR_OPEN;
	for (uint32_t i = 0; i < n; i++)
		r->v[i] = v[i];
	dlt_rec_commit(r, DLT_REC_API_CALL, id, len);
	*tok = ((uint64_t)dlt_tls.gen << 32) | dlt_tls.nchunk;
	return r;
}

/* Closes an open record; 0 when it can no longer be written (its chunk was
 * left during the call, or the trace was restarted): the caller writes a
 * complete record instead. */
static int dlt_rec_close(struct dlt_writer *w, struct dlt_rec_api_call *r,
			 uint64_t tok, int ret, uint64_t dur)
{
	if (r == NULL ||
	    tok != (((uint64_t)dlt_tls.gen << 32) | dlt_tls.nchunk) ||
	    dlt_tls.gen != atomic_load_explicit(&w->gen, memory_order_relaxed))
		return 0;
	uint64_t word =
		(uint64_t)(uint32_t)ret | ((uint64_t)dlt_dur(dur) << 32);
	atomic_store_explicit((_Atomic uint64_t *)(void *)&r->ret, word,
			      memory_order_release);
	return 1;
}

static void dlt_rec_call(struct dlt_writer *w, uint16_t id, int ret,
			 uint64_t t0, uint64_t t1, const uint64_t *v,
			 uint32_t n)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_call) + 8 * n);
	struct dlt_rec_api_call *r = dlt_rec_reserve(w, &dlt_tls, len);
	if (r == NULL)
		return;
	r->h.ts = t0;
	r->ret = ret;
	r->dur = dlt_dur(t1 - t0);
	for (uint32_t i = 0; i < n; i++)
		r->v[i] = v[i];
	dlt_rec_commit(r, DLT_REC_API_CALL, id, len);
	dlt_prefetch_poll();
}

static void dlt_family_note(int idx, void *real);

/* ---- the wrappers ------------------------------------------------------- */

#define DLT_UNPAREN(...) __VA_ARGS__

/* Post hooks exist only for APIs flagged DLT_AF_POST; weak declarations
 * let the generated code name them all. */
#define DLT_API(id, fam, name, params, args, flags, labels, pre, post) \
	typedef int(*dlt_fn_##name) params;                            \
	__attribute__((weak)) void dlt_post_##name params;
#include "dltrace/apis.def"
#undef DLT_API

#define DLT_BODY(apiid, idx, fam, name, args, flags, pre, post, realexpr)        \
	{                                                                        \
		dlt_fn_##name dlt_real = (dlt_fn_##name)(realexpr);              \
		if (__builtin_expect(dlt_real == NULL, 0))                       \
			return dlt_missing(DLT_FAM_##fam);                       \
		struct dlt_writer *dlt_wr = dlt_writer_on();                     \
		if (dlt_wr == NULL || dlt_api_depth > 0 ||                       \
		    dlt_fam_depth[DLT_FAM_##fam] > 0) {                          \
			int dlt_r0 = dlt_real args;                              \
			/* Substitution must happen even in nested calls. */     \
			if (((flags)&DLT_AF_POST) && dlt_post_##name &&          \
			    (idx == DLT_IDX_cuGetProcAddress ||                  \
			     idx == DLT_IDX_cuGetProcAddress_v2 ||               \
			     idx == DLT_IDX_cudaGetDriverEntryPoint ||           \
			     idx == DLT_IDX_cudaGetDriverEntryPointByVersion)) { \
				int dlt_e0 = errno;                              \
				dlt_post_ret = dlt_r0;                           \
				dlt_post_##name args;                            \
				errno = dlt_e0;                                  \
			}                                                        \
			return dlt_r0;                                           \
		}                                                                \
		dlt_fam_depth[DLT_FAM_##fam]++;                                  \
		struct dlt_rec_api_call *dlt_open = NULL;                        \
		uint64_t dlt_tok = 0;                                            \
		uint64_t dlt_t0;                                                 \
		if (DLT_API_ONCE(flags, pre, post)) {                            \
			uint64_t dlt_pv[] = {DLT_UNPAREN pre};                   \
			dlt_t0 = dlt_now_ns();                                   \
			dlt_open = dlt_rec_open(                                 \
				dlt_wr, apiid, dlt_t0, dlt_pv,                   \
				sizeof(dlt_pv) / sizeof(uint64_t), &dlt_tok);    \
		} else {                                                         \
			if ((flags)&DLT_AF_ENTER) {                              \
				uint64_t dlt_pv[] = {DLT_UNPAREN pre};           \
				dlt_rec_enter(dlt_wr, apiid, dlt_pv,             \
					      sizeof(dlt_pv) /                   \
						      sizeof(uint64_t));         \
			}                                                        \
			dlt_t0 = dlt_now_ns();                                   \
		}                                                                \
		int dlt_r = dlt_real args;                                       \
		uint64_t dlt_t1 = dlt_now_ns();                                  \
		int dlt_e = errno;                                               \
		if (!((flags)&DLT_AF_NORECORD) &&                                \
		    !dlt_rec_close(dlt_wr, dlt_open, dlt_tok, dlt_r,             \
				   dlt_t1 - dlt_t0)) {                           \
			uint64_t dlt_v[] = {DLT_UNPAREN post};                   \
			dlt_rec_call(dlt_wr, apiid, dlt_r, dlt_t0, dlt_t1,       \
				     dlt_v, sizeof(dlt_v) / sizeof(uint64_t));   \
		}                                                                \
		if (((flags)&DLT_AF_POST) && dlt_post_##name) {                  \
			dlt_post_ret = dlt_r;                                    \
			dlt_post_##name args;                                    \
		}                                                                \
		if (__builtin_expect(                                            \
			    !atomic_load_explicit(&dlt_slots[idx].noted,         \
						  memory_order_relaxed),         \
			    0))                                                  \
			dlt_family_note(idx, (void *)dlt_real);                  \
		dlt_fam_depth[DLT_FAM_##fam]--;                                  \
		errno = dlt_e;                                                   \
		return dlt_r;                                                    \
	}

#define DLT_API(id, fam, name, params, args, flags, labels, pre, post)        \
	DLT_EXPORT int name params DLT_BODY(                                  \
		id, DLT_IDX_##name, fam, name, args, flags, pre, post,        \
		dlt_link_real(DLT_IDX_##name)) static int dlt_h_##name params \
	DLT_BODY(id, DLT_IDX_##name, fam, name, args, flags, pre, post,       \
		 atomic_load_explicit(&dlt_slots[DLT_IDX_##name].h_real,      \
				      memory_order_acquire))
#include "dltrace/apis.def"
#undef DLT_API

static void *const dlt_link_wrappers[DLT_API_N] = {
#define DLT_API(id, fam, name, params, args, flags, labels, pre, post) \
	[DLT_IDX_##name] = (void *)name,
#include "dltrace/apis.def"
#undef DLT_API
};

static void *const dlt_h_wrappers[DLT_API_N] = {
#define DLT_API(id, fam, name, params, args, flags, labels, pre, post) \
	[DLT_IDX_##name] = (void *)dlt_h_##name,
#include "dltrace/apis.def"
#undef DLT_API
};

/* ---- substitution ------------------------------------------------------- */

static int dlt_api_lookup(const char *name)
{
	if (name == NULL)
		return -1;
	if (name[0] == 'p' && strncmp(name, "pnccl", 5) == 0)
		name++;
	if (name[0] != 'c' && name[0] != 'n')
		return -1;
	for (int i = 0; i < DLT_API_N; i++)
		if (strcmp(dlt_apis[i].name, name) == 0)
			return i;
	return -1;
}

static void dlt_note_once(_Atomic int *flag, const char *text)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w && !atomic_exchange(flag, 1))
		dlt_note(w, &dlt_tls, DLT_NOTE_WARN, text);
}

/* What to hand out instead of real, a pointer to the function idx. */
static void *dlt_substitute(int idx, void *real)
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

void dlt_static_runtime(const char *sym, void *caller)
{
	Dl_info info;
	if (caller == NULL || !dladdr(caller, &info) || info.dli_fname == NULL)
		return;
	const char *b = strrchr(info.dli_fname, '/');
	b = b ? b + 1 : info.dli_fname;
	if (strncmp(b, "libcudart", 9) == 0)
		return; /* the shared runtime itself */
	static struct {
		_Atomic int lock;
		int n;
		const void *bases[64];
	} seen;
	while (atomic_exchange(&seen.lock, 1))
		;
	int dup = 0;
	for (int i = 0; i < seen.n; i++)
		dup |= seen.bases[i] == info.dli_fbase;
	if (!dup && seen.n < 64)
		seen.bases[seen.n++] = info.dli_fbase;
	atomic_store(&seen.lock, 0);
	if (dup)
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

typedef void *(*dlt_dlsym_fn)(void *, const char *);
typedef void *(*dlt_dlvsym_fn)(void *, const char *, const char *);

/* The real dlsym and dlvsym, found without calling either: our own are
 * the ones a call by name would reach. */
__attribute__((used)) void *dlt_dlsym_real(void)
{
	static _Atomic(void *) p;
	void *r = atomic_load(&p);
	if (r == NULL) {
		r = dlt_sym_find("dlsym", 0, dlt_self_base_name(), NULL);
		atomic_store(&p, r);
	}
	return r;
}

__attribute__((used)) void *dlt_dlvsym_real(void)
{
	static _Atomic(void *) p;
	void *r = atomic_load(&p);
	if (r == NULL) {
		r = dlt_sym_find("dlvsym", 0, dlt_self_base_name(), NULL);
		atomic_store(&p, r);
	}
	return r;
}

static void *dlt_after_dlsym(const char *name, void *r, void *caller)
{
	if (r == NULL || name == NULL || dlt_w == NULL)
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

/* Called by the dlsym entry in dlopen_x86_64.S for real handles only;
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
	if (dlt_post_ret == 0)
		dlt_swap_driver_fn(fn);
}

void dlt_post_cuGetProcAddress_v2(const char *sym, void **fn, int ver,
				  dlt_cuuint64_t flags, int *st)
{
	(void)sym, (void)ver, (void)flags, (void)st;
	if (dlt_post_ret == 0)
		dlt_swap_driver_fn(fn);
}

void dlt_post_cudaGetDriverEntryPoint(const char *sym, void **fn,
				      unsigned long long flags, int *st)
{
	(void)sym, (void)flags, (void)st;
	if (dlt_post_ret == 0)
		dlt_swap_driver_fn(fn);
}

void dlt_post_cudaGetDriverEntryPointByVersion(const char *sym, void **fn,
					       unsigned int ver,
					       unsigned long long flags,
					       int *st)
{
	(void)sym, (void)ver, (void)flags, (void)st;
	if (dlt_post_ret == 0)
		dlt_swap_driver_fn(fn);
}

/* ---- versions ----------------------------------------------------------- */

uint64_t dlt_nccl_id_hash(const dlt_ncclUniqueId *id)
{
	/* The id carries the root's address and a secret: never record it,
	 * only a hash that ties the ranks of one communicator together. */
	return id ? dlt_fnv1a(id->internal, sizeof(id->internal))
		  : DLT_FNV_OFFSET;
}

/* The NVIDIA kernel module version, from the files the driver provides. */
static void dlt_kernel_driver(char *buf, size_t cap)
{
	buf[0] = '\0';
	char text[512];
	int fd = open("/proc/driver/nvidia/version", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, text, sizeof(text) - 1);
		close(fd);
		text[n > 0 ? n : 0] = '\0';
		const char *k = strstr(text, "Kernel Module");
		if (k) {
			k += strlen("Kernel Module");
			while (*k == ' ' || *k == '\t')
				k++;
			size_t l = strcspn(k, " \t\n");
			snprintf(buf, cap, "%.*s", (int)l, k);
			return;
		}
	}
	fd = open("/sys/module/nvidia/version", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, text, sizeof(text) - 1);
		close(fd);
		text[n > 0 ? n : 0] = '\0';
		size_t l = strcspn(text, "\n");
		snprintf(buf, cap, "%.*s", (int)(l < 100 ? l : 100), text);
	}
}

typedef int (*dlt_int_getter)(int *);
typedef size_t (*dlt_size_getter)(void);

static int64_t dlt_call_int_getter(uintptr_t base, const char *name,
				   int64_t *status)
{
	dlt_int_getter f = (dlt_int_getter)dlt_sym_find_in(base, name);
	if (f == NULL) {
		*status = DLT_VERSION_ABSENT;
		return DLT_VERSION_ABSENT;
	}
	int v = 0;
	*status = f(&v);
	return v;
}

/* Status per cuDNN 9 sub-library (graph, ops, cnn, adv): 0 when its
 * exported version word matches the front library's version, 1002
 * (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH) when it differs, absent when
 * the sub-library is not loaded or exports no word. */
static void dlt_cudnn_sublib_words(int64_t version, int64_t out[4])
{
	static const struct {
		const char *file;
		const char *words[2];
	} subs[4] = {
		{"libcudnn_graph.so", {"cudnn_graph_version", NULL}},
		{"libcudnn_ops.so",
		 {"cudnn_ops_version", "cudnn_ops_infer_version"}},
		{"libcudnn_cnn.so",
		 {"cudnn_cnn_version", "cudnn_cnn_infer_version"}},
		{"libcudnn_adv.so",
		 {"cudnn_adv_version", "cudnn_adv_infer_version"}},
	};
	uint32_t want =
		(uint32_t)((version / 10000) << 16 |
			   ((version / 100) % 100) << 8 | version % 100);
	for (int i = 0; i < 4; i++) {
		out[i] = DLT_VERSION_ABSENT;
		uintptr_t base;
		if (dlt_obj_find(subs[i].file, &base) != 0)
			continue;
		for (int k = 0; k < 2 && subs[i].words[k]; k++) {
			const uint32_t *w =
				dlt_sym_find_in(base, subs[i].words[k]);
			if (w) {
				out[i] = (*w & 0xffff00u) == (want & 0xffff00u)
						 ? 0
						 : 1002;
				break;
			}
		}
	}
}

/* First call into a family from one file: record the file and what it says
 * about versions.  Runs after the program's own call returned, and calls
 * only version queries, which leave no error state behind. */
static void dlt_family_note(int idx, void *real)
{
	struct dlt_api_slot *s = &dlt_slots[idx];
	if (atomic_exchange(&s->noted, 1))
		return;
	struct dlt_writer *w = dlt_writer_on();
	Dl_info info;
	struct link_map *lm = NULL;
	if (w == NULL || !dladdr1(real, &info, (void **)&lm, RTLD_DL_LINKMAP) ||
	    lm == NULL)
		return;
	int fam = dlt_apis[idx].family;
	dlt_watchdog_start("GPU library in use");
	static struct {
		_Atomic int lock;
		int n;
		struct {
			int fam;
			uintptr_t base;
		} seen[32];
	} known;
	while (atomic_exchange(&known.lock, 1))
		;
	int dup = 0;
	for (int i = 0; i < known.n; i++)
		dup |= known.seen[i].fam == fam &&
		       known.seen[i].base == lm->l_addr;
	if (!dup && known.n < 32) {
		known.seen[known.n].fam = fam;
		known.seen[known.n].base = lm->l_addr;
		known.n++;
	}
	atomic_store(&known.lock, 0);
	if (dup)
		return;

	uintptr_t base = lm->l_addr;
	int64_t v[8];
	for (int i = 0; i < 8; i++)
		v[i] = DLT_VERSION_ABSENT;
	char kdrv[128] = "";
	dlt_api_depth++; /* our own queries are not the program's calls */
	switch (fam) {
	case DLT_FAM_CUDART:
		/* Not cudaDriverGetVersion: it loads the driver, and a dlopen
		 * clears a dlerror() message the program has yet to read.  If
		 * the driver is loaded already, its cuDriverGetVersion is a
		 * pure query. */
		v[0] = dlt_call_int_getter(base, "cudaRuntimeGetVersion",
					   &v[2]);
		uintptr_t drv;
		if (dlt_obj_find("libcuda.so", &drv) == 0)
			v[1] = dlt_call_int_getter(drv, "cuDriverGetVersion",
						   &v[3]);
		dlt_kernel_driver(kdrv, sizeof(kdrv));
		break;
	case DLT_FAM_CUDA:
		v[0] = dlt_call_int_getter(base, "cuDriverGetVersion", &v[1]);
		dlt_kernel_driver(kdrv, sizeof(kdrv));
		break;
	case DLT_FAM_CUDNN: {
		dlt_size_getter gv = (dlt_size_getter)dlt_sym_find_in(
			base, "cudnnGetVersion");
		dlt_size_getter gc = (dlt_size_getter)dlt_sym_find_in(
			base, "cudnnGetCudartVersion");
		if (gv)
			v[0] = (int64_t)gv();
		if (gc)
			v[1] = (int64_t)gc();
		/* The sub-libraries' agreement, without calling
		 * cudnn*VersionCheck: those load the sub-library they check,
		 * which the program may never load, and a dlopen clears a
		 * pending dlerror().  The version words the loaded
		 * sub-libraries export say the same (9.x). */
		if (v[0] >= 90000)
			dlt_cudnn_sublib_words(v[0], &v[2]);
		break;
	}
	case DLT_FAM_NCCL:
		v[0] = dlt_call_int_getter(base, "ncclGetVersion", &v[1]);
		if (v[0] == DLT_VERSION_ABSENT)
			v[0] = dlt_call_int_getter(base, "pncclGetVersion",
						   &v[1]);
		break;
	}
	dlt_api_depth--;
	char path[DLT_PATH_MAX];
	const char *p =
		lm->l_name && lm->l_name[0] ? lm->l_name : info.dli_fname;
	if (p == NULL || realpath(p, path) == NULL)
		snprintf(path, sizeof(path), "%s", p ? p : "");
	uint32_t ps = dlt_str(w, &dlt_tls, path);
	uint32_t ks = kdrv[0] ? dlt_str(w, &dlt_tls, kdrv) : DLT_STR_NONE;
	struct dlt_rec_family *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->path = ps;
	r->api = dlt_apis[idx].id;
	r->kdrv = ks;
	r->pad = 0;
	memcpy(r->v, v, sizeof(v));
	dlt_rec_commit(r, DLT_REC_LIB_FAMILY, (uint16_t)fam, sizeof(*r));
}
