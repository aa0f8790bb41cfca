/* Symbol lookup in loaded objects that leaves dlerror() state alone. */
#ifndef DLTRACE_SYMLOOKUP_H
#define DLTRACE_SYMLOOKUP_H

#include <stdint.h>

struct dlt_sym_where {
	uintptr_t base;	  /* load bias of the object that defines it */
	const char *name; /* its path as the loader knows it */
};

/* The first definition of name in load order, skipping the object loaded at
 * skip_base and objects whose file name is skip_name; NULL if none. */
void *dlt_sym_find(const char *name, uintptr_t skip_base, const char *skip_name,
		   struct dlt_sym_where *where);

/* What dlsym(RTLD_NEXT, name) called from the object named self_name
 * should find, whatever the C library's version: the default version of
 * name in the first object after self_name in load order.  (glibc before
 * 2.35 gave dlsym an unversioned name's oldest version: the 2.2.5
 * posix_spawn, which runs a script without "#!" with /bin/sh.) */
void *dlt_sym_next(const char *name, const char *self_name);

/* The definition of name in the object loaded at base, or NULL. */
void *dlt_sym_find_in(uintptr_t base, const char *name);

/* The load bias of the first loaded object whose file name starts with
 * prefix ("libcudnn_ops.so"); 0, or -1 when none is loaded. */
int dlt_obj_find(const char *prefix, uintptr_t *base);

#endif
