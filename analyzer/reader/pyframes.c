/* Reading PYSTACK records: the frames after the fixed part, then their
 * texts, each frame's file and function back to back. */
#include "pyframes.h"

#include <inttypes.h>
#include <stdio.h>

size_t dlt_pyframes(const struct dlt_rec_pystack *r,
		    struct dlt_pyframe_view *out, size_t cap)
{
	uint64_t len = r->h.len;
	uint64_t text = sizeof(*r) + (uint64_t)r->n * sizeof(r->frames[0]);
	if (text > len)
		return 0;
	const char *base = (const char *)r;
	size_t k = 0;
	for (uint32_t i = 0; i < r->n && k < cap; i++) {
		const struct dlt_pyframe *f = &r->frames[i];
		/* Bit 15 of func_len is a flag (2.4), not length. */
		uint16_t func_len = f->func_len & DLT_PYFRAME_LEN;
		uint64_t end = text + f->file_len + func_len;
		if (end > len)
			break;
		out[k].file = base + text;
		out[k].file_len = f->file_len;
		out[k].func = base + text + f->file_len;
		out[k].func_len = func_len;
		out[k].line = f->line;
		out[k].entry = (f->func_len & DLT_PYFRAME_ENTRY) != 0;
		k++;
		text = end;
	}
	return k;
}

void dlt_pyframe_text(const struct dlt_pyframe_view *f, char *buf, size_t cap)
{
	if (f->line >= 0)
		snprintf(buf, cap, "%.*s:%" PRId32 " in %.*s", (int)f->file_len,
			 f->file, f->line, (int)f->func_len, f->func);
	else
		snprintf(buf, cap, "%.*s:? in %.*s", (int)f->file_len, f->file,
			 (int)f->func_len, f->func);
}

void dlt_pyframes_why(const struct dlt_rec_pystack *r, char *buf, size_t cap)
{
	unsigned major = r->py_version >> 24,
		 minor = (r->py_version >> 16) & 0xff;
	switch (r->reason) {
	case DLT_PYSTACK_OK:
		buf[0] = '\0';
		break;
	case DLT_PYSTACK_NO_PYTHON:
		snprintf(buf, cap, "no Python interpreter in this process");
		break;
	case DLT_PYSTACK_VERSION:
		if (r->py_version)
			snprintf(buf, cap, "CPython %u.%u: not supported",
				 major, minor);
		else
			snprintf(buf, cap,
				 "Python of unknown version: not "
				 "supported");
		break;
	case DLT_PYSTACK_NO_THREAD:
		snprintf(buf, cap, "thread runs no Python code");
		break;
	case DLT_PYSTACK_UNREADABLE:
		snprintf(buf, cap, "frame memory unreadable at 0x%" PRIx64,
			 r->addr);
		break;
	case DLT_PYSTACK_NOT_STARTED:
		snprintf(buf, cap, "Python interpreter not initialised");
		break;
	case DLT_PYSTACK_FREE_THREADED:
		snprintf(buf, cap, "free-threaded CPython %u.%u: not supported",
			 major, minor);
		break;
	case DLT_PYSTACK_LAYOUT:
		snprintf(buf, cap,
			 "CPython %u.%u: its debug offsets differ from "
			 "dltrace's table",
			 major, minor);
		break;
	case DLT_PYSTACK_NOT_PREPARED:
		snprintf(buf, cap,
			 "interpreter not looked for before the "
			 "signal");
		break;
	default:
		snprintf(buf, cap, "unknown reason %u", (unsigned)r->reason);
	}
}
