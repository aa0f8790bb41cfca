/* The watcher: notices threads of traced processes staying in one blocking
 * system call and records what they wait on, from outside the processes.
 *
 * Why outside: a thread of dltrace's inside the program is visible to it
 * (/proc/self/status, unshare(CLONE_NEWUSER) failing with EINVAL in a
 * process with two threads, Python 3.12's warning about fork() with
 * threads) and any lock it holds at a fork stays held in the child (the
 * loader's, taken by dladdr).  The watcher needs nothing of the process's
 * cooperation but what the process publishes in its trace's header (the
 * DLT_FEAT_WATCH bit, the address of its table of blocking calls, its
 * threshold): it reads /proc/PID/task/TID/{stat,syscall,wchan}, the
 * process's memory through process_vm_readv (its stack, its table, its
 * Python frames), and never stops, signals or ptraces a thread.
 *
 * What it sees goes into a companion trace per process (format 2.3:
 * DLT_FEAT_WATCHER, string ids with bit 31 set), which the analyzer reads
 * as the process's own; the heartbeat (alive_ns) and peak memory
 * (rss_peak_kb) go into the process's own header as well, one relaxed
 * store each into the mapped page.
 *
 * Processes are found as their traces appear in the directory: those of
 * this host, of the watcher's run (the launcher's) or made without a
 * launcher (the host's watcher), whose header says they asked.  A process
 * is alive while it holds its trace's lock (format.h). */
#define _GNU_SOURCE
#include "watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "memcg.h"
#include "procread.h"
#include "procstat.h"
#include "pyremote.h"
#include "rawcap.h"
#include "record.h"
#include "sysnum.h"
#include "writer.h"

struct dlt_wt_thread {
	uint32_t tid;
	uint32_t seen_tick;
	char key[160];	   /* the call and its arguments, sp and pc cut off */
	uint64_t since;	   /* when that key was first seen */
	uint32_t key_tick; /* last look the wait in key was seen */
	int waiting;	   /* blocked in the call in key */
	struct dlt_pr_thread st;
	int reported;
	struct dlt_rec_stall *rec; /* our record, updated in place */
	uint64_t rec_ticket;	   /* while this says it may be (record.h) */
	uint64_t rec_since;
	uint16_t rec_flags; /* the record's flags (DLT_STALL_EARLY) */
};

enum dlt_wt_state {
	DLT_WT_IGNORED, /* another run's, an older format, unreadable */
	DLT_WT_IDLE,	/* alive, has not asked to be watched (yet) */
	DLT_WT_WATCHED,
	DLT_WT_DEAD,
};

#define DLT_WT_CALLS 256

struct dlt_wt_proc {
	char *name; /* file name in the directory */
	int fd;	    /* to ask whether the process holds its lock */
	struct dlt_file_header *hdr; /* the mapped header page */
	enum dlt_wt_state state;
	pid_t pid;
	bool seen; /* in the directory at the last listing */
	/* A forked child of a watched process that has made no trace of its
	 * own (a DataLoader worker that only computes or sleeps): found by
	 * the watcher among its parent's children, watched on its parent's
	 * word, and its trace is the watcher's (parent_kind FORK). */
	bool forked;
	uint64_t exe_ino; /* forked: /proc/PID/exe's, not exec'd since */
	uint32_t found_tick;
	/* What watching needs, from the trace's header or, for a forked
	 * child, from its parent. */
	uint64_t trace_id; /* forked: its parent's, until its own is made */
	uint64_t run_id;
	uint32_t exec_seq, ppid;
	uint64_t calls_addr;
	uint32_t ncalls;
	bool redacted;
	uint64_t stall_ns;
	uint64_t cpu_ns; /* the process's CPU clock at the last look */
	uint32_t full_tick;
	struct dlt_wt_thread *th;
	size_t nth, capth;
	/* The companion: made at the first thing to record. */
	struct dlt_writer *cw;
	struct dlt_tls ct;
	int cw_failed;
	/* The hash of /proc/PID/maps at the last MODMAP written. */
	uint64_t modmap_hash;
	bool modmap_done;
	struct dlt_watch_call calls[DLT_WT_CALLS];
	int said_denied;
	struct dlt_pyremote py; /* its CPython, found from outside */
};

struct dlt_watcher {
	char dir[4096];
	char host[256]; /* as trace names spell it */
	uint64_t run_id;
	struct timespec dir_mtime;
	uint32_t tick;
	uint64_t tick_ns;
	bool pystack;		/* not DLTRACE_PYSTACK=0 */
	struct dlt_rc_maps *rc; /* a stack's maps (large: one for all) */
	struct dlt_wt_proc **procs;
	size_t nprocs, cap;
};

/* The host as trace names spell it (tracer/file.c). */
static void dlt_wt_host(char *dst, size_t cap)
{
	char h[256];
	if (gethostname(h, sizeof(h)) != 0)
		h[0] = '\0';
	h[sizeof(h) - 1] = '\0';
	dlt_file_host_spelling(dst, cap, h);
}

static uint64_t dlt_wt_now(void)
{
	return dlt_now_ns();
}

