/* The versions of the GPU libraries a process uses (LIB_FAMILY records):
 * after the first call into a family from one file, the file and what it
 * says about versions.  Only pure version queries are called, after the
 * program's own call returned: nothing that could load a library, which
 * would change what the program loads and clear a dlerror() message it has
 * not read yet (docs/design.md, "Versions"). */
#define _GNU_SOURCE
#include "versions.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdbool.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gnu/libc-version.h>
#include <sys/utsname.h>

#include "apitable.h"
#include "elfread.h"
#include "filever.h"
#include "hot.h"
#include "dltrace/apivals.h"
#include "seen.h"
#include "state.h"
#include "symlookup.h"
#include "watchdog.h"

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

/* The version a cuDNN sub-library loaded at base exports as a word
 * (major << 16 | minor << 8 | patch), in cuDNN's encoding in *v; 0, or -1
 * when it exports none (the front library). */
static int dlt_cudnn_word_version(uintptr_t base, int64_t *v)
{
	static const char *const names[] = {
		"cudnn_graph_version",	   "cudnn_ops_version",
		"cudnn_ops_infer_version", "cudnn_cnn_version",
		"cudnn_cnn_infer_version", "cudnn_adv_version",
		"cudnn_adv_infer_version", NULL};
	for (const char *const *n = names; *n; n++) {
		const uint32_t *w = dlt_sym_find_in(base, *n);
		if (w == NULL)
			continue;
		int part[3] = {(int)(*w >> 16), (int)((*w >> 8) & 0xff),
			       (int)(*w & 0xff)};
		*v = dlt_version_code(DLT_FAM_CUDNN, part);
		return 0;
	}
	return -1;
}

/* cublasGetProperty's three parts as one number, as cublasGetVersion
 * gives it. */
static int64_t dlt_cublas_version(uintptr_t base, int64_t *status)
{
	typedef int (*dlt_prop_fn)(int, int *);
	dlt_prop_fn f = (dlt_prop_fn)dlt_sym_find_in(base, "cublasGetProperty");
	if (f == NULL) {
		*status = DLT_VERSION_ABSENT;
		return DLT_VERSION_ABSENT;
	}
	int part[3] = {0, 0, 0};
	*status = 0;
	/* MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL (libraryPropertyType) */
	for (int i = 0; i < 3 && *status == 0; i++)
		*status = f(i, &part[i]);
	return *status ? DLT_VERSION_ABSENT
		       : (int64_t)part[0] * 10000 + part[1] * 100 + part[2];
}

/* The versions the library loaded at base says it is, by family, with
 * pure queries only (docs/design.md, "Versions").  at_load: the program
 * may not have called the library yet, so nothing is called that would
 * load another library (cuDNN's front library loads libcudnn_graph for
 * cudnnGetVersion; its sub-libraries' version words say the same). */
