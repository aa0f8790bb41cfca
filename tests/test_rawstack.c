/* Raw stacks (format 2.4, common/rawcap.c, shim/signals.c,
 * shim/altstack.c, watcher/watch.c): a crash's MODMAP and RAWSTACK, a
 * stack overflow recorded on dltrace's alternate stack, the handler on a
 * program's small alternate stack, the program's view of sigaltstack, a
 * stall's RAWSTACK from the watcher.
 *
 *   test_rawstack [SUITE...]   crash altstack watcher
 */
#define _GNU_SOURCE
#include <elf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define RUN_MS 60000

#if defined(__x86_64__)
#define RAW_PC DLT_RAW_REG_PC_X86_64
#define RAW_SP DLT_RAW_REG_SP_X86_64
#define RAW_ALL ((1ull << 17) - 1)
#else
#define RAW_PC DLT_RAW_REG_PC_AARCH64
#define RAW_SP DLT_RAW_REG_SP_AARCH64
#define RAW_ALL ((1ull << 33) - 1)
#endif

/* The GNU build-id of an ELF file on disk (its PT_NOTE segments). */
static size_t file_build_id(const char *path, uint8_t *out, size_t cap)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return 0;
	Elf64_Ehdr eh;
	size_t got = 0;
	if (fread(&eh, sizeof(eh), 1, f) != 1 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
		goto out;
	for (unsigned i = 0; i < eh.e_phnum && got == 0; i++) {
		Elf64_Phdr ph;
		if (fseek(f, (long)(eh.e_phoff + i * sizeof(ph)), SEEK_SET) ||
		    fread(&ph, sizeof(ph), 1, f) != 1)
			break;
		if (ph.p_type != PT_NOTE || ph.p_filesz > 65536)
			continue;
		uint8_t *b = malloc(ph.p_filesz);
		if (b == NULL || fseek(f, (long)ph.p_offset, SEEK_SET) ||
		    fread(b, 1, ph.p_filesz, f) != ph.p_filesz) {
			free(b);
			continue;
		}
		for (size_t k = 0; k + sizeof(Elf64_Nhdr) <= ph.p_filesz;) {
			Elf64_Nhdr nh;
			memcpy(&nh, b + k, sizeof(nh));
			size_t name = (nh.n_namesz + 3u) & ~3u;
			size_t desc = (nh.n_descsz + 3u) & ~3u;
			size_t at = k + sizeof(nh);
			if (at + name + desc > ph.p_filesz)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp(b + at, "GNU", 4) == 0) {
				got = nh.n_descsz < cap ? nh.n_descsz : cap;
				memcpy(out, b + at + name, got);
				break;
			}
			k = at + name + desc;
		}
		free(b);
	}
out:
	fclose(f);
	return got;
}

/* The first record of type (after index from), or -1. */
static long rec_find(const struct tu_trace *t, uint16_t type, long from)
{
	for (size_t i = from < 0 ? 0 : (size_t)from; i < t->nrecs; i++)
		if (t->recs[i].h->type == type)
			return (long)i;
	return -1;
}

/* The MODMAP entry of t's record index m whose path holds name with a
 * build-id equal to the file's at path.  1 when it is there. */
static int modmap_has(const struct tu_trace *t, long m, const char *name,
		      const char *path)
{
	const struct dlt_rec_modmap *mm = (const void *)t->recs[m].h;
	uint8_t want[24];
	size_t wl = file_build_id(path, want, sizeof(want));
	TU_CHECK(wl == 20, "%s: no 20-byte build-id on disk (%zu)", path, wl);
	for (uint32_t i = 0; i < mm->n; i++) {
		const char *p = tu_trace_str(t, mm->e[i].path);
		if (strstr(p, name) == NULL)
			continue;
		if (mm->e[i].build_id_len == wl &&
		    memcmp(mm->e[i].build_id, want, wl) == 0)
			return 1;
		fprintf(stderr, "  %s: build-id of %u bytes, not the file's\n",
			p, mm->e[i].build_id_len);
	}
	return 0;
}

/* The MODMAP has the C library (libc.so.6, or libc-2.31.so where the
 * mapped file is the versioned one) with the build-id of the file it
 * names. */
