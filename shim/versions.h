/* Versions of the GPU libraries in use (versions.c). */
#ifndef DLTRACE_VERSIONS_H
#define DLTRACE_VERSIONS_H

/* The first call to function idx from its library returned: record the
 * library's file and versions, once per library and family.  real is the
 * function that was called. */
void dlt_family_note(int idx, void *real);

#endif
