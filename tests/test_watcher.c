/* The watcher outside the process (docs/design.md, "The watcher"): a run
 * without the launcher, ranks started with LD_PRELOAD as srun or torchrun
 * start them, gets the host's watcher, which the program never sees: no
 * thread of dltrace's, no child, no SIGCHLD, no descriptor, and a forked
 * child in which unshare(CLONE_NEWUSER) works as without dltrace; and its
 * waits, and its forked child's, are recorded all the same.
 *
 *   test_watcher [SUITE...]   watcher_host */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"
#include "watch.h"
#include "writer.h"

#define RUN_TIMEOUT_MS 120000

/* What the program can see of dltrace, printed line by line: its threads,
 * descriptors, children, what waitpid(-1) says, SIGCHLDs received, and in
 * a forked child its threads and unshare(CLONE_NEWUSER).  Parent and child
 * wait for the flag file (argv[1]) before they go on: the test creates it
 * once the watcher has recorded both waits (at once when plain). */
static const char *script =
	"import os, signal, ctypes, time, sys\n"
	"flag = sys.argv[1]\n"
	"n = [0]\n"
	"signal.signal(signal.SIGCHLD, lambda *a: n.__setitem__(0, n[0] + 1))\n"
	"def threads():\n"
	"    return open('/proc/self/status').read()"
	".split('Threads:')[1].split()[0]\n"
	"def children():\n"
	"    out = []\n"
	"    for t in os.listdir('/proc/self/task'):\n"
	"        out += open('/proc/self/task/%s/children' % "
	"t).read().split()\n"
	"    return out\n"
	"print('threads', threads(), flush=True)\n"
	"print('fds', sorted(os.listdir('/proc/self/fd')), flush=True)\n"
	"print('children', children(), flush=True)\n"
	"try:\n"
	"    os.waitpid(-1, os.WNOHANG)\n"
	"    print('waitpid: a child', flush=True)\n"
	"except ChildProcessError:\n"
	"    print('waitpid: ECHILD', flush=True)\n"
	"r, w = os.pipe()\n"
	"p = os.fork()\n"
	"if p == 0:\n"
	"    libc = ctypes.CDLL(None, use_errno=True)\n"
	"    rc = libc.unshare(0x10000000)\n"
	"    os.write(w, ('child threads %s unshare %d\\n' % (threads(), "
	"rc)).encode())\n"
	"    while not os.path.exists(flag):\n"
	"        time.sleep(0.05)\n"
	"    os._exit(0)\n"
	"os.close(w)\n"
	"print(os.read(r, 100).decode().strip(), flush=True)\n"
	"print('pids %d %d' % (os.getpid(), p), flush=True)\n"
	"while not os.path.exists(flag):\n"
	"    time.sleep(0.05)\n"
	"os.waitpid(p, 0)\n"
	"print('children after', children(), flush=True)\n"
	"print('sigchld', n[0], flush=True)\n";

/* The program, started; its two pids (read as they come); all it printed
 * once it ended. */
struct run {
	struct tu_proc p;
	char out[8192];
	unsigned parent, child;
};

static int start(struct run *r, const char *flag, const char *const env[])
{
	memset(r, 0, sizeof(*r));
	const char *cmd[] = {tu_python(), "-c", script, flag, NULL};
	if (tu_proc_start(&r->p, cmd, env) != 0)
		return -1;
	char line[1024];
	while (tu_proc_readline(&r->p, line, sizeof(line), 60000) == 1)
		if (sscanf(line, "pids %u %u", &r->parent, &r->child) == 2)
			return 0;
	return -1;
}

/* All it printed but the pids, which differ from run to run. */
static void finish(struct run *r)
{
	tu_proc_wait(&r->p, RUN_TIMEOUT_MS);
	char *out = tu_drop_lines(r->p.out ? r->p.out : "", "pids ");
	snprintf(r->out, sizeof(r->out), "%s", out ? out : "");
	free(out);
}

/* A STALL of thread tid in the traces of dir, where the watcher writes
 * them (each process's companion, read as part of its trace, or the
 * watcher's trace of a forked child). */
