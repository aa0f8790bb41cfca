/* The memory cgroup's out-of-memory evidence, read without privileges:
 * which cgroup a process is in, how many OOM kills that cgroup and the
 * machine counted, and the cgroup's limit.  The shim (first fork, a reaped
 * SIGKILL, the watchdog), the launcher and the tests read it; no
 * allocation and no stdio, so that the shim may read it between a fork
 * and anything else.  The paths are parameters: tests read fixture trees
 * laid out like /proc and /sys/fs/cgroup. */
#ifndef DLTRACE_MEMCG_H
#define DLTRACE_MEMCG_H

#include <stddef.h>
#include <stdint.h>

#include "dltrace/format.h"

struct dlt_memcg {
	char path[512];	    /* as /proc/PID/cgroup says, "" not found */
	uint32_t version;   /* 1 (the v1 memory controller), 2, 0 none */
	uint64_t oom_kills; /* DLT_MEMCG_UNKNOWN when unreadable */
	uint64_t limit;	    /* bytes, DLT_MEMCG_NO_LIMIT, DLT_MEMCG_UNKNOWN */
	uint64_t sys_oom_kills;
};

/* Where the files are: /proc/self/cgroup (or a pid's), the cgroup file
 * systems' root (/sys/fs/cgroup: v1 controllers below it, memory/, or
 * v2 itself) and /proc/vmstat. */
struct dlt_memcg_files {
	const char *cgroup;
	const char *sysfs;
	const char *vmstat;
};
extern const struct dlt_memcg_files dlt_memcg_system;

/* The memory cgroup of a /proc/PID/cgroup text: the v1 memory
 * controller's line when there is one (a hybrid system binds memory to
 * v1 and still lists 0::), else v2's 0:: line.  Returns the version (1,
 * 2) with the path in path, or 0. */
uint32_t dlt_memcg_parse_cgroup(const char *text, char *path, size_t cap);
/* The value of "key N" in a text of such lines (memory.events,
 * memory.oom_control, /proc/vmstat), or DLT_MEMCG_UNKNOWN. */
uint64_t dlt_memcg_parse_key(const char *text, const char *key);
/* A limit file: "max", or bytes (v1's largest page count, which means
 * none, reads DLT_MEMCG_NO_LIMIT); DLT_MEMCG_UNKNOWN when not a number. */
uint64_t dlt_memcg_parse_limit(const char *text);

/* Reads everything above.  A cgroup's directory is looked for below the
 * file system's root (the path /proc/PID/cgroup gives); where it is not
 * there (a container that mounts its own cgroup as the root without a
 * cgroup namespace) the root itself is read. */
void dlt_memcg_read(const struct dlt_memcg_files *f, struct dlt_memcg *m);

#endif
