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
#include "dltrace/format.h"

#define DLT_WRITER_MAGIC 0x444c5457u /* "DLTW" */
#define DLT_WRITER_LAYOUT 5u	     /* bump when struct dlt_writer changes */
#define DLT_CHUNK_SIZE (64u * 1024u)
#define DLT_SEG_SIZE (1024u * 1024u)
#define DLT_MAX_SEGS 8192u /* 8 GiB of trace at most */
#define DLT_DEFAULT_MAX_SIZE (2ull << 30)
#define DLT_DONE_SEGS 64u /* finished segments whose mapping is kept */
#define DLT_SEGS_AHEAD 2u /* segments mapped ahead of the one in use */
#define DLT_STRTAB_SLOTS 8192u
#ifndef DLT_PREFETCH_AHEAD
#define DLT_PREFETCH_AHEAD 2048
#endif
#define DLT_MAX_STR 4096u	 /* longer strings are cut */
#define DLT_STR_ARENA (1u << 20) /* bytes of strings the table keeps */
#define DLT_PATH_MAX 4096

struct dlt_str_slot {
	uint64_t hash;
	const char *data; /* the writer's own copy (str_arena) */
	uint32_t id;
	uint32_t len;
};

struct dlt_writer {
	uint32_t magic;
	uint32_t layout;
	_Atomic uint32_t gen; /* changes whenever a new file is started */
	_Atomic int enabled;
	_Atomic int lock;     /* guards segs[] growth */
	_Atomic int str_lock; /* guards the string table */
	_Atomic int said;     /* the one stderr message was printed */
	pid_t pid;	      /* process that owns the current file */
	uint64_t dev, ino;
	uint64_t max_size; /* bytes (dlt_open_params) */
	/* Bytes below max_size the process leaves unused: the launcher's
	 * record of how it ended still fits when the limit was reached. */
	uint64_t tail_reserve;
	struct dlt_file_header *hdr;
	_Atomic(uint8_t *) segs[DLT_MAX_SEGS];
	_Atomic uint32_t chunk_seq;
	/* Segments up to this one are wanted mapped ahead of use (futex word
	 * of the prefetch thread, shim/prefetch.c). */
	_Atomic uint32_t prefetch_upto;
	_Atomic uint16_t
		seg_retired[DLT_MAX_SEGS]; /* chunks done per segment */
	/* The last DLT_DONE_SEGS segments whose chunks are all done: their
	 * pages are dropped at once, their mappings unmapped later (see
	 * dlt_seg_done). */
	_Atomic(uint8_t *) done_segs[DLT_DONE_SEGS];
	_Atomic uint32_t done_next;
	uint32_t next_str_id;
	uint32_t str_count;
	uint32_t str_arena_used;
	struct dlt_str_slot strtab[DLT_STRTAB_SLOTS];
	char path[DLT_PATH_MAX];
	/* Copies of the table's strings, in anonymous memory made on first
	 * use.  Not the STRING records themselves: a segment is unmapped once
	 * all its chunks are done, and a lookup must never read there.  Kept
	 * across dlt_writer_create (a forked child starts it over). */
	char *str_arena;
	/* The two copies of the library keep separate thread-local chunks,
	 * and only the preload copy learns when a thread ends (its pthread
	 * key).  Each copy sets its own function here once, for the other to
	 * call: without it, a thread that ever wrote from the audit copy (any
	 * dlopen) kept its chunk, and its segment mapped, forever. */
	void (*audit_thread_exit)(void); /* audit copy: give back the chunk */
	void (*preload_thread_start)(
		void); /* preload copy: watch for the end */
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
};

/* Per thread, per copy of the library. */
struct dlt_tls {
	uint8_t *cur;
	uint8_t *end;
	uint32_t gen;
	uint32_t tid;
	uint32_t seg;	 /* segment of the current chunk */
	uint32_t nchunk; /* chunks taken so far: a record can be updated in
			  * place while this has not changed */
	int in_slow; /* inside chunk allocation: a nested record is dropped */
	int in_str;  /* inside the string table lock */
};

/* Which kind of writer this copy of the code is (enum dlt_writer_kind). */
extern int dlt_writer_kind_self;
/* Called in a thread when it takes its first chunk of a file (the shim
 * registers the thread for dlt_tls_release at its exit). */
extern void (*dlt_on_new_thread)(void);
/* Called (when set) after a thread took a chunk in segment seg and mapped
 * the next two segments without their pages: the shim's prefetch thread
 * makes those pages, so that the recording thread never waits for them
 * (docs/performance.md). */
extern void (*dlt_on_seg_ahead)(struct dlt_writer *w, uint32_t seg);

/* Bytes of the file segment seg spans: DLT_SEG_SIZE, but for a last
 * segment cut short by the size limit (the file never passes it). */
static inline uint64_t dlt_seg_len(const struct dlt_writer *w, uint32_t seg)
{
	uint64_t off = DLT_DATA_OFFSET + (uint64_t)seg * DLT_SEG_SIZE;
	uint64_t room = w->max_size > off ? w->max_size - off : 0;
	room &= ~(uint64_t)(DLT_CHUNK_SIZE - 1);
	return room < DLT_SEG_SIZE ? room : DLT_SEG_SIZE;
}

/* Makes the pages of segment seg, if it is mapped and still in use: for
 * the prefetch thread, which opens no file.  Returns 0 or -1. */
int dlt_writer_prefetch(struct dlt_writer *w, uint32_t seg);

/* Creates a new trace file under p->dir and starts writing it.  Returns 0 or
 * a negative errno; on failure *w is left disabled. */
int dlt_writer_create(struct dlt_writer *w, const struct dlt_open_params *p);

/* Opens an existing trace file to append records to it (the launcher adds
 * the reaped status), within max_size bytes (0: the default).  Returns 0
 * or a negative errno. */
int dlt_writer_attach(struct dlt_writer *w, const char *path,
		      uint64_t max_size);

/* Unmaps everything without writing (a forked child dropping the parent's
 * file, or the end of an attach). */
void dlt_writer_forget(struct dlt_writer *w);

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

/* Writes the PROC, ARG and ENV records of the current process. */
void dlt_write_process_info(struct dlt_writer *w, struct dlt_tls *t,
			    int redact_argv);

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
