/* Another process's CPython, found from outside.  Where the shim asks the
 * loader of its own process (shim/pystack.c), the watcher has only what
 * Linux shows of the process: /proc/PID/maps says which files are mapped
 * where, the files' ELF symbol tables say where _PyRuntime, Py_Version
 * and PyCode_Type are in them, and the mapping of a file's start gives the
 * load bias that turns those into addresses of the process.  Reading
 * there needs the right to ptrace the process (process_vm_readv), never
 * stopping it.
 *
 * The version: Py_Version, read from the process, since 3.11; before, the
 * file's name (python3.9, libpython3.10.so.1.0), which a wrong guess
 * would make a wrong layout: so every interpreter found is also checked by
 * what its structs hold (its thread states must be threads of the
 * process), and 3.13's _Py_DebugOffsets against the table as in the
 * shim. */
#define _GNU_SOURCE
#include "pyremote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elfread.h"
#include "hash.h"
#include "io.h"
#include "procstat.h"
#include "pyrecord.h"

/* Objects looked at per process: the executable and each libpython
 * mapped (more than one is a process that embeds two, rare). */
#define DLT_PYREMOTE_OBJS 8
/* Thread states held against the process's threads when checking a
 * layout. */
#define DLT_PYREMOTE_CHECK_THREADS 64

/* A file mapped into the process that may hold the interpreter. */
struct dlt_pyremote_obj {
	char path[512];		  /* as /proc/PID/maps names it */
	uint64_t start, end, off; /* its mapping of the lowest file offset */
	uint64_t dev, ino;
	int exe;
};

/* What /proc/PID/maps says. */
struct dlt_pyremote_maps {
	struct dlt_pyremote_obj obj[DLT_PYREMOTE_OBJS];
	int n;
	uint64_t hash; /* of every file mapping's start, device and inode */
};

/* What tells this process from the one that had its pid before, or from
 * itself before an exec. */
struct dlt_pyremote_ident {
	uint64_t starttime, exe_dev, exe_ino, auxv_hash;
};

static void dlt_pyremote_say(char *out, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void dlt_pyremote_say(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	if (out == NULL || cap == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(out, cap, fmt, ap);
	va_end(ap);
}

static int dlt_pyremote_ident_of(pid_t pid, struct dlt_pyremote_ident *id)
{
	char path[64];
	struct dlt_procstat ps;
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (dlt_procstat_read(path, &ps) != 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) != 0)
		return errno == ENOENT ? -ESRCH : -errno;
	/* The auxiliary vector points into the new stack of each exec (its
	 * random bytes, its file name): an exec of the same file shows here
	 * where the executable does not change. */
	char auxv[1024];
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	size_t n = dlt_io_read_small(path, auxv, sizeof(auxv));
	id->starttime = ps.starttime;
	id->exe_dev = (uint64_t)st.st_dev;
	id->exe_ino = (uint64_t)st.st_ino;
	id->auxv_hash = dlt_fnv1a(auxv, n);
	return 0;
}

/* Whether the object of a maps line may hold the interpreter: the
 * executable, or a libpython. */
static int dlt_pyremote_wanted(const char *path, uint64_t dev, uint64_t ino,
			       const struct dlt_pyremote_ident *id)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return (dev == id->exe_dev && ino == id->exe_ino) ||
	       strncmp(base, "libpython", 9) == 0;
}

/* One line of /proc/PID/maps: "start-end perms offset maj:min inode
 * path". */
static void dlt_pyremote_maps_line(const char *line,
				   const struct dlt_pyremote_ident *id,
				   struct dlt_pyremote_maps *m)
{
	unsigned long start, end, off, ino;
	unsigned maj, mnr;
	int at = 0;
	if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu %n", &start, &end, &off,
		   &maj, &mnr, &ino, &at) != 6 ||
	    ino == 0 || at == 0 || line[at] != '/')
		return;
	uint64_t dev = (uint64_t)makedev(maj, mnr);
	uint64_t key[3] = {start, dev, ino};
	m->hash = dlt_fnv1a_more(m->hash, key, sizeof(key));
	const char *path = line + at;
	if (!dlt_pyremote_wanted(path, dev, ino, id))
		return;
	for (int i = 0; i < m->n; i++) {
		struct dlt_pyremote_obj *o = &m->obj[i];
		if (o->dev == dev && o->ino == ino) {
			if (off < o->off) {
				o->start = start, o->end = end, o->off = off;
			}
			return;
		}
	}
	if (m->n == DLT_PYREMOTE_OBJS)
		return;
	struct dlt_pyremote_obj *o = &m->obj[m->n++];
	snprintf(o->path, sizeof(o->path), "%s", path);
	o->start = start, o->end = end, o->off = off;
	o->dev = dev, o->ino = ino;
	o->exe = dev == id->exe_dev && ino == id->exe_ino;
}

