/* dltrace: runs a command with libdltrace.so injected, waits for it, adds
 * the exit status it saw to the command's trace and prints a short verdict.
 *
 * It exits with the command's status (128+N when a signal N killed it), so
 * it can stand in front of any command in a script or a job file. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "dltrace/version.h"
#include "dltrace/format.h"
#include "io.h"
#include "memcg.h"
#include "procstat.h"
#include "record.h"
#include "watch.h"

#define DLT_SHORT_USAGE                                                       \
	"usage: dltrace [-o DIR] [-q] [--redact-argv] [--hang-timeout SEC]\n" \
	"               [--require-trace] [--report FILE] [--] COMMAND "      \
	"[ARGS...]\n"

/* A mistake in the options: the usage line and where the rest is. */
static int bad_usage(void)
{
	fputs(DLT_SHORT_USAGE "Try 'dltrace --help' for more.\n", stderr);
	return 2;
}

static void usage(FILE *f)
{
	fprintf(f, DLT_SHORT_USAGE
		"\n"
		"Runs COMMAND (and every process it starts) with dltrace's "
		"library\n"
		"injected, writes one trace per process into DIR and prints a "
		"short\n"
		"verdict when COMMAND ends.  Exits with COMMAND's status.\n"
		"\n"
		"  -o, --output DIR   trace directory (created if missing; "
		"default: a new\n"
		"                     dltrace-YYYYmmdd-HHMMSS directory here)\n"
		"  -q, --quiet        no verdict\n"
		"      --redact-argv  record argv[0] only\n"
		"      --hang-timeout SEC\n"
		"                     if COMMAND runs longer: record what "
		"every "
		"thread\n"
		"                     waits on, end the process tree (TERM, "
		"then "
		"KILL),\n"
		"                     print the hang verdict, exit 124\n"
		"      --require-trace\n"
		"                     do not run COMMAND when its traces "
		"cannot be\n"
		"                     written (exit 2); also "
		"DLTRACE_REQUIRE_TRACE=1.\n"
		"                     Without it COMMAND runs untraced.\n"
		"      --report FILE  when COMMAND ends, write the HTML report "
		"of DIR\n"
		"                     to FILE (dltrace-analyze report -o FILE "
		"DIR)\n"
		"  -h, --help         this text\n"
		"  -V, --version      version\n"
		"\n"
		"Then: dltrace-analyze summary DIR, dltrace-analyze libs "
		"DIR.\n");
}

/* The directories the launcher made for the traces, deepest last: taken
 * away again when the command could not be started and they are empty. */
struct made_dirs {
	char path[16][PATH_MAX];
	int n;
};

static int mkdir_one(const char *path, struct made_dirs *made)
{
	if (mkdir(path, 0755) == 0) {
		if (made->n < 16)
			snprintf(made->path[made->n++], PATH_MAX, "%s", path);
		return 0;
	}
	return errno == EEXIST ? 0 : -1;
}

static int mkdir_p(const char *path, struct made_dirs *made)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir_one(buf, made) != 0)
			return -1;
		*p = '/';
	}
	return mkdir_one(buf, made);
}

/* rmdir leaves a directory that is not empty. */
static void unmake_dirs(struct made_dirs *made)
{
	while (made->n > 0)
		rmdir(made->path[--made->n]);
}

/* The trace directory, made if missing and resolved into dir; 0, or an
 * errno that says why no trace can be written there. */
static int prepare_dir(const char *out, char *dir, struct made_dirs *made)
{
	if (mkdir_p(out, made) != 0)
		return errno;
	struct stat st;
	if (stat(out, &st) != 0)
		return errno;
	/* mkdir says EEXIST for a file of that name too. */
	if (!S_ISDIR(st.st_mode))
		return ENOTDIR;
	if (access(out, W_OK | X_OK) != 0)
		return errno;
	if (realpath(out, dir) == NULL)
		return errno;
	return 0;
}

/* libdltrace.so next to us: build tree (bin/ and lib/), or installed
 * (PREFIX/bin and PREFIX/lib). */
