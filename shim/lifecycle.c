/* The process lifecycle: every way the program makes a child, replaces its
 * image, or changes its namespaces or credentials goes through here, each
 * with the steps that keep dltrace's own state whole across it
 * (docs/design.md, "Processes"):
 *
 *   prepare  in the parent, before the real call: asynchronous signals
 *            blocked (a handler that records must not wait for a lock
 *            this thread holds), dltrace's locks taken (the signals'
 *            and the writer's), so that no child inherits one held by
 *            another thread, and this thread's records dropped meanwhile
 *            instead of waiting for itself;
 *   parent   after it, in the parent: the locks given back, the mask as
 *            it was, a FORK record with the child's pid;
 *   child    in a child with a copy of the memory: this process owns it
 *            now (dlt_owner_pid), the locks and busy flags freed whoever
 *            held them, the parent's trace let go (the child's own is made
 *            at its first record), each module's after-fork step, the
 *            mask as it was.
 *
 * A child that shares the parent's memory (vfork, clone with CLONE_VM)
 * gets no step: it runs under another pid, and every path that writes
 * what dltrace keeps first checks that the caller owns the memory
 * (dlt_in_owner); the signals' view is only read there.
 *
 * The C library's fork runs the steps as fork handlers (pthread_atfork),
 * which also covers the forks inside it (daemon, and system and popen
 * where they fork).  _Fork and clone run no fork handlers: their wrappers
 * run the same steps themselves. */
#define _GNU_SOURCE
#include "lifecycle.h"
#include "hot.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "convprob.h"
#include "oom.h"
#include "prefetch.h"
#include "pystack.h"
#include "real.h"
#include "signals.h"
#include "state.h"
#include "watchdog.h"

/* What prepare took, for the parent and child steps. */
struct dlt_lc_hold {
	sigset_t mask; /* the thread's mask before */
	bool sig_locked;
	struct dlt_writer_hold wh;
};

/* The forking thread's, for the fork handlers, which take no argument.
 * Per thread: two threads may fork at once. */
static __thread struct dlt_lc_hold dlt_lc_forking;

static void dlt_lc_prepare(struct dlt_lc_hold *h)
{
	int saved = errno;
	dlt_signals_hold(&h->mask);
	h->sig_locked = dlt_sig_fork_hold();
	dlt_writer_hold(dlt_w, &h->wh);
	errno = saved;
}

static void dlt_lc_parent(struct dlt_lc_hold *h)
{
	int saved = errno;
	dlt_writer_release(&h->wh, 0);
	dlt_sig_fork_release(h->sig_locked, false);
	pthread_sigmask(SIG_SETMASK, &h->mask, NULL);
	errno = saved;
}

/* In every child: no loader call until it execs.  The C library's fork
 * resets the loader's main lock but not the one dl_iterate_phdr takes,
 * which a thread inside dlopen held at the fork keeps held in the child
 * for good (measured: a child's sigaction waited in the interpreter
 * lookup).  raw: a child of _Fork or clone, where the C library reset none
 * of its own locks: no thread started either (its thread state is the
 * parent's).  Only system calls and dltrace's own code run here. */
static void dlt_lc_child(struct dlt_lc_hold *h, bool raw)
{
	int saved = errno;
	dlt_owner_pid = getpid();
	dlt_no_loader = true;
	dlt_writer_release(&h->wh, 1);
	dlt_sig_fork_release(h->sig_locked, true);
	dlt_pystack_after_fork();
	/* The parent's mapping is shared with the parent: it goes, and the
	 * child's own trace is made at its first record (a child that only
	 * execs costs no file, and its new image names this process's
	 * parent). */
	struct dlt_writer *w = dlt_w;
	if (w) {
		if (dlt_exit_recorded)
			dlt_exit_recorded = false;
		dlt_writer_after_fork(w);
		if (!raw)
			dlt_watchdog_after_fork();
		dlt_prefetch_after_fork();
		dlt_convprob_after_fork();
		dlt_sig_after_fork();
	}
	pthread_sigmask(SIG_SETMASK, &h->mask, NULL);
	errno = saved;
}

static void dlt_lc_atfork_prepare(void)
{
	dlt_lc_prepare(&dlt_lc_forking);
}

static void dlt_lc_atfork_parent(void)
{
	dlt_lc_parent(&dlt_lc_forking);
}

static void dlt_lc_atfork_child(void)
{
	dlt_lc_child(&dlt_lc_forking, false);
}

/* The library is linked without the C runtime's start files
 * (-nostartfiles, CMakeLists.txt): their _init and their flag that
 * __do_global_dtors_aux reads then writes at exit were three page faults
 * of every traced process (issue 31), for nothing a C library of ours
 * needs: constructors and destructors run from .init_array and
 * .fini_array.  What they defined that it uses is this: the object's
 * handle, which pthread_atfork's static part passes to the C library
 * (its handlers are forgotten if the object is ever unloaded). */
