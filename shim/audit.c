/* The LD_AUDIT half of libdltrace.so: watches the dynamic loader without
 * taking part in its decisions.
 *
 * la_objsearch reports every path the loader tries and the rule that made
 * it; la_objopen reports what was mapped; la_activity brackets a batch of
 * changes.  From these the module writes one LIB_LOAD record per mapped
 * object (with the paths tried before it) and one LIB_FAIL record per name
 * the loader searched without mapping anything.
 *
 * The loader calls these functions with its lock held, from the thread that
 * loads, so the search state below needs no lock of its own.
 *
 * Two builds (docs/design.md, "One library, two roles"): in libdltrace.so,
 * which can still be named in LD_AUDIT itself, and alone in
 * libdltrace-audit.so (DLT_FREESTANDING), which has no C library
 * (shim/nolibc.c) and no thread-local storage (DLT_NO_TLS), and which the
 * launcher and the exec wrappers name. */
#define _GNU_SOURCE
#include "state.h"
#include "hash.h"
#include "hot.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfread.h"
#include "filever.h"
#include "strbuf.h"
#ifdef DLT_NO_TLS
#include <sched.h>
#include <sys/syscall.h>
#endif

#define DLT_AUDIT_MAX_TRIED 256
#define DLT_AUDIT_MAX_OBJS 4096

/* Page-aligned: its fields, its small string index and first entries on
 * one page (tracer/writer.h). */
static _Alignas(4096) struct dlt_writer dlt_audit_writer;
DLT_HOT static int dlt_audit_on;
#ifdef DLT_FREESTANDING
DLT_HOT static int dlt_audit_poked; /* the preload copy has our writer */
#else
DLT_HOT static uint64_t dlt_self_dev, dlt_self_ino;
DLT_HOT static uintptr_t dlt_rv_offset; /* &dlt_rendezvous - our load bias */
#endif
DLT_HOT static int dlt_started; /* first LA_ACT_CONSISTENT seen */
DLT_HOT static pid_t dlt_audit_pid;

/* Ordered by what a search touches: the fields and the first paths tried
 * share the first page with the start of the last path (which a failed
 * search stats). */
struct dlt_search {
	int active;
	/* Loaded at start-up because LD_PRELOAD named it: decided when the
	 * search starts, where its name is at hand (a copy of the name was a
	 * page of its own in every process). */
	int preload_named;
	uint64_t requester_obj;
	uint32_t requested;
	uint32_t requester;
	uint32_t n;
	int cut;
	uint64_t last_ts; /* when the last path was tried */
	struct dlt_tried tried[DLT_AUDIT_MAX_TRIED];
};

#ifdef DLT_FREESTANDING
/* The module's own realpath takes the buffer's size: la_objopen's is
 * 1 KiB, not PATH_MAX, its frame one page of stack less at every start
 * (the callbacks run deep in the loader's stack; issue 31).  A longer
 * real path is not recorded (the path the loader used is). */
#define DLT_REAL_CAP 1024u
#define dlt_realpath_in(path, out) dlt_nolibc_realpath(path, out, DLT_REAL_CAP)
#else
#define DLT_REAL_CAP DLT_PATH_MAX
#define dlt_realpath_in(path, out) realpath(path, out)
#endif

/* Objects mapped so far: enough to tell RPATH from RUNPATH for a requester
 * and to recognise a search that ended on a file already loaded. */
struct dlt_obj {
	uint64_t obj, dev, ino;
	int has_runpath;
	int pending; /* mapped in the current batch, not yet consistent */
};

/* The realpath cache's directories (dlt_realpath): a longer one goes to
 * realpath as it is.  224 bytes keep the cache on the search's page. */
#define DLT_SEEN_DIRS 4
#define DLT_SEEN_LEN 224

/* What the module touches in every process, on as few pages as the sizes
 * allow: the search's fields, its first paths tried, the realpath cache
 * and the start of the last path on the first page; the objects' list on
 * the third (the last path's tail between them is touched only by a path
 * of more than 200 bytes).  As separate variables they were four pages,
 * and the copy of the requested name a fifth (docs/performance.md). */