static int find_library(char *out)
{
	const char *env = getenv("DLTRACE_LIB");
	if (env && *env) {
		if (realpath(env, out) && access(out, R_OK) == 0)
			return 0;
		fprintf(stderr, "dltrace: DLTRACE_LIB=%s: not readable\n", env);
		return -1;
	}
	char exe[PATH_MAX];
	snprintf(exe, sizeof(exe), "%s", dlt_exe_path());
	if (exe[0] == '\0')
		return -1;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	static const char *const rel[] = {"../lib/libdltrace.so",
					  "libdltrace.so",
					  "../lib/dltrace/libdltrace.so", NULL};
	for (const char *const *r = rel; *r; r++) {
		char cand[PATH_MAX + 64];
		snprintf(cand, sizeof(cand), "%s/%s", exe, *r);
		if (realpath(cand, out) && access(out, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* The LD_AUDIT module: libdltrace-audit.so beside the library, which
 * brings no C library of its own into every traced process
 * (docs/design.md, "One library, two roles"); the library itself, which
 * is a whole audit module too, where it is missing (a copy of
 * libdltrace.so alone, DLTRACE_LIB). */
static void find_audit_module(const char *lib, char *out, size_t cap)
{
	const char *slash = strrchr(lib, '/');
	int n = slash ? snprintf(out, cap, "%.*s/libdltrace-audit.so",
				 (int)(slash - lib), lib)
		      : -1;
	if (n > 0 && (size_t)n < cap && access(out, R_OK) == 0)
		return;
	snprintf(out, cap, "%s", lib);
}

static void prepend_env(const char *name, const char *value)
{
	const char *old = getenv(name);
	if (old && *old) {
		size_t n = strlen(value) + strlen(old) + 2;
		char *v = malloc(n);
		if (v == NULL)
			return;
		snprintf(v, n, "%s:%s", value, old);
		setenv(name, v, 1);
		free(v);
	} else {
		setenv(name, value, 1);
	}
}

/* Calls fn with the path and header of each trace of run in dir, its
 * companions left out. */
static int each_trace_of_run(const char *dir, uint64_t run,
			     void (*fn)(void *ctx, const char *path,
					const struct dlt_file_header *h),
			     void *ctx)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 8 || strcmp(e->d_name + l - 8, ".dltrace") != 0)
			continue;
		char path[PATH_MAX + 256];
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
		    (int)sizeof(path))
			continue;
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		struct dlt_file_header h;
		int r = dlt_io_pread_all(fd, &h, sizeof(h), 0);
		close(fd);
		/* A watcher's companion has its process's pid, image and
		 * run, but the process's own records go into its own trace. */
		if (r == 0 && memcmp(h.magic, DLT_MAGIC, 8) == 0 &&
		    h.run_id == run && (h.features & DLT_FEAT_WATCHER) == 0)
			fn(ctx, path, &h);
	}
	closedir(d);
	return 0;
}

/* The first signal passed on, and who sent it to the launcher: the child
 * sees the launcher as its sender, so the launcher's own record in the
 * child's trace says where the signal came from.  The sender's name is
 * read at once, while it still runs. */
static volatile sig_atomic_t fwd_sig;
static volatile sig_atomic_t fwd_code;
static volatile sig_atomic_t fwd_pid;
static volatile sig_atomic_t fwd_uid;
static char fwd_comm[32];

struct last_image {
	pid_t pid;
	char *out;
	size_t cap;
	uint32_t best_seq;
	int found;
};

static void last_image_of(void *ctx, const char *path,
			  const struct dlt_file_header *h)
{
	struct last_image *li = ctx;
	if (h->pid != (uint32_t)li->pid || h->parent_kind == DLT_PARENT_FORK)
		return;
	if (li->found < 0 || h->exec_seq >= li->best_seq) {
		li->best_seq = h->exec_seq;
		snprintf(li->out, li->cap, "%s", path);
		li->found = 0;
	}
}

/* The trace of the last image of process pid in this run: the one with
 * that pid and the highest exec_seq (a pid of an earlier run in the same
 * directory is another process). */
