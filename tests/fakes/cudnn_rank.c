/* Deterministic fake timings for convolution algorithms and backend
 * engines.  All integer arithmetic: the same problem gives the same
 * numbers, to the printed digit, on every machine. */
#include "fake_cudnn.h"

#include <stdlib.h>
#include <string.h>

int dlt_rank_count(enum dlt_conv_dir dir)
{
	switch (dir) {
	case DLT_DIR_FWD:
		return 8;
	case DLT_DIR_BWD_DATA:
		return 6;
	case DLT_DIR_BWD_FILTER:
		return 7;
	case DLT_DIR_ENGINE:
		return 10;
	}
	return 0;
}

static int unit_stride(const struct dlt_conv_problem *p)
{
	return p->str_h == 1 && p->str_w == 1 && p->dil_h == 1 && p->dil_w == 1;
}

static int winograd_ok(const struct dlt_conv_problem *p)
{
	return unit_stride(p) && p->r == 3 && p->s == 3;
}

/* The applicability rules of the real algorithms, roughly: FFT needs unit
 * strides, Winograd 3x3 with unit strides, forward DIRECT and backward
 * filter WINOGRAD are not implemented at all. */
int dlt_rank_supported(const struct dlt_conv_problem *p, enum dlt_conv_dir dir,
		       int algo)
{
	switch (dir) {
	case DLT_DIR_FWD:
		switch (algo) {
		case 3:
			return 0;
		case 4:
		case 5:
			return unit_stride(p);
		case 6:
		case 7:
			return winograd_ok(p);
		default:
			return algo >= 0 && algo < 8;
		}
	case DLT_DIR_BWD_DATA:
		switch (algo) {
		case 2:
		case 3:
			return unit_stride(p);
		case 4:
		case 5:
			return winograd_ok(p);
		default:
			return algo >= 0 && algo < 6;
		}
	case DLT_DIR_BWD_FILTER:
		switch (algo) {
		case 4:
			return 0;
		case 2:
		case 6:
			return unit_stride(p);
		case 5:
			return winograd_ok(p);
		default:
			return algo >= 0 && algo < 7;
		}
	case DLT_DIR_ENGINE:
		switch (algo) {
		case 4:
		case 5:
			return unit_stride(p);
		case 6:
		case 7:
			return winograd_ok(p);
		default:
			return algo >= 0 && algo < 10;
		}
	}
	return 0;
}

size_t dlt_rank_memory(const struct dlt_conv_problem *p, enum dlt_conv_dir dir,
		       int algo)
{
	size_t g = p->groups > 0 ? (size_t)p->groups : 1;
	size_t x = (size_t)(p->n * p->c * p->h * p->w) * 4;
	size_t y = (size_t)(p->n * p->k * p->oh * p->ow) * 4;
	size_t col = (size_t)(p->c / (long)g * p->r * p->s * p->oh * p->ow) * 4;
	static const unsigned char kind[4][10] = {
		/* 0 none, 1 index, 2 im2col, 3 fft, 4 tiles, 5 winograd */
		{0, 1, 2, 0, 3, 4, 5, 4},
		{0, 2, 3, 4, 5, 4},
		{0, 0, 3, 1, 0, 4, 4},
		{0, 1, 2, 0, 3, 4, 5, 4, 1, 2},
	};
	if (algo < 0 || algo >= dlt_rank_count(dir))
		return 0;
	switch (kind[dir][algo]) {
	case 1:
		return (size_t)(p->r * p->s * p->oh * p->ow) * 4 + 256;
	case 2:
		return col * (size_t)p->n;
	case 3:
		return (x + y) * 2;
	case 4:
		return (x + y) / 4 + 4096;
	case 5:
		return (size_t)(p->c * p->k) * 64;
	default:
		return 0;
	}
}

