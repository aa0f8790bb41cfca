/* Versions of the GPU libraries in use (versions.c). */
#ifndef DLTRACE_VERSIONS_H
#define DLTRACE_VERSIONS_H

/* The first call to function idx from its library returned: record the
 * library's file and versions, once per library and family.  real is the
 * function that was called. */
void dlt_family_note(int idx, void *real);

/* The family of a file and its version as the file says it: filever.h. */
#include "filever.h"

/* A point where every library loaded so far is initialised (a dlsym, the
 * next dlopen, exit, main's return): the GPU libraries loaded since the
 * last such point answer their pure version queries (LIB_FAMILY records
 * of source LOAD).  Cheap when nothing was loaded since. */
void dlt_versions_loaded(void);

#endif
