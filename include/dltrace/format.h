/* dltrace on-disk trace format.
 *
 * This header is the only contract between the writer (libdltrace.so, the
 * launcher) and the reader (dltrace-analyze).  docs/trace-format.md mirrors it
 * field by field; change both together and bump DLT_FORMAT_MINOR (new record
 * types or fields appended to a record) or DLT_FORMAT_MAJOR (anything an old
 * reader would misread).
 *
 * Layout of a file:
 *   [struct dlt_file_header, padded to data_offset bytes]
 *   [chunk][chunk][chunk]...        up to header.alloc_cursor
 *
 * A chunk belongs to one writer thread and holds records back to back.  A
 * record is committed by a release store of its first 8 bytes (length, type,
 * flags) after the rest of it is in place, so a reader that finds a zero
 * length word has reached the end of what that thread committed in that
 * chunk.  Before format 2.0 every chunk had header.chunk_size bytes; since
 * 2.0 chunks have sizes of their own (a thread's first chunk is small, its
 * next ones larger), each given by the len of the CHUNK record that opens
 * it.  A chunk's CHUNK record is on disk before alloc_cursor moves past the
 * chunk, so a reader can always step from one chunk to the next.
 *
 * Since 2.0 a chunk may also hold compact call entries: one 8-byte word
 * each, told from a record by its low 3 bits, which are never 0 (a
 * record's len is a multiple of 8).  See DLT_ENTRY_* below.
 *
 * While a process writes its trace it holds a shared lock on byte 0 of the
 * file (an open-file-description lock, or flock where those are missing),
 * through the mapping of the file, so that the lock goes when the process
 * does: a tool that shortens or compacts a trace first takes an exclusive
 * lock and leaves the file alone when it cannot (DLT_FEAT_NO_LOCK: the
 * writer could not take its lock).
 *
 * All integers are in the writer's byte order; header.endian tells which.
 * Every field has a fixed width, there are no bitfields, and every record is
 * padded to a multiple of 8 bytes. */
#ifndef DLTRACE_FORMAT_H
#define DLTRACE_FORMAT_H

#include <stdint.h>

#define DLT_MAGIC "DLTRACE" /* bytes with the terminating NUL */
#define DLT_ENDIAN_MARK 0x01020304u
/* 2.1 adds what says how each process of a tree ended and when it was
 * last alive (REAP, EXIT's MAIN and ABORT, run_id, alive_ns ...).  A
 * development branch wrote the same additions into 1.x files as 1.3;
 * readers take them from any version. */
/* 2.2 adds what says why a job hung or died and what it ran on: a
 * thread's Python stack (PYSTACK), a signal received or forwarded
 * (SIGNAL), memory cgroup readings and dltrace's own kills (MEMCG, KILL),
 * the system and runtime versions (SYSTEM, RUNTIME_VERSION), both ends
 * of a connection (SOCK_ENDS), REAP's max_rss_kb and the header's
 * rss_peak_kb.  A 2.1 reader skips the new records and reads the rest. */
/* 2.3 moves hang watching out of the traced process: the watcher (the
 * launcher's, or one per host and directory) writes what it sees of a
 * process into a companion trace of its own (DLT_FEAT_WATCHER,
 * DLT_PARENT_WATCHED) whose string ids have bit 31 set, and reads the
 * process's table of blocking calls through the header's watch_calls.  A
 * 2.2 reader takes a companion for a process of its own. */
/* 2.4 records stacks raw, to be unwound and named where they are read:
 * a thread's registers and a copy of its stack (RAWSTACK) and the
 * process's executable mappings with their build-ids (MODMAP), from the
 * crash handler and from the watcher; a Python frame says whether C code
 * entered it (DLT_PYFRAME_ENTRY).  A 2.3 reader skips the new records. */
/* 2.5 adds the rank and world size the job's own code passed to
 * torch.distributed (RANK), read by the shim from the Python frames of a
 * rendezvous: a job started without a launcher's variables
 * (torch.multiprocessing.spawn, init_method="tcp://...") still has ranks.
 * A 2.4 reader skips the new record. */
/* 2.6 bounds a trace without going blind (docs/design.md, "A bounded
 * trace"): a process's successful calls of the frequent APIs go into ring
 * chunks (DLT_CHUNK_F_RING), which are used again, oldest first, once the
 * ring has its share of DLTRACE_MAX_SIZE; a ring chunk is summed up into an
 * AGG record before it is used again.  Everything else is never dropped for
 * the ring.  Chunks are read in seq order (a used-again chunk lies before
 * older ones in the file), and a chunk an AGG names is not read.  A 2.5
 * reader reads such a trace as damaged where chunks were used again. */
#define DLT_FORMAT_MAJOR 2
#define DLT_FORMAT_MINOR 6
#define DLT_DATA_OFFSET 4096u	 /* first chunk; one page for the header */
#define DLT_CHUNK_MIN 24u	 /* since 2.0: a CHUNK record alone */
#define DLT_CHUNK_MAX (1u << 20) /* since 2.0: the largest chunk */
#define DLT_REC_ALIGN 8u
#define DLT_STR_NONE 0u /* string id meaning "no string" */
/* Bit 31 of a string id: a string of the watcher's companion (2.3), dense
 * from DLT_STR_WATCHER + 1, apart from the process's own ids. */
#define DLT_STR_WATCHER 0x80000000u

/* Feature bits in dlt_file_header.features. */
#define DLT_FEAT_AUDIT 0x1u   /* loader events came from the LD_AUDIT module */
#define DLT_FEAT_PRELOAD 0x2u /* the LD_PRELOAD shim was active */
#define DLT_FEAT_ARGV_REDACTED 0x4u
#define DLT_FEAT_NO_LOCK 0x8u /* the writer held no lock: liveness unknown */
/* 2.3: DLT_FEAT_WATCHER, a companion written by the watcher about the
 * process whose trace is parent_trace_id (parent_kind DLT_PARENT_WATCHED),
 * its string ids with DLT_STR_WATCHER set; DLT_FEAT_WATCH, the process
 * asked to be watched for hangs (distributed launch variables, a GPU
 * library in use, DLTRACE_WATCHDOG=1, --hang-timeout). */
#define DLT_FEAT_WATCHER 0x10u /* a companion: the watcher's records (2.3) */
#define DLT_FEAT_WATCH 0x20u   /* the process asked to be watched (2.3) */
/* 2.6: ring chunks were used again: read chunks in seq order, not in
 * file order. */
