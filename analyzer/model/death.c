#define _GNU_SOURCE
#include "death.h"

#include <signal.h>
#include <stdio.h>

bool dlt_signal_is_crash(int signo)
{
	return signo == SIGSEGV || signo == SIGBUS || signo == SIGFPE ||
	       signo == SIGILL || signo == SIGTRAP || signo == SIGABRT;
}

bool dlt_signal_sent_by_other(const struct dlt_process *p,
			      const struct dlt_signal_ev *ev)
{
	return ev->code <= 0 && ev->sender_pid > 0 &&
	       (uint32_t)ev->sender_pid != p->hdr.pid;
}

const struct dlt_signal_ev *dlt_death_signal(const struct dlt_process *p)
{
	int endsig = dlt_end_signal(&p->end);
	for (size_t i = p->nsignals; i-- > 0;) {
		const struct dlt_signal_ev *ev = &p->signals[i];
		if (ev->flags & DLT_SIG_FORWARDED)
			continue;
		if (ev->action == DLT_SIG_ACT_DEFAULT)
			return ev;
		if (endsig == ev->signo)
			return ev;
		/* The program's handler ran and the process then failed:
		 * a fault it did not recover from, or a stop request it
		 * honoured (Python's KeyboardInterrupt, a framework's
		 * SIGTERM handler).  SIGUSR1/2 mean what the program makes
		 * them mean. */
		bool stop = ev->signo == SIGTERM || ev->signo == SIGINT ||
			    ev->signo == SIGHUP || ev->signo == SIGQUIT;
		if ((dlt_signal_is_crash(ev->signo) || stop) &&
		    dlt_end_is_failure(&p->end) && endsig == 0)
			return ev;
	}
	return NULL;
}

const struct dlt_signal_ev *dlt_signal_forwarded(const struct dlt_process *p,
						 int signo)
{
	for (size_t i = p->nsignals; i-- > 0;)
		if ((p->signals[i].flags & DLT_SIG_FORWARDED) &&
		    p->signals[i].signo == signo)
			return &p->signals[i];
	return NULL;
}

struct dlt_code_name {
	int signo; /* 0: any signal */
	int code;
	const char *name;
};

/* The si_code values of the Linux UAPI (asm-generic/siginfo.h). */
static const struct dlt_code_name dlt_code_names[] = {
	{0, 0, "SI_USER: sent with kill"},
	{0, -1, "SI_QUEUE: sent with sigqueue"},
	{0, -6, "SI_TKILL: sent with tgkill or raise"},
	{0, 0x80, "SI_KERNEL: sent by the kernel"},
	{SIGSEGV, 1, "SEGV_MAPERR: address not mapped"},
	{SIGSEGV, 2, "SEGV_ACCERR: no permission for the access"},
	{SIGSEGV, 3, "SEGV_BNDERR: bounds check failed"},
	{SIGSEGV, 4, "SEGV_PKUERR: protection key"},
	{SIGBUS, 1, "BUS_ADRALN: misaligned address"},
	{SIGBUS, 2,
	 "BUS_ADRERR: no such physical address (a mapped file "
	 "shorter than its mapping)"},
	{SIGBUS, 3, "BUS_OBJERR: hardware error"},
	{SIGBUS, 4, "BUS_MCEERR_AR: memory error"},
	{SIGFPE, 1, "FPE_INTDIV: integer divide by zero"},
	{SIGFPE, 2, "FPE_INTOVF: integer overflow"},
	{SIGFPE, 3, "FPE_FLTDIV: floating-point divide by zero"},
	{SIGFPE, 4, "FPE_FLTOVF: floating-point overflow"},
	{SIGFPE, 5, "FPE_FLTUND: floating-point underflow"},
	{SIGFPE, 6, "FPE_FLTRES: floating-point inexact result"},
	{SIGFPE, 7, "FPE_FLTINV: invalid floating-point operation"},
	{SIGILL, 1, "ILL_ILLOPC: illegal opcode"},
	{SIGILL, 2, "ILL_ILLOPN: illegal operand"},
	{SIGILL, 3, "ILL_ILLADR: illegal addressing mode"},
	{SIGILL, 4, "ILL_ILLTRP: illegal trap"},
	{SIGILL, 5, "ILL_PRVOPC: privileged opcode"},
	{SIGTRAP, 1, "TRAP_BRKPT: breakpoint"},
	{SIGTRAP, 2, "TRAP_TRACE: trace trap"},
};

const char *dlt_signal_code_name(int signo, int code, char *buf, size_t cap)
{
	for (size_t i = 0; i < sizeof(dlt_code_names) / sizeof(*dlt_code_names);
	     i++) {
		const struct dlt_code_name *c = &dlt_code_names[i];
		if (c->code == code &&
		    (c->signo == signo || (c->signo == 0 && code <= 0) ||
		     (c->signo == 0 && code == 0x80))) {
			snprintf(buf, cap, "%s", c->name);
			return buf;
		}
	}
	snprintf(buf, cap, "si_code %d", code);
	return buf;
}