static _Alignas(4096) struct {
	struct dlt_search cur;
	struct dlt_seen_dirs {
		char dir[DLT_SEEN_DIRS][DLT_SEEN_LEN];
		char real[DLT_SEEN_DIRS][DLT_SEEN_LEN];
		unsigned next;
	} seen;
	char last_path[DLT_PATH_MAX];
	_Alignas(4096) struct dlt_obj objs[DLT_AUDIT_MAX_OBJS];
} dlt_aud;
_Static_assert(offsetof(__typeof__(dlt_aud), last_path) < 4096 - 128,
	       "the last path starts on the search's page");
DLT_HOT static uint32_t dlt_nobjs;

static struct dlt_obj *dlt_audit_obj_find(uint64_t obj)
{
	for (uint32_t i = 0; i < dlt_nobjs; i++)
		if (dlt_aud.objs[i].obj == obj)
			return &dlt_aud.objs[i];
	return NULL;
}

#ifdef DLT_NO_TLS
/* Without thread-local storage the module has one chunk state (dlt_tls),
 * and it follows the thread the loader runs in: a chunk is one thread's
 * (its CHUNK record names it), so when another thread calls, the chunk is
 * given back and the next record takes one for the caller, as a thread's
 * first record does.  The loader's lock makes the callbacks one at a
 * time.  A gettid system call per callback.  -1: this callback records
 * nothing. */
static int dlt_audit_follow_thread(struct dlt_writer *w)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	if (dlt_tls.gen != 0 && tid == dlt_tls.tid)
		return 0;
	/* Taking the state over takes a chunk under the writer's locks.  A
	 * fork in progress in this very thread (a fork handler that calls
	 * dlopen) holds them, and marked only the state of its own thread
	 * (dlt_audit_tls), which this one is not yet: it would wait for
	 * itself.  Another holder lets go within microseconds. */
	for (int i = 0; atomic_load(&w->lock) || atomic_load(&w->str_lock);
	     i++) {
		if (i == 1000)
			return -1;
		sched_yield();
	}
	if (dlt_tls.gen != 0) {
		dlt_tls_release(w, &dlt_tls);
		dlt_tls.gen = 0; /* never a file's: the slow path starts over */
	}
	return 0;
}
#endif

/* After a fork the audit copy, which got no atfork call of its own, finds
 * a new file through the shared writer; its search state is stale. */
static struct dlt_writer *dlt_audit_writer_on(void)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL)
		return NULL;
	pid_t pid = dlt_self_pid(w);
	if (pid != dlt_audit_pid) {
		dlt_audit_pid = pid;
		dlt_aud.cur.active = 0;
	}
	if (w->pid != pid)
		return NULL;
#ifdef DLT_NO_TLS
	if (dlt_audit_follow_thread(w) != 0)
		return NULL;
#endif
	return w;
}

/* The main program's string id in the current trace file (w->gen), made
 * by its LIB_LOAD: the searches it requests name it without reading its
 * path again. */
DLT_HOT static uint32_t dlt_exe_str, dlt_exe_gen;

static uint32_t dlt_requester_str(struct dlt_writer *w, uint64_t obj, char *buf,
				  size_t cap)
{
	struct link_map *lm = (struct link_map *)(uintptr_t)obj;
	if (lm == NULL)
		return DLT_STR_NONE;
	if (lm->l_name && lm->l_name[0])
		return dlt_str(w, &dlt_tls, lm->l_name);
	/* The main program's l_name is empty. */
	uint32_t gen = atomic_load(&w->gen);
	if (dlt_exe_gen == gen && dlt_exe_str != DLT_STR_NONE)
		return dlt_exe_str;
	const char *exe = dlt_exe_path_into(buf, cap);
	return exe[0] ? dlt_str(w, &dlt_tls, exe) : DLT_STR_NONE;
}

