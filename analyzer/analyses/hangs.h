/* What the hang analysis knows of each process of a job (hangs.c): a small
 * summary read from its trace, which the job-wide rules of the check rule
 * table (INIT_HANG, MISSING_RANK, RANK_MISMATCH, STALL in analyzer/rules/)
 * judge across processes.  Used by `hangs`, `check` and the launcher's
 * verdicts. */
#ifndef DLTRACE_HANGS_H
#define DLTRACE_HANGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "pystacks.h"
#include "stackview.h"

#define DLT_HANG_MAX_STALLS 32
#define DLT_HANG_MAX_INFLIGHT 32

struct dlt_hang_stall {
	uint32_t tid;
	int32_t syscall;
	uint64_t since; /* monotonic ns of the traced process */
	uint64_t dur_ns;
	bool ended;
	/* Recorded before the stall threshold because the thread was inside
	 * a traced call (DLT_STALL_EARLY), and still shorter than it. */
	bool early;
	char state;
	int32_t fd;
	/* The call's first two arguments: which child a wait4 (pid) or a
	 * waitid (idtype, id) waits for. */
	uint64_t args[2];
	uint32_t nframes;
	char wchan[64];
	char detail[256];
	char stack[1536]; /* innermost first, " < " between frames */
	/* The stack unwound from a RAWSTACK (format 2.4) with the Python
	 * frames in place of the interpreter's, outermost first, " → "
	 * between; "" when the trace has none.  stack_how: "CFI", "CFI,
	 * then a scan", with why the unwinding stopped. */
	char merged[1024];
	char stack_how[192];
	/* The thread's Python stack written with the stall (PYSTACK), NULL
	 * when none was: a process without Python, an older trace. */
	struct dlt_pystack_sum *py;
};

#define DLT_HANG_CALL_VALS 8

/* A call that was entered (API_ENTER) and has not returned. */
struct dlt_hang_call {
	uint32_t tid;
	uint16_t api;
	uint64_t ts;
	uint32_t nv;
	uint64_t v[DLT_HANG_CALL_VALS]; /* its values before the call */
};

/* One end of a connection the process made or accepted (SOCK_ENDS):
 * another process's wait on its peer address leads here. */
struct dlt_hang_sock {
	char local[80];
	char peer[80];
};

#define DLT_HANG_MAX_SOCKS 256
#define DLT_HANG_MAX_COMMS 8

/* A communicator's collectives in this process, in order (NCCL calls
 * them in the same order on every rank): how many returned, the last of
 * them, and the communicator's identity across processes. */
struct dlt_hang_coll {
	uint16_t api;
	uint64_t count, type;
	int64_t op, root; /* -1: the call has none */
};
struct dlt_hang_comm {
	uint64_t handle; /* in this process */
	uint64_t id;	 /* its init's unique-id hash; 0 unknown */
	int32_t rank, nranks;
	uint32_t done; /* collectives and sends/receives that returned */
	struct dlt_hang_coll last;
	/* Of done, those from AGG rows (format 2.6), and the earliest call
	 * they sum up: a thread's AGG can be read before another thread's
	 * init of the communicator (chunks in seq order), and the init must
	 * not forget the calls made after it. */
	uint32_t agg_done;
	uint64_t agg_first_ts;
};

struct dlt_hang_obj {
	char *path;	  /* as the process opened it, symlinks resolved */
	const char *name; /* its last component, inside path */
	uint8_t build_id[32];
	uint32_t build_id_len;
};

