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
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apitable.h"
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
	dlt_watchdog_start("GPU library in use");
	/* Once per library and family: load biases are page aligned. */
	static struct dlt_seen known;
	if (!dlt_seen_add(&known, (uint64_t)lm->l_addr | (uint64_t)fam))
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
		v[DLT_FV_CUDART_runtime_version] =
			dlt_call_int_getter(base, "cudaRuntimeGetVersion",
					    &v[DLT_FV_CUDART_runtime_status]);
		uintptr_t drv;
		if (dlt_obj_find("libcuda.so", &drv) == 0)
			v[DLT_FV_CUDART_driver_version] = dlt_call_int_getter(
				drv, "cuDriverGetVersion",
				&v[DLT_FV_CUDART_driver_status]);
		dlt_kernel_driver(kdrv, sizeof(kdrv));
		break;
	case DLT_FAM_CUDA:
		v[DLT_FV_CUDA_driver_version] =
			dlt_call_int_getter(base, "cuDriverGetVersion",
					    &v[DLT_FV_CUDA_driver_status]);
		dlt_kernel_driver(kdrv, sizeof(kdrv));
		break;
	case DLT_FAM_CUDNN: {
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
