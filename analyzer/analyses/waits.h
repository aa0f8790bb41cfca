/* Who waits for whom in a job that hangs (waits.c): for each process, the
 * thread the job waits on and what it is doing; the connections that lead
 * from one process's wait to the process holding the other end; the
 * collectives of each communicator counted per rank; and, per job, the
 * rank that holds the others up.  The rule JOB_HANG
 * (analyzer/rules/job_hang.c) words the verdict. */
#ifndef DLTRACE_WAITS_H
#define DLTRACE_WAITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hangs.h"

enum dlt_wait_kind {
	/* No wait seen: the thread runs, or is between waits. */
	DLT_WAIT_RUNNING = 0,
	/* In a collective, an init or the rendezvous: waits for other
	 * ranks. */
	DLT_WAIT_PEERS = 1,
	/* Blocked in something else: a sleep, a read, a lock. */
	DLT_WAIT_OTHER = 2,
	/* The process ended while it was not waiting. */
	DLT_WAIT_ENDED = 3,
};

const char *dlt_wait_kind_name(enum dlt_wait_kind k);

/* What one process of a job is doing, seen through the thread the job
 * waits on: the thread in a traced call that waits for other ranks, else
 * the main thread, else a thread blocked in collective or rendezvous code
 * that is no helper's idle loop. */
struct dlt_wait_state {
	uint32_t tid; /* 0: none known */
	const struct dlt_hang_call *call;
	const struct dlt_hang_stall *stall;
	enum dlt_wait_kind kind;
	uint64_t since;	 /* monotonic ns of the process; 0 unknown */
	char what[256];	 /* "ncclAllReduce", "c10d::Work::wait", "sleep" */
	char where[256]; /* the program's own frame of the wait, or "" */
	/* The innermost Python frame of the program's own code in that
	 * thread's stack (PYSTACK), "<string>:5 in load_batch"; "" none. */
	char py[256];
	/* The innermost frame of the program's own code there (not
	 * CPython's library, not an installed package's: the line that
	 * called all_reduce rather than torch's all_reduce); "" none. */
	char own[256];
};

void dlt_wait_state_of(const struct dlt_hang_proc *hp,
		       struct dlt_wait_state *ws);
/* Whether x86-64 system call nr is a sleep (nanosleep, clock_nanosleep). */
bool dlt_wait_sleeps_nr(int32_t nr);

/* Whether a stack (innermost first, " < " between frames) is in code that
 * waits for other ranks: torch.distributed's store, rendezvous, process
 * groups and collectives, gloo, NCCL. */
bool dlt_wait_in_peer_code(const char *stack);

/* For the timeline (export): whether stall s waits for other ranks (its
 * native or Python frames are in collective or rendezvous code), whether
 * it is a helper thread's idle loop (gloo's loop and workers, the store's
 * server), which waits for peers whatever the program does, and whether
 * a call of api waits for other ranks while it is in flight (an init, a
 * collective, a synchronisation). */
bool dlt_wait_stall_for_peers(const struct dlt_hang_stall *s);
bool dlt_wait_stall_helper(const struct dlt_hang_stall *s);
bool dlt_wait_api_for_ranks(uint16_t api);

/* A thread of process from blocked on a connection whose other end
 * process to holds (its SOCK_ENDS local address is the peer the wait
 * names; on one host for loopback addresses). */
struct dlt_wait_link {
	size_t from, to; /* indexes in the procs array */
	uint32_t tid;
	int32_t syscall;
	char addr[80]; /* the other end: "tcp 127.0.0.1:41234" */
};

/* The local ends of every recorded connection of procs, sorted by
 * address: which process holds the end a wait names. */
struct dlt_wait_end {
	const char *addr, *host;
	size_t proc;
};
struct dlt_wait_ends {
	struct dlt_wait_end *v;
	size_t n;
};
void dlt_wait_ends_build(const struct dlt_hang_proc *const *procs, size_t n,
			 struct dlt_wait_ends *e);
void dlt_wait_ends_free(struct dlt_wait_ends *e);

/* The process (index) whose connection has local address addr, on host
 * host for loopback addresses; SIZE_MAX when none, skip excluded. */
size_t dlt_wait_owner(const struct dlt_wait_ends *e, size_t skip,
		      const char *host, const char *addr);

/* The links out of procs[i] to other processes, each (thread, other
 * process) once, at most cap; returns how many. */
size_t dlt_wait_links(const struct dlt_hang_proc *const *procs,
		      const struct dlt_wait_ends *e, size_t i,
		      struct dlt_wait_link *out, size_t cap);

/* A communicator's collectives at one rank: how many returned, and the
 * one in flight (seq done + 1), if any. */
struct dlt_wait_coll {
	const struct dlt_hang_comm *comm;
	const struct dlt_hang_call *call; /* in flight, or NULL */
	struct dlt_hang_coll cur;	  /* the one in flight */
};

/* Process hp's view of the communicator with unique-id hash id: false
 * when it never formed that communicator. */
bool dlt_wait_coll_of(const struct dlt_hang_proc *hp, uint64_t id,
		      struct dlt_wait_coll *out);

