/* Memory for the analyzer (mem.c). */
#ifndef DLTRACE_MEM_H
#define DLTRACE_MEM_H

#include <stddef.h>

/* Memory that cannot be had ends the program: the analyzer has nothing
 * useful to do without it. */
void *dlt_xmalloc(size_t n);
void *dlt_xcalloc(size_t n, size_t size);
void *dlt_xrealloc(void *p, size_t n, size_t size);
char *dlt_xstrdup(const char *s);

/* Makes room for element n of an array of *cap elements of size bytes,
 * doubling it when full. */
void *dlt_util_grow(void *arr, size_t *cap, size_t n, size_t size);

struct dlt_arena_blk;
/* Blocks of memory freed all at once (the model's strings; findings). */
void *dlt_arena_alloc(struct dlt_arena_blk **head, size_t n);
const char *dlt_arena_strdup(struct dlt_arena_blk **head, const char *s);
void dlt_arena_free(struct dlt_arena_blk *head);

/* The first of n sorted elements (qsort order under cmp) that does not
 * sort before key: where key is, or would be inserted. */
size_t dlt_lower_bound(const void *base, size_t n, size_t size, const void *key,
		       int (*cmp)(const void *, const void *));

/* A row of a table by one of its names; sorted with dlt_name_ref_cmp (by
 * name, then row), the first row of a name is found with
 * dlt_lower_bound. */
struct dlt_name_ref {
	const char *name;
	size_t row;
};
int dlt_name_ref_cmp(const void *a, const void *b);

#endif
