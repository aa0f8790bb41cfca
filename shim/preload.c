/* The LD_PRELOAD half of libdltrace.so: the start of the process (the
 * writer the audit copy made, or a trace of its own), its threads, its end,
 * and the public dltrace_mark().  Its children are lifecycle.c's.
 *
 * Rules (docs/design.md): never change what the host observes, never take
 * it down.  Wrappers resolve the real function before anything else, record
 * only when tracing is on, and leave errno and dlerror() as the real call
 * left them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "altstack.h"
#include "calls.h"
#include "dltrace/dltrace.h"
#include "exec.h"
#include "hot.h"
#include "lifecycle.h"
#include "prefetch.h"
#include "real.h"
#include "signals.h"
#include "state.h"
#include "symlookup.h"
#include "versions.h"
#include "watchdog.h"

/* The writer of a process without the audit half (DLTRACE_AUDIT=0). */
static struct dlt_writer dlt_own_writer;
DLT_HOT static bool dlt_is_preload; /* this copy is the LD_PRELOAD one */
DLT_HOT static pthread_key_t dlt_thread_key;
/* The key, made when a thread other than the main one first records: a
 * process of one thread never needs it (the end of the process gives its
 * chunks back), and making it at start was a page of the C library's
 * written in every process (issue 31).  0 not made, 1 being made, 2 made,
 * 3 the C library refused. */
DLT_HOT static _Atomic int dlt_thread_key_state;
/* The thread the library started in. */
static __thread bool dlt_main_thread;

static void dlt_thread_exit(void *arg)
{
	(void)arg;
	dlt_wd_call_release();
	dlt_tls_release(dlt_w, &dlt_tls);
	dlt_calls_release(dlt_w);
	dlt_alt_thread_exit();
	/* The audit copy's chunk of this thread, too (writer.h). */
	if (dlt_have_audit && dlt_w && dlt_w->audit_thread_exit)
		dlt_w->audit_thread_exit();
}

static bool dlt_thread_key_ready(void)
{
	int st = atomic_load(&dlt_thread_key_state);
	if (st == 0) {
		int zero = 0;
		if (atomic_compare_exchange_strong(&dlt_thread_key_state, &zero,
						   1)) {
			st = pthread_key_create(&dlt_thread_key,
						dlt_thread_exit) == 0
				     ? 2
				     : 3;
			atomic_store(&dlt_thread_key_state, st);
		}
	}
	/* Another thread makes it: a few instructions away. */
	while ((st = atomic_load(&dlt_thread_key_state)) == 1)
		sched_yield();
	return st == 2;
}

static void dlt_thread_first_chunk(void)
{
	/* Any non-NULL value makes the key's destructor run at thread exit. */
	if (!dlt_main_thread && dlt_thread_key_ready())
		pthread_setspecific(dlt_thread_key, (void *)1);
	/* A thread that records gets a stack to record a crash on. */
	dlt_alt_thread();
}

DLT_EXPORT void dltrace_mark(uint32_t id, uint32_t aux, uint64_t value)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL)
		return;
	/* A program that marks may mark often: the time-stamp counter, once
	 * this thread has no anchor (a cheap check). */
	if (__builtin_expect(dlt_anchor.span == 0, 0))
		dlt_clock_use_tsc();
	struct dlt_rec_mark *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->id = id;
	r->aux = aux;
	r->value = value;
	dlt_rec_commit(r, DLT_REC_MARK, 0, sizeof(*r));
	dlt_prefetch_poll();
}

/* ---- start and end ------------------------------------------------------ */

/* Whether this copy is the LD_PRELOAD one (the base namespace) or the
 * audit one, which runs this constructor too.  No libdl call (see
 * dlt_find_self): the base namespace's list of objects is _r_debug.r_map,
 * and this copy is on it when one of them has our dynamic section. */
static int dlt_in_base_namespace(void)
{
	for (struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next)
		if (l->l_ld == _DYNAMIC)
			return 1;
	return 0;
}

