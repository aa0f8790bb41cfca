/* The analyzer's view of a trace: one struct dlt_process per trace file
 * (that is, per process image), built once and then only read.
 *
 * Ownership: loading copies every string the model keeps into memory owned
 * by the process (one arena per process), and closes the trace before it
 * returns.  Nothing in a struct dlt_process points into the trace file, so
 * hundreds of traces can be loaded without holding hundreds of mappings, and
 * dlt_process_free releases everything. */
#ifndef DLTRACE_MODEL_H
#define DLTRACE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dltrace/format.h"
#include "unwind.h"
#include "mem.h"
#include "names.h"
#include "reader.h"
#include "text.h"

/* How a process image ended; the values match enum dlt_exit_how. */
enum dlt_end_how {
	DLT_END_NONE = 0, /* no end record: SIGKILL, crash, or still running */
	DLT_END_NORMAL = DLT_EXIT_NORMAL,	  /* exit() or main returned */
	DLT_END_UNDERSCORE = DLT_EXIT_UNDERSCORE, /* _exit() / _Exit() */
	DLT_END_EXEC = DLT_EXIT_EXEC,		  /* image replaced by exec */
	DLT_END_REAPED = DLT_EXIT_REAPED, /* wait status seen by the launcher */
	DLT_END_MAIN = DLT_EXIT_MAIN,	  /* main() returned status */
	DLT_END_ABORT = DLT_EXIT_ABORT,	  /* abort(): SIGABRT */
};

struct dlt_end {
	enum dlt_end_how how;
	/* NORMAL, UNDERSCORE, MAIN: the exit status, -1 when it was not
	 * seen.  REAPED: the raw wait status.  ABORT: the signal.  Otherwise
	 * 0. */
	int32_t status;
	uint64_t ts;	       /* of the deciding record, 0 for NONE */
	const char *exec_path; /* EXEC: program exec'ed, NULL if unknown */
	/* REAPED: the pid of the traced parent whose wait returned the
	 * status (a REAP record in its trace), 0 when the launcher did; and
	 * how the process's own records said it ended (MAIN, ABORT ...;
	 * NONE when they said nothing). */
	uint32_t reaped_by;
	uint64_t reaper_trace; /* the trace_id of the image that reaped */
	enum dlt_end_how own;
	/* NONE: the last sign of life (latest record or heartbeat) after
	 * the trace's start, and whether the process runs now (enum
	 * dlt_live: this machine's /proc). */
	uint64_t seen_for_ns;
	int live;
	/* dltrace itself ended it (the launcher's KILL records, after
	 * --hang-timeout): the last signal it sent (SIGTERM, SIGKILL), 0
	 * none, and when it sent the first. */
	int dltrace_sig;
	uint64_t dltrace_ts;
	/* It was still alive when dltrace's first signal came (a record or a
	 * heartbeat at or after it): an exit after that answered it. */
	bool dltrace_after;
	/* Its trace is damaged or cut (the reader's first offset of it):
	 * what was lost may have held its end. */
	bool damaged;
	uint64_t damage_off;
};

/* Exit code of a process that exited, else -1 (signal, exec, no end). */
int dlt_end_exit_code(const struct dlt_end *e);
/* Signal that killed the process as seen by the launcher, else 0. */
int dlt_end_signal(const struct dlt_end *e);
/* True when the end deserves attention: no end record, a non-zero exit
 * code, or a signal.  An exec, or an exit whose status was not seen, is
 * not a failure. */
bool dlt_end_is_failure(const struct dlt_end *e);
/* True for a failure a traced parent may have handled: a non-zero exit
 * code, or a signal sent to stop a process (SIGHUP, SIGINT, SIGPIPE,
 * SIGTERM), that a traced parent reaped.  A crash (SIGSEGV, abort, ...) or
 * SIGKILL (the OOM killer's) is never one. */
bool dlt_end_handleable(const struct dlt_end *e);
/* "exited with status 1", "killed by signal 9 (SIGKILL)", ...  Returns buf. */
const char *dlt_end_describe(const struct dlt_end *e, char *buf, size_t len);

/* One path the loader tried for a library. */
struct dlt_tried_path {
	const char *path;
	uint32_t via; /* enum dlt_found_via, unchecked */
};

