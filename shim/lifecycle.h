/* The process lifecycle (lifecycle.c): every way a process makes a child,
 * replaces its image, or changes its namespaces or credentials, each with
 * the steps that hold and reset dltrace's own state across it. */
#ifndef DLTRACE_LIFECYCLE_H
#define DLTRACE_LIFECYCLE_H

/* At the preload copy's start, before any handler is installed: this
 * process owns its memory (dlt_owner_pid), and the fork handlers are
 * registered. */
void dlt_lc_init(void);

/* posix_spawn and posix_spawnp (exec.c), before the real call: the child
 * runs only the C library's code, on a stack of its own, and resets the
 * caught signals itself; what is left is the parent's "before" reading of
 * its memory cgroup. */
void dlt_lc_spawn_prepare(void);

/* The exec family (exec.c), around the real call: before it, the EXEC and
 * EXIT records and the cut of the trace (the image ends there); after a
 * failed one, the trace goes on, as does everything else, untouched.  In a
 * process that does not own this memory (a vfork child) neither writes
 * anything. */
void dlt_lc_exec_prepare(const char *path);
void dlt_lc_exec_failed(const char *path, int err);

#endif