#define DLT_FEAT_RING 0x40u

struct dlt_file_header {
	char magic[8];	 /* "DLTRACE\0" */
	uint32_t endian; /* DLT_ENDIAN_MARK as written */
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t header_size;	  /* sizeof(struct dlt_file_header) */
	uint32_t chunk_size;	  /* bytes per chunk before 2.0; 0 since */
	uint64_t features;	  /* DLT_FEAT_* */
	uint64_t alloc_cursor;	  /* end of the last chunk handed out */
	uint64_t data_offset;	  /* offset of the first chunk */
	uint64_t trace_id;	  /* random, unique per trace file */
	uint64_t parent_trace_id; /* parent or pre-exec trace */
	uint32_t pid;
	uint32_t ppid;
	uint32_t parent_kind;	     /* enum dlt_parent_kind */
	uint32_t exec_seq;	     /* 0 for a process's first image */
	uint64_t start_realtime_ns;  /* CLOCK_REALTIME at trace start */
	uint64_t start_monotonic_ns; /* CLOCK_MONOTONIC, same moment */
	uint64_t run_id;	     /* launcher run (2.1); 0 none */
	uint64_t alive_ns;	     /* heartbeat, CLOCK_MONOTONIC (2.1) */
	/* Peak resident set in KiB (getrusage's ru_maxrss), stored with the
	 * heartbeat (2.2); 0 unknown. */
	uint64_t rss_peak_kb;
	/* 2.6 (zero before): calls the ring had no room for (every ring
	 * chunk in use by a thread at once), and records other than ring
	 * calls left out because the whole budget was full. */
	uint32_t lost_calls;
	uint32_t lost_records;
	/* 2.3: for the watcher, outside the process.  The address, in the
	 * process, of its table of threads inside a traced call that can
	 * block (struct dlt_watch_call, watch_ncalls slots), 0 none. */
	uint64_t watch_calls;
	uint32_t watch_ncalls;
	uint32_t watch_stall_ms; /* the process's DLTRACE_STALL_MS */
};

/* One slot of a process's table of blocking calls (2.3): a thread inside
 * a traced call that can block (an NCCL init, a collective), so that the
 * watcher records its wait after one tick instead of the threshold.  The
 * process writes it; the watcher reads it with process_vm_readv. */
struct dlt_watch_call {
	uint32_t tid; /* 0: a free slot */
	uint32_t pad;
	uint64_t since; /* when the outermost call began (CLOCK_MONOTONIC), 0
			   none */
};

enum dlt_parent_kind {
	DLT_PARENT_NONE = 0, /* started by something untraced */
	DLT_PARENT_FORK = 1, /* forked from the trace parent_trace_id */
	DLT_PARENT_EXEC = 2, /* the image before execve was parent_trace_id */
	/* 2.3: a companion: the watcher's records about the process (same
	 * pid and host) whose trace is parent_trace_id. */
	DLT_PARENT_WATCHED = 3,
};

/* Common prefix of every record.  The first 8 bytes are the commit word. */
struct dlt_rec_hdr {
	uint32_t len;	/* bytes, header included, multiple of 8 */
	uint16_t type;	/* DLT_REC_* */
	uint16_t flags; /* per-type */
	uint64_t ts;	/* CLOCK_MONOTONIC ns */
};

/* Record types: id, name, struct.  Readers skip ids they do not know. */
#define DLT_RECORD_TYPES(X)                             \
	X(1, CHUNK, dlt_rec_chunk)                      \
	X(2, STRING, dlt_rec_string)                    \
	X(3, PROC, dlt_rec_proc)                        \
	X(4, ARG, dlt_rec_arg)                          \
	X(5, ENV, dlt_rec_env)                          \
	X(6, NOTE, dlt_rec_note)                        \
	X(10, LIB_LOAD, dlt_rec_lib_load)               \
	X(11, LIB_FAIL, dlt_rec_lib_fail)               \
	X(12, LIB_UNLOAD, dlt_rec_lib_unload)           \
	X(13, DLOPEN, dlt_rec_dlopen)                   \
	X(14, DLERROR, dlt_rec_dlerror)                 \
	X(20, EXIT, dlt_rec_exit)                       \
	X(21, FORK, dlt_rec_fork)                       \
	X(22, EXEC, dlt_rec_exec)                       \
	X(23, REAP, dlt_rec_reap)                       \
	X(30, MARK, dlt_rec_mark)                       \
	X(40, API_CALL, dlt_rec_api_call)               \
	X(41, API_ENTER, dlt_rec_api_enter)             \
	X(42, LIB_FAMILY, dlt_rec_family)               \
	X(43, STATIC_RUNTIME, dlt_rec_static_rt)        \
	X(44, CONV_PROBLEM, dlt_rec_conv_problem)       \
	X(45, ALGO_RESULT, dlt_rec_algo_result)         \
	X(46, BK_FINALIZE, dlt_rec_bk_finalize)         \
	X(47, API_DEF, dlt_rec_api_def)                 \
	X(50, STALL, dlt_rec_stall)                     \
	X(51, SOCK, dlt_rec_sock)                       \
	X(52, STACK, dlt_rec_stack)                     \
	X(53, PYSTACK, dlt_rec_pystack)                 \
	X(54, SIGNAL, dlt_rec_signal)                   \
	X(55, MEMCG, dlt_rec_memcg)                     \
	X(56, KILL, dlt_rec_kill)                       \
	X(59, SYSTEM, dlt_rec_system)                   \
	X(60, RUNTIME_VERSION, dlt_rec_runtime_version) \
	X(61, SOCK_ENDS, dlt_rec_sock_ends)             \
	X(62, MODMAP, dlt_rec_modmap)                   \
	X(63, RAWSTACK, dlt_rec_rawstack)               \
	X(64, RANK, dlt_rec_rank)                       \
	X(65, AGG, dlt_rec_agg)

enum dlt_rec_type {
#define DLT_X(id, name, st) DLT_REC_##name = id,
	DLT_RECORD_TYPES(DLT_X)
#undef DLT_X
};

/* Writers of a chunk. */
enum dlt_writer_kind {
	DLT_WRITER_SHIM = 0,	 /* the LD_PRELOAD instance */
	DLT_WRITER_AUDIT = 1,	 /* the LD_AUDIT instance */
	DLT_WRITER_LAUNCHER = 2, /* the dltrace launcher (reaped status) */
	DLT_WRITER_WATCHER = 3,	 /* the watcher, in a companion (2.3) */
};

