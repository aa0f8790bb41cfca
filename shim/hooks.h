/* The post hooks: dlt_post_<name>(args...) runs after the real <name>
 * returned, for each function include/dltrace/apis.def flags DLT_AF_POST
 * (api.c calls them; cudnn.c, cudnn_backend.c and api.c define them).  The
 * prototypes are generated from the table, so a hook whose parameters are
 * not the function's does not compile, and a hook for a function that is
 * not flagged has no prototype (-Wmissing-prototypes). */
#ifndef DLTRACE_HOOKS_H
#define DLTRACE_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "apitable.h"
#include "state.h"

#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	void dlt_post_##name params;
#include "dltrace/apis.def"
#undef DLT_API

#endif
