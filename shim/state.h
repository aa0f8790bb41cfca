/* The process's state as one copy of libdltrace.so sees it: the writer,
 * this thread's chunk, where this library is, and the configuration read
 * once from the environment when the copy starts.  The same file is loaded
 * twice, as the LD_AUDIT module (audit.c) and as the LD_PRELOAD library
 * (preload.c); each copy has its own globals (docs/design.md). */
#ifndef DLTRACE_STATE_H
#define DLTRACE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record.h"

#define DLT_EXPORT __attribute__((visibility("default")))
#define DLT_LIKELY(x) __builtin_expect(!!(x), 1)
#define DLT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The process's writer, as this copy sees it (NULL: not tracing). */
extern struct dlt_writer *dlt_w;
/* This copy's per-thread chunk. */
extern DLT_TLS struct dlt_tls dlt_tls;

static inline struct dlt_writer *dlt_writer_on(void)
{
	struct dlt_writer *w = dlt_w;
	if (DLT_LIKELY(w != NULL) &&
	    DLT_LIKELY(atomic_load_explicit(&w->enabled, memory_order_relaxed)))
		return w;
	return NULL;
}

/* What the audit copy writes into the preload copy before the latter is
 * relocated, so that the preload copy finds the writer.  libdltrace.so
 * as its own audit module finds it at the same offset in both copies,
 * wherever the linker puts it (hot.h); libdltrace-audit.so by its
 * exported name (shim/audit.c). */
#define DLT_RENDEZVOUS_MAGIC 0x646c742d72656e64ull
struct dlt_config;
struct dlt_rendezvous {
	uint64_t magic;
	struct dlt_writer *w;
	uint32_t layout;
	uint32_t pad;
	/* The preload copy's path: the audit copy's dlt_self_path, or the
	 * loader's name of the preload copy (libdltrace-audit.so). */
	const char *self_path;
	/* An address inside libdltrace-audit.so, whose path the exec
	 * wrappers put in LD_AUDIT; NULL: the audit copy is libdltrace.so. */
	const void *audit_addr;
	/* The audit copy's configuration, read from the same environment:
	 * the preload copy takes it instead of reading the variables again
	 * (25 getenv calls at every start, issue 31).  cfg_size is its
	 * sizeof, which must match. */
	const struct dlt_config *cfg;
	uint64_t cfg_size;
};
extern DLT_EXPORT struct dlt_rendezvous dlt_rendezvous;

/* The LD_AUDIT module this process was started with, which the exec and
 * spawn wrappers name in their children's LD_AUDIT: libdltrace-audit.so,
 * or libdltrace.so itself (dlt_self_path). */
extern const char *dlt_audit_path;
/* Its file name, beside libdltrace.so (the launcher looks for it there). */
#define DLT_AUDIT_MODULE "libdltrace-audit.so"

/* Absolute path of this library file, and its file name.  The preload
 * copy with libdltrace-audit.so fills dlt_self_path on first need, from
 * dlt_self_src: read it through dlt_self_file. */
extern char dlt_self_path[DLT_PATH_MAX];
const char *dlt_self_name(void);
/* The loader's name of the preload copy (an absolute path), NULL where
 * dlt_self_path was filled at start. */
extern const char *dlt_self_src;
/* dlt_self_path, its real path made from dlt_self_src when first asked
 * (the exec wrappers, the watcher's program): at start it was a page of
 * its own and four readlinks in every process. */
const char *dlt_self_file(void);
/* Sets dlt_self_path from the object that holds this code, and *base
 * (when not NULL) to its load bias.  Returns 0, or -1 when not found.
 * Safe in the audit copy's la_version (no libdl call). */
int dlt_find_self(uintptr_t *base);

/* The preload copy writes through the audit copy's writer. */
extern bool dlt_have_audit;

/* The DLTRACE_* variables and the launchers' rank variables, read once by
 * dlt_config_read when a copy starts (docs/usage.md lists them). */
