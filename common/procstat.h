/* /proc/PID/stat and /proc/self/task/TID/stat, parsed in one place: the
 * launcher (the process tree), the analyzer (is a traced process still
 * alive, is it the same process) and the shim's watchdog (thread states,
 * thread count) each read a few fields of it. */
#ifndef DLTRACE_PROCSTAT_H
#define DLTRACE_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>

struct dlt_procstat {
	char state;	    /* field 3: R, S, D, Z, X, T ... */
	int ppid;	    /* field 4 */
	long num_threads;   /* field 20 */
	uint64_t starttime; /* field 22, clock ticks since boot */
};

/* Parses the text of a stat file.  The command name (field 2) may hold
 * spaces and ')', so fields are counted from the last ')'.  Returns 0, or
 * -1 when the text is cut before field 22 (the fields read by then are
 * filled, the others zero). */
int dlt_procstat_parse(const char *text, struct dlt_procstat *st);

/* Reads and parses one stat file: 0, or -1 (no such process, or cut). */
int dlt_procstat_read(const char *path, struct dlt_procstat *st);

/* Process pid's command name (/proc/PID/comm, without the newline) into
 * out; "" when it cannot be read (the process has gone).  Async-signal-
 * safe (open, read, close; no formatting): a signal handler names the
 * signal's sender with it. */
void dlt_proc_comm(int pid, char *out, size_t cap);

#endif
