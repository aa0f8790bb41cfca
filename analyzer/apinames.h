/* Names of the interposed functions and of the values their records carry,
 * generated from include/dltrace/apis.def. */
#ifndef DLTRACE_APINAMES_H
#define DLTRACE_APINAMES_H

#include <stddef.h>
#include <stdint.h>

struct dlt_api_desc {
	uint16_t id;
	uint8_t family; /* enum dlt_family */
	uint8_t enter;	/* writes API_ENTER before the call */
	uint8_t once;	/* ... as one API_CALL closed in place (format 1.2) */
	const char *name;
	const char *labels; /* comma-separated names of the values */
};

/* The API with this id, or NULL (a newer dltrace's API). */
const struct dlt_api_desc *dlt_api_by_id(uint16_t id);
/* The API with this name, or NULL. */
const struct dlt_api_desc *dlt_api_by_name(const char *name);
const char *dlt_family_name(int family);
/* Copies the i-th label of an API into buf ("" past the last). */
const char *dlt_api_label(const struct dlt_api_desc *a, size_t i, char *buf,
			  size_t cap);
/* Labels of values that are addresses or hashes (shown in hex). */
int dlt_label_is_handle(const char *label);
/* Decodes API_CALL.dur into nanoseconds. */
uint64_t dlt_dur_ns(uint32_t dur);

#endif