static void dlt_family_query(int fam, uintptr_t base, bool at_load,
			     int64_t v[8], char *kdrv, size_t kcap)
{
	dlt_versions_absent(v);
	kdrv[0] = '\0';
	dlt_api_depth++; /* our own queries are not the program's calls */
	switch (fam) {
	case DLT_FAM_CUDART:
		/* Not cudaDriverGetVersion: it loads the driver, and a dlopen
		 * clears a dlerror() message the program has yet to read.  If
		 * the driver is loaded already, its cuDriverGetVersion is a
		 * pure query. */
		v[DLT_FV_CUDART_runtime_version] =
			dlt_call_int_getter(base, "cudaRuntimeGetVersion",
					    &v[DLT_FV_CUDART_runtime_status]);
		if (at_load)
			break;
		uintptr_t drv;
		if (dlt_obj_find("libcuda.so", &drv) == 0)
			v[DLT_FV_CUDART_driver_version] = dlt_call_int_getter(
				drv, "cuDriverGetVersion",
				&v[DLT_FV_CUDART_driver_status]);
		dlt_kernel_driver(kdrv, kcap);
		break;
	case DLT_FAM_CUDA:
		v[DLT_FV_CUDA_driver_version] =
			dlt_call_int_getter(base, "cuDriverGetVersion",
					    &v[DLT_FV_CUDA_driver_status]);
		dlt_kernel_driver(kdrv, kcap);
		break;
	case DLT_FAM_CUDNN: {
		if (at_load)
			break;
		dlt_size_getter gv = (dlt_size_getter)dlt_sym_find_in(
			base, "cudnnGetVersion");
		dlt_size_getter gc = (dlt_size_getter)dlt_sym_find_in(
			base, "cudnnGetCudartVersion");
		if (gv)
			v[DLT_FV_CUDNN_version] = (int64_t)gv();
		if (gc)
			v[DLT_FV_CUDNN_cudart_version] = (int64_t)gc();
		/* The sub-libraries' agreement, without calling
		 * cudnn*VersionCheck: those load the sub-library they check,
		 * which the program may never load, and a dlopen clears a
		 * pending dlerror().  The version words the loaded
		 * sub-libraries export say the same (9.x). */
		if (v[DLT_FV_CUDNN_version] >= 90000)
			dlt_cudnn_sublib_words(v[DLT_FV_CUDNN_version],
					       &v[DLT_FV_CUDNN_sublib1_check]);
		break;
	}
	case DLT_FAM_NCCL:
		v[DLT_FV_NCCL_version] = dlt_call_int_getter(
			base, "ncclGetVersion", &v[DLT_FV_NCCL_status]);
		if (v[DLT_FV_NCCL_version] == DLT_VERSION_ABSENT)
			v[DLT_FV_NCCL_version] =
				dlt_call_int_getter(base, "pncclGetVersion",
						    &v[DLT_FV_NCCL_status]);
		break;
	case DLT_FAM_CUBLAS:
		v[DLT_FV_CUBLAS_version] =
			dlt_cublas_version(base, &v[DLT_FV_CUBLAS_status]);
		break;
	case DLT_FAM_CUBLASLT: {
		dlt_size_getter gv = (dlt_size_getter)dlt_sym_find_in(
			base, "cublasLtGetVersion");
		if (gv)
			v[DLT_FV_CUBLASLT_version] = (int64_t)gv();
		break;
	}
	}
	dlt_api_depth--;
}

/* The file a function or object was loaded from, as a real path. */
static void dlt_object_path(const struct link_map *lm, const char *fallback,
			    char *path, size_t cap)
{
	const char *p =
		lm && lm->l_name && lm->l_name[0] ? lm->l_name : fallback;
	if (p == NULL || realpath(p, path) == NULL)
		snprintf(path, cap, "%s", p ? p : "");
}

/* First call into a family from one file: record the file and what it says
 * about versions.  Runs after the program's own call returned, and calls
 * only version queries, which leave no error state behind. */
void dlt_family_note(int idx, void *real)
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
	dlt_watch_ask("GPU library in use");
	/* Once per library and family: load biases are page aligned. */
	static struct dlt_seen known;
	if (!dlt_seen_add(&known, (uint64_t)lm->l_addr | (uint64_t)fam))
		return;
	int64_t v[8];
	char kdrv[128];
	dlt_family_query(fam, lm->l_addr, false, v, kdrv, sizeof(kdrv));
	char path[DLT_PATH_MAX];
	dlt_object_path(lm, info.dli_fname, path, sizeof(path));
	dlt_family_write(w, fam, path, dlt_apis[idx].id, DLT_FAMSRC_CALL, v,
			 kdrv);
}

/* ---- at load ------------------------------------------------------------ */

/* The GPU libraries loaded since the last look, collected with the
 * loader's lock held and asked only after it is released: a query that
 * loaded something would wait for that lock. */
struct dlt_gpu_obj {
	uintptr_t base;
	int fam;
	char path[512];
};

struct dlt_gpu_objs {
	int n;
	unsigned long long adds;
	struct dlt_gpu_obj *o; /* 32 */
	char *torch;	       /* DLT_PATH_MAX: a torch file, if torch_found */
	int torch_found;
};

/* torch's extension module (torch/_C.cpython-*.so: 2) or libraries
 * (libtorch.so, libtorch_cpu.so ...: 1); 0 for anything else.  Debian
 * keeps the libraries apart from the module, wheels in torch/lib. */
