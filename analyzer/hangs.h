/* Hang analysis over the traces of all ranks of a job (hangs.c): used by
 * `hangs`, `check` and the launcher's verdict. */
#ifndef DLTRACE_HANGS_H
#define DLTRACE_HANGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define DLT_HANG_MAX_STALLS 32
#define DLT_HANG_MAX_INFLIGHT 32

struct dlt_hang_stall {
	uint32_t tid;
	int32_t syscall;
	uint64_t since; /* monotonic ns of the traced process */
	uint64_t dur_ns;
	bool ended;
	char state;
	int32_t fd;
	uint32_t nframes;
	char wchan[64];
	char detail[256];
	char stack[768]; /* innermost first, " < " between frames */
};

/* A call that was entered (API_ENTER) and has not returned. */
struct dlt_hang_call {
	uint32_t tid;
	uint16_t api;
	uint64_t ts;
	uint32_t nv;
	uint64_t v[4];
};

struct dlt_hang_proc {
	char trace[512];
	char host[128];
	uint32_t pid;
	uint64_t run_id; /* the launcher run, 0 none */
	int32_t rank, world_size;
	char master_addr[128], master_port[16];
	uint64_t comm_id; /* NCCL unique id hash of the last init entered */
	int32_t comm_rank, comm_nranks;
	uint64_t start_real, start_mono;
	uint64_t last_ts; /* last sign of life, monotonic */
	uint16_t last_api;
	uint32_t last_api_tid;
	uint64_t last_api_ts;
	bool ended;
	/* enum dlt_live (live.h): is the process running now?  Asked only
	 * for a trace without an end record. */
	int live;
	uint16_t exit_how;
	int32_t exit_status;
	uint64_t connect_fail;
	int32_t connect_err;
	char connect_addr[128];
	size_t nstalls, ninflight;
	struct dlt_hang_stall stalls[DLT_HANG_MAX_STALLS];
	struct dlt_hang_call inflight[DLT_HANG_MAX_INFLIGHT];
};

struct dlt_hang_finding {
	const char *code; /* INIT_HANG, MISSING_RANK, RANK_MISMATCH, STALL */
	const char *severity; /* error or warning */
	const struct dlt_hang_proc *proc;
	const struct dlt_hang_call *call;   /* or NULL */
	const struct dlt_hang_stall *stall; /* or NULL */
	const char *missing;		    /* " 3 5": ranks, or NULL */
	const char *msg;
};

typedef void (*dlt_hang_finding_fn)(void *ctx,
				    const struct dlt_hang_finding *f);

/* Reads one trace into *hp; -1 with a message in err if it cannot. */
int dlt_hang_load_one(const char *path, struct dlt_hang_proc *hp, char *err,
		      size_t errlen);
/* The same in steps, for a caller that reads the trace itself so that one
 * pass serves several analyses (check): begin, then dlt_hang_hook_rec for
 * every record dlt_trace_foreach visits (a dlt_load_hook callback, ctx is
 * hp), then end with the trace's header. */
struct dlt_trace;
struct dlt_rec_view;
struct dlt_file_header;
void dlt_hang_begin(struct dlt_hang_proc *hp, const char *path);
void dlt_hang_hook_rec(void *hp, struct dlt_trace *t,
		       const struct dlt_rec_view *v);
void dlt_hang_end(struct dlt_hang_proc *hp, const struct dlt_file_header *h);
/* Every hang finding over the n processes. */
void dlt_hang_analyze(struct dlt_hang_proc *procs, size_t n,
		      dlt_hang_finding_fn emit, void *ctx);

/* Loads every trace of in into a new array *out (free it); a trace that
 * cannot be read is said on errs when errs is not NULL.  Returns how many
 * loaded. */
struct dlt_inputs;
size_t dlt_hang_load_inputs(const struct dlt_inputs *in,
			    struct dlt_hang_proc **out, FILE *errs);

/* Ended on its own (exit, _exit, exec) rather than killed or cut off. */
bool dlt_hang_exited(const struct dlt_hang_proc *hp);
/* Wall-clock ns of one of the process's monotonic timestamps. */
uint64_t dlt_hang_wall(const struct dlt_hang_proc *hp, uint64_t ts);
/* The latest stall of thread tid, or NULL. */
const struct dlt_hang_stall *dlt_hang_stall_of(const struct dlt_hang_proc *hp,
					       uint32_t tid);
/* "blocked in futex for 3.2 s (...)". */
void dlt_hang_wait_text(const struct dlt_hang_stall *s, char *buf, size_t cap);
/* The name of an x86-64 system call a thread can wait in, or NULL. */
const char *dlt_syscall_name(int nr);

#endif
