/* The stall watchdog: a thread that notices threads of its process staying
 * in one blocking system call, and records what they wait on.
 *
 * It only reads /proc/self/task/<tid>/{stat,syscall,wchan}, the program's
 * socket names (getpeername on the descriptor waited on) and the waiting
 * thread's stack memory (process_vm_readv, which fails cleanly where a
 * plain read would fault).  It never stops, signals or ptraces a thread, so
 * nothing the program observes changes: no EINTR, no extra signal.
 *
 * Started only in processes that look like deep-learning jobs (launcher
 * variables such as RANK or WORLD_SIZE, or a GPU library or PyTorch being
 * used), or when DLTRACE_WATCHDOG=1; DLTRACE_WATCHDOG=0 never starts it.
 * DLTRACE_STALL_MS (default 5000) is how long a wait must last; a thread
 * inside a traced call that can block (an NCCL init, a collective) has its
 * wait recorded after one tick.  Every tick also stores the time in the
 * trace's header (alive_ns): a killed process's last sign of life. */
#define _GNU_SOURCE
#include "io.h"
#include "oom.h"
#include "prefetch.h"
#include "procstat.h"
#include "pystack.h"
#include "watchdog.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "stackscan.h"
#include "state.h"
#include "sysnum.h"
#include "thread.h"

#define DLT_WD_MAX_THREADS 2048
#define DLT_WD_STACK_BYTES (32 * 1024)
#define DLT_WD_MAX_FRAMES 24

struct dlt_wd_thread {
	uint32_t tid;
	uint32_t seen_tick;
	char line[256];	   /* last /proc syscall line, sp and pc cut off */
	uint64_t since;	   /* when that line was first seen */
	uint32_t key_tick; /* last tick the wait in line was seen */
	struct dlt_rec_stall *rec; /* our record, updated in place */
	uint64_t rec_ticket;	   /* while this says it may be (record.h) */
	uint64_t rec_since;
	uint16_t rec_flags; /* the record's flags (DLT_STALL_EARLY) */
	int reported;
	/* The thread's CPU time at the last full look, and what that look
	 * saw: a thread whose CPU time has not moved has not run, so it is
	 * still in the wait in line and /proc need not be read again. */
	uint64_t cpu_ns;
	int waiting; /* blocked in the call in line */
	char state;
	long nr;
	uint64_t a[6], sp, pc;
};

static struct dlt_wd_thread dlt_wd_threads[DLT_WD_MAX_THREADS];
_Atomic int dlt_wd_started;
/* dlt_wd_threads may hold entries: a watchdog ran in this process or in
 * the parent it was forked from. */
static bool dlt_wd_dirty;
static uint32_t dlt_wd_tid;
static uint64_t dlt_wd_stall_ns;
static uint64_t dlt_wd_tick_ns;
static pid_t dlt_wd_pid;

#define DLT_WD_CALL_SLOTS 256
static struct dlt_wd_call dlt_wd_calls[DLT_WD_CALL_SLOTS];
static _Atomic uint32_t dlt_wd_calls_hi; /* slots ever taken: [0, hi) */
__thread struct dlt_wd_call *dlt_wd_my_call;

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

/* When thread tid's outermost traced blocking call began, 0 if it is in
 * none. */
static uint64_t dlt_wd_call_since(uint32_t tid)
{
	uint32_t hi =
		atomic_load_explicit(&dlt_wd_calls_hi, memory_order_relaxed);
	for (uint32_t i = 0; i < hi; i++)
		if (atomic_load_explicit(&dlt_wd_calls[i].tid,
					 memory_order_relaxed) == tid)
			return atomic_load_explicit(&dlt_wd_calls[i].since,
						    memory_order_relaxed);
	return 0;
}

