/* How a process died: a SIGNAL record for a crash (SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, SIGTRAP, SIGABRT) with the faulting thread, address and code
 * addresses, and for a signal another process sent (SIGTERM, SIGINT,
 * SIGHUP, SIGQUIT, SIGUSR1/2) with its sender.
 *
 * The program must not see a difference.  The shim's handler sits in the
 * kernel only where the program's disposition is SIG_DFL or a handler of
 * its own, never over SIG_IGN (ignored dispositions survive exec, so a
 * handler there would change what the program's children inherit).  The
 * program's view is kept here: what sigaction(sig, NULL, &old) returns is
 * what the program set, read back from the kernel when it was set, so that
 * the flags glibc adds (SA_RESTORER) are there as without dltrace.  The
 * kernel holds the program's flags and mask with the shim's function, so
 * SA_RESTART, SA_ONSTACK, SA_NODEFER, SA_RESETHAND and sa_mask act at
 * delivery exactly as the program asked.  Where the kernel holds something
 * the shim did not put there (a raw rt_sigaction, glibc's system()), that
 * is the program's view.
 *
 * The view lives in memory that a vfork or CLONE_VM child shares with its
 * parent (CPython's subprocess resets every caught signal to SIG_DFL in
 * its vfork child before the exec).  Only the process that owns the memory
 * writes it (dlt_in_owner, shim/lifecycle.c): in another, sigaction goes
 * straight to the kernel, into the child's own table, and reads the view
 * as the parent keeps it, and the handler records nothing and writes
 * nothing.
 *
 * On delivery the handler records once per signal number, then calls the
 * program's handler with the same arguments, or for SIG_DFL puts the
 * default back and lets the signal end the process: a fault returns to
 * the faulting instruction, which faults again (the core dump shows the
 * state of the fault), a sent signal is raised again.  Everything the
 * handler does is async-signal-safe: system calls, the writer's lock-free
 * path, no libc state. */
#define _GNU_SOURCE
#include "signals.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <unistd.h>

#include "altstack.h"
#include "hot.h"
#include "procstat.h"
#include "pystack.h"
#include "rawcap.h"
#include "stackscan.h"
#include "state.h"

/* glibc's sigaction under its other exported name, bound at load: the
 * shim exports sigaction itself, and looking the real one up by walking
 * the symbol tables at start would cost every process page faults. */
extern int __sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old);

#define DLT_SIG_NW 12
static const int dlt_sig_watched[DLT_SIG_NW] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL,  SIGABRT, SIGTRAP,
	SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
};

/* Per watched signal: 0 the shim's handler was never installed, 1 it is
 * and the program's view is the disposition a process starts with
 * (SIG_DFL, no flags, an empty mask: nothing is stored at start), 2 it is
 * and the view is dlt_sig_view. */
DLT_HOT static _Atomic uint8_t dlt_sig_mode[DLT_SIG_NW];
DLT_HOT static bool dlt_sig_on;
static struct sigaction dlt_sig_view[DLT_SIG_NW];
/* Recorded in this process image (a forked child starts again). */
DLT_HOT static _Atomic uint8_t dlt_sig_done[DLT_SIG_NW];
/* Serialises the program's changes (with every signal blocked, so a
 * handler never waits for its own thread).  A fork holds it too, so that
 * no child inherits it held (shim/lifecycle.c). */
DLT_HOT static _Atomic int dlt_sig_lock;
/* The thread that holds dlt_sig_lock for a fork (0 none): a sigaction
 * the program's own fork handlers make meanwhile must not wait for it.  A
 * thread id rather than a thread-local flag: a clone child with
 * thread-local storage of the program's making must not touch ours. */
DLT_HOT static _Atomic pid_t dlt_sig_lock_holder;
/* The crash capture's buffers are in use (one crashing thread at a
 * time). */
DLT_HOT static _Atomic int dlt_sig_cap_busy;
/* Signals siginterrupt() made interrupting: signal() sets SA_RESTART on
 * the others, as glibc's does. */
