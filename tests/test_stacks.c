/* The offline unwinder and namer (analyzer/stacks/unwind.h) on stacks of
 * real crashes: each fixture crashed under ptrace (stacks/capture.c) and
 * unwound from the capture, its functions against gdb's backtrace of the
 * same program, down to main. */
#define _GNU_SOURCE
#include "capture.h"
#include "demangle.h"
#include "elfread.h"
#include "gdbbt.h"
#include "testutil.h"
#include "unwind.h"
#include "uscan.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAXF 128

static void show(const char *what, const struct dlt_uframe *f, size_t n,
		 const char *stop)
{
	fprintf(stderr, "%s: %zu frames, stop: %s\n", what, n, stop);
	for (size_t i = 0; i < n; i++) {
		char b[600];
		fprintf(stderr, "  #%zu %s how=%d%s src=%s from=%s%s\n", i,
			dlt_uframe_format(&f[i], b, sizeof(b)), f[i].how,
			f[i].signal ? " SIGNAL" : "", f[i].src,
			f[i].name_src ? f[i].name_src : "-",
			f[i].unnamed ? f[i].unnamed : "");
	}
}

/* The unwound frames against gdb's, one for one, down to gdb's main. */
static void same_as_gdb(const char *what, const struct dlt_gdbframe *g,
			size_t ng, const struct dlt_uframe *f, size_t n)
{
	TU_CHECK_FATAL(ng > 0, "%s: gdb gave no frames", what);
	TU_CHECK(strcmp(g[ng - 1].name, "main") == 0,
		 "%s: gdb's backtrace does not reach main", what);
	for (size_t i = 0; i < ng; i++) {
		if (i >= n) {
			TU_CHECK(0, "%s: %zu frames, gdb has %zu", what, n, ng);
			return;
		}
		if (g[i].signal) {
			TU_CHECK(f[i].signal,
				 "%s: frame %zu is gdb's signal frame", what,
				 i);
			continue;
		}
		TU_CHECK(!f[i].signal, "%s: frame %zu: not a signal frame",
			 what, i);
		if (g[i].name[0] == '\0')
			continue;
		TU_CHECK(dlt_gdb_same_func(&f[i], g[i].name),
			 "%s: frame %zu is \"%s\", gdb says \"%s\"", what, i,
			 f[i].func, g[i].name);
	}
}

struct run {
	struct cap c;
	struct dlt_uframe f[MAXF];
	size_t n;
	char stop[256];
	struct dlt_gdbframe g[MAXF];
	size_t ng;
	struct dlt_unwinder *own; /* the frames' strings live in it */
};

/* prog crashed, captured, unwound with u (a fresh one when NULL), and
 * gdb's backtrace of it.  0, or -1 (reported). */
static int run_one(const char *prog, struct dlt_unwinder *u,
		   const char *debug_dir, struct run *r)
{
	struct dlt_unwinder *keep = r->own;
	memset(r, 0, sizeof(*r));
	r->own = keep;
	const char *argv[] = {prog, NULL};
	char err[256];
	if (cap_run(argv, NULL, &r->c, err, sizeof(err)) != 0) {
		TU_CHECK(0, "%s: %s", prog, err);
		return -1;
	}
	dlt_unwinder_free(r->own);
	r->own = u ? NULL : dlt_unwinder_new(NULL);
	r->n = dlt_unwind(u ? u : r->own, &r->c.map, &r->c.st, r->f, MAXF,
			  r->stop, sizeof(r->stop));
	show(prog, r->f, r->n, r->stop);
	r->ng = dlt_gdb_bt(prog, debug_dir, r->g, MAXF);
	return 0;
}

static const char *no_gdb(void)
{
	if (dlt_gdb_missing())
		return "gdb is not installed (scripts/install-deps.sh)";
#if !defined(__x86_64__)
	return "the fixtures' expectations are written for x86-64";
#endif
	return NULL;
}

static size_t find(const struct run *r, const char *func)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->f[i].func, func) == 0)
			return i;
	return (size_t)-1;
}

