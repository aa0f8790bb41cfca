/* dltrace's own threads (the prefetch thread, the watchdog). */
#include "thread.h"

#include <pthread.h>
#include <signal.h>

int dlt_start_thread(void *(*fn)(void *), void *arg, size_t stack)
{
	/* All signals blocked in dltrace's threads: they stay the
	 * program's. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, stack);
	pthread_t th;
	int r = pthread_create(&th, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}
