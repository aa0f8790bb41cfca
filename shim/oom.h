/* Out-of-memory evidence in the traced process (oom.c): readings of its
 * memory cgroup taken only where a death may follow, never at start. */
#ifndef DLTRACE_OOM_H
#define DLTRACE_OOM_H

#include <stdint.h>
#include <sys/types.h>

/* A reading before this process's first child is started (fork, spawn),
 * once per image: the "before" of a child's death it may reap. */
void dlt_oom_before_child(void);
/* A reading after this process reaped a child that SIGKILL ended, with
 * the child's wait status and peak RSS (KiB, 0 unknown). */
void dlt_oom_after_kill(pid_t child, int status, uint64_t max_rss_kb);
/* A reading of this process's own cgroup (the watchdog's first tick). */
void dlt_oom_own(void);

#endif