/* (a) -O2 without frame pointers: CFI all the way, no frame scanned. */
static void test_chain(void)
{
	struct run *r = calloc(1, sizeof(*r));
	if (run_one(DLT_TEST_STK "/stk_chain", NULL, NULL, r) == 0) {
		same_as_gdb("stk_chain", r->g, r->ng, r->f, r->n);
		const char *want[] = {"inner", "middle", "outer", "main"};
		for (size_t i = 0; i < 4; i++)
			TU_CHECK(i < r->n && strcmp(r->f[i].func, want[i]) == 0,
				 "frame %zu: %s", i, want[i]);
		for (size_t i = 0; i < r->n; i++)
			TU_CHECK(r->f[i].how != DLT_UF_SCAN,
				 "frame %zu was scanned", i);
		TU_CHECK(r->f[0].how == DLT_UF_REGS && !r->f[0].caller,
			 "frame 0 is the registers' pc");
		TU_CHECK(r->f[1].how == DLT_UF_CFI && r->f[1].caller,
			 "frame 1 is a return address");
		TU_CHECK(strcmp(r->f[0].name_src, "symtab") == 0,
			 "named from the .symtab");
		TU_CHECK(strncmp(r->f[0].src, "stk_chain.c:", 12) == 0,
			 "frame 0's line: %s", r->f[0].src);
		TU_CHECK(strcmp(r->stop, "outermost frame") == 0,
			 "the unwind ends at _start: %s", r->stop);
		char b[600];
		dlt_uframe_format(&r->f[0], b, sizeof(b));
		TU_CHECK(strncmp(b, "inner+0x", 8) == 0 &&
				 strstr(b, " (stk_chain)") != NULL,
			 "format: %s", b);
	}
	cap_free(&r->c);
	dlt_unwinder_free(r->own);
	free(r);
}

/* (b) C++: demangled names with their namespaces and templates, and the
 * inlined member as a frame of its own. */
static void test_cxx(void)
{
	if (DLT_TEST_STK_CXX[0] == '\0') {
		tu_skip("no C++ compiler: the C++ fixture was not built");
		return;
	}
	struct run *r = calloc(1, sizeof(*r));
	if (run_one(DLT_TEST_STK_CXX, NULL, NULL, r) == 0) {
		same_as_gdb("stk_cxx", r->g, r->ng, r->f, r->n);
		TU_CHECK(r->n > 3 && r->f[0].how == DLT_UF_INLINE &&
				 strstr(r->f[0].func,
					"app::detail::Box<int>::store"),
			 "frame 0: the inlined store");
		TU_CHECK(r->n > 3 && r->f[1].how == DLT_UF_INLINE &&
				 strstr(r->f[1].func,
					"app::detail::Box<int>::put"),
			 "frame 1: put, inlined too");
		TU_CHECK(r->n > 3 && r->f[2].how == DLT_UF_REGS &&
				 strstr(r->f[2].func,
					"app::detail::Box<int>::fill"),
			 "frame 2: fill, where they were inlined");
		TU_CHECK(r->n > 3 && strstr(r->f[3].func, "app::drive<int>"),
			 "frame 3: the template drive");
		char b[600];
		dlt_uframe_format(&r->f[0], b, sizeof(b));
		TU_CHECK(strcmp(b, "app::detail::Box<int>::store (stk_cxx)") ==
				 0,
			 "format of an inline frame: %s", b);
		TU_CHECK(r->n > 3 &&
				 strncmp(r->f[2].src, "stk_cxx.cc:", 11) == 0 &&
				 strcmp(r->f[2].src, r->f[1].src) != 0,
			 "fill's line is the call site of put: %s",
			 r->f[2].src);
	}
	cap_free(&r->c);
	dlt_unwinder_free(r->own);
	free(r);
}