static sigset_t dlt_sig_intr;
/* The handler of this thread is recording (a fault inside it). */
static __thread int dlt_sig_busy;
/* The shim's handler runs on this thread (the program's handler too):
 * nothing that takes the loader's lock. */
static __thread int dlt_sig_depth;

static int dlt_sig_index(int sig)
{
	for (int i = 0; i < DLT_SIG_NW; i++)
		if (dlt_sig_watched[i] == sig)
			return i;
	return -1;
}

static void dlt_sig_handler(int sig, siginfo_t *si, void *uc);

/* A fault the program leaves to the default action: SA_ONSTACK in the
 * kernel only (the view keeps the program's flags), so that the handler
 * records on dltrace's alternate stack (altstack.c) when the thread's own
 * stack is spent.  A handler of the program's keeps exactly its flags. */
static bool dlt_sig_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
	       sig == SIGILL || sig == SIGTRAP;
}

static int dlt_sig_install(int sig, const struct sigaction *view)
{
	struct sigaction k = *view;
	k.sa_sigaction = dlt_sig_handler;
	k.sa_flags |= SA_SIGINFO;
	if (view->sa_handler == SIG_DFL && dlt_sig_fault(sig) && dlt_alt_on)
		k.sa_flags |= SA_ONSTACK;
	return __sigaction(sig, &k, NULL);
}

static void dlt_sig_default_view(struct sigaction *a)
{
	memset(a, 0, sizeof(*a));
	a->sa_handler = SIG_DFL;
}

/* What the program would read back: the stored view while the kernel
 * holds the shim's handler, else what the kernel holds. */
static int dlt_sig_view_of(int i, int sig, struct sigaction *out)
{
	struct sigaction k;
	if (__sigaction(sig, NULL, &k) != 0)
		return -1;
	if (k.sa_sigaction != dlt_sig_handler)
		*out = k;
	else if (atomic_load(&dlt_sig_mode[i]) == 2)
		*out = dlt_sig_view[i];
	else
		dlt_sig_default_view(out);
	return 0;
}

/* After the program set a disposition: keep it as the view and put the
 * shim's handler in front of it, unless it is SIG_IGN. */
static void dlt_sig_adopt(int i, int sig)
{
	struct sigaction k;
	if (__sigaction(sig, NULL, &k) != 0 ||
	    k.sa_sigaction == dlt_sig_handler)
		return;
	if (k.sa_handler == SIG_IGN)
		return;
	/* The kernel holds the program's disposition now: no delivery reads
	 * the view while it changes. */
	dlt_sig_view[i] = k;
	atomic_store(&dlt_sig_mode[i], 2);
	dlt_sig_install(sig, &k);
}

/* Next to the constructors (the section GCC gives them), whose page every
 * process touches at start: one page fault less per process than this
 * file's own text page. */
__attribute__((section(".text.startup"))) void dlt_sig_init(void)
{
	if (!dlt_cfg.signals)
		return;
	/* dlt_sig_intr starts empty (.bss): emptying it again here wrote
	 * its page for nothing, a page fault of every process. */
	for (int i = 0; i < DLT_SIG_NW; i++) {
		int sig = dlt_sig_watched[i];
		struct sigaction k;
		if (__sigaction(sig, NULL, &k) != 0 || k.sa_handler == SIG_IGN)
			continue;
		if (k.sa_handler == SIG_DFL && k.sa_flags == 0) {
			atomic_store(&dlt_sig_mode[i], 1);
		} else {
			dlt_sig_view[i] = k;
			atomic_store(&dlt_sig_mode[i], 2);
		}
		if (dlt_sig_install(sig, &k) != 0)
			atomic_store(&dlt_sig_mode[i], 0);
	}
	dlt_sig_on = true;
}