static int find_trace_of(const char *dir, pid_t pid, uint64_t run, char *out,
			 size_t cap)
{
	struct last_image li = {pid, out, cap, 0, -1};
	each_trace_of_run(dir, run, last_image_of, &li);
	return li.found;
}

/* What the launcher learned about the command's end besides its status:
 * the memory cgroup before the command started and after it ended (the
 * out-of-memory killer's evidence) and its peak RSS. */
struct end_facts {
	struct dlt_memcg before, after;
	uint64_t before_ts;
	uint64_t max_rss_kb;
};

static void record_reaped(const char *dir, pid_t pid, uint64_t run, int status,
			  const struct end_facts *ef)
{
	char path[PATH_MAX + 256];
	if (find_trace_of(dir, pid, run, path, sizeof(path)) != 0)
		return;
	static struct dlt_writer w;
	static struct dlt_tls t;
	/* The limit the command had, which the launcher shares. */
	const char *ms = getenv("DLTRACE_MAX_SIZE");
	if (dlt_writer_attach(&w, path, ms ? dlt_parse_size(ms) : 0) != 0)
		return;
	/* No room for the status (the command's RLIMIT_FSIZE, which the
	 * launcher may share, DLTRACE_MAX_SIZE, a full disk): the record is
	 * left out without a "tracing turned off" line, which would be about
	 * a process that has ended, after the one it printed itself. */
	atomic_store(&w.said, 1);
	dlt_memcg_record(&w, &t, DLT_MEMCG_START, (uint32_t)pid, 0, 0,
			 &ef->before, ef->before_ts);
	dlt_memcg_record(&w, &t, DLT_MEMCG_DEATH, (uint32_t)pid, status,
			 ef->max_rss_kb, &ef->after, 0);
	struct dlt_rec_exit *r = dlt_rec_reserve(&w, &t, sizeof(*r));
	if (r) {
		r->h.ts = dlt_now_ns();
		r->status = status;
		r->pad = 0;
		dlt_rec_commit(r, DLT_REC_EXIT, DLT_EXIT_REAPED, sizeof(*r));
	}
	if (fwd_sig) {
		struct dlt_rec_signal *g = dlt_rec_reserve(&w, &t, sizeof(*g));
		if (g) {
			memset((char *)g + sizeof(g->h), 0,
			       sizeof(*g) - sizeof(g->h));
			g->h.ts = dlt_now_ns();
			g->signo = fwd_sig;
			g->code = fwd_code;
			g->sender_pid = fwd_pid;
			g->sender_uid = (uint32_t)fwd_uid;
			memcpy(g->sender_comm, fwd_comm,
			       strnlen(fwd_comm, sizeof(g->sender_comm) - 1));
			g->tid = (uint32_t)getpid();
			dlt_rec_commit(g, DLT_REC_SIGNAL, DLT_SIG_FORWARDED,
				       sizeof(*g));
		}
	}
	dlt_writer_forget(&w);
}

/* The signals --hang-timeout sent, to be recorded in the trace of each
 * process that got one once they are all gone. */
struct sent {
	pid_t pid;
	int sig;
	int err;
	uint64_t ts;
};
static struct sent dlt_sent[8192];
static size_t dlt_nsent;

/* Each signalled pid's trace in this run: its last image, the one that
 * started last before the signal. */
struct kill_targets {
	char (*best)[PATH_MAX + 256];
	uint64_t *best_start; /* + 1; 0 none */
};

static void kill_target(void *ctx, const char *path,
			const struct dlt_file_header *h)
{
	struct kill_targets *kt = ctx;
	for (size_t i = 0; i < dlt_nsent; i++) {
		if (dlt_sent[i].pid != (pid_t)h->pid ||
		    h->start_monotonic_ns > dlt_sent[i].ts ||
		    h->start_realtime_ns + 1 <= kt->best_start[i])
			continue;
		kt->best_start[i] = h->start_realtime_ns + 1;
		snprintf(kt->best[i], sizeof(kt->best[i]), "%s", path);
	}
}

