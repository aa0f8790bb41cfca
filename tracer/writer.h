/* The trace writer: one file per process image, written through a MAP_SHARED
 * mapping so that every committed record survives the process being killed.
 *
 * One struct dlt_writer exists per process.  The LD_AUDIT and the LD_PRELOAD
 * instances of libdltrace.so are two copies of this code in two link-map
 * namespaces; the audit copy creates the writer and hands its address to the
 * preload copy (struct dlt_rendezvous, shim/state.h), so both write into the
 * same file through the same state.  Each copy keeps its own thread-local
 * chunk.
 *
 * The writer's files: file.c (creating, naming, mapping the file), chunks.c
 * (handing out chunks, the slow path), strings.c (the string table),
 * procinfo.c (who the process is), environ.c (which variables may be
 * shown); record.h is the fast path every record takes. */
#ifndef DLTRACE_WRITER_H
#define DLTRACE_WRITER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock.h"
#include <signal.h>

#include "dltrace/format.h"

#define DLT_WRITER_MAGIC 0x444c5457u /* "DLTW" */
#define DLT_WRITER_LAYOUT 15u	     /* bump when struct dlt_writer changes */
/* A thread's first chunk, per copy of the library; each next one is twice
 * the size, up to DLT_CHUNK_BIG: a process that records little reserves
 * little, one that records much takes a system call per 64 KiB. */
#define DLT_CHUNK_FIRST 4096u
#define DLT_CHUNK_BIG (64u * 1024u)
/* What a new file holds: the header page and the first chunk of each copy
 * of the library, and one more. */
#define DLT_FILE_START (DLT_DATA_OFFSET + 3u * DLT_CHUNK_FIRST)
/* The file doubles as it fills, by at most this much at a time: what a
 * SIGKILL can leave beyond the data. */
#define DLT_STEP_MAX (1024u * 1024u)
/* The whole trace's bound (format 2.6): a 24-hour job launching 5,000
 * kernels a second stays within it (docs/performance.md). */
#define DLT_DEFAULT_MAX_SIZE (256ull << 20)
#define DLT_MAX_SIZE_CAP (8ull << 30)
/* Bytes below max_size the process leaves unused: the launcher's record of
 * how it ended still fits when the limit was reached. */
#define DLT_TAIL_RESERVE 4096u
#define DLT_STRTAB_SLOTS 8192u
#define DLT_STRTAB_FIRST 512u /* 1 KiB of index */
/* A trace file's path, its directory's included: a directory of up to
 * 896 bytes (the launcher refuses a longer one; without it, a longer one
 * turns tracing off, saying so). */
#define DLT_TRACE_PATH_MAX 1024u
#ifndef DLT_PREFETCH_AHEAD
#define DLT_PREFETCH_AHEAD 2048
#endif
#define DLT_MAX_STR 4096u	 /* longer strings are cut */
#define DLT_STR_ARENA (1u << 20) /* bytes of strings the table keeps */
#define DLT_PATH_MAX 4096

/* A string the table knows. */
struct dlt_str_slot {
	uint64_t hash;
	const char *data; /* the writer's own copy (str_arena) */
	uint32_t id;
	uint32_t len;
};

/* A forked child's trace before its first record (dlt_writer_after_fork):
 * what the file will say once it is made. */
struct dlt_pending {
	uint64_t trace_id; /* chosen at fork: the child's children name it */
	uint64_t parent_trace_id; /* the parent's trace */
	uint64_t features;
	pid_t parent_pid;
	/* When the fork returned in the child: the trace made later says the
	 * process started then, before any child it forks in turn (the
	 * analyzer reads parents before children by start). */
	uint64_t forked_realtime_ns, forked_monotonic_ns;
};

struct dlt_tls;

