#define _GNU_SOURCE
#include "demangle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*dlt_cxa_demangle_fn)(const char *, char *, size_t *, int *);

static dlt_cxa_demangle_fn dlt_cxa_demangle;
static pthread_once_t dlt_demangle_once = PTHREAD_ONCE_INIT;

static void dlt_demangle_load(void)
{
	/* Never closed: the function is used for the life of the process. */
	void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	if (h)
		dlt_cxa_demangle =
			(dlt_cxa_demangle_fn)dlsym(h, "__cxa_demangle");
}

/* Where the parameter list of a demangled function name starts: the '('
 * matching its last ')', the qualifiers after it (" const") allowed.
 * NULL when it has none (a variable, a name cut). */
static char *dlt_demangle_params(char *d)
{
	char *close = strrchr(d, ')');
	if (close == NULL)
		return NULL;
	int depth = 0;
	for (char *p = close; p >= d; p--) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && --depth == 0)
			/* "(anonymous namespace)" is a name, not parameters. */
			return p == d ? NULL : p;
	}
	return NULL;
}

int dlt_demangle(const char *name, int params, char *out, size_t cap)
{
	if (cap == 0)
		return -1;
	snprintf(out, cap, "%s", name);
	if (strncmp(name, "_Z", 2) != 0)
		return -1;
	pthread_once(&dlt_demangle_once, dlt_demangle_load);
	if (dlt_cxa_demangle == NULL)
		return -1;
	int st = 0;
	char *d = dlt_cxa_demangle(name, NULL, NULL, &st);
	if (d == NULL || st != 0) {
		free(d);
		return -1;
	}
	if (!params) {
		char *p = dlt_demangle_params(d);
		if (p)
			*p = '\0';
	}
	snprintf(out, cap, "%s", d);
	free(d);
	return 0;
}
