/* MODMAP and RAWSTACK records as the unwinder takes them (unwind.h),
 * read within the records' lengths: one reading for the model (crashes),
 * the hang analysis (stalls) and the dump. */
#include <string.h>

#include "unwind.h"

uint32_t dlt_modmap_count(const struct dlt_rec_modmap *r)
{
	uint32_t room = (uint32_t)((r->h.len - sizeof(*r)) / sizeof(r->e[0]));
	return r->n < room ? r->n : room;
}

void dlt_umod_of(const struct dlt_modmap_ent *x, const char *path,
		 struct dlt_umod *m)
{
	uint32_t bl = x->build_id_len <= sizeof(x->build_id)
			      ? x->build_id_len
			      : (uint32_t)sizeof(x->build_id);
	m->lo = x->lo;
	m->hi = x->hi;
	m->off = x->off;
	m->path = path;
	m->build_id = bl ? x->build_id : NULL;
	m->build_id_len = bl;
}

int dlt_ustack_of(const struct dlt_rec_rawstack *r, struct dlt_ustack *st)
{
	memset(st, 0, sizeof(*st));
	if (r->h.len < sizeof(*r))
		return -1;
	uint32_t room = (uint32_t)(r->h.len - sizeof(*r));
	st->arch = r->arch;
	st->regs_known = r->regs_known;
	memcpy(st->regs, r->regs, sizeof(st->regs));
	st->sp = r->sp;
	st->len = r->len < room ? r->len : room;
	st->bytes = r->bytes;
	st->stack_lo = r->stack_lo;
	st->stack_hi = r->stack_hi;
	return 0;
}
