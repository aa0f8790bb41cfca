/* How a process died: the shim's handler for crashes and sent signals
 * (signals.c). */
#ifndef DLTRACE_SIGNALS_H
#define DLTRACE_SIGNALS_H

#include <stdbool.h>

/* Puts the shim's handler under every watched signal whose disposition is
 * SIG_DFL or a handler (never SIG_IGN, which survives exec).  The preload
 * copy's constructor calls it once. */
void dlt_sig_init(void);

/* In a forked child: its trace is new, each signal is recorded again. */
void dlt_sig_after_fork(void);

/* Before a fork (shim/lifecycle.c): takes the lock that serialises the
 * program's dispositions, so that no child inherits it held; true when
 * taken.  After it, in the parent and in the child (which frees it
 * whoever held it), dlt_sig_fork_release. */
bool dlt_sig_fork_hold(void);
void dlt_sig_fork_release(bool held, bool child);

#endif