struct dlt_hang_proc {
	char trace[512];
	char host[128];
	char exe[256];
	uint32_t pid, ppid;
	uint64_t run_id; /* the launcher run, 0 none */
	/* When the launcher reaped the process (REAPED), monotonic; 0 none.
	 * And the run it belongs to among the inputs (runs.h: launcher runs
	 * that overlap in time are one), set by dlt_hang_group_runs. */
	uint64_t reaped_ts;
	uint32_t run_group;
	int32_t rank, world_size;
	/* Where they came from (dlt_hang_end decides): "init_process_group"
	 * or "_create_c10d_store" (a RANK record: the job's code), a
	 * launcher's variable ("RANK", "SLURM_PROCID" ...; "launcher" when
	 * the environment was not recorded), "ncclCommInitRank" (the first
	 * communicator it joined); "" unknown. */
	char rank_source[32];
	/* What dlt_hang_end decides from: the latest RANK record (rank -1
	 * none) and the first launcher's rank variable of the environment
	 * (env_rank_var NULL none). */
	int32_t rec_rank, rec_world_size;
	uint32_t rec_source;
	uint64_t rec_ts;
	const char *env_rank_var;
	int env_rank_order;
	char master_addr[128], master_port[16];
	/* The communicator of the last init entered (DLT_ROLE_COMM_INIT). */
	uint64_t comm_id; /* NCCL unique id hash */
	int32_t comm_rank, comm_nranks;
	/* The first init entered (-1 none), and when. */
	int32_t first_comm_rank, first_comm_nranks;
	uint64_t first_comm_ts;
	/* That init returned success: every rank of the communicator came,
	 * traced or not. */
	bool comm_formed;
	uint64_t comm_handle; /* the communicator it returned */
	/* The last split entered (DLT_ROLE_COMM_SPLIT): the id hash of the
	 * communicator it splits (0 when that is not one of comm_id's),
	 * its color and key, and whether it returned. */
	uint64_t split_parent;
	int64_t split_color, split_key;
	bool split_entered, split_returned;
	uint64_t start_real, start_mono;
	uint64_t last_ts; /* last sign of life, monotonic */
	uint16_t last_api;
	uint32_t last_api_tid;
	uint64_t last_api_ts;
	bool ended;
	/* enum dlt_live (live.h): is the process running now?  Asked only
	 * for a trace without an end record. */
	int live;
	/* The last signal dltrace's launcher sent it after --hang-timeout
	 * (KILL records), 0 none. */
	int dltrace_sig;
	uint16_t exit_how;
	int32_t exit_status;
	uint64_t connect_fail;
	int32_t connect_err;
	char connect_addr[128];
	/* A torchrun agent (its arguments say so): --nnodes (the most of
	 * "1:4"), --node_rank (-1 not given), --nproc_per_node (0 not a
	 * number); 0 where not given. */
	bool tr_agent;
	int32_t tr_nnodes, tr_node_rank, tr_nproc;
	int tr_opt; /* the option the last ARG named, for the next */
	/* Non-blocking connects in a row to one address (try_addr), up to
	 * the latest connect: a store client retrying at the end. */
	uint32_t connect_tries;
	char try_addr[80];
	size_t nstalls, ninflight;
	/* Allocated as they come (most processes have none; a fixed array
	 * made 40 KiB per process, 800 MB for 20,000 processes); at most
	 * DLT_HANG_MAX_STALLS.  dlt_hang_proc_free frees them. */
	struct dlt_hang_stall *stalls;
	size_t capstalls;
	struct dlt_hang_call inflight[DLT_HANG_MAX_INFLIGHT];
	/* Allocated as they come, at most DLT_HANG_MAX_SOCKS. */
	struct dlt_hang_sock *socks;
	size_t nsocks, capsocks;
	struct dlt_hang_comm comms[DLT_HANG_MAX_COMMS];
	size_t ncomms;
	/* The objects the process loaded (LIB_LOAD), to name the stack
	 * frames the process could only give as "object+0xoff". */
	struct dlt_hang_obj *objs;
	size_t nobjs, capobjs;
	/* The latest MODMAP (its entries' paths and build-ids owned), and
	 * the last stall stack unwound, for the PYSTACK written after it. */
	/* The latest Python stack of a thread that had no wait (the main
	 * thread read while it ran at --hang-timeout's snapshot: a PYSTACK
	 * without a STALL; its tid says whose); NULL none. */
	struct dlt_pystack_sum *run_py;
	struct dlt_umod *mods;
	size_t nmods;
	struct dlt_stack_view pend;
	size_t pend_stall; /* index + 1 into stalls; 0 none */
};

/* The communicator of handle in hp, or NULL. */
const struct dlt_hang_comm *dlt_hang_comm_of(const struct dlt_hang_proc *hp,
					     uint64_t handle);
/* A collective or send/receive record's communicator handle and what it
 * was (false for any other call). */
bool dlt_hang_coll_of(uint16_t api, const uint64_t *v, size_t nv,
		      uint64_t *comm, struct dlt_hang_coll *out);