static void dlt_flush_failed_search(void)
{
	if (!dlt_aud.cur.active)
		return;
	dlt_aud.cur.active = 0;
	struct dlt_writer *w = dlt_audit_writer_on();
	if (w == NULL)
		return;
	/* The loader reuses an object whose file it already mapped under
	 * another name without reporting a new one: not a failure. */
	struct stat st;
	if (dlt_aud.last_path[0] && stat(dlt_aud.last_path, &st) == 0) {
		for (uint32_t i = 0; i < dlt_nobjs; i++)
			if (dlt_aud.objs[i].dev == (uint64_t)st.st_dev &&
			    dlt_aud.objs[i].ino == (uint64_t)st.st_ino)
				return;
	}
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_lib_fail) +
				  dlt_aud.cur.n * sizeof(struct dlt_tried));
	struct dlt_rec_lib_fail *r = dlt_rec_reserve(w, &dlt_tls, len);
	if (r == NULL)
		return;
	/* The loader only tells us later that the search failed; date the
	 * record when it did, before dlopen returned to the program. */
	r->h.ts = dlt_aud.cur.last_ts;
	r->requester_obj = dlt_aud.cur.requester_obj;
	r->requested = dlt_aud.cur.requested;
	r->requester = dlt_aud.cur.requester;
	r->n_tried = dlt_aud.cur.n;
	r->pad = 0;
	memcpy(r->tried, dlt_aud.cur.tried,
	       dlt_aud.cur.n * sizeof(struct dlt_tried));
	dlt_rec_commit(r, DLT_REC_LIB_FAIL,
		       dlt_aud.cur.cut ? DLT_LIB_TRIED_CUT : 0, len);
}

static uint32_t dlt_via_of(unsigned int flag, uint64_t requester)
{
	switch (flag) {
	case LA_SER_LIBPATH:
		return DLT_VIA_LD_LIBRARY_PATH;
	case LA_SER_RUNPATH: {
		/* glibc reports both with one flag: the requester's dynamic
		 * section says which it has (RUNPATH hides RPATH). */
		struct dlt_obj *o = dlt_audit_obj_find(requester);
		return (o && !o->has_runpath) ? DLT_VIA_RPATH : DLT_VIA_RUNPATH;
	}
	case LA_SER_CONFIG:
		return DLT_VIA_LD_SO_CACHE;
	case LA_SER_DEFAULT:
	case LA_SER_SECURE:
		return DLT_VIA_DEFAULT;
	default:
		return DLT_VIA_UNKNOWN;
	}
}

DLT_EXPORT char *la_objsearch(const char *name, uintptr_t *cookie,
			      unsigned int flag)
{
	if (!dlt_audit_on || name == NULL)
		return (char *)name;
	struct dlt_writer *w = dlt_audit_writer_on();
	if (w == NULL)
		return (char *)name;
	int saved = errno;
	if (flag == LA_SER_ORIG) {
		dlt_flush_failed_search();
		dlt_exe_hint = NULL; /* its buffer is the last path's */
		char buf[DLT_REAL_CAP];
		dlt_aud.cur.active = 1;
		dlt_aud.cur.n = 0;
		dlt_aud.cur.cut = 0;
		dlt_aud.last_path[0] = '\0';
		dlt_aud.cur.last_ts = dlt_now_ns();
		dlt_aud.cur.requester_obj = cookie ? (uint64_t)*cookie : 0;
		dlt_aud.cur.requested = dlt_str(w, &dlt_tls, name);
		dlt_aud.cur.preload_named =
			!dlt_started &&
			dlt_list_has(getenv("LD_PRELOAD"), name);
		dlt_aud.cur.requester = dlt_requester_str(
			w, dlt_aud.cur.requester_obj, buf, sizeof(buf));
		if (strchr(name, '/') == NULL)
			goto out;
		/* A path: the loader opens it as it is. */
	}
	if (dlt_aud.cur.active) {
		dlt_aud.cur.last_ts = dlt_now_ns();
		dlt_copy_str(dlt_aud.last_path, sizeof(dlt_aud.last_path),
			     name);
		if (dlt_aud.cur.n < DLT_AUDIT_MAX_TRIED) {
			struct dlt_tried *t =
				&dlt_aud.cur.tried[dlt_aud.cur.n++];
			t->path = dlt_str(w, &dlt_tls, name);
			t->via =
				flag == LA_SER_ORIG
					? DLT_VIA_ABSOLUTE
					: dlt_via_of(flag,
						     dlt_aud.cur.requester_obj);
		} else {
			/* Keep the newest path last: it is the one that won. */
			dlt_aud.cur.cut = 1;
			struct dlt_tried *t =
				&dlt_aud.cur.tried[DLT_AUDIT_MAX_TRIED - 1];
			t->path = dlt_str(w, &dlt_tls, name);
			t->via = dlt_via_of(flag, dlt_aud.cur.requester_obj);
		}
	}
out:
	errno = saved;
	return (char *)name;
}

