/* What a GPU library's file says about its version, and the LIB_FAMILY
 * record (filever.c).  Compiled into libdltrace.so and into the LD_AUDIT
 * module, which records a GPU library's file version when it is mapped. */
#ifndef DLTRACE_FILEVER_H
#define DLTRACE_FILEVER_H

#include <stdint.h>

#include "dltrace/apivals.h"

struct dlt_writer;

/* A family's first slot is its version (apis.def): records made at load,
 * from the library or its file, fill that one. */
#define DLT_FV_VERSION 0

/* The family a GPU library file belongs to by its name (libcudart.so.12,
 * libnccl.so.2 ...), 0 for none. */
int dlt_gpu_file_family(const char *path);

/* A GPU library was mapped (the audit module): the version its file says
 * (the suffix of its real name, NCCL's version string), if any, as a
 * LIB_FAMILY record of source FILE. */
void dlt_versions_from_file(struct dlt_writer *w, const char *real);

/* A version in the family's own encoding (docs/library-facts.md). */
int64_t dlt_version_code(int fam, const int part[3]);

/* Every slot of a LIB_FAMILY's values absent. */
void dlt_versions_absent(int64_t v[8]);

/* A LIB_FAMILY record. */
void dlt_family_write(struct dlt_writer *w, int fam, const char *path,
		      uint32_t api, uint32_t source, const int64_t v[8],
		      const char *kdrv);

#endif
