/* Objects with a static CUDA runtime (staticrt.c). */
#ifndef DLTRACE_STATICRT_H
#define DLTRACE_STATICRT_H

/* The object holding caller fetched the CUDA driver itself (what: the
 * library or function it asked for): it carries a static CUDA runtime.
 * Writes STATIC_RUNTIME once per object. */
void dlt_static_runtime(const char *what, void *caller);

#endif
