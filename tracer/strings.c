/* The string table: each distinct string is written once per trace and
 * referred to by id; and NOTE records. */
#include "writer_int.h"

#include "record.h"

#include <string.h>
#include <sys/mman.h>

#include "hash.h"

/* A copy of s[0..n) that stays readable for the life of the process, or
 * NULL when the arena is full (the string is then written again each time
 * it comes, as when the table is full). */
static const char *dlt_str_keep(struct dlt_writer *w, const char *s, size_t n)
{
	if (w->str_arena == NULL) {
		void *p = mmap(NULL, DLT_STR_ARENA, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			       0);
		if (p == MAP_FAILED)
			return NULL;
		w->str_arena = p;
	}
	if (n > DLT_STR_ARENA - w->str_arena_used)
		return NULL;
	char *c = w->str_arena + w->str_arena_used;
	memcpy(c, s, n);
	w->str_arena_used += (uint32_t)n;
	return c;
}

/* The index in use: the small one until the table first grew. */
static uint16_t *dlt_str_ix(struct dlt_writer *w)
{
	return w->str_mask < DLT_STRTAB_FIRST ? w->str_index_first
					      : w->str_index;
}

/* The index entry that holds s (*found set), or else the free one where it
 * would go; NULL when the index is full. */
static uint16_t *dlt_str_find(struct dlt_writer *w, uint64_t h, const char *s,
			      size_t n, int *found)
{
	uint32_t mask = w->str_mask;
	uint32_t i = (uint32_t)h & mask;
	uint16_t *index = dlt_str_ix(w);
	*found = 0;
	for (uint32_t probe = 0; probe <= mask; probe++) {
		uint16_t *ix = &index[(i + probe) & mask];
		if (*ix == 0)
			return ix;
		const struct dlt_str_slot *sl = &w->strs[*ix - 1];
		if (sl->hash == h && sl->len == n &&
		    memcmp(sl->data, s, n) == 0) {
			*found = 1;
			return ix;
		}
	}
	return NULL;
}

/* Four times the index, its entries placed again: the new part is written
 * whole, so nothing in it is left from an earlier trace.  Always the large
 * index (the small one has DLT_STRTAB_FIRST slots). */
static void dlt_str_grow(struct dlt_writer *w)
{
	uint32_t slots = (w->str_mask + 1) * 4;
	if (slots > DLT_STRTAB_SLOTS)
		slots = DLT_STRTAB_SLOTS;
	memset(w->str_index, 0, slots * sizeof(w->str_index[0]));
	w->str_mask = slots - 1;
	for (uint32_t k = 0; k < w->str_count; k++) {
		uint32_t i = (uint32_t)w->strs[k].hash & w->str_mask;
		while (w->str_index[i] != 0)
			i = (i + 1) & w->str_mask;
		w->str_index[i] = (uint16_t)(k + 1);
	}
}

uint32_t dlt_strn(struct dlt_writer *w, struct dlt_tls *t, const char *s,
		  size_t n)
{
	/* A forked child's trace is made before its first string: made from
	 * inside the string lock, its process info would lose its own. */
	if (__builtin_expect(atomic_load(&w->pending) != 0, 0) && !t->in_str &&
	    dlt_writer_materialize(w, t) != 0)
		return DLT_STR_NONE;
	if (s == NULL || t->in_str || w->next_str_id == 0 ||
	    !atomic_load_explicit(&w->enabled, memory_order_relaxed))
		return DLT_STR_NONE;
	if (n > DLT_MAX_STR)
		n = DLT_MAX_STR;
	uint64_t h = dlt_fnv1a(s, n);
	t->in_str = 1;
	dlt_spin_lock(&w->str_lock);
	uint32_t id = DLT_STR_NONE;
	int found;
	uint16_t *slot = dlt_str_find(w, h, s, n, &found);
	if (found) {
		id = w->strs[*slot - 1].id;
		goto done;
	}
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_string) + n + 1);
	struct dlt_rec_string *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		goto done;
	id = w->next_str_id++;
	r->h.ts = 0;
	r->id = id;
	r->len = (uint32_t)n;
	memcpy(r->data, s, n);
	memset(r->data + n, 0, dlt_rec_round(len) - len + 1);
	dlt_rec_commit(r, DLT_REC_STRING, 0, len);
	/* Keep the index at most 3/4 full and the copies within the arena;
	 * once the largest index is that full, later strings are written
	 * again each time rather than deduplicated. */
	if (slot && w->str_count >= (w->str_mask + 1) / 4 * 3) {
		if (w->str_mask + 1 < DLT_STRTAB_SLOTS) {
			dlt_str_grow(w);
			slot = dlt_str_find(w, h, s, n, &found);
		} else {
			slot = NULL;
		}
	}
	const char *kept = slot ? dlt_str_keep(w, s, n) : NULL;
	if (kept) {
		struct dlt_str_slot *sl = &w->strs[w->str_count];
		sl->hash = h;
		sl->data = kept;
		sl->len = (uint32_t)n;
		sl->id = id;
		*slot = (uint16_t)++w->str_count;
	}
done:
	dlt_spin_unlock(&w->str_lock);
	t->in_str = 0;
	return id;
}

uint32_t dlt_str(struct dlt_writer *w, struct dlt_tls *t, const char *s)
{
	return s ? dlt_strn(w, t, s, strlen(s)) : DLT_STR_NONE;
}

void dlt_note(struct dlt_writer *w, struct dlt_tls *t, int level,
	      const char *text)
{
	uint32_t id = dlt_str(w, t, text);
	struct dlt_rec_note *r = dlt_rec_reserve(w, t, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->text = id;
	r->pad = 0;
	dlt_rec_commit(r, DLT_REC_NOTE, (uint16_t)level, sizeof(*r));
}