struct dlt_writer {
	uint32_t magic;
	uint32_t layout;
	_Atomic uint32_t gen; /* changes whenever a new file is started */
	_Atomic int enabled;
	_Atomic int lock;     /* chunks, growth, cuts */
	_Atomic int str_lock; /* guards the string table */
	_Atomic int said;     /* the one stderr message was printed */
	pid_t pid;	      /* process that owns the current file */
	uint64_t dev, ino;
	uint64_t max_size; /* bytes (dlt_open_params), within map_len */
	uint64_t tail_reserve;
	/* The whole file is mapped at once, for max_size bytes (beyond its
	 * end: the writer never stores past alloc_cursor, and the file always
	 * covers alloc_cursor), so a chunk's address never changes and a
	 * record may be finished after its chunk was given back. */
	struct dlt_file_header *hdr;
	uint64_t map_len;
	uint64_t size; /* bytes the file has (under lock) */
	_Atomic uint32_t chunk_seq;
	/* The process is ending: the file was cut to its data, and a chunk
	 * taken now is just big enough (an exec that failed clears it). */
	_Atomic int ending;
	/* Pages of the file up to here (in 4 KiB pages) are wanted made
	 * before use (futex word of the prefetch thread, shim/prefetch.c). */
	_Atomic uint32_t prefetch_upto;
	/* The process the file is about: its header's pid and its name's.
	 * pid itself stays the process that writes (the vfork and fork
	 * checks, the cut), which is subject but for a companion, written
	 * by the watcher about a process it watches (format 2.3). */
	pid_t subject;
	/* The chunks' writer kind (enum dlt_writer_kind), -1: this copy of
	 * the code's (dlt_writer_kind_self). */
	int kind;
	/* 1: a trace about another process (dlt_open_params.pid): written
	 * by a thread that passes its own struct dlt_tls, so no hook of the
	 * shim runs for it (a thread's first chunk, growth for the prefetch
	 * thread), the cut takes no thread state from tls_of, and a fork
	 * gives the child no trace of it. */
	int detached;
	/* The ring (format 2.6; tracer/ring.c), under lock: bytes of the
	 * chunks handed out as ring chunks; what they may grow to before the
	 * oldest is used again, and what they may shrink to when the other
	 * records need room; the queue's first entry and length. */
	uint64_t ring_bytes;
	uint64_t ring_max, ring_min;
	uint32_t ring_head, ring_n;
	_Atomic int said_full; /* the budget-full message was printed */
	struct dlt_pending pend;
	/* The header's trace id and features as dlt_writer_hold found them
	 * before a fork, and the header they are of: the child's after-fork
	 * step reads them here, on a page it writes anyway, instead of the
	 * shared mapping's first page (a page fault of every forked child,
	 * issue 31). */
	const struct dlt_file_header *fork_hdr;
	uint64_t fork_trace_id, fork_features;
	/* The ring chunks given back, oldest first (offsets, a circular
	 * queue of ring_qcap entries in anonymous memory made on first use;
	 * kept across files, emptied for each). */
	uint64_t *ring_q;
	uint32_t ring_qcap;
	/* 1: a forked child that has no file yet (pend says what it will
	 * be); 2: the file is being made. */
	_Atomic int pending;
	/* What a forked child's trace takes from its parent's. */
	int rank;
	int redact_argv;
	uint64_t want_max_size;
	uint64_t run_id;
	/* The directory a forked child's trace goes to: the first dir_len
	 * bytes of path, the directory of the file being written, unless
	 * dir_abs (a string that lives as long as the process, the shim's
	 * absolute one) replaces it.  Not a copy of its own: a 4 KiB array
	 * written at start was a page fault in every traced process
	 * (docs/performance.md, issue 31). */
	uint32_t dir_len;
	const char *dir_abs;
	struct dlt_clock_shared clock;
	/* The string table: an open-addressing index of entry numbers (from
	 * 1) into strs, filled in order; a lookup touches one page of the
	 * index, where a table of whole entries made every new string a page
	 * fault (a third of dltrace's page faults at start).  The index
	 * starts at DLT_STRTAB_FIRST slots (str_mask + 1) in str_index_first,
	 * between the fields above and the first entries, and grows fourfold
	 * when 3/4 full, into str_index: a short process's few dozen strings
	 * touch no page of their own.  A new trace (a forked child's) empties
	 * it by its count and its first slots. */
	uint32_t next_str_id;
	uint32_t str_count;
	uint32_t str_arena_used;
	uint32_t str_mask;
	/* Copies of the table's strings, in anonymous memory made on first
	 * use: a lookup never reads the trace itself (its pages may have been
	 * let go).  Kept across dlt_writer_create (a forked child starts it
	 * over). */
	char *str_arena;
	/* The two copies of the library keep separate thread-local chunks,
	 * and only the preload copy learns when a thread ends (its pthread
	 * key).  Each copy sets its own function here once, for the other to
	 * call: without it, a thread that ever wrote from the audit copy (any
	 * dlopen) kept its chunk forever. */
	void (*audit_thread_exit)(void); /* audit copy: give back the chunk */
	void (*preload_thread_start)(
		void); /* preload copy: watch for the end */
	/* The calling thread's chunk state in each copy (indexed by enum
	 * dlt_writer_kind), for the cut at the end of the process, which
	 * shortens whichever of the thread's chunks is last in the file. */
	struct dlt_tls *(*tls_of[2])(void);
	/* The large parts last, the small index, the path and the entries
	 * first among them: what a short process touches, its fields, index,
	 * path and first hundred entries, is one page where the writer starts
	 * on one (with the grown index before the entries, the entries were a
	 * page of their own; with a path of PATH_MAX after them, the path
	 * was another, issue 31). */
	uint16_t str_index_first[DLT_STRTAB_FIRST];
	char path[DLT_TRACE_PATH_MAX];
	struct dlt_str_slot strs[DLT_STRTAB_SLOTS / 4 * 3];
	uint16_t str_index[DLT_STRTAB_SLOTS];
};