/* CHUNK flags: the writer kind in the low 8 bits, and (2.6) whether the
 * chunk is in the ring: it holds only API_DEF, API_CALL with ret 0 and
 * compact entries, and may be used again (AGG). */
#define DLT_CHUNK_KIND_MASK 0xffu
#define DLT_CHUNK_F_RING 0x100u

/* First record of every chunk, written when the chunk is handed out.  A
 * ring chunk used again gets a new one in place (a new seq, its records
 * zeroed first). */
struct dlt_rec_chunk {
	struct dlt_rec_hdr h; /* len = the chunk's bytes, flags: above */
	uint32_t tid;	      /* kernel thread id of the owner */
	uint32_t seq;	      /* per-file chunk number */
};

/* An interned string.  Records refer to strings by id; ids start at 1. */
struct dlt_rec_string {
	struct dlt_rec_hdr h;
	uint32_t id;
	uint32_t len; /* bytes in data, excluding the NUL that follows them */
	char data[];  /* len bytes, NUL, zero padding to 8 */
};

/* PROC flags (format 2.1): argc counts arguments past the last ARG
 * record, which were not recorded. */
#define DLT_PROC_ARGV_CUT 0x1u /* arguments were left out */

/* Process identity beyond the file header (strings). */
struct dlt_rec_proc {
	struct dlt_rec_hdr h;
	uint32_t host;	    /* string: host name */
	uint32_t exe;	    /* string: /proc/self/exe */
	uint32_t cwd;	    /* string */
	int32_t rank;	    /* from RANK/OMPI/SLURM/PMI variables, -1 unknown */
	int32_t world_size; /* -1 unknown */
	uint32_t argc;
};

struct dlt_rec_arg {
	struct dlt_rec_hdr h; /* flags: 1 = truncated */
	uint32_t index;
	uint32_t str;
};

/* One allow-listed environment variable.  flags: 1 = value redacted. */
struct dlt_rec_env {
	struct dlt_rec_hdr h;
	uint32_t name;
	uint32_t value;
};

enum dlt_note_level {
	DLT_NOTE_INFO = 0,
	DLT_NOTE_WARN = 1,
	DLT_NOTE_ERROR = 2
};

/* Something the tracer itself wants the reader to know (tracing turned off,
 * size limit reached ...). flags = level. */
struct dlt_rec_note {
	struct dlt_rec_hdr h;
	uint32_t text;
	uint32_t pad;
};

/* How the loader found an object: the rule that produced the winning path. */
enum dlt_found_via {
	DLT_VIA_UNKNOWN = 0,
	DLT_VIA_RPATH = 1,
	DLT_VIA_LD_LIBRARY_PATH = 2,
	DLT_VIA_RUNPATH = 3,
	DLT_VIA_LD_SO_CACHE = 4,
	DLT_VIA_DEFAULT = 5,
	DLT_VIA_ABSOLUTE = 6,
	DLT_VIA_PRELOAD = 7,
	DLT_VIA_MAIN = 8,
	DLT_VIA_COUNT
};

/* One path the loader tried: string id and enum dlt_found_via of the rule. */
struct dlt_tried {
	uint32_t path;
	uint32_t via;
};

#define DLT_LIB_MAIN 0x1u	/* the main program */
#define DLT_LIB_PRELOAD 0x2u	/* named in LD_PRELOAD */
#define DLT_LIB_DEEPBIND 0x4u	/* RTLD_DEEPBIND by the dlopen that loaded it */
#define DLT_LIB_LOCAL 0x8u	/* loaded by a dlopen without RTLD_GLOBAL */
#define DLT_LIB_DLOPEN 0x10u	/* loaded during a dlopen (not at start-up) */
#define DLT_LIB_TRIED_CUT 0x20u /* more paths were tried than recorded */
#define DLT_LIB_VDSO 0x40u	/* the kernel's vDSO: no file */

/* An object was mapped (la_objopen). */
struct dlt_rec_lib_load {
	struct dlt_rec_hdr h; /* flags: DLT_LIB_* */
	uint64_t obj; /* link_map address, the object's id in this process */
	uint64_t requester_obj; /* link_map of the object whose load asked for
				   it, 0 none */
	uint64_t base;		/* load bias */
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	int64_t mtime_ns;
	int64_t lmid;	    /* link-map namespace */
	uint32_t requested; /* string: name as asked for */
	uint32_t requester; /* string: path of the requesting object */
	uint32_t path;	    /* string: path as the loader opened it */
	uint32_t realpath;  /* string: symlinks resolved */
	uint32_t soname;    /* string: DT_SONAME */
	uint32_t runpath;   /* string: DT_RUNPATH of this object */
	uint32_t rpath;	    /* string: DT_RPATH of this object */
	uint32_t found_via; /* enum dlt_found_via */
	uint32_t build_id_len;
	uint8_t build_id[32];
	uint32_t n_tried;
	struct dlt_tried tried[]; /* n_tried entries, the winning path last */
};

/* A name the loader searched for without mapping anything. */
struct dlt_rec_lib_fail {
	struct dlt_rec_hdr h; /* flags: DLT_LIB_TRIED_CUT */
	uint64_t requester_obj;
	uint32_t requested;
	uint32_t requester;
	uint32_t n_tried;
	uint32_t pad;
	struct dlt_tried tried[];
};

/* An object was unmapped.  flags: 1 = during the load that mapped it, that
 * is the load failed after mapping (undefined symbol, TLS exhausted ...). */
struct dlt_rec_lib_unload {
	struct dlt_rec_hdr h;
	uint64_t obj;
};

/* dlopen() was entered (written before the real call runs). */
struct dlt_rec_dlopen {
	struct dlt_rec_hdr h;
	uint64_t caller;     /* return address */
	uint32_t name;	     /* string, DLT_STR_NONE for dlopen(NULL) */
	int32_t mode;	     /* RTLD_* flags as passed */
	uint32_t caller_obj; /* string: path of the object holding caller */
	uint32_t pad;
};

/* dlerror() handed the program a message. */
struct dlt_rec_dlerror {
	struct dlt_rec_hdr h;
	uint32_t text;
	uint32_t pad;
};

enum dlt_exit_how {
	DLT_EXIT_NORMAL = 1,	 /* exit(), or main returned: -1 unknown */
	DLT_EXIT_UNDERSCORE = 2, /* _exit()/_Exit() */
	DLT_EXIT_EXEC = 3, /* image replaced by execve (see the EXEC record) */
	DLT_EXIT_REAPED = 4, /* wait status seen by the dltrace launcher */
	/* Format 2.1: */
	DLT_EXIT_MAIN = 5,  /* main() returned status (exit follows) */
	DLT_EXIT_ABORT = 6, /* abort() or a failed assert: SIGABRT follows */
};