/* (c) A crash in libc, called through a library's PLT. */
static void test_libc(void)
{
	struct run *r = calloc(1, sizeof(*r));
	if (run_one(DLT_TEST_STK "/stk_libc", NULL, NULL, r) == 0) {
		same_as_gdb("stk_libc", r->g, r->ng, r->f, r->n);
		size_t i = find(r, "stk_libc_len");
		TU_CHECK(i != (size_t)-1 && i + 1 < r->n &&
				 strcmp(r->f[i + 1].func, "main") == 0,
			 "stk_libc_len, then main");
		TU_CHECK(r->f[0].obj && strstr(r->f[0].obj, "libc.so"),
			 "frame 0 is in libc");
	}
	cap_free(&r->c);
	dlt_unwinder_free(r->own);
	free(r);
}

/* (d) Across the kernel's signal frame. */
static void test_signal(void)
{
	struct run *r = calloc(1, sizeof(*r));
	if (run_one(DLT_TEST_STK "/stk_signal", NULL, NULL, r) == 0) {
		same_as_gdb("stk_signal", r->g, r->ng, r->f, r->n);
		size_t i = find(r, "waiter");
		TU_CHECK_FATAL(i != (size_t)-1 && i > 0, "waiter is a frame");
		TU_CHECK(r->f[i - 1].signal, "after the signal frame");
		/* The interrupted pc is exact: not a return address. */
		TU_CHECK(!r->f[i].caller, "waiter's pc is not adjusted");
		TU_CHECK(i + 1 < r->n && strcmp(r->f[i + 1].func, "main") == 0,
			 "then main");
		TU_CHECK(strcmp(r->f[0].func, "crash_in_handler") == 0 &&
				 strcmp(r->f[1].func, "on_usr1") == 0,
			 "the handler's frames");
	}
	cap_free(&r->c);
	dlt_unwinder_free(r->own);
	free(r);
}

/* A stale return address in the dead stack is no frame. */
static void test_stale(void)
{
	struct run *r = calloc(1, sizeof(*r));
	if (run_one(DLT_TEST_STK "/stk_stale", NULL, NULL, r) == 0) {
		same_as_gdb("stk_stale", r->g, r->ng, r->f, r->n);
		size_t i = find(r, "real_culprit");
		TU_CHECK(i != (size_t)-1 && i > 0 && i + 1 < r->n &&
				 strcmp(r->f[i + 1].func, "main") == 0,
			 "printf's frames, real_culprit, main");
		TU_CHECK(find(r, "stale_deep") == (size_t)-1,
			 "no stale_deep frame");
		for (size_t k = 0; k < r->n; k++)
			TU_CHECK(r->f[k].how != DLT_UF_SCAN,
				 "frame %zu was scanned", k);
		/* The fixture does what it says: the copy holds a return
		 * address into stale_deep that a scan would take. */
		struct dlt_unwinder *u = dlt_unwinder_new(NULL);
		char stop[256];
		int stale = 0;
		/* libc's file missing: the CFI stops at frame 0 and the
		 * rest is a scan from sp. */
		struct dlt_uframe *f = calloc(MAXF, sizeof(*f));
		struct dlt_umod *mods = calloc(r->c.map.n, sizeof(*mods));
		memcpy(mods, r->c.map.m, r->c.map.n * sizeof(*mods));
		for (size_t k = 0; k < r->c.map.n; k++)
			if (strstr(mods[k].path, "libc.so"))
				mods[k].path = "/nonexistent/libc.so.6";
		struct dlt_umap map = {mods, r->c.map.n};
		size_t n = dlt_unwind(u, &map, &r->c.st, f, MAXF, stop,
				      sizeof(stop));
		show("stk_stale, libc missing", f, n, stop);
		for (size_t k = 0; k < n; k++)
			if (f[k].how == DLT_UF_SCAN &&
			    strcmp(f[k].func, "stale_deep") == 0)
				stale = 1;
		TU_CHECK(stale, "a scan finds the stale stale_deep address "
				"(else the fixture tests nothing)");
		TU_CHECK(strstr(stop, "libc.so.6: file not found; the rest "
				      "scanned") != NULL,
			 "stop: %s", stop);
		free(mods);
		free(f);
		dlt_unwinder_free(u);
	}
	cap_free(&r->c);
	dlt_unwinder_free(r->own);
	free(r);
}

/* ---- names ------------------------------------------------------------ */

