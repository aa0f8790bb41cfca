#define _GNU_SOURCE
#include "real.h"

#include <dlfcn.h>

#include "state.h"
#include "symlookup.h"

struct dlt_real dlt_real;

/* The default version of each function, as a call by name would bind:
 * dlsym.  Not a fixed version list: posix_spawn@GLIBC_2.2.5 is a
 * compatibility version that runs a script without "#!" through /bin/sh,
 * where the current one fails with ENOEXEC.  The dl* functions moved into
 * libc in glibc 2.34 (GLIBC_2.34) from libdl (GLIBC_2.2.5 on x86-64,
 * GLIBC_2.17 on aarch64): whichever the loader finds next is the one the
 * program would have called. */
static void *dlt_next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

void *dlt_real_find(const char *name)
{
	/* Not dlvsym while the program runs: a successful one clears a
	 * dlerror() message the program has not read yet. */
	void *p = dlt_sym_find_next(name, dlt_self_name());
	return p ? p : dlt_next(name);
}

void *dlt_real_lookup(const char *name)
{
	return dlt_sym_find(name, 0, dlt_self_name(), NULL);
}