static int stalled(const char *dir, unsigned tid)
{
	struct tu_traceset s;
	tu_traceset_read(dir, &s, 1);
	int found = 0;
	for (size_t i = 0; i < s.n && !found; i++)
		for (size_t k = 0; k < s.t[i].nrecs && !found; k++) {
			const struct dlt_rec_hdr *h = s.t[i].recs[k].h;
			found = h->type == DLT_REC_STALL &&
				((const struct dlt_rec_stall *)(const void *)h)
						->tid == tid;
		}
	tu_traceset_free(&s);
	return found;
}

/* The host's watcher of dir ("dltrace --watch DIR"), or 0. */
static pid_t host_watcher(const char *dir, pid_t *ppid)
{
	DIR *d = opendir("/proc");
	pid_t found = 0;
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0)
			continue;
		char path[64], cmd[4200];
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
		if (f)
			fclose(f);
		cmd[n] = '\0';
		/* argv is "dltrace\0--watch\0DIR" */
		if (strcmp(cmd, "dltrace") != 0 || n < 17 ||
		    strcmp(cmd + 8, "--watch") != 0 ||
		    strcmp(cmd + 16, dir) != 0)
			continue;
		found = pid;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		int pp = 0;
		if (f && fscanf(f, "%*d (%*[^)]) %*c %d", &pp) != 1)
			pp = 0;
		if (f)
			fclose(f);
		*ppid = pp;
	}
	if (d)
		closedir(d);
	return found;
}

static void test_host_watcher_invisible(void)
{
	char *dir = tu_tmpdir("watcher-host");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *flag = tu_strfmt("%s.go", dir);
	unlink(flag);
	/* Plain: what the program sees without dltrace. */
	FILE *ff = fopen(flag, "w");
	TU_CHECK_FATAL(ff != NULL, "cannot make %s", flag);
	fclose(ff);
	struct run plain;
	TU_CHECK_FATAL(start(&plain, flag, NULL) == 0,
		       "the program did not run plain:\n%s", plain.out);
	finish(&plain);
	unlink(flag);
	/* Traced as srun or torchrun start a rank: LD_PRELOAD and rank
	 * variables, no launcher.  The process asks to be watched at start
	 * and starts the host's watcher. */
	const char *vars[] = {"RANK=0", "WORLD_SIZE=1", "DLTRACE_STALL_MS=500",
			      NULL};
	const char **env = tu_preload_env(dir, vars, 0);
	struct run traced;
	TU_CHECK_FATAL(start(&traced, flag, env) == 0,
		       "the program did not run traced:\n%s%s", traced.out,
		       traced.p.err ? traced.p.err : "");
	/* Both wait until the watcher recorded both waits (a minute at
	 * most: then the checks below say which is missing). */
	int pw = 0, cw = 0;
	for (int i = 0; i < 600 && !(pw && cw); i++) {
		pw = pw || stalled(dir, traced.parent);
		cw = cw || stalled(dir, traced.child);
		if (!(pw && cw))
			usleep(100 * 1000);
	}
	pid_t wppid = 0;
	pid_t watcher = host_watcher(dir, &wppid);
	ff = fopen(flag, "w");
	if (ff)
		fclose(ff);
	finish(&traced);
	TU_CHECK(pw, "the watcher recorded no wait of the process (pid %u)",
		 traced.parent);
	TU_CHECK(cw,
		 "the watcher recorded no wait of its forked child (pid %u)",
		 traced.child);
	TU_CHECK(watcher > 0, "no host watcher 'dltrace --watch %s' runs", dir);
	TU_CHECK(watcher <= 0 || (wppid != (pid_t)traced.parent &&
				  wppid != (pid_t)traced.child),
		 "the host watcher (pid %d) is a child of the program (its "
		 "parent is %d)",
		 (int)watcher, (int)wppid);
	/* Everything the program printed, as plain: threads, descriptors,
	 * children, waitpid, the child's threads and unshare, SIGCHLDs. */
	TU_CHECK(strcmp(plain.out, traced.out) == 0,
		 "the program saw dltrace:\nplain:\n%s\ntraced:\n%s%s",
		 plain.out, traced.out, traced.p.err ? traced.p.err : "");
	TU_CHECK(tu_contains(plain.out, "threads 1\n") &&
			 tu_contains(plain.out, "sigchld 1"),
		 "the plain run is not the one this test expects:\n%s",
		 plain.out);
	/* A chroot (scripts/debian11.sh) refuses a user namespace even to a
	 * process with one thread: the comparison above still holds. */
	if (!tu_contains(plain.out, "unshare 0"))
		tu_skip_part("unshare(CLONE_NEWUSER) fails here even plain: "
			     "only compared");
	TU_CHECK(tu_exit_code(traced.p.status) == 0 &&
			 (traced.p.err == NULL || traced.p.err[0] == '\0'),
		 "traced: %s, stderr:\n%s", tu_status_str(traced.p.status),
		 traced.p.err ? traced.p.err : "");
	/* The watcher ends 10 s after the last process of its directory;
	 * the test does not wait for that. */
	if (watcher > 0)
		kill(watcher, SIGTERM);
	tu_proc_free(&plain.p);
	tu_proc_free(&traced.p);
	free(env);
	unlink(flag);
	free(flag);
	tu_rmtree(dir);
	free(dir);
}