static int hexdir(const uint8_t *bid, uint32_t n, const char *root, char *out,
		  size_t cap)
{
	char hex[80];
	for (uint32_t i = 0; i < n && i < 32; i++)
		sprintf(hex + 2 * i, "%02x", bid[i]);
	char *d1 = tu_strfmt("%s/.build-id", root);
	char *d2 = tu_strfmt("%s/.build-id/%.2s", root, hex);
	int rc = (mkdir(d1, 0755) == 0 && mkdir(d2, 0755) == 0) ? 0 : -1;
	snprintf(out, cap, "%s/%s.debug", d2, hex + 2);
	free(d1);
	free(d2);
	return rc;
}

static void expect_dbg_names(const char *what, const struct run *r)
{
	same_as_gdb(what, r->g, r->ng, r->f, r->n);
	const char *want[] = {"dbg_leaf", "dbg_mid", "stk_dbg_entry", "main"};
	for (size_t i = 0; i < 4; i++)
		TU_CHECK(i < r->n && strcmp(r->f[i].func, want[i]) == 0,
			 "%s: frame %zu: %s", what, i, want[i]);
	TU_CHECK(r->n > 2 && r->f[0].name_src &&
			 strcmp(r->f[0].name_src, "debug file") == 0 &&
			 strcmp(r->f[1].name_src, "debug file") == 0,
		 "%s: the static functions named from the debug file", what);
	TU_CHECK(r->n > 0 && strncmp(r->f[0].src, "stk_dbg_lib.c:", 14) == 0,
		 "%s: lines from the debug file: %s", what, r->f[0].src);
}

/* (e) A stripped library: its debug file found by its debuglink beside
 * it, then by its build-id under the debug folder given. */
static void test_debug_file(void)
{
	struct run *r = calloc(1, sizeof(*r));
	if (run_one(DLT_TEST_STK "/stk_dbg", NULL, NULL, r) == 0)
		expect_dbg_names("debuglink", r);
	cap_free(&r->c);

	/* The same without the file beside it: only the build-id finds
	 * it. */
	char *dir = tu_tmpdir("stkdbg");
	char *prog = tu_strfmt("%s/stk_dbg", dir);
	char *lib = tu_strfmt("%s/libstk_dbg.so", dir);
	char *dbg = tu_strfmt("%s/debug", dir);
	char dest[512];
	struct dlt_elf e;
	uint8_t bid[32];
	uint32_t nb = 0;
	if (dlt_elf_open(&e, DLT_TEST_STK "/libstk_dbg.so") == 0) {
		nb = dlt_elf_build_id(&e, bid, sizeof(bid));
		dlt_elf_close(&e);
	}
	TU_CHECK_FATAL(nb > 0, "libstk_dbg.so has a build-id");
	TU_CHECK_FATAL(
		mkdir(dbg, 0755) == 0 &&
			hexdir(bid, nb, dbg, dest, sizeof(dest)) == 0 &&
			tu_copy_file(DLT_TEST_STK "/stk_dbg", prog) == 0 &&
			chmod(prog, 0755) == 0 &&
			tu_copy_file(DLT_TEST_STK "/libstk_dbg.so", lib) == 0 &&
			tu_copy_file(DLT_TEST_STK "/libstk_dbg.so.debug",
				     dest) == 0,
		"copies in %s", dir);
	/* The default folders too: libc's debug files are there. */
	char *dirs = tu_strfmt("%s:/usr/lib/debug", dbg);
	struct dlt_unwinder *u = dlt_unwinder_new(dirs);
	if (run_one(prog, u, dbg, r) == 0)
		expect_dbg_names("build-id", r);
	cap_free(&r->c);
	dlt_unwinder_free(u);

	/* Without the debug folder: .dynsym names the exported one only. */
	u = dlt_unwinder_new("/nonexistent");
	const char *argv[] = {prog, NULL};
	char err[256], stop[256];
	if (cap_run(argv, NULL, &r->c, err, sizeof(err)) == 0) {
		r->n = dlt_unwind(u, &r->c.map, &r->c.st, r->f, MAXF, stop,
				  sizeof(stop));
		show("no debug file", r->f, r->n, stop);
		TU_CHECK(r->n > 3 && r->f[0].func[0] == '\0' &&
				 strcmp(r->f[0].unnamed,
					"no symbol covers it") == 0,
			 "dbg_leaf unnamed without its debug file");
		TU_CHECK(r->n > 3 &&
				 strcmp(r->f[2].func, "stk_dbg_entry") == 0 &&
				 strcmp(r->f[2].name_src, "dynsym") == 0,
			 "stk_dbg_entry from .dynsym");
		char b[600];
		dlt_uframe_format(&r->f[0], b, sizeof(b));
		TU_CHECK(strncmp(b, "libstk_dbg.so+0x", 16) == 0,
			 "format unnamed: %s", b);
		/* The CFI of .eh_frame is still there: no scan. */
		TU_CHECK(r->n > 3 && strcmp(r->f[3].func, "main") == 0 &&
				 r->f[3].how == DLT_UF_CFI,
			 "unwound to main by CFI");
	} else {
		TU_CHECK(0, "%s", err);
	}
	cap_free(&r->c);
	dlt_unwinder_free(u);
	free(dirs);
	tu_rmtree(dir);
	free(dir);
	free(prog);
	free(lib);
	free(dbg);
	dlt_unwinder_free(r->own);
	free(r);
}