static int modmap_has_libc(const struct tu_trace *t, long m)
{
	const struct dlt_rec_modmap *mm = (const void *)t->recs[m].h;
	for (uint32_t i = 0; i < mm->n; i++) {
		const char *p = tu_trace_str(t, mm->e[i].path);
		const char *b = p ? strrchr(p, '/') : NULL;
		if (b == NULL || (strncmp(b, "/libc.so", 8) != 0 &&
				  strncmp(b, "/libc-", 6) != 0))
			continue;
		return modmap_has(t, m, b, p);
	}
	return 0;
}

/* Runs fx_rawstack MODE under the shim: its trace read into *s, the
 * fixture's trace returned (NULL: a failed check). */
static struct tu_trace *run_mode(const char *mode, const char *const env[],
				 struct tu_proc *p, char **dir,
				 struct tu_traceset *s)
{
	char *fx = tu_fx("fx_rawstack");
	*dir = tu_tmpdir(mode);
	const char *cmd[] = {fx, mode, NULL};
	const char **e = tu_preload_env(*dir, env, 0);
	tu_run(p, cmd, e, RUN_MS);
	free(e);
	free(fx);
	tu_traceset_read(*dir, s, 0);
	return tu_traceset_only(s, "fx_rawstack");
}

static uint64_t line_hex(const char *text, const char *prefix)
{
	char buf[64];
	const char *v = tu_line_value(text, prefix, buf, sizeof(buf));
	return v ? strtoull(v, NULL, 16) : 0;
}

/* ---- suite: crash ------------------------------------------------------- */

static void test_crash_raw(void)
{
	struct tu_proc p;
	struct tu_traceset s;
	char *dir;
	struct tu_trace *t = run_mode("crash", NULL, &p, &dir, &s);
	TU_CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGSEGV,
		 "fixture: %s", tu_status_str(p.status));
	uint64_t func = line_hex(p.out, "func ");
	uint64_t pat = line_hex(p.out, "pattern ");
	TU_CHECK_FATAL(t && func && pat, "no trace or no addresses: %s", p.out);
	long mm = rec_find(t, DLT_REC_MODMAP, 0);
	long sg = rec_find(t, DLT_REC_SIGNAL, mm);
	long rs = rec_find(t, DLT_REC_RAWSTACK, sg);
	TU_CHECK_FATAL(mm >= 0 && sg > mm && rs > sg,
		       "MODMAP %ld, SIGNAL %ld, RAWSTACK %ld: not in order", mm,
		       sg, rs);
	const struct dlt_rec_signal *sig = (const void *)t->recs[sg].h;
	TU_CHECK(sig->n == 1 && !(sig->h.flags & DLT_SIG_SCANNED) &&
			 sig->frames[0].pc >= func &&
			 sig->frames[0].pc < func + 256 &&
			 strstr(tu_trace_str(t, sig->frames[0].obj),
				"fx_rawstack"),
		 "SIGNAL: %u frames, flags %#x", sig->n, sig->h.flags);
	const struct dlt_rec_rawstack *r = (const void *)t->recs[rs].h;
	TU_CHECK(r->why == DLT_RAW_CRASH && r->tid == sig->tid,
		 "RAWSTACK why %u tid %u", r->why, r->tid);
	TU_CHECK(r->regs_known == RAW_ALL, "regs_known %#llx",
		 (unsigned long long)r->regs_known);
	TU_CHECK(r->regs[RAW_PC] == sig->frames[0].pc &&
			 r->regs[RAW_SP] == r->sp,
		 "pc %#llx sp %#llx (copy from %#llx)",
		 (unsigned long long)r->regs[RAW_PC],
		 (unsigned long long)r->regs[RAW_SP],
		 (unsigned long long)r->sp);
	TU_CHECK(r->stack_lo && r->sp >= r->stack_lo && r->sp < r->stack_hi,
		 "sp outside its stack mapping");
	TU_CHECK(r->len > 0 && sizeof(*r) + r->len <= r->h.len,
		 "len %u in a record of %u", r->len, r->h.len);
	/* The pattern, where the fixture wrote it. */
	int same = pat >= r->sp && pat + 64 <= r->sp + r->len;
	for (int i = 0; same && i < 8; i++) {
		uint64_t v;
		memcpy(&v, r->bytes + (pat - r->sp) + 8 * (size_t)i, 8);
		same = v == 0x5ca1ab1e0ddba11ull + (uint64_t)i;
	}
	TU_CHECK(same, "the stack copy lacks the pattern at %#llx",
		 (unsigned long long)pat);
	char *fx = tu_fx("fx_rawstack");
	TU_CHECK(modmap_has(t, mm, "/fx_rawstack", fx),
		 "MODMAP lacks the fixture with its build-id");
	TU_CHECK(modmap_has_libc(t, mm), "MODMAP lacks libc with its build-id");
	TU_CHECK(sizeof(struct dlt_rec_modmap) + t->recs[mm].h->len +
				 r->h.len <=
			 48 * 1024,
		 "capture of %u + %u bytes", t->recs[mm].h->len, r->h.len);
	free(fx);
	tu_traceset_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* Endless recursion: recorded on dltrace's alternate stack, the process
 * still dies of SIGSEGV. */