struct dlt_config {
	/* DLTRACE_PARENT=<kind>:<pid>:<trace id hex>:<exec seq>, set by the
	 * exec and spawn wrappers of the parent image; parent_kind 0 when
	 * absent or unreadable. */
	char parent_kind; /* 'e' exec, 's' spawn */
	int parent_pid;
	uint64_t parent_id;
	uint32_t parent_seq;
	bool redact_argv;     /* DLTRACE_REDACT_ARGV set */
	bool audit_off;	      /* DLTRACE_AUDIT=0 */
	bool reexec_set;      /* DLTRACE_REEXEC set (restarted once) */
	char reexec_comm[32]; /* its value: the name before the restart */
	int watchdog;	      /* DLTRACE_WATCHDOG: 1, 0, or -1 unset */
	uint64_t stall_ns;    /* DLTRACE_STALL_MS, 5 s by default */
	bool prefetch;	      /* DLTRACE_PREFETCH=1: a thread of dltrace's */
	/* DLTRACE_WATCHER: 1 a watcher runs already (the launcher's), 0 none
	 * is to be started, -1 unset (the process starts the host's). */
	int watcher;
	bool signals;	      /* not DLTRACE_SIGNALS=0 */
	bool altstack;	      /* not DLTRACE_ALTSTACK=0 */
	bool pystack;	      /* not DLTRACE_PYSTACK=0 */
	uint64_t max_size;    /* DLTRACE_MAX_SIZE, 0: the writer's default */
	bool clock_monotonic; /* DLTRACE_CLOCK=monotonic */
	uint64_t run_id;      /* DLTRACE_RUN (hex), 0 unset */
	bool distributed;     /* a launcher's rank variable is set */
	int rank;	      /* from those variables, -1 unknown */
	/* DLTRACE_DIR as the copy started ("dltrace.out" unset): the
	 * environment's own string, not a copy (a 4 KiB array written at
	 * start, a page fault of each copy).  Read at start; the preload
	 * copy keeps its directory in dlt_dir_abs. */
	const char *dir;
	/* DLTRACE_WATCHER_BIN's copy, "" unset: dlt_watcher_bin of the copy
	 * that read the configuration (the preload copy takes the audit
	 * copy's, dlt_config_take). */
	const char *watcher_bin;
};
/* The fields alone, on the page of DLT_HOT that every process touches
 * (shim/state.c); the paths are arrays of their own. */
extern struct dlt_config dlt_cfg;
/* DLTRACE_WATCHER_BIN: the host's watcher program, "" the launcher beside
 * the library.  Written only when set: unset, its page is never touched
 * at start. */
extern char dlt_watcher_bin[DLT_PATH_MAX];
/* The trace directory as an absolute path, "" until the preload copy
 * knew it (dlt_dir_buf: DLTRACE_DIR itself when it is absolute, the
 * launcher's always is, else its real path). */
extern const char *dlt_dir_abs;
extern char dlt_dir_buf[DLT_PATH_MAX];
/* The trace directory, absolute where it can be: dlt_dir_abs, else the
 * directory of the file being written (the first dir_len bytes of the
 * writer's path, copied into buf of cap bytes), else DLTRACE_DIR as the
 * process started.  An absolute DLTRACE_DIR is not copied at start: the
 * writer's path holds it (a 4 KiB copy was a page fault of every
 * process, issue 31). */
const char *dlt_dir_now(char *buf, size_t cap);

/* Reads the configuration; a value that cannot be used is said on stderr
 * (when say) and its default taken. */
void dlt_config_read(bool say);
/* The configuration another copy of the library read from the same
 * environment, taken as this copy's. */
void dlt_config_take(const struct dlt_config *from);

/* src into dst (cap bytes, at least 1), cut to fit.  The start-up path's
 * copy: snprintf would touch the printf machinery's pages of the C library
 * in the preload copy, which otherwise formats nothing at start. */
void dlt_copy_str(char *dst, size_t cap, const char *src);

/* Whether item is one of the ':' or ' '-separated entries of list (the
 * loader's LD_PRELOAD and LD_AUDIT syntax). */
bool dlt_list_has(const char *list, const char *item);

/* The parameters of a process's first trace, from the configuration. */
void dlt_start_params(struct dlt_open_params *p, char *hostbuf, size_t hcap);
void dlt_read_host(char *buf, size_t cap);

/* dltrace's own calls into the GPU libraries (version queries): while
 * non-zero, the wrappers record nothing. */
extern DLT_TLS int dlt_api_depth;

/* The process that owns this copy's memory: set when the preload copy
 * starts and in each child that gets a copy of it (shim/lifecycle.c).  A
 * child that shares it (vfork, clone with CLONE_VM) runs under another
 * pid and must write nothing dltrace keeps: what it wrote would be its
 * parent's.  0 until set (then every process counts as the owner). */
extern pid_t dlt_owner_pid;
/* Whether the calling process owns this memory: a getpid system call,
 * for the paths that write shared state (setting dispositions, a signal's
 * handler, a fork), never for the record path. */
bool dlt_in_owner(void);
/* A forked child (fork, _Fork, clone): a lock of the loader's may be held
 * in it for good (shim/lifecycle.c), so dltrace makes no loader call of
 * its own in it until it execs. */
extern bool dlt_no_loader;

#ifdef DLT_FREESTANDING
/* libdltrace-audit.so (shim/nolibc.c): the command line and environment
 * as the process started, where they lie; 0, or -1 when they cannot be
 * told from the kernel's /proc view (then read that). */
int dlt_nolibc_start_blocks(struct dlt_proc_blocks *b);
/* realpath(3) into out of cap bytes (shim/nolibc.c). */
char *dlt_nolibc_realpath(const char *path, char *out, size_t cap);
#endif

/* Records how this process image ends (enum dlt_exit_how), once. */
void dlt_record_exit(int how, int status);
extern bool dlt_exit_recorded;

#endif
