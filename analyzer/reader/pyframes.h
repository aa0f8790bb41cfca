/* The frames of a PYSTACK record (format.h), checked against the record's
 * length, and the words that say why a stack could not be read. */
#ifndef DLTRACE_PYFRAMES_H
#define DLTRACE_PYFRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "dltrace/format.h"

/* One frame; file and func point into the record (not NUL-terminated).
 * entry: C entered it (DLT_PYFRAME_ENTRY, format 2.4; 0 in older traces):
 * the first frame a native call of the evaluation loop ran, the last of
 * that call's run of frames in a stack listed innermost first. */
struct dlt_pyframe_view {
	const char *file, *func;
	uint16_t file_len, func_len; /* func_len without the entry bit */
	int32_t line;		     /* -1 unknown */
	uint8_t entry;
};

/* Up to cap frames of r (a record of h.len bytes) into out, innermost
 * first; how many.  Frames whose text lies past the record's end are not
 * returned. */
size_t dlt_pyframes(const struct dlt_rec_pystack *r,
		    struct dlt_pyframe_view *out, size_t cap);

/* "file:line in function" (":?" for an unknown line). */
void dlt_pyframe_text(const struct dlt_pyframe_view *f, char *buf, size_t cap);

/* Why r holds no stack, or stops early: "" for a complete one, else
 * "no Python interpreter in this process", "CPython 3.7: not supported",
 * "thread runs no Python code", "frame memory unreadable at 0x..." ... */
void dlt_pyframes_why(const struct dlt_rec_pystack *r, char *buf, size_t cap);

#endif
