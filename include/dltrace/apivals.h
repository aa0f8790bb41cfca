/* Names for the values of include/dltrace/apis.def, as Darshan's log
 * format headers name their counters: one list, from which an index enum
 * per interposed function and per LIB_FAMILY family is generated, so that
 * no reader picks a value by its position.
 *
 *   r->v[DLT_V_ncclCommInitRank_id_hash]   the id hash of an init's record
 *   DLT_NV_ncclCommInitRank                how many values it records
 *   f->v[DLT_FV_CUDNN_cudart_version]      a LIB_FAMILY slot
 *
 * The names as strings are the analyzer's (analyzer/reader/apinames.h). */
#ifndef DLTRACE_APIVALS_H
#define DLTRACE_APIVALS_H

#include "apiflags.h"

#define DLT_V_ENUM_(api, value) DLT_V_##api##_##value,
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	enum { DLT_EACH_VALUE(DLT_V_ENUM_, name, values) DLT_NV_##name };
#include "apis.def"
#undef DLT_API
#undef DLT_V_ENUM_

#define DLT_FAMILY_SLOT(family, index, name) \
	enum { DLT_FV_##family##_##name = index };
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post)
#include "apis.def"
#undef DLT_API
#undef DLT_FAMILY_SLOT

#endif
