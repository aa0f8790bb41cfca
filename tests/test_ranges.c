/* Lists of ranks as ranges (analyzer/util/ranges.c): the text the folded
 * output of `hangs` and `env` names thousands of ranks with. */
#define _GNU_SOURCE
#include "ranges.h"
#include "testutil.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DASH "\xe2\x80\x93"
#define ELLIPSIS "\xe2\x80\xa6"

static void test_ranges_num(void)
{
	char b[32];
	CU_ASSERT_STRING_EQUAL(dlt_ranges_num(0, b, sizeof(b)), "0");
	CU_ASSERT_STRING_EQUAL(dlt_ranges_num(999, b, sizeof(b)), "999");
	CU_ASSERT_STRING_EQUAL(dlt_ranges_num(1000, b, sizeof(b)), "1,000");
	CU_ASSERT_STRING_EQUAL(dlt_ranges_num(9999, b, sizeof(b)), "9,999");
	CU_ASSERT_STRING_EQUAL(dlt_ranges_num(1234567, b, sizeof(b)),
			       "1,234,567");
	CU_ASSERT_STRING_EQUAL(dlt_ranges_num(-1024, b, sizeof(b)), "-1,024");
	CU_ASSERT_STRING_EQUAL(dlt_ranges_num(INT64_MIN, b, sizeof(b)),
			       "-9,223,372,036,854,775,808");
	/* Cut, and terminated. */
	CU_ASSERT_STRING_EQUAL(dlt_ranges_num(10000, b, 4), "10,");
}

/* 0..n-1 without skip, as the numbers of a job whose rank skip is odd. */
static int64_t *ranks_but(size_t n, int64_t skip, size_t *out)
{
	int64_t *v = calloc(n, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if ((int64_t)i != skip)
			v[k++] = (int64_t)i;
	*out = k;
	return v;
}

static void test_ranges_text(void)
{
	char b[256];
	size_t n;
	int64_t *v = ranks_but(10000, 4999, &n);
	CU_ASSERT_STRING_EQUAL(dlt_ranges_text(v, n, b, sizeof(b)),
			       "0" DASH "4,998, 5,000" DASH "9,999");
	free(v);
	CU_ASSERT_STRING_EQUAL(dlt_ranges_text(NULL, 0, b, sizeof(b)), "");
	const int64_t one[] = {7};
	CU_ASSERT_STRING_EQUAL(dlt_ranges_text(one, 1, b, sizeof(b)), "7");
	const int64_t two[] = {3, 4};
	CU_ASSERT_STRING_EQUAL(dlt_ranges_text(two, 2, b, sizeof(b)),
			       "3" DASH "4");
	/* Repeats count once (two processes of one rank). */
	const int64_t rep[] = {1, 1, 2, 5, 5, 9};
	CU_ASSERT_STRING_EQUAL(dlt_ranges_text(rep, 6, b, sizeof(b)),
			       "1" DASH "2, 5, 9");
	const int64_t neg[] = {-3, -2, -1, 0, 2};
	CU_ASSERT_STRING_EQUAL(dlt_ranges_text(neg, 5, b, sizeof(b)),
			       "-3" DASH "0, 2");
}

/* Every other rank: as many items as numbers, cut at the buffer with how
 * many numbers were left out; never past cap, always terminated. */
static void test_ranges_bounded(void)
{
	int64_t v[1000];
	for (int i = 0; i < 1000; i++)
		v[i] = 2 * i;
	char b[64];
	dlt_ranges_text(v, 1000, b, sizeof(b));
	CU_ASSERT(strlen(b) < sizeof(b));
	const char *tail = strstr(b, ELLIPSIS " and ");
	CU_ASSERT_PTR_NOT_NULL_FATAL(tail);
	/* The items shown and the count add up to 1000. */
	size_t shown = 0;
	for (const char *p = b; p < tail; p++)
		shown += *p == ',' && p[1] == ' ';
	int more = atoi(tail + strlen(ELLIPSIS " and "));
	CU_ASSERT_EQUAL((int)shown + more, 1000);
	CU_ASSERT(strncmp(b, "0, 2, 4, ", 9) == 0);
	/* Every size of buffer: terminated, within bounds. */
	for (size_t cap = 1; cap < 80; cap++) {
		char *s = malloc(cap);
		dlt_ranges_text(v, 1000, s, cap);
		CU_ASSERT(strlen(s) < cap);
		free(s);
	}
	/* Room for all: no tail. */
	const int64_t few[] = {1, 2, 3, 10};
	char small[16];
	CU_ASSERT_STRING_EQUAL(dlt_ranges_text(few, 4, small, sizeof(small)),
			       "1" DASH "3, 10");
}

static const struct tu_test ranges_tests[] = {
	{"ranges: numbers with thousands grouped", test_ranges_num},
	{"ranges: runs as ranges, repeats once", test_ranges_text},
	{"ranges: cut to the buffer, the rest counted", test_ranges_bounded},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"ranges", ranges_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