#ifdef DLT_FREESTANDING
/* Hands our writer to the preload copy, libdltrace.so: mapped but not yet
 * relocated or initialised.  It is the object of the start-up that
 * exports dlt_rendezvous (found through its GNU hash table, which the
 * loader reads anyway when it binds the program's symbols); the preload
 * copy finds our file's name from audit_addr, and its own from self_path,
 * the loader's name of it. */
static void dlt_poke_rendezvous(struct link_map *map, Lmid_t lmid)
{
	uint64_t off, size = 0;
	if (dlt_audit_poked || lmid != LM_ID_BASE || dlt_started ||
	    map->l_name == NULL || map->l_name[0] == '\0' ||
	    dlt_elf_mapped_symbol(map->l_addr, map->l_ld, "dlt_rendezvous",
				  &off, &size) != 0 ||
	    size < sizeof(struct dlt_rendezvous))
		return; /* none, or another version's (smaller) */
	struct dlt_rendezvous *rv =
		(struct dlt_rendezvous *)(map->l_addr + off);
	rv->w = &dlt_audit_writer;
	rv->layout = DLT_WRITER_LAYOUT;
	rv->self_path = map->l_name;
	rv->audit_addr = &dlt_audit_writer;
	rv->cfg = &dlt_cfg;
	rv->cfg_size = sizeof(dlt_cfg);
	rv->magic = DLT_RENDEZVOUS_MAGIC;
	dlt_audit_poked = 1;
}
#else
/* Hands our writer to the preload copy of this same file: it has been
 * mapped but not yet relocated or initialised, and its dlt_rendezvous sits
 * at the same offset from its load bias as ours does from ours. */
static void dlt_poke_rendezvous(struct link_map *map)
{
	if (dlt_rv_offset == 0)
		return;
	struct dlt_rendezvous *rv =
		(struct dlt_rendezvous *)(map->l_addr + dlt_rv_offset);
	rv->w = &dlt_audit_writer;
	rv->layout = DLT_WRITER_LAYOUT;
	rv->self_path = dlt_self_path;
	rv->audit_addr = NULL;
	rv->cfg = &dlt_cfg;
	rv->cfg_size = sizeof(dlt_cfg);
	rv->magic = DLT_RENDEZVOUS_MAGIC;
}
#endif

/* The string ids of a LIB_LOAD's file. */
struct dlt_file_strs {
	uint32_t path, real, soname, runpath, rpath;
};

/* What la_objopen learnt about a file, kept for the next time the same
 * file is mapped: a program that dlopens and dlcloses a plugin in a loop
 * paid an ELF read and a realpath per load (1.29x on 2,000 cycles,
 * docs/performance.md); now one stat.  Keyed by the name the loader used
 * and the file's identity, so a replaced file is read again. */
struct dlt_file_memo {
	uint64_t dev, ino, size;
	int64_t mtime_ns;
	uint32_t gen; /* string ids belong to one trace file */
	struct dlt_file_strs s;
	uint8_t build_id[32];
	uint32_t build_id_len;
	int has_runpath;
	char path[256];
};
static struct dlt_file_memo dlt_memo[64];

static struct dlt_file_memo *dlt_memo_slot(const char *path)
{
	uint64_t h = dlt_fnv1a_str(path);
	return &dlt_memo[h % (sizeof(dlt_memo) / sizeof(dlt_memo[0]))];
}

static int64_t dlt_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static int dlt_memo_hit(const struct dlt_file_memo *m, const char *path,
			const struct stat *st, uint32_t gen)
{
	return m->gen == gen && m->dev == (uint64_t)st->st_dev &&
	       m->ino == (uint64_t)st->st_ino &&
	       m->size == (uint64_t)st->st_size &&
	       m->mtime_ns == dlt_mtime_ns(st) && strcmp(m->path, path) == 0;
}

/* realpath(path) into out (DLT_REAL_CAP bytes), with the real path of
 * its directory remembered: libraries come from a few directories, and
 * realpath costs a readlink per component of the path, each time. */