/* One row of the library table: a LIB_LOAD or a LIB_FAIL record. */
struct dlt_lib {
	uint64_t ts;
	uint64_t offset; /* of the record in the trace file */
	uint32_t tid;
	bool from_fail_record; /* LIB_FAIL: nothing was mapped */
	bool failed;	       /* LIB_FAIL, or mapped and then unloaded */
	bool unloaded;	       /* a LIB_UNLOAD record unmapped it */
	const char *requested; /* name as asked for */
	const char *requester; /* path of the object that asked */
	const char *path;      /* as the loader opened it */
	const char *realpath;
	const char *soname;
	const char *runpath;
	const char *rpath;
	uint32_t found_via; /* enum dlt_found_via, unchecked */
	uint32_t flags;	    /* DLT_LIB_* */
	uint64_t obj;
	uint64_t requester_obj;
	uint64_t base;
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	int64_t mtime_ns;
	int64_t lmid;
	uint32_t build_id_len; /* at most 32 */
	uint8_t build_id[32];
	uint32_t n_tried;
	struct dlt_tried_path *tried;
	/* Failed rows only: what the program got from dlerror() after the
	 * failing dlopen, else a description made up from the records. */
	const char *error;
	int32_t dlopen_mode;	 /* RTLD_* of the dlopen in progress, or -1 */
	const char *dlopen_name; /* name that dlopen was given, or NULL */
};

/* A library's own answer about its version (a LIB_FAMILY record): the
 * family (enum dlt_family), the file, and the version word in the
 * family's encoding (cuDNN 9: 91900; NCCL: 22809; CUDA: 13000). */
struct dlt_reported_version {
	uint32_t family;
	uint32_t source; /* enum dlt_family_source */
	const char *path;
	int64_t version;
};

struct dlt_env_var {
	const char *name;
	const char *value;
	bool redacted;
};

struct dlt_note_entry {
	uint64_t ts;
	uint32_t level; /* enum dlt_note_level */
	const char *text;
};

/* A child this process reaped (REAP record): its pid and wait status. */
struct dlt_fork_rec {
	uint64_t ts;
	uint32_t pid;
};

struct dlt_reap_rec {
	uint64_t ts;
	uint32_t pid;
	int32_t status;
	uint64_t max_rss_kb; /* the child's peak RSS, 0 unknown */
};

/* A reading of the memory cgroup's out-of-memory evidence (MEMCG). */
struct dlt_memcg_seen {
	uint64_t ts;
	uint32_t flags;				  /* DLT_MEMCG_* */
	uint32_t subject;			  /* the pid it is about */
	const char *cgroup;			  /* "" unknown */
	uint64_t oom_kills, limit, sys_oom_kills; /* DLT_MEMCG_UNKNOWN ... */
	uint64_t max_rss_kb;			  /* DEATH: subject's peak */
	int32_t status;				  /* DEATH: subject's */
};

/* A signal the launcher sent this process (KILL). */
struct dlt_kill_rec {
	uint64_t ts;
	uint32_t why; /* enum dlt_kill_why */
	int32_t signal;
	int32_t err; /* 0: sent */
};

/* A frame of a SIGNAL record: a code address, and the file mapped there
 * with the address's offset in it (file NULL when unknown). */
struct dlt_sig_frame_ev {
	uint64_t pc;
	uint64_t off;
	const char *file;
};

/* A signal the process received (SIGNAL record, shim/signals.c), or one
 * the launcher passed on to it (forwarded). */