/* What a new trace file is about. */
struct dlt_open_params {
	const char *dir;
	const char *host;
	int rank; /* -1 when unknown */
	uint64_t parent_trace_id;
	uint32_t parent_kind;
	uint32_t exec_seq;
	uint64_t features;
	uint64_t max_size; /* bytes the file may reach; 0: the default */
	uint64_t run_id;   /* the launcher's run (DLTRACE_RUN), 0 none */
	int redact_argv;   /* kept for the traces of forked children */
	/* The process's start when it is not now (a forked child's trace is
	 * made at its first record); 0: now. */
	uint64_t start_realtime_ns, start_monotonic_ns;
	/* A trace about another process than the caller (format 2.3, the
	 * watcher's companion: features DLT_FEAT_WATCHER, parent_kind
	 * DLT_PARENT_WATCHED, parent_trace_id the process's trace, exec_seq
	 * and run_id the process's): the header's pid and ppid, and the pid
	 * in the file's name.  0: the caller's own (and getppid()), as for
	 * every trace the shim makes; ppid alone: the caller's trace, with
	 * that parent (a forked child's, made after its parent ended).  The
	 * writer's owner stays the caller: only it cuts the file, and its lock
	 * on the file says the watcher is still writing. */
	pid_t pid, ppid;
	/* String ids are str_base + 1, + 2 ...: 0, or DLT_STR_WATCHER for a
	 * companion, whose ids must not meet the process's own. */
	uint32_t str_base;
	/* The writer kind of the file's CHUNK records (enum dlt_writer_kind:
	 * DLT_WRITER_WATCHER for a companion); 0: this copy of the code's
	 * own (dlt_writer_kind_self), as before 2.3. */
	uint32_t writer_kind;
	/* Put after the rank in the file's name, so that the name never
	 * meets the process's own trace's: DIR/HOST.PID.SEQ[.rRANK]SUFFIX
	 * [-N].dltrace (".watch" for a companion); NULL: none. */
	const char *name_suffix;
};

/* Per thread, per copy of the library. */
struct dlt_tls {
	uint8_t *cur;
	uint8_t *end;
	uint8_t *chunk; /* start of the current (or last given back) chunk */
	uint8_t *done;	/* where the records of a chunk given back end */
	uint32_t gen;
	uint32_t tid;
	uint32_t nchunk;   /* chunks taken so far: a record can be updated in
			    * place while this has not changed */
	uint32_t next_len; /* bytes of this thread's next chunk */
	int in_slow; /* inside chunk allocation: a nested record is dropped */
	int in_str;  /* inside the string table lock */
	/* Format 2.6: set, this state writes ring chunks, and rare is the
	 * same thread's state for the other records (where the AGG of a ring
	 * chunk used again goes). */
	struct dlt_tls *rare;
	/* Room to sum up a chunk in (tracer/ring.c), made on first use. */
	struct dlt_fold *fold;
};

/* Format 2.6: which value of an API's calls is its key in an AGG row (its
 * communicator, else its stream), as an index, or -1 (none); set by the
 * code that knows the APIs (the shim), NULL: no keys. */
extern int (*dlt_agg_key_index)(uint16_t api);
/* Tests only: called at each step of using a ring chunk again (1 summed
 * up, 2 its AGG written, 3 half zeroed, 4 zeroed, 5 its new CHUNK). */
extern void (*dlt_ring_stage)(int stage);

/* A thread's ring state is done (it ends): its chunk goes to the ring's
 * queue and its scratch back to the system. */
void dlt_ring_release(struct dlt_writer *w, struct dlt_tls *t);

/* Which kind of writer this copy of the code is (enum dlt_writer_kind). */
extern int dlt_writer_kind_self;
/* Called in a thread when it takes its first chunk of a file (the shim
 * registers the thread for dlt_tls_release at its exit). */
extern void (*dlt_on_new_thread)(void);
/* Called (when set) after the file grew to pages pages of 4 KiB: the
 * shim's prefetch thread makes those pages present in the mapping, so
 * that the recording thread does not take a fault per page
 * (docs/performance.md). */
