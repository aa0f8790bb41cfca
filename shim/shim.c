/* The LD_PRELOAD half of libdltrace.so: process start and end, fork, exec,
 * dlopen/dlerror, and the public dltrace_mark().
 *
 * Rules (docs/design.md): never change what the host observes, never take
 * it down.  Wrappers resolve the real function before anything else, record
 * only when tracing is on, and leave errno and dlerror() as the real call
 * left them. */
#define _GNU_SOURCE
#include "shim.h"

#include "api.h"
#include "prefetch.h"
#include "watchdog.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

struct dlt_writer *dlt_w;
__thread struct dlt_tls dlt_tls;
struct dlt_rendezvous dlt_rendezvous;
char dlt_self_path[DLT_PATH_MAX];

extern char **environ;

/* The writer of a process without the audit half (DLTRACE_AUDIT=0). */
static struct dlt_writer dlt_own_writer;
static int dlt_is_preload; /* this copy is the LD_PRELOAD one */
static int dlt_have_audit; /* the audit copy handed us its writer */
static int dlt_exit_recorded;
static char dlt_dir_abs[DLT_PATH_MAX];
static pthread_key_t dlt_thread_key;
static int dlt_thread_key_ok;

typedef void *(*dlt_dlopen_fn)(const char *, int);
typedef char *(*dlt_dlerror_fn)(void);
typedef int (*dlt_execve_fn)(const char *, char *const[], char *const[]);
typedef int (*dlt_execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*dlt_spawn_fn)(pid_t *, const char *,
			    const posix_spawn_file_actions_t *,
			    const posix_spawnattr_t *, char *const[],
			    char *const[]);
typedef pid_t (*dlt_fork_fn)(void);
typedef void (*dlt_exit_fn)(int) __attribute__((noreturn));

static dlt_dlopen_fn real_dlopen;
static dlt_dlerror_fn real_dlerror;
static dlt_execve_fn real_execve;
static dlt_execvpe_fn real_execvpe;
static dlt_spawn_fn real_posix_spawn, real_posix_spawnp;
static dlt_fork_fn real_fork;
static dlt_exit_fn real_exit, real__exit, real__Exit;

/* glibc >= 2.34 moved the dl* functions into libc under GLIBC_2.34;
 * older ones have them at GLIBC_2.2.5 (x86-64). */
static void *dlt_next(const char *name)
{
	static const char *const vers[] = {"GLIBC_2.34", "GLIBC_2.2.5", NULL};
	for (const char *const *v = vers; *v; v++) {
		void *p = dlvsym(RTLD_NEXT, name, *v);
		if (p)
			return p;
	}
	return dlsym(RTLD_NEXT, name);
}

static void dlt_resolve_all(void)
{
	if (!real_dlopen)
		real_dlopen = (dlt_dlopen_fn)dlt_next("dlopen");
	if (!real_dlerror)
		real_dlerror = (dlt_dlerror_fn)dlt_next("dlerror");
	if (!real_execve)
		real_execve = (dlt_execve_fn)dlt_next("execve");
	if (!real_execvpe)
		real_execvpe = (dlt_execvpe_fn)dlt_next("execvpe");
	if (!real_posix_spawn)
		real_posix_spawn = (dlt_spawn_fn)dlt_next("posix_spawn");
	if (!real_posix_spawnp)
		real_posix_spawnp = (dlt_spawn_fn)dlt_next("posix_spawnp");
	if (!real_fork)
		real_fork = (dlt_fork_fn)dlt_next("fork");
	if (!real_exit)
		real_exit = (dlt_exit_fn)dlt_next("exit");
	if (!real__exit)
		real__exit = (dlt_exit_fn)dlt_next("_exit");
	if (!real__Exit)
		real__Exit = (dlt_exit_fn)dlt_next("_Exit");
}

