/* Hang watching, the process's side (watchdog.c), and the socket wrappers
 * (net.c). */
#ifndef DLTRACE_WATCHDOG_H
#define DLTRACE_WATCHDOG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Asks, once per process image, to be watched for hangs by the watcher
 * outside the process (and starts the host's watcher when none runs);
 * why goes into a NOTE. */
void dlt_watch_ask(const char *why);
/* 1 once this process asked (or chose not to; inline: every blocking GPU
 * call asks). */
extern _Atomic int dlt_wd_started;
static inline int dlt_watch_asked(void)
{
	return atomic_load_explicit(&dlt_wd_started, memory_order_relaxed);
}
/* In a forked child: the table of blocking calls is emptied (a watched
 * process's child stays watched: the watcher finds it). */
void dlt_watchdog_after_fork(void);
/* A forked child's trace was made (tracer's dlt_on_materialized): what
 * the process is, and, where its parent was watched, its ask. */
struct dlt_writer;
struct dlt_tls;
void dlt_watch_materialized(struct dlt_writer *w, struct dlt_tls *t,
			    int redact_argv);

/* Threads inside a traced call that can block (the apis.def functions
 * recorded before they start): the watchdog records their waits after one
 * tick instead of DLTRACE_STALL_MS, so that a rank killed early in a hung
 * init still says where it waited (docs/hangs.md).  One slot per thread,
 * taken at its first such call; two stores per call. */
struct dlt_wd_call {
	_Atomic uint32_t tid;
	uint32_t pad;
	_Atomic uint64_t since; /* when the outermost call began, 0 none */
};
extern __thread struct dlt_wd_call *dlt_wd_my_call;
/* The calling thread's slot, taken now; NULL when every slot is taken. */
struct dlt_wd_call *dlt_wd_call_claim(void);
/* The calling thread ends: its slot is free again. */
void dlt_wd_call_release(void);

/* A traced call that can block starts at t0; returns what to hand to
 * dlt_wd_call_end (a nested call leaves the outer one's start). */
static inline uint64_t dlt_wd_call_begin(uint64_t t0)
{
	struct dlt_wd_call *c = dlt_wd_my_call;
	if (__builtin_expect(c == NULL, 0) && (c = dlt_wd_call_claim()) == NULL)
		return UINT64_MAX;
	uint64_t prev = atomic_load_explicit(&c->since, memory_order_relaxed);
	if (prev == 0)
		atomic_store_explicit(&c->since, t0, memory_order_relaxed);
	return prev;
}

static inline void dlt_wd_call_end(uint64_t prev)
{
	struct dlt_wd_call *c = dlt_wd_my_call;
	if (c && prev == 0)
		atomic_store_explicit(&c->since, 0, memory_order_relaxed);
}

/* "tcp 10.0.0.1:29500", "tcp [::1]:80", "unix /path", "unix @abstract". */
void dlt_format_sockaddr(const struct sockaddr *sa, socklen_t len, char *buf,
			 size_t cap);

#endif