static char *dlt_realpath(const char *path, char *out, int is_link)
{
	struct dlt_seen_dirs *seen = &dlt_aud.seen;
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 0;
	/* A link as the last component: its target decides. */
	if (slash == NULL || dl == 0 || dl >= sizeof(seen->dir[0]) || is_link)
		return dlt_realpath_in(path, out);
	unsigned k = 0;
	for (; k < DLT_SEEN_DIRS; k++)
		if (strncmp(seen->dir[k], path, dl) == 0 &&
		    seen->dir[k][dl] == '\0')
			break;
	if (k == DLT_SEEN_DIRS) {
		/* out holds the directory's real path until the answer
		 * replaces it. */
		char dir[sizeof(seen->dir[0])];
		memcpy(dir, path, dl);
		dir[dl] = '\0';
		k = seen->next++ % DLT_SEEN_DIRS;
		seen->dir[k][0] = '\0';
		if (dlt_realpath_in(dir, out) == NULL ||
		    strlen(out) >= sizeof(seen->real[k]))
			return dlt_realpath_in(path, out);
		memcpy(seen->real[k], out, strlen(out) + 1);
		memcpy(seen->dir[k], dir, dl + 1);
	}
	struct dlt_strbuf b;
	dlt_sb_init(&b, out, DLT_REAL_CAP);
	dlt_sb_str(&b, seen->real[k]);
	dlt_sb_str(&b, slash);
	return dlt_sb_done(&b) == 0 ? out : dlt_realpath_in(path, out);
}

