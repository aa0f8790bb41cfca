/* dltrace's own alternate signal stack per thread, so that a crash on a
 * spent stack (endless recursion) is still recorded, and the program's
 * view of sigaltstack kept as without dltrace (altstack.c). */
#ifndef DLTRACE_ALTSTACK_H
#define DLTRACE_ALTSTACK_H

#include <stdbool.h>

/* Alternate stacks are given (not DLTRACE_ALTSTACK=0, signals recorded):
 * the crash handler asks for SA_ONSTACK where the program left a fault to
 * the default action. */
extern bool dlt_alt_on;

/* At start, for the main thread (before dlt_sig_init). */
void dlt_alt_init(void);
/* A thread's first record: its stack.  Async-signal-safe (a thread's
 * first record may be written by a signal handler); keeps errno. */
void dlt_alt_thread(void);
/* The thread ends (the key's destructor): its stack is freed. */
void dlt_alt_thread_exit(void);

#endif