/* A CPU clock's reading in ns, or UINT64_MAX (a thread that is gone). */
static uint64_t dlt_cpu_clock_ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0)
		return UINT64_MAX;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of thread tid of this process, or UINT64_MAX.  One system
 * call and no file: reading /proc/self/task/TID/{stat,syscall} for every
 * idle thread at every tick cost 1.5 ms of CPU per second with 64 threads
 * (docs/performance.md); this is what keeps idle threads cheap. */
static uint64_t dlt_thread_cpu_ns(uint32_t tid)
{
	/* The kernel's encoding of a per-thread CPU clock (what
	 * pthread_getcpuclockid builds): ~tid << 3 | CPUCLOCK_PERTHREAD |
	 * CPUCLOCK_SCHED. */
	return dlt_cpu_clock_ns((clockid_t)((~(unsigned)tid << 3) | 6u));
}

static struct dlt_wd_thread *dlt_wd_slot(uint32_t tid)
{
	uint32_t h = (tid * 2654435761u) % DLT_WD_MAX_THREADS;
	for (uint32_t i = 0; i < DLT_WD_MAX_THREADS; i++) {
		struct dlt_wd_thread *t =
			&dlt_wd_threads[(h + i) % DLT_WD_MAX_THREADS];
		if (t->tid == tid || t->tid == 0) {
			if (t->tid == 0) {
				memset(t, 0, sizeof(*t));
				t->tid = tid;
			}
			return t;
		}
	}
	return NULL;
}

static void dlt_sockname(int fd, char *buf, size_t cap)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	buf[0] = '\0';
	int peer = getpeername(fd, (struct sockaddr *)&ss, &l) == 0;
	if (!peer) {
		l = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &l) != 0)
			return;
	}
	dlt_format_sockaddr((struct sockaddr *)&ss, l, buf, cap);
	if (!peer && buf[0]) {
		size_t n = strlen(buf);
		snprintf(buf + n, cap - n, " (local, not connected)");
	}
}

/* An epoll wait names no descriptor: the ones registered in it do
 * (/proc/self/fdinfo lists them as "tfd: N"), and their peers say which
 * connections an event loop (gloo's, a store's) waits on.  Read once per
 * stall report, the first 8. */
static void dlt_epoll_detail(int epfd, char *buf, size_t cap)
{
	char path[64], info[2048], peer[160];
	size_t used = (size_t)snprintf(buf, cap, "epoll fd %d", epfd);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", epfd);
	dlt_io_read_small(path, info, sizeof(info));
	const char *p = info;
	for (int n = 0; n < 8 && used < cap && (p = strstr(p, "tfd:")); n++) {
		p += 4;
		int fd = (int)strtol(p, NULL, 10);
		dlt_sockname(fd, peer, sizeof(peer));
		if (peer[0])
			used += (size_t)snprintf(buf + used, cap - used,
						 " fd %d %s", fd, peer);
	}
}

/* What a thread in syscall nr with these arguments waits for. */
static int dlt_wait_detail(long nr, const uint64_t *a, char *buf, size_t cap)
{
	buf[0] = '\0';
	char peer[160];
	switch (nr) {
	case SYS_futex:
		snprintf(buf, cap, "futex op=%llu word=0x%llx",
			 (unsigned long long)(a[1] & 0x7f),
			 (unsigned long long)a[0]);
		return -1;
#ifdef SYS_poll /* AArch64 has ppoll only */
	case SYS_poll:
#endif
	case SYS_ppoll: {
		struct pollfd fds[8];
		uint64_t n = a[1] < 8 ? a[1] : 8;
		size_t used = (size_t)snprintf(buf, cap, "poll nfds=%llu",
					       (unsigned long long)a[1]);
		if (n == 0 || dlt_peek(fds, a[0], n * sizeof(fds[0])) !=
				      (ssize_t)(n * sizeof(fds[0])))
			return -1;
		for (uint64_t i = 0; i < n && used < cap; i++) {
			dlt_sockname(fds[i].fd, peer, sizeof(peer));
			used += (size_t)snprintf(buf + used, cap - used,
						 " fd %d%s%s", fds[i].fd,
						 peer[0] ? " " : "", peer);
		}
		return n ? fds[0].fd : -1;
	}
	case SYS_read:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_accept:
	case SYS_accept4:
	case SYS_connect:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_write: {
		int fd = (int)a[0];
		dlt_sockname(fd, peer, sizeof(peer));
		snprintf(buf, cap, "fd %d%s%s", fd, peer[0] ? " " : "", peer);
		return fd;
	}
#ifdef SYS_epoll_wait /* AArch64 has epoll_pwait only */
	case SYS_epoll_wait:
#endif
	case SYS_epoll_pwait:
		dlt_epoll_detail((int)a[0], buf, cap);
		return (int)a[0];
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
		snprintf(buf, cap, "sleeping (a wait loop if it repeats)");
		return -1;
	case SYS_wait4:
	case SYS_waitid:
		snprintf(buf, cap, "waiting for a child process");
		return -1;
	default:
		return -1;
	}
}

