/* The wait family: a traced parent that reaps a child learns how it ended,
 * which the child itself may not (a signal, an exit from inside the C
 * library, a SIGKILL).  Each reap of a child that ended leaves a REAP
 * record with the child's pid and its wait status (docs/design.md,
 * "Processes").
 *
 * The program gets exactly what the real call gave: the same return
 * value, status, rusage, siginfo and errno.  A caller that passes no
 * status pointer gets none; the shim reads it into its own.  These may run
 * in a SIGCHLD handler (shells reap there): recording is safe there
 * (docs/design.md, "Writing records"). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "real.h"
#include "state.h"

static void dlt_record_reap(uint16_t call, pid_t pid, int status)
{
	/* Stopped or continued (WUNTRACED, WCONTINUED): not an end. */
	if (pid <= 0 || !(WIFEXITED(status) || WIFSIGNALED(status)))
		return;
	struct dlt_writer *w = dlt_writer_on();
	/* A vfork child shares the parent's memory under another pid:
	 * nothing of its own is written. */
	if (w == NULL || w->pid != getpid())
		return;
	struct dlt_rec_reap *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->pid = (uint32_t)pid;
	r->status = status;
	dlt_rec_commit(r, DLT_REC_REAP, call, sizeof(*r));
}

DLT_EXPORT pid_t wait(int *status)
{
	dlt_wait_fn real = DLT_REAL(wait);
	int st = 0;
	pid_t r = real(status ? status : &st);
	int saved = errno;
	if (r > 0)
		dlt_record_reap(DLT_REAP_WAIT, r, status ? *status : st);
	errno = saved;
	return r;
}

DLT_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	dlt_waitpid_fn real = DLT_REAL(waitpid);
	int st = 0;
	pid_t r = real(pid, status ? status : &st, options);
	int saved = errno;
	if (r > 0)
		dlt_record_reap(DLT_REAP_WAITPID, r, status ? *status : st);
	errno = saved;
	return r;
}

DLT_EXPORT pid_t wait3(int *status, int options, struct rusage *ru)
{
	dlt_wait3_fn real = DLT_REAL(wait3);
	int st = 0;
	pid_t r = real(status ? status : &st, options, ru);
	int saved = errno;
	if (r > 0)
		dlt_record_reap(DLT_REAP_WAIT4, r, status ? *status : st);
	errno = saved;
	return r;
}

DLT_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	dlt_wait4_fn real = DLT_REAL(wait4);
	int st = 0;
	pid_t r = real(pid, status ? status : &st, options, ru);
	int saved = errno;
	if (r > 0)
		dlt_record_reap(DLT_REAP_WAIT4, r, status ? *status : st);
	errno = saved;
	return r;
}

DLT_EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	dlt_waitid_fn real = DLT_REAL(waitid);
	siginfo_t own;
	siginfo_t *si = info ? info : &own;
	if (info == NULL)
		own.si_pid = 0;
	int r = real(idtype, id, si, options);
	int saved = errno;
	/* WNOHANG with no child ready: success with si_pid 0.  WNOWAIT
	 * leaves the child waitable: a peek (torch's DataLoader peeks at its
	 * workers), not its end, which the reap that follows records.  The
	 * other calls of the family refuse WNOWAIT (EINVAL). */
	if (r == 0 && si->si_pid > 0 && !(options & WNOWAIT)) {
		int status = -1;
		switch (si->si_code) {
		case CLD_EXITED:
			status = (si->si_status & 0xff) << 8;
			break;
		case CLD_KILLED:
			status = si->si_status & 0x7f;
			break;
		case CLD_DUMPED:
			status = (si->si_status & 0x7f) | 0x80;
			break;
		}
		if (status != -1)
			dlt_record_reap(DLT_REAP_WAITID, si->si_pid, status);
	}
	errno = saved;
	return r;
}
