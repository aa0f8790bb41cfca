/* What shaped a process's environment, as one list of named values that
 * two processes (two ranks, two hosts, two runs) can be compared by: the
 * system (OS, kernel, glibc, the NVIDIA driver and its CUDA API level),
 * Python and torch, each GPU library it loaded (version, identity, where it
 * came from), NCCL's plugins, and the variables that steer loading and the
 * GPU libraries.  `env`, `diff` and the ENV_DIFFERS rule read these.
 *
 * A profile's memory is the arena it was built in: nothing to free. */
#ifndef DLTRACE_ENVPROF_H
#define DLTRACE_ENVPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem.h"

struct dlt_process;
struct dlt_gpu;

/* Sections, in order of likely consequence (diff prints them so). */
enum dlt_envp_kind {
	DLT_ENVP_GPU_LIB = 0, /* a GPU library: libcudart, libcudnn ... */
	DLT_ENVP_PLUGIN = 1,  /* an NCCL plugin (libnccl-net*.so ...) */
	DLT_ENVP_LIB = 2,     /* another library (diff only) */
	DLT_ENVP_VAR = 3,     /* an environment variable */
	DLT_ENVP_SYS = 4,     /* OS, kernel, glibc, driver, Python, torch */
	DLT_ENVP_KINDS
};

struct dlt_envp_item {
	enum dlt_envp_kind kind;
	const char *key;   /* "libcudnn", "NCCL_IB_HCA", "glibc" ... */
	const char *value; /* what is compared: a version, a value */
	/* Libraries: the file, the rule that chose it (LD_LIBRARY_PATH,
	 * RPATH ...), how it was installed ("pip nvidia-cudnn-cu12",
	 * "dpkg libcudnn9", NULL unknown), and what the file is: its
	 * build-id in hex (else "size N"), so that one build at two paths
	 * is told from two builds. */
	const char *path;
	const char *via;
	const char *installed;
	const char *identity;
	/* Where the value came from ("library", "file name", "/etc/os-release"
	 * ...), NULL when it says itself (variables). */
	const char *from;
	/* A library's version read from a file name that is only its soname
	 * (libgomp.so.1 says "1": the ABI, not the release). */
	bool soname_only;
};

struct dlt_envprof {
	const char *host;
	int32_t rank; /* -1 unknown */
	uint32_t pid;
	const char *exe;
	struct dlt_envp_item *items; /* sorted by kind, then key */
	size_t n, cap;
	/* A forked child: it has its parent's libraries without having
	 * loaded them (its trace has none of them). */
	bool forked;
	/* Every library is kept (DLT_ENVP_LIB) only when asked for. */
	bool all_libs;
	/* items are in dlt_envp_item_cmp's order: looked up by bisection. */
	bool sorted;
};

/* The profile of one process, allocated in *arena.  all_libs: keep the
 * libraries outside the GPU stack too (diff compares them). */
struct dlt_envprof *dlt_envprof_build(struct dlt_arena_blk **arena,
				      const struct dlt_process *p,
				      const struct dlt_gpu *g, bool all_libs);
/* Whether the process loaded a GPU library or an NCCL plugin, or ran
 * Python: the processes whose environment matters. */
bool dlt_envp_busy(const struct dlt_envprof *e);
/* Adds to dst the items of src whose key dst lacks (the processes of one
 * rank: the first to load a library says where it came from). */
void dlt_envprof_merge(struct dlt_arena_blk **arena, struct dlt_envprof *dst,
		       const struct dlt_envprof *src);
/* A copy of src in *arena whose items can be added to (merged) without
 * changing src's. */
struct dlt_envprof *dlt_envprof_copy(struct dlt_arena_blk **arena,
				     const struct dlt_envprof *src);
/* The item with this kind and key, or NULL. */
const struct dlt_envp_item *dlt_envprof_get(const struct dlt_envprof *e,
					    enum dlt_envp_kind kind,
					    const char *key);
/* Whether two items of one key are the same: the value, and for libraries
 * the identity and the path too. */
bool dlt_envp_same(const struct dlt_envp_item *a,
		   const struct dlt_envp_item *b);
/* Whether a kind is a library's (GPU library, NCCL plugin, other). */
bool dlt_envp_is_lib(enum dlt_envp_kind k);
/* One build is one version: the libraries of these profiles that are
 * the same file (one identity) at several places, some of whose versions
 * were only read from a name (libgomp.so.1 says "1", libgomp.so.1.0.0
 * "1.0.0"; cuDNN 9's copy "9", the library "9.19.0"), all take the
 * version from the best source among them (the library's answer, then
 * the file, then the longest name), with `from` saying whence ("another
 * copy of this build (file name)").  Call it once all profiles that are
 * compared are built. */
