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

/* ---- for people ---------------------------------------------------------
 * The text view of evidence shows values as people read them, chosen by
 * their keys (docs/findings.md, "Values in the text view"): X_unix_ns and
 * X_realtime_ns as wall-clock time with the zone and "+12.4 s after start",
 * X_offset_ns as "+12.4 s", other X_ns (X_us, X_ms) as durations, X_s as
 * seconds, X_kb and byte counts in KiB/MiB/GiB, each under the label X;
 * stacks a frame a line, innermost first, each shown once; a thread's wait
 * on one line.  check --json keeps the raw values. */

/* Where the moments of evidence count from: the start (ns since the
 * epoch) of the process a pid names, 0 when unknown; start_unix_ns for
 * members that name no pid (the finding's process, pid; 0 none). */
struct dlt_val_view {
	uint64_t pid;
	uint64_t start_unix_ns;
	uint64_t (*start_of)(void *arg, uint64_t pid);
	void *arg;
};

/* Members of an object as "key: value" lines, indented; nested objects and
 * arrays of objects one level deeper, values for people as above (view
 * NULL: no start known).  Untrusted strings are escaped. */
void dlt_val_text_view(FILE *out, const struct dlt_val *o, int indent,
		       const struct dlt_val_view *view);
void dlt_val_text(FILE *out, const struct dlt_val *o, int indent);

/* One frame of a stack as people read it, from any form the analyzer
 * writes: "libc.so.6!clock_nanosleep+0x65" (a stall's native stack),
 * "clock_nanosleep+0x65 (libc.so.6)" (a merged stack, a crash's frames),
 * "python3.11+0x5b50f8" or "python3.11+0x5b50f8 [no symbol covers it]"
 * (no symbol), "train.py:12 in step" (Python, as it is).  With offset, as
 * evidence shows it: "clock_nanosleep+0x65 (libc.so.6)", "python3.11+
 * 0x5b50f8 (no symbol)"; without, as prose (headlines, details) names it:
 * "clock_nanosleep (libc.so.6)", "python3.11 (no symbol)".  The frame is
 * raw's first len bytes (it may stand in a longer stack).  Returns buf. */
const char *dlt_frame_people(const char *raw, size_t len, bool offset,
			     char *buf, size_t cap);
/* The same of a whole string, without the offset: prose. */
const char *dlt_frame_prose(const char *raw, char *buf, size_t cap);
/* The string is one native frame in the analyzer's raw form
 * ("lib.so!func+0x12", "lib.so+0x1139"). */
bool dlt_frame_is_raw(const char *s, size_t len);

#endif
