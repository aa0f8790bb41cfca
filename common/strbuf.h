/* Strings built into a fixed buffer without the printf family.  The
 * tracer names each trace file and the shim writes each child's
 * DLTRACE_PARENT on paths every short process takes; formatting there
 * maps pages of the C library (of each copy of it) that nothing else
 * touches then, a page fault each (docs/performance.md).  No allocation:
 * the shim calls this in vfork children and with the loader's lock
 * held. */
#ifndef DLTRACE_STRBUF_H
#define DLTRACE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct dlt_strbuf {
	char *buf;
	size_t cap; /* of buf, the terminating NUL included */
	size_t len;
	bool ok; /* everything appended so far fitted */
};

static inline void dlt_sb_init(struct dlt_strbuf *b, char *buf, size_t cap)
{
	b->buf = buf;
	b->cap = cap;
	b->len = 0;
	b->ok = cap > 0;
	if (cap > 0)
		buf[0] = '\0';
}

static inline void dlt_sb_mem(struct dlt_strbuf *b, const char *s, size_t l)
{
	if (!b->ok || b->len + l + 1 > b->cap) {
		b->ok = false;
		return;
	}
	memcpy(b->buf + b->len, s, l);
	b->len += l;
	b->buf[b->len] = '\0';
}

static inline void dlt_sb_str(struct dlt_strbuf *b, const char *s)
{
	dlt_sb_mem(b, s, strlen(s));
}

static inline void dlt_sb_char(struct dlt_strbuf *b, char c)
{
	dlt_sb_mem(b, &c, 1);
}

/* v in base 10 or 16 (lower case, no prefix). */
static inline void dlt_sb_uint(struct dlt_strbuf *b, uint64_t v, unsigned base)
{
	char t[24];
	size_t i = sizeof(t);
	do {
		t[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	dlt_sb_mem(b, t + i, sizeof(t) - i);
}

static inline void dlt_sb_int(struct dlt_strbuf *b, int64_t v)
{
	if (v < 0) {
		dlt_sb_char(b, '-');
		dlt_sb_uint(b, 0 - (uint64_t)v, 10);
	} else {
		dlt_sb_uint(b, (uint64_t)v, 10);
	}
}

/* 0 when the whole string fitted, else -1 (buf then holds a prefix). */
static inline int dlt_sb_done(const struct dlt_strbuf *b)
{
	return b->ok ? 0 : -1;
}

#endif