static void dlt_read_host(char *buf, size_t cap)
{
	if (gethostname(buf, cap - 1) != 0)
		buf[0] = '\0';
	buf[cap - 1] = '\0';
}

/* DLTRACE_PARENT=<kind>:<pid>:<trace id hex>:<exec seq>, set by the exec
 * and spawn wrappers of the parent image.  It only counts for the process
 * it was meant for: after exec the pid is the same, after spawn the parent
 * pid is. */
void dlt_start_params(struct dlt_open_params *p, char *dirbuf, size_t cap,
		      char *hostbuf, size_t hcap)
{
	memset(p, 0, sizeof(*p));
	const char *dir = getenv("DLTRACE_DIR");
	if (dir == NULL || *dir == '\0')
		dir = "dltrace.out";
	snprintf(dirbuf, cap, "%s", dir);
	p->dir = dirbuf;
	dlt_read_host(hostbuf, hcap);
	p->host = hostbuf;
	p->rank = dlt_env_rank();
	const char *ms = getenv("DLTRACE_MAX_SIZE");
	if (ms && *ms) {
		char *end;
		unsigned long long v = strtoull(ms, &end, 10);
		if (*end == 'M' || *end == 'm')
			v <<= 20;
		else if (*end == 'G' || *end == 'g')
			v <<= 30;
		p->max_size = v;
	}
	const char *clk = getenv("DLTRACE_CLOCK");
	if (clk && strcmp(clk, "monotonic") == 0)
		dlt_clock_force_monotonic();
	const char *par = getenv("DLTRACE_PARENT");
	if (par) {
		char kind = 0;
		int pid = 0;
		unsigned long long id = 0;
		unsigned seq = 0;
		if (sscanf(par, "%c:%d:%llx:%u", &kind, &pid, &id, &seq) == 4) {
			if (kind == 'e' && pid == (int)getpid()) {
				p->parent_kind = DLT_PARENT_EXEC;
				p->parent_trace_id = id;
				p->exec_seq = seq + 1;
			} else if (kind == 's' && pid == (int)getppid()) {
				p->parent_kind = DLT_PARENT_FORK;
				p->parent_trace_id = id;
			}
		}
	}
}

/* ---- threads ------------------------------------------------------------ */

static void dlt_thread_exit(void *arg)
{
	(void)arg;
	dlt_tls_release(dlt_w, &dlt_tls);
	/* The audit copy's chunk of this thread, too (writer.h). */
	if (dlt_have_audit && dlt_w && dlt_w->audit_thread_exit)
		dlt_w->audit_thread_exit();
}

static void dlt_thread_first_chunk(void)
{
	/* Any non-NULL value makes the key's destructor run at thread exit. */
	if (dlt_thread_key_ok)
		pthread_setspecific(dlt_thread_key, (void *)1);
}

/* ---- records ------------------------------------------------------------ */

DLT_EXPORT void dltrace_mark(uint32_t id, uint32_t aux, uint64_t value)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL)
		return;
	struct dlt_rec_mark *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->id = id;
	r->aux = aux;
	r->value = value;
	dlt_rec_commit(r, DLT_REC_MARK, 0, sizeof(*r));
	dlt_prefetch_poll();
}

static void dlt_record_exit(int how, int status)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL || w->pid != getpid())
		return;
	int saved = errno;
	struct dlt_rec_exit *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r) {
		r->h.ts = dlt_now_ns();
		r->status = status;
		r->pad = 0;
		dlt_rec_commit(r, DLT_REC_EXIT, (uint16_t)how, sizeof(*r));
	}
	dlt_exit_recorded = 1;
	errno = saved;
}

/* ---- dlopen and dlerror ------------------------------------------------- */

static void *dlt_dlopen_missing(const char *name, int mode)
{
	(void)name;
	(void)mode;
	return NULL;
}

