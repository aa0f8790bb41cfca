/* The MEMCG record (format.h): a reading of the memory cgroup's
 * out-of-memory evidence (common/memcg.c) put in the trace, by the shim
 * and by the launcher alike. */
#include <string.h>

#include "memcg.h"
#include "record.h"
#include "writer.h"

void dlt_memcg_record(struct dlt_writer *w, struct dlt_tls *t, uint16_t flags,
		      uint32_t subject, int32_t status, uint64_t max_rss_kb,
		      const struct dlt_memcg *m, uint64_t ts)
{
	size_t n = strnlen(m->path, sizeof(m->path) - 1);
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_memcg) + n + 1);
	struct dlt_rec_memcg *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		return;
	r->h.ts = ts ? ts : dlt_now_ns();
	r->subject = subject;
	r->status = status;
	r->oom_kills = m->oom_kills;
	r->limit = m->limit;
	r->sys_oom_kills = m->sys_oom_kills;
	r->max_rss_kb = max_rss_kb;
	r->path_len = (uint32_t)n;
	r->pad = 0;
	/* The padding too: the reader checks the NUL. */
	memset(r->path, 0, dlt_rec_round(len) - sizeof(*r));
	memcpy(r->path, m->path, n);
	if (m->version == 1)
		flags |= DLT_MEMCG_V1;
	else if (m->version == 2)
		flags |= DLT_MEMCG_V2;
	dlt_rec_commit(r, DLT_REC_MEMCG, flags, len);
}
