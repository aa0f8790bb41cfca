/* The Python stack of a thread of this process, for the watchdog and the
 * crash handler: the interpreter found from inside, then read with the
 * walk that the watcher also uses from outside (pystack/pywalk.c).
 *
 * dlt_pystack_prepare finds the interpreter (the _PyRuntime symbol, in
 * the executable or in libpython), its version (Py_Version since 3.11,
 * Py_GetVersion's text before) and the layout of the structs to follow
 * (pystack/pylayout.c); it walks the loaded objects, so it runs on the
 * watchdog thread or when a crash handler is installed, never in a
 * handler.  dlt_pystack_record reads and writes, async-signal-safe: the
 * walk reads this process's memory with process_vm_readv, which fails
 * where a load would fault. */
#define _GNU_SOURCE
#include "hot.h"
#include "pystack.h"

#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pyrecord.h"
#include "state.h"
#include "symlookup.h"

/* What dlt_pystack_prepare found (its reason DLT_PYSTACK_OK once an
 * interpreter can be read; pid is set at each read: a forked child reads
 * its own copy).  Written before dlt_py_state is set (release) and never
 * again once an interpreter was found. */
static struct dlt_pyinterp dlt_py;
static unsigned long long dlt_py_adds; /* objects loaded when it last looked */
/* 0: never looked; else 1 + enum dlt_pystack_reason (1 + OK: usable). */
static _Atomic int dlt_py_state;
/* A thread is looking for the interpreter (one at a time). */
DLT_HOT static _Atomic int dlt_py_busy;

static int dlt_objs_count(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_adds;
	return 1;
}

/* "3.9.18 (main, ..." -> 0x030912f0-like PY_VERSION_HEX (release level
 * left 0); 0 when the text does not start with a version. */
static uint32_t dlt_py_parse_version(const char *s)
{
	char *end;
	unsigned long v[3] = {0, 0, 0};
	for (int i = 0; i < 3; i++) {
		v[i] = strtoul(s, &end, 10);
		if (end == s || v[i] > 255)
			return i >= 2 ? (uint32_t)(v[0] << 24 | v[1] << 16) : 0;
		s = end;
		if (*s != '.')
			break;
		s++;
	}
	return (uint32_t)(v[0] << 24 | v[1] << 16 | v[2] << 8);
}

/* The interpreter's PY_VERSION_HEX: its Py_Version (3.11+), else the
 * text of Py_GetVersion(), which only formats constants into a static
 * buffer: it needs neither the GIL nor an initialised interpreter. */
static uint32_t dlt_py_version_of(void)
{
	const unsigned long *pv = dlt_sym_find("Py_Version", 0, NULL, NULL);
	if (pv)
		return (uint32_t)*pv;
	void *f = dlt_sym_find("Py_GetVersion", 0, NULL, NULL);
	if (f == NULL)
		return 0;
	const char *(*get)(void);
	memcpy(&get, &f, sizeof(get));
	const char *s = get();
	return s ? dlt_py_parse_version(s) : 0;
}

/* Fills *pi from this process's own symbols; its reason says whether
 * it can be read. */
static void dlt_py_discover(struct dlt_pyinterp *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->pid = getpid();
	pi->tid_off = -1;
	uintptr_t rt = (uintptr_t)dlt_sym_find("_PyRuntime", 0, NULL, NULL);
	uint32_t version = dlt_py_version_of();
	pi->version = version;
	if (rt == 0 && version == 0) {
		pi->reason = DLT_PYSTACK_NO_PYTHON;
		return;
	}
	const struct dlt_py_layout *l = dlt_py_layout_find(version >> 16);
	if (rt == 0 || l == NULL) {
		pi->reason = DLT_PYSTACK_VERSION;
		return;
	}
	if ((version >> 16) >= 0x030d) {
		pi->reason = (uint16_t)dlt_pywalk_check_debug(pi->pid, rt, l);
		if (pi->reason != DLT_PYSTACK_OK)
			return;
	}
	pi->runtime = rt;
	pi->code_type = (uintptr_t)dlt_sym_find("PyCode_Type", 0, NULL, NULL);
	pi->tid_off =
		l->off[DLT_PYF_ts_native_tid] ? -1 : dlt_pywalk_tid_offset();
	pi->layout = l;
	pi->reason = DLT_PYSTACK_OK;
}

