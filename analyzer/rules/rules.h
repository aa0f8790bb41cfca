/* The helpers rules share.  What a rule gets, and how it is declared
 * (DLT_RULE), is in findings.h: a rule adds findings to the sink through
 * its context and knows nothing of how they are printed. */
#ifndef DLTRACE_RULES_H
#define DLTRACE_RULES_H

#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "apinames.h"
#include "findings.h"
#include "gpu.h"
#include "hangs.h"
#include "install.h"
#include "mem.h"
#include "model.h"
#include "status.h"
#include "value.h"

/* ---- shared helpers (libutil.c) ------------------------------------ */

/* Seconds since the process's trace started, for messages. */
double dlt_rel_s(const struct dlt_process *p, uint64_t ts);

/* A recorded environment variable, or NULL. */
const char *dlt_proc_env(const struct dlt_process *p, const char *name);

/* The library's family: "libcudart" for libcudart.so.12,
 * libcudart-80664282.so.10.2 and libcudart.so alike (auditwheel renames
 * copies to NAME-<hash>).  *renamed tells whether a hash was removed. */
void dlt_lib_family(const char *path, char *buf, size_t cap, bool *renamed);
/* Directory part of a path ("" for a bare name). */
void dlt_dirname(const char *path, char *buf, size_t cap);

/* ---- what a library file is (identity.c) ------------------------------ */

struct dlt_identity {
	uint64_t size;
	uint32_t build_id_len; /* 0: the file has none */
	uint8_t build_id[32];
	char version[64]; /* from the file name, "" none */
};
enum dlt_same {
	DLT_SAME_FILE,	  /* one file (path or device and inode) */
	DLT_SAME_BUILD,	  /* two files, one build: same build-id and size */
	DLT_OTHER_BUILD,  /* build-id or size differ; without build-ids, the
			     size or the version in the names */
	DLT_SAME_UNKNOWN, /* no build-id to tell */
};
/* A loaded row's identity, as recorded. */
void dlt_lib_identity(const struct dlt_lib *lib, struct dlt_identity *id);
/* A file's identity on this machine; false when it is no ELF object. */
bool dlt_file_identity(const char *path, struct dlt_identity *id);
enum dlt_same dlt_identity_cmp(const struct dlt_identity *a,
			       const struct dlt_identity *b);
enum dlt_same dlt_lib_cmp(const struct dlt_lib *a, const struct dlt_lib *b);
/* build_id (hex) and version (dlt_ev_lib gives the size). */
void dlt_ev_identity(struct dlt_val *o, const struct dlt_identity *id);

/* dpkg's database: $DLTRACE_DPKG_INFO (a system image mounted elsewhere,
 * the tests' fake one), else /var/lib/dpkg/info. */
const char *dlt_dpkg_info(void);
#define DLT_DPKG_INFO dlt_dpkg_info()
/* What installed path, when the trace was written on this machine
 * (unknown otherwise: another machine's files are not these). */
void dlt_ctx_install(struct dlt_rule_ctx *c, const char *path,
		     struct dlt_install *out);
/* installed_by, package. */
void dlt_ev_install(struct dlt_val *o, const struct dlt_install *in);
/* Whether path, which in says installed it, is still as its package
 * installed it (dlt_install_verify), when the trace was written on this
 * machine and the file there is the one the process loaded (was: its
 * identity in the trace, NULL or all zero when unknown). */
void dlt_ctx_verify(struct dlt_rule_ctx *c, const char *path,
		    const struct dlt_install *in,
		    const struct dlt_identity *was, struct dlt_verify *out);
/* package_check: "same", "differs", "unknown: <why>"; and
 * package_digest, what was compared ("md5", "sha256") when known. */
void dlt_ev_verify(struct dlt_val *o, const struct dlt_verify *v);
/* "pip uninstall nvidia-cudnn-cu12", "apt remove libcudnn9-cuda-12" ...:
 * only the manager that installed the file; words without a command when
 * that is unknown. */
const char *dlt_install_remove_cmd(const struct dlt_install *in, char *buf,
				   size_t cap);
/* The command that reinstalls the file's package, or NULL when unknown. */
const char *dlt_install_reinstall_cmd(const struct dlt_install *in, char *buf,
				      size_t cap);

/* ---- the process's rows, indexed once (rows.c) ---- */

/* A mapped row by an object id (its own, or its requester's), sorted by
 * id, then row. */
struct dlt_dep_ref {
	uint64_t obj;
	size_t row;
};
/* The rows the loader mapped (failure records left out): by the object
 * that asked for them, by their own object id, by path, by real path, and
 * by the names a library goes by (SONAME, the base name it was asked
 * for). */
