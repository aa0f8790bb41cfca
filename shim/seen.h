/* A small set of keys a copy of the library has already acted on (the
 * objects whose static CUDA runtime was reported, the libraries whose
 * versions were recorded).  A spin lock: it is taken once per object or
 * library, never on a hot path. */
#ifndef DLTRACE_SEEN_H
#define DLTRACE_SEEN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define DLT_SEEN_MAX 64

struct dlt_seen {
	_Atomic int lock;
	int n;
	uint64_t keys[DLT_SEEN_MAX];
};

/* True when key was not in the set (it is now, unless the set is full:
 * then every later key is new each time). */
static inline bool dlt_seen_add(struct dlt_seen *s, uint64_t key)
{
	while (atomic_exchange_explicit(&s->lock, 1, memory_order_acquire))
		;
	bool found = false;
	for (int i = 0; i < s->n && !found; i++)
		found = s->keys[i] == key;
	if (!found && s->n < DLT_SEEN_MAX)
		s->keys[s->n++] = key;
	atomic_store_explicit(&s->lock, 0, memory_order_release);
	return !found;
}

#endif