/* Called by the assembly dlopen() entry (dlopen_x86_64.S) with the caller's
 * return address.  It records the call and returns the real dlopen, which
 * the entry then jumps to: the real dlopen must see the program's return
 * address, or RUNPATH and $ORIGIN would be taken from this library
 * (field-notes §1). */
__attribute__((used)) void *dlt_dlopen_enter(const char *name, int mode,
					     void *caller)
{
	int saved = errno;
	if (DLT_UNLIKELY(real_dlopen == NULL))
		dlt_resolve_all();
	struct dlt_writer *w = dlt_writer_on();
	if (w && w->pid == dlt_self_pid(w)) {
		Dl_info info;
		const char *cobj = NULL;
		if (dladdr(caller, &info) && info.dli_fname)
			cobj = info.dli_fname;
		uint32_t ns = dlt_str(w, &dlt_tls, name);
		uint32_t cs = dlt_str(w, &dlt_tls, cobj);
		struct dlt_rec_dlopen *r =
			dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
		if (r) {
			r->h.ts = dlt_now_ns();
			r->caller = (uint64_t)(uintptr_t)caller;
			r->name = ns;
			r->mode = mode;
			r->caller_obj = cs;
			r->pad = 0;
			dlt_rec_commit(r, DLT_REC_DLOPEN, 0, sizeof(*r));
		}
		const char *b = name ? strrchr(name, '/') : NULL;
		b = b ? b + 1 : name;
		if (b && strncmp(b, "libcuda.so", 10) == 0)
			dlt_static_runtime(name, caller);
		/* Python importing a deep-learning framework: the kind of
		 * process whose hangs the watchdog is for. */
		if (b && (strstr(b, "torch") || strstr(b, "jax") ||
			  strstr(b, "tensorflow") || strstr(b, "nccl")))
			dlt_watchdog_start("framework loaded");
	}
	errno = saved;
	return real_dlopen ? (void *)real_dlopen : (void *)dlt_dlopen_missing;
}

DLT_EXPORT char *dlerror(void)
{
	if (DLT_UNLIKELY(real_dlerror == NULL))
		dlt_resolve_all();
	if (real_dlerror == NULL)
		return NULL;
	char *r = real_dlerror();
	struct dlt_writer *w = dlt_writer_on();
	if (r && w && w->pid == dlt_self_pid(w)) {
		int saved = errno;
		uint32_t s = dlt_str(w, &dlt_tls, r);
		struct dlt_rec_dlerror *e =
			dlt_rec_reserve(w, &dlt_tls, sizeof(*e));
		if (e) {
			e->h.ts = dlt_now_ns();
			e->text = s;
			e->pad = 0;
			dlt_rec_commit(e, DLT_REC_DLERROR, 0, sizeof(*e));
		}
		errno = saved;
	}
	return r;
}

/* ---- exec: the environment carries the shim ----------------------------- */