DLT_START static int dlt_torch_file(const char *path)
{
	const char *b = strrchr(path, '/');
	if (b && strncmp(b + 1, "_C.", 3) == 0 && b - path >= 6 &&
	    strncmp(b - 6, "/torch", 6) == 0)
		return 2;
	b = b ? b + 1 : path;
	return strncmp(b, "libtorch", 8) == 0 && strstr(b, ".so") &&
	       strncmp(b, "libtorch_global_deps", 20) != 0;
}

DLT_START static int dlt_collect_gpu(struct dl_phdr_info *info, size_t size,
				     void *data)
{
	(void)size;
	struct dlt_gpu_objs *g = data;
	g->adds = info->dlpi_adds;
	int fam = info->dlpi_name ? dlt_gpu_file_family(info->dlpi_name) : 0;
	if (fam && g->n < 32) {
		struct dlt_gpu_obj *o = &g->o[g->n++];
		o->base = info->dlpi_addr;
		o->fam = fam;
		snprintf(o->path, sizeof(o->path), "%s", info->dlpi_name);
	}
	int t = info->dlpi_name ? dlt_torch_file(info->dlpi_name) : 0;
	if (t == 2 || (t == 1 && !g->torch_found)) {
		g->torch_found = 1;
		snprintf(g->torch, DLT_PATH_MAX, "%s", info->dlpi_name);
	}
	return 0;
}

/* The value of KEY="..." in an os-release file, or "". */
static void dlt_os_release(char *buf, size_t cap)
{
	buf[0] = '\0';
	char text[4096];
	int fd = open("/etc/os-release", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/usr/lib/os-release", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	for (char *l = text; l && *l;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "PRETTY_NAME=", 12) != 0)
			continue;
		l += 12;
		if (*l == '"' || *l == '\'')
			l++;
		size_t len = strcspn(l, "\"'\n");
		snprintf(buf, cap, "%.*s", (int)len, l);
		return;
	}
}

static uint32_t dlt_str_or_none(struct dlt_writer *w, const char *s)
{
	return s && s[0] ? dlt_str(w, &dlt_tls, s) : DLT_STR_NONE;
}

/* The SYSTEM record: what the GPU libraries run on. */
static void dlt_system_write(struct dlt_writer *w)
{
	char os[256];
	struct utsname u;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	dlt_os_release(os, sizeof(os));
	uint32_t os_s = dlt_str_or_none(w, os),
		 k_s = dlt_str_or_none(w, u.release),
		 g_s = dlt_str_or_none(w, gnu_get_libc_version()),
		 m_s = dlt_str_or_none(w, u.machine);
	struct dlt_rec_system *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->os = os_s;
	r->kernel = k_s;
	r->glibc = g_s;
	r->machine = m_s;
	dlt_rec_commit(r, DLT_REC_SYSTEM, 0, sizeof(*r));
}

static void dlt_runtime_write(struct dlt_writer *w, int kind,
			      const char *version, const char *path)
{
	uint32_t v_s = dlt_str_or_none(w, version),
		 p_s = dlt_str_or_none(w, path);
	struct dlt_rec_runtime_version *r =
		dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->version = v_s;
	r->path = p_s;
	dlt_rec_commit(r, DLT_REC_RUNTIME_VERSION, (uint16_t)kind, sizeof(*r));
}

/* The interpreter's version: Py_GetVersion only formats constants into a
 * static buffer ("3.11.2 (main, ...) [GCC 12.2.0]"), whatever state the
 * interpreter is in; the first word is kept. */
static void dlt_python_write(struct dlt_writer *w)
{
	struct dlt_sym_where where = {0};
	const char *(*get)(void) = (const char *(*)(void))dlt_sym_find(
		"Py_GetVersion", 0, NULL, &where);
	if (get == NULL)
		return;
	const char *v = get();
	char ver[64];
	snprintf(ver, sizeof(ver), "%.*s", v ? (int)strcspn(v, " ") : 0,
		 v ? v : "");
	dlt_runtime_write(w, DLT_RUNTIME_PYTHON, ver,
			  where.name && where.name[0] ? where.name
						      : dlt_exe_path());
}

/* torch's version: torch/version.py, beside torch/_C and above
 * torch/lib, where pip, conda and Debian put it ("__version__ =
 * '2.4.1+cu124'"). */