static uint64_t fnv(uint64_t h, long v)
{
	for (int i = 0; i < 8; i++) {
		h ^= (uint64_t)((unsigned long)v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Fake time in microseconds: about one microsecond per MFLOP, times an
 * algorithm factor between 0.6 and 2.6 that depends on the problem and on
 * whether it was measured (Find) or predicted (heuristics): as with the
 * real library, the two need not agree on the winner. */
static long fake_us(const struct dlt_conv_problem *p, enum dlt_conv_dir dir,
		    int algo, int measured)
{
	long g = p->groups > 0 ? p->groups : 1;
	long mflop = 2 * p->n * p->k * (p->c / g) * p->r * p->s * p->oh *
		     p->ow / 1000000;
	uint64_t h = 0xcbf29ce484222325ull;
	const long key[] = {measured, dir,	 algo,	   p->n,     p->c,
			    p->h,     p->w,	 p->k,	   p->r,     p->s,
			    p->pad_h, p->pad_w,	 p->str_h, p->str_w, p->dil_h,
			    p->dil_w, p->groups, p->dtype, p->math};
	for (size_t i = 0; i < sizeof(key) / sizeof(key[0]); i++)
		h = fnv(h, key[i]);
	long permille = 600 + (long)(h % 2000);
	return (mflop + 1) * permille / 1000 + 1;
}

int dlt_rank_injected(enum dlt_conv_dir dir, int algo, int dflt)
{
	static const char *const dirs[] = {"fwd", "bwdd", "bwdf", "eng"};
	const char *s = getenv("FAKE_CUDNN_FAIL_ALGOS");

	while (s != NULL && *s != '\0') {
		int for_dir = 1;
		const char *slash = strchr(s, '/');
		const char *comma = strchr(s, ',');
		if (slash != NULL && (comma == NULL || slash < comma)) {
			for_dir = (size_t)(slash - s) == strlen(dirs[dir]) &&
				  strncmp(s, dirs[dir], strlen(dirs[dir])) == 0;
			s = slash + 1;
		}
		char *end = NULL;
		long id = strtol(s, &end, 0);
		int st = dflt;
		if (end == s)
			return 0;
		if (*end == ':') {
			const char *v = end + 1;
			if (strncmp(v, "nsup", 4) == 0)
				st = DLT_ST_NOT_SUPPORTED;
			else if (strncmp(v, "alloc", 5) == 0)
				st = DLT_ST_ALLOC_FAILED;
			else
				st = (int)strtol(v, NULL, 0);
		}
		if (for_dir && id == algo)
			return st;
		s = comma != NULL ? comma + 1 : NULL;
	}
	return 0;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct dlt_candidate *x = a, *y = b;
	int xs = x->time < 0, ys = y->time < 0;
	if (xs != ys)
		return xs - ys;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->algo - y->algo;
}

int dlt_rank(const struct dlt_conv_problem *p, enum dlt_conv_dir dir,
	     enum dlt_rank_mode mode, size_t ws_limit,
	     struct dlt_candidate *out)
{
	int n = dlt_rank_count(dir);
	long us[DLT_MAX_CANDIDATES];
	int order[DLT_MAX_CANDIDATES], nsup = 0;

	for (int a = 0; a < n; a++) {
		us[a] = -1;
		if (dlt_rank_supported(p, dir, a)) {
			us[a] = fake_us(p, dir, a, mode != DLT_RANK_HEURISTIC);
			order[nsup++] = a;
		}
	}
	/* The seed moves the winner, only for 64 channels or more: the best
	 * time goes to another supported algorithm, chosen by the seed among
	 * them in order of workspace, so that seed 1 picks the one needing
	 * least (which then also wins where workspace is short, FindEx). */
	long seed = fake_env_long("FAKE_CUDNN_ALGO_SEED", 0);
	if (seed != 0 && p->c >= 64 && nsup >= 2) {
		int best = order[0], others[DLT_MAX_CANDIDATES], k = 0;
		for (int i = 1; i < nsup; i++)
			if (us[order[i]] < us[best])
				best = order[i];
		for (int i = 0; i < nsup; i++) {
			int a = order[i];
			if (a == best)
				continue;
			size_t m = dlt_rank_memory(p, dir, a);
			int j = k++;
			while (j > 0 &&
			       dlt_rank_memory(p, dir, others[j - 1]) > m) {
				others[j] = others[j - 1];
				j--;
			}
			others[j] = a;
		}
		int other = others[((seed < 0 ? -seed : seed) - 1) % k];
		long t = us[best];
		us[best] = us[other] + 1;
		us[other] = t;
	}
	for (int a = 0; a < n; a++) {
		struct dlt_candidate *c = &out[a];
		c->algo = a;
		c->status = DLT_ST_SUCCESS;
		c->time = us[a] < 0 ? -1.0f : (float)us[a] / 1000.0f;
		c->memory = us[a] < 0 ? 0 : dlt_rank_memory(p, dir, a);
		c->determinism = 1;
		if ((dir == DLT_DIR_BWD_DATA && a == 0) ||
		    (dir == DLT_DIR_BWD_FILTER && (a == 0 || a == 3)))
			c->determinism = 0;
		if (us[a] < 0) {
			c->status = DLT_ST_NOT_SUPPORTED;
			continue;
		}
		int inj = dlt_rank_injected(dir, a,
					    mode == DLT_RANK_HEURISTIC
						    ? DLT_ST_NOT_SUPPORTED
						    : DLT_ST_ALLOC_FAILED);
		if (inj != 0) {
			c->status = inj;
		} else if (mode == DLT_RANK_FINDEX && c->memory > ws_limit) {
			/* Not run: the caller's workspace is too small. */
			c->status = DLT_ST_ALLOC_FAILED;
			c->time = -1.0f;
		}
	}
	qsort(out, (size_t)n, sizeof(out[0]), cand_cmp);
	return n;
}
