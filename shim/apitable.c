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

/* Each function's recorded values as apis.def spells them, for the key of
 * its AGG rows (format 2.6).  The text in the table, not pointers to it: a
 * pointer is a relocation, and the page of relocations one more page fault
 * at every process's start. */
#define DLT_VALUES_MAX 48
static const struct {
	uint16_t id;
	char values[DLT_VALUES_MAX];
} dlt_api_values[DLT_API_N] = {
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	[DLT_IDX_##name] = {id, #values},
#include "dltrace/apis.def"
#undef DLT_API
};
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	_Static_assert(sizeof(#values) <= DLT_VALUES_MAX, #name "'s values");
#include "dltrace/apis.def"
#undef DLT_API

#define DLT_API_ID_MAX 256
/* By API id: 1 + the key's index, 0 none; made on the first ring chunk
 * summed up (a race makes the same bytes twice). */
static uint8_t dlt_key_ix[DLT_API_ID_MAX];
static _Atomic int dlt_key_ready;

/* The index of the value named name in "(a, b, c)", or -1. */
static int dlt_value_index(const char *list, const char *name)
{
	size_t n = strlen(name);
	int ix = 0;
	for (const char *p = list + 1; *p; p++) {
		if (*p == ',') {
			ix++;
			continue;
		}
		if ((p[-1] == '(' || p[-1] == ' ') &&
		    strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == ')'))
			return ix;
	}
	return -1;
}

int dlt_api_key_index(uint16_t id)
{
	if (!atomic_load_explicit(&dlt_key_ready, memory_order_acquire)) {
		for (int i = 0; i < DLT_API_N; i++) {
			const char *v = dlt_api_values[i].values;
			int k = dlt_value_index(v, "comm");
			if (k < 0)
				k = dlt_value_index(v, "stream");
			if (dlt_api_values[i].id < DLT_API_ID_MAX)
				dlt_key_ix[dlt_api_values[i].id] =
					(uint8_t)(k + 1);
		}
		atomic_store_explicit(&dlt_key_ready, 1, memory_order_release);
	}
	return id < DLT_API_ID_MAX ? dlt_key_ix[id] - 1 : -1;
}

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