/* flags = enum dlt_exit_how.  For REAPED, status is the raw wait status;
 * for ABORT, the signal (SIGABRT). */
struct dlt_rec_exit {
	struct dlt_rec_hdr h;
	int32_t status;
	uint32_t pad;
};

/* fork(): written by the parent once the child exists. */
struct dlt_rec_fork {
	struct dlt_rec_hdr h;
	uint32_t child_pid;
	uint32_t pad;
};

/* Format 2.1: a child process ended and this process reaped it (wait,
 * waitpid, wait4, waitid): what it was told, exactly as the program was.
 * flags = enum dlt_reap_call. */
struct dlt_rec_reap {
	struct dlt_rec_hdr h;
	uint32_t pid;	/* the child */
	int32_t status; /* raw wait status (waitid's translated to it) */
	/* Format 2.2 (absent before: len 24): the child's peak resident set
	 * in KiB, from the rusage the wait gave (ru_maxrss: the child's or a
	 * descendant's it waited for, whichever was larger); 0 unknown
	 * (waitid gives none). */
	uint64_t max_rss_kb;
};

enum dlt_reap_call {
	DLT_REAP_WAIT = 1,
	DLT_REAP_WAITPID = 2,
	DLT_REAP_WAIT4 = 3, /* wait3 too */
	DLT_REAP_WAITID = 4,
};

/* execve() is about to run (flags 0), or it failed (flags 1, err = errno). */
struct dlt_rec_exec {
	struct dlt_rec_hdr h;
	uint32_t path;
	int32_t err;
};

/* dltrace_mark(): a program's own annotation. */
struct dlt_rec_mark {
	struct dlt_rec_hdr h;
	uint32_t id;
	uint32_t aux;
	uint64_t value;
};

/* ---- GPU library calls (API ids: include/dltrace/apis.def) ----------- */

/* Durations are 32 bits: bit 31 clear, nanoseconds (up to 2.1 s); bit 31
 * set, microseconds in the low 31 bits (up to 35 minutes); 0xfffffffe
 * longer still (0xffffffff before format 1.2). */
#define DLT_DUR_US_FLAG 0x80000000u
/* Format 1.2: API_CALL.dur of a call that has not returned (see below). */
#define DLT_DUR_OPEN 0xffffffffu

/* An API_CALL.dur in nanoseconds; UINT64_MAX for DLT_DUR_OPEN. */
static inline uint64_t dlt_dur_ns(uint32_t dur)
{
	if (dur == DLT_DUR_OPEN)
		return UINT64_MAX;
	if (dur & DLT_DUR_US_FLAG)
		return (uint64_t)(dur & ~DLT_DUR_US_FLAG) * 1000u;
	return dur;
}

/* A wrapped call returned.  flags = API id; the values are those named by
 * the API's values in apis.def.  With one value the record is 32 bytes.
 *
 * Since format 1.2, a call that can block and whose values are known
 * before it starts is written once, when it starts, with ret 0 and dur
 * DLT_DUR_OPEN; ret and dur are stored in place (one 8-byte store) when
 * it returns.  A call still open in a trace never returned (readers show
 * it as an API_ENTER).  If the thread's chunk changed during the call, a
 * complete API_CALL follows instead, and the open one is its API_ENTER. */
struct dlt_rec_api_call {
	struct dlt_rec_hdr h;
	int32_t ret;  /* the library's status */
	uint32_t dur; /* see DLT_DUR_US_FLAG */
	uint64_t v[]; /* (len - 24) / 8 values */
};

/* A wrapped call that can block or initialise is about to start.  flags =
 * API id.  The next API_CALL of that id in the same thread ends it; none
 * means the call never returned. */
struct dlt_rec_api_enter {
	struct dlt_rec_hdr h;
	uint64_t v[]; /* (len - 16) / 8 values, the API's pre values */
};

/* Format 2.0: an API_CALL that also gives its API and values a slot
 * number, so that later calls of the same API with the same values in the
 * same chunk can be written as 8-byte compact entries.  Read as the
 * API_CALL it is (ret, dur and v as there; open calls as there).  flags =
 * API id. */
struct dlt_rec_api_def {
	struct dlt_rec_hdr h;
	int32_t ret;   /* the library's status */
	uint32_t dur;  /* see DLT_DUR_US_FLAG */
	uint32_t slot; /* below DLT_ENTRY_SLOTS */
	uint32_t pad;
	uint64_t v[]; /* (len - 32) / 8 values */
};

/* Format 2.0: a compact call entry, one 64-bit word in a chunk, stored
 * with one release store (so committed whole).  It stands for an API_CALL
 * of the API and values of an API_DEF with the same slot earlier in the
 * same chunk, with ret 0.  Its time is dt nanoseconds (signed, two's
 * complement: a call that made the previous one, recorded after it,
 * started before it) after the start of the previous API_DEF or entry of
 * the chunk; dur is its duration in nanoseconds, or DLT_ENTRY_DUR_OPEN for
 * a call that has not returned (read as an API_ENTER, like an open
 * API_CALL).  A call that does not fit (a status other than 0, a longer
 * gap or duration, a chunk without the definition) is written as a
 * record.  DLT_ENTRY_SKIP stands for nothing (it fills a word the writer
 * had to give up); other tags are reserved, and a reader takes a word with
 * one (or an entry whose slot its chunk does not define) for damage. */
#define DLT_ENTRY_TAG_BITS 3u
#define DLT_ENTRY_CALL 1u
#define DLT_ENTRY_SKIP 2u
#define DLT_ENTRY_SLOT_SHIFT 3u
#define DLT_ENTRY_SLOT_BITS 10u
#define DLT_ENTRY_SLOTS (1u << DLT_ENTRY_SLOT_BITS)
#define DLT_ENTRY_DT_SHIFT 13u
#define DLT_ENTRY_DT_BITS 27u
#define DLT_ENTRY_DUR_SHIFT 40u
#define DLT_ENTRY_DUR_BITS 24u
#define DLT_ENTRY_DUR_OPEN ((1u << DLT_ENTRY_DUR_BITS) - 1u)

/* An entry's fields (every reader of entries: the analyzer, and the
 * writer summing up a ring chunk). */
