/* An alternate signal stack of dltrace's for every thread that records,
 * so that the crash handler has a stack to run on when the thread's own is
 * spent: without one, endless recursion ends the process with no SIGNAL
 * recorded, the kernel finding no room for the handler's frame.
 *
 * Each stack is 64 KiB with a PROT_NONE page below it, mapped at start
 * (the main thread) or at a thread's first record, and never written
 * until a signal lands on it: the pages cost nothing until a crash.  The
 * kernel uses it only for the handlers that ask (SA_ONSTACK): the shim's
 * handler where the program left a fault signal to the default action
 * (signals.c, in the kernel only; sigaction still reads the program's
 * flags).
 *
 * The program must see the sigaltstack it would see without dltrace.
 * What the kernel holds is the view, but for dltrace's own stack, which
 * reads as none ({NULL, SS_DISABLE, 0}): a stack the program sets
 * replaces ours in the kernel, and its SS_DISABLE puts ours back.  No
 * view is stored: the kernel says which is in place (ours by its
 * address), so a fork child (which inherits the forking thread's stack
 * with its memory) and a vfork child (which inherits it and shares our
 * thread-local word) read right.  A vfork child's changes go straight to
 * the kernel, into its own table: what it does is undone by its exec.
 *
 * Raw system calls throughout: a program's own mmap or sigaltstack hook
 * sees nothing of ours, and nothing here takes a lock. */
#define _GNU_SOURCE
#include "altstack.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hot.h"
#include "state.h"

#define DLT_ALT_SIZE (64u * 1024u)
/* The kernel's flag (linux/signal.h), which glibc's headers lack. */
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31)
#endif

DLT_HOT bool dlt_alt_on;
DLT_HOT static size_t dlt_alt_page;
/* This thread's stack (its lowest usable address), 0 none. */
static __thread uintptr_t dlt_alt_sp;

static long dlt_alt_sys(const stack_t *ss, stack_t *old)
{
	return syscall(SYS_sigaltstack, ss, old);
}

/* Registers sp as the thread's stack. */
static void dlt_alt_register(uintptr_t sp)
{
	stack_t ss = {(void *)sp, 0, DLT_ALT_SIZE};
	dlt_alt_sys(&ss, NULL);
}

DLT_START void dlt_alt_thread(void)
{
	if (!dlt_alt_on || dlt_alt_sp)
		return;
	int saved = errno;
	size_t pg = dlt_alt_page;
	void *p = (void *)syscall(SYS_mmap, NULL, pg + DLT_ALT_SIZE, PROT_NONE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				  -1, 0);
	if (p == MAP_FAILED || p == NULL) {
		errno = saved;
		return;
	}
	uintptr_t sp = (uintptr_t)p + pg;
	if (syscall(SYS_mprotect, sp, DLT_ALT_SIZE, PROT_READ | PROT_WRITE) !=
	    0) {
		syscall(SYS_munmap, p, pg + DLT_ALT_SIZE);
		errno = saved;
		return;
	}
	dlt_alt_sp = sp;
	/* A stack of the program's (set before this first record) stays: it
	 * is its view; ours goes in when it disables its own. */
	stack_t k;
	if (dlt_alt_sys(NULL, &k) == 0 && (k.ss_flags & SS_DISABLE))
		dlt_alt_register(sp);
	errno = saved;
}

DLT_START void dlt_alt_init(void)
{
	if (!dlt_cfg.altstack || !dlt_cfg.signals)
		return;
	long pg = sysconf(_SC_PAGESIZE);
	dlt_alt_page = pg > 0 ? (size_t)pg : 4096;
	dlt_alt_on = true;
	dlt_alt_thread();
}

void dlt_alt_thread_exit(void)
{
	uintptr_t sp = dlt_alt_sp;
	if (sp == 0)
		return;
	int saved = errno;
	stack_t k;
	if (dlt_alt_sys(NULL, &k) != 0) {
		errno = saved;
		return;
	}
	if ((uintptr_t)k.ss_sp == sp && !(k.ss_flags & SS_DISABLE)) {
		/* Running on it (a handler that ends the thread): it stays. */
		stack_t off = {NULL, SS_DISABLE, 0};
		if ((k.ss_flags & SS_ONSTACK) || dlt_alt_sys(&off, NULL) != 0) {
			errno = saved;
			return;
		}
	}
	dlt_alt_sp = 0;
	syscall(SYS_munmap, sp - dlt_alt_page, dlt_alt_page + DLT_ALT_SIZE);
	errno = saved;
}

/* ---- the program's entry point ------------------------------------------ */

DLT_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	uintptr_t own = dlt_alt_sp;
	if (own == 0)
		return (int)dlt_alt_sys(ss, old);
	stack_t k;
	if (dlt_alt_sys(NULL, &k) != 0)
		return (int)dlt_alt_sys(ss, old);
	bool ours = (uintptr_t)k.ss_sp == own && !(k.ss_flags & SS_DISABLE);
	stack_t before = k;
	if (ours) {
		before.ss_sp = NULL;
		before.ss_flags = SS_DISABLE;
		before.ss_size = 0;
	}
	if (ss) {
		int mode = (int)((unsigned)ss->ss_flags & ~SS_AUTODISARM);
		/* Disabling while ours is in place: the program has none to
		 * disable, and the kernel would take ours away. */
		if (!(mode == SS_DISABLE && ours)) {
			/* The kernel checks and fails as without dltrace
			 * (EINVAL, ENOMEM, EPERM), old untouched. */
			if (dlt_alt_sys(ss, NULL) != 0)
				return -1;
			if (mode == SS_DISABLE && dlt_in_owner()) {
				int saved = errno;
				dlt_alt_register(own);
				errno = saved;
			}
		}
	}
	if (old)
		*old = before;
	return 0;
}