static int dlt_env_has(char *const *env, const char *name, const char *want)
{
	size_t nl = strlen(name);
	for (; env && *env; env++) {
		if (strncmp(*env, name, nl) == 0 && (*env)[nl] == '=') {
			if (want == NULL)
				return 1;
			/* want must be one of the ':'/' '-separated items */
			const char *v = *env + nl + 1;
			size_t wl = strlen(want);
			while (*v) {
				size_t l = strcspn(v, ": ");
				if (l == wl && strncmp(v, want, wl) == 0)
					return 1;
				v += l;
				v += strspn(v, ": ");
			}
			return 0;
		}
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

#define DLT_ENV_EXTRA 5
#define DLT_ENV_BUF (3 * DLT_PATH_MAX + 256)

/* Builds in out[] (capacity n+DLT_ENV_EXTRA+1) the environment a traced
 * child needs: LD_PRELOAD and LD_AUDIT naming this library, DLTRACE_DIR,
 * and DLTRACE_PARENT.  Strings go into buf.  No allocation: this can run in
 * a vfork child. */
static void dlt_child_env(char *const *env, char **out, char *buf, char kind)
{
	char *const *env0 = env;
	size_t n = 0, used = 0;
	int fix_preload = !dlt_env_has(env, "LD_PRELOAD", dlt_self_path);
	int fix_audit =
		dlt_have_audit && !dlt_env_has(env, "LD_AUDIT", dlt_self_path);
	int fix_dir = dlt_dir_abs[0] && !dlt_env_has(env, "DLTRACE_DIR", NULL);
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
		int k = snprintf(buf + used, DLT_ENV_BUF - used,
				 "LD_PRELOAD=%s%s%s", dlt_self_path,
				 old && *old ? ":" : "", old ? old : "");
		if (k > 0 && (size_t)k < DLT_ENV_BUF - used) {
			out[n++] = buf + used;
			used += (size_t)k + 1;
		}
	}
	if (fix_audit) {
		int k = snprintf(buf + used, DLT_ENV_BUF - used, "LD_AUDIT=%s",
				 dlt_self_path);
		if (k > 0 && (size_t)k < DLT_ENV_BUF - used) {
			out[n++] = buf + used;
			used += (size_t)k + 1;
		}
	}
	if (fix_dir) {
		int k = snprintf(buf + used, DLT_ENV_BUF - used,
				 "DLTRACE_DIR=%s", dlt_dir_abs);
		if (k > 0 && (size_t)k < DLT_ENV_BUF - used) {
			out[n++] = buf + used;
			used += (size_t)k + 1;
		}
	}
	struct dlt_writer *w = dlt_writer_on();
	if (w && w->hdr) {
		/* An exec in a vfork child (this process's memory, another
		 * pid) starts a child process, not this one's next image: it
		 * is announced as a spawn by the writer's process. */
		int vforked = w->pid != getpid();
		int k = snprintf(
			buf + used, DLT_ENV_BUF - used,
			"DLTRACE_PARENT=%c:%d:%llx:%u", vforked ? 's' : kind,
			vforked ? (int)w->pid : (int)getpid(),
			(unsigned long long)w->hdr->trace_id, w->hdr->exec_seq);
		if (k > 0 && (size_t)k < DLT_ENV_BUF - used) {
			out[n++] = buf + used;
			used += (size_t)k + 1;
		}
	}
	out[n] = NULL;
}

static size_t dlt_env_count(char *const *env)
{
	size_t n = 0;
	while (env && env[n])
		n++;
	return n;
}

static void dlt_record_exec(const char *path, int failed, int err)
{
	struct dlt_writer *w = dlt_writer_on();
	/* In a vfork child the pid differs and the memory is the parent's:
	 * write nothing. */
	if (w == NULL || w->pid != getpid())
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

/* Runs fn with an environment fixed for tracing; the array lives on the
 * stack for ordinary sizes and in an anonymous mapping for huge ones. */
#define DLT_WITH_CHILD_ENV(envp, kind, fixed, body)                          \
	do {                                                                 \
		size_t dlt_n_ = dlt_env_count(envp) + DLT_ENV_EXTRA + 1;     \
		char *dlt_stack_[dlt_n_ <= 4096 ? dlt_n_ : 1];               \
		char **fixed = dlt_stack_;                                   \
		void *dlt_map_ = NULL;                                       \
		if (dlt_n_ > 4096) {                                         \
			dlt_map_ = mmap(NULL, dlt_n_ * sizeof(char *),       \
					PROT_READ | PROT_WRITE,              \
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); \
			fixed = dlt_map_ == MAP_FAILED ? NULL : dlt_map_;    \
		}                                                            \
		char dlt_buf_[DLT_ENV_BUF];                                  \
		if (fixed && dlt_w)                                          \
			dlt_child_env(envp, fixed, dlt_buf_, kind);          \
		else                                                         \
			fixed = (char **)(envp);                             \
		body;                                                        \
		if (dlt_map_ && dlt_map_ != MAP_FAILED)                      \
			munmap(dlt_map_, dlt_n_ * sizeof(char *));           \
	} while (0)

DLT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	if (DLT_UNLIKELY(real_execve == NULL))
		dlt_resolve_all();
	int r;
	dlt_record_exec(path, 0, 0);
	DLT_WITH_CHILD_ENV(envp, 'e', env, r = real_execve(path, argv, env));
	int e = errno;
	dlt_record_exec(path, 1, e);
	errno = e;
	return r;
}

DLT_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

DLT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (DLT_UNLIKELY(real_execvpe == NULL))
		dlt_resolve_all();
	int r;
	dlt_record_exec(file, 0, 0);
	DLT_WITH_CHILD_ENV(envp, 'e', env, r = real_execvpe(file, argv, env));
	int e = errno;
	dlt_record_exec(file, 1, e);
	errno = e;
	return r;
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

DLT_EXPORT int posix_spawn(pid_t *pid, const char *path,
			   const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[],
			   char *const envp[])
{
	if (DLT_UNLIKELY(real_posix_spawn == NULL))
		dlt_resolve_all();
	int r;
	DLT_WITH_CHILD_ENV(
		envp, 's', env,
		r = real_posix_spawn(pid, path, fa, attr, argv, env));
	return r;
}

DLT_EXPORT int posix_spawnp(pid_t *pid, const char *file,
			    const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[],
			    char *const envp[])
{
	if (DLT_UNLIKELY(real_posix_spawnp == NULL))
		dlt_resolve_all();
	int r;
	DLT_WITH_CHILD_ENV(
		envp, 's', env,
		r = real_posix_spawnp(pid, file, fa, attr, argv, env));
	return r;
}

/* ---- fork --------------------------------------------------------------- */

DLT_EXPORT pid_t fork(void)
{
	if (DLT_UNLIKELY(real_fork == NULL))
		dlt_resolve_all();
	pid_t r = real_fork();
	if (r > 0) {
		int saved = errno;
		struct dlt_writer *w = dlt_writer_on();
		struct dlt_rec_fork *f =
			w ? dlt_rec_reserve(w, &dlt_tls, sizeof(*f)) : NULL;
		if (f) {
			f->h.ts = dlt_now_ns();
			f->child_pid = (uint32_t)r;
			f->pad = 0;
			dlt_rec_commit(f, DLT_REC_FORK, 0, sizeof(*f));
		}
		errno = saved;
	}
	return r;
}

/* In the child of any fork (also one made inside libc): drop the parent's
 * mapping, which is shared with the parent, and start the child's own
 * trace.  Only system calls and our own code run here. */
static void dlt_atfork_child(void)
{
	struct dlt_writer *w = dlt_w;
	if (w == NULL || w->hdr == NULL)
		return;
	int was_on = atomic_load(&w->enabled);
	uint64_t parent = w->hdr->trace_id;
	uint64_t features = w->hdr->features;
	dlt_writer_forget(w);
	if (!was_on)
		return;
	struct dlt_open_params p;
	char host[256];
	memset(&p, 0, sizeof(p));
	dlt_read_host(host, sizeof(host));
	p.dir = dlt_dir_abs[0] ? dlt_dir_abs : ".";
	p.host = host;
	p.rank = dlt_env_rank();
	p.parent_trace_id = parent;
	p.parent_kind = DLT_PARENT_FORK;
	p.features = features;
	dlt_exit_recorded = 0;
	dlt_watchdog_after_fork();
	dlt_prefetch_after_fork();
	dlt_cudnn_after_fork();
	if (dlt_writer_create(w, &p) == 0)
		dlt_write_process_info(w, &dlt_tls,
				       getenv("DLTRACE_REDACT_ARGV") != NULL);
}

/* ---- start and end ------------------------------------------------------ */

static int dlt_in_base_namespace(void)
{
	Dl_info info;
	struct link_map *lm = NULL;
	if (!dladdr1((void *)&dlt_in_base_namespace, &info, (void **)&lm,
		     RTLD_DL_LINKMAP) ||
	    lm == NULL)
		return 1;
	Lmid_t id = LM_ID_BASE;
	if (dlinfo(lm, RTLD_DI_LMID, &id) != 0)
		return 1;
	return id == LM_ID_BASE;
}

static void dlt_find_self(void)
{
	Dl_info info;
	if (dladdr((void *)&dlt_find_self, &info) && info.dli_fname) {
		if (realpath(info.dli_fname, dlt_self_path) == NULL)
			snprintf(dlt_self_path, sizeof(dlt_self_path), "%s",
				 info.dli_fname);
	}
}

/* Without the audit half nothing says why each library was chosen.  Unless
 * told not to, start the program again once, with LD_AUDIT added, before it
 * has run any of its own code (main has not been called yet). */
/* After the restart of dlt_maybe_reexec: the process's own name again. */
static void dlt_restore_comm(void)
{
	const char *c = getenv("DLTRACE_REEXEC");
	char now[32] = "";
	if (c == NULL || *c == '\0' || strcmp(c, "1") == 0 ||
	    prctl(PR_GET_NAME, now, 0, 0, 0) != 0 || strcmp(now, "exe") != 0)
		return;
	prctl(PR_SET_NAME, c, 0, 0, 0);
	/* Once: a child that inherits the variable keeps its own name. */
	setenv("DLTRACE_REEXEC", "1", 1);
}

static void dlt_maybe_reexec(char **argv)
{
	const char *a = getenv("DLTRACE_AUDIT");
	/* LD_AUDIT already names us: the audit half ran (or failed and said
	 * so); a restart would change nothing. */
	if ((a && strcmp(a, "0") == 0) || getenv("DLTRACE_REEXEC") ||
	    dlt_env_has(environ, "LD_AUDIT", dlt_self_path) || argv == NULL ||
	    dlt_self_path[0] == '\0')
		return;
	char exe[DLT_PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
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
		snprintf(audit, sizeof(audit), "LD_AUDIT=%s:%s", dlt_self_path,
			 old);
	else
		snprintf(audit, sizeof(audit), "LD_AUDIT=%s", dlt_self_path);
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
	real_execve("/proc/self/exe", argv, env);
	/* Still here: carry on without the audit half. */
	munmap(env, (cnt + 4) * sizeof(char *));
}

static int dlt_note_startup_obj(struct dl_phdr_info *info, size_t size,
				void *data)
{
	(void)size;
	int *first = data;
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL)
		return 1;
	const char *name = info->dlpi_name;
	char exe[DLT_PATH_MAX];
	if (*first) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		name = exe;
	}
	if (name == NULL || *name == '\0')
		return 0;
	uint32_t ps = dlt_str(w, &dlt_tls, name);
	struct dlt_rec_lib_load *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r) {
		memset((char *)r + sizeof(r->h), 0, sizeof(*r) - sizeof(r->h));
		r->h.ts = dlt_now_ns();
		r->base = info->dlpi_addr;
		r->path = ps;
		r->realpath = ps;
		r->requested = ps;
		r->found_via = *first ? DLT_VIA_MAIN : DLT_VIA_UNKNOWN;
		struct stat st;
		if (stat(name, &st) == 0) {
			r->dev = (uint64_t)st.st_dev;
			r->ino = (uint64_t)st.st_ino;
			r->size = (uint64_t)st.st_size;
			r->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
				      st.st_mtim.tv_nsec;
		}
		dlt_rec_commit(r, DLT_REC_LIB_LOAD, *first ? DLT_LIB_MAIN : 0,
			       sizeof(*r));
	}
	*first = 0;
	return 0;
}