struct dlt_signal_ev {
	uint64_t ts;
	int32_t signo;
	int32_t code; /* si_code */
	uint64_t addr;
	uint32_t tid;
	int32_t sender_pid; /* 0 none */
	uint32_t sender_uid;
	const char *sender_comm; /* NULL unknown */
	uint32_t action;	 /* enum dlt_sig_action */
	uint32_t flags;		 /* DLT_SIG_* */
	uint32_t nframes;
	const struct dlt_sig_frame_ev *frames; /* frames[0] the pc */
	/* The thread's Python stack, written by the handler after the
	 * signal (PYSTACK, flag DLT_PYSTACK_F_SIGNAL): "file:line in func",
	 * innermost first; py_top the program's own innermost frame; py_why
	 * why none or not all could be read.  NULL and 0 without one. */
	const char **py_frames;
	uint32_t npy;
	const char *py_top;
	const char *py_why;
	/* A signal another thread than main got: the main thread's
	 * innermost frame then (PYSTACK flag DLT_PYSTACK_F_MAIN); NULL none
	 * or the main thread's own signal. */
	const char *main_py;
	/* The PYSTACK itself (a copy), for the merged stack; NULL none. */
	const struct dlt_rec_pystack *py_rec;
	/* The thread's registers and stack copy (RAWSTACK, format 2.4) and
	 * the mappings they are read against (the latest MODMAP before
	 * it); NULL where the writer recorded none. */
	const struct dlt_ustack *raw;
	const struct dlt_umap *map;
};

/* A MODMAP record: the executable mappings at ts. */
struct dlt_modmap_ev {
	uint64_t ts;
	struct dlt_umap map;
	bool trunc; /* the writer left mappings out */
};

/* An execve that returned: the process carried on. */
struct dlt_exec_fail {
	uint64_t ts;
	const char *path;
	int32_t err; /* errno */
};

struct dlt_type_count {
	uint16_t type;
	uint64_t count;
};

/* The system and runtimes a process reported (SYSTEM and RUNTIME_VERSION
 * records, format 2.2); NULL where none was written. */
struct dlt_sysinfo {
	const char *os, *kernel, *glibc, *machine;
	const char *python, *python_path; /* version, the file that said it */
	const char *torch, *torch_path;
};

struct dlt_process {
	const char *trace; /* file path as given */
	struct dlt_file_header hdr;

	bool has_proc; /* a PROC record was read */
	const char *host;
	const char *exe;
	const char *cwd;
	int32_t rank;	    /* -1 unknown */
	int32_t world_size; /* -1 unknown */
	/* Where rank and world_size came from: the job's call
	 * ("init_process_group", "_create_c10d_store": a RANK record), else
	 * the launcher's variable ("RANK", "SLURM_PROCID" ...; "launcher"
	 * when the environment was not recorded); NULL when the rank is
	 * unknown.  A static string. */
	const char *rank_source;

	uint32_t argc;	   /* from PROC, raised to cover every ARG index */
	const char **argv; /* argc entries; NULL where a string is lost */
	bool argv_cut;	   /* an argument was cut by the writer */
	/* Arguments after argv[argc - 1] that the writer only counted (PROC
	 * flag DLT_PROC_ARGV_CUT). */
	uint32_t argv_more;

	struct dlt_env_var *env;
	size_t nenv;

	struct dlt_end end;
	struct dlt_exec_fail *exec_fails;
	size_t nexec_fails;
	struct dlt_fork_rec *forks; /* children it forked, in time order */
	size_t nforks;
	struct dlt_reap_rec *reaps; /* children it reaped, in time order */
	size_t nreaps;
	struct dlt_signal_ev *signals; /* in time order */
	size_t nsignals;
	/* The process's mappings (MODMAP records, 2.4), in time order. */
	struct dlt_modmap_ev *modmaps;
	size_t nmodmaps;
	/* The last sign of life, CLOCK_MONOTONIC: the latest record's time,
	 * or the watchdog's heartbeat (header alive_ns) when later. */
	uint64_t last_seen_ns;
	/* Memory cgroup readings in this trace (its own, its reaps', the
	 * launcher's), signals the launcher sent it, and its peak resident
	 * set in KiB (0 unknown): the watchdog's, the launcher's or the
	 * reaping parent's, whichever is largest (death.c). */
	struct dlt_memcg_seen *memcg;
	size_t nmemcg;
	struct dlt_kill_rec *kills;
	size_t nkills;
	uint64_t rss_peak_kb;

	struct dlt_lib *libs; /* in ts order */
	size_t nlibs;
	size_t nlibs_loaded;
	size_t nlibs_failed;

	struct dlt_note_entry *notes;
	size_t nnotes;

	struct dlt_sysinfo sys;

	/* Versions the libraries reported, in time order (none <= 0). */
	struct dlt_reported_version *versions;
	size_t nversions;

