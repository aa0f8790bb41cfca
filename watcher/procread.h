/* What the watcher reads of another process, from outside it: /proc and
 * process_vm_readv only.  Nothing here stops, signals or ptraces the
 * process (docs/design.md, "The watcher"). */
#ifndef DLTRACE_PROCREAD_H
#define DLTRACE_PROCREAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads n bytes at addr in process pid: the bytes read, or -1 (memory
 * unmapped or not readable, the process gone, permission refused). */
ssize_t dlt_pr_peek(pid_t pid, void *dst, uint64_t addr, size_t n);

/* A thread's state (/proc/PID/task/TID/stat) and the system call it is
 * in (/proc/PID/task/TID/syscall): nr -1 when it runs in user space. */
struct dlt_pr_thread {
	char state; /* 'R', 'S', 'D' ... '?' unknown */
	long nr;
	uint64_t a[6], sp, pc;
	int in_call; /* the syscall line had all nine fields */
};

/* 0, or -1 with errno (EACCES: the kernel forbids reading it; ESRCH:
 * the thread is gone). */
int dlt_pr_thread_read(pid_t pid, uint32_t tid, struct dlt_pr_thread *t);

/* What descriptor fd of process pid is: "tcp 10.0.0.1:29500" (its
 * peer), "tcp 0.0.0.0:29500 (local, not connected)", "unix /path",
 * "unix @name", or "" (not a socket, or unknown). */
void dlt_pr_fd_desc(pid_t pid, int fd, char *buf, size_t cap);

/* What a thread in system call nr with arguments a waits for, as the
 * STALL record's detail, and the descriptor it waits on (-1 none). */
int dlt_pr_wait_detail(pid_t pid, long nr, const uint64_t *a, char *buf,
		       size_t cap);

/* Peak resident set in KiB (/proc/PID/status VmHWM), 0 unknown. */
uint64_t dlt_pr_rss_peak_kb(pid_t pid);

#endif