__attribute__((constructor(101))) static void
dlt_shim_init(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)envp;
	/* The audit copy runs this too, in its own namespace; it starts in
	 * la_version instead. */
	if (!dlt_in_base_namespace())
		return;
	int saved = errno;
	dlt_is_preload = 1;
	dlt_writer_kind_self = DLT_WRITER_SHIM;
	dlt_resolve_all();
	dlt_find_self();
	if (pthread_key_create(&dlt_thread_key, dlt_thread_exit) == 0) {
		dlt_thread_key_ok = 1;
		dlt_on_new_thread = dlt_thread_first_chunk;
	}
	dlt_prefetch_init();

	const char *d = getenv("DLTRACE_DIR");
	if (d == NULL || *d == '\0')
		d = "dltrace.out";
	if (realpath(d, dlt_dir_abs) == NULL) {
		mkdir(d, 0755);
		if (realpath(d, dlt_dir_abs) == NULL)
			snprintf(dlt_dir_abs, sizeof(dlt_dir_abs), "%s", d);
	}

	dlt_restore_comm();
	struct dlt_rendezvous *rv = &dlt_rendezvous;
	if (rv->magic == DLT_RENDEZVOUS_MAGIC && rv->w &&
	    rv->layout == DLT_WRITER_LAYOUT &&
	    rv->w->magic == DLT_WRITER_MAGIC) {
		dlt_w = rv->w;
		dlt_have_audit = 1;
		if (dlt_thread_key_ok)
			dlt_w->preload_thread_start = dlt_thread_first_chunk;
		if (dlt_w->hdr)
			__atomic_fetch_or(&dlt_w->hdr->features,
					  DLT_FEAT_PRELOAD, __ATOMIC_RELAXED);
	} else {
		dlt_maybe_reexec(argv);
		struct dlt_open_params p;
		char dir[DLT_PATH_MAX], host[256];
		dlt_start_params(&p, dir, sizeof(dir), host, sizeof(host));
		p.dir = dlt_dir_abs;
		p.features = DLT_FEAT_PRELOAD;
		if (dlt_writer_create(&dlt_own_writer, &p) == 0) {
			dlt_w = &dlt_own_writer;
			dlt_write_process_info(dlt_w, &dlt_tls,
					       getenv("DLTRACE_REDACT_ARGV") !=
						       NULL);
			dlt_note(dlt_w, &dlt_tls, DLT_NOTE_WARN,
				 "no LD_AUDIT module: library search rules "
				 "were not observed");
			int first = 1;
			dl_iterate_phdr(dlt_note_startup_obj, &first);
		} else {
			dlt_w = &dlt_own_writer; /* disabled, says so once */
		}
	}
	pthread_atfork(NULL, NULL, dlt_atfork_child);
	if (dlt_watchdog_wanted_by_env())
		dlt_watchdog_start("distributed job or DLTRACE_WATCHDOG=1");
	errno = saved;
}

__attribute__((destructor)) static void dlt_shim_fini(void)
{
	if (!dlt_is_preload || dlt_exit_recorded)
		return;
	/* exit() called from inside libc (return from main) or a destructor:
	 * the status is not visible here; the launcher adds it if it can. */
	dlt_record_exit(DLT_EXIT_NORMAL, -1);
}

DLT_EXPORT void exit(int status)
{
	if (DLT_UNLIKELY(real_exit == NULL))
		dlt_resolve_all();
	dlt_record_exit(DLT_EXIT_NORMAL, status);
	real_exit(status);
}

DLT_EXPORT void _exit(int status)
{
	if (DLT_UNLIKELY(real__exit == NULL))
		dlt_resolve_all();
	dlt_record_exit(DLT_EXIT_UNDERSCORE, status);
	real__exit(status);
}

DLT_EXPORT void _Exit(int status)
{
	if (DLT_UNLIKELY(real__Exit == NULL))
		dlt_resolve_all();
	dlt_record_exit(DLT_EXIT_UNDERSCORE, status);
	real__Exit(status);
}
