/* The lock on byte 0 of a trace that says a live process maps the file
 * (format.h): the writer holds it shared for as long as it maps the file,
 * and compact takes it exclusively before it touches one.  An open file
 * description lock (Linux 3.15); where the kernel refuses those (EINVAL),
 * both sides fall back to flock on the same file. */
#ifndef DLTRACE_TRACELOCK_H
#define DLTRACE_TRACELOCK_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>

/* 0 when taken; -1 with errno otherwise (EAGAIN or EACCES: another open
 * file description holds a lock that conflicts). */
static inline int dlt_trace_lock_ofd(int fd, int exclusive)
{
	struct flock l;
	memset(&l, 0, sizeof(l));
	l.l_type = exclusive ? F_WRLCK : F_RDLCK;
	l.l_whence = SEEK_SET;
	l.l_start = 0;
	l.l_len = 1;
	return fcntl(fd, F_OFD_SETLK, &l);
}

/* The shared lock, waiting while another holds the exclusive one (a
 * compaction, which holds it briefly): for a tool that appends to the
 * trace of a process that has ended (the launcher's REAPED record), so
 * that no compaction shortens the file under its mapping.  0, or -1 with
 * errno. */
static inline int dlt_trace_hold_wait(int fd)
{
	struct flock l;
	memset(&l, 0, sizeof(l));
	l.l_type = F_RDLCK;
	l.l_whence = SEEK_SET;
	l.l_start = 0;
	l.l_len = 1;
	int r;
	while ((r = fcntl(fd, F_OFD_SETLKW, &l)) != 0 && errno == EINTR)
		;
	if (r != 0 && errno == EINVAL)
		while ((r = flock(fd, LOCK_SH)) != 0 && errno == EINTR)
			;
	return r;
}

#endif
