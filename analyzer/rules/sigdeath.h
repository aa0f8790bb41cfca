/* Processes that a signal from another process ended, noted by the CRASH
 * rule as each process is checked (crash.c) and reported by the job rule
 * SIGNAL_SENT (signal_sent.c) once every process of the check is known:
 * the sender may be a traced process (the job's launcher) that reacted to
 * another process's failure, which is then the one to point at. */
#ifndef DLTRACE_SIGDEATH_H
#define DLTRACE_SIGDEATH_H

#include <stddef.h>
#include <stdint.h>

#include "findings.h"

struct dlt_sigdeath {
	const struct dlt_check *chk; /* the check it belongs to */
	size_t proc;		     /* index in chk->procs */
	uint64_t trace_id;	     /* chk->procs[proc]'s, to tell it */
	uint64_t ts;
	int signo;
	int code;
	int32_t sender_pid;
	uint32_t sender_uid;
	const char *sender_comm; /* in chk's arena; NULL unknown */
	/* The launcher passed it on: who sent it to the launcher. */
	int forwarded;
	int32_t orig_pid;
	uint32_t orig_uid;
	const char *orig_comm;
};

/* Notes one (copied); notes of another check are dropped first (checks
 * run one at a time). */
void dlt_sigdeath_add(const struct dlt_sigdeath *d);
/* The ones noted for chk, in the order noted, each still naming the
 * process it was noted for; *n their count.  They stay until
 * dlt_sigdeath_clear. */
const struct dlt_sigdeath *dlt_sigdeath_of(const struct dlt_check *chk,
					   size_t *n);
void dlt_sigdeath_clear(void);

#endif