static inline uint32_t dlt_entry_slot(uint64_t word)
{
	return (uint32_t)(word >> DLT_ENTRY_SLOT_SHIFT) & (DLT_ENTRY_SLOTS - 1);
}

/* dt is signed: shifted up to the top and back, its sign comes along. */
static inline int64_t dlt_entry_dt(uint64_t word)
{
	return (int64_t)(word
			 << (64 - DLT_ENTRY_DT_SHIFT - DLT_ENTRY_DT_BITS)) >>
	       (64 - DLT_ENTRY_DT_BITS);
}

static inline uint32_t dlt_entry_dur(uint64_t word)
{
	return (uint32_t)(word >> DLT_ENTRY_DUR_SHIFT) & DLT_ENTRY_DUR_OPEN;
}

enum dlt_family {
	DLT_FAM_CUDART = 1, /* CUDA runtime */
	DLT_FAM_CUDA = 2,   /* CUDA driver API */
	DLT_FAM_CUDNN = 3,
	DLT_FAM_NCCL = 4,
	DLT_FAM_CUBLAS = 5,   /* format 2.1: versions at load only */
	DLT_FAM_CUBLASLT = 6, /* format 2.1: versions at load only */
};

/* Where a LIB_FAMILY's versions came from (format 2.1; 0 before). */
enum dlt_family_source {
	DLT_FAMSRC_CALL = 0, /* after the first call into the family */
	DLT_FAMSRC_LOAD = 1, /* the library's own answer after its load */
	DLT_FAMSRC_FILE = 2, /* the file: name suffix, NCCL version string */
};

#define DLT_VERSION_ABSENT (-1000000)

/* First call into a library family from one loaded file (source CALL), or
 * a library of the family loaded (LOAD, FILE: format 2.1): which file, and
 * the versions it reports.  flags = enum dlt_family.  v[] by family:
 *   CUDART: runtime version, then the driver API version if the driver
 *           is loaded already (cuDriverGetVersion), their statuses;
 *   CUDA:   cuDriverGetVersion value, its status;
 *   CUDNN:  cudnnGetVersion, cudnnGetCudartVersion, then per 9.x
 *           sub-library (graph, ops, cnn, adv) in v[2..5]: 0 if its
 *           exported version word matches, 1002 (SUBLIBRARY_VERSION_
 *           MISMATCH) if not; absent if not loaded or no word;
 *   NCCL:   ncclGetVersion value, its status; FILE: v[2] the CUDA
 *           version of its version string (13.0: 13000);
 *   CUBLAS: major * 10000 + minor * 100 + patch (cublasGetProperty), its
 *           status;
 *   CUBLASLT: cublasLtGetVersion.
 * LOAD and FILE records have v[0] only (NCCL FILE also v[2]), in the
 * family's encoding; a LOAD record of cuDNN comes from a sub-library's
 * version word, since cuDNN 9's cudnnGetVersion loads libcudnn_graph.
 * DLT_VERSION_ABSENT: the library has no such function. */
struct dlt_rec_family {
	struct dlt_rec_hdr h;
	uint32_t path;	 /* string: the file the functions came from */
	uint32_t api;	 /* the API whose first call found it */
	uint32_t kdrv;	 /* string: NVIDIA kernel module version, or none */
	uint32_t source; /* enum dlt_family_source (format 2.1) */
	int64_t v[8];
};

/* Format 2.2: the system a process ran on, once per trace, written when
 * the process first loads a GPU library or torch (never at start-up, so
 * that other processes pay nothing for it). */
struct dlt_rec_system {
	struct dlt_rec_hdr h;
	uint32_t os;	  /* string: PRETTY_NAME of /etc/os-release, or none */
	uint32_t kernel;  /* string: uname's release */
	uint32_t glibc;	  /* string: gnu_get_libc_version() */
	uint32_t machine; /* string: uname's machine */
};

enum dlt_runtime_kind {
	DLT_RUNTIME_PYTHON = 1, /* the interpreter (Py_GetVersion) */
	DLT_RUNTIME_TORCH = 2,	/* torch/version.py beside torch/lib */
};

/* Format 2.2: the version of the interpreter or framework a process ran,
 * once per kind and trace, written with SYSTEM.  flags = enum
 * dlt_runtime_kind. */
struct dlt_rec_runtime_version {
	struct dlt_rec_hdr h;
	uint32_t version; /* string: "3.11.2", "2.4.1+cu124" */
	uint32_t path;	  /* string: the file it was read from or asked */
};

/* An object fetched CUDA driver entry points itself (dlsym of
 * cuGetProcAddress from outside libcudart): it carries a static CUDA
 * runtime whose runtime calls dltrace cannot see. */
struct dlt_rec_static_rt {
	struct dlt_rec_hdr h;
	uint32_t object; /* string: path of the object */
	uint32_t symbol; /* string: what it looked up */
};

/* A convolution problem, written once per process per distinct problem and
 * referred to by id from API_CALL values and other records. */
struct dlt_rec_conv_problem {
	struct dlt_rec_hdr h;
	uint64_t id;	      /* hash of all below but format, math_type */
	int32_t data_type;    /* cudnnDataType_t of x */
	int32_t nb_dims;      /* of x, w and y */
	int32_t format;	      /* filter format */
	int32_t mode;	      /* convolution or cross-correlation */
	int32_t compute_type; /* cudnnDataType_t of the convolution */
	int32_t math_type;
	int32_t groups;
	int32_t conv_dims; /* spatial dimensions */
	int32_t x[8];
	int32_t w[8];
	int32_t y[8];
	int32_t pad[6];
	int32_t stride[6];
	int32_t dilation[6];
};

/* One candidate returned by an algorithm selection. */
struct dlt_algo_cand {
	int32_t algo;
	int32_t status;
	float time_ms;
	int32_t determinism;
	uint64_t memory;
	int32_t math_type;
	int32_t pad;
};

/* What a selection call returned.  flags = API id. */
struct dlt_rec_algo_result {
	struct dlt_rec_hdr h;
	uint64_t problem; /* CONV_PROBLEM id */
	int32_t status;	  /* of the call */
	uint32_t n;	  /* candidates that follow */
	struct dlt_algo_cand c[];
};

/* One knob of an engine configuration. */
struct dlt_knob {
	int64_t type;
	int64_t value;
};

/* cudnnBackendFinalize of an engine, engine configuration or execution
 * plan: flags = the descriptor type (cudnnBackendDescriptorType_t). */
