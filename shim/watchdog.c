/* Hang watching, the traced process's side.  The watching itself is done
 * from outside the process, by the watcher (watcher/, docs/design.md "The
 * watcher"): no thread of dltrace's runs in the program.  Here the process
 * only
 *  - asks to be watched, once: the DLT_FEAT_WATCH bit and the address of
 *    its table of blocking calls in its trace's header, which the watcher
 *    reads (the header page is shared with every process that maps the
 *    file), and a NOTE that says why;
 *  - keeps that table: one slot per thread inside a traced call that can
 *    block (an NCCL init, a collective), two stores per call, so that the
 *    watcher records such a wait after one look instead of the threshold;
 *  - makes sure a watcher runs: the launcher's (DLTRACE_WATCHER=1), or the
 *    one of this host and trace directory, started here when none is
 *    alive, as nobody's visible child (dlt_watch_spawn);
 *  - gives a forked child of a watched process its trace at the fork, so
 *    that the watcher sees the child before it records anything (a
 *    DataLoader worker stuck in __getitem__ only sleeps).
 *
 * Asked only where hangs matter (launcher variables such as RANK or
 * WORLD_SIZE, a GPU library or framework in use), or with
 * DLTRACE_WATCHDOG=1; DLTRACE_WATCHDOG=0 never asks. */
#define _GNU_SOURCE
#include "hot.h"
#include "watchdog.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "state.h"
#include "strbuf.h"
#include "symlookup.h"

#define DLT_WD_CALL_SLOTS 256
static struct dlt_wd_call dlt_wd_calls[DLT_WD_CALL_SLOTS];
DLT_HOT static _Atomic uint32_t dlt_wd_calls_hi; /* slots ever taken: [0, hi) */
__thread struct dlt_wd_call *dlt_wd_my_call;
_Atomic int dlt_wd_started;

/* The watcher reads the table as format.h's slots. */
_Static_assert(sizeof(struct dlt_wd_call) == sizeof(struct dlt_watch_call),
	       "the table of blocking calls is format.h's");
_Static_assert(offsetof(struct dlt_wd_call, since) ==
		       offsetof(struct dlt_watch_call, since),
	       "the table of blocking calls is format.h's");

struct dlt_wd_call *dlt_wd_call_claim(void)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	for (uint32_t i = 0; i < DLT_WD_CALL_SLOTS; i++) {
		uint32_t free_tid = 0;
		struct dlt_wd_call *c = &dlt_wd_calls[i];
		if (!atomic_compare_exchange_strong(&c->tid, &free_tid, tid))
			continue;
		atomic_store(&c->since, 0);
		uint32_t hi = atomic_load(&dlt_wd_calls_hi);
		while (hi < i + 1 && !atomic_compare_exchange_weak(
					     &dlt_wd_calls_hi, &hi, i + 1))
			;
		dlt_wd_my_call = c;
		return c;
	}
	return NULL;
}

void dlt_wd_call_release(void)
{
	struct dlt_wd_call *c = dlt_wd_my_call;
	if (c == NULL)
		return;
	dlt_wd_my_call = NULL;
	atomic_store(&c->since, 0);
	atomic_store(&c->tid, 0);
}

/* What the watcher needs of this process, in its trace's header: the
 * bit, where the table is, the threshold. */
static void dlt_watch_publish(struct dlt_writer *w)
{
	struct dlt_file_header *h = w->hdr;
	if (h == NULL)
		return;
	h->watch_calls = (uint64_t)(uintptr_t)dlt_wd_calls;
	h->watch_ncalls = DLT_WD_CALL_SLOTS;
	h->watch_stall_ms = (uint32_t)(dlt_cfg.stall_ns / 1000000ull);
	__atomic_fetch_or(&h->features, DLT_FEAT_WATCH, __ATOMIC_RELEASE);
}

/* ---- the host's watcher ------------------------------------------------ */

/* DIR/.dltrace-watch.HOST: the watcher of this host holds a lock on it and
 * touches it at every look (watcher/watch.c). */
static int dlt_watch_file(char *out, size_t cap)
{
	char host[256];
	if (gethostname(host, sizeof(host)) != 0)
		return -1;
	host[sizeof(host) - 1] = '\0';
	struct dlt_strbuf b;
	char dirb[DLT_TRACE_PATH_MAX];
	dlt_sb_init(&b, out, cap);
	dlt_sb_str(&b, dlt_dir_now(dirb, sizeof(dirb)));
	dlt_sb_str(&b, "/.dltrace-watch.");
	dlt_sb_str(&b, host);
	return dlt_sb_done(&b);
}