struct dlt_rows {
	struct dlt_dep_ref *deps, *objs;
	size_t ndeps, nobjs;
	struct dlt_name_ref *by_path, *by_real, *by_name;
	size_t npath, nreal, nname;
};
/* Directories, each once (libutil.c). */
struct dlt_dirset {
	char **d;
	size_t n, cap;
};
void dlt_dirset_free(struct dlt_dirset *s);
/* The places for every name the process missed: beside the libraries it
 * loaded (s), and the environments it names (env). */
void dlt_dirset_base(struct dlt_dirset *s, struct dlt_dirset *env,
		     const struct dlt_process *p);
/* The places near a requester: its RPATH/RUNPATH, its own directory. */
void dlt_dirset_near(struct dlt_dirset *s, const struct dlt_lib *req);
/* Whether dir holds a copy of name the loader did not search for lib
 * (*out, malloc'ed), not one of the nseen real paths in seen already. */
bool dlt_unsearched_copy(const struct dlt_lib *lib, const char *dir,
			 const char *name, char seen[][PATH_MAX], size_t *nseen,
			 char **out);

struct dlt_proc_cache {
	struct dlt_rows rows;
	bool rows_built;
	int cuda_major; /* -1 until asked */
	/* Where libraries lie whatever asked for them (beside the loaded
	 * ones, in the environments), and near the last requester asked
	 * about (dlt_find_unsearched). */
	struct dlt_dirset base, env, near;
	bool base_built;
	const struct dlt_lib *near_req;
	bool near_built;
};

const struct dlt_rows *dlt_ctx_rows(struct dlt_rule_ctx *c);
void dlt_ctx_free(struct dlt_rule_ctx *c);
/* The first row (in p->libs order) whose key is name, or SIZE_MAX. */
size_t dlt_rows_first(const struct dlt_name_ref *v, size_t n, const char *name);
/* The entries [return, *end) of v whose id is obj (none for 0). */
size_t dlt_rows_group(const struct dlt_dep_ref *v, size_t n, uint64_t obj,
		      size_t *end);
/* The row of the object that asked for lib (its requester), or NULL. */
const struct dlt_lib *dlt_requester_row(struct dlt_rule_ctx *c,
					const struct dlt_lib *lib);
/* dlt_proc_cuda_major of the context's process, worked out once. */
int dlt_ctx_cuda_major(struct dlt_rule_ctx *c);
/* The first loaded (not failed) row mapping the file realpath. */
const struct dlt_lib *dlt_loaded_row(const struct dlt_process *p,
				     const char *realpath);

/* RPATH/RUNPATH directories of a loaded object, $ORIGIN expanded from the
 * directory it was loaded from.  Returns how many were put in dirs (each
 * a malloc'ed string the caller frees). */
size_t dlt_search_dirs(const struct dlt_lib *lib, char **dirs, size_t max);

/* A directory list entry with $ORIGIN / ${ORIGIN} expanded; other tokens
 * ($LIB, $PLATFORM) are left as they are, which makes such a directory
 * simply not found later. */
void dlt_expand_origin(const char *spec, size_t len, const char *origin,
		       char *out, size_t cap);

/* A file the loader would find for a name. */
struct dlt_copy {
	char *path;	 /* directory + name */
	char *real;	 /* its real path */
	const char *via; /* RPATH, LD_LIBRARY_PATH, RUNPATH, LD_SO_CACHE,
			    DEFAULT */
};
/* The files named name that the loader would find for the object req (a
 * row of the process, NULL for the program), on this machine, in the
 * loader's order: req's DT_RPATH (when it has no DT_RUNPATH),
 * LD_LIBRARY_PATH as the process had it, req's DT_RUNPATH, the directories
 * of /etc/ld.so.conf (which ld.so.cache indexes), the default directories.
 * Each file once.  Returns how many; free them with dlt_copies_free. */
size_t dlt_loader_copies(const struct dlt_process *p, const struct dlt_lib *req,
			 const char *name, struct dlt_copy *out, size_t max);
void dlt_copies_free(struct dlt_copy *c, size_t n);

/* A regular file exists at path on this machine. */
bool dlt_file_exists(const char *path, struct stat *st);
/* Whether a loaded row and a file on this machine are different
 * libraries: different real paths, a different device/inode, and not one
 * build (identity.c). */
bool dlt_differs_from_row(const struct dlt_lib *row, const char *path,
			  const struct stat *st);

/* DT_NEEDED entries of an ELF64 file on this machine; NULL-terminated,
 * free with dlt_free_strv.  NULL when the file cannot be read. */
char **dlt_elf_needed(const char *path);
void dlt_free_strv(char **v);

/* The pip package that ships a library, for fix commands ("nvidia-cudnn-
 * cu12"), or NULL.  cuda_major 0: unknown (the "cuXX" suffix is then the
 * library's own soname version where that is the CUDA major). */