struct dlt_rec_bk_finalize {
	struct dlt_rec_hdr h;
	uint64_t desc;	  /* the descriptor, as the program sees it */
	uint64_t problem; /* CONV_PROBLEM id of its operation graph, or 0 */
	int32_t status;
	int32_t engine; /* engine global index, -1 unknown */
	int32_t op;	/* DLT_BK_OP_*: the graph's convolution kind */
	uint32_t n_knobs;
	struct dlt_knob knobs[];
};

#define DLT_BK_OP_NONE 0
#define DLT_BK_OP_CONV_FWD 1
#define DLT_BK_OP_CONV_BWD_DATA 2
#define DLT_BK_OP_CONV_BWD_FILTER 3

/* ---- stalls and rendezvous ------------------------------------------- */

/* STALL.syscall of a call the writer's architecture has and x86-64 has not
 * (AArch64 writers map the calls threads wait in to x86-64's numbers). */
#define DLT_SYSNUM_NATIVE 100000

/* A thread has stayed in one blocking system call (or a loop of identical
 * ones, such as a sleep-and-poll loop) for longer than DLTRACE_STALL_MS.
 * Written by the watchdog once per stall; dur_ns and ended are updated in
 * place while it lasts, so a kill at any moment leaves the latest value.
 * flags: DLT_STALL_EARLY (format 2.1). */
struct dlt_rec_stall {
	struct dlt_rec_hdr h;
	uint32_t tid;
	int32_t syscall; /* x86-64's number (DLT_SYSNUM_NATIVE); -1 none */
	uint64_t args[6];
	uint64_t since;	 /* CLOCK_MONOTONIC ns when the wait was first seen */
	uint64_t dur_ns; /* updated in place */
	uint32_t wchan;	 /* string: kernel wait channel */
	uint32_t detail; /* string: peer address, futex op ... */
	int32_t fd;	 /* the file descriptor waited on, -1 none */
	uint8_t state;	 /* /proc state letter: S, D ... */
	uint8_t ended;	 /* updated in place: 1 once the wait is over */
	uint16_t pad;
};

/* STALL flags.  EARLY is cleared in place (the record committed again)
 * once the wait passes the threshold. */
#define DLT_STALL_EARLY 0x1u /* before the threshold, in a traced call */

enum dlt_sock_op {
	DLT_SOCK_CONNECT = 1,
	DLT_SOCK_BIND = 2,
	DLT_SOCK_ACCEPT = 3,
	DLT_SOCK_LISTEN = 4,
};

/* connect/bind/accept/listen of an INET, INET6 or UNIX socket.  flags =
 * enum dlt_sock_op.  Identical failures in a row (a rendezvous retrying
 * ECONNREFUSED) update repeat in place instead of adding records. */
struct dlt_rec_sock {
	struct dlt_rec_hdr h;
	int32_t fd;
	int32_t ret;
	int32_t err;	  /* errno when ret < 0 */
	uint32_t addr;	  /* string: "tcp 10.0.0.1:29500", "unix /path" */
	uint32_t dur;	  /* as API_CALL.dur */
	uint32_t repeat;  /* further identical results, updated in place */
	uint64_t last_ts; /* time of the last of them, updated in place */
};

/* The two ends of a socket that a connect (successful, or in progress)
 * or an accept made, written after its SOCK record.  A peer's stalled
 * thread names this process's end of the connection (getpeername): the
 * local end recorded here leads from that wait to this process.
 * flags = DLT_SOCK_CONNECT or DLT_SOCK_ACCEPT. */
struct dlt_rec_sock_ends {
	struct dlt_rec_hdr h;
	int32_t fd;	/* the connected socket (accept: the new one) */
	uint32_t local; /* string: "tcp 127.0.0.1:41234" (getsockname) */
	uint32_t peer;	/* string: the other end */
	uint32_t pad;
};

/* Return addresses found on a stalled thread's stack (see
 * docs/design.md: a scan of the stack memory, taken without stopping or
 * signalling the thread).  frames[i] is a string "object!symbol+0xoff". */
struct dlt_rec_stack {
	struct dlt_rec_hdr h;
	uint32_t tid;
	uint32_t n;
	uint64_t pc;	   /* where the thread is blocked */
	uint32_t frames[]; /* n string ids, innermost first */
};

/* One frame of a SIGNAL record: a code address, and the file mapped there
 * as /proc/self/maps said when the signal came (so that a forked child,
 * whose trace lists no libraries, or code unloaded since, is still
 * named). */
struct dlt_sig_frame {
	uint64_t pc;
	uint64_t off; /* pc's offset in the file */
	uint32_t obj; /* string: the file's path; 0 unknown */
	uint32_t pad;
};

/* A signal reached the process (shim/signals.c): a fault (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGTRAP), SIGABRT, or a signal another process sent
 * (SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1/2).  Written by the receiving
 * process once per signal number, before the program's own handler runs
 * or the default action ends it; or by the launcher (flags
 * DLT_SIG_FORWARDED), in its child's trace, for a signal it passed on.
 * flags: DLT_SIG_*. */
struct dlt_rec_signal {
	struct dlt_rec_hdr h;
	int32_t signo;
	int32_t code;	     /* si_code */
	uint64_t addr;	     /* si_addr of a fault, else 0 */
	uint32_t tid;	     /* the thread it was delivered to */
	int32_t sender_pid;  /* si_pid of a sent signal, else 0 */
	uint32_t sender_uid; /* si_uid of a sent signal */
	uint32_t action;     /* enum dlt_sig_action: what followed */
	uint32_t n;	     /* frames */
	uint32_t pad;
	char sender_comm[16];	       /* the sender's /proc comm, "" unknown */
	struct dlt_sig_frame frames[]; /* frames[0] the pc */
};

/* SIGNAL flags. */
#define DLT_SIG_SCANNED 0x1u   /* frames after the first: a stack scan */
#define DLT_SIG_FORWARDED 0x2u /* the launcher passed it on to its child */

enum dlt_sig_action {
	DLT_SIG_ACT_DEFAULT = 1, /* the default action: the process ends */
	DLT_SIG_ACT_HANDLER = 2, /* the program's handler ran next */
};

/* ---- raw stacks (2.4) -------------------------------------------------- */

/* One executable mapping of a MODMAP: the addresses, the offset in the
 * file, the file and its GNU build-id as the process had it mapped (read
 * from the process's memory, so that a file replaced since is told
 * apart). */