/* Reads /proc/PID/maps a piece at a time (a process with PyTorch loaded
 * has thousands of mappings): 0, or a negative errno. */
static int dlt_pyremote_maps_read(pid_t pid,
				  const struct dlt_pyremote_ident *id,
				  struct dlt_pyremote_maps *m)
{
	char path[64], buf[8192];
	memset(m, 0, sizeof(*m));
	m->hash = DLT_FNV_OFFSET;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	size_t have = 0;
	for (;;) {
		ssize_t got = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		have += (size_t)got;
		buf[have] = '\0';
		char *line = buf, *nl;
		while ((nl = memchr(line, '\n', (size_t)(buf + have - line)))) {
			*nl = '\0';
			dlt_pyremote_maps_line(line, id, m);
			line = nl + 1;
		}
		have = (size_t)(buf + have - line);
		/* A line longer than the buffer (a path of 8 KiB) is
		 * dropped: no interpreter is found under such a name. */
		if (have == sizeof(buf) - 1)
			have = 0;
		memmove(buf, line, have);
	}
	close(fd);
	return 0;
}

/* The file of o as the process has it mapped: through map_files (the very
 * file, even deleted or in another mount namespace), else through the
 * process's root directory, there only when its inode is the one mapped.
 * 0, or -1. */
static int dlt_pyremote_open(pid_t pid, const struct dlt_pyremote_obj *o,
			     struct dlt_elf *e)
{
	char path[640];
	if (o->exe) {
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		if (dlt_elf_open(e, path) == 0)
			return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx", (int)pid,
		 (unsigned long)o->start, (unsigned long)o->end);
	if (dlt_elf_open(e, path) == 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, o->path);
	struct stat st;
	if (dlt_elf_open(e, path) != 0)
		return -1;
	if (fstat(e->fd, &st) != 0 || (uint64_t)st.st_ino != o->ino) {
		dlt_elf_close(e);
		return -1;
	}
	return 0;
}

/* Load bias of o: where its lowest mapping starts, less the address its
 * first PT_LOAD gives that file offset.  0 with *ok 0 when the headers
 * have no PT_LOAD. */
static uint64_t dlt_pyremote_bias(const struct dlt_elf *e,
				  const struct dlt_pyremote_obj *o, int *ok)
{
	*ok = 0;
	for (int i = 0; i < e->nph; i++)
		if (e->ph[i].p_type == PT_LOAD) {
			*ok = 1;
			return o->start -
			       (e->ph[i].p_vaddr - e->ph[i].p_offset + o->off);
		}
	return 0;
}

/* PY_VERSION_HEX's major and minor from a file name such as python3.9,
 * libpython3.10.so.1.0 or libpython3.13t.so (its ABI flags, the letters
 * after the minor, into flags); 0 when the name carries no version. */
static uint32_t dlt_pyremote_name_version(const char *path, char *flags,
					  size_t cap)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *p = strstr(base, "python");
	flags[0] = '\0';
	if (p == NULL)
		return 0;
	p += 6;
	unsigned major = 0, minor = 0;
	int n = 0;
	if (sscanf(p, "%u.%u%n", &major, &minor, &n) != 2 || major > 255 ||
	    minor > 255)
		return 0;
	size_t k = 0;
	for (p += n; *p >= 'a' && *p <= 'z' && k + 1 < cap; p++)
		flags[k++] = *p;
	flags[k] = '\0';
	return (uint32_t)(major << 24 | minor << 16);
}

/* The interpreter's structs, held against the process: the thread states
 * of its interpreters must be threads of the process (a layout or a
 * version guessed wrong, or a thread id of another glibc, gives ids that
 * are none).  One not initialised yet has none and passes.  DLT_PYSTACK_OK
 * or why not. */