void dlt_sig_after_fork(void)
{
	/* Written only where set: a store copies the page in every child of
	 * a shell that only execs. */
	for (int i = 0; i < DLT_SIG_NW; i++)
		if (atomic_load(&dlt_sig_done[i]))
			atomic_store(&dlt_sig_done[i], 0);
	/* A thread that was capturing its stack in the parent lives on in
	 * no child. */
	if (atomic_load(&dlt_sig_cap_busy))
		atomic_store(&dlt_sig_cap_busy, 0);
}

/* Tries of dlt_sig_lock before a fork: it is held for two system calls,
 * so a holder that takes longer is stopped; the child frees it then. */
#define DLT_SIG_HOLD_TRIES 10000

bool dlt_sig_fork_hold(void)
{
	if (!dlt_sig_on)
		return false;
	for (int n = 0; n < DLT_SIG_HOLD_TRIES; n++) {
		if (!atomic_exchange(&dlt_sig_lock, 1)) {
			atomic_store(&dlt_sig_lock_holder,
				     (pid_t)syscall(SYS_gettid));
			return true;
		}
		sched_yield();
	}
	return false;
}

void dlt_sig_fork_release(bool held, bool child)
{
	if (held)
		atomic_store(&dlt_sig_lock_holder, 0);
	/* The child has one thread: whoever held the lock is not in it. */
	if (held || (child && atomic_load(&dlt_sig_lock)))
		atomic_store(&dlt_sig_lock, 0);
}

/* ---- recording --------------------------------------------------------- */

#if defined(__x86_64__)
#define DLT_UC_PC(uc) ((uint64_t)(uc)->uc_mcontext.gregs[REG_RIP])
#define DLT_UC_SP(uc) ((uint64_t)(uc)->uc_mcontext.gregs[REG_RSP])
#elif defined(__aarch64__)
#define DLT_UC_PC(uc) ((uint64_t)(uc)->uc_mcontext.pc)
#define DLT_UC_SP(uc) ((uint64_t)(uc)->uc_mcontext.sp)
#endif

/* The first bytes of this library's own mapping (the linker's symbol). */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

/* pc is in this library's code: the fault is dltrace's own, and recording
 * could fault again or wait for a lock the thread holds. */
static bool dlt_sig_in_self(uint64_t pc)
{
	const ElfW(Ehdr) *eh = &__ehdr_start;
	const ElfW(Phdr) *ph =
		(const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
	uintptr_t base = (uintptr_t)eh;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
		    pc >= base + ph[i].p_vaddr &&
		    pc < base + ph[i].p_vaddr + ph[i].p_memsz)
			return true;
	return false;
}

/* The process's mappings for a crash (common/rawcap.h), read from
 * /proc/self/maps (open and read: no loader lock, which the crashed thread
 * may hold).  Static: the crashed thread's stack may be nearly spent (an
 * overflow, a program's small alternate stack); one thread at a time
 * (dlt_sig_cap_busy), another crashing meanwhile records without. */
static struct dlt_rc_maps dlt_sig_maps_buf;

static ssize_t dlt_sig_read(void *ctx, void *dst, uint64_t addr, size_t n)
{
	(void)ctx;
	return dlt_peek(dst, addr, n);
}

/* The maps of this process with sp's stack, or NULL when another thread
 * has the buffer or the listing cannot be read.  The caller gives the
 * buffer back (dlt_sig_cap_busy). */
static struct dlt_rc_maps *dlt_sig_maps(uint64_t sp)
{
	if (atomic_exchange(&dlt_sig_cap_busy, 1))
		return NULL;
	struct dlt_rc_maps *m = &dlt_sig_maps_buf;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int r = fd >= 0 ? dlt_rc_maps_fd(m, fd, sp) : -1;
	if (fd >= 0)
		close(fd);
	if (r != 0) {
		atomic_store(&dlt_sig_cap_busy, 0);
		return NULL;
	}
	dlt_rc_maps_ids(m, dlt_sig_read, NULL);
	return m;
}