struct dlt_modmap_ent {
	uint64_t lo;	      /* the mapping's first address */
	uint64_t hi;	      /* and the end */
	uint64_t off;	      /* its offset in the file */
	uint32_t path;	      /* string: the file; 0 anonymous */
	uint8_t build_id_len; /* 0 none found; bytes of build_id used */
	uint8_t pad[3];
	uint8_t build_id[24]; /* the note's first bytes (20: SHA-1) */
};

/* The process's executable mappings at ts, written before the first
 * RAWSTACK and again whenever they changed (a library loaded or
 * unloaded): a RAWSTACK is read against the latest MODMAP before it in
 * its trace.  flags: DLT_MODMAP_F_TRUNC. */
struct dlt_rec_modmap {
	struct dlt_rec_hdr h;
	uint32_t n;
	uint32_t pad;
	struct dlt_modmap_ent e[];
};

#define DLT_MODMAP_F_TRUNC 0x1u /* more mappings than were recorded */

/* Registers of a RAWSTACK, in the DWARF numbering of the architecture
 * (x86-64: 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15
 * r8-r15, 16 the return address column, written with the pc; AArch64: 0-30
 * x0-x30, 31 sp, 32 pc). */
#define DLT_RAW_NREGS 33
#define DLT_RAW_REG_PC_X86_64 16
#define DLT_RAW_REG_SP_X86_64 7
#define DLT_RAW_REG_PC_AARCH64 32
#define DLT_RAW_REG_SP_AARCH64 31

enum dlt_raw_arch {
	DLT_ARCH_X86_64 = 1,
	DLT_ARCH_AARCH64 = 2,
};

enum dlt_raw_why {
	DLT_RAW_CRASH = 1, /* the crash handler, for the SIGNAL before it */
	DLT_RAW_STALL = 2, /* the watcher, for the STALL before it */
};

/* One thread's machine state, taken without unwinding: its registers
 * (those regs_known says) and len bytes of its stack from sp upwards,
 * which follow the record.  Unwound and named offline (docs/design.md),
 * against the latest MODMAP before it.  The crash handler knows every
 * register (from the signal's context); the watcher only the pc and the
 * stack pointer of a thread blocked in a system call.  stack_lo and
 * stack_hi are the mapping sp is in (0 unknown): a fault just below it is
 * a stack overflow.  flags: DLT_RAW_F_*. */
struct dlt_rec_rawstack {
	struct dlt_rec_hdr h;
	uint32_t tid;
	uint16_t arch;	     /* enum dlt_raw_arch */
	uint16_t why;	     /* enum dlt_raw_why */
	uint64_t regs_known; /* bit i: regs[i] is known */
	uint64_t regs[33];   /* DLT_RAW_NREGS, DWARF numbering */
	uint64_t sp;	     /* address of the first byte copied */
	uint64_t stack_lo;   /* the mapping sp is in: its start */
	uint64_t stack_hi;   /* and its end */
	uint32_t len;	     /* bytes of stack that follow */
	uint32_t pad;
	uint8_t bytes[];
};

#define DLT_RAW_F_TRUNC 0x1u /* the stack goes on past the copy */

/* ---- the rank the job's code passed (2.5) ----------------------------- */

/* Which call's arguments a RANK came from: what the program passed to
 * init_process_group (its -1, "read from the environment", is never
 * recorded), or what the rendezvous gave its store, the environment's
 * values included.  Values above these are kept for other frameworks. */
enum dlt_rank_source {
	DLT_RANK_FROM_INIT = 1,	 /* torch.distributed.init_process_group */
	DLT_RANK_FROM_STORE = 2, /* torch.distributed's _create_c10d_store */
};

/* The rank and world size the job's code passed to torch.distributed, read
 * by the shim from the Python frames of the thread that connected or bound
 * a socket during the rendezvous (docs/design.md, "The rank from the
 * job's code").  Written once per distinct (rank, world_size) in the
 * trace of the process that made the call; a forked child inherits
 * none.  flags: 0. */
struct dlt_rec_rank {
	struct dlt_rec_hdr h;
	int32_t rank;	    /* >= 0 */
	int32_t world_size; /* > 0 */
	uint32_t source;    /* enum dlt_rank_source */
	uint32_t tid;	    /* the thread whose frames said it */
};

/* ---- aggregates of the ring (2.6) ------------------------------------- */

/* Buckets of an AGG row's histogram of call durations: bucket 0 under 128
 * ns, bucket i (1 <= i < 23) [2^(i+6), 2^(i+7)) ns, bucket 23 from 2^29 ns
 * (0.54 s). */
#define DLT_AGG_HIST 24
/* The rows' intervals are whole seconds since the trace's
 * start_monotonic_ns, one second each unless the chunk's calls spread over
 * more intervals than an AGG has rows for (a thread that calls once a
 * minute): then span_s seconds each, a power of two. */
#define DLT_AGG_INTERVAL_NS 1000000000ull
/* The most rows one AGG has. */
#define DLT_AGG_MAX_ROWS 32

/* The bucket of a duration of ns nanoseconds (above). */
static inline uint32_t dlt_agg_bucket(uint64_t ns)
{
	if (ns < 128)
		return 0;
	uint32_t log2 = 63u - (uint32_t)__builtin_clzll(ns);
	return log2 - 6 < DLT_AGG_HIST - 1 ? log2 - 6 : DLT_AGG_HIST - 1;
}

/* The calls of one API with one key (its communicator, else its stream,
 * else 0) in one interval, of the chunk an AGG sums up.  Durations in
 * nanoseconds; an open call (never returned) is not counted. */
struct dlt_agg_row {
	uint16_t api; /* API id (apis.def) */
	uint16_t pad;
	uint32_t interval; /* first second of the row's interval, a multiple
			      of the AGG's span_s */
	uint64_t key;	   /* the communicator or stream value, 0 none */
	uint32_t count;
	uint32_t errors; /* of count: ret other than 0 */
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint32_t hist[DLT_AGG_HIST];
};

/* A ring chunk summed up before it was used again: the chunk at chunk_off
 * as it was with chunk_seq is not read any more; its calls are these rows.
 * Written by the thread that takes the chunk, in its own (non-ring) chunk,
 * before the chunk is touched.  first_ts and last_ts: the chunk's first
 * and last call.  flags: 0. */