DLT_EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid,
				   uintptr_t *cookie)
{
	*cookie = (uintptr_t)map;
	int saved = errno;
	/* lstat first: the same answer as stat but for a link as the last
	 * component (then stat too), and what dlt_realpath needs to know (a
	 * stat and an lstat of every object before, issue 31). */
	struct stat st;
	int have_named = 0, named_link = 0;
	if (map->l_name && map->l_name[0] && lstat(map->l_name, &st) == 0) {
		named_link = S_ISLNK(st.st_mode);
		have_named = !named_link || stat(map->l_name, &st) == 0;
	}
#ifdef DLT_FREESTANDING
	if (have_named)
		dlt_poke_rendezvous(map, lmid);
#else
	if (lmid == LM_ID_BASE && have_named && dlt_rv_offset != 0 &&
	    (uint64_t)st.st_dev == dlt_self_dev &&
	    (uint64_t)st.st_ino == dlt_self_ino)
		dlt_poke_rendezvous(map);
#endif
	struct dlt_writer *w = dlt_audit_on ? dlt_audit_writer_on() : NULL;
	if (w == NULL) {
		errno = saved;
		return 0;
	}
	char real[DLT_REAL_CAP];
	const char *path = map->l_name;
	uint32_t flags = 0;
	int is_main = (path == NULL || path[0] == '\0') && lmid == LM_ID_BASE &&
		      dlt_nobjs == 0;
	int have_file = have_named;
	if (is_main) {
		/* Already a real path (the kernel's). */
		path = dlt_exe_hint && dlt_exe_hint[0]
			       ? dlt_exe_hint
			       : dlt_exe_path_into(real, sizeof(real));
		flags |= DLT_LIB_MAIN;
		have_file = path[0] && stat(path, &st) == 0;
	}
	if (!have_file && !is_main)
		flags |= DLT_LIB_VDSO;
	uint32_t gen = atomic_load(&w->gen);
	/* Not for the objects of the start-up, each mapped once: the memo's
	 * slots are spread over pages that a short process would touch for
	 * nothing. */
	struct dlt_file_memo *memo =
		dlt_started && have_file &&
				strlen(path) < sizeof(dlt_memo[0].path)
			? dlt_memo_slot(path)
			: NULL;
	int hit = memo && dlt_memo_hit(memo, path, &st, gen);
	struct dlt_elf_info ei;
	dlt_elf_info_clear(&ei);
	/* From the loader's mapped copy, which is what runs (a file replaced
	 * since is not); the file where that cannot be checked. */
	if (have_file && !hit &&
	    dlt_elf_read_mapped(map->l_addr, map->l_ld, &ei) != 0)
		dlt_elf_read(path, &ei);

	uint32_t n_tried = 0;
	int from_search = 0;
	if (dlt_aud.cur.active && !is_main) {
		/* The winning path is the last one tried. */
		from_search = 1;
		n_tried = dlt_aud.cur.n;
	}
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_lib_load) +
				  n_tried * sizeof(struct dlt_tried));
	struct dlt_file_strs fs;
	if (hit) {
		fs = memo->s;
		memcpy(ei.build_id, memo->build_id, sizeof(ei.build_id));
		ei.build_id_len = memo->build_id_len;
		ei.has_runpath = memo->has_runpath;
	} else {
		fs.path = dlt_str(w, &dlt_tls, path);
		fs.real = fs.path;
		if (is_main) {
			dlt_exe_str = fs.path;
			dlt_exe_gen = gen;
		}
		if (have_file && !is_main &&
		    dlt_realpath(path, real, named_link) != NULL &&
		    strcmp(real, path))
			fs.real = dlt_str(w, &dlt_tls, real);
		fs.soname = ei.soname[0] ? dlt_str(w, &dlt_tls, ei.soname) : 0;
		fs.runpath =
			ei.has_runpath ? dlt_str(w, &dlt_tls, ei.runpath) : 0;
		fs.rpath = ei.has_rpath ? dlt_str(w, &dlt_tls, ei.rpath) : 0;
		/* Only a complete answer is kept (a string the table had no
		 * room for is asked again next time). */
		if (memo && fs.path != DLT_STR_NONE &&
		    fs.real != DLT_STR_NONE &&
		    (!ei.soname[0] || fs.soname != DLT_STR_NONE)) {
			memo->dev = (uint64_t)st.st_dev;
			memo->ino = (uint64_t)st.st_ino;
			memo->size = (uint64_t)st.st_size;
			memo->mtime_ns = dlt_mtime_ns(&st);
			memo->gen = gen;
			memo->s = fs;
			memcpy(memo->build_id, ei.build_id,
			       sizeof(memo->build_id));
			memo->build_id_len = ei.build_id_len;
			memo->has_runpath = ei.has_runpath;
			/* the slot was chosen only for a path that fits */
			memcpy(memo->path, path, strlen(path) + 1);
		}
	}

	uint32_t via = DLT_VIA_UNKNOWN;
	if (is_main) {
		via = DLT_VIA_MAIN;
	} else if (from_search && dlt_aud.cur.n > 0) {
		via = dlt_aud.cur.tried[dlt_aud.cur.n - 1].via;
	} else if (path && path[0] == '/') {
		via = DLT_VIA_ABSOLUTE; /* the program interpreter */
	}
	if (from_search && !dlt_started && dlt_aud.cur.preload_named) {
		/* Loaded at start-up because LD_PRELOAD named it. */
		via = DLT_VIA_PRELOAD;
		flags |= DLT_LIB_PRELOAD;
	}
	struct dlt_rec_lib_load *r = dlt_rec_reserve(w, &dlt_tls, len);
	if (r != NULL) {
		r->h.ts = dlt_now_ns();
		r->obj = (uint64_t)(uintptr_t)map;
		r->requester_obj = from_search ? dlt_aud.cur.requester_obj : 0;
		r->base = map->l_addr;
		r->dev = have_file ? (uint64_t)st.st_dev : 0;
		r->ino = have_file ? (uint64_t)st.st_ino : 0;
		r->size = have_file ? (uint64_t)st.st_size : 0;
		r->mtime_ns = have_file ? dlt_mtime_ns(&st) : 0;
		r->lmid = (int64_t)lmid;
		r->requested = from_search ? dlt_aud.cur.requested : fs.path;
		r->requester = from_search ? dlt_aud.cur.requester : 0;
		r->path = fs.path;
		r->realpath = fs.real;
		r->soname = fs.soname;
		r->runpath = fs.runpath;
		r->rpath = fs.rpath;
		r->found_via = via;
		r->build_id_len = ei.build_id_len;
		memcpy(r->build_id, ei.build_id, sizeof(r->build_id));
		r->n_tried = n_tried;
		if (n_tried)
			memcpy(r->tried, dlt_aud.cur.tried,
			       n_tried * sizeof(struct dlt_tried));
		if (from_search && dlt_aud.cur.cut)
			flags |= DLT_LIB_TRIED_CUT;
		if (dlt_started)
			flags |= DLT_LIB_DLOPEN;
		dlt_rec_commit(r, DLT_REC_LIB_LOAD, (uint16_t)flags, len);
	}
	/* A GPU library: its version as the file says it, now (the library
	 * itself can answer only once initialised: dlt_versions_loaded). */
	if (have_file && !hit && dlt_gpu_file_family(path))
		dlt_versions_from_file(w, fs.real != fs.path ? real : path);
	dlt_aud.cur.active = 0;
	if (dlt_nobjs < DLT_AUDIT_MAX_OBJS) {
		struct dlt_obj *o = &dlt_aud.objs[dlt_nobjs++];
		o->obj = (uint64_t)(uintptr_t)map;
		o->dev = have_file ? (uint64_t)st.st_dev : 0;
		o->ino = have_file ? (uint64_t)st.st_ino : 0;
		o->has_runpath = ei.has_runpath;
		o->pending = 1;
	}
	if (is_main)
		dlt_exe_hint = NULL; /* its buffer is the last path's */
	errno = saved;
	return 0; /* no symbol binding callbacks: they would slow every call */
}

