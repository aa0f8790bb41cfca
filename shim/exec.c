/* exec and posix_spawn: the new image or child is traced too (what each
 * does to dltrace's own state around the real call is lifecycle.c's).  Its
 * environment names this library in LD_PRELOAD and LD_AUDIT and carries
 * DLTRACE_DIR, DLTRACE_RUN and DLTRACE_PARENT, even when the program passes an
 * environment of its own; and the restart of a process that was started
 * with LD_PRELOAD alone, to have the audit half too. */
#define _GNU_SOURCE
#include "exec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "lifecycle.h"
#include "real.h"
#include "strbuf.h"
#include "state.h"

extern char **environ;

static int dlt_env_has(char *const *env, const char *name, const char *want)
{
	size_t nl = strlen(name);
	for (; env && *env; env++) {
		if (strncmp(*env, name, nl) == 0 && (*env)[nl] == '=')
			return want == NULL ||
			       dlt_list_has(*env + nl + 1, want);
	}
	return 0;
}

static const char *dlt_env_get(char *const *env, const char *name)
{
	size_t nl = strlen(name);
	for (; env && *env; env++)
		if (strncmp(*env, name, nl) == 0 && (*env)[nl] == '=')
			return *env + nl + 1;
	return NULL;
}

#define DLT_ENV_EXTRA 6
#define DLT_ENV_BUF (3 * DLT_PATH_MAX + 256)

/* The strings of a child's environment, one after the other in one
 * buffer, each built with common/strbuf.h (no printf: each child of a
 * traced shell runs this just before its exec). */
struct dlt_envb {
	char *buf;
	size_t cap;
	size_t used; /* bytes of buf taken by finished strings */
	struct dlt_strbuf sb;
};

static void dlt_envb_begin(struct dlt_envb *b)
{
	dlt_sb_init(&b->sb, b->buf + b->used, b->cap - b->used);
}

/* Ends the string begun: out[(*n)++] when it fitted. */
static void dlt_envb_end(struct dlt_envb *b, char **out, size_t *n)
{
	if (dlt_sb_done(&b->sb) == 0) {
		out[(*n)++] = b->sb.buf;
		b->used += b->sb.len + 1;
	}
}

/* Builds in out[] (capacity n+DLT_ENV_EXTRA+1) the environment a traced
 * child needs, its strings in buf (cap bytes): LD_PRELOAD and LD_AUDIT
 * naming this library, DLTRACE_DIR, DLTRACE_RUN (the launcher's run, when
 * there is one) and DLTRACE_PARENT.  No allocation: this can run in a
 * vfork child. */
static void dlt_child_env(char *const *env, char **out, char *buf, size_t cap,
			  char kind)
{
	char *const *env0 = env;
	size_t n = 0;
	struct dlt_envb b = {.buf = buf, .cap = cap, .used = 0};
	const char *self = dlt_self_file();
	int fix_preload = !dlt_env_has(env, "LD_PRELOAD", self);
	int fix_audit =
		dlt_have_audit && !dlt_env_has(env, "LD_AUDIT", dlt_audit_path);
	char dirb[DLT_TRACE_PATH_MAX];
	const char *dir = dlt_dir_now(dirb, sizeof(dirb));
	int fix_dir = dir[0] == '/' && !dlt_env_has(env, "DLTRACE_DIR", NULL);
	int fix_run = dlt_cfg.run_id && !dlt_env_has(env, "DLTRACE_RUN", NULL);
	for (; env && *env; env++) {
		if ((fix_preload && strncmp(*env, "LD_PRELOAD=", 11) == 0) ||
		    (fix_audit && strncmp(*env, "LD_AUDIT=", 9) == 0) ||
		    strncmp(*env, "DLTRACE_PARENT=", 15) == 0)
			continue;
		out[n++] = *env;
	}
	if (fix_preload) {
		/* Ours first, the program's own preloads after it. */
		const char *old = dlt_env_get(env0, "LD_PRELOAD");
		dlt_envb_begin(&b);
		dlt_sb_str(&b.sb, "LD_PRELOAD=");
		dlt_sb_str(&b.sb, self);
		if (old && *old) {
			dlt_sb_str(&b.sb, ":");
			dlt_sb_str(&b.sb, old);
		}
		dlt_envb_end(&b, out, &n);
	}
	if (fix_audit) {
		dlt_envb_begin(&b);
		dlt_sb_str(&b.sb, "LD_AUDIT=");
		dlt_sb_str(&b.sb, dlt_audit_path);
		dlt_envb_end(&b, out, &n);
	}
	if (fix_dir) {
		dlt_envb_begin(&b);
		dlt_sb_str(&b.sb, "DLTRACE_DIR=");
		dlt_sb_str(&b.sb, dir);
		dlt_envb_end(&b, out, &n);
	}
	if (fix_run) {
		dlt_envb_begin(&b);
		dlt_sb_str(&b.sb, "DLTRACE_RUN=");
		dlt_sb_uint(&b.sb, dlt_cfg.run_id, 16);
		dlt_envb_end(&b, out, &n);
	}
	struct dlt_writer *w = dlt_writer_on();
	char pk;
	int ppid;
	uint64_t pid_trace;
	uint32_t pseq;
	if (w && dlt_writer_parent(w, kind == 'e', &pk, &ppid, &pid_trace,
				   &pseq) == 0) {
		/* DLTRACE_PARENT=KIND:PID:TRACE_ID(hex):SEQ, as
		 * shim/state.c reads it. */
		dlt_envb_begin(&b);
		dlt_sb_str(&b.sb, "DLTRACE_PARENT=");
		dlt_sb_char(&b.sb, pk);
		dlt_sb_char(&b.sb, ':');
		dlt_sb_int(&b.sb, ppid);
		dlt_sb_char(&b.sb, ':');
		dlt_sb_uint(&b.sb, pid_trace, 16);
		dlt_sb_char(&b.sb, ':');
		dlt_sb_uint(&b.sb, pseq, 10);
		dlt_envb_end(&b, out, &n);
	}
	out[n] = NULL;
}

