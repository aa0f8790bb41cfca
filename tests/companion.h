/* Traces about a process and the watcher's companion for it (format 2.3),
 * made with the real writer (tracer/), for the tests of the reader, the
 * job and the commands (test_companion.c, test_job.c). */
#ifndef DLTRACE_TESTS_COMPANION_H
#define DLTRACE_TESTS_COMPANION_H

#include <stddef.h>
#include <stdint.h>

/* What the companion's records say, checked by the tests. */
#define TC_WCHAN "futex_wait_queue_watched"
#define TC_DETAIL "futex 0x7f00 (a lock the watcher saw)"
#define TC_FRAME0 "ncclCommInitRank+0x1a (libnccl.so.2)"
#define TC_FRAME1 "bootstrapRecv+0x40 (libnccl.so.2)"
#define TC_PYFILE "/srv/job/train.py"
#define TC_PYFUNC "wait_for_peers"
#define TC_PYLINE 42
#define TC_NOTE "watcher: watching this process from outside"
/* The header values the watcher stores, above the process's own. */
#define TC_ALIVE_AFTER_NS 61000000000ull /* after the process's start */
#define TC_RSS_KB 777777ull

/* A process's own trace in dir, about pid (faked: no such process runs)
 * on host unit-host, with a PROC record of rank (or -1) and world 2 and
 * a NOTE.  Its path goes to path.  0, or -1. */
int tc_make_process(const char *dir, uint32_t pid, int rank, char *path,
		    size_t cap);

/* The watcher's companion for the trace at trace_path, beside it: its
 * header from the trace's (pid, exec_seq, run_id, its trace_id as the
 * parent, the host and rank from its name), then a NOTE, a STALL of the
 * main thread in futex, its STACK and its PYSTACK, all strings with bit
 * 31; alive_ns and rss_peak_kb above the trace's.  Its path goes to out.
 * 0, or -1. */
int tc_make_companion(const char *trace_path, char *out, size_t cap);

#endif