static void dlt_torch_write(struct dlt_writer *w, const char *lib)
{
	char path[DLT_PATH_MAX + 16], text[2048], ver[128] = "";
	const char *slash = strrchr(lib, '/');
	if (slash == NULL)
		return;
	snprintf(path, sizeof(path), "%.*s/%sversion.py", (int)(slash - lib),
		 lib, dlt_torch_file(lib) == 2 ? "" : "../");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	const char *k = strstr(text, "__version__");
	const char *q = k ? strpbrk(k, "'\"\n") : NULL;
	if (q == NULL || *q == '\n')
		return;
	snprintf(ver, sizeof(ver), "%.*s", (int)strcspn(q + 1, "'\"\n"), q + 1);
	if (ver[0])
		dlt_runtime_write(w, DLT_RUNTIME_TORCH, ver, path);
}

DLT_START static int dlt_adds_only(struct dl_phdr_info *info, size_t size,
				   void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_adds;
	return 1;
}

DLT_START void dlt_versions_loaded(void)
{
	struct dlt_writer *w = dlt_writer_on();
	/* Not in a forked child: dl_iterate_phdr may wait there for good
	 * (shim/lifecycle.c). */
	if (w == NULL || w->pid != dlt_self_pid(w) || dlt_no_loader)
		return;
	DLT_HOT static _Atomic int busy;
	DLT_HOT static unsigned long long seen_adds;
	DLT_HOT static uint32_t seen_gen;
	DLT_HOT static struct dlt_seen done;
	DLT_HOT static int cudnn_done; /* one cuDNN record per trace */
	DLT_HOT static int sys_done, torch_done; /* SYSTEM, torch's */
	if (atomic_exchange(&busy, 1))
		return;
	uint32_t gen = atomic_load(&w->gen);
	if (gen != seen_gen) {
		/* A forked child's new trace has none of the records. */
		seen_gen = gen;
		seen_adds = 0;
		cudnn_done = 0;
		sys_done = 0;
		torch_done = 0;
		memset(&done, 0, sizeof(done));
	}
	unsigned long long adds = 0;
	dl_iterate_phdr(dlt_adds_only, &adds);
	if (adds != seen_adds) {
		/* The list apart from its count: a process without GPU
		 * libraries touches none of its pages. */
		static struct dlt_gpu_obj objs[32];
		static char torch[DLT_PATH_MAX];
		DLT_HOT static struct dlt_gpu_objs g;
		g.o = objs;
		g.n = 0;
		g.torch = torch;
		g.torch_found = 0;
		dl_iterate_phdr(dlt_collect_gpu, &g);
		seen_adds = g.adds;
		/* The system and Python once the process uses a GPU library
		 * or torch: processes that use neither pay nothing (nor touch
		 * the page of torch's path). */
		if (!sys_done && (g.n > 0 || g.torch_found)) {
			sys_done = 1;
			dlt_system_write(w);
			dlt_python_write(w);
		}
		if (!torch_done && g.torch_found) {
			torch_done = 1;
			dlt_torch_write(w, torch);
		}
		for (int i = 0; i < g.n; i++) {
			struct dlt_gpu_obj *o = &g.o[i];
			if (!dlt_seen_add(&done,
					  (uint64_t)o->base | (uint64_t)o->fam))
				continue;
			int64_t v[8];
			char kdrv[128], path[DLT_PATH_MAX];
			if (o->fam == DLT_FAM_CUDNN) {
				/* Its version words, once per process. */
				int64_t word;
				if (cudnn_done ||
				    dlt_cudnn_word_version(o->base, &word) != 0)
					continue;
				cudnn_done = 1;
				dlt_versions_absent(v);
				v[DLT_FV_VERSION] = word;
				kdrv[0] = '\0';
			} else {
				dlt_family_query(o->fam, o->base, true, v, kdrv,
						 sizeof(kdrv));
			}
			dlt_object_path(NULL, o->path, path, sizeof(path));
			dlt_family_write(w, o->fam, path, 0, DLT_FAMSRC_LOAD, v,
					 kdrv);
		}
	}
	atomic_store(&busy, 0);
}