/* The registers of the context in DWARF numbering (format.h). */
static void dlt_sig_regs(const ucontext_t *uc, struct dlt_rec_rawstack *r)
{
#if defined(__x86_64__)
	static const uint8_t from[17] = {
		REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
		REG_RBP, REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11,
		REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP,
	};
	for (int i = 0; i < 17; i++)
		r->regs[i] = (uint64_t)uc->uc_mcontext.gregs[from[i]];
	r->regs_known = (1ull << 17) - 1;
	r->arch = DLT_ARCH_X86_64;
#elif defined(__aarch64__)
	for (int i = 0; i < 31; i++)
		r->regs[i] = (uint64_t)uc->uc_mcontext.regs[i];
	r->regs[DLT_RAW_REG_SP_AARCH64] = (uint64_t)uc->uc_mcontext.sp;
	r->regs[DLT_RAW_REG_PC_AARCH64] = (uint64_t)uc->uc_mcontext.pc;
	r->regs_known = (1ull << 33) - 1;
	r->arch = DLT_ARCH_AARCH64;
#endif
}

/* The crashed thread's registers and stack (RAWSTACK), the stack copied
 * straight into the record.  m (NULL unknown) says which mapping the
 * stack is: a stack pointer just below it (an overflow) copies from its
 * start. */
static void dlt_sig_raw(struct dlt_writer *w, const ucontext_t *uc, uint64_t ts,
			uint32_t tid, const struct dlt_rc_maps *m)
{
	uint64_t sp = DLT_UC_SP(uc);
	uint64_t lo = m ? m->stack_lo : 0, hi = m ? m->stack_hi : 0;
	uint64_t from = lo && sp < lo ? lo : sp;
	uint32_t cap;
	struct dlt_rec_rawstack *r =
		dlt_rc_raw_begin(w, &dlt_tls, from, hi, &cap);
	if (r == NULL)
		return;
	r->h.ts = ts;
	r->tid = tid;
	r->why = DLT_RAW_CRASH;
	dlt_sig_regs(uc, r);
	r->stack_lo = lo;
	r->stack_hi = hi;
	dlt_rc_raw_end(&dlt_tls, r, cap, dlt_sig_read, NULL);
}

/* A signal that carries a sender: kill, sigqueue, tgkill (raise). */
static bool dlt_sig_sent(const siginfo_t *si)
{
	return si && (si->si_code == SI_USER || si->si_code == SI_QUEUE ||
		      si->si_code == SI_TKILL);
}

static void dlt_sig_say(const char *msg)
{
	ssize_t r = write(2, msg, strlen(msg));
	(void)r;
}

/* Not inlined into the handler: its frame (the frames, the sender's
 * name) is taken once per signal number, and given back before the
 * program's handler runs.  Inlined, every delivery took 5.7 KiB of stack,
 * and a program's own small alternate stack (faulthandler's, on which a
 * chained handler raises the signal again inside itself) overflowed into
 * its heap. */