const char *dlt_pip_package(const char *family, int cuda_major, char *buf,
			    size_t cap);
/* CUDA major of the process: its runtime's version, else 0. */
int dlt_proc_cuda_major(const struct dlt_process *p, const struct dlt_gpu *g);

/* A failed row that is a search that found nothing (rather than a file
 * that was found and then rejected). */
bool dlt_lib_not_found(const struct dlt_lib *lib);

/* Existing files named name in directories where this machine keeps
 * libraries that the loader did not search for lib: directories of the
 * process's other libraries, the requester's RPATH/RUNPATH, pip
 * site-packages/nvidia/<pkg>/lib under the program's prefix, VIRTUAL_ENV,
 * CONDA_PREFIX, CUDA_HOME and /usr/local/cuda*.  Returns how many paths
 * were put in found (malloc'ed).  In rows.c: it keeps the places in the
 * rule context's cache, over the dirset helpers of libutil.c (which
 * knows nothing of the context, so that the two are not a circle). */
size_t dlt_find_unsearched(struct dlt_rule_ctx *c, const struct dlt_lib *lib,
			   const char *name, char **found, size_t max);

/* Library families of the GPU stack (libcudart, libcuda, libcudnn*,
 * libnccl, libcublas ...). */
bool dlt_is_gpu_family(const char *family);
/* Whether a library row is the target of a program's dlopen (rather than
 * a DT_NEEDED entry, of the program or of what a dlopen loads). */
bool dlt_lib_by_dlopen(const struct dlt_lib *lib);
/* "loaded with dlopen by" or "needed by": how the requester asked. */
const char *dlt_load_relation(const struct dlt_lib *lib);
/* How much a failed load matters, by its consequence: an error for the
 * start-up chain (the program did not run), for a GPU library (a
 * framework that cannot load libcudnn may train on the CPU and exit 0) and
 * in a process that then failed; a warning in one that left no end
 * record; an info in one that carried on and ended well (bash's `enable
 * -f` probe, a plugin looked for). */
enum dlt_severity dlt_failed_load_severity(const struct dlt_rule_ctx *c,
					   const struct dlt_lib *lib);

/* Driver libraries (libcuda, libnvidia-ml): their absence is the CUDA
 * driver rule's business. */
bool dlt_is_driver_lib(const char *name);

/* Adds a library row to an evidence object (path, requested, requester,
 * found_via, soname, size, inode). */
void dlt_ev_lib(struct dlt_val *o, const struct dlt_lib *lib);

/* The recorded values of a call, named as apis.def names them; addresses
 * and hashes in hex. */
void dlt_ev_api_values(struct dlt_val *o, const struct dlt_api_desc *a,
		       const uint64_t *v, size_t n);

/* A convolution problem in evidence: id, direction, shape. */
void dlt_ev_problem(struct dlt_val *o, const struct dlt_conv_entry *e);
/* "conv forward x=[...] w=[...] ..." for messages. */
const char *dlt_problem_label(const struct dlt_conv_entry *e, char *buf,
			      size_t cap);
/* The candidates of a selection, each with algo, name, status and its
 * name, time and memory. */
void dlt_ev_candidates(struct dlt_val *arr, const struct dlt_conv_entry *e,
		       const struct dlt_conv_sel *sel, int64_t cudnn_version);
/* "algo 1 (IMPLICIT_PRECOMP_GEMM)". */
const char *dlt_algo_label(int dir, int32_t algo, char *buf, size_t cap);

/* ---- evidence of the job rules (hangutil.c) --------------------------- */

/* The call in flight: call, call_tid, call_since_unix_ns, in_call_ns,
 * call_values (the values recorded when it was entered, by name). */
void dlt_ev_hang_call(struct dlt_val *o, const struct dlt_hang_proc *hp,
		      const struct dlt_hang_call *c);
/* The wait: tid, syscall (its name), syscall_nr, blocked_ns,
 * blocked_since_unix_ns, wait, wchan, stack, ended. */
/* The stall is in the loader (waiting for its lock, or running a
 * constructor with it held): LOADER_LOCK's (loader_lock.c). */
bool dlt_loader_lock_stall(const struct dlt_hang_stall *s);

void dlt_ev_hang_stall(struct dlt_val *o, const struct dlt_hang_proc *hp,
		       const struct dlt_hang_stall *s);
/* The communicator of the last init entered: comm_id_hash, nranks,
 * comm_rank; nothing when there is none. */
void dlt_ev_hang_comm(struct dlt_val *o, const struct dlt_hang_proc *hp);
/* The job of the launcher's variables: master_addr, master_port,
 * world_size. */
void dlt_ev_hang_job(struct dlt_val *o, const struct dlt_hang_proc *hp);
/* Ranks above this are not told apart (no job has that many processes
 * traced into one place). */
