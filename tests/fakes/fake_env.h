/* Environment knobs shared by the fake libraries.  Read at each call, so a
 * test may change them between calls in one process.  Static inline: each
 * fake library carries its own copy and exports none of it. */
#ifndef DLT_FAKE_ENV_H
#define DLT_FAKE_ENV_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

/* The integer value of NAME, or DFLT when unset, empty or not a number. */
static inline long fake_env_long(const char *name, long dflt)
{
	const char *s = getenv(name);
	if (s == NULL || *s == '\0')
		return dflt;
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0')
		return dflt;
	return v;
}

/* Whether the comma-separated list in NAME holds the integer V. */
static inline int fake_env_list_has(const char *name, long v)
{
	const char *s = getenv(name);
	while (s != NULL && *s != '\0') {
		char *end = NULL;
		long x = strtol(s, &end, 0);
		if (end == s)
			return 0;
		if (x == v)
			return 1;
		s = strchr(end, ',');
		if (s != NULL)
			s++;
	}
	return 0;
}

/* Misbehaviour on request: NAME holds "func:code[@n],..." entries.  Returns
 * 1 and sets *code when FUNC is listed and this is at least its n-th call
 * (CALLNO counts from 1; without @n every call fails).  Not matched as a
 * prefix: "cudaMemcpy" does not match "cudaMemcpyAsync". */
static inline int fake_env_fail(const char *name, const char *func, long callno,
				long *code)
{
	const char *s = getenv(name);
	size_t flen = strlen(func);
	while (s != NULL && *s != '\0') {
		const char *colon = strchr(s, ':');
		const char *comma = strchr(s, ',');
		if (colon == NULL)
			return 0;
		if (comma != NULL && comma < colon) {
			s = comma + 1;
			continue;
		}
		if ((size_t)(colon - s) == flen && memcmp(s, func, flen) == 0) {
			char *end = NULL;
			long c = strtol(colon + 1, &end, 0);
			long from = 1;
			if (*end == '@')
				from = strtol(end + 1, &end, 0);
			if (callno >= from) {
				*code = c;
				return 1;
			}
		}
		s = comma != NULL ? comma + 1 : NULL;
	}
	return 0;
}

#endif
