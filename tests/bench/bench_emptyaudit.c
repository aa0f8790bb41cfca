/* The floor of dltrace's way in: an LD_AUDIT module that does nothing,
 * used as the LD_PRELOAD library as well.  What a short process pays with
 * this pair in both variables is the price of having the loader audit and
 * preload at all, before anything is recorded (scripts/bench.sh, the
 * start-up rows).  Built twice: as it is, it needs no C library; with
 * -DBENCH_LIBC it calls one function of it, so the loader maps a second C
 * library into the audit namespace, as it does for libdltrace.so. */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef BENCH_LIBC
static const char *volatile bench_env;
#endif

unsigned int la_version(unsigned int version)
{
#ifdef BENCH_LIBC
	bench_env = getenv("DLTRACE_DIR");
#endif
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	(void)flag;
	return (char *)name;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)map;
	(void)lmid;
	(void)cookie;
	return 0;
}
