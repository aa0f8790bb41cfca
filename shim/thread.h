/* dltrace's own threads (thread.c). */
#ifndef DLTRACE_THREAD_H
#define DLTRACE_THREAD_H

#include <stddef.h>

/* Starts a detached thread with every signal blocked (signals stay the
 * program's).  Returns pthread_create's result. */
int dlt_start_thread(void *(*fn)(void *), void *arg, size_t stack);

#endif
