/* Memory: allocation that cannot fail, arenas freed at once, growing
 * arrays, binary search. */
#include "mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dlt_oom(void)
{
	fputs("dltrace-analyze: out of memory\n", stderr);
	exit(2);
}

void *dlt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		dlt_oom();
	return p;
}

void *dlt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (p == NULL)
		dlt_oom();
	return p;
}

void *dlt_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		dlt_oom();
	size_t bytes = n * size;
	void *q = realloc(p, bytes ? bytes : 1);
	if (q == NULL)
		dlt_oom();
	return q;
}

char *dlt_xstrdup(const char *s)
{
	char *p = strdup(s);
	if (p == NULL)
		dlt_oom();
	return p;
}

/* Makes room for one more element of an array that grows by doubling. */
void *dlt_util_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 16;
	return dlt_xrealloc(arr, *cap, size);
}

/* The per-process arena: the model's strings and small arrays live until
 * the process is freed, so one list of blocks replaces thousands of frees. */
struct dlt_arena_blk {
	struct dlt_arena_blk *next;
	size_t used;
	size_t cap;
	uint64_t data[]; /* uint64_t: keeps every allocation 8-aligned */
};

#define DLT_ARENA_BLOCK (64u * 1024u)

void *dlt_arena_alloc(struct dlt_arena_blk **head, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	struct dlt_arena_blk *b = *head;
	if (b == NULL || b->cap - b->used < n) {
		size_t cap = n > DLT_ARENA_BLOCK / 4 ? n : DLT_ARENA_BLOCK;
		b = dlt_xmalloc(sizeof(*b) + cap);
		b->used = 0;
		b->cap = cap;
		if (*head != NULL && cap != DLT_ARENA_BLOCK) {
			/* A big one-off block goes behind the current one,
			 * whose free space stays in use. */
			b->next = (*head)->next;
			(*head)->next = b;
		} else {
			b->next = *head;
			*head = b;
		}
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

const char *dlt_arena_strdup(struct dlt_arena_blk **head, const char *s)
{
	if (s == NULL)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = dlt_arena_alloc(head, n);
	memcpy(p, s, n);
	return p;
}

void dlt_arena_free(struct dlt_arena_blk *b)
{
	while (b) {
		struct dlt_arena_blk *next = b->next;
		free(b);
		b = next;
	}
}

size_t dlt_lower_bound(const void *base, size_t n, size_t size, const void *key,
		       int (*cmp)(const void *, const void *))
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp((const char *)base + mid * size, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int dlt_name_ref_cmp(const void *a, const void *b)
{
	const struct dlt_name_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->row < y->row ? -1 : x->row > y->row;
}