/* One pass over the directory for all of them. */
static void record_kills(const char *dir, uint64_t run)
{
	if (dlt_nsent == 0)
		return;
	struct kill_targets kt = {calloc(dlt_nsent, sizeof(*kt.best)),
				  calloc(dlt_nsent, sizeof(*kt.best_start))};
	if (kt.best && kt.best_start &&
	    each_trace_of_run(dir, run, kill_target, &kt) == 0) {
		const char *ms = getenv("DLTRACE_MAX_SIZE");
		for (size_t i = 0; i < dlt_nsent; i++) {
			static struct dlt_writer w;
			static struct dlt_tls t;
			if (kt.best_start[i] == 0 ||
			    dlt_writer_attach(&w, kt.best[i],
					      ms ? dlt_parse_size(ms) : 0) != 0)
				continue;
			atomic_store(&w.said, 1);
			struct dlt_rec_kill *r =
				dlt_rec_reserve(&w, &t, sizeof(*r));
			if (r) {
				r->h.ts = dlt_sent[i].ts;
				r->pid = (uint32_t)dlt_sent[i].pid;
				r->signal = dlt_sent[i].sig;
				r->err = dlt_sent[i].err;
				r->pad = 0;
				dlt_rec_commit(r, DLT_REC_KILL,
					       DLT_KILL_HANG_TIMEOUT,
					       sizeof(*r));
			}
			dlt_writer_forget(&w);
		}
	}
	free(kt.best);
	free(kt.best_start);
}

/* Waits up to secs for pid; 1 if it ended and was reaped (status filled),
 * 0 on timeout, -1 when it cannot be waited for. */
static int wait_with_timeout(pid_t pid, double secs, int *status,
			     struct rusage *ru)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = wait4(pid, status, WNOHANG, ru);
		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		double el = (double)(now.tv_sec - t0.tv_sec) +
			    (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (el >= secs)
			return 0;
		struct timespec d = {0, 50 * 1000 * 1000};
		nanosleep(&d, NULL);
	}
}

/* pid and every descendant, from /proc (the command may have started its
 * own process groups and sessions). */
static size_t tree_of(pid_t root, pid_t *out, size_t cap)
{
	size_t n = 0;
	out[n++] = root;
	for (size_t i = 0; i < n; i++) {
		DIR *d = opendir("/proc");
		if (d == NULL)
			break;
		struct dirent *e;
		while ((e = readdir(d)) != NULL && n < cap) {
			pid_t p = (pid_t)atoi(e->d_name);
			if (p <= 0)
				continue;
			char path[64];
			snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
			struct dlt_procstat st;
			if (dlt_procstat_read(path, &st) != 0 && st.ppid == 0)
				continue;
			if (st.ppid == out[i]) {
				int dup = 0;
				for (size_t k = 0; k < n; k++)
					dup |= out[k] == p;
				if (!dup)
					out[n++] = p;
			}
		}
		closedir(d);
	}
	return n;
}

static void signal_list(const pid_t *pids, size_t n, int sig)
{
	/* Children first, so that no parent reacts to a child's death by
	 * starting another. */
	for (size_t i = n; i-- > 0;) {
		int err = kill(pids[i], sig) == 0 ? 0 : errno;
		/* A process already gone got nothing. */
		if (err == ESRCH ||
		    dlt_nsent >= sizeof(dlt_sent) / sizeof(dlt_sent[0]))
			continue;
		dlt_sent[dlt_nsent++] =
			(struct sent){pids[i], sig, err, dlt_now_ns()};
	}
}