static int dlt_pyremote_check(const struct dlt_pyinterp *pi, char *why,
			      size_t cap)
{
	uint32_t tids[DLT_PYREMOTE_CHECK_THREADS];
	uint64_t head;
	uint64_t at = pi->runtime + pi->layout->off[DLT_PYF_rt_interp_head];
	if (dlt_pywalk_peek(pi->pid, &head, at, sizeof(head)) != 0) {
		dlt_pyremote_say(why, cap,
				 "its memory cannot be read at 0x%llx: %s",
				 (unsigned long long)at, strerror(errno));
		return DLT_PYSTACK_UNREADABLE;
	}
	int n = dlt_pywalk_threads(pi, tids, DLT_PYREMOTE_CHECK_THREADS);
	if (n < 0) {
		dlt_pyremote_say(why, cap,
				 "its interpreter state cannot be read at "
				 "0x%llx",
				 (unsigned long long)head);
		return DLT_PYSTACK_LAYOUT;
	}
	int live = 0;
	for (int i = 0; i < n; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task/%u", (int)pi->pid,
			 tids[i]);
		live += tids[i] != 0 && access(path, F_OK) == 0;
	}
	if (n > 0 && live == 0) {
		dlt_pyremote_say(why, cap,
				 "none of its %d thread states is a thread of "
				 "the process (another layout, or thread ids "
				 "of another glibc or pid namespace)",
				 n);
		return DLT_PYSTACK_LAYOUT;
	}
	return DLT_PYSTACK_OK;
}

/* The interpreter in object o of the process, whose _PyRuntime is at
 * runtime: its version, layout and checks.  Fills pi; its reason. */
static int dlt_pyremote_interp(pid_t pid, struct dlt_elf *e,
			       const struct dlt_pyremote_obj *o,
			       const struct dlt_pyremote_maps *m, uint64_t bias,
			       uint64_t runtime, struct dlt_pyinterp *pi,
			       char *why, size_t cap)
{
	uint64_t v = 0;
	char flags[8] = "";
	const char *named = o->path;
	int from_name = 0;
	pi->runtime = runtime;
	if (dlt_elf_symbol(e, "Py_Version", &v) == 1) {
		uint64_t pv = 0;
		if (dlt_pywalk_peek(pid, &pv, bias + v, sizeof(pv)) != 0) {
			dlt_pyremote_say(why, cap,
					 "Py_Version cannot be read at "
					 "0x%llx: %s",
					 (unsigned long long)(bias + v),
					 strerror(errno));
			return DLT_PYSTACK_UNREADABLE;
		}
		pi->version = (uint32_t)pv;
		dlt_pyremote_name_version(o->path, flags, sizeof(flags));
	} else {
		/* Before 3.11 the name says it: the object's own, else the
		 * executable's (a static python3.9 named otherwise is
		 * rare). */
		from_name = 1;
		pi->version = dlt_pyremote_name_version(o->path, flags,
							sizeof(flags));
		for (int i = 0; pi->version == 0 && i < m->n; i++)
			if (m->obj[i].exe) {
				named = m->obj[i].path;
				pi->version = dlt_pyremote_name_version(
					named, flags, sizeof(flags));
			}
	}
	unsigned major = pi->version >> 24, minor = (pi->version >> 16) & 0xff;
	if (pi->version == 0) {
		dlt_pyremote_say(why, cap,
				 "_PyRuntime in %s, but neither Py_Version "
				 "nor a file name says its version",
				 o->path);
		return DLT_PYSTACK_VERSION;
	}
	if (strchr(flags, 't')) {
		dlt_pyremote_say(why, cap,
				 "free-threaded CPython %u.%u (%s): not "
				 "supported",
				 major, minor, named);
		return DLT_PYSTACK_FREE_THREADED;
	}
	if (strchr(flags, 'd')) {
		dlt_pyremote_say(why, cap,
				 "debug build of CPython %u.%u (%s): its "
				 "layout is not in the table",
				 major, minor, named);
		return DLT_PYSTACK_LAYOUT;
	}
	const struct dlt_py_layout *l = dlt_py_layout_find(pi->version >> 16);
	if (l == NULL) {
		dlt_pyremote_say(why, cap, "CPython %u.%u (%s): not supported",
				 major, minor, named);
		return DLT_PYSTACK_VERSION;
	}
	if ((pi->version >> 16) >= 0x030d) {
		int r = dlt_pywalk_check_debug(pid, runtime, l);
		if (r != DLT_PYSTACK_OK) {
			dlt_pyremote_say(why, cap,
					 "CPython %u.%u (%s): its debug "
					 "offsets %s",
					 major, minor, named,
					 r == DLT_PYSTACK_UNREADABLE
						 ? "cannot be read"
					 : r == DLT_PYSTACK_FREE_THREADED
						 ? "say free-threaded"
						 : "differ from the table");
			return r;
		}
	}
	if (dlt_elf_symbol(e, "PyCode_Type", &v) == 1)
		pi->code_type = bias + v;
	/* The watcher's own glibc's: the same as the process's on this
	 * host (docs/limitations.md); the check below refuses another. */
	pi->tid_off =
		l->off[DLT_PYF_ts_native_tid] ? -1 : dlt_pywalk_tid_offset();
	pi->layout = l;
	pi->reason = DLT_PYSTACK_OK;
	int r = dlt_pyremote_check(pi, why, cap);
	if (r != DLT_PYSTACK_OK) {
		pi->layout = NULL;
		return r;
	}
	if (!from_name)
		dlt_pyremote_say(why, cap, "CPython %u.%u.%u in %s", major,
				 minor, (pi->version >> 8) & 0xff, o->path);
	else
		dlt_pyremote_say(why, cap,
				 "CPython %u.%u in %s (the version from the "
				 "name %s)",
				 major, minor, o->path, named);
	return DLT_PYSTACK_OK;
}

