/* The stall watchdog (watchdog.c) and the socket wrappers (net.c). */
#ifndef DLTRACE_WATCHDOG_H
#define DLTRACE_WATCHDOG_H

#include <stdatomic.h>
#include <stddef.h>
#include <sys/socket.h>

/* Starts the watchdog thread once per process; why goes into a NOTE. */
void dlt_watchdog_start(const char *why);
/* 1 once the watchdog was started in this process (inline: every blocking
 * GPU call asks). */
extern _Atomic int dlt_wd_started;
static inline int dlt_watchdog_running(void)
{
	return atomic_load_explicit(&dlt_wd_started, memory_order_relaxed);
}
/* In a forked child: the thread is gone; remember to start another. */
void dlt_watchdog_after_fork(void);
extern int dlt_wd_restart_pending;

/* "tcp 10.0.0.1:29500", "tcp [::1]:80", "unix /path", "unix @abstract". */
void dlt_format_sockaddr(const struct sockaddr *sa, socklen_t len, char *buf,
			 size_t cap);

#endif