struct dlt_watcher *dlt_watcher_new(const struct dlt_watch_opts *o, char *err,
				    size_t cap)
{
	DIR *d = opendir(o->dir);
	if (d == NULL) {
		snprintf(err, cap, "%s: %s", o->dir, strerror(errno));
		return NULL;
	}
	closedir(d);
	struct dlt_watcher *wt = calloc(1, sizeof(*wt));
	if (wt == NULL) {
		snprintf(err, cap, "out of memory");
		return NULL;
	}
	snprintf(wt->dir, sizeof(wt->dir), "%s", o->dir);
	dlt_wt_host(wt->host, sizeof(wt->host));
	wt->run_id = o->run_id;
	wt->tick_ns = 1000000000ull;
	const char *py = getenv("DLTRACE_PYSTACK");
	wt->pystack = !(py && strcmp(py, "0") == 0);
	/* One descriptor per trace of a large tree: the watcher's own limit
	 * only (a launcher raises it after its command was started, which
	 * keeps the one it was given). */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return wt;
}

uint64_t dlt_watcher_tick_ns(const struct dlt_watcher *wt)
{
	return wt->tick_ns;
}

/* ---- the companion ------------------------------------------------------ */

/* A forked child's start, from /proc/PID/stat (clock ticks since boot),
 * on the traces' clocks: parents are ordered before their children. */
static void dlt_wt_forked_start(const struct dlt_wt_proc *p,
				struct dlt_open_params *o)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p->pid);
	struct dlt_procstat ps;
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec mono, real;
	if (dlt_procstat_read(path, &ps) != 0 || hz <= 0 ||
	    clock_gettime(CLOCK_MONOTONIC, &mono) != 0 ||
	    clock_gettime(CLOCK_REALTIME, &real) != 0)
		return;
	uint64_t start = ps.starttime * (1000000000ull / (uint64_t)hz);
	uint64_t m =
		(uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec;
	uint64_t r =
		(uint64_t)real.tv_sec * 1000000000ull + (uint64_t)real.tv_nsec;
	if (start == 0 || start > m)
		return;
	o->start_monotonic_ns = start;
	o->start_realtime_ns = r - (m - start);
}

/* What a forked child is (PROC, ARG), as the child's own first record
 * would have said: its program, directory and arguments. */
static void dlt_wt_proc_info(struct dlt_watcher *wt, struct dlt_wt_proc *p)
{
	struct dlt_writer *w = p->cw;
	char path[64], exe[1024] = "", cwd[1024] = "", args[8192];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)p->pid);
	n = readlink(path, cwd, sizeof(cwd) - 1);
	cwd[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)p->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, args, sizeof(args) - 1) : 0;
	if (fd >= 0)
		close(fd);
	size_t len = n > 0 ? (size_t)n : 0;
	args[len] = '\0';
	uint32_t argc = 0;
	for (size_t i = 0; i < len; i += strlen(args + i) + 1)
		argc++;
	uint32_t hs = dlt_str(w, &p->ct, wt->host);
	uint32_t es = exe[0] ? dlt_str(w, &p->ct, exe) : DLT_STR_NONE;
	uint32_t cs = cwd[0] ? dlt_str(w, &p->ct, cwd) : DLT_STR_NONE;
	struct dlt_rec_proc *r = dlt_rec_reserve(w, &p->ct, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->host = hs;
	r->exe = es;
	r->cwd = cs;
	r->rank = -1;
	r->world_size = -1;
	r->argc = argc;
	dlt_rec_commit(r, DLT_REC_PROC, 0, sizeof(*r));
	uint32_t k = 0;
	for (size_t i = 0; i < len && !p->redacted && k < 64;
	     i += strlen(args + i) + 1, k++) {
		uint32_t as = dlt_str(w, &p->ct, args + i);
		struct dlt_rec_arg *a = dlt_rec_reserve(w, &p->ct, sizeof(*a));
		if (a == NULL)
			return;
		a->h.ts = r->h.ts;
		a->index = k;
		a->str = as;
		dlt_rec_commit(a, DLT_REC_ARG, 0, sizeof(*a));
	}
}

static struct dlt_writer *dlt_wt_companion(struct dlt_watcher *wt,
					   struct dlt_wt_proc *p)
{
	if (p->cw || p->cw_failed)
		return p->cw;
	struct dlt_writer *w = calloc(1, sizeof(*w));
	if (w == NULL) {
		p->cw_failed = 1;
		return NULL;
	}
	struct dlt_open_params o;
	memset(&o, 0, sizeof(o));
	o.dir = wt->dir;
	o.host = wt->host;
	o.rank = -1;
	o.parent_trace_id = p->trace_id;
	o.parent_kind = p->forked ? DLT_PARENT_FORK : DLT_PARENT_WATCHED;
	o.exec_seq = p->exec_seq;
	o.run_id = p->run_id;
	o.features =
		DLT_FEAT_WATCHER | (p->redacted ? DLT_FEAT_ARGV_REDACTED : 0);
	o.pid = p->pid;
	o.ppid = (pid_t)p->ppid;
	if (p->forked)
		dlt_wt_forked_start(p, &o);
	o.str_base = DLT_STR_WATCHER;
	o.writer_kind = DLT_WRITER_WATCHER;
	o.name_suffix = ".watch";
	/* Waits, stacks and notes: a companion stays small. */
	o.max_size = 64ull << 20;
	if (dlt_writer_create(w, &o) != 0) {
		free(w);
		p->cw_failed = 1;
		return NULL;
	}
	p->cw = w;
	if (p->forked) {
		/* It stands for the child's own trace: what the child is. */
		p->trace_id = w->hdr ? w->hdr->trace_id : 0;
		dlt_wt_proc_info(wt, p);
	}
	char text[200];
	snprintf(text, sizeof(text),
		 "watched from outside by pid %d (%s), a look every %llu ms",
		 (int)getpid(),
		 wt->run_id ? "the launcher" : "the host's watcher",
		 (unsigned long long)(wt->tick_ns / 1000000));
	dlt_note(w, &p->ct, DLT_NOTE_INFO, text);
	return w;
}