/* A trace is named before its first write (tracer/file.c): a watcher
 * that lists the directory in between sees an empty file, and the write
 * changes nothing of the directory's.  The process must still be watched
 * once its header is there. */
static void test_scan_empty_first(void)
{
	char *dir = tu_tmpdir("watch-empty");
	TU_CHECK_FATAL(dir != NULL, "no scratch directory");
	char *src = tu_strfmt("%s/src", dir);
	char *obs = tu_strfmt("%s/obs", dir);
	TU_CHECK_FATAL(mkdir(src, 0755) == 0 && mkdir(obs, 0755) == 0,
		       "cannot make %s", src);
	const uint64_t run = 0x5eed31;
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	struct dlt_writer *w = calloc(1, sizeof(*w));
	TU_CHECK_FATAL(w != NULL, "no memory");
	struct dlt_open_params p = {
		.dir = src, .host = host, .rank = -1, .run_id = run};
	TU_CHECK_FATAL(dlt_writer_create(w, &p) == 0, "no trace in %s", src);
	/* The same file, in the watched directory, empty first. */
	const char *base = strrchr(w->path, '/') + 1;
	char *name = tu_strfmt("%s/%s", obs, base);
	int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	TU_CHECK_FATAL(fd >= 0, "cannot make %s", name);
	struct dlt_watch_opts o = {.dir = obs, .run_id = run};
	char err[256] = "";
	struct dlt_watcher *wt = dlt_watcher_new(&o, err, sizeof(err));
	TU_CHECK_FATAL(wt != NULL, "no watcher: %s", err);
	int alive = dlt_watcher_look(wt, 0);
	TU_CHECK(alive == 0, "an empty trace is %d watched processes", alive);
	/* Its header and first pages, as the writer's first write puts
	 * them, and the writing process's lock. */
	int in = open(w->path, O_RDONLY | O_CLOEXEC);
	char buf[4096];
	ssize_t n;
	off_t at = 0;
	while (in >= 0 && (n = read(in, buf, sizeof(buf))) > 0) {
		TU_CHECK_FATAL(pwrite(fd, buf, (size_t)n, at) == n, "pwrite");
		at += n;
	}
	if (in >= 0)
		close(in);
	struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_len = 1};
	TU_CHECK_FATAL(fcntl(fd, F_OFD_SETLK, &fl) == 0, "no lock");
	alive = dlt_watcher_look(wt, 0);
	TU_CHECK(alive == 1,
		 "the trace written after the watcher saw it empty: %d "
		 "watched processes, expected 1",
		 alive);
	dlt_watcher_free(wt);
	close(fd);
	dlt_writer_close(w, NULL);
	free(w);
	free(name);
	free(obs);
	free(src);
	tu_rmtree(dir);
	free(dir);
}

static const char *python_skip(void)
{
	return tu_python_skip("ctypes");
}

static const struct tu_test host_tests[] = {
	{"a rank without the launcher: the host's watcher, invisible",
	 test_host_watcher_invisible},
	{NULL, NULL}};

static const struct tu_test scan_tests[] = {
	{"a trace named before its header is written: watched once it is",
	 test_scan_empty_first},
	{NULL, NULL}};

static const struct tu_suite suites[] = {
	{"watcher_host", host_tests, python_skip},
	{"watcher_scan", scan_tests, NULL},
	{NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