/* Another build of a file (its build-id differs from the recorded one):
 * neither its names nor its CFI, the rest scanned. */
static void test_build_id_differs(void)
{
	struct cap c;
	const char *argv[] = {DLT_TEST_STK "/stk_libc", NULL};
	char err[256], stop[256];
	TU_CHECK_FATAL(cap_run(argv, NULL, &c, err, sizeof(err)) == 0, "%s",
		       err);
	char *dir = tu_tmpdir("stkbid");
	char *other = tu_strfmt("%s/libstk_libc.so", dir);
	TU_CHECK_FATAL(
		tu_copy_other_build(DLT_TEST_STK "/libstk_libc.so", other) == 0,
		"another build of libstk_libc.so");
	struct dlt_umod *mods = calloc(c.map.n, sizeof(*mods));
	memcpy(mods, c.map.m, c.map.n * sizeof(*mods));
	for (size_t k = 0; k < c.map.n; k++)
		if (strstr(mods[k].path, "libstk_libc.so"))
			mods[k].path = other;
	struct dlt_umap map = {mods, c.map.n};
	struct dlt_unwinder *u = dlt_unwinder_new(NULL);
	struct dlt_uframe f[MAXF];
	size_t n = dlt_unwind(u, &map, &c.st, f, MAXF, stop, sizeof(stop));
	show("build-id differs", f, n, stop);
	size_t i = 0;
	while (i < n && (f[i].obj == NULL || !strstr(f[i].obj, "libstk_libc")))
		i++;
	TU_CHECK_FATAL(i < n, "a frame in libstk_libc.so");
	TU_CHECK(f[i].func[0] == '\0' &&
			 strcmp(f[i].unnamed, "build-id differs") == 0,
		 "unnamed: build-id differs");
	TU_CHECK(strstr(stop, "libstk_libc.so: build-id differs; the rest "
			      "scanned") != NULL,
		 "stop: %s", stop);
	TU_CHECK(i + 1 < n && f[i + 1].how == DLT_UF_SCAN &&
			 strcmp(f[i + 1].func, "main") == 0,
		 "main found by the scan");

	/* And the capture saved and loaded again unwinds the same. */
	char *path = tu_strfmt("%s/cap", dir);
	struct cap d;
	TU_CHECK_FATAL(cap_save(&c, path) == 0 && cap_load(&d, path) == 0,
		       "save and load");
	struct dlt_uframe g[MAXF];
	char stop2[256];
	size_t n1 = dlt_unwind(u, &c.map, &c.st, f, MAXF, stop, sizeof(stop));
	size_t n2 = dlt_unwind(u, &d.map, &d.st, g, MAXF, stop2, sizeof(stop2));
	TU_CHECK(n1 == n2 && strcmp(stop, stop2) == 0, "the same frames");
	for (size_t k = 0; k < n1 && k < n2; k++)
		TU_CHECK(f[k].pc == g[k].pc &&
				 strcmp(f[k].func, g[k].func) == 0,
			 "frame %zu", k);
	/* dlt_unwind_name: one address of an object. */
	struct dlt_uframe one[4];
	size_t m = dlt_unwind_name(u, f[1].obj, NULL, 0, f[1].rel, 1, one, 4);
	TU_CHECK(m == 1 && strcmp(one[0].func, f[1].func) == 0 &&
			 one[0].func_off == f[1].func_off,
		 "dlt_unwind_name: %s", one[0].func);
	cap_free(&d);
	free(path);
	dlt_unwinder_free(u);
	free(mods);
	cap_free(&c);
	tu_rmtree(dir);
	free(dir);
	free(other);
}

