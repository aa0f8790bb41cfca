/* exec and posix_spawn wrappers (exec.c), and the restart that gives a
 * process started with LD_PRELOAD alone its audit half. */
#ifndef DLTRACE_EXEC_H
#define DLTRACE_EXEC_H

/* Without the audit half nothing says why each library was chosen.  Unless
 * told not to, starts the program again once with LD_AUDIT added, before
 * main; returns only when it did not. */
void dlt_maybe_reexec(char **argv);
/* After that restart: the process takes its own name back (executing
 * /proc/self/exe named it "exe", which ps, pgrep and pkill see). */
void dlt_restore_comm(void);

#endif
