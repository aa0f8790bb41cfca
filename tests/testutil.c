#define _GNU_SOURCE
#include "testutil.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elfread.h"

extern char **environ;

/* ---- assertions ------------------------------------------------------- */

void tu_check(int ok, unsigned line, const char *file, const char *expr,
	      int fatal, const char *fmt, ...)
{
	if (ok) {
		CU_assertImplementation(CU_TRUE, line, expr, file, "",
					CU_FALSE);
		return;
	}
	char detail[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	char msg[2304];
	snprintf(msg, sizeof(msg), "%s -- %s", expr, detail);
	fprintf(stderr, "\n  CHECK FAILED %s:%u: %s\n", file, line, msg);
	CU_assertImplementation(CU_FALSE, line, msg, file, "",
				fatal ? CU_TRUE : CU_FALSE);
}

/* ---- running programs -------------------------------------------------- */

static uint64_t tu_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int tu_env_dropped(const char *e)
{
	static const char *const drop[] = {"LD_PRELOAD=",      "LD_AUDIT=",
					   "LD_LIBRARY_PATH=", "DLTRACE_",
					   "LC_ALL=",	       NULL};
	for (const char *const *d = drop; *d; d++)
		if (strncmp(e, *d, strlen(*d)) == 0)
			return 1;
	return 0;
}

static char **tu_build_env(const char *const extra[])
{
	size_t n = 0, m = 0;
	for (char **e = environ; *e; e++)
		n++;
	if (extra)
		for (const char *const *x = extra; *x; x++)
			m++;
	char **env = calloc(n + m + 2, sizeof(*env));
	if (env == NULL)
		return NULL;
	size_t k = 0;
	for (char **e = environ; *e; e++) {
		if (tu_env_dropped(*e))
			continue;
		/* An entry of extra overrides the inherited one. */
		const char *eq = strchr(*e, '=');
		size_t nl = eq ? (size_t)(eq - *e) : strlen(*e);
		int over = 0;
		if (extra)
			for (const char *const *x = extra; *x; x++)
				if (strncmp(*x, *e, nl) == 0 && (*x)[nl] == '=')
					over = 1;
		if (!over)
			env[k++] = *e;
	}
	env[k++] = "LC_ALL=C";
	if (extra)
		for (const char *const *x = extra; *x; x++)
			env[k++] = (char *)*x;
	env[k] = NULL;
	return env;
}

static int tu_proc_spawn(struct tu_proc *p, const char *const argv[],
			 const char *const env[], int held)
{
	memset(p, 0, sizeof(*p));
	p->out_fd = p->err_fd = p->go_fd = -1;
	p->pid = -1;
	p->status = -1; /* until reaped: "not reaped" */
	/* Output buffers exist even if the start fails, so callers can
	 * print and compare them without checking. */
	p->out = calloc(1, 1);
	p->err = calloc(1, 1);
	if (p->out == NULL || p->err == NULL)
		abort();
	int po[2], pe[2], pg[2] = {-1, -1};
	if (pipe2(po, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(pe, O_CLOEXEC) != 0) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	if (held && pipe2(pg, O_CLOEXEC) != 0) {
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		return -1;
	}
	char **envp = tu_build_env(env);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = envp ? fork() : -1;
	if (pid == 0) {
		setpgid(0, 0);
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0) {
			dup2(nul, 0);
			close(nul);
		}
		dup2(po[1], 1);
		dup2(pe[1], 2);
		signal(SIGPIPE, SIG_DFL);
		if (held) {
			char go;
			close(pg[1]);
			while (read(pg[0], &go, 1) < 0 && errno == EINTR)
				;
		}
		execve(argv[0], (char *const *)argv, envp);
		dprintf(2, "tu_proc_start: cannot exec %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	free(envp);
	close(po[1]);
	close(pe[1]);
	if (held)
		close(pg[0]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		if (held)
			close(pg[1]);
		return -1;
	}
	p->pid = pid;
	p->out_fd = po[0];
	p->err_fd = pe[0];
	p->go_fd = held ? pg[1] : -1;
	return 0;
}

int tu_proc_start(struct tu_proc *p, const char *const argv[],
		  const char *const env[])
{
	return tu_proc_spawn(p, argv, env, 0);
}

int tu_proc_start_held(struct tu_proc *p, const char *const argv[],
		       const char *const env[])
{
	return tu_proc_spawn(p, argv, env, 1);
}

void tu_proc_go(struct tu_proc *p)
{
	if (p->go_fd < 0)
		return;
	if (write(p->go_fd, "g", 1) != 1)
		perror("tu_proc_go");
	close(p->go_fd);
	p->go_fd = -1;
}

static void tu_append(char **buf, size_t *len, size_t *cap, const char *d,
		      size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 4096;
		while (c < *len + n + 1)
			c *= 2;
		char *nb = realloc(*buf, c);
		if (nb == NULL)
			abort();
		*buf = nb;
		*cap = c;
	}
	memcpy(*buf + *len, d, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* Reads whatever is available on the pipes, waiting at most timeout_ms.
 * Returns the number of pipes still open. */
static int tu_pump(struct tu_proc *p, int timeout_ms)
{
	struct pollfd fds[2];
	int n = 0;
	if (p->out_fd >= 0)
		fds[n++] = (struct pollfd){p->out_fd, POLLIN, 0};
	if (p->err_fd >= 0)
		fds[n++] = (struct pollfd){p->err_fd, POLLIN, 0};
	if (n == 0)
		return 0;
	int r = poll(fds, (nfds_t)n, timeout_ms);
	if (r <= 0)
		return n;
	for (int i = 0; i < n; i++) {
		if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		char buf[65536];
		ssize_t k = read(fds[i].fd, buf, sizeof(buf));
		int is_out = fds[i].fd == p->out_fd;
		if (k > 0) {
			if (is_out)
				tu_append(&p->out, &p->out_len, &p->out_cap,
					  buf, (size_t)k);
			else
				tu_append(&p->err, &p->err_len, &p->err_cap,
					  buf, (size_t)k);
		} else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(fds[i].fd);
			if (is_out)
				p->out_fd = -1;
			else
				p->err_fd = -1;
		}
	}
	return (p->out_fd >= 0) + (p->err_fd >= 0);
}

int tu_proc_readline(struct tu_proc *p, char *buf, size_t cap, int timeout_ms)
{
	uint64_t deadline = tu_now_ms() + (uint64_t)timeout_ms;
	for (;;) {
		char *nl = memchr(p->out + p->out_pos, '\n',
				  p->out_len - p->out_pos);
		if (nl) {
			size_t n = (size_t)(nl - (p->out + p->out_pos));
			size_t c = n < cap - 1 ? n : cap - 1;
			memcpy(buf, p->out + p->out_pos, c);
			buf[c] = '\0';
			p->out_pos += n + 1;
			return 1;
		}
		if (p->out_fd < 0)
			return 0;
		uint64_t now = tu_now_ms();
		if (now >= deadline)
			return -1;
		tu_pump(p, (int)(deadline - now));
	}
}

int tu_proc_wait(struct tu_proc *p, int timeout_ms)
{
	if (p->pid <= 0)
		return -1; /* never started: nothing to wait for or kill */
	tu_proc_go(p);
	uint64_t deadline = tu_now_ms() + (uint64_t)timeout_ms;
	while (!p->reaped) {
		uint64_t now = tu_now_ms();
		if (now >= deadline) {
			p->timed_out = 1;
			kill(-p->pid, SIGKILL);
			kill(p->pid, SIGKILL);
			deadline = now + 5000;
		}
		int open_fds = tu_pump(p, 50);
		pid_t r = waitpid(p->pid, &p->status, WNOHANG);
		if (r == p->pid) {
			p->reaped = 1;
		} else if (r < 0 && errno != EINTR) {
			p->reaped = 1;
			p->status = -1;
		} else if (open_fds == 0) {
			usleep(2000);
		}
	}
	/* Descendants may still hold the pipes; read what is there. */
	for (int i = 0; i < 20 && (p->out_fd >= 0 || p->err_fd >= 0); i++)
		if (tu_pump(p, 50) == 0)
			break;
	if (p->out_fd >= 0)
		close(p->out_fd);
	if (p->err_fd >= 0)
		close(p->err_fd);
	p->out_fd = p->err_fd = -1;
	return p->timed_out ? -1 : 0;
}

void tu_proc_free(struct tu_proc *p)
{
	if (p->go_fd >= 0)
		close(p->go_fd);
	if (p->out_fd >= 0)
		close(p->out_fd);
	if (p->err_fd >= 0)
		close(p->err_fd);
	free(p->out);
	free(p->err);
	memset(p, 0, sizeof(*p));
	p->out_fd = p->err_fd = p->go_fd = -1;
}

int tu_run(struct tu_proc *p, const char *const argv[], const char *const env[],
	   int timeout_ms)
{
	if (tu_proc_start(p, argv, env) != 0) {
		fprintf(stderr, "cannot start %s\n", argv[0]);
		return -1;
	}
	return tu_proc_wait(p, timeout_ms);
}

const char **tu_launcher_argv(const char *dir, const char *const opts[],
			      const char *const cmd[])
{
	size_t n = 0, m = 0;
	while (cmd[n])
		n++;
	while (opts && opts[m])
		m++;
	const char **argv = calloc(n + m + 5, sizeof(*argv));
	if (argv == NULL)
		abort();
	size_t k = 0;
	argv[k++] = DLT_TEST_LAUNCHER;
	argv[k++] = "-o";
	argv[k++] = dir;
	for (size_t i = 0; i < m; i++)
		argv[k++] = opts[i];
	argv[k++] = "--";
	for (size_t i = 0; i < n; i++)
		argv[k++] = cmd[i];
	argv[k] = NULL;
	return argv;
}

int tu_run_traced(struct tu_proc *p, const char *dir, const char *const cmd[],
		  const char *const env[], int timeout_ms)
{
	const char **argv = tu_launcher_argv(dir, NULL, cmd);
	int r = tu_run(p, argv, env, timeout_ms);
	free(argv);
	return r;
}

const char **tu_preload_env(const char *dir, const char *const env[],
			    int no_audit)
{
	size_t n = 0;
	while (env && env[n])
		n++;
	size_t lp = strlen("LD_PRELOAD=") + strlen(DLT_TEST_LIB) + 1;
	size_t ld = strlen("DLTRACE_DIR=") + strlen(dir) + 1;
	size_t slots = (n + 4) * sizeof(char *);
	char *block = calloc(1, slots + lp + ld);
	if (block == NULL)
		abort();
	const char **e = (const char **)(void *)block;
	char *pre = block + slots, *dd = pre + lp;
	snprintf(pre, lp, "LD_PRELOAD=%s", DLT_TEST_LIB);
	snprintf(dd, ld, "DLTRACE_DIR=%s", dir);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		e[k++] = env[i];
	e[k++] = pre;
	e[k++] = dd;
	if (no_audit)
		e[k++] = "DLTRACE_AUDIT=0";
	e[k] = NULL;
	return e;
}

int tu_exit_code(int status)
{
	if (status == -1)
		return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

const char *tu_status_str(int status)
{
	static char buf[4][64];
	static int k;
	char *b = buf[k++ & 3];
	if (status == -1)
		snprintf(b, 64, "not reaped");
	else if (WIFEXITED(status))
		snprintf(b, 64, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(b, 64, "signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(b, 64, "status 0x%x", status);
	return b;
}

/* ---- files and strings ------------------------------------------------- */

char *tu_strfmt(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

char *tu_fx(const char *rel)
{
	return tu_strfmt("%s/%s", DLT_TEST_FX, rel);
}

char *tu_tmpdir(const char *tag)
{
	mkdir(DLT_TEST_TMP, 0755);
	char *t = tu_strfmt("%s/%s-XXXXXX", DLT_TEST_TMP, tag);
	if (mkdtemp(t) == NULL) {
		fprintf(stderr, "mkdtemp %s: %s\n", t, strerror(errno));
		free(t);
		return NULL;
	}
	return t;
}

static int tu_rm_one(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void tu_rmtree(const char *path)
{
	if (path == NULL)
		return;
	/* After a failure the traces are what one wants to look at. */
	const char *keep = getenv("DLT_TEST_KEEP");
	if ((keep && *keep && strcmp(keep, "0") != 0) ||
	    CU_get_number_of_failures() > 0) {
		fprintf(stderr, "(kept %s)\n", path);
		return;
	}
	nftw(path, tu_rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

int tu_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (a == NULL || b == NULL || stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

size_t tu_count_lines(const char *text, const char *prefix)
{
	size_t n = 0, pl = strlen(prefix);
	for (const char *l = text; l && *l;) {
		if (strncmp(l, prefix, pl) == 0)
			n++;
		const char *nl = strchr(l, '\n');
		l = nl ? nl + 1 : NULL;
	}
	return n;
}

char *tu_drop_lines(const char *text, const char *prefix)
{
	size_t pl = strlen(prefix);
	char *out = malloc(strlen(text) + 1);
	size_t k = 0;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) + 1 : strlen(l);
		if (strncmp(l, prefix, pl) != 0) {
			memcpy(out + k, l, n);
			k += n;
		}
		l += n;
	}
	out[k] = '\0';
	return out;
}

int tu_contains(const char *hay, const char *needle)
{
	return hay && needle && strstr(hay, needle) != NULL;
}

int tu_contains_ci(const char *hay, const char *needle)
{
	return hay && needle && strcasestr(hay, needle) != NULL;
}

int tu_copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	char buf[65536];
	ssize_t r;
	int rc = 0;
	while ((r = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)r) != r) {
			rc = -1;
			break;
		}
	if (r < 0)
		rc = -1;
	close(in);
	close(out);
	return rc;
}

int tu_copy_other_build(const char *from, const char *to)
{
	uint8_t id[32];
	uint32_t n = 0;
	struct dlt_elf e;
	if (dlt_elf_open(&e, from) == 0) {
		n = dlt_elf_build_id(&e, id, sizeof(id));
		dlt_elf_close(&e);
	}
	if (n == 0 || tu_copy_file(from, to) != 0)
		return -1;
	/* The note holds the build-id once; a second match would be a
	 * coincidence of 20 random bytes. */
	int fd = open(to, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	uint8_t *buf = malloc((size_t)st.st_size);
	int rc = -1;
	if (buf && read(fd, buf, (size_t)st.st_size) == st.st_size) {
		uint8_t *at = memmem(buf, (size_t)st.st_size, id, n);
		if (at) {
			uint8_t b = at[n - 1] ^ 0xff;
			rc = pwrite(fd, &b, 1, (off_t)(at - buf) + n - 1) == 1
				     ? 0
				     : -1;
		}
	}
	free(buf);
	close(fd);
	return rc;
}

/* ---- traces -------------------------------------------------------------- */

static int tu_trace_keep(struct tu_trace *t, const struct dlt_rec_view *v)
{
	if (t->nrecs == t->cap_recs) {
		size_t cap = t->cap_recs ? 2 * t->cap_recs : 256;
		struct tu_rec *r = realloc(t->recs, cap * sizeof(*r));
		if (r == NULL)
			return 1;
		t->recs = r;
		t->cap_recs = cap;
	}
	struct dlt_rec_hdr *h = malloc(v->rec->len);
	if (h == NULL)
		return 1;
	memcpy(h, v->rec, v->rec->len);
	t->recs[t->nrecs++] = (struct tu_rec){h, v->tid, v->writer};
	return 0;
}

static int tu_trace_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct tu_trace *t = ctx;
	uint16_t type = v->rec->type;
	if (type < 256)
		t->nrec[type]++;
	if (t->keep && tu_trace_keep(t, v) != 0)
		return 1;
	if (type == DLT_REC_MARK) {
		const struct dlt_rec_mark *m = (const void *)v->rec;
		if (t->nmarks == t->cap_marks) {
			size_t cap = t->cap_marks ? t->cap_marks * 2 : 16;
			struct tu_mark *nm =
				realloc(t->marks, cap * sizeof(*nm));
			if (nm == NULL)
				return 1;
			t->marks = nm;
			t->cap_marks = cap;
		}
		t->marks[t->nmarks++] =
			(struct tu_mark){m->id, m->aux, m->value, v->tid};
	} else if (type == DLT_REC_FORK && t->nforks < 16) {
		const struct dlt_rec_fork *f = (const void *)v->rec;
		t->forks[t->nforks++] = f->child_pid;
	} else if (type == DLT_REC_EXIT && t->nexits < 16) {
		const struct dlt_rec_exit *e = (const void *)v->rec;
		t->exits[t->nexits++] = (struct tu_exit){e->h.flags, e->status};
	} else if (type == DLT_REC_REAP && t->nreaps < 16) {
		const struct dlt_rec_reap *r = (const void *)v->rec;
		t->reaps[t->nreaps++] =
			(struct tu_reap){r->h.flags, r->pid, r->status};
	} else if (type == DLT_REC_PROC && t->reader) {
		const struct dlt_rec_proc *p = (const void *)v->rec;
		snprintf(t->exe, sizeof(t->exe), "%s",
			 dlt_trace_strz(t->reader, p->exe));
	}
	return 0;
}

/* A watcher's companion (format 2.3) is named NAME.watch[-N].dltrace
 * beside the trace it is about: read as part of it, never as a trace of
 * its own, as the analyzer's job reads it. */
static int tu_header(const char *dir, const char *name,
		     struct dlt_file_header *h)
{
	char *path = tu_strfmt("%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	int ok = fd >= 0 && pread(fd, h, sizeof(*h), 0) == (ssize_t)sizeof(*h);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* Whether watcher file c is read as part of trace t (as the analyzer's
 * job pairs them): a companion of t, or what the watcher wrote about a
 * forked child that made its own trace t after all. */
static int tu_belongs(const struct dlt_file_header *c,
		      const struct dlt_file_header *t)
{
	if (!(c->features & DLT_FEAT_WATCHER) ||
	    (t->features & DLT_FEAT_WATCHER))
		return 0;
	if (c->parent_kind == DLT_PARENT_WATCHED)
		return c->parent_trace_id == t->trace_id;
	return c->parent_kind == DLT_PARENT_FORK &&
	       t->parent_kind == DLT_PARENT_FORK && c->pid == t->pid &&
	       c->parent_trace_id == t->parent_trace_id;
}

/* A watcher's file that is read as part of another trace of dir (a
 * companion is named NAME.watch[-N].dltrace beside its trace), never as a
 * trace of its own: what the watcher wrote about a forked child without a
 * trace of its own is that child's trace. */
static int tu_is_companion(const char *dir, const char *name)
{
	struct dlt_file_header c, t;
	if (strstr(name, ".watch") == NULL || tu_header(dir, name, &c) != 0 ||
	    !(c.features & DLT_FEAT_WATCHER))
		return 0;
	if (c.parent_kind == DLT_PARENT_WATCHED)
		return 1;
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;
	while (d && !found && (e = readdir(d)) != NULL)
		found = strstr(e->d_name, ".dltrace") &&
			strcmp(e->d_name, name) != 0 &&
			tu_header(dir, e->d_name, &t) == 0 &&
			tu_belongs(&c, &t);
	if (d)
		closedir(d);
	return found;
}

static void tu_attach_companions(const char *path, struct dlt_trace *tr)
{
	char *dir = strdup(path);
	char *slash = dir ? strrchr(dir, '/') : NULL;
	if (slash == NULL) {
		free(dir);
		return;
	}
	*slash = '\0';
	const struct dlt_file_header *th = dlt_trace_header(tr);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		struct dlt_file_header ch;
		if (l <= 8 || strcmp(e->d_name + l - 8, ".dltrace") != 0 ||
		    strstr(e->d_name, ".watch") == NULL ||
		    tu_header(dir, e->d_name, &ch) != 0 || !tu_belongs(&ch, th))
			continue;
		char *cp = tu_strfmt("%s/%s", dir, e->d_name);
		char err[256];
		struct dlt_trace *c = dlt_trace_open(cp, err, sizeof(err));
		free(cp);
		if (c)
			dlt_trace_attach(tr, c);
	}
	if (d)
		closedir(d);
	free(dir);
}

static int tu_trace_open(const char *path, struct tu_trace *t, int keep,
			 char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->path = strdup(path);
	t->keep = keep;
	struct dlt_trace *tr = dlt_trace_open(path, err, errlen);
	if (tr == NULL)
		return -1;
	tu_attach_companions(path, tr);
	t->hdr = *dlt_trace_header(tr);
	t->reader = tr;
	dlt_trace_foreach(tr, tu_trace_rec, t);
	dlt_trace_stats(tr, &t->stats);
	t->nproblems = dlt_trace_problem_count(tr);
	t->problems = calloc(t->nproblems + 1, sizeof(char *));
	for (size_t i = 0; i < t->nproblems; i++)
		t->problems[i] = strdup(dlt_trace_problem(tr, i));
	if (!keep) {
		dlt_trace_close(tr);
		t->reader = NULL;
	}
	return 0;
}

int tu_trace_load(const char *path, struct tu_trace *t, char *err,
		  size_t errlen)
{
	return tu_trace_open(path, t, 0, err, errlen);
}

int tu_trace_read(const char *path, struct tu_trace *t, int quiet)
{
	char err[512] = "";
	int r = tu_trace_open(path, t, 1, err, sizeof(err));
	TU_CHECK(quiet || r == 0, "trace %s does not open: %s", path, err);
	for (size_t i = 0; !quiet && r == 0 && i < t->nproblems; i++)
		TU_CHECK(0, "%s: reader problem: %s", path, t->problems[i]);
	return r;
}

const char *tu_trace_str(const struct tu_trace *t, uint32_t id)
{
	return t->reader ? dlt_trace_strz(t->reader, id) : "";
}

void tu_trace_free(struct tu_trace *t)
{
	if (t->reader)
		dlt_trace_close(t->reader);
	for (size_t i = 0; i < t->nrecs; i++)
		free((void *)t->recs[i].h);
	free(t->recs);
	for (size_t i = 0; i < t->nproblems; i++)
		free(t->problems[i]);
	free(t->problems);
	free(t->marks);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

int tu_trace_has_mark(const struct tu_trace *t, uint32_t id)
{
	for (size_t i = 0; i < t->nmarks; i++)
		if (t->marks[i].id == id)
			return 1;
	return 0;
}

static int tu_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

uint64_t tu_file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

int tu_trace_layout(const char *path, struct tu_layout *l)
{
	memset(l, 0, sizeof(*l));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct dlt_file_header h;
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 ||
	    pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h.version_major != 2) {
		close(fd);
		return -1;
	}
	l->size = (uint64_t)st.st_size;
	l->disk = (uint64_t)st.st_blocks * 512u;
	l->cursor = h.alloc_cursor;
	static uint8_t buf[DLT_CHUNK_MAX];
	int rc = 0;
	for (uint64_t c = h.data_offset; c < h.alloc_cursor;) {
		struct dlt_rec_chunk ch;
		if (pread(fd, &ch, sizeof(ch), (off_t)c) !=
			    (ssize_t)sizeof(ch) ||
		    ch.h.type != DLT_REC_CHUNK || ch.h.len < DLT_CHUNK_MIN ||
		    ch.h.len > DLT_CHUNK_MAX || ch.h.len % 8 != 0) {
			rc = -1;
			break;
		}
		uint64_t len = c + ch.h.len <= h.alloc_cursor
				       ? ch.h.len
				       : h.alloc_cursor - c;
		if (pread(fd, buf, len, (off_t)c) != (ssize_t)len) {
			rc = -1;
			break;
		}
		uint64_t off = sizeof(ch);
		while (off + 8 <= len) {
			uint64_t w;
			memcpy(&w, buf + off, 8);
			if (w == 0)
				break;
			/* A compact entry is one word; a record says its
			 * length in its first 4 bytes. */
			off += (w & 7) ? 8 : (uint32_t)w;
		}
		l->data += off;
		l->chunks++;
		l->last_unused = len - off;
		c += ch.h.len;
	}
	close(fd);
	return rc;
}

/* Every *.dltrace in dir, companions too when all. */
static size_t tu_list_files(const char *dir, char ***paths, int all)
{
	size_t n = 0, cap = 16;
	char **v = calloc(cap + 1, sizeof(*v));
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			size_t l = strlen(e->d_name);
			if (l <= 8 ||
			    strcmp(e->d_name + l - 8, ".dltrace") != 0 ||
			    (!all && tu_is_companion(dir, e->d_name)))
				continue;
			if (n == cap) {
				cap *= 2;
				v = realloc(v, (cap + 1) * sizeof(*v));
			}
			v[n++] = tu_strfmt("%s/%s", dir, e->d_name);
		}
		closedir(d);
	}
	qsort(v, n, sizeof(*v), tu_cmp_str);
	v[n] = NULL;
	*paths = v;
	return n;
}

size_t tu_list_traces(const char *dir, char ***paths)
{
	return tu_list_files(dir, paths, 0);
}

void tu_free_list(char **paths)
{
	for (char **p = paths; p && *p; p++)
		free(*p);
	free(paths);
}

size_t tu_traceset_load(const char *dir, struct tu_traceset *s)
{
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	s->t = calloc(n + 1, sizeof(*s->t));
	s->n = 0;
	for (size_t i = 0; i < n; i++) {
		char err[512] = "";
		int r = tu_trace_load(paths[i], &s->t[s->n], err, sizeof(err));
		TU_CHECK(r == 0, "trace %s does not open: %s", paths[i], err);
		if (r == 0)
			s->n++;
		else
			tu_trace_free(&s->t[s->n]);
	}
	tu_free_list(paths);
	return s->n;
}

size_t tu_traceset_read(const char *dir, struct tu_traceset *s, int quiet)
{
	char **paths;
	size_t n = tu_list_traces(dir, &paths);
	s->t = calloc(n + 1, sizeof(*s->t));
	s->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (tu_trace_read(paths[i], &s->t[s->n], quiet) == 0)
			s->n++;
		else
			tu_trace_free(&s->t[s->n]);
	}
	tu_free_list(paths);
	return s->n;
}

struct tu_trace *tu_traceset_only(struct tu_traceset *s, const char *exe)
{
	struct tu_trace *found = NULL;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const char *base = strrchr(s->t[i].exe, '/');
		if (strcmp(base ? base + 1 : s->t[i].exe, exe) == 0) {
			found = &s->t[i];
			n++;
		}
	}
	TU_CHECK(n == 1, "%zu traces of %s, expected 1", n, exe);
	return n == 1 ? found : NULL;
}

void tu_traceset_free(struct tu_traceset *s)
{
	for (size_t i = 0; i < s->n; i++)
		tu_trace_free(&s->t[i]);
	free(s->t);
	s->t = NULL;
	s->n = 0;
}

size_t tu_traceset_with_mark(const struct tu_traceset *s, uint32_t id,
			     const struct tu_trace **first)
{
	size_t n = 0;
	*first = NULL;
	for (size_t i = 0; i < s->n; i++)
		if (tu_trace_has_mark(&s->t[i], id)) {
			if (n++ == 0)
				*first = &s->t[i];
		}
	return n;
}

void tu_traceset_dump(const struct tu_traceset *s)
{
	fprintf(stderr, "  %zu trace(s):\n", s->n);
	for (size_t i = 0; i < s->n; i++) {
		const struct tu_trace *t = &s->t[i];
		const char *base = strrchr(t->path, '/');
		fprintf(stderr,
			"   %s pid %u ppid %u exec_seq %u id %016llx parent "
			"%016llx kind %u marks %zu exits %zu problems %zu\n",
			base ? base + 1 : t->path, t->hdr.pid, t->hdr.ppid,
			t->hdr.exec_seq, (unsigned long long)t->hdr.trace_id,
			(unsigned long long)t->hdr.parent_trace_id,
			t->hdr.parent_kind, t->nmarks, t->nexits, t->nproblems);
		for (size_t k = 0; k < t->nexits; k++)
			fprintf(stderr, "     exit how %u status 0x%x\n",
				t->exits[k].how, (unsigned)t->exits[k].status);
		for (size_t k = 0; k < t->nproblems; k++)
			fprintf(stderr, "     problem: %s\n", t->problems[k]);
	}
}

/* ---- JSON -----------------------------------------------------------------
 */

struct tu_jp {
	const char *s;
	const char *err;
	int depth;
};

static void tu_jws(struct tu_jp *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static struct tu_json *tu_jnew(enum tu_jtype t)
{
	struct tu_json *j = calloc(1, sizeof(*j));
	if (j == NULL)
		abort();
	j->type = t;
	return j;
}

static void tu_jput_utf8(char **buf, size_t *len, size_t *cap, uint32_t c)
{
	char u[4];
	size_t n;
	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	tu_append(buf, len, cap, u, n);
}

static int tu_jhex4(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static char *tu_jstring(struct tu_jp *p)
{
	if (*p->s != '"') {
		p->err = "expected a string";
		return NULL;
	}
	p->s++;
	char *buf = calloc(1, 1);
	size_t len = 0, cap = 1;
	for (;;) {
		unsigned char c = (unsigned char)*p->s;
		if (c == '\0' || c < 0x20) {
			p->err = "unterminated string or control character";
			free(buf);
			return NULL;
		}
		p->s++;
		if (c == '"')
			return buf;
		if (c != '\\') {
			tu_append(&buf, &len, &cap, (const char *)&c, 1);
			continue;
		}
		char e = *p->s++;
		char o;
		switch (e) {
		case '"':
			o = '"';
			break;
		case '\\':
			o = '\\';
			break;
		case '/':
			o = '/';
			break;
		case 'b':
			o = '\b';
			break;
		case 'f':
			o = '\f';
			break;
		case 'n':
			o = '\n';
			break;
		case 'r':
			o = '\r';
			break;
		case 't':
			o = '\t';
			break;
		case 'u': {
			uint32_t cp;
			if (tu_jhex4(p->s, &cp) != 0)
				goto bad;
			p->s += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && p->s[0] == '\\' &&
			    p->s[1] == 'u') {
				uint32_t lo;
				if (tu_jhex4(p->s + 2, &lo) == 0 &&
				    lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
					p->s += 6;
				}
			}
			tu_jput_utf8(&buf, &len, &cap, cp);
			continue;
		}
		default:
			goto bad;
		}
		tu_append(&buf, &len, &cap, &o, 1);
	}
bad:
	p->err = "bad escape in string";
	free(buf);
	return NULL;
}

static struct tu_json *tu_jvalue(struct tu_jp *p);

static void tu_jpush(struct tu_json *j, char *key, struct tu_json *v)
{
	if ((j->n & (j->n - 1)) == 0) {
		size_t cap = j->n ? j->n * 2 : 1;
		j->items = realloc(j->items, cap * sizeof(*j->items));
		if (j->type == TU_JOBJ)
			j->keys = realloc(j->keys, cap * sizeof(*j->keys));
		if (j->items == NULL || (j->type == TU_JOBJ && j->keys == NULL))
			abort();
	}
	if (j->type == TU_JOBJ)
		j->keys[j->n] = key;
	j->items[j->n++] = v;
}

static struct tu_json *tu_jcontainer(struct tu_jp *p, int obj)
{
	struct tu_json *j = tu_jnew(obj ? TU_JOBJ : TU_JARR);
	char close_c = obj ? '}' : ']';
	p->s++;
	tu_jws(p);
	if (*p->s == close_c) {
		p->s++;
		return j;
	}
	for (;;) {
		char *key = NULL;
		tu_jws(p);
		if (obj) {
			key = tu_jstring(p);
			if (key == NULL)
				goto fail;
			tu_jws(p);
			if (*p->s != ':') {
				p->err = "expected ':'";
				free(key);
				goto fail;
			}
			p->s++;
		}
		struct tu_json *v = tu_jvalue(p);
		if (v == NULL) {
			free(key);
			goto fail;
		}
		tu_jpush(j, key, v);
		tu_jws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == close_c) {
			p->s++;
			return j;
		}
		p->err = obj ? "expected ',' or '}'" : "expected ',' or ']'";
		goto fail;
	}
fail:
	tu_json_free(j);
	return NULL;
}

static struct tu_json *tu_jvalue(struct tu_jp *p)
{
	tu_jws(p);
	if (++p->depth > 200) {
		p->err = "nested too deeply";
		return NULL;
	}
	struct tu_json *j = NULL;
	char c = *p->s;
	if (c == '{' || c == '[') {
		j = tu_jcontainer(p, c == '{');
	} else if (c == '"') {
		char *s = tu_jstring(p);
		if (s) {
			j = tu_jnew(TU_JSTR);
			j->str = s;
		}
	} else if (strncmp(p->s, "true", 4) == 0) {
		j = tu_jnew(TU_JBOOL);
		j->b = 1;
		p->s += 4;
	} else if (strncmp(p->s, "false", 5) == 0) {
		j = tu_jnew(TU_JBOOL);
		p->s += 5;
	} else if (strncmp(p->s, "null", 4) == 0) {
		j = tu_jnew(TU_JNULL);
		p->s += 4;
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		char *end;
		double d = strtod(p->s, &end);
		if (end == p->s) {
			p->err = "bad number";
		} else {
			j = tu_jnew(TU_JNUM);
			j->num = d;
			p->s = end;
		}
	} else {
		p->err = "unexpected character";
	}
	p->depth--;
	return j;
}

struct tu_json *tu_json_parse(const char *text, char *err, size_t errlen)
{
	struct tu_jp p = {text, NULL, 0};
	struct tu_json *j = tu_jvalue(&p);
	if (j) {
		tu_jws(&p);
		if (*p.s != '\0') {
			p.err = "trailing text after the JSON value";
			tu_json_free(j);
			j = NULL;
		}
	}
	if (j == NULL && errlen)
		snprintf(err, errlen, "%s at byte %zu", p.err ? p.err : "error",
			 (size_t)(p.s - text));
	return j;
}

void tu_json_free(struct tu_json *j)
{
	if (j == NULL)
		return;
	for (size_t i = 0; i < j->n; i++) {
		tu_json_free(j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->str);
	free(j);
}

const struct tu_json *tu_jget(const struct tu_json *j, const char *key)
{
	if (j == NULL || j->type != TU_JOBJ)
		return NULL;
	for (size_t i = 0; i < j->n; i++)
		if (strcmp(j->keys[i], key) == 0)
			return j->items[i];
	return NULL;
}

const char *tu_jstr(const struct tu_json *j, const char *key)
{
	const struct tu_json *v = tu_jget(j, key);
	return v && v->type == TU_JSTR ? v->str : NULL;
}

const char *tu_jmsg(const struct tu_json *f)
{
	static char *ring[8];
	static unsigned next;
	const char *m = tu_jstr(f, "message"), *d = tu_jstr(f, "detail");
	if (m == NULL)
		return NULL;
	char **slot = &ring[next++ % 8];
	free(*slot);
	size_t n = strlen(m) + (d ? strlen(d) + 2 : 0) + 1;
	*slot = malloc(n);
	if (*slot == NULL)
		return m;
	snprintf(*slot, n, "%s%s%s", m, d ? "; " : "", d ? d : "");
	return *slot;
}

size_t tu_jlen(const struct tu_json *j)
{
	return j && j->type == TU_JARR ? j->n : 0;
}

const struct tu_json *tu_jat(const struct tu_json *j, size_t i)
{
	return j && j->type == TU_JARR && i < j->n ? j->items[i] : NULL;
}

/* ---- dltrace-analyze ---------------------------------------------------- */

int tu_analyze_dir(struct tu_proc *p, const char *subcmd, const char *opt,
		   const char *dir)
{
	/* The analyzer is given every file, as a user gives it a directory:
	 * the companions are read with their processes' traces. */
	char **paths;
	size_t n = tu_list_files(dir, &paths, 1);
	const char **argv = calloc(n + 4, sizeof(*argv));
	size_t k = 0;
	argv[k++] = DLT_TEST_ANALYZE;
	argv[k++] = subcmd;
	if (opt)
		argv[k++] = opt;
	for (size_t i = 0; i < n; i++)
		argv[k++] = paths[i];
	argv[k] = NULL;
	int r = tu_run(p, argv, NULL, 60000);
	free(argv);
	tu_free_list(paths);
	return r;
}

struct tu_json *tu_check_json(const char *dir)
{
	struct tu_proc p;
	int r = tu_analyze_dir(&p, "check", "--json", dir);
	int rc = tu_exit_code(p.status);
	/* 1: findings at or above the default --fail-on; still a report. */
	TU_CHECK(r == 0 && (rc == 0 || rc == 1),
		 "dltrace-analyze check --json on %s: %s, stderr:\n%s", dir,
		 r ? "timed out" : tu_status_str(p.status), p.err);
	struct tu_json *j = NULL;
	if (r == 0 && (rc == 0 || rc == 1)) {
		char err[256];
		j = tu_json_parse(p.out, err, sizeof(err));
		TU_CHECK(j != NULL, "check --json output is not JSON (%s)",
			 err);
	}
	tu_proc_free(&p);
	return j;
}

struct tu_json *tu_libs_json(const char *dir)
{
	struct tu_proc p;
	int r = tu_analyze_dir(&p, "libs", "--json", dir);
	TU_CHECK(r == 0 && tu_exit_code(p.status) == 0,
		 "dltrace-analyze libs --json on %s: %s, stderr:\n%s", dir,
		 r ? "timed out" : tu_status_str(p.status), p.err);
	struct tu_json *j = NULL;
	if (r == 0 && tu_exit_code(p.status) == 0) {
		char err[256];
		j = tu_json_parse(p.out, err, sizeof(err));
		TU_CHECK(j != NULL,
			 "libs --json output is not JSON (%s):\n%.4000s", err,
			 p.out);
		TU_CHECK(j == NULL || tu_jget(j, "processes") != NULL,
			 "libs --json output has no \"processes\":\n%.2000s",
			 p.out);
	}
	tu_proc_free(&p);
	return j;
}

const char *tu_findings_doc(void)
{
	static char *doc;
	if (doc)
		return doc;
	FILE *f = fopen(DLT_TEST_SRC "/docs/findings.md", "r");
	TU_CHECK_FATAL(f != NULL, "cannot read %s/docs/findings.md",
		       DLT_TEST_SRC);
	size_t cap = 1 << 16, n = 0;
	doc = malloc(cap);
	for (size_t r; doc && (r = fread(doc + n, 1, cap - n - 1, f)) > 0;) {
		n += r;
		if (n + 1 == cap)
			doc = realloc(doc, cap *= 2);
	}
	fclose(f);
	TU_CHECK_FATAL(doc != NULL, "out of memory");
	doc[n] = '\0';
	return doc;
}

char *tu_findings_section(const char *code)
{
	const char *doc = tu_findings_doc();
	char *head = tu_strfmt("\n### %s\n", code);
	const char *at = strstr(doc, head);
	free(head);
	if (at == NULL)
		return NULL;
	at++;
	const char *end = strstr(at + 4, "\n## ");
	const char *next = strstr(at + 4, "\n### ");
	if (end == NULL || (next && next < end))
		end = next;
	size_t len = end ? (size_t)(end - at) : strlen(at);
	return strndup(at, len);
}

void tu_expect_documented(const struct tu_json *f)
{
	const char *code = tu_jstr(f, "code");
	char *sec = code ? tu_findings_section(code) : NULL;
	TU_CHECK(sec != NULL, "finding %s has no section in docs/findings.md",
		 code ? code : "(no code)");
	const char *fix = tu_jstr(f, "fix");
	const char *msg = tu_jstr(f, "message");
	TU_CHECK(fix && fix[0], "%s: the finding has no fix: %s",
		 code ? code : "?", msg ? msg : "(no message)");
	const struct tu_json *ev = tu_jget(f, "evidence");
	for (size_t i = 0; sec && ev && ev->type == TU_JOBJ && i < ev->n; i++) {
		char *quoted = tu_strfmt("`%s`", ev->keys[i]);
		TU_CHECK(strstr(sec, quoted) != NULL,
			 "%s: evidence key %s is not in its section of "
			 "docs/findings.md",
			 code, quoted);
		free(quoted);
	}
	free(sec);
}

void tu_expect_healthy(const char *what, const char *dir)
{
	static const char *const cmds[] = {"check", "hangs"};
	for (size_t c = 0; c < 2; c++) {
		struct tu_proc p;
		int r = tu_analyze_dir(&p, cmds[c], "--json", dir);
		int rc = tu_exit_code(p.status);
		char err[256];
		struct tu_json *j =
			r == 0 ? tu_json_parse(p.out, err, sizeof(err)) : NULL;
		TU_CHECK(j != NULL && rc == 0,
			 "%s: dltrace-analyze %s --json: %s\n%s", what, cmds[c],
			 r ? "timed out" : tu_status_str(p.status), p.err);
		const struct tu_json *fs = tu_jget(j, "findings");
		for (size_t i = 0; i < tu_jlen(fs); i++) {
			const struct tu_json *f = tu_jat(fs, i);
			const char *sev = tu_jstr(f, "severity");
			tu_expect_documented(f);
			TU_CHECK(sev && strcmp(sev, "info") == 0,
				 "%s: a healthy run, yet %s says %s %s: %s",
				 what, cmds[c], sev ? sev : "?",
				 tu_jstr(f, "code"), tu_jstr(f, "message"));
		}
		/* Every process the command started ended well, or its
		 * parent carried on from its failure (what the launcher's
		 * verdict leaves out); the command's own status is the
		 * scenario's. */
		const struct tu_json *ps = tu_jget(j, "processes");
		for (size_t i = 0; c == 0 && i < tu_jlen(ps); i++) {
			const struct tu_json *q = tu_jat(ps, i);
			const struct tu_json *ppid = tu_jget(q, "ppid");
			int child = 0;
			for (size_t k = 0; ppid && k < tu_jlen(ps); k++) {
				const struct tu_json *pid =
					tu_jget(tu_jat(ps, k), "pid");
				child |= pid && pid->type == TU_JNUM &&
					 ppid->type == TU_JNUM &&
					 pid->num == ppid->num;
			}
			if (!child)
				continue;
			const struct tu_json *code = tu_jget(q, "exit_code");
			const struct tu_json *sig = tu_jget(q, "signal");
			const struct tu_json *h = tu_jget(q, "failure_handled");
			int ok = (code && code->type == TU_JNULL) ||
				 (code && code->type == TU_JNUM &&
				  code->num == 0);
			ok = ok && sig && sig->type == TU_JNULL;
			TU_CHECK(ok || (h && h->type == TU_JBOOL && h->b),
				 "%s: a healthy run, yet %s ended \"%s\"", what,
				 tu_jstr(q, "exe"), tu_jstr(q, "ended"));
		}
		tu_json_free(j);
		tu_proc_free(&p);
	}
}

/* ---- running suites -------------------------------------------------------
 */

/* Tests that called tu_skip, by CUnit test: a test counts once however
 * often it skips. */
static const void *tu_skipped_tests[256];
static size_t tu_nskipped, tu_nskipped_parts;

static void tu_vskip(const char *kind, const char *fmt, va_list ap)
{
	CU_pTest t = CU_get_current_test();
	printf("\n    SKIPPED %s of \"%s\": ", kind, t ? t->pName : "?");
	vprintf(fmt, ap);
	printf("\n");
}

void tu_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tu_vskip("test", fmt, ap);
	va_end(ap);
	const void *t = CU_get_current_test();
	for (size_t i = 0; i < tu_nskipped; i++)
		if (tu_skipped_tests[i] == t)
			return;
	if (tu_nskipped < sizeof(tu_skipped_tests) / sizeof(*tu_skipped_tests))
		tu_skipped_tests[tu_nskipped++] = t;
}

void tu_skip_part(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tu_vskip("part", fmt, ap);
	va_end(ap);
	tu_nskipped_parts++;
}

int tu_main(int argc, char **argv, const struct tu_suite *suites)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	/* A child that dies early must not take the test down with it. */
	signal(SIGPIPE, SIG_IGN);
	for (int a = 1; a < argc; a++) {
		int known = 0;
		for (const struct tu_suite *s = suites; s->name; s++)
			known |= strcmp(s->name, argv[a]) == 0;
		if (!known) {
			fprintf(stderr,
				"%s: no suite named %s; suites:", argv[0],
				argv[a]);
			for (const struct tu_suite *s = suites; s->name; s++)
				fprintf(stderr, " %s", s->name);
			fprintf(stderr, "\n");
			return 2;
		}
	}
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	int added = 0, skipped = 0;
	for (const struct tu_suite *s = suites; s->name; s++) {
		int wanted = argc == 1;
		for (int a = 1; a < argc; a++)
			wanted |= strcmp(s->name, argv[a]) == 0;
		if (!wanted)
			continue;
		const char *why = s->skip_reason ? s->skip_reason() : NULL;
		if (why) {
			printf("SKIPPED suite %s: %s\n", s->name, why);
			skipped++;
			continue;
		}
		CU_pSuite cs = CU_add_suite(s->name, NULL, NULL);
		if (cs == NULL)
			return 2;
		for (const struct tu_test *t = s->tests; t->name; t++)
			if (CU_add_test(cs, t->name, t->fn) == NULL)
				return 2;
		added++;
	}
	if (added == 0 && skipped > 0) {
		CU_cleanup_registry();
		return 77;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned fails = CU_get_number_of_failures();
	unsigned tests_failed = CU_get_number_of_tests_failed();
	unsigned ran = CU_get_number_of_tests_run();
	CU_cleanup_registry();
	printf("\n");
	if (tu_nskipped || tu_nskipped_parts || skipped)
		printf("SKIPPED: %zu of %u tests, %zu parts of tests, %d "
		       "suites\n",
		       tu_nskipped, ran, tu_nskipped_parts, skipped);
	if (fails || tests_failed)
		return 1;
	/* A run in which nothing was tried is no pass. */
	return ran > 0 && tu_nskipped == ran ? 77 : 0;
}

int tu_group_alive(pid_t pgid, int ms)
{
	int alive = 0;
	for (int waited = 0; waited <= ms; waited += 100) {
		alive = 0;
		DIR *d = opendir("/proc");
		for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
			int pid = atoi(e->d_name);
			if (pid <= 0)
				continue;
			char path[64], buf[512];
			snprintf(path, sizeof(path), "/proc/%d/stat", pid);
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			ssize_t l = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (l <= 0)
				continue;
			buf[l] = '\0';
			const char *rp = strrchr(buf, ')');
			char state;
			int ppid, pgrp;
			if (rp &&
			    sscanf(rp + 2, "%c %d %d", &state, &ppid, &pgrp) ==
				    3 &&
			    pgrp == pgid && state != 'Z' && state != 'X')
				alive++;
		}
		if (d)
			closedir(d);
		if (alive == 0)
			break;
		usleep(100 * 1000);
	}
	return alive;
}

void tu_kill_group(struct tu_proc *p)
{
	kill(-p->pid, SIGKILL);
	tu_proc_wait(p, 10000);
	TU_CHECK(tu_group_alive(p->pid, 10000) == 0,
		 "process group %d still runs 10 s after SIGKILL", (int)p->pid);
}

int tu_free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t l = sizeof(a);
	int port = -1;
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &l) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

const char *tu_python(void)
{
	const char *p = getenv("DLT_TEST_PYTHON");
	return p && *p ? p : "/usr/bin/python3";
}

const char *tu_python_skip(const char *module)
{
	static char why[512];
	if (access(tu_python(), X_OK) != 0) {
		snprintf(why, sizeof(why), "%s does not exist", tu_python());
		return why;
	}
	char *import = tu_strfmt("import %s", module);
	const char *cmd[] = {tu_python(), "-c", import, NULL};
	struct tu_proc p;
	tu_run(&p, cmd, NULL, 120000);
	int ok = tu_exit_code(p.status) == 0;
	tu_proc_free(&p);
	free(import);
	snprintf(why, sizeof(why),
		 "%s cannot import %s (Debian's python3-torch not installed "
		 "here)",
		 tu_python(), module);
	return ok ? NULL : why;
}

/* The traced run must look like the plain one: same exit status, same
 * stdout, same stderr once dltrace's own lines are taken out. */
static void tu_expect_same_output(const char *what, const struct tu_proc *plain,
				  const struct tu_proc *traced,
				  int check_stderr);

void tu_expect_same_run(const char *what, const struct tu_proc *plain,
			const struct tu_proc *traced, int check_stderr)
{
	TU_CHECK(!traced->timed_out && !plain->timed_out, "%s: timed out",
		 what);
	TU_CHECK(plain->status == traced->status,
		 "%s: plain run %s, traced run %s; traced stderr:\n%s", what,
		 tu_status_str(plain->status), tu_status_str(traced->status),
		 traced->err);
	tu_expect_same_output(what, plain, traced, check_stderr);
}

void tu_expect_same_launched(const char *what, const struct tu_proc *plain,
			     const struct tu_proc *traced, int check_stderr)
{
	TU_CHECK(!traced->timed_out && !plain->timed_out, "%s: timed out",
		 what);
	TU_CHECK(plain->status != -1 &&
			 tu_exit_code(plain->status) ==
				 tu_exit_code(traced->status) &&
			 WIFEXITED(traced->status),
		 "%s: plain run %s, dltrace %s; traced stderr:\n%s", what,
		 tu_status_str(plain->status), tu_status_str(traced->status),
		 traced->err);
	tu_expect_same_output(what, plain, traced, check_stderr);
}

static void tu_expect_same_output(const char *what, const struct tu_proc *plain,
				  const struct tu_proc *traced,
				  int check_stderr)
{
	TU_CHECK(strcmp(plain->out, traced->out) == 0,
		 "%s: stdout differs.\n--- plain:\n%s--- traced:\n%s", what,
		 plain->out, traced->out);
	if (!check_stderr)
		return;
	char *pe = tu_drop_lines(plain->err, "dltrace: ");
	char *te = tu_drop_lines(traced->err, "dltrace: ");
	TU_CHECK(strcmp(pe, te) == 0,
		 "%s: the program's stderr differs.\n--- plain:\n%s--- traced "
		 "(dltrace lines removed):\n%s",
		 what, pe, te);
	free(pe);
	free(te);
}

/* Value of "PREFIX<value>" on a line of text, copied into buf. */
const char *tu_line_value(const char *text, const char *prefix, char *buf,
			  size_t cap)
{
	size_t pl = strlen(prefix);
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (n >= pl && strncmp(l, prefix, pl) == 0) {
			size_t v = n - pl < cap - 1 ? n - pl : cap - 1;
			memcpy(buf, l + pl, v);
			buf[v] = '\0';
			return buf;
		}
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}