void dlt_pystack_prepare(void)
{
	int st = atomic_load_explicit(&dlt_py_state, memory_order_acquire);
	/* Found once is found for good: the interpreter is never unloaded
	 * while the process runs Python. */
	if (st == 1 + DLT_PYSTACK_OK || atomic_exchange(&dlt_py_busy, 1))
		return;
	int saved = errno;
	unsigned long long adds = 0;
	dl_iterate_phdr(dlt_objs_count, &adds);
	if (st == 0 || adds != dlt_py_adds) {
		dlt_py_adds = adds;
		struct dlt_pyinterp found;
		dlt_py_discover(&found);
		dlt_py = found;
		atomic_store_explicit(&dlt_py_state, 1 + found.reason,
				      memory_order_release);
	}
	atomic_store(&dlt_py_busy, 0);
	errno = saved;
}

void dlt_pystack_after_fork(void)
{
	/* The thread that was looking lives on in no child, which would
	 * never look again.  Written only where set (a store copies the
	 * page). */
	if (atomic_load(&dlt_py_busy))
		atomic_store(&dlt_py_busy, 0);
}

int dlt_pystack_present(void)
{
	int st = atomic_load_explicit(&dlt_py_state, memory_order_acquire);
	return st != 0 && st != 1 + DLT_PYSTACK_NO_PYTHON;
}

int dlt_pystack_record(pid_t tid, uint64_t ts, uint16_t flags)
{
	int st = atomic_load_explicit(&dlt_py_state, memory_order_acquire);
	struct dlt_pyinterp pi = {.reason = DLT_PYSTACK_NOT_PREPARED,
				  .tid_off = -1};
	if (st != 0) {
		pi = dlt_py;
		/* The state's reason, not the copy's: a copy taken while
		 * dlt_pystack_prepare rewrites dlt_py (only while none could
		 * be read) then says so, and is not walked. */
		pi.reason = (uint16_t)(st - 1);
	}
	pi.pid = getpid();
	return dlt_pyrecord_write(dlt_writer_on(), &dlt_tls, &pi, tid, ts,
				  flags);
}

/* Frames looked at for the rank, from the innermost. */
#define DLT_PYSTACK_RANK_FRAMES 16

uint32_t dlt_pystack_rank(int32_t *rank, int32_t *world_size)
{
	/* Only once an interpreter was found and can be read: a program
	 * without Python pays one load here. */
	if (atomic_load_explicit(&dlt_py_state, memory_order_acquire) !=
	    1 + DLT_PYSTACK_OK)
		return 0;
	static const char *const funcs[] = {"init_process_group",
					    "_create_c10d_store", NULL};
	static const char *const files[] = {
		"/torch/distributed/distributed_c10d.py",
		"/torch/distributed/rendezvous.py", NULL};
	static const char *const locals[] = {"rank", "world_size", NULL};
	/* Code objects seen to be neither (16 KiB, touched only by walks):
	 * a connect from a call site seen before reads each frame once. */
	static _Atomic uint64_t nomatch[2048];
	/* torch calls connect and bind a few frames inside
	 * init_process_group (the store's, then the backend's; 2.x adds
	 * two decorators' wrappers): frames further out are the program's,
	 * whatever its depth, and each costs two reads.  The walk stops at
	 * init_process_group, the last frame it wants. */
	const struct dlt_pywalk_want want = {
		.funcs = funcs,
		.files = files,
		.locals = locals,
		.max_frames = DLT_PYSTACK_RANK_FRAMES,
		.stop_func = 0,
		.nomatch = nomatch,
		.nomatch_n = sizeof(nomatch) / sizeof(nomatch[0])};
	struct dlt_pyinterp pi = dlt_py;
	pi.pid = getpid();
	struct dlt_pywalk_match m[4];
	int n = dlt_pywalk_find(&pi, (uint32_t)syscall(SYS_gettid), &want, m,
				4);
	uint32_t best = 0;
	for (int i = 0; i < n; i++) {
		if (m[i].have != 3 || m[i].val[0] < 0 || m[i].val[1] <= 0 ||
		    m[i].val[0] >= m[i].val[1] || m[i].val[1] > INT32_MAX)
			continue;
		uint32_t src = m[i].func == 0 ? DLT_RANK_FROM_INIT
					      : DLT_RANK_FROM_STORE;
		/* What the program passed beats what the store was
		 * given, which may be the environment's. */
		if (best == 0 || src == DLT_RANK_FROM_INIT) {
			best = src;
			*rank = (int32_t)m[i].val[0];
			*world_size = (int32_t)m[i].val[1];
		}
		if (src == DLT_RANK_FROM_INIT)
			break;
	}
	return best;
}