void *const __dso_handle __attribute__((visibility("hidden"))) =
	(void *)&__dso_handle;

/* What pthread_atfork's static part calls (libc_nonshared.a), called
 * directly: that part is linked at the end of the library's text, a page
 * of its own touched at start. */
extern int __register_atfork(void (*prepare)(void), void (*parent)(void),
			     void (*child)(void), void *dso);

DLT_START void dlt_lc_init(void)
{
	dlt_owner_pid = getpid();
	/* Registered first of all the program's (the preload copy starts
	 * before its code): the prepare step runs last, right before the
	 * fork, and the child and parent steps first after it. */
	__register_atfork(dlt_lc_atfork_prepare, dlt_lc_atfork_parent,
			  dlt_lc_atfork_child, __dso_handle);
}

/* What a child will call, found in the parent: in every child of a shell
 * the symbol walk faulted in about six pages, and in any child it could
 * wait for a lock of the loader's held for good (dlt_lc_child). */
static void dlt_lc_resolve_for_child(void)
{
	/* What its exec wrapper names in LD_PRELOAD, made here: a vfork
	 * child shares this memory and stack. */
	dlt_self_file();
	DLT_REAL(execve);
	DLT_REAL(execvpe);
	DLT_REAL(exit);
}

static void dlt_lc_record_fork(pid_t child)
{
	int saved = errno;
	struct dlt_writer *w = dlt_writer_on();
	struct dlt_rec_fork *f =
		w ? dlt_rec_reserve(w, &dlt_tls, sizeof(*f)) : NULL;
	if (f) {
		f->h.ts = dlt_now_ns();
		f->child_pid = (uint32_t)child;
		f->pad = 0;
		dlt_rec_commit(f, DLT_REC_FORK, 0, sizeof(*f));
	}
	errno = saved;
}

/* ---- fork, _Fork, vfork, clone, daemon ---------------------------------- */

DLT_EXPORT pid_t fork(void)
{
	dlt_fork_fn real = DLT_REAL(fork);
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	dlt_lc_resolve_for_child();
	dlt_oom_before_child();
	/* The steps run as fork handlers inside. */
	pid_t r = real();
	if (r > 0)
		dlt_lc_record_fork(r);
	return r;
}

/* unistd.h declares it from glibc 2.34 on; the shim is built on older
 * ones too (where the real function is missing: ENOSYS). */
pid_t _Fork(void);

/* glibc 2.34's fork without the fork handlers, async-signal-safe: the
 * steps are run here. */
DLT_EXPORT pid_t _Fork(void)
{
	dlt_fork_fn real = DLT_REAL(_Fork);
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	dlt_lc_resolve_for_child();
	dlt_oom_before_child();
	struct dlt_lc_hold h;
	dlt_lc_prepare(&h);
	pid_t r = real();
	if (r == 0) {
		dlt_lc_child(&h, true);
		return 0;
	}
	int e = errno;
	dlt_lc_parent(&h);
	if (r > 0)
		dlt_lc_record_fork(r);
	errno = e;
	return r;
}

/* vfork: the child borrows the caller's memory and stack until it execs
 * or exits, and the parent waits.  The entry is in assembly
 * (vfork_x86_64.S, vfork_aarch64.S): it calls this and jumps to the real
 * vfork with the program's return address on the stack, leaving no frame
 * of its own that the child could overwrite before the parent returns
 * through it.  So no step runs after the real call; none is needed: the
 * child writes nothing dltrace keeps (dlt_in_owner).  Returns the real
 * vfork. */
static pid_t dlt_lc_vfork_missing(void)
{
	errno = ENOSYS;
	return -1;
}

void *dlt_lc_vfork_enter(void);
void *dlt_lc_vfork_enter(void)
{
	int saved = errno;
	dlt_lc_resolve_for_child();
	dlt_fork_fn real = DLT_REAL(vfork);
	errno = saved;
	return (void *)(real ? real : dlt_lc_vfork_missing);
}

/* A clone child with a copy of the memory: the child step, then the
 * program's function.  What the trampoline needs is on the parent's stack,
 * copied into the child's memory by the clone itself. */
struct dlt_lc_clone {
	int (*fn)(void *);
	void *arg;
	int flags;
	struct dlt_lc_hold h;
};

/* A clone child with thread-local storage of the program's making, where
 * dltrace's own may not be laid out: the child step without anything that
 * touches it, and no trace (recording needs this thread's chunk state). */
