/* Which traces of a directory belong together: a launcher run ends when it
 * reaps its command, and a run that began after every other had ended is
 * another use of the directory.  Runs that overlap (ranks each under its
 * own launcher) are one job's. */
#include "runs.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"

struct dlt_run_span {
	uint64_t run;
	uint64_t start, end; /* end UINT64_MAX: not known to have ended */
	uint32_t group;
};

static int dlt_span_cmp(const void *a, const void *b)
{
	const struct dlt_run_span *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->run < y->run ? -1 : x->run > y->run;
}

size_t dlt_runs_group(const struct dlt_run_trace *t, size_t n, uint32_t *run_of)
{
	if (n == 0)
		return 0;
	struct dlt_run_span *s = dlt_xcalloc(n, sizeof(*s));
	size_t ns = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < ns && s[k].run != t[i].run)
			k++;
		if (k == ns)
			s[ns++] = (struct dlt_run_span){t[i].run, t[i].start, 0,
							0};
		if (t[i].start < s[k].start)
			s[k].start = t[i].start;
		if (t[i].reaped > s[k].end)
			s[k].end = t[i].reaped;
	}
	for (size_t k = 0; k < ns; k++)
		if (s[k].end == 0)
			s[k].end = UINT64_MAX;
	qsort(s, ns, sizeof(*s), dlt_span_cmp);
	uint32_t group = 0;
	uint64_t until = s[0].end;
	for (size_t k = 0; k < ns; k++) {
		if (k > 0 && s[k].start > until) {
			group++;
			until = s[k].end;
		} else if (s[k].end > until) {
			until = s[k].end;
		}
		s[k].group = group;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < ns; k++)
			if (s[k].run == t[i].run)
				run_of[i] = s[k].group;
	free(s);
	return (size_t)group + 1;
}