	struct dlt_type_count *types; /* ascending type */
	size_t ntypes;
	uint64_t records; /* records seen, CHUNK and STRING excluded */
	struct dlt_trace_stats stats;

	/* The reader's problems, then inconsistencies the model found. */
	const char **problems;
	size_t nproblems;

	struct dlt_arena_blk *arena;
};

/* Reads one opened trace (a job's, job.h) into its model; the caller still
 * closes t.  A damaged trace still loads; its damage is listed in
 * problems. */
struct dlt_process *dlt_process_read(struct dlt_trace *t);
void dlt_process_free(struct dlt_process *p);

/* A second consumer of the same single pass over a trace: rec is called for
 * every record (CHUNK and STRING excepted) in file order while the trace is
 * open, so that other analyses (GPU calls, convolutions) aggregate what they
 * need without the model keeping the records or the file being read twice.
 * Strings are t's until the load returns: copy what is kept. */
struct dlt_load_hook {
	void (*rec)(void *ctx, struct dlt_trace *t,
		    const struct dlt_rec_view *v);
	void *ctx;
};
struct dlt_process *dlt_process_read_hooked(struct dlt_trace *t,
					    const struct dlt_load_hook *hook);

/* What a failed row is: a failure, a probe of a library that was loaded
 * in the end under another name (cuDNN asks for libcudnn_graph.so.9.19.0,
 * then .9.19, then .9), or a repeat of a name that already failed earlier
 * in the process. */
enum dlt_fail_kind {
	DLT_FAIL_NONE = 0, /* the row did not fail */
	DLT_FAIL_REAL,
	DLT_FAIL_PROBE,
	DLT_FAIL_REPEAT,
};
/* The kind of every row, indexed like p->libs; the caller frees them.  All
 * rows at once: one row at a time cost a pass over every row each, which a
 * trace of many failed loads made quadratic. */
uint8_t *dlt_lib_fail_kinds(const struct dlt_process *p);
/* Which failed loads matter (DLT_FAIL_REAL), as flags indexed like
 * p->libs; the caller frees them. */
bool *dlt_lib_failures_matter(const struct dlt_process *p);
/* Failed rows that are failures (repeats included) and that are probes. */
void dlt_lib_fail_counts(const struct dlt_process *p, size_t *failed,
			 size_t *probes);
/* "libcudnn_graph.so" for ".../libcudnn_graph.so.9.19.0": the name a
 * library goes by whatever version suffix was asked for. */
void dlt_lib_key(const char *name, char *buf, size_t cap);

/* Version in a file name: "9.19.0" for libcudnn_ops.so.9.19.0, "" if
 * none. */
void dlt_lib_file_version(const char *path, char *buf, size_t cap);
/* The version the file of a loaded row reported (its path or real path),
 * or NULL. */
const struct dlt_reported_version *
dlt_lib_reported_version(const struct dlt_process *p,
			 const struct dlt_lib *lib);

/* death.c: what the MEMCG and KILL records say, and what the trace's
 * damage and header add to how the process ended (after the end is
 * decided from the records). */
void dlt_death_on_memcg(struct dlt_process *p, const struct dlt_rec_memcg *r,
			size_t *cap);
void dlt_death_on_kill(struct dlt_process *p, const struct dlt_rec_kill *r,
		       size_t *cap);
void dlt_death_finish(struct dlt_process *p, const struct dlt_trace *t);
/* A peak RSS from the rusage its reaper got (KiB): kept when it can only
 * be p's own, not one of p's reaped children's. */
void dlt_death_rss(struct dlt_process *p, uint64_t rusage_kb);
/* Whether dltrace's signal ended it: sent, and the process left no end,
 * died of SIGTERM or SIGKILL, or exited after the signal came (a handler
 * that exits); one that exited before its signal came (a shell whose
 * child died first) ended on its own. */
bool dlt_end_by_dltrace(const struct dlt_end *e);
/* "SIGTERM, then SIGKILL", "SIGTERM": what dltrace sent, for messages. */
const char *dlt_death_dltrace_words(const struct dlt_end *e);

/* Number of records of one type. */
uint64_t dlt_process_count(const struct dlt_process *p, uint16_t type);

#endif