static void dlt_lc_child_bare(struct dlt_lc_hold *h)
{
	dlt_owner_pid = getpid();
	dlt_no_loader = true;
	dlt_writer_release(&h->wh, 1);
	dlt_sig_fork_release(h->sig_locked, true);
	dlt_pystack_after_fork();
	struct dlt_writer *w = dlt_w;
	if (w) {
		atomic_store(&w->pending, 0);
		dlt_writer_forget(w);
	}
	pthread_sigmask(SIG_SETMASK, &h->mask, NULL);
}

static int dlt_lc_clone_child(void *p)
{
	struct dlt_lc_clone *c = p;
	if (c->flags & CLONE_SETTLS)
		dlt_lc_child_bare(&c->h);
	else
		dlt_lc_child(&c->h, true);
	return c->fn(c->arg);
}

/* glibc's clone(fn, stack, flags, arg, ptid, tls, ctid): the last three
 * are read whatever the flags, as glibc's own entry reads its registers. */
DLT_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	pid_t *ptid = va_arg(ap, pid_t *);
	void *tls = va_arg(ap, void *);
	pid_t *ctid = va_arg(ap, pid_t *);
	va_end(ap);
	dlt_clone_fn real = DLT_REAL(clone);
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	/* The child shares the memory: nothing to hold or reset, and
	 * nothing it may write (dlt_in_owner). */
	if (flags & CLONE_VM)
		return real(fn, stack, flags, arg, ptid, tls, ctid);
	dlt_lc_resolve_for_child();
	struct dlt_lc_clone c = {.fn = fn, .arg = arg, .flags = flags};
	dlt_lc_prepare(&c.h);
	int r = real(dlt_lc_clone_child, stack, flags, &c, ptid, tls, ctid);
	int e = errno;
	dlt_lc_parent(&c.h);
	if (r > 0)
		dlt_lc_record_fork(r);
	errno = e;
	return r;
}

/* glibc's daemon forks with the fork handlers and ends the parent with
 * _exit(0) inside, which no wrapper sees.  A C library whose daemon forks
 * without them still gets the child step here. */
DLT_EXPORT int daemon(int nochdir, int noclose)
{
	dlt_daemon_fn real = DLT_REAL(daemon);
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	dlt_lc_resolve_for_child();
	dlt_oom_before_child();
	int r = real(nochdir, noclose);
	if (r == 0 && dlt_owner_pid != 0 && getpid() != dlt_owner_pid) {
		int e = errno;
		struct dlt_lc_hold h;
		memset(&h, 0, sizeof(h));
		pthread_sigmask(SIG_SETMASK, NULL, &h.mask);
		dlt_lc_child(&h, true);
		errno = e;
	}
	return r;
}

/* ---- exec and spawn ----------------------------------------------------- */

static void dlt_lc_record_exec(const char *path, int failed, int err)
{
	struct dlt_writer *w = dlt_writer_on();
	/* In a vfork child the pid differs and the memory is the parent's:
	 * write nothing.  A forked child without a trace of its own makes
	 * none for an exec that works: its new image names the parent. */
	if (w == NULL || w->pid != getpid() ||
	    (!failed && atomic_load(&w->pending)))
		return;
	uint32_t ps = dlt_str(w, &dlt_tls, path);
	struct dlt_rec_exec *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r) {
		r->h.ts = dlt_now_ns();
		r->path = ps;
		r->err = err;
		dlt_rec_commit(r, DLT_REC_EXEC, (uint16_t)failed, sizeof(*r));
	}
	if (!failed)
		dlt_record_exit(DLT_EXIT_EXEC, 0);
}

void dlt_lc_exec_prepare(const char *path)
{
	dlt_lc_record_exec(path, 0, 0);
	/* This image's trace ends here, cut to its data, unless the exec
	 * fails (then it grows again as it needs).  The kernel resets the
	 * rest: caught signals to SIG_DFL (SIG_IGN stays), the alternate
	 * stack; the new image's shim starts from what it finds. */
	dlt_writer_cut(dlt_w, 1);
}

void dlt_lc_exec_failed(const char *path, int err)
{
	struct dlt_writer *w = dlt_w;
	if (w && w->pid == getpid())
		atomic_store(&w->ending, 0);
	dlt_lc_record_exec(path, 1, err);
}

void dlt_lc_spawn_prepare(void)
{
	dlt_oom_before_child();
}

/* ---- namespaces and credentials ----------------------------------------- */

/* A NOTE of what changed, by the owner of the memory only.  These change
 * what can be read from outside the process: the trace's directory may be
 * out of reach in another mount namespace, and new credentials reset the
 * process's dumpable flag, after which a watcher of another uid (or one
 * without CAP_SYS_PTRACE over the new user namespace) can no longer read
 * its /proc files or its memory. */