static void test_overflow(void)
{
	struct tu_proc p;
	struct tu_traceset s;
	char *dir;
	struct tu_trace *t = run_mode("overflow", NULL, &p, &dir, &s);
	TU_CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGSEGV,
		 "fixture: %s", tu_status_str(p.status));
	TU_CHECK_FATAL(t != NULL, "no trace");
	long sg = rec_find(t, DLT_REC_SIGNAL, 0);
	long rs = rec_find(t, DLT_REC_RAWSTACK, sg);
	TU_CHECK_FATAL(sg >= 0 && rs > sg, "SIGNAL %ld RAWSTACK %ld", sg, rs);
	const struct dlt_rec_signal *sig = (const void *)t->recs[sg].h;
	const struct dlt_rec_rawstack *r = (const void *)t->recs[rs].h;
	TU_CHECK(sig->signo == SIGSEGV, "signal %d", sig->signo);
	TU_CHECK(r->stack_lo != 0 && r->sp >= r->stack_lo &&
			 r->sp - r->stack_lo < 64 * 1024 && r->len > 0,
		 "sp %#llx, stack %#llx-%#llx, len %u",
		 (unsigned long long)r->sp, (unsigned long long)r->stack_lo,
		 (unsigned long long)r->stack_hi, r->len);
	TU_CHECK(sig->addr < r->stack_lo && sig->addr + 8192 >= r->stack_lo,
		 "fault at %#llx, stack from %#llx",
		 (unsigned long long)sig->addr,
		 (unsigned long long)r->stack_lo);
	tu_traceset_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* The program's own small alternate stack: the shim's handler runs first
 * on it and fits. */
static void test_small_altstack(void)
{
	struct tu_proc p;
	struct tu_traceset s;
	char *dir;
	struct tu_trace *t = run_mode("smallalt", NULL, &p, &dir, &s);
	TU_CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGSEGV,
		 "fixture: %s (%s)", tu_status_str(p.status), p.err);
	TU_CHECK_FATAL(t != NULL, "no trace");
	long sg = rec_find(t, DLT_REC_SIGNAL, 0);
	long rs = rec_find(t, DLT_REC_RAWSTACK, sg);
	TU_CHECK(sg >= 0 && rs > sg && rec_find(t, DLT_REC_SIGNAL, sg + 1) < 0,
		 "SIGNAL %ld RAWSTACK %ld", sg, rs);
	tu_traceset_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suite: altstack ---------------------------------------------------- */

/* What sigaltstack says, plainly and under the shim (and with the
 * alternate stacks off): the same lines. */
static void test_altview(void)
{
	char *fx = tu_fx("fx_rawstack");
	const char *cmd[] = {fx, "altview", NULL};
	struct tu_proc plain, traced, off;
	tu_run(&plain, cmd, NULL, RUN_MS);
	char *dir = tu_tmpdir("altview");
	const char **e = tu_preload_env(dir, NULL, 0);
	tu_run(&traced, cmd, e, RUN_MS);
	free(e);
	const char *offenv[] = {"DLTRACE_ALTSTACK=0", NULL};
	e = tu_preload_env(dir, offenv, 0);
	tu_run(&off, cmd, e, RUN_MS);
	free(e);
	TU_CHECK(plain.status == 0 && traced.status == 0, "plain %s, traced %s",
		 tu_status_str(plain.status), tu_status_str(traced.status));
	TU_CHECK(tu_count_lines(plain.out, "vfork child:") == 1,
		 "no vfork child line: %s", plain.out);
	TU_CHECK(strcmp(plain.out, traced.out) == 0,
		 "sigaltstack differs under the shim:\n--- plain\n%s--- "
		 "traced\n%s",
		 plain.out, traced.out);
	TU_CHECK(strcmp(plain.out, off.out) == 0,
		 "DLTRACE_ALTSTACK=0 differs:\n%s", off.out);
	tu_proc_free(&plain);
	tu_proc_free(&traced);
	tu_proc_free(&off);
	tu_rmtree(dir);
	free(dir);
	free(fx);
}