static int dlt_note_startup_obj(struct dl_phdr_info *info, size_t size,
				void *data)
{
	(void)size;
	int *first = data;
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL)
		return 1;
	const char *name = *first ? dlt_exe_path() : info->dlpi_name;
	if (name == NULL || *name == '\0')
		return 0;
	uint32_t ps = dlt_str(w, &dlt_tls, name);
	struct dlt_rec_lib_load *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r) {
		memset((char *)r + sizeof(r->h), 0, sizeof(*r) - sizeof(r->h));
		r->h.ts = dlt_now_ns();
		r->base = info->dlpi_addr;
		r->path = ps;
		r->realpath = ps;
		r->requested = ps;
		r->found_via = *first ? DLT_VIA_MAIN : DLT_VIA_UNKNOWN;
		struct stat st;
		if (stat(name, &st) == 0) {
			r->dev = (uint64_t)st.st_dev;
			r->ino = (uint64_t)st.st_ino;
			r->size = (uint64_t)st.st_size;
			r->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
				      st.st_mtim.tv_nsec;
		}
		dlt_rec_commit(r, DLT_REC_LIB_LOAD, *first ? DLT_LIB_MAIN : 0,
			       sizeof(*r));
	}
	*first = 0;
	return 0;
}

/* The rendezvous holds the audit copy's writer when there is one. */
static bool dlt_rendezvous_ok(void)
{
	struct dlt_rendezvous *rv = &dlt_rendezvous;
	return rv->magic == DLT_RENDEZVOUS_MAGIC && rv->w &&
	       rv->layout == DLT_WRITER_LAYOUT &&
	       rv->w->magic == DLT_WRITER_MAGIC;
}

static struct dlt_tls *dlt_my_tls(void)
{
	return &dlt_tls;
}

/* What both copies of the library share through the writer: the clock's
 * verdict and rate, where forked children write, each copy's chunk. */
static void dlt_writer_join(struct dlt_writer *w)
{
	dlt_clock_share(&w->clock);
	w->tls_of[DLT_WRITER_SHIM] = dlt_my_tls;
	/* The preload copy's absolute directory lives as long as the
	 * process: forked children's traces go there, whatever directory
	 * they run in. */
	if (dlt_dir_abs[0])
		w->dir_abs = dlt_dir_abs;
}

/* The directory absolute, made if missing: children get it in their
 * environment whatever directory they run in.  An absolute one (the
 * launcher's) is taken as it is: its realpath was several system calls,
 * and the audit copy made the directory already (la_version;
 * dlt_start_alone without it).  Not copied either: the writer's path
 * holds it (dlt_dir_now), where the program cannot write over it (a
 * process title over the environment's strings).  A relative one is
 * made absolute in a copy. */
static void dlt_resolve_dir(void)
{
	const char *d = dlt_cfg.dir;
	char *abs = dlt_dir_buf;
	if (d[0] == '/') {
		return;
	} else if (realpath(d, abs) == NULL) {
		mkdir(d, 0755);
		if (realpath(d, abs) == NULL)
			dlt_copy_str(abs, sizeof(dlt_dir_buf), d);
	}
	dlt_dir_abs = abs;
}

/* Without the audit half: the process writes a trace of its own. */
static void dlt_start_alone(char **argv)
{
	dlt_maybe_reexec(argv);
	struct dlt_open_params p;
	char host[256];
	dlt_start_params(&p, host, sizeof(host));
	p.features = DLT_FEAT_PRELOAD;
	mkdir(p.dir, 0755);	 /* an absolute one was taken as it is */
	dlt_w = &dlt_own_writer; /* disabled on failure: says so once */
	dlt_clock_share(&dlt_own_writer.clock);
	if (dlt_writer_create(&dlt_own_writer, &p) != 0)
		return;
	dlt_writer_join(&dlt_own_writer);
	dlt_write_process_info(dlt_w, &dlt_tls, dlt_cfg.redact_argv);
	dlt_note(dlt_w, &dlt_tls, DLT_NOTE_WARN,
		 "no LD_AUDIT module: library search rules were not observed");
	int first = 1;
	dl_iterate_phdr(dlt_note_startup_obj, &first);
}

