/* PYSTACK records summarised as text (pystacks.h). */
#include "pystacks.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pyframes.h"

void dlt_pystack_sum_of(const struct dlt_rec_pystack *r,
			struct dlt_pystack_sum *out)
{
	struct dlt_pyframe_view f[DLT_PYSTACK_KEEP];
	memset(out, 0, sizeof(*out));
	out->tid = r->tid;
	out->ts = r->h.ts;
	out->depth = r->depth;
	out->n = (uint32_t)dlt_pyframes(r, f, DLT_PYSTACK_KEEP);
	for (uint32_t i = 0; i < out->n; i++)
		dlt_pyframe_text(&f[i], out->frames[i], sizeof(out->frames[i]));
	dlt_pyframes_why(r, out->why, sizeof(out->why));
}

/* A frame of CPython's own library (".../lib/python3.11/threading.py"),
 * not of a package installed beside it. */
static int dlt_pystack_stdlib(const char *frame)
{
	return strstr(frame, "/lib/python3.") != NULL &&
	       strstr(frame, "-packages/") == NULL;
}

static void dlt_pystack_pick(const struct dlt_pystack_sum *s, bool own,
			     char *buf, size_t cap)
{
	buf[0] = '\0';
	if (s == NULL || s->n == 0)
		return;
	/* threading.py's wait says less than who called it. */
	const char *f = own ? NULL : s->frames[0];
	for (uint32_t i = 0; i < s->n; i++)
		if (!dlt_pystack_stdlib(s->frames[i]) &&
		    !(own && strstr(s->frames[i], "-packages/"))) {
			f = s->frames[i];
			break;
		}
	if (f == NULL)
		return;
	/* The directory ends at the last '/' before the ":line" (a
	 * function's name has no ':'; a path may). */
	const char *colon = strrchr(f, ':');
	const char *base = f;
	for (const char *p = f; *p && (colon == NULL || p < colon); p++)
		if (*p == '/')
			base = p + 1;
	snprintf(buf, cap, "%s", base);
}

void dlt_pystack_sum_top(const struct dlt_pystack_sum *s, char *buf, size_t cap)
{
	dlt_pystack_pick(s, false, buf, cap);
}

void dlt_pystack_sum_own(const struct dlt_pystack_sum *s, char *buf, size_t cap)
{
	dlt_pystack_pick(s, true, buf, cap);
}