/* A watcher looked within the last 3 s (it looks every second at most). */
static int dlt_watch_alive(const char *file)
{
	struct stat st;
	struct timespec now;
	if (stat(file, &st) != 0 || clock_gettime(CLOCK_REALTIME, &now) != 0)
		return 0;
	return now.tv_sec - st.st_mtim.tv_sec <= 3;
}

typedef int (*dlt_clone_fn)(int (*)(void *), void *, int, void *, ...);

struct dlt_watch_exec {
	const char *bin;
	char *const *argv;
	char *const *envp;
	dlt_clone_fn clone;
};

/* Their own stacks: each child shares the memory and runs while its
 * parent waits (CLONE_VFORK). */
static char dlt_watch_stack[2][16384] __attribute__((aligned(64)));

/* The second child: becomes the watcher. */
static int dlt_watch_exec(void *arg)
{
	const struct dlt_watch_exec *x = arg;
	syscall(SYS_execve, x->bin, x->argv, x->envp);
	syscall(SYS_exit, 127);
	return 127;
}

/* The first child, in the process's memory, so nothing but system calls
 * (and glibc's clone, a wrapper of one).  The descriptors are its own
 * copy: none of the program's may stay open in the watcher (a pipe held
 * open would keep the program's reader from its end of file), so
 * everything is closed and 0-2 are /dev/null.  It never execs itself: an
 * exec makes a child that was to send no signal at its end send SIGCHLD
 * (the kernel resets exit_signal), and waitpid(-1) would see it.  Its own
 * child execs instead, and it ends as soon as that exec is done, so the
 * watcher is left to init (or the nearest subreaper). */
static int dlt_watch_child(void *arg)
{
	const struct dlt_watch_exec *x = arg;
	/* openat and dup3: AArch64 has no open or dup2 system calls. */
	int nul = (int)syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR);
	for (int fd = 0; fd < 3; fd++)
		if (nul >= 0 && nul != fd)
			syscall(SYS_dup3, nul, fd, 0);
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3, ~0u, 0) != 0)
#endif
		for (int fd = 3; fd < 4096; fd++)
			syscall(SYS_close, fd);
	sigset_t none;
	sigemptyset(&none);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, _NSIG / 8);
	/* setsid: no signal of the program's terminal or group reaches the
	 * watcher before it is done writing. */
	syscall(SYS_setsid);
	x->clone(dlt_watch_exec,
		 dlt_watch_stack[1] + sizeof(dlt_watch_stack[1]),
		 CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)x);
	syscall(SYS_exit, 0);
	return 0;
}

/* Starts "dltrace --watch DIR" as nobody's visible child: a clone that
 * sends no signal when it ends (no SIGCHLD; invisible to waitpid(-1)
 * without __WCLONE), whose own child execs the watcher; this process
 * reaps the first one here.  The environment is the watcher's own: it is
 * not traced. */