/* Bytes dlt_child_env may write into its buffer for env, at most
 * DLT_ENV_BUF: the strings it adds, with the program's own LD_PRELOAD
 * after ours.  The buffer is on the stack of a child that is about to
 * exec, where each page it reaches is a page fault (a copy of its
 * parent's or a new one): sized for what it holds, it reaches one or two
 * pages instead of four (issue 31). */
static size_t dlt_child_env_size(char *const *env)
{
	const char *old = dlt_env_get(env, "LD_PRELOAD");
	size_t n = strlen(dlt_self_file()) + (old ? strlen(old) + 1 : 0) +
		   (dlt_audit_path ? strlen(dlt_audit_path) : 0) +
		   DLT_TRACE_PATH_MAX + 256;
	return n < DLT_ENV_BUF ? n : DLT_ENV_BUF;
}

static size_t dlt_env_count(char *const *env)
{
	size_t n = 0;
	while (env && env[n])
		n++;
	return n;
}

/* Runs fn with an environment fixed for tracing; the array lives on the
 * stack for ordinary sizes and in an anonymous mapping for huge ones. */
#define DLT_WITH_CHILD_ENV(envp, kind, fixed, body)                            \
	do {                                                                   \
		size_t dlt_n_ = dlt_env_count(envp) + DLT_ENV_EXTRA + 1;       \
		char *dlt_stack_[dlt_n_ <= 4096 ? dlt_n_ : 1];                 \
		char **fixed = dlt_stack_;                                     \
		void *dlt_map_ = NULL;                                         \
		if (dlt_n_ > 4096) {                                           \
			dlt_map_ = mmap(NULL, dlt_n_ * sizeof(char *),         \
					PROT_READ | PROT_WRITE,                \
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);   \
			fixed = dlt_map_ == MAP_FAILED ? NULL : dlt_map_;      \
		}                                                              \
		char dlt_buf_[dlt_w ? dlt_child_env_size(envp) : 1];           \
		if (fixed && dlt_w)                                            \
			dlt_child_env(envp, fixed, dlt_buf_, sizeof(dlt_buf_), \
				      kind);                                   \
		else                                                           \
			fixed = (char **)(envp);                               \
		body;                                                          \
		if (dlt_map_ && dlt_map_ != MAP_FAILED)                        \
			munmap(dlt_map_, dlt_n_ * sizeof(char *));             \
	} while (0)

/* execve and execvpe: recorded before (an exec that works does not
 * return) and again if it failed. */
static int dlt_exec(dlt_execve_fn real, const char *path, char *const argv[],
		    char *const envp[])
{
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	int r;
	dlt_lc_exec_prepare(path);
	DLT_WITH_CHILD_ENV(envp, 'e', env, r = real(path, argv, env));
	int e = errno;
	dlt_lc_exec_failed(path, e);
	errno = e;
	return r;
}

DLT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return dlt_exec(DLT_REAL(execve), path, argv, envp);
}

DLT_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

DLT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return dlt_exec(DLT_REAL(execvpe), file, argv, envp);
}

DLT_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl* take their arguments inline; gather them into an array. */
#define DLT_GATHER_ARGS(first, ap, arr, extra_env)                   \
	size_t dlt_cnt_ = 1;                                         \
	va_list dlt_ap2_;                                            \
	va_copy(dlt_ap2_, ap);                                       \
	while (va_arg(dlt_ap2_, char *) != NULL)                     \
		dlt_cnt_++;                                          \
	va_end(dlt_ap2_);                                            \
	char *arr[dlt_cnt_ + 1];                                     \
	arr[0] = (char *)(first);                                    \
	for (size_t i_ = 1; i_ <= dlt_cnt_; i_++)                    \
		arr[i_] = i_ < dlt_cnt_ ? va_arg(ap, char *) : NULL; \
	if (extra_env)                                               \
		(void)va_arg(ap, char *); /* the NULL */

DLT_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	DLT_GATHER_ARGS(arg, ap, argv, 0);
	va_end(ap);
	return execve(path, argv, environ);
}

