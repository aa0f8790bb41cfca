/* The rules of include/dltrace/apis.def (its header comment), enforced by
 * the compiler wherever this is compiled: the shim (apitable.c) and
 * tests/test_gpu_abi.c.
 *
 *   - no two functions share an id (a duplicate case label);
 *   - values and post name the same number of values, at most 8;
 *   - pre is written only for DLT_AF_ENTER functions, and is the first
 *     values of post: as many or fewer, and the same text;
 *   - DLT_AF_NORECORD only with DLT_AF_POST (its hook writes the record).
 *
 * The counts are _Static_asserts.  C has no constant comparison of
 * strings for those, so the text of pre against post is compared in
 * dlt_apis_def_rules(): the comparison of two string literals is folded at
 * every optimisation level, and the call to a function declared with the
 * error attribute is left, and fails the compile, only where the texts
 * differ. */
#ifndef DLTRACE_APIRULES_H
#define DLTRACE_APIRULES_H

#include "apiflags.h"

/* The list is unparenthesised, and expanded, before it is counted: an
 * empty one must reach DLT_PP_NARGS as nothing. */
#define DLT_APIS_NVALS_(...) DLT_PP_NARGS(__VA_ARGS__)
#define DLT_APIS_NVALS(list) DLT_APIS_NVALS_(DLT_PP_UNPAREN list)

#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	_Static_assert(DLT_APIS_NVALS(values) == DLT_APIS_NVALS(post),        \
		       "apis.def: " #name                                     \
		       ": values and post differ in count");                  \
	_Static_assert(DLT_APIS_NVALS(post) <= 8,                             \
		       "apis.def: " #name ": more than 8 values");            \
	_Static_assert(DLT_APIS_NVALS(pre) <= DLT_APIS_NVALS(post),           \
		       "apis.def: " #name ": pre is longer than post");       \
	_Static_assert(((flags)&DLT_AF_ENTER) || DLT_APIS_NVALS(pre) == 0,    \
		       "apis.def: " #name ": pre without DLT_AF_ENTER");      \
	_Static_assert(!((flags)&DLT_AF_NORECORD) || ((flags)&DLT_AF_POST),   \
		       "apis.def: " #name ": DLT_AF_NORECORD without a hook");
#include "apis.def"
#undef DLT_API

void dlt_apis_def_broken(void)
	__attribute__((error("apis.def: pre is not the start of post")));

/* "(a, b)" starts "(a, b, c)": the text of pre but its ")" begins post,
 * and post goes on with "," or ")".  "()" starts everything. */
#define DLT_APIS_PREFIX(pre, post)                                     \
	(sizeof(#pre) == 3 ||                                          \
	 (sizeof(#pre) <= sizeof(#post) &&                             \
	  __builtin_strncmp(#pre, #post, sizeof(#pre) - 2) == 0 &&     \
	  (__builtin_strncmp(&#post[sizeof(#pre) - 2], ",", 1) == 0 || \
	   __builtin_strncmp(&#post[sizeof(#pre) - 2], ")", 1) == 0)))

/* Ids: a duplicate is a duplicate case label. */
static inline int dlt_apis_def_id_known(int id)
{
	switch (id) {
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	case id:
#include "apis.def"
#undef DLT_API
		return 1;
	}
	return 0;
}

/* Called by the shim and the test, so that it is compiled into code. */
static inline void dlt_apis_def_rules(void)
{
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	if (!DLT_APIS_PREFIX(pre, post))                                      \
		dlt_apis_def_broken();
#include "apis.def"
#undef DLT_API
}

#endif
