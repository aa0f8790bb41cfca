/* Names and roles of the interposed functions and of the values their
 * records carry, generated from include/dltrace/apis.def. */
#ifndef DLTRACE_APINAMES_H
#define DLTRACE_APINAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dltrace/apivals.h"

/* The values roles promise (DLT_ROLE_VALUES of dltrace/apiflags.h):
 * DLT_RV_COMM_INIT_nranks ... */
enum dlt_role_value {
#define DLT_X(role, value, required) DLT_RV_##role##_##value,
	DLT_ROLE_VALUES(DLT_X)
#undef DLT_X
		DLT_RV_COUNT
};

struct dlt_api_desc {
	uint16_t id;
	uint8_t family; /* enum dlt_family */
	uint8_t enter;	/* writes API_ENTER before the call */
	uint8_t once;	/* ... as one API_CALL closed in place (format 1.2) */
	uint8_t nvalues;
	uint32_t roles; /* DLT_ROLE_* */
	const char *name;
	const char *const *values; /* nvalues names, in record order */
	/* Per role value: its index in the record, -1 when the API has
	 * none. */
	int8_t rv[DLT_RV_COUNT];
};

/* The API with this id, or NULL (a newer dltrace's API). */
const struct dlt_api_desc *dlt_api_by_id(uint16_t id);
/* The API with this name, or NULL. */
const struct dlt_api_desc *dlt_api_by_name(const char *name);
/* The roles of an API id (0 for an unknown one). */
uint32_t dlt_api_roles(uint16_t id);
const char *dlt_family_name(int family);
/* The name of an API's i-th value, or NULL past the last. */
const char *dlt_api_value_name(const struct dlt_api_desc *a, size_t i);
/* The same, or "v<i>" for a value the table does not name (an API or a
 * value of a newer dltrace). */
const char *dlt_api_value_label(const struct dlt_api_desc *a, size_t i,
				char *buf, size_t cap);
/* A role value of a record of API a carrying nv values v[]: true with
 * *out when the API has that value and the record carries it. */
bool dlt_role_val(const struct dlt_api_desc *a, enum dlt_role_value rv,
		  const uint64_t *v, size_t nv, uint64_t *out);
/* Every API with a role has the values the role requires: NULL, or what
 * is wrong (for the unit test). */
const char *dlt_api_check_roles(char *buf, size_t cap);
/* The name of slot i of a LIB_FAMILY record's v[] ("runtime_version"),
 * or NULL for a slot the family does not use. */
const char *dlt_family_slot_name(int family, size_t i);
/* Values that are addresses or hashes (shown in hex). */
int dlt_label_is_handle(const char *label);

#endif
