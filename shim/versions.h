/* Versions of the GPU libraries in use (versions.c). */
#ifndef DLTRACE_VERSIONS_H
#define DLTRACE_VERSIONS_H

/* The first call to function idx from its library returned: record the
 * library's file and versions, once per library and family.  real is the
 * function that was called. */
void dlt_family_note(int idx, void *real);

/* The family a GPU library file belongs to by its name (libcudart.so.12,
 * libnccl.so.2 ...), 0 for none. */
int dlt_gpu_file_family(const char *path);

/* A GPU library was mapped (the audit module): the version its file says
 * (the suffix of its real name, NCCL's version string), if any, as a
 * LIB_FAMILY record of source FILE. */
struct dlt_writer;
void dlt_versions_from_file(struct dlt_writer *w, const char *real);

/* A point where every library loaded so far is initialised (a dlsym, the
 * next dlopen, exit, main's return): the GPU libraries loaded since the
 * last such point answer their pure version queries (LIB_FAMILY records
 * of source LOAD).  Cheap when nothing was loaded since. */
void dlt_versions_loaded(void);

#endif
