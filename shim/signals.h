/* How a process died: the shim's handler for crashes and sent signals
 * (signals.c). */
#ifndef DLTRACE_SIGNALS_H
#define DLTRACE_SIGNALS_H

/* Puts the shim's handler under every watched signal whose disposition is
 * SIG_DFL or a handler (never SIG_IGN, which survives exec).  The preload
 * copy's constructor calls it once. */
void dlt_sig_init(void);

/* In a forked child: its trace is new, each signal is recorded again. */
void dlt_sig_after_fork(void);

#endif
