/* The C functions the assembly entries of dl_x86_64.S call (dl.c). */
#ifndef DLTRACE_DL_H
#define DLTRACE_DL_H

/* dlopen: records the call and returns the real dlopen, which the entry
 * jumps to with the program's return address (caller) in place. */
void *dlt_dlopen_enter(const char *name, int mode, void *caller);
/* dlsym and dlvsym on a real handle: the real lookup, then a wrapper in
 * place of a wrapped function. */
void *dlt_dlsym_impl(void *handle, const char *name, void *caller);
void *dlt_dlvsym_impl(void *handle, const char *name, const char *version,
		      void *caller);
/* The real dlsym and dlvsym, for RTLD_DEFAULT and RTLD_NEXT lookups. */
void *dlt_dlsym_real(void);
void *dlt_dlvsym_real(void);

#endif
