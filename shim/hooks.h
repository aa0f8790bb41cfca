/* The post hooks: dlt_post_<name>(ret, args...) runs after the real <name>
 * returned ret, for each function include/dltrace/apis.def flags DLT_AF_POST
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

/* The hook's parameters: the status the call returned, then the call's. */
#define DLT_HOOK_PARAMS_1(params) (int ret)
#define DLT_HOOK_PARAMS_0(params) (int ret, DLT_PP_UNPAREN params)
#define DLT_HOOK_PARAMS(params, args) \
	DLT_PP_CAT(DLT_HOOK_PARAMS_, DLT_PP_IS_EMPTY(args))(params)

#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	void dlt_post_##name DLT_HOOK_PARAMS(params, args);
#include "dltrace/apis.def"
#undef DLT_API

#endif