/* DLTRACE_ALTSTACK=0: an overflow dies unrecorded, as before, and
 * nothing else changes. */
static void test_altstack_off(void)
{
	struct tu_proc p;
	struct tu_traceset s;
	char *dir;
	const char *env[] = {"DLTRACE_ALTSTACK=0", NULL};
	struct tu_trace *t = run_mode("overflow", env, &p, &dir, &s);
	TU_CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGSEGV,
		 "fixture: %s", tu_status_str(p.status));
	TU_CHECK(t == NULL || rec_find(t, DLT_REC_RAWSTACK, 0) < 0,
		 "a RAWSTACK without an alternate stack");
	tu_traceset_free(&s);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

/* ---- suite: watcher ----------------------------------------------------- */

/* A stall seen by the launcher's watcher: MODMAP (libc with its build-id)
 * and RAWSTACK (pc and sp known, stack bytes) in the companion. */
static void test_watcher_raw(void)
{
	char *dir = tu_tmpdir("rawstall");
	const char *cmd[] = {"/bin/sleep", "3", NULL};
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	const char *env[] = {"DLTRACE_WATCHDOG=1", "DLTRACE_STALL_MS=300",
			     NULL};
	struct tu_proc p;
	TU_CHECK_FATAL(tu_proc_start(&p, argv, env) == 0, "cannot start");
	free(argv);
	struct timespec nap = {0, 100 * 1000 * 1000};
	int ok = 0;
	for (int waited = 0; waited < 20000 && !ok; waited += 100) {
		struct tu_traceset s;
		tu_traceset_read(dir, &s, 1);
		for (size_t i = 0; i < s.n && !ok; i++) {
			struct tu_trace *t = &s.t[i];
			long mm = rec_find(t, DLT_REC_MODMAP, 0);
			long rs = rec_find(t, DLT_REC_RAWSTACK, mm);
			if (mm < 0 || rs < 0)
				continue;
			ok = 1;
			const struct dlt_rec_rawstack *r =
				(const void *)t->recs[rs].h;
			TU_CHECK(r->why == DLT_RAW_STALL &&
					 r->regs_known == ((1ull << RAW_PC) |
							   (1ull << RAW_SP)) &&
					 r->regs[RAW_SP] == r->sp &&
					 r->len > 0 && r->stack_lo &&
					 r->sp >= r->stack_lo,
				 "RAWSTACK why %u known %#llx len %u", r->why,
				 (unsigned long long)r->regs_known, r->len);
			TU_CHECK(modmap_has_libc(t, mm),
				 "the watcher's MODMAP lacks libc with its "
				 "build-id");
			TU_CHECK(t->nrec[DLT_REC_STACK] == 0,
				 "a STACK record still");
		}
		tu_traceset_free(&s);
		if (!ok)
			nanosleep(&nap, NULL);
	}
	TU_CHECK(ok, "no MODMAP and RAWSTACK from the watcher");
	tu_kill_group(&p);
	tu_proc_free(&p);
	tu_rmtree(dir);
	free(dir);
}

static const struct tu_test crash_tests[] = {
	{"a crash's MODMAP and RAWSTACK", test_crash_raw},
	{"a stack overflow is recorded", test_overflow},
	{"the handler on a program's small alternate stack",
	 test_small_altstack},
	{NULL, NULL}};

static const struct tu_test altstack_tests[] = {
	{"the program's view of sigaltstack", test_altview},
	{"DLTRACE_ALTSTACK=0", test_altstack_off},
	{NULL, NULL}};

static const struct tu_test watcher_tests[] = {
	{"a stall's MODMAP and RAWSTACK", test_watcher_raw}, {NULL, NULL}};

static const struct tu_suite suites[] = {{"crash", crash_tests, NULL},
					 {"altstack", altstack_tests, NULL},
					 {"watcher", watcher_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
