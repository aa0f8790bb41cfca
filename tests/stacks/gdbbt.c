/* gdb's backtrace as ground truth for the stack tests (gdbbt.h). */
#define _GNU_SOURCE
#include "gdbbt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

const char *dlt_gdb_path(void)
{
	return DLT_TEST_GDB;
}

int dlt_gdb_missing(void)
{
	return DLT_TEST_GDB[0] == '\0' || access(DLT_TEST_GDB, X_OK) != 0;
}

size_t dlt_gdb_bt(const char *prog, const char *debug_dir,
		  struct dlt_gdbframe *out, size_t cap)
{
	const char *cmd[] = {prog, NULL};
	return dlt_gdb_bt_argv(cmd, debug_dir, out, cap);
}

size_t dlt_gdb_bt_argv(const char *const cmd[], const char *debug_dir,
		       struct dlt_gdbframe *out, size_t cap)
{
	const char *prog = cmd[0];
	char *dfd =
		debug_dir ? tu_strfmt("set debug-file-directory %s", debug_dir)
			  : tu_strfmt("set pagination off");
	const char *argv[] = {dlt_gdb_path(),
			      "-nx",
			      "-batch",
			      "-iex",
			      "set debuginfod enabled off",
			      "-iex",
			      dfd,
			      "-iex",
			      "handle SIGUSR1 nostop noprint pass",
			      "-ex",
			      "run",
			      "-ex",
			      "bt",
			      "--args",
			      NULL,
			      NULL,
			      NULL,
			      NULL,
			      NULL,
			      NULL,
			      NULL,
			      NULL,
			      NULL};
	/* The program and its arguments after --args (at most eight). */
	size_t at = 0;
	while (argv[at] == NULL || strcmp(argv[at], "--args") != 0)
		at++;
	for (size_t i = 0; cmd[i] && i < 8; i++)
		argv[at + 1 + i] = cmd[i];
	struct tu_proc p;
	size_t n = 0;
	if (tu_run(&p, argv, NULL, 60000) != 0) {
		TU_CHECK(0, "gdb on %s timed out", prog);
		goto out;
	}
	for (char *l = p.out; l && *l && n < cap;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (l[0] == '#') {
			char *s = l + 1;
			while (*s >= '0' && *s <= '9')
				s++;
			while (*s == ' ')
				s++;
			struct dlt_gdbframe *f = &out[n++];
			memset(f, 0, sizeof(*f));
			if (strncmp(s, "<signal handler called>", 23) == 0) {
				f->signal = 1;
			} else {
				if (strncmp(s, "0x", 2) == 0) {
					char *in = strstr(s, " in ");
					s = in ? in + 4 : s;
				}
				char *e = strstr(s, " (");
				size_t len = e ? (size_t)(e - s) : strlen(s);
				if (len >= sizeof(f->name))
					len = sizeof(f->name) - 1;
				memcpy(f->name, s, len);
				if (strcmp(f->name, "??") == 0)
					f->name[0] = '\0';
				if (strcmp(f->name, "main") == 0)
					break;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
out:
	if (n == 0)
		fprintf(stderr, "gdb's output:\n%s\n%s\n", p.out ? p.out : "",
			p.err ? p.err : "");
	tu_proc_free(&p);
	free(dfd);
	return n;
}

/* Whether frame f is the function gdb named: gdb's name within ours
 * (ours has a C++ template's return type).  In libc, one of the aliases
 * of an address (gdb's "__printf" is "printf"). */
int dlt_gdb_same_func(const struct dlt_uframe *f, const char *gdb)
{
	if (strstr(f->func, gdb))
		return 1;
	if (f->obj == NULL || strstr(f->obj, "/libc.so") == NULL ||
	    f->func[0] == '\0')
		return 0;
	const char *a = f->func, *b = gdb;
	while (*a == '_')
		a++;
	while (*b == '_')
		b++;
	return strstr(a, b) || strstr(b, a);
}