static void dlt_lc_note(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void dlt_lc_note(const char *fmt, ...)
{
	int saved = errno;
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL || !dlt_in_owner()) {
		errno = saved;
		return;
	}
	char text[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	dlt_note(w, &dlt_tls, DLT_NOTE_INFO, text);
	errno = saved;
}

/* The clone flags unshare and setns take, by name. */
static void dlt_lc_ns_names(int flags, char *buf, size_t cap)
{
	static const struct {
		int flag;
		const char *name;
	} names[] = {
		{CLONE_NEWNS, "NEWNS"},
		{CLONE_NEWUTS, "NEWUTS"},
		{CLONE_NEWIPC, "NEWIPC"},
		{CLONE_NEWUSER, "NEWUSER"},
		{CLONE_NEWPID, "NEWPID"},
		{CLONE_NEWNET, "NEWNET"},
		{CLONE_NEWCGROUP, "NEWCGROUP"},
		{CLONE_FILES, "FILES"},
		{CLONE_FS, "FS"},
		{CLONE_SYSVSEM, "SYSVSEM"},
	};
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & names[i].flag) || n >= cap)
			continue;
		int k = snprintf(buf + n, cap - n, "%s%s", n ? "|" : "",
				 names[i].name);
		if (k > 0)
			n += (size_t)k;
	}
	if (n == 0)
		snprintf(buf, cap, "%#x", (unsigned)flags);
}

DLT_EXPORT int unshare(int flags)
{
	dlt_int_fn real = DLT_REAL(unshare);
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	int r = real(flags);
	if (r == 0) {
		char names[128];
		dlt_lc_ns_names(flags, names, sizeof(names));
		dlt_lc_note("namespaces changed: unshare(%s)", names);
	}
	return r;
}

DLT_EXPORT int setns(int fd, int nstype)
{
	dlt_setns_fn real = DLT_REAL(setns);
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	int r = real(fd, nstype);
	if (r == 0) {
		char names[128];
		dlt_lc_ns_names(nstype, names, sizeof(names));
		dlt_lc_note("namespaces changed: setns(%d, %s)", fd,
			    nstype ? names : "any");
	}
	return r;
}

/* After a call of the setuid family: when it worked, the ids and the
 * dumpable flag as they are now.  What the program observes (the result,
 * errno, the flag) is left as the call made it.  Returns r. */
static int dlt_lc_creds(const char *call, int r)
{
	if (r != 0)
		return r;
	int saved = errno;
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	if (getresuid(&ru, &eu, &su) == 0 && getresgid(&rg, &eg, &sg) == 0)
		dlt_lc_note("credentials changed: %s: uid %u/%u/%u gid "
			    "%u/%u/%u, dumpable %d",
			    call, ru, eu, su, rg, eg, sg,
			    prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	errno = saved;
	return r;
}

static int dlt_lc_enosys(void)
{
	errno = ENOSYS;
	return -1;
}

DLT_EXPORT int setuid(uid_t uid)
{
	dlt_id1_fn real = DLT_REAL(setuid);
	return dlt_lc_creds("setuid", real ? real(uid) : dlt_lc_enosys());
}

DLT_EXPORT int seteuid(uid_t euid)
{
	dlt_id1_fn real = DLT_REAL(seteuid);
	return dlt_lc_creds("seteuid", real ? real(euid) : dlt_lc_enosys());
}

DLT_EXPORT int setreuid(uid_t ruid, uid_t euid)
{
	dlt_id2_fn real = DLT_REAL(setreuid);
	return dlt_lc_creds("setreuid",
			    real ? real(ruid, euid) : dlt_lc_enosys());
}

DLT_EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	dlt_id3_fn real = DLT_REAL(setresuid);
	return dlt_lc_creds("setresuid",
			    real ? real(ruid, euid, suid) : dlt_lc_enosys());
}

DLT_EXPORT int setgid(gid_t gid)
{
	dlt_id1_fn real = DLT_REAL(setgid);
	return dlt_lc_creds("setgid", real ? real(gid) : dlt_lc_enosys());
}

DLT_EXPORT int setegid(gid_t egid)
{
	dlt_id1_fn real = DLT_REAL(setegid);
	return dlt_lc_creds("setegid", real ? real(egid) : dlt_lc_enosys());
}

DLT_EXPORT int setregid(gid_t rgid, gid_t egid)
{
	dlt_id2_fn real = DLT_REAL(setregid);
	return dlt_lc_creds("setregid",
			    real ? real(rgid, egid) : dlt_lc_enosys());
}

DLT_EXPORT int setresgid(gid_t rgid, gid_t egid, gid_t sgid)
{
	dlt_id3_fn real = DLT_REAL(setresgid);
	return dlt_lc_creds("setresgid",
			    real ? real(rgid, egid, sgid) : dlt_lc_enosys());
}