/* Records written by this copy after the process began to end (a failed
 * search said, a failed load's unload): the last cut must follow them. */
DLT_HOT static int dlt_wrote_ending;

DLT_EXPORT unsigned int la_objclose(uintptr_t *cookie)
{
	if (!dlt_audit_on)
		return 0;
	/* The process ends and nothing is left to say of this object: no
	 * system call (each of the five or so objects of a short process
	 * paid the thread's and the process's ids, issue 31). */
	struct dlt_writer *e = dlt_w;
	if (e && atomic_load_explicit(&e->ending, memory_order_relaxed) &&
	    !dlt_aud.cur.active) {
		struct dlt_obj *o = dlt_audit_obj_find((uint64_t)*cookie);
		if (o == NULL || !o->pending)
			return 0;
	}
	struct dlt_writer *w = dlt_audit_writer_on();
	if (w == NULL)
		return 0;
	int saved = errno;
	int ending = atomic_load_explicit(&w->ending, memory_order_relaxed);
	/* A search still pending has failed.  glibc 2.36 says so with
	 * la_activity at exit as well; 2.31 only calls la_objclose. */
	dlt_wrote_ending |= ending && dlt_aud.cur.active;
	dlt_flush_failed_search();
	uint64_t obj = (uint64_t)*cookie;
	struct dlt_obj *o = dlt_audit_obj_find(obj);
	int failed_load = o && o->pending;
	if (o) {
		/* Forget it: its address may be reused by a later object. */
		*o = dlt_aud.objs[--dlt_nobjs];
	}
	/* At the end of the process the loader unloads every object: those
	 * records would only say that it ended, which its EXIT record and
	 * the end of the trace say.  A load that failed is still said. */
	struct dlt_rec_lib_unload *r =
		ending && !failed_load
			? NULL
			: dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r) {
		r->h.ts = dlt_now_ns();
		r->obj = obj;
		dlt_rec_commit(r, DLT_REC_LIB_UNLOAD, (uint16_t)failed_load,
			       sizeof(*r));
		dlt_wrote_ending |= ending;
	}
	/* At exit the objects are finalised from the program down to the
	 * dynamic loader, whose unload is reported last; glibc before 2.35
	 * calls no la_activity after it (below), so the file is cut here
	 * too, after the last record. */
	if (ending && dlt_wrote_ending &&
	    ((struct link_map *)(uintptr_t)obj)->l_addr ==
		    (ElfW(Addr))getauxval(AT_BASE))
		dlt_writer_cut(w, 1);
	errno = saved;
	return 0;
}

DLT_EXPORT void la_activity(uintptr_t *cookie, unsigned int flag)
{
	(void)cookie;
	if (!dlt_audit_on || flag != LA_ACT_CONSISTENT)
		return;
	int saved = errno;
	struct dlt_writer *w = dlt_w;
	int ending =
		w && atomic_load_explicit(&w->ending, memory_order_relaxed);
	dlt_wrote_ending |= ending && dlt_aud.cur.active;
	dlt_flush_failed_search();
	for (uint32_t i = 0; i < dlt_nobjs; i++)
		dlt_aud.objs[i].pending = 0;
	dlt_started = 1;
	/* At exit, glibc 2.35 and later end the objects' unload reports
	 * with this call: what this copy wrote after the exit's own cut (a
	 * failed search, a failed load's unload) is the last, and the file
	 * is cut again after it. */
	if (ending && dlt_wrote_ending)
		dlt_writer_cut(w, 1);
	errno = saved;
}

