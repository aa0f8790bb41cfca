/* A program's crash taken as the crash handler would record it (a RAWSTACK
 * and a MODMAP), from outside with ptrace: for the unwinder's tests and
 * its benchmark.  Saved to and loaded from a file of its own format, so
 * that a benchmark can replay captures. */
#ifndef DLT_TEST_CAPTURE_H
#define DLT_TEST_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind.h"

struct cap {
	struct dlt_ustack st; /* st.bytes: bytes below */
	struct dlt_umap map;  /* map.m: mods below */
	uint8_t *bytes;
	struct dlt_umod *mods;
	int sig; /* the signal it stopped at */
};

/* Runs argv (argv[0] a path; env NULL-terminated "NAME=VALUE" entries
 * added to the environment, or NULL) under ptrace until the first
 * SIGSEGV, SIGBUS, SIGABRT or SIGFPE is about to be delivered (other
 * signals are passed on), takes its registers, up to 32 KiB of its stack
 * from sp and its executable file mappings with their build-ids, and
 * kills it.  Its output goes to /dev/null.  Returns 0, or -1 with err. */
int cap_run(const char *const argv[], const char *const env[], struct cap *c,
	    char *err, size_t errcap);
void cap_free(struct cap *c);

/* 0 or -1. */
int cap_save(const struct cap *c, const char *path);
int cap_load(struct cap *c, const char *path);

#endif