DLT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	DLT_GATHER_ARGS(arg, ap, argv, 0);
	va_end(ap);
	return execvpe(file, argv, environ);
}

DLT_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	DLT_GATHER_ARGS(arg, ap, argv, 1);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

/* posix_spawn and posix_spawnp: the child gets the traced environment. */
static int dlt_spawn(dlt_spawn_fn real, pid_t *pid, const char *path,
		     const posix_spawn_file_actions_t *fa,
		     const posix_spawnattr_t *attr, char *const argv[],
		     char *const envp[])
{
	if (real == NULL)
		return ENOSYS;
	dlt_lc_spawn_prepare();
	int r;
	DLT_WITH_CHILD_ENV(envp, 's', env,
			   r = real(pid, path, fa, attr, argv, env));
	return r;
}

DLT_EXPORT int posix_spawn(pid_t *pid, const char *path,
			   const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[],
			   char *const envp[])
{
	return dlt_spawn(DLT_REAL(posix_spawn), pid, path, fa, attr, argv,
			 envp);
}

DLT_EXPORT int posix_spawnp(pid_t *pid, const char *file,
			    const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[],
			    char *const envp[])
{
	return dlt_spawn(DLT_REAL(posix_spawnp), pid, file, fa, attr, argv,
			 envp);
}

/* After the restart of dlt_maybe_reexec: the process's own name again. */
void dlt_restore_comm(void)
{
	const char *c = dlt_cfg.reexec_comm;
	char now[32] = "";
	if (!dlt_cfg.reexec_set || *c == '\0' || strcmp(c, "1") == 0 ||
	    prctl(PR_GET_NAME, now, 0, 0, 0) != 0 || strcmp(now, "exe") != 0)
		return;
	prctl(PR_SET_NAME, c, 0, 0, 0);
	/* Once: a child that inherits the variable keeps its own name. */
	setenv("DLTRACE_REEXEC", "1", 1);
}

/* Without the audit half nothing says why each library was chosen.  Unless
 * told not to, start the program again once, with LD_AUDIT added, before it
 * has run any of its own code (main has not been called yet). */
void dlt_maybe_reexec(char **argv)
{
	/* The audit module: libdltrace-audit.so beside this library, which
	 * brings no C library of its own into the process (docs/design.md),
	 * else this library itself. */
	static char module[DLT_PATH_MAX];
	struct dlt_strbuf mb;
	const char *self = dlt_self_file();
	const char *slash = strrchr(self, '/');
	dlt_sb_init(&mb, module, sizeof(module));
	if (slash) {
		dlt_sb_mem(&mb, self, (size_t)(slash - self) + 1);
		dlt_sb_str(&mb, DLT_AUDIT_MODULE);
	}
	const char *audit_lib =
		slash && dlt_sb_done(&mb) == 0 && access(module, R_OK) == 0
			? module
			: self;
	/* LD_AUDIT already names us: the audit half ran (or failed and said
	 * so); a restart would change nothing. */
	if (dlt_cfg.audit_off || dlt_cfg.reexec_set ||
	    dlt_env_has(environ, "LD_AUDIT", self) ||
	    dlt_env_has(environ, "LD_AUDIT", audit_lib) || argv == NULL ||
	    self[0] == '\0')
		return;
	const char *exe = dlt_exe_path();
	if (exe[0] == '\0')
		return;
	/* Run as `ld.so prog`, /proc/self/exe is the loader: argv would not
	 * survive a restart. */
	const char *base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	if (strncmp(base, "ld-", 3) == 0 || strncmp(base, "ld.so", 5) == 0)
		return;
	size_t cnt = dlt_env_count(environ);
	char **env =
		mmap(NULL, (cnt + 4) * sizeof(char *), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (env == MAP_FAILED)
		return;
	static char audit[DLT_PATH_MAX + 16];
	const char *old = getenv("LD_AUDIT");
	if (old && *old)
		snprintf(audit, sizeof(audit), "LD_AUDIT=%s:%s", audit_lib,
			 old);
	else
		snprintf(audit, sizeof(audit), "LD_AUDIT=%s", audit_lib);
	size_t k = 0;
	for (size_t i = 0; i < cnt; i++)
		if (strncmp(environ[i], "LD_AUDIT=", 9) != 0)
			env[k++] = environ[i];
	env[k++] = audit;
	/* Executing /proc/self/exe names the process "exe" (what ps, pgrep
	 * and pkill match): the restarted process takes its name back from
	 * here (dlt_restore_comm). */
	static char reexec[64];
	char comm[32] = "";
	if (prctl(PR_GET_NAME, comm, 0, 0, 0) != 0)
		comm[0] = '\0';
	comm[16] = '\0';
	snprintf(reexec, sizeof(reexec), "DLTRACE_REEXEC=%s",
		 comm[0] ? comm : "1");
	env[k++] = reexec;
	env[k] = NULL;
	DLT_REAL(execve)("/proc/self/exe", argv, env);
	/* Still here: carry on without the audit half. */
	munmap(env, (cnt + 4) * sizeof(char *));
}
