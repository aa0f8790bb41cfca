/* What a process died of, from the SIGNAL records its handler wrote
 * (shim/signals.c) and how it ended: the one reading that check, summary
 * and the launcher's verdict share. */
#ifndef DLTRACE_DEATH_H
#define DLTRACE_DEATH_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* The received signal the process died of, or NULL.  A signal whose
 * default action ran ended it; one the program's own handler took ended
 * it when the process was then killed by that signal, or, for a fault or
 * a stop request (SIGTERM, SIGINT, SIGHUP, SIGQUIT), when the process
 * then failed (a non-zero exit, no end of its own).  A process that
 * exited with 0 after its handler ran survived it. */
const struct dlt_signal_ev *dlt_death_signal(const struct dlt_process *p);

/* The launcher's record that it passed signo on to this process, or
 * NULL. */
const struct dlt_signal_ev *dlt_signal_forwarded(const struct dlt_process *p,
						 int signo);

/* SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT: the process's own
 * code went wrong (unless another process sent it: dlt_signal_sent). */
bool dlt_signal_is_crash(int signo);

/* Another process sent it (kill, sigqueue), not the kernel and not the
 * process itself (raise, abort). */
bool dlt_signal_sent_by_other(const struct dlt_process *p,
			      const struct dlt_signal_ev *ev);

/* "SEGV_MAPERR: address not mapped", "SI_USER: sent with kill" ...; "si_code N"
 * for one it does not know.  Returns buf. */
const char *dlt_signal_code_name(int signo, int code, char *buf, size_t cap);

#endif