static void dlt_wt_note(struct dlt_watcher *wt, struct dlt_wt_proc *p,
			int level, const char *text)
{
	struct dlt_writer *w = dlt_wt_companion(wt, p);
	if (w)
		dlt_note(w, &p->ct, level, text);
}

/* The "before" of the process's own death: its memory cgroup, read when
 * watching starts (a forked child is in its parent's cgroup, whose
 * reading is its parent's). */
static void dlt_wt_memcg(struct dlt_watcher *wt, struct dlt_wt_proc *p)
{
	if (p->forked || p->hdr->parent_kind == DLT_PARENT_FORK)
		return;
	char cg[64];
	snprintf(cg, sizeof(cg), "/proc/%d/cgroup", (int)p->pid);
	struct dlt_memcg_files f = dlt_memcg_system;
	f.cgroup = cg;
	struct dlt_memcg m;
	dlt_memcg_read(&f, &m);
	struct dlt_writer *w = dlt_wt_companion(wt, p);
	if (w)
		dlt_memcg_record(w, &p->ct, DLT_MEMCG_START | DLT_MEMCG_OWN,
				 (uint32_t)p->pid, 0, 0, &m, 0);
}

/* ---- one thread --------------------------------------------------------- */

static ssize_t dlt_wt_read(void *ctx, void *dst, uint64_t addr, size_t n)
{
	return dlt_pr_peek(*(const pid_t *)ctx, dst, addr, n);
}

/* The waiting thread's stack, raw (format 2.4): the process's executable
 * mappings with their build-ids (MODMAP) when they changed since the last
 * one written, then the pc and stack pointer the kernel gives for the
 * system call and up to 32 KiB of stack (RAWSTACK).  The analyzer unwinds
 * and names it offline, with the files' unwind tables and symbols: a scan
 * here could only guess at return addresses. */
static void dlt_wt_stack(struct dlt_watcher *wt, struct dlt_wt_proc *p,
			 const struct dlt_wt_thread *t)
{
	struct dlt_writer *w = dlt_wt_companion(wt, p);
	if (w == NULL)
		return;
	if (wt->rc == NULL && (wt->rc = malloc(sizeof(*wt->rc))) == NULL)
		return;
	struct dlt_rc_maps *m = wt->rc;
	pid_t pid = p->pid;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r = fd >= 0 ? dlt_rc_maps_fd(m, fd, t->st.sp) : -1;
	if (fd >= 0)
		close(fd);
	uint64_t ts = dlt_wt_now();
	/* Libraries loaded or unloaded since the last MODMAP: a new one. */
	if (r == 0 && (!p->modmap_done || m->hash != p->modmap_hash)) {
		dlt_rc_maps_ids(m, dlt_wt_read, &pid);
		dlt_rc_modmap_write(w, &p->ct, m, ts);
		p->modmap_hash = m->hash;
		p->modmap_done = true;
	}
	uint64_t lo = r == 0 ? m->stack_lo : 0, hi = r == 0 ? m->stack_hi : 0;
	uint32_t cap;
	struct dlt_rec_rawstack *rs =
		dlt_rc_raw_begin(w, &p->ct, t->st.sp, hi, &cap);
	if (rs == NULL)
		return;
	rs->h.ts = ts;
	rs->tid = t->tid;
	rs->why = DLT_RAW_STALL;
#if defined(__aarch64__)
	rs->arch = DLT_ARCH_AARCH64;
	int pc = DLT_RAW_REG_PC_AARCH64, sp = DLT_RAW_REG_SP_AARCH64;
#else
	rs->arch = DLT_ARCH_X86_64;
	int pc = DLT_RAW_REG_PC_X86_64, sp = DLT_RAW_REG_SP_X86_64;
#endif
	rs->regs[pc] = t->st.pc;
	rs->regs[sp] = t->st.sp;
	rs->regs_known = (1ull << pc) | (1ull << sp);
	rs->stack_lo = lo;
	rs->stack_hi = hi;
	dlt_rc_raw_end(&p->ct, rs, cap, dlt_wt_read, &pid);
}

/* The thread's STALL record can take the wait's new duration. */
static int dlt_wt_rec_open(struct dlt_wt_proc *p, const struct dlt_wt_thread *t)
{
	return p->cw && t->rec && t->rec_since == t->since &&
	       dlt_rec_in_place(p->cw, &p->ct, t->rec_ticket);
}

