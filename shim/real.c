#define _GNU_SOURCE
#include "real.h"

#include <dlfcn.h>

#include "state.h"
#include "symlookup.h"

struct dlt_real dlt_real;

/* glibc >= 2.34 moved the dl* functions into libc under GLIBC_2.34;
 * older ones have them at GLIBC_2.2.5 (x86-64). */
static void *dlt_next(const char *name)
{
	static const char *const vers[] = {"GLIBC_2.34", "GLIBC_2.2.5", NULL};
	for (const char *const *v = vers; *v; v++) {
		void *p = dlvsym(RTLD_NEXT, name, *v);
		if (p)
			return p;
	}
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
