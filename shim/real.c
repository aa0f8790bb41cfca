#define _GNU_SOURCE
#include "real.h"

#include "state.h"
#include "hot.h"
#include "symlookup.h"

DLT_HOT struct dlt_real dlt_real;

/* The default version of each function in the objects after this one, as
 * a call by name from here would bind.  Neither a fixed version list nor
 * dlsym: posix_spawn@GLIBC_2.2.5 is a compatibility version that runs a
 * script without "#!" with /bin/sh where the current one fails with
 * ENOEXEC, and before glibc 2.35 dlsym(RTLD_NEXT) returned it.  The dl*
 * functions are found wherever they are (libdl before glibc 2.34, which
 * this library links, libc after).  Found on first use, while the program
 * runs: with a walk of the symbol tables, not dlsym, whose success would
 * clear a dlerror() message the program has not read yet. */
void *dlt_real_find(const char *name)
{
	return dlt_sym_next(name, dlt_self_name());
}

void *dlt_real_lookup(const char *name)
{
	return dlt_sym_find(name, 0, dlt_self_name(), NULL);
}