extern void (*dlt_on_grow)(struct dlt_writer *w, uint32_t pages);
/* Called (when set) in a forked child right after its trace was made at
 * its first record (dlt_writer_materialize), to write what the process
 * is: the shim sets it to dlt_write_process_info.  A hook rather than a
 * call, because the file layer sits below the records and strings that
 * the description is made of. */
extern void (*dlt_on_materialized)(struct dlt_writer *w, struct dlt_tls *t,
				   int redact_argv);

/* Makes present the mapped pages of the file in [from, to) (4 KiB pages),
 * for the prefetch thread, which opens no file.  Returns 0 or -1. */
int dlt_writer_prefetch(struct dlt_writer *w, uint32_t from, uint32_t to);

/* The host as a trace file's name spells it (HOST.PID.SEQ...): letters,
 * digits, '-' and '_', anything else '_', "host" for none.  Returns its
 * length.  The watcher finds a host's traces by it. */
int dlt_file_host_spelling(char *dst, size_t cap, const char *src);

/* Blocks every asynchronous signal (never the synchronous faults, which
 * would kill the process whatever its handler) for the calling thread, the
 * mask before in *saved: around a chunk handed over, and around a fork
 * (shim/lifecycle.c). */
void dlt_signals_hold(sigset_t *saved);

/* Creates a new trace file under p->dir and starts writing it.  Returns 0 or
 * a negative errno; on failure *w is left disabled. */
int dlt_writer_create(struct dlt_writer *w, const struct dlt_open_params *p);

/* Opens an existing trace file to append records to it (the launcher adds
 * the reaped status), within max_size bytes (0: the default).  Returns 0
 * or a negative errno. */
int dlt_writer_attach(struct dlt_writer *w, const char *path,
		      uint64_t max_size);

/* Unmaps everything without writing (the end of an attach, a test). */
void dlt_writer_forget(struct dlt_writer *w);

/* The end of a file whose writer goes on living (the watcher, when a
 * process it watches ends): cuts it with t as the calling thread's state
 * (dlt_writer_cut_tls), unmaps it, which lets go of the writer's lock on
 * it, and gives back the string table's copies.  w may be made again
 * with dlt_writer_create; t then starts over by itself. */
void dlt_writer_close(struct dlt_writer *w, struct dlt_tls *t);

/* In a forked child: lets go of the parent's file (its mapping is shared
 * with the parent).  The child's own trace is made at its first record
 * (dlt_writer_materialize): a child that only execs gets none, and its
 * new image names the parent instead (dlt_writer_parent). */
void dlt_writer_after_fork(struct dlt_writer *w);

/* What dlt_writer_hold took, for dlt_writer_release. */
struct dlt_writer_hold {
	struct dlt_writer *w;
	int lock, str_lock; /* taken */
	/* The calling thread's chunk state in each copy of the library, and
	 * its guards as they were. */
	struct dlt_tls *t[2];
	int in_slow[2], in_str[2];
};

/* Before a fork: takes the writer's locks, waiting a bounded time for a
 * thread that holds one, so that no child inherits one held, and marks the
 * calling thread as inside them, so that what it records meanwhile (the
 * program's other fork handlers, a signal handler) is dropped instead of
 * waiting for itself.  w may be NULL. */
void dlt_writer_hold(struct dlt_writer *w, struct dlt_writer_hold *h);
/* After the fork: in the parent gives back what dlt_writer_hold took; in
 * the child (one thread: no other holder lives on) frees both locks
 * whoever held them.  The calling thread records again. */
void dlt_writer_release(struct dlt_writer_hold *h, int child);

/* Makes the trace of a forked child that has none yet; called by the
 * slow path of its first record.  0, or -1 when tracing is off. */
int dlt_writer_materialize(struct dlt_writer *w, struct dlt_tls *t);

/* Whom a new image started by this process descends from: kind 'e' (an
 * exec of this image) or 's' (a child of process pid), trace id and exec
 * sequence, for DLTRACE_PARENT.  A forked child without a trace of its own
 * names its parent's trace, as a spawned child.  0, or -1 without one. */
int dlt_writer_parent(struct dlt_writer *w, int exec, char *kind, int *pid,
		      uint64_t *id, uint32_t *seq);

/* The process ends (exit, _exit, abort, exec): cuts the file to the end
 * of the last chunk handed out, shortening that chunk to its last record
 * when it is the calling thread's (in either copy of the library).  Other
 * threads may still be writing into chunks before it.  Async-signal-safe
 * (system calls only; gives up rather than wait for a lock held long).
 * ending: chunks taken from now on are just big enough. */
