/* Which failed library loads matter, and the name a library goes by. */
#include <stdlib.h>
#include <string.h>

#include "model.h"

void dlt_lib_key(const char *name, char *buf, size_t cap)
{
	const char *b = dlt_basename(name ? name : "");
	const char *so = strstr(b, ".so");
	size_t l = so ? (size_t)(so - b) + 3 : strlen(b);
	if (l >= cap)
		l = cap - 1;
	memcpy(buf, b, l);
	buf[l] = '\0';
}

/* cuDNN and others probe several versioned names before the one that
 * exists; only the library's key (name up to ".so") tells that the probes
 * and the load are one library. */
static const char *dlt_row_name(const struct dlt_lib *lib)
{
	return lib->requested ? lib->requested : lib->path;
}

uint8_t *dlt_lib_fail_kinds(const struct dlt_process *p)
{
	size_t n = p->nlibs;
	uint8_t *kind = dlt_xcalloc(n ? n : 1, sizeof(*kind));
	/* Keys of the loaded rows (two each: by real path and by name), and
	 * the names of the failed rows with their row numbers, sorted. */
	struct dlt_name_ref *keys = dlt_xcalloc(2 * n + 1, sizeof(*keys));
	struct dlt_name_ref *fails = dlt_xcalloc(n + 1, sizeof(*fails));
	size_t nkeys = 0, nfails = 0;
	char key[256];
	for (size_t i = 0; i < n; i++) {
		const struct dlt_lib *o = &p->libs[i];
		const char *on = dlt_row_name(o);
		if (on == NULL)
			continue;
		if (o->failed) {
			fails[nfails++] = (struct dlt_name_ref){on, i};
			continue;
		}
		dlt_lib_key(o->realpath ? o->realpath : on, key, sizeof(key));
		keys[nkeys++] = (struct dlt_name_ref){dlt_xstrdup(key), i};
		dlt_lib_key(on, key, sizeof(key));
		keys[nkeys++] = (struct dlt_name_ref){dlt_xstrdup(key), i};
	}
	qsort(keys, nkeys, sizeof(*keys), dlt_name_ref_cmp);
	qsort(fails, nfails, sizeof(*fails), dlt_name_ref_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct dlt_lib *lib = &p->libs[i];
		if (!lib->failed)
			continue;
		const char *name = dlt_row_name(lib);
		dlt_lib_key(name ? name : "", key, sizeof(key));
		/* Row 0 sorts before every row of the same name. */
		struct dlt_name_ref probe = {key, 0};
		size_t lo = dlt_lower_bound(keys, nkeys, sizeof(*keys), &probe,
					    dlt_name_ref_cmp);
		kind[i] = lo < nkeys && strcmp(keys[lo].name, key) == 0
				  ? DLT_FAIL_PROBE
				  : DLT_FAIL_REAL;
	}
	/* Of the failed rows with one name, only the first is the failure. */
	for (size_t i = 1; i < nfails; i++)
		if (strcmp(fails[i].name, fails[i - 1].name) == 0 &&
		    kind[fails[i].row] == DLT_FAIL_REAL)
			kind[fails[i].row] = DLT_FAIL_REPEAT;
	for (size_t i = 0; i < nkeys; i++)
		free((char *)keys[i].name);
	free(keys);
	free(fails);
	return kind;
}

bool *dlt_lib_failures_matter(const struct dlt_process *p)
{
	uint8_t *kind = dlt_lib_fail_kinds(p);
	bool *matters = dlt_xcalloc(p->nlibs ? p->nlibs : 1, sizeof(*matters));
	for (size_t i = 0; i < p->nlibs; i++)
		matters[i] = kind[i] == DLT_FAIL_REAL;
	free(kind);
	return matters;
}

void dlt_lib_fail_counts(const struct dlt_process *p, size_t *failed,
			 size_t *probes)
{
	uint8_t *kind = dlt_lib_fail_kinds(p);
	*failed = *probes = 0;
	for (size_t i = 0; i < p->nlibs; i++) {
		*failed +=
			kind[i] == DLT_FAIL_REAL || kind[i] == DLT_FAIL_REPEAT;
		*probes += kind[i] == DLT_FAIL_PROBE;
	}
	free(kind);
}
