/* The C library's functions behind the shim's wrappers. */
#ifndef DLTRACE_REAL_H
#define DLTRACE_REAL_H

#include <spawn.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

typedef void *(*dlt_dlopen_fn)(const char *, int);
typedef char *(*dlt_dlerror_fn)(void);
typedef int (*dlt_execve_fn)(const char *, char *const[], char *const[]);
typedef int (*dlt_spawn_fn)(pid_t *, const char *,
			    const posix_spawn_file_actions_t *,
			    const posix_spawnattr_t *, char *const[],
			    char *const[]);
typedef pid_t (*dlt_fork_fn)(void);
typedef int (*dlt_clone_fn)(int (*)(void *), void *, int, void *, ...);
typedef int (*dlt_daemon_fn)(int, int);
typedef int (*dlt_int_fn)(int);
typedef int (*dlt_setns_fn)(int, int);
/* The setuid family: uid_t and gid_t are both unsigned int. */
typedef int (*dlt_id1_fn)(unsigned int);
typedef int (*dlt_id2_fn)(unsigned int, unsigned int);
typedef int (*dlt_id3_fn)(unsigned int, unsigned int, unsigned int);
typedef void (*dlt_exit_fn)(int) __attribute__((noreturn));
typedef void (*dlt_abort_fn)(void) __attribute__((noreturn));
typedef pid_t (*dlt_wait_fn)(int *);
typedef pid_t (*dlt_waitpid_fn)(pid_t, int *, int);
typedef pid_t (*dlt_wait3_fn)(int *, int, struct rusage *);
typedef pid_t (*dlt_wait4_fn)(pid_t, int *, int, struct rusage *);
typedef int (*dlt_waitid_fn)(idtype_t, id_t, siginfo_t *, int);
typedef void (*dlt_assert_fn)(const char *, const char *, unsigned int,
			      const char *) __attribute__((noreturn));

/* X(name, type) for each function the wrappers call on. */
#define DLT_REAL_FUNCTIONS(X)         \
	X(dlopen, dlt_dlopen_fn)      \
	X(dlerror, dlt_dlerror_fn)    \
	X(execve, dlt_execve_fn)      \
	X(execvpe, dlt_execve_fn)     \
	X(posix_spawn, dlt_spawn_fn)  \
	X(posix_spawnp, dlt_spawn_fn) \
	X(fork, dlt_fork_fn)          \
	X(vfork, dlt_fork_fn)         \
	X(_Fork, dlt_fork_fn)         \
	X(clone, dlt_clone_fn)        \
	X(daemon, dlt_daemon_fn)      \
	X(unshare, dlt_int_fn)        \
	X(setns, dlt_setns_fn)        \
	X(setuid, dlt_id1_fn)         \
	X(seteuid, dlt_id1_fn)        \
	X(setgid, dlt_id1_fn)         \
	X(setegid, dlt_id1_fn)        \
	X(setreuid, dlt_id2_fn)       \
	X(setregid, dlt_id2_fn)       \
	X(setresuid, dlt_id3_fn)      \
	X(setresgid, dlt_id3_fn)      \
	X(exit, dlt_exit_fn)          \
	X(_exit, dlt_exit_fn)         \
	X(_Exit, dlt_exit_fn)         \
	X(abort, dlt_abort_fn)        \
	X(wait, dlt_wait_fn)          \
	X(waitpid, dlt_waitpid_fn)    \
	X(wait3, dlt_wait3_fn)        \
	X(wait4, dlt_wait4_fn)        \
	X(waitid, dlt_waitid_fn)      \
	X(__assert_fail, dlt_assert_fn)

struct dlt_real {
#define DLT_X(name, type) type name;
	DLT_REAL_FUNCTIONS(DLT_X)
#undef DLT_X
};
extern struct dlt_real dlt_real;

/* The real function name, found with dlvsym(RTLD_NEXT) the first time a
 * wrapper needs it, not all of them at start: a short process calls one or
 * two (exit), and the lookups were a tenth of what dltrace added to the
 * start of every process.  Threads that race store the same pointer. */
#define DLT_REAL(name)                                                    \
	({                                                                \
		__typeof__(dlt_real.name) dlt_f_ = dlt_real.name;         \
		if (__builtin_expect(dlt_f_ == NULL, 0))                  \
			dlt_f_ = dlt_real.name =                          \
				(__typeof__(dlt_f_))dlt_real_find(#name); \
		dlt_f_;                                                   \
	})
void *dlt_real_find(const char *name);

/* A function of the objects loaded before this library, found without
 * dlsym (which would clear a dlerror() message the program has not read
 * yet): for functions first needed while the program runs. */
void *dlt_real_lookup(const char *name);

#endif
