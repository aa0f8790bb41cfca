#include "apinames.h"

#include <stdio.h>
#include <string.h>

#include "dltrace/format.h"

/* The names of each API's values, in record order. */
#define DLT_V_NAME_(api, value) #value,
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	static const char *const dlt_values_##name[] = {                      \
		DLT_EACH_VALUE(DLT_V_NAME_, name, values) NULL};
#include "dltrace/apis.def"
#undef DLT_API
#undef DLT_V_NAME_

/* Only names, values and roles are used here; the parameter lists are not
 * expanded.  The role value indexes are filled in at the first lookup. */
static struct dlt_api_desc dlt_api_table[] = {
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post) \
	{id,                                                                  \
	 DLT_FAM_##fam,                                                       \
	 ((flags)&DLT_AF_ENTER) != 0,                                         \
	 DLT_API_ONCE(flags, pre, post),                                      \
	 DLT_NV_##name,                                                       \
	 roles,                                                               \
	 #name,                                                               \
	 dlt_values_##name,                                                   \
	 {0}},
#include "dltrace/apis.def"
#undef DLT_API
};

#define DLT_NAPIS (sizeof(dlt_api_table) / sizeof(dlt_api_table[0]))

static const struct {
	uint32_t role;
	const char *value;
	bool required;
} dlt_role_values[DLT_RV_COUNT] = {
#define DLT_X(role, value, required) {DLT_ROLE_##role, #value, required},
	DLT_ROLE_VALUES(DLT_X)
#undef DLT_X
};

/* Every record of a trace asks for its API: an index by id, built once
 * (ids are small numbers; ones above the index are searched). */
#define DLT_API_INDEX 1024
static int16_t dlt_api_index[DLT_API_INDEX];

static void dlt_api_init(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	for (size_t i = 0; i < DLT_NAPIS; i++) {
		struct dlt_api_desc *a = &dlt_api_table[i];
		if (a->id < DLT_API_INDEX)
			dlt_api_index[a->id] = (int16_t)(i + 1);
		for (size_t r = 0; r < DLT_RV_COUNT; r++) {
			a->rv[r] = -1;
			if (!(a->roles & dlt_role_values[r].role))
				continue;
			for (size_t k = 0; k < a->nvalues; k++)
				if (strcmp(a->values[k],
					   dlt_role_values[r].value) == 0)
					a->rv[r] = (int8_t)k;
		}
	}
}

const struct dlt_api_desc *dlt_api_by_id(uint16_t id)
{
	dlt_api_init();
	if (id < DLT_API_INDEX)
		return dlt_api_index[id] ? &dlt_api_table[dlt_api_index[id] - 1]
					 : NULL;
	for (size_t i = 0; i < DLT_NAPIS; i++)
		if (dlt_api_table[i].id == id)
			return &dlt_api_table[i];
	return NULL;
}

const struct dlt_api_desc *dlt_api_by_name(const char *name)
{
	dlt_api_init();
	for (size_t i = 0; i < DLT_NAPIS; i++)
		if (strcmp(dlt_api_table[i].name, name) == 0)
			return &dlt_api_table[i];
	return NULL;
}

uint32_t dlt_api_roles(uint16_t id)
{
	const struct dlt_api_desc *a = dlt_api_by_id(id);
	return a ? a->roles : 0;
}

const char *dlt_family_name(int family)
{
	switch (family) {
	case DLT_FAM_CUDART:
		return "cudart";
	case DLT_FAM_CUDA:
		return "cuda-driver";
	case DLT_FAM_CUDNN:
		return "cudnn";
	case DLT_FAM_NCCL:
		return "nccl";
	case DLT_FAM_CUBLAS:
		return "cublas";
	case DLT_FAM_CUBLASLT:
		return "cublaslt";
	default:
		return "unknown";
	}
}

const char *dlt_api_value_name(const struct dlt_api_desc *a, size_t i)
{
	return a && i < a->nvalues ? a->values[i] : NULL;
}

const char *dlt_api_value_label(const struct dlt_api_desc *a, size_t i,
				char *buf, size_t cap)
{
	const char *n = dlt_api_value_name(a, i);
	if (n)
		return n;
	snprintf(buf, cap, "v%zu", i);
	return buf;
}

bool dlt_role_val(const struct dlt_api_desc *a, enum dlt_role_value rv,
		  const uint64_t *v, size_t nv, uint64_t *out)
{
	if (a == NULL || rv >= DLT_RV_COUNT || a->rv[rv] < 0 ||
	    (size_t)a->rv[rv] >= nv)
		return false;
	*out = v[a->rv[rv]];
	return true;
}

const char *dlt_api_check_roles(char *buf, size_t cap)
{
	dlt_api_init();
	for (size_t i = 0; i < DLT_NAPIS; i++) {
		const struct dlt_api_desc *a = &dlt_api_table[i];
		for (size_t r = 0; r < DLT_RV_COUNT; r++) {
			if ((a->roles & dlt_role_values[r].role) &&
			    dlt_role_values[r].required && a->rv[r] < 0) {
				snprintf(buf, cap,
					 "%s has a role that promises the "
					 "value %s, and records none",
					 a->name, dlt_role_values[r].value);
				return buf;
			}
		}
	}
	return NULL;
}

const char *dlt_family_slot_name(int family, size_t i)
{
	static const struct {
		int family;
		size_t index;
		const char *name;
	} slots[] = {
#define DLT_FAMILY_SLOT(family, index, name) {DLT_FAM_##family, index, #name},
#define DLT_API(id, fam, name, params, args, flags, roles, values, pre, post)
#include "dltrace/apis.def"
#undef DLT_API
#undef DLT_FAMILY_SLOT
	};
	for (size_t k = 0; k < sizeof(slots) / sizeof(slots[0]); k++)
		if (slots[k].family == family && slots[k].index == i)
			return slots[k].name;
	return NULL;
}

int dlt_label_is_handle(const char *label)
{
	static const char *const names[] = {"ptr",     "func",	 "comm",
					    "newcomm", "stream", "event",
					    "handle",  "plan",	 "desc"};
	if (strstr(label, "hash"))
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(label, names[i]) == 0)
			return 1;
	return 0;
}