struct dlt_exec_range {
	uintptr_t lo, hi;
};

struct dlt_ranges {
	struct dlt_exec_range r[512];
	int n;
	unsigned long long subs; /* objects unloaded so far (dlpi_subs) */
};

static int dlt_collect_exec(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct dlt_ranges *rs = data;
	rs->subs = info->dlpi_subs;
	for (int i = 0; i < info->dlpi_phnum && rs->n < 512; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		rs->r[rs->n].lo = info->dlpi_addr + ph->p_vaddr;
		rs->r[rs->n].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		rs->n++;
	}
	return 0;
}

static int dlt_in_exec(const struct dlt_ranges *rs, uint64_t a)
{
	for (int i = 0; i < rs->n; i++)
		if (a >= rs->r[i].lo && a < rs->r[i].hi)
			return 1;
	return 0;
}

static void dlt_symbolize(uint64_t pc, char *buf, size_t cap)
{
	Dl_info info;
	if (dladdr((void *)(uintptr_t)pc, &info) && info.dli_fname) {
		const char *b = strrchr(info.dli_fname, '/');
		b = b ? b + 1 : info.dli_fname;
		if (info.dli_sname && info.dli_saddr)
			snprintf(buf, cap, "%s!%s+0x%llx", b, info.dli_sname,
				 (unsigned long long)(pc - (uintptr_t)info
								   .dli_saddr));
		else
			snprintf(buf, cap, "%s+0x%llx", b,
				 (unsigned long long)(pc - (uintptr_t)info
								   .dli_fbase));
	} else {
		snprintf(buf, cap, "0x%llx", (unsigned long long)pc);
	}
}

/* Symbolized return addresses: threads blocked in one place share their
 * frames, and dladdr walks a whole symbol table per address. */
struct dlt_sym_cache {
	uint64_t pc;
	unsigned long long subs; /* an unload may put other code at pc */
	uint32_t gen;		 /* writer generation the string id is of */
	uint32_t id;
};
static struct dlt_sym_cache dlt_sym_cache[1024];

static uint32_t dlt_frame_str(struct dlt_writer *w, uint64_t pc,
			      unsigned long long subs)
{
	struct dlt_sym_cache *c =
		&dlt_sym_cache[(pc * 0x9e3779b97f4a7c15ull) >> 54];
	uint32_t gen = atomic_load(&w->gen);
	if (c->pc == pc && c->gen == gen && c->subs == subs &&
	    c->id != DLT_STR_NONE)
		return c->id;
	char sym[512];
	dlt_symbolize(pc, sym, sizeof(sym));
	c->pc = pc;
	c->subs = subs;
	c->gen = gen;
	c->id = dlt_str(w, &dlt_tls, sym);
	return c->id;
}

/* The stack of a blocked thread, by scanning its stack memory for return
 * addresses (values inside executable code that follow a call
 * instruction).  A heuristic: it can show a stale frame, never a wrong
 * thread; good enough to see "ncclCommInitRank -> bootstrap -> recv". */