void dlt_writer_cut(struct dlt_writer *w, int ending);
/* The same for a writer whose thread keeps its struct dlt_tls itself and
 * passes it (a detached writer's, the watcher's): t's chunk is shortened
 * instead of those the copies of the library register in tls_of.  t may
 * be NULL. */
void dlt_writer_cut_tls(struct dlt_writer *w, struct dlt_tls *t, int ending);

/* This process's id, asked of the kernel only when w's file changed since
 * the last call (a fork makes a new one): a getpid per dlopen or per audit
 * callback was a measurable part of what dltrace added to a dlopen loop.
 * A vfork child shares the caller's memory and gets its parent's id here;
 * code that a vfork child may run (exit) asks getpid itself. */
pid_t dlt_self_pid(struct dlt_writer *w);

/* A random number that is never 0 (trace ids, the launcher's run id). */
uint64_t dlt_random64(void);

/* Turns tracing off for good and says why, once, on stderr. */
void dlt_writer_disable(struct dlt_writer *w, const char *why, const char *what,
			int err);

/* dlt_rec_reserve's slow path (chunks.c): a new chunk for the thread. */
void *dlt_rec_reserve_slow(struct dlt_writer *w, struct dlt_tls *t,
			   uint32_t len);

/* The calling thread is exiting: its chunk is done. */
void dlt_tls_release(struct dlt_writer *w, struct dlt_tls *t);

/* Interns a string (cut at DLT_MAX_STR bytes) and returns its id, writing a
 * STRING record the first time.  Returns DLT_STR_NONE for NULL or when the
 * string cannot be recorded. */
uint32_t dlt_str(struct dlt_writer *w, struct dlt_tls *t, const char *s);
uint32_t dlt_strn(struct dlt_writer *w, struct dlt_tls *t, const char *s,
		  size_t n);

/* The program's path (/proc/self/exe, read once per process image), ""
 * when it cannot be read. */
const char *dlt_exe_path(void);
/* The same read into buf (cap bytes), each time: the audit module keeps
 * no copy (a 4 KiB array written at start, a page fault). */
const char *dlt_exe_path_into(char *buf, size_t cap);

/* The executable's path as the caller already read it, for the PROC
 * record (NULL: read it).  The audit module reads it once for PROC and
 * the program's LIB_LOAD (a look into /proc less at start, issue 31). */
extern const char *dlt_exe_hint;

/* Writes the PROC, ARG and ENV records of the current process. */
void dlt_write_process_info(struct dlt_writer *w, struct dlt_tls *t,
			    int redact_argv);

/* The command line and the environment as /proc/self/cmdline and
 * /proc/self/environ give them (each string with its NUL), where they lie
 * in memory: the audit module's view at the start of the process
 * (shim/nolibc.c), before the program could change them. */
struct dlt_proc_blocks {
	const char *args, *env;
	size_t args_len, env_len;
};
/* dlt_write_process_info reading from b (when not NULL) instead of /proc:
 * six system calls less, and no buffer written. */
void dlt_write_process_info_from(struct dlt_writer *w, struct dlt_tls *t,
				 int redact_argv,
				 const struct dlt_proc_blocks *b);

/* Records a MEMCG reading (common/memcg.h) about pid subject: flags
 * DLT_MEMCG_START or DLT_MEMCG_DEATH (with the subject's wait status and
 * peak RSS), DLT_MEMCG_OWN; the version's flag is added.  ts: when it was
 * read (a launcher's reading from before the trace existed), 0 now. */
struct dlt_memcg;
void dlt_memcg_record(struct dlt_writer *w, struct dlt_tls *t, uint16_t flags,
		      uint32_t subject, int32_t status, uint64_t max_rss_kb,
		      const struct dlt_memcg *m, uint64_t ts);

/* Records a NOTE. */
void dlt_note(struct dlt_writer *w, struct dlt_tls *t, int level,
	      const char *text);

/* 1 if the environment variable name may be recorded (docs/privacy.md). */
int dlt_env_allowed(const char *name, size_t len);
/* 1 if a recorded variable's value must still be hidden (looks secret). */
int dlt_env_secret(const char *name, size_t len);

/* "512", "64K", "256M", "2G", "2GiB" (K, M, G are powers of 1024): bytes,
 * or 0 when v is not a size (DLTRACE_MAX_SIZE). */
uint64_t dlt_parse_size(const char *v);

/* Rank and world size from the launcher variables of torchrun, Slurm, Open
 * MPI and PMI, or -1. */
int dlt_env_rank(void);
int dlt_env_world_size(void);

#endif