/* Looks through the objects m found; fills pi and why, returns the
 * reason. */
static int dlt_pyremote_look(pid_t pid, const struct dlt_pyremote_maps *m,
			     struct dlt_pyinterp *pi, char *why, size_t cap)
{
	char flags[8];
	uint32_t named = 0;
	const char *which = NULL;
	memset(pi, 0, sizeof(*pi));
	pi->pid = pid;
	pi->tid_off = -1;
	/* The executable first: a static build has the interpreter there
	 * and no libpython. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < m->n; i++) {
			const struct dlt_pyremote_obj *o = &m->obj[i];
			if (o->exe != (pass == 0))
				continue;
			uint32_t v = dlt_pyremote_name_version(o->path, flags,
							       sizeof(flags));
			if (v && !named)
				named = v, which = o->path;
			struct dlt_elf e;
			uint64_t rt = 0;
			int ok;
			if (dlt_pyremote_open(pid, o, &e) != 0)
				continue;
			uint64_t bias = dlt_pyremote_bias(&e, o, &ok);
			if (ok && dlt_elf_symbol(&e, "_PyRuntime", &rt) == 1) {
				int r = dlt_pyremote_interp(pid, &e, o, m, bias,
							    bias + rt, pi, why,
							    cap);
				dlt_elf_close(&e);
				pi->reason = (uint16_t)r;
				return r;
			}
			dlt_elf_close(&e);
		}
	/* A Python without _PyRuntime: before 3.7, or one whose symbols are
	 * not exported. */
	pi->version = named;
	pi->reason = named ? DLT_PYSTACK_VERSION : DLT_PYSTACK_NO_PYTHON;
	if (named)
		dlt_pyremote_say(why, cap,
				 "CPython %u.%u (%s) without _PyRuntime: not "
				 "supported",
				 named >> 24, (named >> 16) & 0xff, which);
	else
		dlt_pyremote_say(why, cap,
				 "no Python interpreter in this process");
	return pi->reason;
}

int dlt_pyremote_find(pid_t pid, struct dlt_pyremote *r, char *why, size_t cap)
{
	struct dlt_pyremote_ident id = {0, 0, 0, 0};
	struct dlt_pyremote_maps m;
	int err = dlt_pyremote_ident_of(pid, &id);
	if (err != 0) {
		dlt_pyremote_say(why, cap, "process %d cannot be looked at: %s",
				 (int)pid, strerror(-err));
		return err;
	}
	int same = r->looked && r->pi.pid == pid &&
		   r->starttime == id.starttime && r->exe_dev == id.exe_dev &&
		   r->exe_ino == id.exe_ino && r->auxv_hash == id.auxv_hash;
	/* Found (usable or not) is found until the process execs; no
	 * _PyRuntime found is looked for again once it maps other objects (a
	 * libpython dlopened by a program that embeds Python, or not mapped
	 * yet by the loader of a python3.9 just exec'd). */
	if (same && r->pi.runtime != 0)
		goto cached;
	err = dlt_pyremote_maps_read(pid, &id, &m);
	if (err != 0) {
		dlt_pyremote_say(why, cap,
				 "the mappings of process %d cannot be read: "
				 "%s",
				 (int)pid, strerror(-err));
		return err;
	}
	if (same && m.hash == r->objs_hash)
		goto cached;
	dlt_pyremote_look(pid, &m, &r->pi, r->why, sizeof(r->why));
	r->looked = 1;
	r->starttime = id.starttime;
	r->exe_dev = id.exe_dev;
	r->exe_ino = id.exe_ino;
	r->auxv_hash = id.auxv_hash;
	r->objs_hash = m.hash;
cached:
	dlt_pyremote_say(why, cap, "%s", r->why);
	return r->pi.reason;
}

int dlt_pyremote_record(struct dlt_writer *w, struct dlt_tls *t,
			const struct dlt_pyinterp *pi, pid_t tid, uint64_t ts,
			uint16_t flags)
{
	return dlt_pyrecord_write(w, t, pi, tid, ts, flags);
}