static void dlt_wd_stack(struct dlt_writer *w, uint32_t tid, uint64_t sp,
			 uint64_t pc)
{
	static uint64_t words[DLT_WD_STACK_BYTES / 8];
	static struct dlt_ranges rs;
	rs.n = 0;
	dl_iterate_phdr(dlt_collect_exec, &rs);
	ssize_t got = 0;
	for (size_t want = sizeof(words); want >= 4096 && got <= 0; want /= 2)
		got = dlt_peek(words, sp, want);
	if (got <= 0)
		got = 0;
	uint32_t frames[DLT_WD_MAX_FRAMES];
	uint32_t n = 0;
	frames[n++] = dlt_frame_str(w, pc, rs.subs);
	for (size_t i = 0; i < (size_t)got / 8 && n < DLT_WD_MAX_FRAMES; i++) {
		uint64_t v = words[i];
		if (!dlt_in_exec(&rs, v) || !dlt_after_call(v))
			continue;
		uint32_t id = dlt_frame_str(w, v, rs.subs);
		/* Stale copies of one address in a frame are noise. */
		if (id != frames[n - 1])
			frames[n++] = id;
	}
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_stack) + 4 * n);
	struct dlt_rec_stack *r = dlt_rec_reserve(w, &dlt_tls, len);
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->tid = tid;
	r->n = n;
	r->pc = pc;
	memcpy(r->frames, frames, 4 * n);
	dlt_rec_commit(r, DLT_REC_STACK, 0, len);
}

/* The thread's STALL record can take the wait's new duration. */
static int dlt_wd_rec_open(struct dlt_writer *w, const struct dlt_wd_thread *t)
{
	return t->rec && t->rec_since == t->since &&
	       dlt_rec_in_place(w, &dlt_tls, t->rec_ticket);
}