/* "ncclAllReduce count 1024 float sum" into buf. */
const char *dlt_wait_coll_text(const struct dlt_hang_coll *c, char *buf,
			       size_t cap);

/* ---- the verdict of a group --------------------------------------------
 *
 * A group is the processes of one job (one MASTER_ADDR:MASTER_PORT in one
 * run) or, without one, of one NCCL communicator (one unique-id hash),
 * with the processes of the same run whose rank it lacks. */

enum dlt_wait_why {
	DLT_WHY_NONE = 0,
	DLT_WHY_MISSING = 1,	 /* a rank of the job left no trace */
	DLT_WHY_NOT_WAITING = 2, /* waits for nothing the others wait for */
	DLT_WHY_ENDED = 3,	 /* ended while the others wait */
	DLT_WHY_BEHIND = 4,	 /* fewer collectives than the others */
	DLT_WHY_OTHER_OP = 5,	 /* another collective at the same number */
	/* Its connects to the rendezvous keep failing while the others'
	 * did not (another MASTER_PORT or init_method address). */
	DLT_WHY_UNREACHABLE = 6,
};

struct dlt_wait_group {
	size_t first;	  /* index of its first process */
	size_t n;	  /* members */
	size_t *members;  /* indexes, rank order */
	int32_t size;	  /* WORLD_SIZE or nranks; -1 unknown */
	uint64_t comm_id; /* the communicator, 0 for a job */
	size_t nwaiting;  /* members waiting for peers */
	/* The straggler: a member (index), or SIZE_MAX with missing_rank
	 * set (a rank without a trace), or neither (none found). */
	size_t straggler;
	int32_t missing_rank;
	/* NOT_WAITING: the straggler waits for a child of its own (a
	 * DataLoader's worker) that is blocked in the program's own code:
	 * that child (index), else SIZE_MAX. */
	size_t worker;
	/* MISSING: a process of the run with no rank, started beside the
	 * members by their launcher (mp.spawn's parent) and waiting in the
	 * program's own code, that never told torch.distributed its rank:
	 * the process started for the missing rank (index), else
	 * SIZE_MAX. */
	size_t stand_in;
	enum dlt_wait_why why;
	/* For BEHIND and OTHER_OP: the straggler's position and the
	 * others'. */
	uint32_t seq_straggler, seq_others;
};

/* The groups of the job in which some process waits for its peers and the
 * job did not complete; *out is an array (dlt_wait_groups_free).  procs
 * in rank order. */
size_t dlt_wait_groups(const struct dlt_hang_proc *const *procs, size_t n,
		       bool completed, struct dlt_wait_group **out);
void dlt_wait_groups_free(struct dlt_wait_group *g, size_t n);
/* Whether procs[i] is a member of one of the groups. */
bool dlt_wait_in_group(const struct dlt_wait_group *g, size_t ng, size_t i);

/* ---- a hang without ranks ----------------------------------------------
 *
 * The processes of one run that have no rank (no RANK and MASTER_PORT, no
 * NCCL communicator), when dltrace ended the run after --hang-timeout or
 * one of them was killed while it waited: the chain of waits from the
 * run's first process to the one that holds the others up.  A process
 * waits for a child in wait4 or waitid (the pid it names, else any child
 * still running), or for the process holding the other end of a
 * connection; the straggler is the last of the chain, waiting on nothing
 * traced or running. */

struct dlt_wait_hop {
	size_t proc; /* index in the procs array */
	/* How it waits for the next of the chain: "for pid 4712", "for any
	 * child", "on tcp 127.0.0.1:41234"; "" for the last. */
	char via[96];
};

struct dlt_wait_tree {
	uint32_t run_group;
	struct dlt_wait_hop *chain; /* outermost first, the straggler last */
	size_t n;
	size_t *members; /* the run's processes, by index */
	size_t nmembers;
	/* dltrace ended the run after --hang-timeout (else a process was
	 * found killed while it waited). */
	bool by_dltrace;
};

/* The hung runs without ranks of procs; *out is an array
 * (dlt_wait_trees_free).  None when the job completed. */
size_t dlt_wait_trees(const struct dlt_hang_proc *const *procs, size_t n,
		      bool completed, struct dlt_wait_tree **out);
void dlt_wait_trees_free(struct dlt_wait_tree *t, size_t n);
/* Whether procs[i] is one of the trees' processes. */
bool dlt_wait_in_tree(const struct dlt_wait_tree *t, size_t nt, size_t i);

/* Per process: it started ranks (an ancestor of a process with a rank or
 * a communicator, on its host, in its run) and has neither itself:
 * torchrun's agent, mp.spawn's parent, srun's step, a shell; or it is such
 * a launcher's helper, no rank and below no rank (multiprocessing's
 * resource tracker).  Its waits are for its children or its launcher's.
 * An array of n (free it). */
bool *dlt_wait_launchers(const struct dlt_hang_proc *const *procs, size_t n);

/* Per process: a member of one of the groups, or below one (a rank's
 * DataLoader workers and their children).  An array of n (free it). */
bool *dlt_wait_judged(const struct dlt_hang_proc *const *procs, size_t n,
		      const struct dlt_wait_group *g, size_t ng);

#endif
