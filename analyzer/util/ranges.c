/* Lists of numbers as ranges (ranges.h). */
#include "ranges.h"

#include <stdio.h>
#include <string.h>

#define DLT_RANGES_DASH "\xe2\x80\x93" /* U+2013, en dash */

char *dlt_ranges_num(int64_t x, char *buf, size_t cap)
{
	if (cap == 0)
		return buf;
	char digits[24];
	/* Through unsigned: -INT64_MIN does not fit an int64_t. */
	uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
	int nd =
		snprintf(digits, sizeof(digits), "%llu", (unsigned long long)u);
	char out[32];
	size_t o = 0;
	if (x < 0)
		out[o++] = '-';
	for (int i = 0; i < nd; i++) {
		if (i && (nd - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	snprintf(buf, cap, "%s", out);
	return buf;
}

/* One item, "5" or "0–4,998", into buf (large enough for two numbers). */
static size_t dlt_ranges_item(int64_t lo, int64_t hi, char *buf, size_t cap)
{
	char a[32], b[32];
	dlt_ranges_num(lo, a, sizeof(a));
	if (lo == hi)
		return (size_t)snprintf(buf, cap, "%s", a);
	dlt_ranges_num(hi, b, sizeof(b));
	return (size_t)snprintf(buf, cap, "%s" DLT_RANGES_DASH "%s", a, b);
}

/* The end of the run of consecutive numbers (repeats included) that
 * starts at v[i]. */
static size_t dlt_ranges_run(const int64_t *v, size_t n, size_t i)
{
	while (i + 1 < n && (v[i + 1] == v[i] || v[i + 1] == v[i] + 1))
		i++;
	return i;
}

char *dlt_ranges_text(const int64_t *v, size_t n, char *buf, size_t cap)
{
	if (cap == 0)
		return buf;
	buf[0] = '\0';
	/* Whether the whole list fits: then no room is kept for a tail. */
	size_t total = 0;
	char item[80];
	for (size_t i = 0; i < n; i++) {
		size_t j = dlt_ranges_run(v, n, i);
		total += (total ? 2 : 0) +
			 dlt_ranges_item(v[i], v[j], item, sizeof(item));
		i = j;
	}
	size_t keep = total < cap ? 1 : DLT_RANGES_TAIL;
	size_t o = 0, i = 0;
	while (i < n) {
		size_t j = dlt_ranges_run(v, n, i);
		size_t len = dlt_ranges_item(v[i], v[j], item, sizeof(item));
		size_t sep = o ? 2 : 0;
		if (o + sep + len + keep > cap)
			break;
		if (sep)
			memcpy(buf + o, ", ", 2);
		memcpy(buf + o + sep, item, len + 1);
		o += sep + len;
		i = j + 1;
	}
	if (i == n)
		return buf;
	/* The numbers left out, each once. */
	uint64_t more = 1;
	for (size_t k = i + 1; k < n; k++)
		more += v[k] != v[k - 1];
	char num[32];
	dlt_ranges_num((int64_t)more, num, sizeof(num));
	snprintf(buf + o, cap - o, "%s\xe2\x80\xa6 and %s more", o ? ", " : "",
		 num);
	return buf;
}