static void dlt_watch_spawn(const char *file)
{
	static char bin[DLT_PATH_MAX + 32];
	if (dlt_cfg.watcher_bin && dlt_cfg.watcher_bin[0]) {
		snprintf(bin, sizeof(bin), "%s", dlt_cfg.watcher_bin);
	} else {
		/* The launcher beside the library: bin/dltrace for
		 * lib/libdltrace.so, as installed and as built. */
		snprintf(bin, sizeof(bin), "%s", dlt_self_file());
		char *slash = strrchr(bin, '/');
		if (slash == NULL)
			return;
		snprintf(slash, sizeof(bin) - (size_t)(slash - bin),
			 "/../bin/dltrace");
	}
	if (access(bin, X_OK) != 0) {
		static _Atomic int said;
		if (!atomic_exchange(&said, 1)) {
			char msg[DLT_PATH_MAX + 96];
			int n = snprintf(msg, sizeof(msg),
					 "dltrace: hang watching off: no "
					 "watcher program at %s\n",
					 bin);
			if (n > 0 && write(2, msg, (size_t)n) < 0)
				n = 0;
		}
		return;
	}
	(void)file;
	char dirb[DLT_TRACE_PATH_MAX];
	const char *dir = dlt_dir_now(dirb, sizeof(dirb));
	char *argv[] = {(char *)"dltrace", (char *)"--watch", (char *)dir,
			NULL};
	char *envp[] = {(char *)"PATH=/usr/bin:/bin", NULL};
	struct dlt_watch_exec x = {bin, argv, envp, NULL};
	x.clone = (dlt_clone_fn)dlt_sym_next("clone", dlt_self_name());
	if (x.clone == NULL)
		return;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int pid = x.clone(dlt_watch_child,
			  dlt_watch_stack[0] + sizeof(dlt_watch_stack[0]),
			  CLONE_VM | CLONE_VFORK, &x);
	if (pid > 0) {
		/* Reaped here, so that no zombie of dltrace's is left among
		 * the program's children. */
		int st;
		while (syscall(SYS_wait4, pid, &st, __WCLONE, NULL) < 0 &&
		       errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void dlt_watch_ensure(void)
{
	if (dlt_cfg.watcher == 1 || dlt_cfg.watcher == 0)
		return;
	char file[DLT_PATH_MAX + 300];
	if (dlt_watch_file(file, sizeof(file)) != 0 || dlt_watch_alive(file))
		return;
	dlt_watch_spawn(file);
}

void dlt_watch_ask(const char *why)
{
	if (dlt_w == NULL || atomic_exchange(&dlt_wd_started, 1))
		return;
	/* Decided once: "asked" also means "chose not to". */
	if (dlt_cfg.watchdog == 0)
		return;
	int saved = errno;
	struct dlt_writer *w = dlt_writer_on();
	/* A vfork child shares its parent's memory: it asks nothing. */
	if (w && w->pid == getpid()) {
		dlt_watch_publish(w);
		char text[200];
		snprintf(text, sizeof(text),
			 "hang watching asked (%s), threshold %llu ms: the "
			 "watcher outside the process watches it",
			 why, (unsigned long long)(dlt_cfg.stall_ns / 1000000));
		dlt_note(w, &dlt_tls, DLT_NOTE_INFO, text);
		dlt_watch_ensure();
	}
	errno = saved;
}

void dlt_watchdog_after_fork(void)
{
	/* Each variable is written only when it changes: in the child of a
	 * shell that only execs, a store copies its page (a fault each).
	 * Only the forking thread lives on, under another id; the slots
	 * were written only if some thread made a traced blocking call. */
	uint32_t hi = atomic_load(&dlt_wd_calls_hi)
			      ? atomic_exchange(&dlt_wd_calls_hi, 0)
			      : 0;
	if (hi)
		memset(dlt_wd_calls, 0, sizeof(dlt_wd_calls[0]) * hi);
	if (dlt_wd_my_call)
		dlt_wd_my_call = NULL;
	/* A watched process's child stays watched: the watcher finds it
	 * among its parent's children and watches it without a trace of its
	 * own; a trace it makes later asks too (dlt_watch_materialized). */
}

void dlt_watch_materialized(struct dlt_writer *w, struct dlt_tls *t,
			    int redact_argv)
{
	dlt_write_process_info(w, t, redact_argv);
	if (atomic_load(&dlt_wd_started) && dlt_cfg.watchdog != 0 &&
	    w->pid == getpid())
		dlt_watch_publish(w);
}

void dlt_format_sockaddr(const struct sockaddr *sa, socklen_t len, char *buf,
			 size_t cap)
{
	char ip[INET6_ADDRSTRLEN];
	buf[0] = '\0';
	if (sa == NULL || len < sizeof(sa_family_t))
		return;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(buf, cap, "tcp %s:%u", ip, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6 &&
		   len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in = (const void *)sa;
		inet_ntop(AF_INET6, &in->sin6_addr, ip, sizeof(ip));
		snprintf(buf, cap, "tcp [%s]:%u", ip, ntohs(in->sin6_port));
	} else if (sa->sa_family == AF_UNIX) {
		const struct sockaddr_un *un = (const void *)sa;
		size_t n = len - offsetof(struct sockaddr_un, sun_path);
		if (n > sizeof(un->sun_path))
			n = sizeof(un->sun_path);
		if (n > 0 && un->sun_path[0] == '\0')
			snprintf(buf, cap, "unix @%.*s", (int)(n - 1),
				 un->sun_path + 1);
		else
			snprintf(buf, cap, "unix %.*s",
				 (int)strnlen(un->sun_path, n), un->sun_path);
	}
}