__attribute__((noinline)) static void
dlt_sig_record(int sig, siginfo_t *si, ucontext_t *uc, uint32_t action)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL || w->pid != getpid() || dlt_sig_busy)
		return;
	uint64_t pc = uc ? DLT_UC_PC(uc) : 0;
	uint64_t addr = 0;
	bool fault = si && si->si_code > 0 &&
		     (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
		      sig == SIGILL || sig == SIGTRAP);
	if (fault)
		addr = (uint64_t)(uintptr_t)si->si_addr;
	/* A fault in dltrace's own code or in its trace's mapping (the file
	 * cut under it): recording could fault again or wait for a lock
	 * this thread holds.  Said once, never recorded. */
	uint64_t map = (uint64_t)(uintptr_t)w->hdr;
	if ((fault && dlt_sig_in_self(pc)) ||
	    (fault && map && addr >= map && addr < map + w->map_len) ||
	    dlt_tls.in_slow) {
		dlt_sig_say("dltrace: a fault inside dltrace itself was not "
			    "recorded\n");
		return;
	}
	dlt_sig_busy = 1;
	/* The mappings first (MODMAP), then the SIGNAL with the pc alone,
	 * then the registers and the stack (RAWSTACK), which are unwound and
	 * named offline against that MODMAP. */
	uint64_t ts = dlt_now_ns();
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct dlt_rc_maps *m = uc ? dlt_sig_maps(DLT_UC_SP(uc)) : NULL;
	if (m)
		dlt_rc_modmap_write(w, &dlt_tls, m, ts);
	struct dlt_sig_frame frame = {pc, 0, 0, 0};
	int e = m ? dlt_rc_maps_find(m, pc) : -1;
	if (e >= 0) {
		frame.off = pc - m->e[e].lo + m->e[e].off;
		frame.obj = m->e[e].path;
	}
	uint32_t n = uc ? 1 : 0;
	int32_t spid = 0;
	uint32_t suid = 0;
	char comm[16] = "";
	if (dlt_sig_sent(si)) {
		spid = si->si_pid;
		suid = si->si_uid;
		if (spid > 0 && spid != getpid())
			dlt_proc_comm(spid, comm, sizeof(comm));
	}
	uint32_t len =
		(uint32_t)(sizeof(struct dlt_rec_signal) + sizeof(frame) * n);
	struct dlt_rec_signal *r = dlt_rec_reserve(w, &dlt_tls, len);
	if (r) {
		r->h.ts = ts;
		r->signo = sig;
		r->code = si ? si->si_code : 0;
		r->addr = addr;
		r->tid = tid;
		r->sender_pid = spid;
		r->sender_uid = suid;
		r->action = action;
		r->n = n;
		r->pad = 0;
		memcpy(r->sender_comm, comm, sizeof(r->sender_comm));
		memcpy(r->frames, &frame, sizeof(frame) * n);
		dlt_rec_commit(r, DLT_REC_SIGNAL, 0, len);
	}
	if (uc)
		dlt_sig_raw(w, uc, ts, tid, m);
	if (m)
		atomic_store(&dlt_sig_cap_busy, 0);
	/* The thread's Python stack, when an interpreter was found while the
	 * program set its handlers (sigaction below). */
	if (r && dlt_pystack_present()) {
		dlt_pystack_record((pid_t)tid, ts, DLT_PYSTACK_F_SIGNAL);
		/* Another thread's signal (gloo's, NCCL's, a C++ library's
		 * thread aborts): the main thread's place too. */
		pid_t pid = (pid_t)syscall(SYS_getpid);
		if ((pid_t)tid != pid)
			dlt_pystack_record(pid, ts,
					   DLT_PYSTACK_F_SIGNAL |
						   DLT_PYSTACK_F_MAIN);
	}
	dlt_sig_busy = 0;
}

/* A fault the instruction makes again when the handler returns to it.  A
 * breakpoint (SIGTRAP) does not: the pc is past it. */
static bool dlt_sig_refaults(int sig, const siginfo_t *si)
{
	return si && si->si_code > 0 &&
	       (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
		sig == SIGILL);
}

/* The handler in a process that does not own this memory (a vfork or
 * CLONE_VM child that inherited the shim's handler): the program's
 * handling, with the parent's view read and nothing written, not even this
 * thread's depth (its thread-local storage is the parent thread's). */
static void dlt_sig_handler_borrowed(int sig, siginfo_t *si, void *ucv,
				     struct sigaction pv, int saved)
{
	if (pv.sa_handler == SIG_DFL) {
		__sigaction(sig, &pv, NULL);
		if (!dlt_sig_refaults(sig, si))
			syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
		errno = saved;
		return;
	}
	if (pv.sa_flags & SA_RESETHAND) {
		/* As the kernel left it without dltrace: SIG_DFL with the
		 * program's flags, in this process's own table. */
		struct sigaction d = pv;
		d.sa_handler = SIG_DFL;
		__sigaction(sig, &d, NULL);
	}
	errno = saved;
	if (pv.sa_handler != SIG_IGN) {
		if (pv.sa_flags & SA_SIGINFO)
			pv.sa_sigaction(sig, si, ucv);
		else
			pv.sa_handler(sig);
	}
}

