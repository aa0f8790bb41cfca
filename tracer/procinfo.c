/* The PROC, ARG and ENV records: who this process is. */
#include "writer_int.h"

#include "record.h"
#include "hot.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Reads up to cap bytes of fd into buf; returns bytes read. */
static size_t dlt_read_fd(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	return n;
}

/* Reads a small /proc file into buf; returns bytes read. */
static size_t dlt_read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t n = dlt_read_fd(fd, buf, cap);
	close(fd);
	return n;
}

/* /proc/self/cmdline: the first cap bytes into buf (bytes read returned);
 * *more gets the number of arguments that start after them. */
static size_t dlt_read_cmdline(char *buf, size_t cap, uint32_t *more)
{
	*more = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t n = dlt_read_fd(fd, buf, cap);
	if (n == cap) {
		/* Each argument ends in a NUL: those past the buffer are
		 * counted, the one it cut already was. */
		int in_cut = buf[n - 1] != '\0';
		char rest[4096];
		ssize_t r;
		while ((r = read(fd, rest, sizeof(rest))) > 0)
			for (ssize_t i = 0; i < r; i++) {
				if (rest[i] != '\0')
					continue;
				if (in_cut)
					in_cut = 0;
				else
					(*more)++;
			}
	}
	close(fd);
	return n;
}

DLT_HOT const char *dlt_exe_hint;

const char *dlt_exe_path_into(char *buf, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
	/* A path that filled the buffer may have been cut: none, rather
	 * than a wrong one. */
	buf[n > 0 && (size_t)n < cap - 1 ? n : 0] = '\0';
	return buf;
}

const char *dlt_exe_path(void)
{
	/* Per copy of the library and per process image: an exec makes a new
	 * image with this buffer zeroed, a fork keeps the same program.  A
	 * race between threads writes the same bytes. */
	static char exe[DLT_PATH_MAX];
	if (exe[0] == '\0')
		dlt_exe_path_into(exe, sizeof(exe));
	return exe;
}

void dlt_write_process_info(struct dlt_writer *w, struct dlt_tls *t,
			    int redact_argv)
{
	dlt_write_process_info_from(w, t, redact_argv, NULL);
}

void dlt_write_process_info_from(struct dlt_writer *w, struct dlt_tls *t,
				 int redact_argv,
				 const struct dlt_proc_blocks *b)
{
	/* Page-aligned: a command line and environment of a few KiB touch
	 * as few pages as they fill. */
	static _Alignas(4096) char buf[65536];
	/* What does not fit is read from /proc, where the rest is counted. */
	if (b && (b->args_len >= sizeof(buf) || b->env_len >= sizeof(buf)))
		b = NULL;
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	/* The executable's path, then the working directory's, in one
	 * buffer on the stack, each made a string before the next. */
	char path[DLT_PATH_MAX];

	/* argv from /proc: the same in both library copies and unaffected by
	 * what the program has done to its own argv array so far.  The first
	 * 64 KiB are recorded; the rest is only counted, and PROC says so
	 * (a command of 30,000 arguments was cut at 1,339 without a word). */
	uint32_t more = 0;
	const char *args = buf;
	size_t n;
	if (b) {
		/* Each string ends in its NUL, the last one too. */
		args = b->args;
		n = b->args_len;
	} else {
		n = dlt_read_cmdline(buf, sizeof(buf) - 1, &more);
		if (n > sizeof(buf) - 1) /* never; GCC cannot tell */
			n = sizeof(buf) - 1;
		buf[n] = '\0';
	}
	uint32_t argc = 0;
	for (size_t i = 0; i < n; i += strlen(args + i) + 1)
		argc++;

	struct dlt_rec_proc *p = dlt_rec_reserve(w, t, sizeof(*p));
	uint32_t hs = dlt_str(w, t, host);
	uint32_t es =
		dlt_str(w, t,
			dlt_exe_hint ? dlt_exe_hint
				     : dlt_exe_path_into(path, sizeof(path)));
	if (getcwd(path, sizeof(path)) == NULL)
		path[0] = '\0';
	uint32_t cs = dlt_str(w, t, path);
	if (p) {
		p->h.ts = dlt_now_ns();
		p->host = hs;
		p->exe = es;
		p->cwd = cs;
		p->rank = dlt_env_rank();
		p->world_size = dlt_env_world_size();
		p->argc = argc + more;
		dlt_rec_commit(p, DLT_REC_PROC, more ? DLT_PROC_ARGV_CUT : 0,
			       sizeof(*p));
	}
	uint32_t idx = 0;
	for (size_t i = 0; i < n; idx++) {
		size_t l = strlen(args + i);
		/* Longer than the string limit, or the last one read when the
		 * buffer filled up. */
		int cut = l > DLT_MAX_STR || i + l >= n;
		/* Redaction keeps argv[0], so the program is still named. */
		uint32_t s = (redact_argv && idx > 0)
				     ? dlt_str(w, t, "<redacted>")
				     : dlt_strn(w, t, args + i, l);
		struct dlt_rec_arg *a = dlt_rec_reserve(w, t, sizeof(*a));
		if (a) {
			a->h.ts = 0;
			a->index = idx;
			a->str = s;
			dlt_rec_commit(a, DLT_REC_ARG, (uint16_t)cut,
				       sizeof(*a));
		}
		i += l + 1;
	}

	const char *env = buf;
	if (b) {
		env = b->env;
		n = b->env_len;
	} else {
		n = dlt_read_file("/proc/self/environ", buf, sizeof(buf) - 1);
		buf[n] = '\0';
	}
	for (size_t i = 0; i < n;) {
		const char *e = env + i;
		size_t l = strlen(e);
		i += l + 1;
		const char *eq = memchr(e, '=', l);
		if (eq == NULL)
			continue;
		size_t nl = (size_t)(eq - e);
		if (!dlt_env_allowed(e, nl))
			continue;
		int secret = dlt_env_secret(e, nl);
		uint32_t ns = dlt_strn(w, t, e, nl);
		uint32_t vs = secret ? dlt_str(w, t, "<redacted>")
				     : dlt_strn(w, t, eq + 1, l - nl - 1);
		struct dlt_rec_env *r = dlt_rec_reserve(w, t, sizeof(*r));
		if (r) {
			r->h.ts = 0;
			r->name = ns;
			r->value = vs;
			dlt_rec_commit(r, DLT_REC_ENV, (uint16_t)secret,
				       sizeof(*r));
		}
	}
}
