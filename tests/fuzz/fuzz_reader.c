/* libFuzzer target: the trace reader over arbitrary bytes.  Whatever the
 * input, no crash, no hang, no read outside the input, no more memory held
 * than the input justifies (budget.h). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "budget.h"
#include "reader.h"

static int dlt_fuzz_visit(void *ctx, const struct dlt_rec_view *v)
{
	struct dlt_trace *t = ctx;
	const struct dlt_rec_hdr *r = v->rec;
	/* Resolve every 32-bit field as if it were a string id: the reader
	 * must answer NULL or a NUL-terminated string of its own. */
	const uint32_t *w = (const uint32_t *)(const void *)r;
	size_t n = r->len / 4;
	size_t sum = 0;
	for (size_t i = 4; i < n; i++) {
		const char *s = dlt_trace_str(t, w[i]);
		if (s)
			sum += strlen(s);
	}
	return sum == (size_t)-1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_budget_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_budget_begin();
	char err[256];
	struct dlt_trace *t =
		dlt_trace_open_mem(data, size, "fuzz", err, sizeof(err));
	if (t) {
		dlt_trace_foreach(t, dlt_fuzz_visit, t);
		for (size_t i = 0; i < dlt_trace_problem_count(t); i++)
			(void)strlen(dlt_trace_problem(t, i));
		dlt_trace_close(t);
	}
	fz_budget_end(size, 1);
	return 0;
}
