/* The PYSTACK record: the walk writes into the reserved record itself, so
 * that a signal handler needs no buffer of 16 KiB on its stack. */
#include "pyrecord.h"

#include <errno.h>
#include <string.h>

#include "clock.h"
#include "record.h"

int dlt_pyrecord_write(struct dlt_writer *w, struct dlt_tls *t,
		       const struct dlt_pyinterp *pi, pid_t tid, uint64_t ts,
		       uint16_t flags)
{
	if (w == NULL)
		return -1;
	int saved = errno;
	const uint32_t cap = (uint32_t)DLT_PYSTACK_REC_MAX;
	struct dlt_rec_pystack *r = dlt_rec_reserve(w, t, cap);
	if (r == NULL) {
		errno = saved;
		return -1;
	}
	char *text = (char *)&r->frames[DLT_PYSTACK_MAX_FRAMES];
	size_t used = dlt_pywalk_read(pi, (uint32_t)tid, r, text);
	/* When the stack had been read. */
	r->h.ts = ts ? ts : dlt_now_ns();
	memmove(&r->frames[r->n], text, used);
	uint32_t len =
		(uint32_t)(sizeof(*r) + r->n * sizeof(r->frames[0]) + used);
	/* Readers stop at a zero length word: what the walk wrote past the
	 * record's end is cleared before the rest is given back. */
	size_t dirty = (size_t)(text - (char *)r) + used;
	if (dirty > len)
		memset((char *)r + len, 0, dirty - len);
	uint32_t keep = dlt_rec_shrink(t, r, cap, len);
	memset((char *)r + len, 0, dlt_rec_round(len) - len);
	int n = r->n;
	dlt_rec_commit(r, DLT_REC_PYSTACK, flags, keep);
	errno = saved;
	return n;
}