__attribute__((constructor(101))) static void
dlt_preload_init(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)envp;
	/* The audit copy runs this too, in its own namespace; it starts in
	 * la_version instead.  A rendezvous is only ever made with the
	 * preload copy (the namespace check costs a few microseconds). */
	bool audit = dlt_rendezvous_ok();
	if (!audit && !dlt_in_base_namespace())
		return;
	int saved = errno;
	dlt_is_preload = true;
	/* Before anything that a vfork child could run. */
	dlt_lc_init();
	dlt_writer_kind_self = DLT_WRITER_SHIM;
	/* The audit copy, when there is one, has read the configuration
	 * and said what it did not understand. */
	if (audit && dlt_rendezvous.cfg &&
	    dlt_rendezvous.cfg_size == sizeof(dlt_cfg))
		dlt_config_take(dlt_rendezvous.cfg);
	else
		dlt_config_read(!audit);
	if (audit && dlt_rendezvous.audit_addr) {
		/* libdltrace-audit.so: it named us as the loader did, and
		 * children get the path of the module itself.  Our real path
		 * when first needed (dlt_self_file); a relative name now,
		 * before the program changes its directory. */
		dlt_self_src = dlt_rendezvous.self_path;
		if (dlt_self_src[0] != '/')
			dlt_self_file();
		Dl_info info;
		if (dladdr(dlt_rendezvous.audit_addr, &info) &&
		    info.dli_fname && info.dli_fname[0] == '/')
			dlt_audit_path = info.dli_fname;
	} else if (audit && dlt_rendezvous.self_path) {
		dlt_copy_str(dlt_self_path, sizeof(dlt_self_path),
			     dlt_rendezvous.self_path);
	} else {
		dlt_find_self(NULL);
	}
	/* The real functions are found when first needed, but for those
	 * that may be called in a signal handler, where a walk of the loaded
	 * objects (a lock of the loader's) could deadlock. */
	DLT_REAL(_exit);
	DLT_REAL(_Exit);
	DLT_REAL(abort);
	/* Shells reap their children in a SIGCHLD handler; every wait
	 * wrapper calls the real wait4 (reap.c). */
	DLT_REAL(wait4);
	DLT_REAL(waitid);
	dlt_main_thread = true;
	dlt_on_new_thread = dlt_thread_first_chunk;
	dlt_on_materialized = dlt_watch_materialized;
	dlt_prefetch_init();
	dlt_resolve_dir();
	dlt_restore_comm();
	if (audit) {
		dlt_w = dlt_rendezvous.w;
		dlt_have_audit = true;
		dlt_writer_join(dlt_w);
		dlt_w->preload_thread_start = dlt_thread_first_chunk;
		if (dlt_w->hdr)
			__atomic_fetch_or(&dlt_w->hdr->features,
					  DLT_FEAT_PRELOAD, __ATOMIC_RELAXED);
	} else {
		dlt_start_alone(argv);
	}
	if (dlt_cfg.watchdog == 1 ||
	    (dlt_cfg.watchdog != 0 && dlt_cfg.distributed))
		dlt_watch_ask("distributed job or DLTRACE_WATCHDOG=1");
	/* The main thread's alternate stack, before the handlers that
	 * use it. */
	dlt_alt_init();
	dlt_sig_init();
	errno = saved;
}

__attribute__((destructor)) static void dlt_shim_fini(void)
{
	if (!dlt_is_preload)
		return;
	/* exit() called from inside libc (return from main) or a destructor:
	 * the status is not visible here; the launcher adds it if it can. */
	if (!dlt_exit_recorded)
		dlt_record_exit(DLT_EXIT_NORMAL, -1);
	dlt_writer_cut(dlt_w, 1);
}

/* main's return value: a return from main ends the process through the C
 * library's own exit(), which no wrapper sees.  The program's main is
 * called through dlt_main, which records what it returned and returns it. */