void dlt_envp_unify(struct dlt_arena_blk **arena,
		    struct dlt_envprof *const *profs, size_t n);
/* Whether two versions of one library (or of Python ...) may be one
 * version said in two forms: one read from a file name (a soname, an
 * executable's name) that the other starts with, dot by dot ("1" and
 * "1.0.0", "9" and "9.19.0", python3.11's "3.11" and "3.11.2"), or one
 * side without a version: not known to differ. */
bool dlt_envp_version_vague(const struct dlt_envp_item *a,
			    const struct dlt_envp_item *b);
/* Where a version came from, for people: "the library's answer", "its
 * file name", "its soname only", "Py_GetVersion" ... (NULL: a
 * variable's). */
const char *dlt_envp_version_source(const struct dlt_envp_item *it);
/* An identity for people: "build-id 3f2a..." as it is, "size 290392"
 * as "size 283.6 KiB (290,392 bytes)".  Into buf; returns buf. */
const char *dlt_envp_identity_text(const char *identity, char *buf, size_t cap);
/* The name of the variable that made the loader pick a library's file,
 * when one did (found via LD_LIBRARY_PATH, LD_PRELOAD); NULL otherwise. */
const char *dlt_envp_via_var(const struct dlt_envp_item *it);
/* "GPU libraries", "NCCL plugins" ... */
const char *dlt_envp_kind_name(enum dlt_envp_kind k);
/* Whether a variable shapes loading or the GPU libraries (LD_*, CUDA_*,
 * NCCL_*, CUDNN_*, TORCH_*, PYTORCH_*, OMP_*, PYTHON*, NVIDIA_*, the
 * environment managers' VIRTUAL_ENV, CONDA_*); per_rank: and whether it is
 * one that launchers set differently per rank on purpose
 * (CUDA_VISIBLE_DEVICES ...), which the odd-one-out rule leaves alone. */
bool dlt_envp_var_shapes(const char *name, bool *per_rank);

/* The profiles being compared (ranks of a job, two runs): each a unit
 * with its label ("rank 1 (node-b)", "pid 4242 (node-a)"). */
struct dlt_envp_unit {
	struct dlt_envprof *prof;
	char label[160];
};

/* One value of a key and the units that have it (item NULL: the units
 * without the key: a variable unset, a library not loaded). */
struct dlt_envp_group {
	const struct dlt_envp_item *item;
	size_t *units; /* indices into the unit array */
	size_t n;
};

/* Every (kind, key) some unit has, each once, sorted by kind then key:
 * a malloc'ed array of items (the first unit's that has it); *n gets how
 * many. */
const struct dlt_envp_item **dlt_envp_keys(const struct dlt_envp_unit *u,
					   size_t nu, size_t *n);
/* The distinct values of one key among the units, the largest group
 * first (ties: the group of the lower unit first).  groups and
 * idx have room for nu entries each (idx holds the groups' unit lists).
 * Returns how many groups. */
size_t dlt_envp_groups(const struct dlt_envp_unit *u, size_t nu,
		       const struct dlt_envp_item *key,
		       struct dlt_envp_group *groups, size_t *idx);
/* Leaves out the group of units without the key where absence says
 * nothing (a GPU library or another library a process never loaded, a
 * version it never reported: it may have ended first, or be a worker
 * forked after the loads): it goes to *absent (n 0 when there is none).
 * An NCCL plugin on some ranks only is a difference.  Returns how many
 * groups are left. */
size_t dlt_envp_present(const struct dlt_envp_item *key,
			struct dlt_envp_group *groups, size_t ng,
			struct dlt_envp_group *absent);
/* The units of a job, worked out from its profiles: one per rank (the
 * processes of a rank merged, the first started first) where ranks are
 * known, else one per process that loaded a GPU library or ran Python
 * (forked children left out: they share their parent's libraries), else
 * one per process.  profs in start order; *nu gets how many units
 * (malloc'ed array, labels filled).  The units' versions are unified
 * (dlt_envp_unify). */
struct dlt_envp_unit *dlt_envp_units(struct dlt_arena_blk **arena,
				     struct dlt_envprof *const *profs, size_t n,
				     size_t *nu);
/* "ranks 0 2-5 (node-a), rank 1 (node-b)": the units of a group, cut to
 * cap. */
const char *dlt_envp_who(const struct dlt_envp_unit *u,
			 const struct dlt_envp_group *g, char *buf, size_t cap);

#endif
