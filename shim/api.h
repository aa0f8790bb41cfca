/* The wrappers of the GPU library functions of include/dltrace/apis.def
 * (api.c). */
#ifndef DLTRACE_API_H
#define DLTRACE_API_H

/* What to hand out instead of real, a pointer to function idx that the
 * program got by dlsym or cuGetProcAddress: the wrapper bound to it. */
void *dlt_substitute(int idx, void *real);

#endif