/* Reads one opened trace into *hp (the caller closes t). */
struct dlt_trace;
void dlt_hang_read(struct dlt_trace *t, struct dlt_hang_proc *hp);
/* The same in steps, for a caller that reads the trace itself so that one
 * pass serves several analyses (check): begin, then dlt_hang_hook_rec for
 * every record dlt_trace_foreach visits (a dlt_load_hook callback, ctx is
 * hp), then end with the trace's header. */
struct dlt_trace;
struct dlt_rec_view;
struct dlt_file_header;
void dlt_hang_begin(struct dlt_hang_proc *hp, const char *path);
/* Frees what hp holds; hp is zeroed (begin can reuse it). */
void dlt_hang_proc_free(struct dlt_hang_proc *hp);
/* Frees each of n processes, then the array. */
void dlt_hang_procs_free(struct dlt_hang_proc *procs, size_t n);
void dlt_hang_hook_rec(void *hp, struct dlt_trace *t,
		       const struct dlt_rec_view *v);
void dlt_hang_end(struct dlt_hang_proc *hp, const struct dlt_file_header *h);
/* Reads every trace of the job (taking and closing each) into a new
 * array *out (free it); returns how many. */
struct dlt_job;
size_t dlt_hang_read_job(struct dlt_job *j, struct dlt_hang_proc **out);

/* Sets each process's run_group (runs.h); returns how many runs. */
size_t dlt_hang_group_runs(struct dlt_hang_proc *procs, size_t n);

/* Whether hp is a rank of a job, not only of an NCCL communicator: its
 * rank and world size come from the job's code or its launcher. */
bool dlt_hang_job_rank(const struct dlt_hang_proc *hp);
/* Whether a and b are ranks of one job: one run, and one MASTER_ADDR
 * and MASTER_PORT, or neither with one world size. */
bool dlt_hang_same_job(const struct dlt_hang_proc *a,
		       const struct dlt_hang_proc *b);
/* Ended on its own (exit, _exit, exec) rather than killed or cut off. */
bool dlt_hang_exited(const struct dlt_hang_proc *hp);
/* Ended on its own without a failure: exit status 0 (or not seen), or an
 * exec.  A job whose processes all did so completed. */
bool dlt_hang_completed(const struct dlt_hang_proc *hp);
/* Whether api makes a communicator (DLT_ROLE_INITS: init, init of all
 * devices, split): a rank that enters one waits there for the others. */
bool dlt_hang_is_init(uint16_t api);
/* Rank order: ranks first, ascending, then processes without a rank; then
 * by pid and trace.  A qsort-style comparison. */
int dlt_hang_rank_order(const struct dlt_hang_proc *x,
			const struct dlt_hang_proc *y);
/* A call of thread tid in flight, or NULL. */
const struct dlt_hang_call *dlt_hang_call_of(const struct dlt_hang_proc *hp,
					     uint32_t tid);
/* "rank 3 (pid 4711)", or "pid 4711" for a process without a rank. */
const char *dlt_hang_who(const struct dlt_hang_proc *hp, char *buf, size_t cap);
/* "3.2 s", "1.5 min", "40.0 ms". */
void dlt_hang_fmt_dur(uint64_t ns, char *buf, size_t cap);
/* The first frame of a stall's stack outside the C library: where the
 * program's own code waits ("" when none). */
void dlt_hang_own_frame(const struct dlt_hang_stall *s, char *out, size_t cap);
/* Wall-clock ns of one of the process's monotonic timestamps. */
uint64_t dlt_hang_wall(const struct dlt_hang_proc *hp, uint64_t ts);
/* The latest stall of thread tid, or NULL. */
const struct dlt_hang_stall *dlt_hang_stall_of(const struct dlt_hang_proc *hp,
					       uint32_t tid);
/* "blocked in futex for 3.2 s (...)". */
void dlt_hang_wait_text(const struct dlt_hang_stall *s, char *buf, size_t cap);
/* The same without the wait's particulars when they are s's detail (its
 * descriptors, a futex's word): a headline says who, where and for how
 * long first and leaves a long list of them to the detail.  Returns
 * whether they were left out. */
bool dlt_hang_wait_short(const struct dlt_hang_stall *s, char *buf, size_t cap);
/* The name of an x86-64 system call a thread can wait in, or NULL. */
const char *dlt_syscall_name(int nr);
/* The same, never NULL: "syscall 999" for one without a name here. */
const char *dlt_syscall_label(int nr, char *buf, size_t cap);

#endif