static void dlt_wt_report(struct dlt_watcher *wt, struct dlt_wt_proc *p,
			  struct dlt_wt_thread *t, uint64_t now, uint16_t flags)
{
	uint64_t dur = now - t->since;
	if (dlt_wt_rec_open(p, t)) {
		atomic_store((_Atomic uint64_t *)&t->rec->dur_ns, dur);
		/* Recorded early, now past the threshold: a stall like any
		 * other.  The same commit again, without the flag. */
		if ((t->rec_flags & DLT_STALL_EARLY) && flags == 0) {
			dlt_rec_commit(t->rec, DLT_REC_STALL, 0,
				       sizeof(*t->rec));
			t->rec_flags = 0;
		}
		return;
	}
	struct dlt_writer *w = dlt_wt_companion(wt, p);
	if (w == NULL)
		return;
	char path[96], wchan[128] = "", detail[512];
	snprintf(path, sizeof(path), "/proc/%d/task/%u/wchan", (int)p->pid,
		 t->tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, wchan, sizeof(wchan) - 1);
		wchan[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	int wfd = dlt_pr_wait_detail(p->pid, t->st.nr, t->st.a, detail,
				     sizeof(detail));
	uint32_t ws = wchan[0] && strcmp(wchan, "0") ? dlt_str(w, &p->ct, wchan)
						     : DLT_STR_NONE;
	uint32_t ds = detail[0] ? dlt_str(w, &p->ct, detail) : DLT_STR_NONE;
	struct dlt_rec_stall *r = dlt_rec_reserve(w, &p->ct, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = now;
	r->tid = t->tid;
	r->syscall = (int32_t)dlt_sysnum_trace(t->st.nr);
	for (int i = 0; i < 6; i++)
		r->args[i] = t->st.a[i];
	r->since = t->since;
	r->dur_ns = dur;
	r->wchan = ws;
	r->detail = ds;
	r->fd = wfd;
	r->state = (uint8_t)t->st.state;
	r->ended = 0;
	r->pad = 0;
	dlt_rec_commit(r, DLT_REC_STALL, flags, sizeof(*r));
	t->rec = r;
	t->rec_ticket = dlt_rec_ticket(&p->ct);
	t->rec_since = t->since;
	t->rec_flags = flags;
}

static void dlt_wt_end(struct dlt_wt_proc *p, struct dlt_wt_thread *t,
		       uint64_t now)
{
	if (dlt_wt_rec_open(p, t)) {
		atomic_store((_Atomic uint64_t *)&t->rec->dur_ns,
			     now - t->since);
		atomic_store((_Atomic uint8_t *)&t->rec->ended, 1);
	}
	t->rec = NULL;
	t->reported = 0;
}

/* When thread tid's outermost traced blocking call began, 0 if it is in
 * none (the table read at this look). */
static uint64_t dlt_wt_call_since(const struct dlt_wt_proc *p, uint32_t tid)
{
	for (int i = 0; i < DLT_WT_CALLS; i++)
		if (p->calls[i].tid == tid)
			return p->calls[i].since;
	return 0;
}

/* The waiting thread's Python stack, written after its RAWSTACK, where the
 * process runs a CPython (found once, again after an exec or while none
 * was found and it mapped more objects); a process without one gets none,
 * one that cannot be read a record that says why. */
static void dlt_wt_pystack(struct dlt_watcher *wt, struct dlt_wt_proc *p,
			   uint32_t tid)
{
	if (!wt->pystack || p->cw == NULL)
		return;
	int r = dlt_pyremote_find(p->pid, &p->py, NULL, 0);
	if (r < 0 || r == DLT_PYSTACK_NO_PYTHON)
		return;
	dlt_pyremote_record(p->cw, &p->ct, &p->py.pi, (pid_t)tid, 0, 0);
}

/* Thread t has waited in one call for the threshold, or for a look inside
 * a traced call that can block, or a snapshot was asked for: record it,
 * with its stacks the first time. */
static void dlt_wt_waiting(struct dlt_watcher *wt, struct dlt_wt_proc *p,
			   struct dlt_wt_thread *t, uint64_t now, int snapshot)
{
	uint16_t flags = 0;
	if (now - t->since < p->stall_ns && !snapshot) {
		/* Seen in this wait at two looks in a row, inside a traced
		 * call open for a look at least: a hung init or collective
		 * killed before the threshold still shows its wait. */
		uint64_t call = dlt_wt_call_since(p, t->tid);
		if (call == 0 || now - call < wt->tick_ns ||
		    now - t->since < wt->tick_ns)
			return;
		flags = DLT_STALL_EARLY;
	}
	dlt_wt_report(wt, p, t, now, flags);
	if (!t->reported && p->cw) {
		t->reported = 1;
		dlt_wt_stack(wt, p, t);
		dlt_wt_pystack(wt, p, t->tid);
	}
}

static struct dlt_wt_thread *dlt_wt_thread_of(struct dlt_wt_proc *p,
					      uint32_t tid)
{
	for (size_t i = 0; i < p->nth; i++)
		if (p->th[i].tid == tid)
			return &p->th[i];
	if (p->nth == p->capth) {
		size_t cap = p->capth ? p->capth * 2 : 16;
		struct dlt_wt_thread *th = realloc(p->th, cap * sizeof(*th));
		if (th == NULL)
			return NULL;
		p->th = th;
		p->capth = cap;
	}
	struct dlt_wt_thread *t = &p->th[p->nth++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

/* One look at thread t: is it still in the wait it was in, for how long. */
static void dlt_wt_look(struct dlt_watcher *wt, struct dlt_wt_proc *p,
			struct dlt_wt_thread *t, uint64_t now, int snapshot)
{
	t->seen_tick = wt->tick;
	struct dlt_pr_thread st;
	if (dlt_pr_thread_read(p->pid, t->tid, &st) != 0) {
		if ((errno == EACCES || errno == EPERM) && !p->said_denied) {
			p->said_denied = 1;
			dlt_wt_note(wt, p, DLT_NOTE_WARN,
				    "the kernel does not let the watcher read "
				    "this process's threads (a ptrace "
				    "restriction: Yama ptrace_scope, a "
				    "seccomp profile, another user): its "
				    "waits are not recorded");
		}
		return;
	}
	/* A thread that is dying (killed: dltrace's own SIGTERM at
	 * --hang-timeout, the OOM killer) did not leave its wait: the wait
	 * stays the last one it had. */
	if (st.state == 'Z' || st.state == 'X' || st.state == 'x')
		return;
	/* A stopped thread (SIGSTOP, a debugger, ^Z) waits as surely as a
	 * blocked one, in a system call or not: its peers wait for it. */
	int stopped = st.state == 'T' || st.state == 't';
	int blocked =
		((st.state == 'S' || st.state == 'D') && st.in_call) || stopped;
	/* The same call with the same arguments, however often it
	 * returned in between: a wait loop is one wait. */
	char key[160];
	if (stopped)
		snprintf(key, sizeof(key), "%c %ld", st.state, st.nr);
	else if (blocked)
		snprintf(key, sizeof(key), "%ld %llx %llx %llx %llx %llx %llx",
			 st.nr, (unsigned long long)st.a[0],
			 (unsigned long long)st.a[1],
			 (unsigned long long)st.a[2],
			 (unsigned long long)st.a[3],
			 (unsigned long long)st.a[4],
			 (unsigned long long)st.a[5]);
	else
		key[0] = '\0';
	if (blocked)
		t->st = st;
	if (!blocked || strcmp(key, t->key) != 0) {
		/* A wait loop (a store polled between sleeps) is sometimes
		 * caught between two waits: the wait goes on if it is back
		 * within two looks. */
		if (t->key[0] && wt->tick - t->key_tick <= 2 && !snapshot)
			return;
		if (t->reported)
			dlt_wt_end(p, t, now);
		snprintf(t->key, sizeof(t->key), "%s", key);
		t->since = now;
		t->key_tick = wt->tick;
		t->waiting = blocked;
		/* A snapshot records a wait seen for the first time too: a
		 * process that started a moment ago still says where it is;
		 * and where a main thread that runs is in its Python code (a
		 * rank that computes for ever never waits). */
		if (snapshot && !blocked && st.state == 'R' &&
		    t->tid == (uint32_t)p->pid && dlt_wt_companion(wt, p))
			dlt_wt_pystack(wt, p, t->tid);
		if (!(snapshot && blocked))
			return;
	}
	t->key_tick = wt->tick;
	t->waiting = 1;
	dlt_wt_waiting(wt, p, t, now, snapshot);
}

/* ---- one process -------------------------------------------------------- */

/* The process's CPU time in ns (every thread), or UINT64_MAX. */
static uint64_t dlt_wt_cpu_ns(pid_t pid)
{
	clockid_t id;
	struct timespec ts;
	if (clock_getcpuclockid(pid, &id) != 0 || clock_gettime(id, &ts) != 0)
		return UINT64_MAX;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The process holds its trace's lock: it is alive and this is its image.
 * A process that could take no lock (DLT_FEAT_NO_LOCK) is alive while its
 * pid is. */
static uint64_t dlt_wt_exe_ino(pid_t pid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* A process of the directory made its own trace: pid's image is traced
 * there, not by the watcher. */
static bool dlt_wt_traced(const struct dlt_watcher *wt, pid_t pid)
{
	for (size_t i = 0; i < wt->nprocs; i++) {
		const struct dlt_wt_proc *q = wt->procs[i];
		if (!q->forked && q->pid == pid &&
		    (q->state == DLT_WT_IDLE || q->state == DLT_WT_WATCHED))
			return true;
	}
	return false;
}

static int dlt_wt_alive(const struct dlt_watcher *wt,
			const struct dlt_wt_proc *p)
{
	/* A forked child is the watcher's while it lives without a trace of
	 * its own and without an exec. */
	if (p->forked)
		return kill(p->pid, 0) == 0 &&
		       dlt_wt_exe_ino(p->pid) == p->exe_ino &&
		       !dlt_wt_traced(wt, p->pid);
	if (p->hdr->features & DLT_FEAT_NO_LOCK)
		return kill(p->pid, 0) == 0 || errno == EPERM;
	struct flock l;
	memset(&l, 0, sizeof(l));
	l.l_type = F_WRLCK;
	l.l_whence = SEEK_SET;
	l.l_start = 0;
	l.l_len = 1;
	if (fcntl(p->fd, F_OFD_GETLK, &l) != 0)
		return kill(p->pid, 0) == 0;
	return l.l_type != F_UNLCK;
}

static void dlt_wt_heartbeat(struct dlt_wt_proc *p, uint64_t now)
{
	uint64_t rss = dlt_pr_rss_peak_kb(p->pid);
	struct dlt_file_header *hs[2] = {p->hdr, p->cw ? p->cw->hdr : NULL};
	/* The watcher's own trace of a forked child: alive since the fork. */
	for (int i = 0; i < 2; i++) {
		if (hs[i] == NULL)
			continue;
		atomic_store_explicit((_Atomic uint64_t *)&hs[i]->alive_ns, now,
				      memory_order_relaxed);
		if (rss > hs[i]->rss_peak_kb)
			atomic_store_explicit(
				(_Atomic uint64_t *)&hs[i]->rss_peak_kb, rss,
				memory_order_relaxed);
	}
}

static void dlt_wt_watch_start(struct dlt_watcher *wt, struct dlt_wt_proc *p)
{
	p->state = DLT_WT_WATCHED;
	if (!p->forked) {
		const struct dlt_file_header *h = p->hdr;
		p->trace_id = h->trace_id;
		p->run_id = h->run_id;
		p->exec_seq = h->exec_seq;
		p->ppid = h->ppid;
		p->calls_addr = h->watch_calls;
		p->ncalls = h->watch_ncalls;
		p->redacted = (h->features & DLT_FEAT_ARGV_REDACTED) != 0;
		p->stall_ns = h->watch_stall_ms
				      ? (uint64_t)h->watch_stall_ms * 1000000ull
				      : 5000ull * 1000000ull;
	}
	uint64_t tick = p->stall_ns / 5;
	if (tick < 100000000ull)
		tick = 100000000ull;
	if (tick < wt->tick_ns)
		wt->tick_ns = tick;
	p->cpu_ns = UINT64_MAX;
	dlt_wt_memcg(wt, p);
}

static struct dlt_wt_proc *dlt_wt_new(struct dlt_watcher *wt);

/* The children of a watched process that made no trace of their own are
 * watched too, on its word: a child that only execs is gone (or traced as
 * its new image) by the next look; one that stays gets a trace from the
 * watcher from that look on. */
static void dlt_wt_children(struct dlt_watcher *wt, struct dlt_wt_proc *p)
{
	uint64_t exe = 0;
	for (size_t i = 0; i < p->nth; i++) {
		char path[96], text[4096];
		snprintf(path, sizeof(path), "/proc/%d/task/%u/children",
			 (int)p->pid, p->th[i].tid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, text, sizeof(text) - 1);
		close(fd);
		text[n > 0 ? n : 0] = '\0';
		for (char *s = text, *end; *s; s = end) {
			long c = strtol(s, &end, 10);
			if (end == s)
				break;
			bool known = false;
			for (size_t k = 0; k < wt->nprocs && !known; k++) {
				const struct dlt_wt_proc *q = wt->procs[k];
				known = q->pid == c && q->state != DLT_WT_DEAD;
			}
			if (known || c <= 0)
				continue;
			if (exe == 0)
				exe = dlt_wt_exe_ino(p->pid);
			/* Exec'd already: its new image is traced or not
			 * the shim's. */
			if (exe == 0 || dlt_wt_exe_ino((pid_t)c) != exe)
				continue;
			struct dlt_wt_proc *f = dlt_wt_new(wt);
			if (f == NULL)
				return;
			f->forked = true;
			f->pid = (pid_t)c;
			f->exe_ino = exe;
			f->found_tick = wt->tick;
			f->trace_id = p->trace_id;
			f->run_id = p->run_id;
			f->exec_seq = 0;
			f->ppid = (uint32_t)p->pid;
			f->calls_addr = p->calls_addr;
			f->ncalls = p->ncalls;
			f->redacted = p->redacted;
			f->stall_ns = p->stall_ns;
			f->state = DLT_WT_WATCHED;
			f->cpu_ns = UINT64_MAX;
		}
	}
}

static void dlt_wt_proc_look(struct dlt_watcher *wt, struct dlt_wt_proc *p,
			     int snapshot)
{
	/* A forked child that lives a look has a trace of its birth and its
	 * last sign of life, whatever ends it later (a SIGKILL too). */
	if (p->forked)
		dlt_wt_companion(wt, p);
	uint64_t now = dlt_wt_now();
	dlt_wt_heartbeat(p, now);
	/* The table of blocking calls, as the process keeps it now. */
	memset(p->calls, 0, sizeof(p->calls));
	uint32_t nc = p->ncalls;
	if (nc > DLT_WT_CALLS)
		nc = DLT_WT_CALLS;
	if (p->calls_addr && nc)
		dlt_pr_peek(p->pid, p->calls, p->calls_addr,
			    nc * sizeof(p->calls[0]));
	/* Nothing of the process has run since the last look: every thread
	 * is where it was, and one clock replaces a look per thread.  A
	 * full look every 10 bounds what a clock can miss. */
	uint64_t cpu = dlt_wt_cpu_ns(p->pid);
	if (!snapshot && cpu != UINT64_MAX && cpu == p->cpu_ns &&
	    wt->tick - p->full_tick < 10) {
		for (size_t i = 0; i < p->nth; i++) {
			struct dlt_wt_thread *t = &p->th[i];
			t->seen_tick = wt->tick;
			if (!t->waiting)
				continue;
			t->key_tick = wt->tick;
			dlt_wt_waiting(wt, p, t, now, 0);
		}
		return;
	}
	p->cpu_ns = cpu;
	p->full_tick = wt->tick;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	DIR *d = opendir(path);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		uint32_t tid = (uint32_t)strtoul(e->d_name, NULL, 10);
		if (tid == 0)
			continue;
		struct dlt_wt_thread *t = dlt_wt_thread_of(p, tid);
		if (t)
			dlt_wt_look(wt, p, t, now, snapshot);
	}
	closedir(d);
	/* Forget threads that are gone. */
	for (size_t i = 0; i < p->nth;) {
		struct dlt_wt_thread *t = &p->th[i];
		if (t->seen_tick == wt->tick) {
			i++;
			continue;
		}
		if (t->reported)
			dlt_wt_end(p, t, now);
		p->th[i] = p->th[--p->nth];
	}
	dlt_wt_children(wt, p);
}

static void dlt_wt_proc_free(struct dlt_wt_proc *p)
{
	if (p->cw) {
		dlt_writer_close(p->cw, &p->ct);
		free(p->cw);
	}
	if (p->hdr)
		munmap(p->hdr, 4096);
	if (p->fd >= 0)
		close(p->fd);
	free(p->th);
	free(p->name);
	free(p);
}

/* The process ended (or exec'd: its new image has a trace of its own):
 * its companion is cut and let go.  Its waits stay as last seen: a
 * process killed while waiting died in that wait. */
static void dlt_wt_proc_dead(struct dlt_wt_proc *p)
{
	p->state = DLT_WT_DEAD;
	if (p->cw) {
		dlt_writer_close(p->cw, &p->ct);
		free(p->cw);
		p->cw = NULL;
	}
	if (p->hdr) {
		munmap(p->hdr, 4096);
		p->hdr = NULL;
	}
	if (p->fd >= 0) {
		close(p->fd);
		p->fd = -1;
	}
	free(p->th);
	p->th = NULL;
	p->nth = p->capth = 0;
}

/* ---- the directory ------------------------------------------------------ */

/* HOST.PID.SEQ[.rRANK][-N].dltrace of this host; companions (".watch")
 * and others' traces are not looked at.  The pid, or 0. */
static pid_t dlt_wt_name_pid(const struct dlt_watcher *wt, const char *name)
{
	size_t hl = strlen(wt->host), nl = strlen(name);
	if (nl < 9 || strcmp(name + nl - 8, ".dltrace") != 0 ||
	    strncmp(name, wt->host, hl) != 0 || name[hl] != '.' ||
	    strstr(name, ".watch") != NULL)
		return 0;
	char *end;
	long pid = strtol(name + hl + 1, &end, 10);
	return *end == '.' && pid > 0 ? (pid_t)pid : 0;
}

static struct dlt_wt_proc *dlt_wt_new(struct dlt_watcher *wt)
{
	if (wt->nprocs == wt->cap) {
		size_t cap = wt->cap ? wt->cap * 2 : 64;
		struct dlt_wt_proc **ps = realloc(wt->procs, cap * sizeof(*ps));
		if (ps == NULL)
			return NULL;
		wt->procs = ps;
		wt->cap = cap;
	}
	struct dlt_wt_proc *p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->fd = -1;
	p->seen = true;
	p->state = DLT_WT_IGNORED;
	wt->procs[wt->nprocs++] = p;
	return p;
}

static void dlt_wt_add(struct dlt_watcher *wt, const char *name, pid_t pid)
{
	struct dlt_wt_proc *p = dlt_wt_new(wt);
	if (p == NULL || (p->name = strdup(name)) == NULL)
		return;
	p->pid = pid;
	char path[sizeof(wt->dir) + 300];
	snprintf(path, sizeof(path), "%s/%s", wt->dir, name);
	p->fd = open(path, O_RDWR | O_CLOEXEC);
	if (p->fd < 0)
		return;
	struct stat st;
	struct timespec now;
	if (fstat(p->fd, &st) == 0 && st.st_size < 4096 &&
	    clock_gettime(CLOCK_REALTIME, &now) == 0 &&
	    now.tv_sec - st.st_ctim.tv_sec < 10) {
		/* Made, its header not written yet (the writer names the file,
		 * then writes it: tracer/file.c).  Forgotten, and the
		 * directory listed again at the next look: the write changes
		 * no modification time of the directory's, so waiting for one
		 * would leave the process unwatched for good.  An empty file
		 * older than 10 s is a process killed as it made it: kept as
		 * ignored, so that it costs no listing at every look. */
		wt->nprocs--;
		dlt_wt_proc_free(p);
		wt->dir_mtime.tv_sec = wt->dir_mtime.tv_nsec = 0;
		return;
	}
	void *m =
		mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (m == MAP_FAILED || fstat(p->fd, &st) != 0 || st.st_size < 4096) {
		if (m != MAP_FAILED)
			munmap(m, 4096);
		close(p->fd);
		p->fd = -1;
		return;
	}
	p->hdr = m;
	const struct dlt_file_header *h = p->hdr;
	bool ours = memcmp(h->magic, DLT_MAGIC, 8) == 0 &&
		    h->endian == DLT_ENDIAN_MARK &&
		    h->version_major == DLT_FORMAT_MAJOR &&
		    h->version_minor >= 3 && h->pid == (uint32_t)pid &&
		    !(h->features & DLT_FEAT_WATCHER) &&
		    h->run_id == wt->run_id;
	if (!ours) {
		munmap(p->hdr, 4096);
		p->hdr = NULL;
		close(p->fd);
		p->fd = -1;
		return;
	}
	p->state = DLT_WT_IDLE;
}

/* New traces since the last listing; traces removed from the directory
 * are forgotten. */
static void dlt_wt_scan(struct dlt_watcher *wt)
{
	struct stat st;
	if (stat(wt->dir, &st) != 0)
		return;
	if (st.st_mtim.tv_sec == wt->dir_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == wt->dir_mtime.tv_nsec)
		return;
	wt->dir_mtime = st.st_mtim;
	for (size_t i = 0; i < wt->nprocs; i++)
		wt->procs[i]->seen = wt->procs[i]->name == NULL;
	DIR *d = opendir(wt->dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		pid_t pid = dlt_wt_name_pid(wt, e->d_name);
		if (pid == 0)
			continue;
		bool known = false;
		for (size_t i = 0; i < wt->nprocs && !known; i++)
			if (wt->procs[i]->name &&
			    strcmp(wt->procs[i]->name, e->d_name) == 0) {
				wt->procs[i]->seen = true;
				known = true;
			}
		if (!known)
			dlt_wt_add(wt, e->d_name, pid);
	}
	closedir(d);
	for (size_t i = 0; i < wt->nprocs;) {
		if (wt->procs[i]->seen) {
			i++;
			continue;
		}
		dlt_wt_proc_free(wt->procs[i]);
		wt->procs[i] = wt->procs[--wt->nprocs];
	}
}

int dlt_watcher_look(struct dlt_watcher *wt, int snapshot)
{
	wt->tick++;
	dlt_wt_scan(wt);
	int alive = 0;
	for (size_t i = 0; i < wt->nprocs; i++) {
		struct dlt_wt_proc *p = wt->procs[i];
		if (p->state != DLT_WT_IDLE && p->state != DLT_WT_WATCHED)
			continue;
		if (!dlt_wt_alive(wt, p)) {
			dlt_wt_proc_dead(p);
			/* No file of the directory names it: gone for good. */
			if (p->forked) {
				dlt_wt_proc_free(p);
				wt->procs[i--] = wt->procs[--wt->nprocs];
			}
			continue;
		}
		alive++;
		if (p->state == DLT_WT_IDLE &&
		    (__atomic_load_n(&p->hdr->features, __ATOMIC_ACQUIRE) &
		     DLT_FEAT_WATCH))
			dlt_wt_watch_start(wt, p);
		/* A child found at this look: from the next one on, when it
		 * has neither exec'd nor made a trace of its own. */
		if (p->state == DLT_WT_WATCHED &&
		    !(p->forked && p->found_tick == wt->tick))
			dlt_wt_proc_look(wt, p, snapshot);
	}
	return alive;
}

void dlt_watcher_free(struct dlt_watcher *wt)
{
	if (wt == NULL)
		return;
	for (size_t i = 0; i < wt->nprocs; i++)
		dlt_wt_proc_free(wt->procs[i]);
	free(wt->procs);
	free(wt->rc);
	free(wt);
}

/* ---- the host's watcher ------------------------------------------------ */

int dlt_watcher_daemon(const char *dir)
{
	/* Its first process ends at once: the process that started it reaps
	 * it and the watcher is left to init, nobody's visible child. */
	pid_t pid = fork();
	if (pid != 0)
		return pid < 0 ? 1 : 0;
	setsid();
	char lock[4096 + 300];
	/* The lock file's name spells the host as gethostname() gives it
	 * (the shim's dlt_watch_file). */
	char h[256];
	if (gethostname(h, sizeof(h)) != 0)
		h[0] = '\0';
	h[sizeof(h) - 1] = '\0';
	snprintf(lock, sizeof(lock), "%s/.dltrace-watch.%s", dir, h);
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0)
		_exit(0); /* another watcher has it */
	char err[256];
	struct dlt_watch_opts o = {dir, 0};
	struct dlt_watcher *wt = dlt_watcher_new(&o, err, sizeof(err));
	if (wt == NULL)
		_exit(1);
	uint64_t idle_ns = 0;
	bool seen = false;
	for (;;) {
		futimens(fd, NULL); /* alive: traced processes look here */
		int alive = dlt_watcher_look(wt, 0);
		uint64_t tick = dlt_watcher_tick_ns(wt);
		if (alive > 0) {
			seen = true;
			idle_ns = 0;
		} else {
			idle_ns += tick;
		}
		/* Ended with the job: 10 s without a live traced process
		 * (30 s before the first was seen). */
		if (idle_ns >= (seen ? 10ull : 30ull) * 1000000000ull)
			break;
		struct timespec ts = {(time_t)(tick / 1000000000ull),
				      (long)(tick % 1000000000ull)};
		nanosleep(&ts, NULL);
	}
	dlt_watcher_free(wt);
	unlink(lock);
	_exit(0);
}
