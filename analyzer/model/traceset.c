/* All traces named on a command line, loaded and ordered. */
#include "traceset.h"

#include "reaps.h"

#include <stdlib.h>
#include <string.h>

static int dlt_proc_start_cmp(const void *a, const void *b)
{
	const struct dlt_process *x = *(const struct dlt_process *const *)a;
	const struct dlt_process *y = *(const struct dlt_process *const *)b;
	if (x->hdr.start_realtime_ns != y->hdr.start_realtime_ns)
		return x->hdr.start_realtime_ns < y->hdr.start_realtime_ns ? -1
									   : 1;
	if (x->hdr.pid != y->hdr.pid)
		return x->hdr.pid < y->hdr.pid ? -1 : 1;
	if (x->hdr.exec_seq != y->hdr.exec_seq)
		return x->hdr.exec_seq < y->hdr.exec_seq ? -1 : 1;
	return strcmp(x->trace, y->trace);
}

struct dlt_set_ref {
	uint64_t key; /* trace id, or pid */
	size_t index;
};

static int dlt_ref_cmp(const void *a, const void *b)
{
	const struct dlt_set_ref *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int dlt_set_read(struct dlt_set *s, struct dlt_job *j, FILE *diag)
{
	return dlt_set_read_hooked(s, j, diag, NULL);
}

int dlt_set_read_hooked(struct dlt_set *s, struct dlt_job *j, FILE *diag,
			const struct dlt_set_hooks *h)
{
	memset(s, 0, sizeof(*s));
	s->unusable =
		dlt_xcalloc(j->nerrors ? j->nerrors : 1, sizeof(*s->unusable));
	for (size_t i = 0; i < j->nerrors; i++)
		s->unusable[s->nunusable++] = (struct dlt_input_error){
			dlt_xstrdup(j->errors[i].path),
			dlt_xstrdup(j->errors[i].message), j->errors[i].trace};
	s->procs = dlt_xcalloc(j->ntraces ? j->ntraces : 1, sizeof(*s->procs));
	for (size_t i = 0; i < j->ntraces; i++) {
		struct dlt_trace *t = dlt_job_take(j, i);
		struct dlt_load_hook hook;
		if (h)
			hook = h->begin(h->ctx);
		struct dlt_process *p =
			dlt_process_read_hooked(t, h ? &hook : NULL);
		if (h)
			h->end(h->ctx, p);
		dlt_trace_close(t);
		if (diag)
			for (size_t k = 0; k < p->nproblems; k++)
				fprintf(diag, "dltrace-analyze: %s: %s\n",
					p->trace, p->problems[k]);
		s->procs[s->nprocs++] = p;
	}
	/* How each process ended, as the parent that reaped it saw. */
	struct dlt_reaps reaps = {0};
	for (size_t i = 0; i < s->nprocs; i++)
		dlt_reaps_add(&reaps, s->procs[i]);
	for (size_t i = 0; i < s->nprocs && reaps.n; i++)
		dlt_reaps_apply(&reaps, s->procs[i]);
	dlt_reaps_free(&reaps);
	if (s->nprocs > 1)
		qsort(s->procs, s->nprocs, sizeof(*s->procs),
		      dlt_proc_start_cmp);
	s->by_id = dlt_xcalloc(s->nprocs, sizeof(*s->by_id));
	s->by_pid = dlt_xcalloc(s->nprocs, sizeof(*s->by_pid));
	for (size_t i = 0; i < s->nprocs; i++) {
		s->by_id[i] =
			(struct dlt_set_ref){s->procs[i]->hdr.trace_id, i};
		s->by_pid[i] = (struct dlt_set_ref){s->procs[i]->hdr.pid, i};
	}
	if (s->nprocs > 1) {
		qsort(s->by_id, s->nprocs, sizeof(*s->by_id), dlt_ref_cmp);
		qsort(s->by_pid, s->nprocs, sizeof(*s->by_pid), dlt_ref_cmp);
	}
	if (s->nprocs == 0) {
		if (diag)
			fprintf(diag, "dltrace-analyze: no usable trace among "
				      "the inputs\n");
		return -1;
	}
	return 0;
}

void dlt_set_free(struct dlt_set *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		dlt_process_free(s->procs[i]);
	free(s->procs);
	for (size_t i = 0; i < s->nunusable; i++) {
		free(s->unusable[i].path);
		free(s->unusable[i].message);
	}
	free(s->unusable);
	free(s->by_id);
	free(s->by_pid);
	memset(s, 0, sizeof(*s));
}

/* The first of the n refs with this key, or n. */
static size_t dlt_ref_lower(const struct dlt_set_ref *r, size_t n, uint64_t key)
{
	struct dlt_set_ref probe = {key, 0};
	return dlt_lower_bound(r, n, sizeof(*r), &probe, dlt_ref_cmp);
}

static long dlt_set_lookup(const struct dlt_set *s, uint64_t trace_id)
{
	if (trace_id == 0 || s->by_id == NULL)
		return -1;
	size_t lo = dlt_ref_lower(s->by_id, s->nprocs, trace_id);
	if (lo < s->nprocs && s->by_id[lo].key == trace_id)
		return (long)s->by_id[lo].index;
	return -1;
}

bool dlt_set_has_reaped(const struct dlt_set *s, const struct dlt_reap_seen *r)
{
	if (s->by_pid == NULL)
		return false;
	for (size_t k = dlt_ref_lower(s->by_pid, s->nprocs, r->pid);
	     k < s->nprocs && s->by_pid[k].key == r->pid; k++) {
		const struct dlt_process *q = s->procs[s->by_pid[k].index];
		if (dlt_reap_is_of(r, q->hdr.pid, q->host, q->hdr.run_id,
				   q->hdr.start_realtime_ns))
			return true;
	}
	return false;
}

const struct dlt_process *dlt_set_find(const struct dlt_set *s,
				       uint64_t trace_id)
{
	long i = dlt_set_lookup(s, trace_id);
	return i < 0 ? NULL : s->procs[i];
}

long dlt_set_parent(const struct dlt_set *s, const struct dlt_process *p)
{
	long i = dlt_set_lookup(s, p->hdr.parent_trace_id);
	/* A trace naming itself (damage) has no parent in the set. */
	return i >= 0 && s->procs[i] == p ? -1 : i;
}