typedef int (*dlt_main_fn)(int, char **, char **);
typedef int (*dlt_start_main_fn)(dlt_main_fn, int, char **, void (*)(void),
				 void (*)(void), void (*)(void), void *);
DLT_HOT static dlt_main_fn dlt_program_main;
DLT_EXPORT int __libc_start_main(dlt_main_fn main, int argc, char **argv,
				 void (*init)(void), void (*fini)(void),
				 void (*rtld_fini)(void), void *stack_end);

static int dlt_main(int argc, char **argv, char **envp)
{
	int r = dlt_program_main(argc, argv, envp);
	int saved = errno;
	dlt_versions_loaded();
	errno = saved;
	dlt_record_exit(DLT_EXIT_MAIN, r);
	/* The end of the process, as at exit(): atexit handlers and
	 * destructors follow, and what they record grows the file again. */
	dlt_writer_cut(dlt_w, 1);
	return r;
}

DLT_EXPORT int __libc_start_main(dlt_main_fn main, int argc, char **argv,
				 void (*init)(void), void (*fini)(void),
				 void (*rtld_fini)(void), void *stack_end)
{
	/* The default version: glibc 2.34's one implementation under both
	 * versions runs a legacy program's init itself; older ones have
	 * 2.2.5 only. */
	dlt_start_main_fn real = (dlt_start_main_fn)dlt_sym_next(
		"__libc_start_main", dlt_self_name());
	if (real == NULL)
		_exit(127); /* no C library to start the program with */
	dlt_main_fn run = main;
	if (dlt_is_preload) {
		dlt_program_main = main;
		run = dlt_main;
	}
	return real(run, argc, argv, init, fini, rtld_fini, stack_end);
}

DLT_EXPORT void exit(int status)
{
	dlt_exit_fn real = DLT_REAL(exit);
	/* The last point where the libraries are whole: atexit handlers and
	 * destructors follow. */
	int saved = errno;
	dlt_versions_loaded();
	errno = saved;
	dlt_record_exit(DLT_EXIT_NORMAL, status);
	dlt_writer_cut(dlt_w, 1);
	real(status);
}

DLT_EXPORT void _exit(int status)
{
	dlt_exit_fn real = DLT_REAL(_exit);
	dlt_record_exit(DLT_EXIT_UNDERSCORE, status);
	dlt_writer_cut(dlt_w, 1);
	real(status);
}

DLT_EXPORT void _Exit(int status)
{
	dlt_exit_fn real = DLT_REAL(_Exit);
	dlt_record_exit(DLT_EXIT_UNDERSCORE, status);
	dlt_writer_cut(dlt_w, 1);
	real(status);
}

/* abort() and a failed assert() end the process by SIGABRT, which kills
 * it without a word of its own: the end is recorded (ABORT; a handler that
 * returns from the signal does not stop the end), then the trace is cut
 * (only system calls, safe in a signal handler).  A SIGABRT handler that
 * does not return leaves the process running with its trace cut; it grows
 * again at its next chunk. */
DLT_EXPORT void abort(void)
{
	dlt_abort_fn real = DLT_REAL(abort);
	int saved = errno;
	dlt_record_exit(DLT_EXIT_ABORT, SIGABRT);
	dlt_writer_cut(dlt_w, 1);
	errno = saved;
	real();
}

/* assert.h declares it only without NDEBUG. */
void __assert_fail(const char *expr, const char *file, unsigned int line,
		   const char *fn) __attribute__((noreturn));

DLT_EXPORT void __assert_fail(const char *expr, const char *file,
			      unsigned int line, const char *fn)
{
	dlt_assert_fn real = DLT_REAL(__assert_fail);
	int saved = errno;
	/* The C library's abort follows, which no wrapper sees. */
	dlt_record_exit(DLT_EXIT_ABORT, SIGABRT);
	dlt_writer_cut(dlt_w, 1);
	errno = saved;
	real(expr, file, line, fn);
}
