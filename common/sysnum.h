/* System call numbers in traces are x86-64's (include/dltrace/format.h),
 * whatever the machine that wrote them, so that one analyzer names the
 * waits of every trace.  On other architectures the watchdog maps the
 * calls a thread can wait in to their x86-64 numbers; any other call is
 * DLT_SYSNUM_NATIVE + its own number. */
#ifndef DLTRACE_SYSNUM_H
#define DLTRACE_SYSNUM_H

#include <sys/syscall.h>

#include "dltrace/format.h"

static inline long dlt_sysnum_trace(long nr)
{
#if defined(__x86_64__)
	return nr;
#else
	static const struct {
		long native, x86;
	} map[] = {
		{SYS_read, 0},
		{SYS_write, 1},
		{SYS_ppoll, 271},
		{SYS_pselect6, 270},
		{SYS_nanosleep, 35},
		{SYS_clock_nanosleep, 230},
		{SYS_futex, 202},
		{SYS_connect, 42},
		{SYS_accept, 43},
		{SYS_accept4, 288},
		{SYS_sendto, 44},
		{SYS_recvfrom, 45},
		{SYS_sendmsg, 46},
		{SYS_recvmsg, 47},
		{SYS_wait4, 61},
		{SYS_waitid, 247},
		{SYS_rt_sigsuspend, 130},
		{SYS_epoll_pwait, 281},
	};
	if (nr < 0)
		return nr;
	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].native == nr)
			return map[i].x86;
	return DLT_SYSNUM_NATIVE + nr;
#endif
}

#endif
