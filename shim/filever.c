/* What a GPU library's file says about its version: the family from the
 * file's name, the version from its suffix (or NCCL's version string), and
 * the LIB_FAMILY record.  Shared by libdltrace.so (versions.c) and the
 * LD_AUDIT module, which calls dlt_versions_from_file when it sees a GPU
 * library mapped. */
#define _GNU_SOURCE
#include "filever.h"
#include "hot.h"

#include <stdlib.h>
#include <string.h>

#include "elfread.h"
#include "state.h"

_Static_assert(DLT_FV_CUDART_runtime_version == DLT_FV_VERSION &&
		       DLT_FV_CUDNN_version == DLT_FV_VERSION &&
		       DLT_FV_NCCL_version == DLT_FV_VERSION &&
		       DLT_FV_CUBLAS_version == DLT_FV_VERSION &&
		       DLT_FV_CUBLASLT_version == DLT_FV_VERSION,
	       "every family's version is its slot 0");

/* A LIB_FAMILY record. */
void dlt_family_write(struct dlt_writer *w, int fam, const char *path,
		      uint32_t api, uint32_t source, const int64_t v[8],
		      const char *kdrv)
{
	uint32_t ps = dlt_str(w, &dlt_tls, path);
	uint32_t ks =
		kdrv && kdrv[0] ? dlt_str(w, &dlt_tls, kdrv) : DLT_STR_NONE;
	struct dlt_rec_family *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->path = ps;
	r->api = api;
	r->kdrv = ks;
	r->source = source;
	memcpy(r->v, v, 8 * sizeof(v[0]));
	dlt_rec_commit(r, DLT_REC_LIB_FAMILY, (uint16_t)fam, sizeof(*r));
}

void dlt_versions_absent(int64_t v[8])
{
	for (int i = 0; i < 8; i++)
		v[i] = DLT_VERSION_ABSENT;
}

DLT_START int dlt_gpu_file_family(const char *path)
{
	static const struct {
		const char *prefix;
		int fam;
	} files[] = {
		{"libcudart.so", DLT_FAM_CUDART},
		/* Renamed copies bundled by old wheels. */
		{"libcudart-", DLT_FAM_CUDART},
		{"libcuda.so", DLT_FAM_CUDA},
		{"libcudnn.so", DLT_FAM_CUDNN},
		{"libcudnn_graph.so", DLT_FAM_CUDNN},
		{"libcudnn_ops", DLT_FAM_CUDNN},
		{"libnccl.so", DLT_FAM_NCCL},
		{"libcublasLt.so", DLT_FAM_CUBLASLT},
		{"libcublas.so", DLT_FAM_CUBLAS},
	};
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (strncmp(b, files[i].prefix, strlen(files[i].prefix)) == 0 &&
		    strstr(b, ".so"))
			return files[i].fam;
	return 0;
}

/* "12.4.127" into its parts; the number of parts read (at least 2 to
 * count as a version). */
static int dlt_parse_version(const char *s, int part[3])
{
	part[0] = part[1] = part[2] = 0;
	int n = 0;
	while (n < 3 && *s >= '0' && *s <= '9') {
		part[n++] = (int)strtol(s, (char **)&s, 10);
		if (*s != '.')
			break;
		s++;
	}
	return n;
}

/* A version in the family's own encoding (docs/library-facts.md). */
int64_t dlt_version_code(int fam, const int part[3])
{
	switch (fam) {
	case DLT_FAM_CUDART:
		return part[0] * 1000 + part[1] * 10;
	case DLT_FAM_CUDNN:
		return part[0] >= 9 ? part[0] * 10000 + part[1] * 100 + part[2]
				    : part[0] * 1000 + part[1] * 100 + part[2];
	case DLT_FAM_NCCL:
		return part[0] > 2 || (part[0] == 2 && part[1] >= 9)
			       ? part[0] * 10000 + part[1] * 100 + part[2]
			       : part[0] * 1000 + part[1] * 100 + part[2];
	case DLT_FAM_CUBLAS:
	case DLT_FAM_CUBLASLT:
		return part[0] * 10000 + part[1] * 100 + part[2];
	}
	return DLT_VERSION_ABSENT;
}

void dlt_versions_from_file(struct dlt_writer *w, const char *real)
{
	int fam = dlt_gpu_file_family(real);
	if (fam == 0)
		return;
	int64_t v[8];
	dlt_versions_absent(v);
	char kdrv[64] = "";
	int part[3];
	const char *b = strrchr(real, '/');
	b = b ? b + 1 : real;
	const char *suffix = strstr(b, ".so.");
	int n = suffix ? dlt_parse_version(suffix + 4, part) : 0;
	if (fam == DLT_FAM_CUDA) {
		/* libcuda.so.550.54.14: the driver's own version. */
		if (n >= 2)
			dlt_copy_str(kdrv, sizeof(kdrv), suffix + 4);
	} else if (n >= 2) {
		v[DLT_FV_VERSION] = dlt_version_code(fam, part);
	}
	if (fam == DLT_FAM_NCCL) {
		/* NCCL prints "NCCL version 2.28.9+cuda13.0" from a string in
		 * its read-only data; wheels ship it as libnccl.so.2. */
		char text[96];
		if (dlt_elf_section_string(real, ".rodata", "NCCL version ",
					   64u << 20, text,
					   sizeof(text)) == 0 &&
		    dlt_parse_version(text + 13, part) >= 2) {
			v[DLT_FV_VERSION] = dlt_version_code(fam, part);
			const char *cu = strstr(text, "+cuda");
			int cp[3];
			if (cu && dlt_parse_version(cu + 5, cp) >= 2)
				v[DLT_FV_NCCL_file_cuda_version] =
					dlt_version_code(DLT_FAM_CUDART, cp);
		}
	}
	if (v[DLT_FV_VERSION] == DLT_VERSION_ABSENT && kdrv[0] == '\0')
		return;
	dlt_family_write(w, fam, real, 0, DLT_FAMSRC_FILE, v, kdrv);
}