static void test_format(void)
{
	struct dlt_uframe f;
	char b[600];
	memset(&f, 0, sizeof(f));
	f.pc = 0x7f00deadbeefull;
	TU_CHECK(strcmp(dlt_uframe_format(&f, b, sizeof(b)),
			"0x7f00deadbeef") == 0,
		 "%s", b);
	f.obj = "/usr/lib/libfoo.so";
	f.rel = 0x1139;
	TU_CHECK(strcmp(dlt_uframe_format(&f, b, sizeof(b)),
			"libfoo.so+0x1139") == 0,
		 "%s", b);
	snprintf(f.func, sizeof(f.func), "stale_deep");
	f.func_off = 0x41;
	f.how = DLT_UF_CFI;
	TU_CHECK(strcmp(dlt_uframe_format(&f, b, sizeof(b)),
			"stale_deep+0x41 (libfoo.so)") == 0,
		 "%s", b);
	f.how = DLT_UF_INLINE;
	TU_CHECK(strcmp(dlt_uframe_format(&f, b, sizeof(b)),
			"stale_deep (libfoo.so)") == 0,
		 "%s", b);
}

/* The demangler the unwinder and the hangs analysis share. */
static void test_demangle(void)
{
	char b[256];
	if (dlt_demangle("_ZN3app6detail3BoxIiE4fillEi", 1, b, sizeof(b)) !=
	    0) {
		tu_skip("libstdc++.so.6 is not installed: nothing demangles");
		return;
	}
	TU_CHECK(strcmp(b, "app::detail::Box<int>::fill(int)") == 0, "%s", b);
	TU_CHECK(dlt_demangle("_ZN3app6detail3BoxIiE4fillEi", 0, b,
			      sizeof(b)) == 0 &&
			 strcmp(b, "app::detail::Box<int>::fill") == 0,
		 "%s", b);
	TU_CHECK(dlt_demangle("_ZN12_GLOBAL__N_11fEv", 0, b, sizeof(b)) == 0 &&
			 strcmp(b, "(anonymous namespace)::f") == 0,
		 "%s", b);
	TU_CHECK(dlt_demangle("_ZNK3foo3barEv", 0, b, sizeof(b)) == 0 &&
			 strcmp(b, "foo::bar") == 0,
		 "const member: %s", b);
	TU_CHECK(dlt_demangle("main", 0, b, sizeof(b)) == -1 &&
			 strcmp(b, "main") == 0,
		 "a C name stays");
}

static const struct tu_test unwind_tests[] = {
	{"-O2 without frame pointers, as gdb", test_chain},
	{"C++: demangled, inlined frames, as gdb", test_cxx},
	{"a crash in libc through a PLT, as gdb", test_libc},
	{"across a signal frame, as gdb", test_signal},
	{"a stale return address is no frame", test_stale},
	{NULL, NULL}};

static const struct tu_test names_tests[] = {
	{"a stripped library's debug file: debuglink, build-id",
	 test_debug_file},
	{"another build of a file: unnamed, scanned", test_build_id_differs},
	{"the format of a frame", test_format},
	{"C++ names demangled", test_demangle},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"unwind", unwind_tests, no_gdb},
					 {"names", names_tests, no_gdb},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