#define DLT_HANG_MAX_RANKS 4096

/* Whether procs[i] is the first process with its key (0: none), such as
 * its communicator's id hash (dlt_hang_comm_key), or the first of its job
 * (one with a WORLD_SIZE and a MASTER_PORT): rules that judge a
 * communicator or a job do so once, there. */
bool dlt_hang_first_by(const struct dlt_job_ctx *c, size_t i,
		       uint64_t (*key)(const struct dlt_hang_proc *hp));
uint64_t dlt_hang_comm_key(const struct dlt_hang_proc *hp);
bool dlt_hang_first_in_job(const struct dlt_job_ctx *c, size_t i);
/* procs[i]'s job is one job split by its address: in its run, a rank 0
 * of the same world size has another MASTER_ADDR:MASTER_PORT (procs[i]
 * was given the wrong one, or it was).  That rank 0's index, else
 * SIZE_MAX. */
size_t dlt_hang_split_from(const struct dlt_job_ctx *c, size_t i);
/* An error of an earlier rule with this code about procs[i], or NULL. */
const struct dlt_finding *dlt_job_error_about(const struct dlt_job_ctx *c,
					      size_t i, const char *code);
/* The group of ranks JOB_HANG judges that procs[i] is in, or NULL. */
const struct dlt_wait_group *dlt_hang_group_of(const struct dlt_job_ctx *c,
					       size_t i);
/* A finding about procs[i] of a hang that JOB_HANG reports: its severity
 * (an error becomes an info: one hang, one error) and JOB_HANG's culprit in
 * who, named as JOB_HANG names it ("" none found).  sev unchanged outside
 * such a hang. */
enum dlt_severity dlt_hang_told(const struct dlt_job_ctx *c, size_t i,
				enum dlt_severity sev, char *who, size_t cap);
/* The wait of a rendezvous that never completed, which INIT_HANG reports:
 * in a process that did not end on its own and has no init in flight, a
 * long wait whose stack is in the store (TCPStore, waitForWorkers,
 * rendezvous code), or any long wait while connects to the store failed.
 * NULL when there is none. */
const struct dlt_hang_stall *
dlt_hang_rendezvous_stall(const struct dlt_hang_proc *hp);
/* Whether a wait matters: inside a traced GPU call, in GPU library,
 * rendezvous or collective code, or, in a job that did not complete, any
 * wait but a parent's for its children. */
bool dlt_hang_stall_matters(const struct dlt_job_ctx *c,
			    const struct dlt_hang_proc *hp,
			    const struct dlt_hang_stall *s);
/* Ranks 0..n-1 not set in seen[], as " 1 3" (cut to cap) and as an array
 * under key; returns how many. */
size_t dlt_hang_missing(const uint8_t *seen, int n, char *text, size_t cap,
			struct dlt_val *o, const char *key);

/* How hp ended, for messages: "exited with status 1", "killed by
 * SIGSEGV", "died without an end record". */
void dlt_hang_end_words(const struct dlt_hang_proc *hp, char *buf, size_t cap);

/* evidence.culprit, the same four keys in every finding that names who
 * holds a job up or died: rank (null when it has none), pid (null for a
 * rank without a trace: 0), python_at (its place in the program's own
 * Python code, the directory left out; null unknown) and cause.  Returns
 * the object, for a rule's further keys. */
struct dlt_val *dlt_ev_culprit(struct dlt_val *ev, int32_t rank, uint32_t pid,
			       const char *python_at, const char *cause);

/* ---- deaths by SIGKILL (oomutil.c) ------------------------------------- */

struct dlt_oom_verdict;
struct dlt_oom_set;
/* Each death by SIGKILL of the job that dltrace did not cause, with the
 * out-of-memory evidence about it, for OOM_KILL (oom) or SIGKILL (!oom):
 * fn is called for those of that side. */
void dlt_oom_each(struct dlt_job_ctx *c, bool oom,
		  void (*fn)(struct dlt_job_ctx *c, const struct dlt_oom_set *s,
			     size_t death, const struct dlt_oom_verdict *v));
/* An error of the current rule about death s->d[death], with msg and
 * the evidence of the verdict (dlt_ev_oom). */
struct dlt_finding *dlt_oom_finding(struct dlt_job_ctx *c,
				    const struct dlt_oom_set *s, size_t death,
				    const struct dlt_oom_verdict *v,
				    const char *msg);
/* The evidence of a verdict, the same keys for both codes. */
void dlt_ev_oom(struct dlt_val *ev, const struct dlt_oom_set *s, size_t death,
		const struct dlt_oom_verdict *v);
/* "32.0 MiB" */
const char *dlt_oom_bytes(uint64_t bytes, char *buf, size_t cap);

#endif