/* The watcher of this run (watcher/watch.c), in a thread of the
 * launcher, which is no process of the traced tree: it looks at every
 * process of the run that asked to be watched, a look per tick, and takes
 * the snapshot of --hang-timeout when asked. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct dlt_watcher *wt;
	int stop;
	int snap_asked, snap_done;
	pthread_t th;
	int running;
} watch = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void *watch_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&watch.mu);
	while (!watch.stop) {
		int snap = watch.snap_asked;
		pthread_mutex_unlock(&watch.mu);
		dlt_watcher_look(watch.wt, snap);
		pthread_mutex_lock(&watch.mu);
		if (snap) {
			watch.snap_asked = 0;
			watch.snap_done = 1;
			pthread_cond_broadcast(&watch.cv);
		}
		if (watch.stop || watch.snap_asked)
			continue;
		uint64_t tick = dlt_watcher_tick_ns(watch.wt);
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += (time_t)(tick / 1000000000ull);
		until.tv_nsec += (long)(tick % 1000000000ull);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&watch.cv, &watch.mu, &until);
	}
	pthread_mutex_unlock(&watch.mu);
	return NULL;
}

static void watch_start(const char *dir, uint64_t run)
{
	char err[512];
	struct dlt_watch_opts o = {dir, run};
	watch.wt = dlt_watcher_new(&o, err, sizeof(err));
	if (watch.wt == NULL) {
		fprintf(stderr, "dltrace: hang watching off: %s\n", err);
		return;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&watch.cv, &ca);
	pthread_condattr_destroy(&ca);
	/* The launcher's own signals stay with its main thread. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	watch.running = pthread_create(&watch.th, NULL, watch_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!watch.running) {
		dlt_watcher_free(watch.wt);
		watch.wt = NULL;
	}
}

/* Every waiting thread of every watched process recorded now, returned
 * when it is written. */
static void watch_snapshot(void)
{
	if (!watch.running)
		return;
	pthread_mutex_lock(&watch.mu);
	watch.snap_done = 0;
	watch.snap_asked = 1;
	pthread_cond_broadcast(&watch.cv);
	while (!watch.snap_done)
		pthread_cond_wait(&watch.cv, &watch.mu);
	pthread_mutex_unlock(&watch.mu);
}

/* The run ended: the companions are cut and let go before the traces are
 * compacted and read. */
static void watch_stop(void)
{
	if (!watch.running)
		return;
	pthread_mutex_lock(&watch.mu);
	watch.stop = 1;
	pthread_cond_broadcast(&watch.cv);
	pthread_mutex_unlock(&watch.mu);
	pthread_join(watch.th, NULL);
	watch.running = 0;
	dlt_watcher_free(watch.wt);
	watch.wt = NULL;
}

/* The command hung: the watcher records what each thread of every watched
 * process waits on, then the tree is TERMed, then KILLed. */
static void end_hung_tree(pid_t pid, int *status, struct rusage *ru)
{
	watch_snapshot();
	static pid_t pids[4096];
	size_t n = tree_of(pid, pids, 4096);
	signal_list(pids, n, SIGTERM);
	int done = wait_with_timeout(pid, 3.0, status, ru);
	/* KILL what is left, the orphans of a root that did end included. */
	signal_list(pids, n, SIGKILL);
	while (done == 0 && wait4(pid, status, 0, ru) < 0 && errno == EINTR)
		;
}

static volatile sig_atomic_t child_pid;

static void forward_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int saved = errno;
	if (fwd_sig == 0) {
		fwd_code = si->si_code;
		if (si->si_code == SI_USER || si->si_code == SI_QUEUE ||
		    si->si_code == SI_TKILL) {
			fwd_pid = si->si_pid;
			fwd_uid = (sig_atomic_t)si->si_uid;
			if (si->si_pid > 0)
				dlt_proc_comm(si->si_pid, fwd_comm,
					      sizeof(fwd_comm));
		}
		fwd_sig = sig;
	}
	if (child_pid > 0)
		kill(child_pid, sig);
	errno = saved;
}

/* Runs the command in a child.  Returns its pid, or -1 when it could not
 * be started, with *exec_err the errno of the failed exec (0 when fork
 * failed): the exec's failure comes back through a pipe closed on exec. */
