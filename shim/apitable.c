#define _GNU_SOURCE
#include "apitable.h"

#include <stdio.h>
#include <string.h>

#include "dltrace/apirules.h"
#include "real.h"

/* Never called: compiled so that every build of the shim checks the rules
 * of apis.def (dltrace/apirules.h); it compiles to a bare return. */
__attribute__((used)) static void dlt_apis_checked(void)
{
	dlt_apis_def_rules();
}

const struct dlt_api_info dlt_apis[DLT_API_N] = {
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	[DLT_IDX_##name] = {id, DLT_FAM_##fam, (flags), #name},
#include "dltrace/apis.def"
#undef DLT_API
};

struct dlt_api_slot dlt_slots[DLT_API_N];

int dlt_api_lookup(const char *name)
{
	if (name == NULL)
		return -1;
	if (name[0] == 'p' && strncmp(name, "pnccl", 5) == 0)
		name++;
	if (name[0] != 'c' && name[0] != 'n')
		return -1;
	for (int i = 0; i < DLT_API_N; i++)
		if (strcmp(dlt_apis[i].name, name) == 0)
			return i;
	return -1;
}

static void *dlt_find_real(const char *name)
{
	void *p = dlt_real_lookup(name);
	if (p == NULL && strncmp(name, "nccl", 4) == 0) {
		/* ncclX are weak aliases of the exported pncclX. */
		char alt[128];
		snprintf(alt, sizeof(alt), "p%s", name);
		p = dlt_real_lookup(alt);
	}
	return p;
}

void *dlt_link_real_find(int idx)
{
	struct dlt_api_slot *s = &dlt_slots[idx];
	void *p = dlt_find_real(dlt_apis[idx].name);
	if (p)
		atomic_store_explicit(&s->link_real, p, memory_order_release);
	return p;
}

int dlt_missing(int fam)
{
	/* Only reached when a program calls a function whose library is not
	 * loaded (a weak reference): answer as that library would when a
	 * symbol is missing. */
	switch (fam) {
	case DLT_FAM_CUDART:
		return 500; /* cudaErrorSymbolNotFound */
	case DLT_FAM_CUDA:
		return 500; /* CUDA_ERROR_NOT_FOUND */
	case DLT_FAM_CUDNN:
		return 4000; /* CUDNN_STATUS_INTERNAL_ERROR (9.x) */
	default:
		return 3; /* ncclInternalError */
	}
}