static void dlt_wd_report(struct dlt_writer *w, struct dlt_wd_thread *t,
			  long nr, const uint64_t *a, char state, uint64_t now,
			  uint16_t flags)
{
	uint64_t dur = now - t->since;
	if (dlt_wd_rec_open(w, t)) {
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
	char path[64], wchan[128], detail[512];
	snprintf(path, sizeof(path), "/proc/self/task/%u/wchan", t->tid);
	dlt_io_read_small(path, wchan, sizeof(wchan));
	int fd = dlt_wait_detail(nr, a, detail, sizeof(detail));
	uint32_t ws = wchan[0] && strcmp(wchan, "0")
			      ? dlt_str(w, &dlt_tls, wchan)
			      : DLT_STR_NONE;
	uint32_t ds = detail[0] ? dlt_str(w, &dlt_tls, detail) : DLT_STR_NONE;
	struct dlt_rec_stall *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = now;
	r->tid = t->tid;
	r->syscall = (int32_t)dlt_sysnum_trace(nr);
	for (int i = 0; i < 6; i++)
		r->args[i] = a[i];
	r->since = t->since;
	r->dur_ns = dur;
	r->wchan = ws;
	r->detail = ds;
	r->fd = fd;
	r->state = (uint8_t)state;
	r->ended = 0;
	r->pad = 0;
	dlt_rec_commit(r, DLT_REC_STALL, flags, sizeof(*r));
	t->rec = r;
	t->rec_ticket = dlt_rec_ticket(&dlt_tls);
	t->rec_since = t->since;
	t->rec_flags = flags;
}

static void dlt_wd_end(struct dlt_writer *w, struct dlt_wd_thread *t,
		       uint64_t now)
{
	if (dlt_wd_rec_open(w, t)) {
		atomic_store((_Atomic uint64_t *)&t->rec->dur_ns,
			     now - t->since);
		atomic_store((_Atomic uint8_t *)&t->rec->ended, 1);
	}
	t->rec = NULL;
	t->reported = 0;
}

static char dlt_wd_snapfile[DLT_PATH_MAX + 32];
static struct timespec dlt_wd_snap_mtime;

/* The launcher's --hang-timeout asks for a snapshot by creating a file in
 * the trace directory: report every waiting thread now, threshold or not. */
static int dlt_wd_snapshot_asked(void)
{
	struct stat st;
	if (dlt_wd_snapfile[0] == '\0' || stat(dlt_wd_snapfile, &st) != 0)
		return 0;
	if (st.st_mtim.tv_sec == dlt_wd_snap_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == dlt_wd_snap_mtime.tv_nsec)
		return 0;
	dlt_wd_snap_mtime = st.st_mtim;
	return 1;
}

/* Thread t has waited in one call for the threshold, or for a tick inside
 * a traced call that can block, or a snapshot was asked for: record it,
 * with its stack the first time. */
static void dlt_wd_waiting(struct dlt_writer *w, struct dlt_wd_thread *t,
			   uint64_t now, int snapshot)
{
	uint16_t flags = 0;
	if (now - t->since < dlt_wd_stall_ns && !snapshot) {
		/* Seen in this wait at two ticks in a row, inside a traced
		 * call open for a tick at least: a hung init or collective
		 * killed before the threshold still shows its wait. */
		uint64_t call = dlt_wd_call_since(t->tid);
		if (call == 0 || now - call < dlt_wd_tick_ns ||
		    now - t->since < dlt_wd_tick_ns)
			return;
		flags = DLT_STALL_EARLY;
	}
	dlt_wd_report(w, t, t->nr, t->a, t->state, now, flags);
	if (!t->reported) {
		t->reported = 1;
		dlt_wd_stack(w, t->tid, t->sp, t->pc);
		/* A Python loaded since the last look is found now. */
		if (dlt_cfg.pystack) {
			dlt_pystack_prepare();
			if (dlt_pystack_present())
				dlt_pystack_record((pid_t)t->tid, 0, 0);
		}
	}
}

/* One look at thread t: is it still in the wait it was in, for how long. */
static void dlt_wd_look(struct dlt_writer *w, struct dlt_wd_thread *t,
			uint32_t tick, uint64_t now, int snapshot, uint64_t cpu)
{
	uint32_t tid = t->tid;
	t->seen_tick = tick;
	if (cpu != UINT64_MAX && cpu == t->cpu_ns && t->waiting) {
		t->key_tick = tick;
		dlt_wd_waiting(w, t, now, snapshot);
		return;
	}
	t->cpu_ns = cpu;
	t->waiting = 0;
	char path[64], stat[512], sc[256];
	snprintf(path, sizeof(path), "/proc/self/task/%u/stat", tid);
	dlt_io_read_small(path, stat, sizeof(stat));
	struct dlt_procstat ps;
	dlt_procstat_parse(stat, &ps);
	char state = ps.state ? ps.state : '?';
	snprintf(path, sizeof(path), "/proc/self/task/%u/syscall", tid);
	dlt_io_read_small(path, sc, sizeof(sc));
	long nr = -1;
	unsigned long long a[6] = {0}, sp = 0, pc = 0;
	int got = sscanf(sc, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &nr,
			 &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &sp, &pc);
	int blocked = (state == 'S' || state == 'D') && got == 9 && nr >= 0;
	if (blocked) {
		t->state = state;
		t->nr = nr;
		for (int i = 0; i < 6; i++)
			t->a[i] = a[i];
		t->sp = sp;
		t->pc = pc;
	}
	/* The same call with the same arguments, however often it
	 * returned in between: a wait loop is one wait. */
	char key[256];
	if (blocked)
		snprintf(key, sizeof(key), "%ld %llx %llx %llx %llx %llx %llx",
			 nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	else
		key[0] = '\0';
	if (!blocked || strcmp(key, t->line) != 0) {
		/* A wait loop (a store polled between sleeps) is
		 * sometimes caught between two waits: the wait goes
		 * on if it is back within two ticks. */
		if (t->line[0] && tick - t->key_tick <= 2)
			return;
		if (t->reported)
			dlt_wd_end(w, t, now);
		snprintf(t->line, sizeof(t->line), "%s", key);
		t->since = now;
		t->key_tick = tick;
		t->waiting = blocked;
		return;
	}
	t->key_tick = tick;
	t->waiting = 1;
	dlt_wd_waiting(w, t, now, snapshot);
}

/* Number of threads of this process (/proc/self/stat field 20), or -1. */
static int dlt_wd_nthreads(void)
{
	char buf[1024];
	if (dlt_io_read_small("/proc/self/stat", buf, sizeof(buf)) == 0)
		return -1;
	struct dlt_procstat st;
	if (dlt_procstat_parse(buf, &st) != 0 || st.num_threads <= 0)
		return -1;
	return (int)st.num_threads;
}

static int dlt_wd_last_n; /* threads the last directory read found */

/* CPU time of every other thread of the process, as an interval: the
 * watchdog runs between the reads of the process clock and its own. */
struct dlt_cpu_span {
	uint64_t lo, hi;
};
static struct dlt_cpu_span dlt_wd_others;
static uint32_t dlt_wd_full_tick;

/* Nothing but the watchdog has run since the last tick: every thread is
 * where it was, and one look at three clocks replaces one per thread.
 * A thread that ran for less than the width of the interval (a few
 * microseconds) can be missed; a full look every 10 ticks bounds that. */
static int dlt_wd_nothing_ran(uint32_t tick)
{
	uint64_t s1 = dlt_cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t p = dlt_cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t s2 = dlt_cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	struct dlt_cpu_span now = {p - s2, p - s1};
	struct dlt_cpu_span last = dlt_wd_others;
	dlt_wd_others = now;
	if (p == UINT64_MAX || s1 == UINT64_MAX || s2 == UINT64_MAX ||
	    tick - dlt_wd_full_tick >= 10)
		return 0;
	return now.lo <= last.hi && last.lo <= now.hi;
}

static void dlt_wd_scan(struct dlt_writer *w, uint32_t tick, int snapshot)
{
	uint64_t now = dlt_now_ns();
	if (!snapshot && dlt_wd_nothing_ran(tick)) {
		for (uint32_t i = 0; i < DLT_WD_MAX_THREADS; i++) {
			struct dlt_wd_thread *t = &dlt_wd_threads[i];
			if (t->tid == 0)
				continue;
			t->seen_tick = tick;
			if (!t->waiting)
				continue;
			t->key_tick = tick;
			dlt_wd_waiting(w, t, now, 0);
		}
		return;
	}
	dlt_wd_full_tick = tick;
	/* Listing /proc/self/task costs more than everything else a tick
	 * does for idle threads.  Same number of threads as last time and
	 * every known one still there (its CPU clock answers) means the same
	 * threads: the list is not read. */
	int known_ok = dlt_wd_last_n > 0 && dlt_wd_nthreads() == dlt_wd_last_n;
	for (uint32_t i = 0; known_ok && i < DLT_WD_MAX_THREADS; i++) {
		struct dlt_wd_thread *t = &dlt_wd_threads[i];
		if (t->tid == 0)
			continue;
		uint64_t cpu = dlt_thread_cpu_ns(t->tid);
		if (cpu == UINT64_MAX)
			known_ok = 0;
		else
			dlt_wd_look(w, t, tick, now, snapshot, cpu);
	}
	if (!known_ok) {
		DIR *d = opendir("/proc/self/task");
		if (d == NULL)
			return;
		int n = 0;
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			uint32_t tid = (uint32_t)strtoul(e->d_name, NULL, 10);
			if (tid == 0)
				continue;
			n++;
			if (tid == dlt_wd_tid ||
			    tid == atomic_load(&dlt_pf_tid))
				continue;
			struct dlt_wd_thread *t = dlt_wd_slot(tid);
			if (t == NULL || t->seen_tick == tick)
				continue;
			dlt_wd_look(w, t, tick, now, snapshot,
				    dlt_thread_cpu_ns(tid));
		}
		closedir(d);
		dlt_wd_last_n = n;
	}
	/* Forget threads that are gone, so their slots can be reused. */
	for (uint32_t i = 0; i < DLT_WD_MAX_THREADS; i++)
		if (dlt_wd_threads[i].tid &&
		    dlt_wd_threads[i].seen_tick != tick) {
			if (dlt_wd_threads[i].reported)
				dlt_wd_end(w, &dlt_wd_threads[i], now);
			dlt_wd_threads[i].tid = 0;
		}
}

/* The last sign of life: one store in the header, which stays mapped for
 * the life of the file (a header field, not a record, so that it never
 * needs a chunk). */
static void dlt_wd_heartbeat(struct dlt_writer *w)
{
	if (w->hdr)
		atomic_store_explicit((_Atomic uint64_t *)&w->hdr->alive_ns,
				      dlt_now_ns(), memory_order_relaxed);
}

/* The peak resident set beside the heartbeat: what a process the
 * out-of-memory killer ended had reached by its last tick.  One system
 * call (getrusage), no file. */
static void dlt_wd_rss(struct dlt_writer *w)
{
	struct rusage ru;
	if (w->hdr && getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > 0)
		atomic_store_explicit((_Atomic uint64_t *)&w->hdr->rss_peak_kb,
				      (uint64_t)ru.ru_maxrss,
				      memory_order_relaxed);
}

static bool dlt_wd_forked; /* see dlt_watchdog_after_fork */

/* The first tick of a forked child's watchdog: the table is the parent's
 * (its threads, their records in the parent's file), and the child has no
 * trace yet.  Clearing the table here, not at the fork, spares a child
 * that only execs the copy of its pages; the NOTE makes the child's trace,
 * which names the fork's parent. */
static void dlt_wd_forked_first_tick(struct dlt_writer *w)
{
	dlt_wd_forked = false;
	for (uint32_t i = 0; i < DLT_WD_MAX_THREADS; i++)
		if (dlt_wd_threads[i].tid)
			memset(&dlt_wd_threads[i], 0,
			       sizeof(dlt_wd_threads[i]));
	/* The first scan reads /proc whatever the clocks say. */
	dlt_wd_last_n = 0;
	dlt_wd_others = (struct dlt_cpu_span){UINT64_MAX, 0};
	char text[160];
	snprintf(text, sizeof(text),
		 "stall watchdog started (forked from a watched process), "
		 "threshold %llu ms, tick %llu ms",
		 (unsigned long long)(dlt_wd_stall_ns / 1000000),
		 (unsigned long long)(dlt_wd_tick_ns / 1000000));
	dlt_note(w, &dlt_tls, DLT_NOTE_INFO, text);
}

static void *dlt_wd_main(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "dltrace-wd", 0, 0, 0);
	dlt_wd_tid = (uint32_t)syscall(SYS_gettid);
	if (dlt_cfg.pystack)
		dlt_pystack_prepare();
	uint64_t tick_ns = dlt_wd_tick_ns;
	struct timespec ts = {(time_t)(tick_ns / 1000000000ull),
			      (long)(tick_ns % 1000000000ull)};
	/* The cgroup this process is in, read here rather than in the
	 * program's thread: the "before" of its own death.  Not in a forked
	 * child: it is in its parent's cgroup, whose watchdog read it, and a
	 * record now would make the trace of a child that may only exec. */
	if (!dlt_wd_forked)
		dlt_oom_own();
	for (uint32_t tick = 1;; tick++) {
		nanosleep(&ts, NULL);
		struct dlt_writer *w = dlt_writer_on();
		if (w == NULL || w->pid != getpid())
			continue;
		/* A forked child's first look only learns where its threads
		 * wait (a first look reports nothing): a snapshot asked now
		 * is taken at the next tick, within the two the launcher
		 * gives. */
		int first = dlt_wd_forked;
		if (first)
			dlt_wd_forked_first_tick(w);
		dlt_wd_heartbeat(w);
		dlt_wd_rss(w);
		dlt_wd_scan(w, tick, first ? 0 : dlt_wd_snapshot_asked());
	}
	return NULL;
}

