/* What the library rules ask of a process again and again, worked out once.
 *
 * LIB_NOT_FOUND, LIB_LOAD_FAILED and LIB_SHADOWED each ask, per failed or
 * searched row, for the row that requested it, the rows it pulled in, the
 * row of a path and the process's CUDA major.  Answering each question
 * with a pass over every row made a trace of many failed loads quadratic
 * (48,000 names not found took 41 s); the index below is built on the
 * first question and dropped with the rule context. */
#include "rules.h"

#include "mem.h"

static int dlt_dep_ref_cmp(const void *a, const void *b)
{
	const struct dlt_dep_ref *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static void dlt_rows_build(struct dlt_rows *d, const struct dlt_process *p)
{
	size_t n = p->nlibs + 1;
	d->deps = dlt_xcalloc(n, sizeof(*d->deps));
	d->objs = dlt_xcalloc(n, sizeof(*d->objs));
	d->by_path = dlt_xcalloc(n, sizeof(*d->by_path));
	d->by_real = dlt_xcalloc(n, sizeof(*d->by_real));
	d->by_name = dlt_xcalloc(2 * n, sizeof(*d->by_name));
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct dlt_lib *l = &p->libs[i];
		/* A failure record names what was asked for; only rows the
		 * loader mapped are objects with an id and a file. */
		if (l->from_fail_record)
			continue;
		if (l->requester_obj)
			d->deps[d->ndeps++] =
				(struct dlt_dep_ref){l->requester_obj, i};
		if (l->obj)
			d->objs[d->nobjs++] = (struct dlt_dep_ref){l->obj, i};
		if (l->path)
			d->by_path[d->npath++] =
				(struct dlt_name_ref){l->path, i};
		if (l->realpath == NULL)
			continue;
		d->by_real[d->nreal++] = (struct dlt_name_ref){l->realpath, i};
		if (l->soname)
			d->by_name[d->nname++] =
				(struct dlt_name_ref){l->soname, i};
		if (l->requested)
			d->by_name[d->nname++] = (struct dlt_name_ref){
				dlt_basename(l->requested), i};
	}
	qsort(d->deps, d->ndeps, sizeof(*d->deps), dlt_dep_ref_cmp);
	qsort(d->objs, d->nobjs, sizeof(*d->objs), dlt_dep_ref_cmp);
	qsort(d->by_path, d->npath, sizeof(*d->by_path), dlt_name_ref_cmp);
	qsort(d->by_real, d->nreal, sizeof(*d->by_real), dlt_name_ref_cmp);
	qsort(d->by_name, d->nname, sizeof(*d->by_name), dlt_name_ref_cmp);
}

const struct dlt_rows *dlt_ctx_rows(struct dlt_rule_ctx *c)
{
	if (c->cache == NULL) {
		c->cache = dlt_xcalloc(1, sizeof(*c->cache));
		c->cache->cuda_major = -1;
	}
	if (!c->cache->rows_built) {
		dlt_rows_build(&c->cache->rows, c->p);
		c->cache->rows_built = true;
	}
	return &c->cache->rows;
}

size_t dlt_rows_first(const struct dlt_name_ref *v, size_t n, const char *name)
{
	if (name == NULL)
		return SIZE_MAX;
	struct dlt_name_ref key = {name, 0};
	size_t lo = dlt_lower_bound(v, n, sizeof(*v), &key, dlt_name_ref_cmp);
	return lo < n && strcmp(v[lo].name, name) == 0 ? v[lo].row : SIZE_MAX;
}

size_t dlt_rows_group(const struct dlt_dep_ref *v, size_t n, uint64_t obj,
		      size_t *end)
{
	struct dlt_dep_ref key = {obj, 0};
	size_t lo = dlt_lower_bound(v, n, sizeof(*v), &key, dlt_dep_ref_cmp);
	size_t hi = lo;
	while (obj && hi < n && v[hi].obj == obj)
		hi++;
	*end = hi;
	return lo;
}

const struct dlt_lib *dlt_requester_row(struct dlt_rule_ctx *c,
					const struct dlt_lib *lib)
{
	const struct dlt_process *p = c->p;
	const struct dlt_rows *r = dlt_ctx_rows(c);
	/* The latest mapping with that id before the request: link map
	 * addresses are reused after a dlclose. */
	if (lib->requester_obj) {
		size_t end;
		size_t k = dlt_rows_group(r->objs, r->nobjs, lib->requester_obj,
					  &end);
		for (size_t i = end; i-- > k;) {
			const struct dlt_lib *o = &p->libs[r->objs[i].row];
			if (o != lib && o->ts <= lib->ts)
				return o;
		}
	}
	/* Else the first row loaded from the requester's path. */
	size_t a = dlt_rows_first(r->by_path, r->npath, lib->requester);
	if (a == SIZE_MAX)
		return NULL;
	if (&p->libs[a] != lib)
		return &p->libs[a];
	/* lib itself is the first such row: the next one. */
	struct dlt_name_ref key = {lib->requester, a + 1};
	size_t lo = dlt_lower_bound(r->by_path, r->npath, sizeof(*r->by_path),
				    &key, dlt_name_ref_cmp);
	if (lo < r->npath && strcmp(r->by_path[lo].name, lib->requester) == 0)
		return &p->libs[r->by_path[lo].row];
	return NULL;
}

int dlt_ctx_cuda_major(struct dlt_rule_ctx *c)
{
	dlt_ctx_rows(c); /* makes the cache */
	if (c->cache->cuda_major < 0)
		c->cache->cuda_major = dlt_proc_cuda_major(c->p, c->g);
	return c->cache->cuda_major;
}

void dlt_ctx_free(struct dlt_rule_ctx *c)
{
	struct dlt_proc_cache *k = c->cache;
	if (k == NULL)
		return;
	free(k->rows.deps);
	free(k->rows.objs);
	free(k->rows.by_path);
	free(k->rows.by_real);
	free(k->rows.by_name);
	dlt_dirset_free(&k->base);
	dlt_dirset_free(&k->env);
	dlt_dirset_free(&k->near);
	free(k);
	c->cache = NULL;
}

size_t dlt_find_unsearched(struct dlt_rule_ctx *c, const struct dlt_lib *lib,
			   const char *name, char **found, size_t max)
{
	if (name == NULL || strchr(name, '/') != NULL)
		return 0;
	/* The places are the same for every name the process missed (and
	 * for every name one requester missed): listed (and globbed) once,
	 * not once per name. */
	dlt_ctx_rows(c);
	struct dlt_proc_cache *k = c->cache;
	if (!k->base_built) {
		dlt_dirset_base(&k->base, &k->env, c->p);
		k->base_built = true;
	}
	const struct dlt_lib *req = dlt_requester_row(c, lib);
	if (!k->near_built || k->near_req != req) {
		dlt_dirset_free(&k->near);
		if (req)
			dlt_dirset_near(&k->near, req);
		k->near_req = req;
		k->near_built = true;
	}
	/* In that order: beside the libraries the process loaded, near the
	 * requester, then the environments (found[0] is the one a fix
	 * names). */
	const struct dlt_dirset *sets[3] = {&k->base, &k->near, &k->env};
	size_t n = 0;
	char seen_real[8][PATH_MAX];
	size_t nseen = 0;
	for (size_t j = 0; j < 3; j++) {
		for (size_t i = 0; i < sets[j]->n && n < max; i++) {
			const char *dir = sets[j]->d[i];
			if (dlt_unsearched_copy(lib, dir, name, seen_real,
						&nseen, found + n))
				n++;
		}
	}
	return n;
}
