/* Findings' headlines (analyzer/findings/findings.c): at most
 * DLT_HEADLINE_MAX characters, cut at a clause boundary with the rest as
 * detail, or inside a clause with "…" and the whole message as detail, so
 * that nothing a rule said is lost and no phrase is split. */
#define _GNU_SOURCE
#include "findings.h"
#include "testutil.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct dlt_finding *one(struct dlt_check *c, const char *msg)
{
	return dlt_check_finding(c, "JOB_HANG", 0, DLT_SEV_ERROR, DLT_NO_PROC,
				 msg);
}

static void test_short(void)
{
	struct dlt_check c;
	dlt_check_init(&c);
	struct dlt_finding *f = one(&c, "rank 1 (pid 7) holds the job up");
	CU_ASSERT_STRING_EQUAL(f->message, "rank 1 (pid 7) holds the job up");
	CU_ASSERT_PTR_NULL(f->detail);
	dlt_finding_detail(&c, f, "rank(s) %d wait", 0);
	CU_ASSERT_STRING_EQUAL(f->detail, "rank(s) 0 wait");
	dlt_check_free(&c);
}

static void test_clause_cut(void)
{
	struct dlt_check c;
	dlt_check_init(&c);
	char msg[1024], head[128];
	memset(head, 'h', 120);
	head[120] = '\0';
	snprintf(msg, sizeof(msg), "%s; %s; then a great deal more of it", head,
		 "a second clause of forty characters or so");
	struct dlt_finding *f = one(&c, msg);
	TU_CHECK(dlt_text_chars(f->message) <= DLT_HEADLINE_MAX,
		 "headline of %zu characters", dlt_text_chars(f->message));
	CU_ASSERT_STRING_EQUAL(f->message, head);
	TU_CHECK(f->detail && strcmp(f->detail,
				     "a second clause of forty characters or "
				     "so; then a great deal more of it") == 0,
		 "detail: %s", f->detail ? f->detail : "(none)");
	dlt_check_free(&c);
}

/* No clause boundary: cut at a space with "…", the detail whole. */
static void test_word_cut(void)
{
	struct dlt_check c;
	dlt_check_init(&c);
	char msg[1024] = "";
	for (int i = 0; i < 40; i++)
		strcat(msg, "word\xc3\xa9 ");
	struct dlt_finding *f = one(&c, msg);
	size_t n = dlt_text_chars(f->message);
	TU_CHECK(n <= DLT_HEADLINE_MAX && n > DLT_HEADLINE_MAX / 2,
		 "headline of %zu characters", n);
	size_t len = strlen(f->message);
	TU_CHECK(len >= 3 && strcmp(f->message + len - 3, "\xe2\x80\xa6") == 0,
		 "a cut inside a clause does not end in an ellipsis: %s",
		 f->message);
	CU_ASSERT_STRING_EQUAL(f->detail, msg);
	dlt_check_free(&c);
}

static const struct tu_test tests[] = {
	{"a short message is its own headline", test_short},
	{"a long one is cut at its last clause that fits", test_clause_cut},
	{"without clauses: at a space, with the whole as detail",
	 test_word_cut},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"findings", tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