void dlt_watchdog_start(const char *why)
{
	if (dlt_w == NULL || atomic_exchange(&dlt_wd_started, 1))
		return;
	/* Decided once: "started" also means "chose not to". */
	if (dlt_cfg.watchdog == 0)
		return;
	dlt_wd_stall_ns = dlt_cfg.stall_ns;
	dlt_wd_tick_ns = dlt_wd_stall_ns / 5;
	if (dlt_wd_tick_ns < 100000000ull)
		dlt_wd_tick_ns = 100000000ull;
	if (dlt_wd_tick_ns > 1000000000ull)
		dlt_wd_tick_ns = 1000000000ull;
	dlt_wd_pid = getpid();
	snprintf(dlt_wd_snapfile, sizeof(dlt_wd_snapfile),
		 "%s/.dltrace-snapshot",
		 dlt_cfg.dir_abs[0] ? dlt_cfg.dir_abs : dlt_cfg.dir);
	int saved = errno;
	dlt_wd_dirty = true;
	int r = dlt_start_thread(dlt_wd_main, NULL, 256 * 1024);
	struct dlt_writer *w = dlt_writer_on();
	if (r != 0) {
		atomic_store(&dlt_wd_started, 0);
	} else if (w) {
		char text[160];
		snprintf(text, sizeof(text),
			 "stall watchdog started (%s), threshold %llu ms, "
			 "tick %llu ms",
			 why, (unsigned long long)(dlt_wd_stall_ns / 1000000),
			 (unsigned long long)(dlt_wd_tick_ns / 1000000));
		dlt_note(w, &dlt_tls, DLT_NOTE_INFO, text);
		dlt_wd_heartbeat(w);
	}
	errno = saved;
}