#ifndef DLT_FREESTANDING
static void dlt_audit_find_self(void)
{
	uintptr_t base;
	if (dlt_find_self(&base) != 0)
		return;
	struct stat st;
	if (stat(dlt_self_path, &st) != 0)
		return;
	dlt_self_dev = (uint64_t)st.st_dev;
	dlt_self_ino = (uint64_t)st.st_ino;
	dlt_rv_offset = (uintptr_t)&dlt_rendezvous - base;
}

/* The thread ends (called by the preload copy): our chunk is done. */
static void dlt_audit_thread_exit(void)
{
	dlt_tls_release(dlt_w, &dlt_tls);
}
#endif

/* The calling thread's chunk state in this copy (the fork's hold marks
 * it, the cut at exit shortens its chunk).  Without thread-local storage
 * the one state is only the thread's that writes it. */
static struct dlt_tls *dlt_audit_tls(void)
{
#ifdef DLT_NO_TLS
	if (dlt_tls.gen == 0 || dlt_tls.tid != (uint32_t)syscall(SYS_gettid))
		return NULL;
#endif
	return &dlt_tls;
}

/* A thread's first record from this copy: have the preload copy call
 * dlt_audit_thread_exit when the thread ends. */
static void dlt_audit_new_thread(void)
{
	void (*start)(void) = dlt_audit_writer.preload_thread_start;
	if (start)
		start();
}

DLT_EXPORT unsigned int la_version(unsigned int version)
{
	if (version == 0)
		return 0;
	dlt_writer_kind_self = DLT_WRITER_AUDIT;
	/* The search's page written before anything reads it: a read first
	 * maps the zero page and the first write then faults again, two page
	 * faults for the page instead of one (issue 31). */
	dlt_aud.cur.active = 0;
	dlt_audit_pid = getpid();
	dlt_config_read(true);
#ifndef DLT_FREESTANDING
	dlt_audit_find_self();
#endif

	struct dlt_open_params p;
	char host[256];
	dlt_start_params(&p, host, sizeof(host));
	p.features = DLT_FEAT_AUDIT;
#ifndef DLT_NO_TLS
	/* Without thread-local storage the one chunk state is not the
	 * ending thread's to give back (dlt_audit_follow_thread). */
	dlt_audit_writer.audit_thread_exit = dlt_audit_thread_exit;
#endif
	dlt_audit_writer.tls_of[DLT_WRITER_AUDIT] = dlt_audit_tls;
	dlt_on_new_thread = dlt_audit_new_thread;
	dlt_on_materialized = dlt_write_process_info;
	/* The preload copy uses this clock state too: one CPU probe and one
	 * rate per process. */
	dlt_clock_share(&dlt_audit_writer.clock);
	if (dlt_writer_create(&dlt_audit_writer, &p) == 0) {
		dlt_w = &dlt_audit_writer;
		dlt_audit_on = 1;
		/* Read once for PROC and the program's LIB_LOAD, which comes
		 * next, before any search writes the last path's buffer. */
		dlt_exe_hint = dlt_exe_path_into(dlt_aud.last_path,
						 sizeof(dlt_aud.last_path));
#ifdef DLT_FREESTANDING
		/* The blocks as the kernel laid them out, read in place. */
		struct dlt_proc_blocks b;
		dlt_write_process_info_from(
			dlt_w, &dlt_tls, dlt_cfg.redact_argv,
			dlt_nolibc_start_blocks(&b) == 0 ? &b : NULL);
#else
		dlt_write_process_info(dlt_w, &dlt_tls, dlt_cfg.redact_argv);
#endif
	} else {
		/* Disabled; the preload copy gets the disabled writer too so
		 * that it does not try again and print a second message. */
		dlt_w = &dlt_audit_writer;
		dlt_audit_on = 0;
	}
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}