static void dlt_sig_handler(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	int i = dlt_sig_index(sig);
	if (i < 0)
		return;
	struct sigaction pv;
	if (atomic_load(&dlt_sig_mode[i]) == 2)
		pv = dlt_sig_view[i];
	else
		dlt_sig_default_view(&pv);
	if (!dlt_in_owner()) {
		dlt_sig_handler_borrowed(sig, si, ucv, pv, saved);
		return;
	}
	dlt_sig_depth++;
	bool dfl = pv.sa_handler == SIG_DFL;
	if (!atomic_exchange(&dlt_sig_done[i], 1))
		dlt_sig_record(sig, si, ucv,
			       dfl ? DLT_SIG_ACT_DEFAULT : DLT_SIG_ACT_HANDLER);
	if (dfl) {
		/* Every watched signal's default action ends the process. */
		dlt_writer_cut(dlt_w, 1);
		__sigaction(sig, &pv, NULL);
		if (!dlt_sig_refaults(sig, si))
			syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
		dlt_sig_depth--;
		errno = saved;
		return;
	}
	if (pv.sa_flags & SA_RESETHAND) {
		/* The kernel put SIG_DFL back as it delivered this one: so does
		 * the view, with the shim's handler in front of it again. */
		dlt_sig_view[i].sa_handler = SIG_DFL;
		dlt_sig_install(sig, &dlt_sig_view[i]);
	}
	errno = saved;
	/* The depth stays up while the program's handler runs (it may set
	 * dispositions); one that siglongjmps out leaves it up for good,
	 * which only stops this thread from looking for an interpreter. */
	if (pv.sa_handler != SIG_IGN) {
		if (pv.sa_flags & SA_SIGINFO)
			pv.sa_sigaction(sig, si, ucv);
		else
			pv.sa_handler(sig);
	}
	dlt_sig_depth--;
}

/* ---- the program's entry points ---------------------------------------- */

/* sigaction in a process that does not own this memory (a vfork child,
 * CPython's subprocess resetting every caught signal before its exec; a
 * CLONE_VM child): the disposition goes to the kernel as given, into this
 * process's own table, and the view, which is the parent's, is read but
 * never written. */
static int dlt_sig_borrowed(int i, int sig, const struct sigaction *act,
			    struct sigaction *old)
{
	struct sigaction before;
	if (dlt_sig_view_of(i, sig, &before) != 0)
		return -1;
	if (act && __sigaction(sig, act, NULL) != 0)
		return -1;
	if (old)
		*old = before;
	return 0;
}

DLT_EXPORT int sigaction(int sig, const struct sigaction *act,
			 struct sigaction *old)
{
	int i = dlt_sig_index(sig);
	if (i < 0 || !dlt_sig_on)
		return __sigaction(sig, act, old);
	if (!dlt_in_owner())
		return dlt_sig_borrowed(i, sig, act, old);
	sigset_t all, prev;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &prev);
	/* A fork handler of the program, run while this thread holds the
	 * lock for the fork, sets a disposition: the lock is its own. */
	pid_t holder = atomic_load(&dlt_sig_lock_holder);
	bool mine = holder != 0 && holder == (pid_t)syscall(SYS_gettid);
	while (!mine && atomic_exchange(&dlt_sig_lock, 1))
		;
	struct sigaction before;
	int r = dlt_sig_view_of(i, sig, &before);
	int err = errno;
	if (r == 0 && act) {
		r = __sigaction(sig, act, NULL);
		err = errno;
		if (r == 0)
			dlt_sig_adopt(i, sig);
	}
	if (!mine)
		atomic_store(&dlt_sig_lock, 0);
	pthread_sigmask(SIG_SETMASK, &prev, NULL);
	/* A program that handles signals itself may be an interpreter:
	 * CPython sets its SIGINT handler as it starts, faulthandler and
	 * PyTorch theirs for crashes.  Looking for one now (the loader's
	 * lock: never from a handler) lets a crash record the thread's
	 * Python stack. */
	if (r == 0 && act && act->sa_handler != SIG_DFL &&
	    act->sa_handler != SIG_IGN && dlt_sig_depth == 0 && !dlt_no_loader)
		dlt_pystack_prepare();
	if (r == 0 && old)
		*old = before;
	errno = err;
	return r;
}