struct dlt_rec_agg {
	struct dlt_rec_hdr h;
	uint64_t chunk_off;
	uint32_t chunk_seq;
	uint32_t tid; /* the chunk's thread */
	uint64_t first_ts;
	uint64_t last_ts;
	uint32_t calls;	 /* the rows' counts added up */
	uint32_t n;	 /* rows, at most DLT_AGG_MAX_ROWS */
	uint32_t span_s; /* seconds each row covers: 1, 2, 4 ... */
	uint32_t pad;
	struct dlt_agg_row rows[];
};

/* ---- Python stacks ---------------------------------------------------- */

/* One Python frame of a PYSTACK: its line and the lengths of its two
 * texts, which follow the frames in the record. */
struct dlt_pyframe {
	int32_t line;	   /* -1 unknown */
	uint16_t file_len; /* bytes of its file name (the end of a long one) */
	uint16_t func_len; /* bytes of its function's name; bit 15 (2.4):
			    * DLT_PYFRAME_ENTRY */
};

/* In dlt_pyframe.func_len (2.4): C code entered this frame (a call from C
 * into the interpreter: every frame before 3.11; from 3.11, the frame one
 * evaluation loop call started with, the outermost of the frames it runs).
 * Read innermost first, the frames up to and including the next entry are
 * those of one native evaluation frame, so that the two stacks merge. */
#define DLT_PYFRAME_ENTRY 0x8000u
#define DLT_PYFRAME_LEN 0x7fffu

/* The Python stack of one thread, read from the interpreter's memory in
 * the traced process (docs/design.md), written with a STACK by the
 * watchdog and by whoever records a crash.  The text is inline, not
 * string ids: a signal handler writes it.  After frames[n]: per frame its
 * file name then its function name, file_len and func_len bytes, no NUL.
 * reason says why no frames (or not all of them) could be read.  flags:
 * DLT_PYSTACK_F_* (the writer's). */
struct dlt_rec_pystack {
	struct dlt_rec_hdr h;
	uint32_t tid;
	uint16_t n;	     /* frames, innermost first */
	uint16_t reason;     /* enum dlt_pystack_reason */
	uint32_t py_version; /* the interpreter's PY_VERSION_HEX; 0 unknown */
	uint32_t depth;	     /* frames the thread had, >= n */
	uint64_t addr;	     /* DLT_PYSTACK_UNREADABLE: the address */
	struct dlt_pyframe frames[];
};

/* Why a PYSTACK has no frames (or stops early: UNREADABLE with n > 0). */
enum dlt_pystack_reason {
	DLT_PYSTACK_OK = 0,
	DLT_PYSTACK_NO_PYTHON = 1,     /* no interpreter in the process */
	DLT_PYSTACK_VERSION = 2,       /* py_version is not supported */
	DLT_PYSTACK_NO_THREAD = 3,     /* the thread runs no Python code */
	DLT_PYSTACK_UNREADABLE = 4,    /* memory at addr could not be read */
	DLT_PYSTACK_NOT_STARTED = 5,   /* no interpreter initialised (yet) */
	DLT_PYSTACK_FREE_THREADED = 6, /* a free-threaded build */
	DLT_PYSTACK_LAYOUT = 7,	       /* its debug offsets differ from ours */
	DLT_PYSTACK_NOT_PREPARED = 8,  /* not looked for before the signal */
};

/* PYSTACK flags, set by the writer. */
#define DLT_PYSTACK_F_SIGNAL 0x1u /* written in the thread's signal handler */
/* With SIGNAL: the main thread's stack, written by the handler of a signal
 * another thread got (a crash in a thread of a C++ library runs no Python
 * code; the main thread's place says what the program was doing). */
#define DLT_PYSTACK_F_MAIN 0x2u

/* ---- how processes died (format 2.2) --------------------------------- */

/* MEMCG flags: when the reading was taken, and what it read. */
#define DLT_MEMCG_START 0x1u /* while the subject lived (before a death) */
#define DLT_MEMCG_DEATH 0x2u /* just after the writer saw subject's death */
#define DLT_MEMCG_V1 0x4u    /* cgroup v1 memory controller */
#define DLT_MEMCG_V2 0x8u    /* cgroup v2 */
/* The cgroup is the subject's own (read by the subject itself); else it
 * is the writer's, which a child shares unless it moved. */
#define DLT_MEMCG_OWN 0x10u
#define DLT_MEMCG_UNKNOWN UINT64_MAX /* a counter that could not be read */
#define DLT_MEMCG_NO_LIMIT (UINT64_MAX - 1) /* "max", or v1's page max */

/* The memory cgroup's out-of-memory evidence, as any process can read it
 * without privileges: the cgroup (/proc/self/cgroup: the v1 memory
 * controller's line, else v2's 0:: line), its OOM kill counter (v2
 * memory.events oom_kill, hierarchical; v1 memory.oom_control oom_kill,
 * that cgroup only), its limit (v2 memory.max, v1 memory.limit_in_bytes)
 * and the machine's counter (/proc/vmstat oom_kill).  Written by the
 * launcher before it starts the command and after it reaps it, by a
 * traced process at its first fork and when it reaps a child killed by
 * SIGKILL, and by the watchdog when it starts.  flags: DLT_MEMCG_*. */
struct dlt_rec_memcg {
	struct dlt_rec_hdr h;
	uint32_t subject;	/* pid the reading is about */
	int32_t status;		/* DEATH: subject's wait status, else 0 */
	uint64_t oom_kills;	/* the cgroup's, or DLT_MEMCG_UNKNOWN */
	uint64_t limit;		/* bytes, DLT_MEMCG_NO_LIMIT or _UNKNOWN */
	uint64_t sys_oom_kills; /* the machine's, or DLT_MEMCG_UNKNOWN */
	uint64_t max_rss_kb;	/* DEATH: subject's peak RSS (rusage), 0 */
	/* The cgroup's path, in the record itself: the launcher writes into
	 * a trace whose string ids it does not know.  path_len bytes, a NUL,
	 * zero padding to 8; 0 bytes when not found. */
	uint32_t path_len;
	uint32_t pad;
	char path[];
};

enum dlt_kill_why {
	DLT_KILL_HANG_TIMEOUT = 1, /* dltrace --hang-timeout ended the tree */
};

/* The launcher sent a signal to this process (written by the launcher
 * into the trace of the last image of each pid it signalled, once they
 * are gone).  flags = enum dlt_kill_why; ts = when it was sent. */
struct dlt_rec_kill {
	struct dlt_rec_hdr h;
	uint32_t pid;
	int32_t signal;
	int32_t err; /* errno of kill(), 0 when it was sent */
	uint32_t pad;
};

#endif /* DLTRACE_FORMAT_H */
