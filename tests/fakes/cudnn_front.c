/* Fake libcudnn.so.9, the front library: like the real cuDNN 9 dispatcher
 * it defines nothing itself.  Each exported function opens the sub-library
 * that implements it with dlopen("libcudnn_<sub>.so.9", RTLD_NOW |
 * RTLD_LOCAL), found through this library's own RUNPATH ($ORIGIN), and
 * calls it through dlsym (docs/library-facts.md §1).  So a program linked
 * against libcudnn.so.9 reaches the implementation only through dlsym.
 *
 * cudnnCreate first loads all three sub-libraries and checks that they
 * agree: each one's cudnn*VersionCheck, and the exported version words
 * against this library's own version (FAKE_CUDNN_VERSION).  A difference
 * is CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH; a sub-library that cannot
 * be loaded is CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED. */
#define _GNU_SOURCE
#include "fake_cudnn.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

enum front_sub { DLT_SUB_GRAPH, DLT_SUB_OPS, DLT_SUB_CNN, DLT_SUB_COUNT };

static const char *const sub_soname[DLT_SUB_COUNT] = {
	"libcudnn_graph.so.9",
	"libcudnn_ops.so.9",
	"libcudnn_cnn.so.9",
};

static const char *const sub_check[DLT_SUB_COUNT] = {
	"cudnnGraphVersionCheck",
	"cudnnOpsVersionCheck",
	"cudnnCnnVersionCheck",
};

static void *sub_handle[DLT_SUB_COUNT];
static pthread_once_t sub_once[DLT_SUB_COUNT] = {
	PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT};
static pthread_once_t check_once = PTHREAD_ONCE_INIT;
static cudnnStatus_t check_status;

/* pthread_once takes no argument: one loader per sub-library. */
#define SUB_LOADER(idx)                                                 \
	static void load_##idx(void)                                    \
	{                                                               \
		sub_handle[idx] =                                       \
			dlopen(sub_soname[idx], RTLD_NOW | RTLD_LOCAL); \
	}
SUB_LOADER(0)
SUB_LOADER(1)
SUB_LOADER(2)
static void (*const sub_loader[DLT_SUB_COUNT])(void) = {load_0, load_1, load_2};

static void *sub_open(enum front_sub s)
{
	pthread_once(&sub_once[s], sub_loader[s]);
	return sub_handle[s];
}

static void check_versions(void)
{
	unsigned int want = dlt_cudnn_word(dlt_cudnn_version());
	static const char *const words[DLT_SUB_COUNT] = {
		"cudnn_graph_version", "cudnn_ops_infer_version", NULL};

	for (int s = 0; s < DLT_SUB_COUNT; s++) {
		void *h = sub_open(s);
		if (h == NULL) {
			check_status = DLT_ST_LOADING_FAILED;
			return;
		}
		cudnnStatus_t (*check)(void);
		void *p = dlsym(h, sub_check[s]);
		memcpy(&check, &p, sizeof(p));
		if (check == NULL) {
			check_status = DLT_ST_LOADING_FAILED;
			return;
		}
		cudnnStatus_t st = check();
		if (st != DLT_ST_SUCCESS) {
			check_status = st;
			return;
		}
		const unsigned int *word =
			words[s] != NULL ? dlsym(h, words[s]) : NULL;
		if (word != NULL && *word != want) {
			check_status = DLT_ST_VERSION_MISMATCH;
			return;
		}
	}
}

/* Why a call could not be forwarded. */
static cudnnStatus_t front_status(void)
{
	return check_status != DLT_ST_SUCCESS ? check_status
					      : DLT_ST_LOADING_FAILED;
}

/* The implementation of NAME in sub-library S, looked up once. */
static void *front_sym(enum front_sub s, const char *name, void **cache)
{
	if (strcmp(name, "cudnnCreate") == 0) {
		pthread_once(&check_once, check_versions);
		if (check_status != DLT_ST_SUCCESS)
			return NULL;
	}
	void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
	if (fn != NULL)
		return fn;
	void *h = sub_open(s);
	if (h == NULL)
		return NULL;
	fn = dlsym(h, name);
	__atomic_store_n(cache, fn, __ATOMIC_RELEASE);
	return fn;
}

#define DLT_CUDNN_LOAD_FAILED front_status()
#define DLT_CUDNN_API(sub, ret, name, params, args, fail)            \
	FAKE_EXPORT ret name params                                  \
	{                                                            \
		static void *cache_;                                 \
		typedef ret(*fn_t_) params;                          \
		fn_t_ fn_;                                           \
		void *p_ = front_sym(DLT_SUB_##sub, #name, &cache_); \
		if (p_ == NULL)                                      \
			return fail;                                 \
		memcpy(&fn_, &p_, sizeof(p_));                       \
		return fn_ args;                                     \
	}
#include "cudnn_api.def"
#undef DLT_CUDNN_API