/* glibc's signal() and its other names, its System V signal(), sigset(),
 * sigignore() and siginterrupt() set dispositions through the C library's
 * internal sigaction, which no wrapper sees: they are made here over the
 * wrapper above, with glibc's semantics. */
/* signal() with glibc's BSD semantics (sysv 0: the handler stays, the
 * signal is blocked while it runs, calls restart unless siginterrupt
 * said otherwise) or System V's (sysv 1: SIG_DFL again at delivery, not
 * blocked, calls interrupted). */
static sighandler_t dlt_sig_set(int sig, sighandler_t h, int sysv)
{
	if (h == SIG_ERR || sig < 1 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	struct sigaction a, o;
	memset(&a, 0, sizeof(a));
	a.sa_handler = h;
	sigemptyset(&a.sa_mask);
	if (sysv)
		a.sa_flags = SA_RESETHAND | SA_NODEFER;
	else {
		sigaddset(&a.sa_mask, sig);
		a.sa_flags =
			sigismember(&dlt_sig_intr, sig) == 1 ? 0 : SA_RESTART;
	}
	if (sigaction(sig, &a, &o) < 0)
		return SIG_ERR;
	return o.sa_handler;
}

DLT_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	return dlt_sig_set(sig, h, 0);
}

/* No longer declared by signal.h; programs built against older headers
 * still call it. */
sighandler_t bsd_signal(int sig, sighandler_t h);

DLT_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return dlt_sig_set(sig, h, 0);
}

DLT_EXPORT sighandler_t ssignal(int sig, sighandler_t h)
{
	return dlt_sig_set(sig, h, 0);
}

DLT_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	return dlt_sig_set(sig, h, 1);
}

DLT_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t h)
{
	return dlt_sig_set(sig, h, 1);
}

DLT_EXPORT int siginterrupt(int sig, int interrupt)
{
	struct sigaction a;
	if (sigaction(sig, NULL, &a) < 0)
		return -1;
	/* The set is the parent's in a vfork child. */
	bool own = dlt_in_owner();
	if (interrupt) {
		if (own)
			sigaddset(&dlt_sig_intr, sig);
		a.sa_flags &= ~SA_RESTART;
	} else {
		if (own)
			sigdelset(&dlt_sig_intr, sig);
		a.sa_flags |= SA_RESTART;
	}
	return sigaction(sig, &a, NULL) < 0 ? -1 : 0;
}

DLT_EXPORT int sigignore(int sig)
{
	struct sigaction a;
	memset(&a, 0, sizeof(a));
	a.sa_handler = SIG_IGN;
	sigemptyset(&a.sa_mask);
	return sigaction(sig, &a, NULL);
}

DLT_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	if (disp == SIG_ERR || sig < 1 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigset_t one, prev;
	sigemptyset(&one);
	sigaddset(&one, sig);
	struct sigaction a, o;
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &one, &prev) < 0)
			return SIG_ERR;
		if (sigismember(&prev, sig))
			return SIG_HOLD;
		if (sigaction(sig, NULL, &o) < 0)
			return SIG_ERR;
		return o.sa_handler;
	}
	memset(&a, 0, sizeof(a));
	a.sa_handler = disp;
	sigemptyset(&a.sa_mask);
	if (sigaction(sig, &a, &o) < 0)
		return SIG_ERR;
	if (sigprocmask(SIG_UNBLOCK, &one, &prev) < 0)
		return SIG_ERR;
	return sigismember(&prev, sig) ? SIG_HOLD : o.sa_handler;
}
