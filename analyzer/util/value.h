/* A small tree of JSON-like values, built in an arena: the evidence of a
 * finding, written out either as JSON (check --json) or as indented text.
 *
 * Building never fails (memory that cannot be had ends the program, as
 * everywhere in the analyzer), and every function accepts a NULL container
 * and then does nothing, so rules can build evidence without checks. */
#ifndef DLTRACE_VALUE_H
#define DLTRACE_VALUE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "mem.h"
#include "text.h"

enum dlt_val_type {
	DLT_V_NULL,
	DLT_V_BOOL,
	DLT_V_INT,
	DLT_V_UINT,
	DLT_V_DOUBLE,
	DLT_V_STR,
	DLT_V_ARR,
	DLT_V_OBJ,
};

struct dlt_val {
	enum dlt_val_type type;
	union {
		bool b;
		int64_t i;
		uint64_t u;
		double d;
		const char *s;
	} as;
	const char *key;       /* as a member of an object */
	struct dlt_val *first; /* ARR, OBJ: children in order */
	struct dlt_val *last;
	struct dlt_val *next; /* next sibling */
	struct dlt_arena_blk **arena;
	size_t n; /* ARR, OBJ: children */
};

/* A new empty object (or array) whose children live in *arena. */
struct dlt_val *dlt_val_object(struct dlt_arena_blk **arena);
struct dlt_val *dlt_val_array(struct dlt_arena_blk **arena);

/* Members of an object.  Strings are copied; NULL writes null. */
void dlt_obj_str(struct dlt_val *o, const char *key, const char *s);
void dlt_obj_strf(struct dlt_val *o, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void dlt_obj_int(struct dlt_val *o, const char *key, int64_t v);
void dlt_obj_uint(struct dlt_val *o, const char *key, uint64_t v);
void dlt_obj_double(struct dlt_val *o, const char *key, double v);
void dlt_obj_bool(struct dlt_val *o, const char *key, bool v);
void dlt_obj_null(struct dlt_val *o, const char *key);
struct dlt_val *dlt_obj_array(struct dlt_val *o, const char *key);
struct dlt_val *dlt_obj_object(struct dlt_val *o, const char *key);

/* Elements of an array. */
void dlt_arr_str(struct dlt_val *a, const char *s);
void dlt_arr_int(struct dlt_val *a, int64_t v);
struct dlt_val *dlt_arr_object(struct dlt_val *a);

/* The member of an object with this key, or NULL. */
const struct dlt_val *dlt_val_get(const struct dlt_val *o, const char *key);

void dlt_val_json(struct dlt_json *j, const struct dlt_val *v);
/* Members of an object as "key: value" lines, indented; nested objects and
 * arrays of objects one level deeper.  Untrusted strings are escaped. */
void dlt_val_text(FILE *out, const struct dlt_val *o, int indent);

#endif
