/* A small streaming JSON writer.
 *
 * The writer keeps track of nesting and commas so that callers only say what
 * comes next.  Every string goes through full escaping and UTF-8 validation:
 * trace strings are whatever bytes the traced program had (paths, argv, error
 * texts), and the output must stay valid JSON whatever they are. */
#ifndef DLTRACE_JSON_H
#define DLTRACE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DLT_JSON_MAX_DEPTH 64

struct dlt_json {
	FILE *out;
	bool pretty;
	bool after_key; /* a key was written, its value comes next */
	bool top_done;	/* the single top-level value was written */
	bool misuse;	/* calls out of order: the output is not valid */
	int depth;
	char kind[DLT_JSON_MAX_DEPTH];	  /* '{' or '[' per open level */
	bool members[DLT_JSON_MAX_DEPTH]; /* level has a member: comma next */
};

/* pretty: one member per line, indented by two spaces per level. */
void dlt_json_init(struct dlt_json *j, FILE *out, bool pretty);

void dlt_json_object_begin(struct dlt_json *j);
void dlt_json_object_end(struct dlt_json *j);
void dlt_json_array_begin(struct dlt_json *j);
void dlt_json_array_end(struct dlt_json *j);

/* The key of the next member of the current object. */
void dlt_json_key(struct dlt_json *j, const char *key);

/* A string value; NULL writes null. */
void dlt_json_string(struct dlt_json *j, const char *s);
/* n bytes of s, NUL bytes included; NULL writes null. */
void dlt_json_string_n(struct dlt_json *j, const char *s, size_t n);
void dlt_json_int(struct dlt_json *j, int64_t v);
void dlt_json_uint(struct dlt_json *j, uint64_t v);
/* A finite number with 6 significant digits; NaN and infinities as null. */
void dlt_json_double(struct dlt_json *j, double v);
/* The same with 15 significant digits: timestamps in microseconds. */
void dlt_json_double_fine(struct dlt_json *j, double v);
void dlt_json_bool(struct dlt_json *j, bool v);
void dlt_json_null(struct dlt_json *j);

/* Key and value in one call. */
void dlt_json_kv_string(struct dlt_json *j, const char *key, const char *s);
void dlt_json_kv_int(struct dlt_json *j, const char *key, int64_t v);
void dlt_json_kv_uint(struct dlt_json *j, const char *key, uint64_t v);
void dlt_json_kv_double(struct dlt_json *j, const char *key, double v);
void dlt_json_kv_double_fine(struct dlt_json *j, const char *key, double v);
void dlt_json_kv_bool(struct dlt_json *j, const char *key, bool v);
void dlt_json_kv_null(struct dlt_json *j, const char *key);

/* Ends the document with a newline and flushes.  Returns 0, or -1 if the
 * calls did not form one complete value or the stream had a write error. */
int dlt_json_finish(struct dlt_json *j);

#endif