/* A forked child of a process whose watchdog runs gets one from the fork
 * on: the thread did not survive the fork, and a child that records
 * nothing (a DataLoader worker stuck in __getitem__, any process that only
 * computes or sleeps) would otherwise be watched by no one.  The thread
 * does nothing for a tick: a child that only execs is gone by then, and
 * pays for the thread's creation only (docs/design.md, "The stall
 * watchdog"; docs/performance.md). */
static void dlt_wd_start_forked(void)
{
	dlt_wd_forked = true;
	/* Not started: a later dlt_watchdog_start tries again, and its
	 * thread still clears the parent's table first. */
	if (dlt_start_thread(dlt_wd_main, NULL, 256 * 1024) != 0)
		atomic_store(&dlt_wd_started, 0);
}

void dlt_watchdog_after_fork(void)
{
	/* Each variable is written only when it changes: in the child of a
	 * shell that only execs, a store copies its page (a fault each). */
	int was = atomic_load(&dlt_wd_started)
			  ? atomic_exchange(&dlt_wd_started, 0)
			  : 0;
	/* Only the forking thread lives on, under another id; the slots
	 * were written only if some thread made a traced blocking call. */
	uint32_t hi = atomic_load(&dlt_wd_calls_hi)
			      ? atomic_exchange(&dlt_wd_calls_hi, 0)
			      : 0;
	if (hi)
		memset(dlt_wd_calls, 0, sizeof(dlt_wd_calls[0]) * hi);
	if (dlt_wd_my_call)
		dlt_wd_my_call = NULL;
	/* The table is dirty only where a watchdog thread ran ("started"
	 * also means "chose not to"): the child's own thread clears it at
	 * its first tick. */
	if (was && dlt_wd_dirty) {
		atomic_store(&dlt_wd_started, 1);
		dlt_wd_start_forked();
	}
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