static pid_t start_command(char **cmd, int *exec_err)
{
	*exec_err = 0;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		fds[0] = fds[1] = -1;
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "dltrace: fork: %s\n", strerror(errno));
		if (fds[0] >= 0) {
			close(fds[0]);
			close(fds[1]);
		}
		return -1;
	}
	if (pid == 0) {
		/* The launcher's forwarding handlers are not the command's:
		 * a TERM or HUP before the exec ends it as it would. */
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (fds[0] >= 0)
			close(fds[0]);
		execvp(cmd[0], cmd);
		int e = errno;
		if (fds[1] >= 0 && write(fds[1], &e, sizeof(e)) < 0)
			e = errno;
		_exit(127);
	}
	if (fds[0] < 0)
		return pid;
	close(fds[1]);
	int e = 0;
	ssize_t n;
	while ((n = read(fds[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(fds[0]);
	if (n == (ssize_t)sizeof(e)) {
		*exec_err = e;
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return -1;
	}
	return pid;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"redact-argv", no_argument, NULL, 'R'},
		{"hang-timeout", required_argument, NULL, 'T'},
		{"require-trace", no_argument, NULL, 'Q'},
		{"report", required_argument, NULL, 'P'},
		{NULL, 0, NULL, 0}};
	const char *out = NULL, *report = NULL;
	int quiet = 0, c;
	double hang_timeout = 0;
	const char *req = getenv("DLTRACE_REQUIRE_TRACE");
	int require = req && strcmp(req, "1") == 0;
	dlt_writer_kind_self = DLT_WRITER_LAUNCHER;
	/* The host's watcher of a run without the launcher, started by the
	 * first traced process that asks to be watched (shim/watchdog.c). */
	if (argc == 3 && strcmp(argv[1], "--watch") == 0)
		return dlt_watcher_daemon(argv[2]);
	/* '+': stop at the first non-option, it is the command.  ':': a
	 * missing value is reported here, in the short form. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:qhV", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'R':
			setenv("DLTRACE_REDACT_ARGV", "1", 1);
			break;
		case 'Q':
			require = 1;
			break;
		case 'P':
			report = optarg;
			break;
		case 'T': {
			char *end;
			hang_timeout = strtod(optarg, &end);
			if (*end != '\0' || hang_timeout <= 0) {
				fprintf(stderr,
					"dltrace: --hang-timeout wants seconds "
					"> 0\n");
				return 2;
			}
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("dltrace " DLT_VERSION "\n");
			return 0;
		case ':':
			fprintf(stderr, "dltrace: %s needs a value\n",
				argv[optind - 1]);
			return bad_usage();
		default:
			if (optopt)
				fprintf(stderr, "dltrace: unknown option -%c\n",
					optopt);
			else
				fprintf(stderr, "dltrace: unknown option %s\n",
					argv[optind - 1]);
			return bad_usage();
		}
	}
	if (optind >= argc) {
		fputs("dltrace: no command to run\n", stderr);
		return bad_usage();
	}
	char **cmd = argv + optind;

	char dirbuf[PATH_MAX];
	if (out == NULL) {
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		char stamp[64];
		strftime(stamp, sizeof(stamp), "dltrace-%Y%m%d-%H%M%S", &tm);
		snprintf(dirbuf, sizeof(dirbuf), "%s", stamp);
		for (int i = 1; access(dirbuf, F_OK) == 0 && i < 1000; i++)
			snprintf(dirbuf, sizeof(dirbuf), "%s-%d", stamp, i);
		out = dirbuf;
	}
	static struct made_dirs made;
	char dir[PATH_MAX] = "";
	int traced = 1;
	int dir_err = prepare_dir(out, dir, &made);
	/* A trace's path, its name included (host, pid, image, rank: 128
	 * bytes at most), is at most DLT_TRACE_PATH_MAX: said here once,
	 * rather than by every process of the tree. */
	if (dir_err == 0 && strlen(dir) + 128 > DLT_TRACE_PATH_MAX)
		dir_err = ENAMETOOLONG;
	if (dir_err != 0) {
		/* Said once, with the real cause; without --require-trace the
		 * command runs all the same, untraced (tracing must never stop
		 * a job), and the library is not injected to say it again. */
		fprintf(stderr, "dltrace: cannot write traces to %s: %s; %s\n",
			out, strerror(dir_err),
			require ? "not running the command (--require-trace)"
				: "running the command untraced");
		unmake_dirs(&made);
		if (require)
			return 2;
		traced = 0;
	}
	char lib[PATH_MAX], audit[PATH_MAX];
	if (traced && find_library(lib) != 0) {
		fprintf(stderr, "dltrace: cannot find libdltrace.so next to "
				"this program (set DLTRACE_LIB)\n");
		unmake_dirs(&made);
		return 2;
	}
	/* A random identity for this run, in every trace of its tree
	 * (DLTRACE_RUN), so that a directory used twice keeps runs apart. */
	uint64_t run = dlt_random64();
	if (traced) {
		find_audit_module(lib, audit, sizeof(audit));
		prepend_env("LD_PRELOAD", lib);
		prepend_env("LD_AUDIT", audit);
		setenv("DLTRACE_DIR", dir, 1);
		char runs[32];
		snprintf(runs, sizeof(runs), "%llx", (unsigned long long)run);
		setenv("DLTRACE_RUN", runs, 1);
		unsetenv("DLTRACE_PARENT");
		unsetenv("DLTRACE_REEXEC");
		/* Every process asks to be watched, so that the snapshot at
		 * the timeout sees it; the launcher's watcher runs, so that
		 * none asks the host's. */
		if (hang_timeout > 0)
			setenv("DLTRACE_WATCHDOG", "1", 1);
		setenv("DLTRACE_WATCHER", "1", 1);
	}

	/* The memory cgroup before the command runs: with the reading after
	 * it, whether the out-of-memory killer ended something meanwhile. */
	static struct end_facts ef;
	if (traced) {
		ef.before_ts = dlt_now_ns();
		dlt_memcg_read(&dlt_memcg_system, &ef.before);
	}
	/* TERM and HUP sent to the launcher alone are passed on, from before
	 * the command starts: one sent while it starts (as soon as it
	 * prints that it is ready) is passed on once its pid is known. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	int exec_err = 0;
	pid_t pid = start_command(cmd, &exec_err);
	if (pid < 0) {
		if (exec_err)
			fprintf(stderr, "dltrace: cannot run %s: %s\n", cmd[0],
				strerror(exec_err));
		/* Nothing ran, so nothing was traced: no verdict, and no
		 * empty directory left behind. */
		unmake_dirs(&made);
		if (exec_err == 0)
			return 2;
		return exec_err == ENOENT ? 127 : 126;
	}
	sigset_t fwd, prev;
	sigemptyset(&fwd);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGHUP);
	sigprocmask(SIG_BLOCK, &fwd, &prev);
	child_pid = pid;
	if (fwd_sig)
		kill(pid, fwd_sig);
	sigprocmask(SIG_SETMASK, &prev, NULL);
	/* Ctrl-C reaches the whole foreground group, the command included;
	 * the launcher stays to report. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (traced)
		watch_start(dir, run);

	int status = 0;
	int hung = 0;
	/* The child is reaped exactly once: by the wait with a timeout when
	 * it ends in time, by end_hung_tree when it does not, else here. */
	int reaped = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	if (hang_timeout > 0) {
		int w = wait_with_timeout(pid, hang_timeout, &status, &ru);
		reaped = w == 1;
		if (w == 0) {
			hung = 1;
			end_hung_tree(pid, &status, &ru);
			reaped = 1;
		}
	}
	while (!reaped && wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "dltrace: waitpid: %s\n",
				strerror(errno));
			return 2;
		}
	}
	watch_stop();
	if (traced) {
		dlt_memcg_read(&dlt_memcg_system, &ef.after);
		ef.max_rss_kb = ru.ru_maxrss > 0 ? (uint64_t)ru.ru_maxrss : 0;
		record_reaped(dir, pid, run, status, &ef);
		record_kills(dir, run);
		/* The traces of processes that ended without cutting their
		 * file (killed), this one's with its new record, hold only
		 * what they recorded; those of processes still running are
		 * left alone. */
		dlt_compact_ended(dir);
		if (hung)
			fprintf(stderr,
				"dltrace: %s ran past --hang-timeout %g s; "
				"the process tree was ended\n",
				cmd[0], hang_timeout);
		if (!quiet || hung)
			dlt_verdict_print(stderr, dir, run);
		if (report && dlt_report_write(report, dir) == 0 && !quiet)
			fprintf(stderr, "dltrace: report: %s\n", report);
	}
	if (hung)
		return 124;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
