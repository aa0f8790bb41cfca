/* The Python stack of a thread, read from CPython's memory in the process
 * itself: _PyRuntime -> interpreters -> thread states -> frames -> code
 * objects -> file, function and line.
 *
 * Two halves.  dlt_pystack_prepare finds the interpreter (the _PyRuntime
 * symbol, in the executable or in libpython), its version (Py_Version
 * since 3.11, Py_GetVersion's text before) and the layout of the structs
 * to follow (pylayout.c); it walks the loaded objects, so it runs on the
 * watchdog thread or when a crash handler is installed, never in a
 * handler.  dlt_pystack_record reads and writes: every read of the
 * interpreter's memory is a process_vm_readv of this process, which
 * returns an error where a load would fault (a frame freed meanwhile, a
 * pointer half written by a thread that runs), every loop is bounded, and
 * nothing allocates or locks, so it can run in a signal handler and can
 * read a thread that holds the GIL or runs.  A thread that runs while it
 * is read may give a stack that mixes two moments; a thread waiting (the
 * watchdog's case) gives its stack. */
#define _GNU_SOURCE
#include "pystack.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pylayout.h"
#include "state.h"
#include "symlookup.h"

/* What dlt_pystack_prepare found.  Written before dlt_py_state is set
 * (release) and never again once an interpreter was found. */
struct dlt_py {
	uintptr_t runtime;   /* &_PyRuntime */
	uintptr_t code_type; /* &PyCode_Type; 0 unknown */
	uint32_t version;    /* PY_VERSION_HEX */
	int tid_off;	     /* the tid in glibc's struct pthread; -1 */
	const struct dlt_py_layout *l;
	unsigned long long adds; /* objects loaded when it last looked */
};
static struct dlt_py dlt_py;
/* 0: never looked; else 1 + enum dlt_pystack_reason (1 + OK: usable). */
static _Atomic int dlt_py_state;
/* A thread is looking for the interpreter (one at a time). */
static _Atomic int dlt_py_busy;

/* Reads n bytes at addr of process pid; the bytes read (short or -1 where
 * the memory is not mapped). */
static ssize_t dlt_py_peek(pid_t pid, void *dst, uintptr_t addr, size_t n)
{
	struct iovec local = {dst, n};
	struct iovec remote = {(void *)addr, n};
	return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

static int dlt_py_read(pid_t pid, void *dst, uintptr_t addr, size_t n)
{
	return addr != 0 && dlt_py_peek(pid, dst, addr, n) == (ssize_t)n ? 0
									 : -1;
}

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

/* Where glibc keeps a thread's kernel id in its thread descriptor (the
 * pthread_t that CPython before 3.11 stores as thread_id): found as the
 * calling thread's own id in its own descriptor. */
static int dlt_py_tid_offset(pid_t pid)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	uint32_t words[512];
	uintptr_t self = (uintptr_t)pthread_self();
	ssize_t got = dlt_py_peek(pid, words, self, sizeof(words));
	for (ssize_t i = 0; got > 0 && i < got / 4; i++)
		if (words[i] == tid)
			return (int)(i * 4);
	return -1;
}

/* 3.13 publishes its own offsets at the start of _PyRuntime: a build
 * whose offsets differ from the table (another ABI, a patched CPython) is
 * not read with the table.  DLT_PYSTACK_OK or why not. */
static int dlt_py_check_debug(pid_t pid, uintptr_t rt,
			      const struct dlt_py_layout *l)
{
	char d[512];
	if (dlt_py_read(pid, d, rt, sizeof(d)) != 0)
		return DLT_PYSTACK_UNREADABLE;
	if (memcmp(d, DLT_PY_DEBUG_COOKIE, 8) != 0)
		return DLT_PYSTACK_LAYOUT;
	uint64_t v;
	memcpy(&v, d + DLT_PY_DEBUG_FREE_THREADED, 8);
	if (v != 0)
		return DLT_PYSTACK_FREE_THREADED;
#define DLT_X(path, pos, field)           \
	memcpy(&v, d + (pos), 8);         \
	if (v != l->off[DLT_PYF_##field]) \
		return DLT_PYSTACK_LAYOUT;
	DLT_PY_DEBUG_OFFSETS(DLT_X)
#undef DLT_X
	return DLT_PYSTACK_OK;
}

static int dlt_py_discover(void)
{
	pid_t pid = getpid();
	uintptr_t rt = (uintptr_t)dlt_sym_find("_PyRuntime", 0, NULL, NULL);
	uint32_t version = dlt_py_version_of();
	if (rt == 0 && version == 0)
		return DLT_PYSTACK_NO_PYTHON;
	dlt_py.version = version;
	dlt_py.l = dlt_py_layout_find(version >> 16);
	if (rt == 0 || dlt_py.l == NULL)
		return DLT_PYSTACK_VERSION;
	if ((version >> 16) >= 0x030d) {
		int why = dlt_py_check_debug(pid, rt, dlt_py.l);
		if (why != DLT_PYSTACK_OK)
			return why;
	}
	dlt_py.runtime = rt;
	dlt_py.code_type =
		(uintptr_t)dlt_sym_find("PyCode_Type", 0, NULL, NULL);
	dlt_py.tid_off = dlt_py.l->off[DLT_PYF_ts_native_tid]
				 ? -1
				 : dlt_py_tid_offset(pid);
	return DLT_PYSTACK_OK;
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
	if (st == 0 || adds != dlt_py.adds) {
		dlt_py.adds = adds;
		int why = dlt_py_discover();
		atomic_store_explicit(&dlt_py_state, 1 + why,
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

/* ---- the walk: async-signal-safe from here on ------------------------- */

/* Bytes read at once from the start of a frame and of a code object: past
 * the last field any layout reads (3.8's f_lasti at 104, 3.13's
 * co_linetable at 136); a code object is larger than that in every
 * version. */
#define DLT_PY_FRAME_HEAD 112
#define DLT_PY_CODE_HEAD 144
/* Bytes of a line table read with the frame's names; the rest, where
 * there is more before the frame's instruction, 256 at a time. */
#define DLT_PY_TABLE_CHUNK 256
/* Bytes read from the start of a thread state: past its next, thread_id
 * and native_thread_id in every layout (3.8's thread_id at 176). */
#define DLT_PY_TSTATE_HEAD 184

struct dlt_py_walk {
	pid_t pid;
	const struct dlt_py_layout *l;
	uintptr_t bad; /* the first address that could not be read */
};

static int dlt_py_ptr(struct dlt_py_walk *w, uintptr_t at, uintptr_t *out)
{
	if (dlt_py_read(w->pid, out, at, sizeof(*out)) == 0)
		return 0;
	if (w->bad == 0)
		w->bad = at ? at : 1;
	*out = 0;
	return -1;
}

/* A bytes object's contents, a few bytes at a time. */
struct dlt_py_bytes {
	struct dlt_py_walk *w;
	uintptr_t at, end;
	uint8_t buf[256];
	uint32_t pos, len;
};

static int dlt_py_byte(struct dlt_py_bytes *b)
{
	if (b->pos == b->len) {
		if (b->at >= b->end)
			return -1;
		uintptr_t n = b->end - b->at;
		if (n > sizeof(b->buf))
			n = sizeof(b->buf);
		if (dlt_py_read(b->w->pid, b->buf, b->at, n) != 0)
			return -1;
		b->at += n;
		b->pos = 0;
		b->len = (uint32_t)n;
	}
	return b->buf[b->pos++];
}

/* The location table's variable-length numbers: 6 bits a byte, low
 * first, 0x40 says another byte follows. */
static int64_t dlt_py_varint(struct dlt_py_bytes *b)
{
	int c = dlt_py_byte(b);
	if (c < 0)
		return -1;
	uint64_t v = (uint64_t)c & 63;
	for (int shift = 6; (c & 64) && shift < 60; shift += 6) {
		if ((c = dlt_py_byte(b)) < 0)
			return -1;
		v |= ((uint64_t)c & 63) << shift;
	}
	return (int64_t)v;
}

static int64_t dlt_py_svarint(struct dlt_py_bytes *b)
{
	int64_t v = dlt_py_varint(b);
	return (v & 1) ? -(v >> 1) : v >> 1;
}

/* 3.8-3.9 co_lnotab: (address increment, signed line increment) pairs;
 * the line of the last pair that starts at or before addr. */
static int32_t dlt_py_lnotab(struct dlt_py_bytes *b, int32_t line, int64_t addr)
{
	int64_t a = 0;
	for (;;) {
		int da = dlt_py_byte(b), dl = dlt_py_byte(b);
		if (da < 0 || dl < 0)
			return line;
		a += da;
		if (a > addr)
			return line;
		line += (int8_t)dl;
	}
}

/* 3.10 co_linetable: (length in bytes, signed line delta) pairs, a delta
 * of -128 meaning no line for that range. */
static int32_t dlt_py_linetable(struct dlt_py_bytes *b, int32_t line,
				int64_t addr)
{
	int64_t end = 0;
	for (;;) {
		int len = dlt_py_byte(b), dl = dlt_py_byte(b);
		if (len < 0 || dl < 0)
			return -1;
		int64_t start = end;
		end += len;
		int32_t cur = -1;
		if ((int8_t)dl != -128)
			cur = line += (int8_t)dl;
		if (start <= addr && addr < end)
			return cur;
	}
}

/* 3.11+ location table (CPython's Objects/locations.md): entries of one
 * byte 1CCCCLLL (code C, L+1 code units) and what the code says follows:
 * 15 no location, 14 a long form, 13 a line without columns, 10-12 a line
 * delta of C-10 and two column bytes, 0-9 the same line and one byte. */
static int32_t dlt_py_locations(struct dlt_py_bytes *b, int32_t line,
				int64_t addr)
{
	int64_t unit = addr / 2, pos = 0;
	for (int guard = 0; guard < 1000000; guard++) {
		int c = dlt_py_byte(b);
		if (c < 0 || !(c & 0x80))
			return -1;
		int code = (c >> 3) & 15, len = (c & 7) + 1;
		int64_t delta = 0;
		int skip = 0;
		if (code == 14) {
			delta = dlt_py_svarint(b);
			skip = 3; /* end line, start and end column */
		} else if (code == 13) {
			delta = dlt_py_svarint(b);
		} else if (code >= 10 && code <= 12) {
			delta = code - 10;
			for (int i = 0; i < 2; i++)
				dlt_py_byte(b);
		} else if (code < 10) {
			dlt_py_byte(b);
		}
		for (int i = 0; i < skip; i++)
			dlt_py_varint(b);
		line += (int32_t)delta;
		if (pos <= unit && unit < pos + len)
			return code == 15 ? -1 : line;
		pos += len;
	}
	return -1;
}

/* The line of byte offset addr of a code object whose first line is first
 * and whose line table is the bytes object table; head holds the first
 * got bytes of that object (its header, then the start of its bytes). */
static int32_t dlt_py_line(struct dlt_py_walk *w, int32_t first,
			   uintptr_t table, int64_t addr, const uint8_t *head,
			   ssize_t got)
{
	const struct dlt_py_layout *l = w->l;
	if (addr < 0)
		return first;
	size_t hd = l->off[DLT_PYF_bytes_data];
	int64_t size;
	if (got < (ssize_t)hd)
		return -1;
	memcpy(&size, head + l->off[DLT_PYF_bytes_size], sizeof(size));
	if (size < 0 || size > (1 << 24))
		return -1;
	struct dlt_py_bytes b = {.w = w};
	b.at = table + hd;
	b.end = b.at + (uintptr_t)size;
	size_t have = (size_t)got - hd;
	if (have > (size_t)size)
		have = (size_t)size;
	if (have > sizeof(b.buf))
		have = sizeof(b.buf);
	memcpy(b.buf, head + hd, have);
	b.len = (uint32_t)have;
	b.at += have;
	switch (l->lines) {
	case DLT_PY_LNOTAB:
		return dlt_py_lnotab(&b, first, addr);
	case DLT_PY_LINETABLE:
		return dlt_py_linetable(&b, first, addr);
	default:
		return dlt_py_locations(&b, first, addr);
	}
}

/* Appends code point c as UTF-8 if it fits in cap - *n bytes. */
static int dlt_py_utf8(char *out, size_t cap, size_t *n, uint32_t c)
{
	uint8_t e[4];
	size_t k;
	if (c < 0x80) {
		e[0] = (uint8_t)c;
		k = 1;
	} else if (c < 0x800) {
		e[0] = (uint8_t)(0xc0 | c >> 6);
		e[1] = (uint8_t)(0x80 | (c & 63));
		k = 2;
	} else if (c < 0x10000) {
		e[0] = (uint8_t)(0xe0 | c >> 12);
		e[1] = (uint8_t)(0x80 | ((c >> 6) & 63));
		e[2] = (uint8_t)(0x80 | (c & 63));
		k = 3;
	} else {
		e[0] = (uint8_t)(0xf0 | (c >> 18 & 7));
		e[1] = (uint8_t)(0x80 | ((c >> 12) & 63));
		e[2] = (uint8_t)(0x80 | ((c >> 6) & 63));
		e[3] = (uint8_t)(0x80 | (c & 63));
		k = 4;
	}
	if (*n + k > cap)
		return -1;
	memcpy(out + *n, e, k);
	*n += k;
	return 0;
}

/* The text of str object s as UTF-8 into out (at most cap bytes, the end
 * of a longer one when tail is set: a path's file name matters most);
 * returns the bytes written.  head holds the first got bytes of the
 * object: its header and, for a short ASCII text, the text.  Code
 * objects' names are compact strings; anything else gives "?". */
static uint16_t dlt_py_str(struct dlt_py_walk *w, uintptr_t s,
			   const uint8_t *head, ssize_t got, char *out,
			   size_t cap, int tail)
{
	const struct dlt_py_layout *l = w->l;
	size_t hd = l->off[DLT_PYF_str_ascii_data];
	if (s == 0)
		got = -1;
	int64_t len;
	uint32_t state;
	if (got < (ssize_t)hd) {
		out[0] = '?';
		return 1;
	}
	memcpy(&len, head + l->off[DLT_PYF_str_length], 8);
	memcpy(&state, head + l->off[DLT_PYF_str_state], 4);
	if (len < 0 || !(state & DLT_PY_STATE_COMPACT)) {
		out[0] = '?';
		return 1;
	}
	unsigned kind = (state >> DLT_PY_STATE_KIND_SHIFT) & 7;
	if (state & DLT_PY_STATE_ASCII) {
		size_t n = (size_t)len < cap ? (size_t)len : cap;
		size_t skip = tail ? (size_t)len - n : 0;
		if (skip == 0 && (size_t)got >= hd + n) {
			memcpy(out, head + hd, n);
			return (uint16_t)n;
		}
		if (dlt_py_read(w->pid, out, s + hd + skip, n) != 0) {
			out[0] = '?';
			return 1;
		}
		return (uint16_t)n;
	}
	if (kind != 1 && kind != 2 && kind != 4) {
		out[0] = '?';
		return 1;
	}
	/* Wider text: at most cap characters of it, encoded here. */
	uint8_t raw[4 * DLT_PYSTACK_FILE_MAX];
	size_t chars = sizeof(raw) / kind;
	if (chars > cap)
		chars = cap;
	if ((size_t)len < chars)
		chars = (size_t)len;
	uintptr_t from = s + l->off[DLT_PYF_str_compact_data] +
			 (tail ? ((uintptr_t)len - chars) * kind : 0);
	if (dlt_py_read(w->pid, raw, from, chars * kind) != 0) {
		out[0] = '?';
		return 1;
	}
	size_t n = 0;
	for (size_t i = 0; i < chars; i++) {
		uint32_t c;
		if (kind == 1) {
			c = raw[i];
		} else if (kind == 2) {
			uint16_t u;
			memcpy(&u, raw + 2 * i, 2);
			c = u;
		} else {
			memcpy(&c, raw + 4 * i, 4);
		}
		if (dlt_py_utf8(out, cap, &n, c) != 0)
			break;
	}
	return (uint16_t)n;
}

/* One frame: the code object whose first bytes co holds, at byte offset
 * addr of its bytecode (-1: not started).  Its texts go to text + *used. */
static void dlt_py_frame(struct dlt_py_walk *w, const uint8_t *co, int64_t addr,
			 struct dlt_pyframe *f, char *text, size_t *used)
{
	const struct dlt_py_layout *l = w->l;
	uintptr_t file = 0, name = 0, table = 0;
	int32_t first = -1;
	memcpy(&file, co + l->off[DLT_PYF_co_filename], sizeof(file));
	memcpy(&name, co + l->off[DLT_PYF_co_name], sizeof(name));
	memcpy(&table, co + l->off[DLT_PYF_co_linetable], sizeof(table));
	memcpy(&first, co + l->off[DLT_PYF_co_firstlineno], 4);
	/* The two names and the line table in one system call: each one's
	 * header and the start of its contents, which is all of it for most
	 * frames. */
	size_t sh = l->off[DLT_PYF_str_ascii_data];
	size_t bh = l->off[DLT_PYF_bytes_data];
	uint8_t fb[80 + DLT_PYSTACK_FILE_MAX], nb[80 + DLT_PYSTACK_FUNC_MAX];
	uint8_t tb[64 + DLT_PY_TABLE_CHUNK];
	struct iovec local[3] = {{fb, sh + DLT_PYSTACK_FILE_MAX},
				 {nb, sh + DLT_PYSTACK_FUNC_MAX},
				 {tb, bh + DLT_PY_TABLE_CHUNK}};
	struct iovec remote[3] = {{(void *)file, local[0].iov_len},
				  {(void *)name, local[1].iov_len},
				  {(void *)table, local[2].iov_len}};
	ssize_t got[3] = {-1, -1, -1};
	if (file && name && table && sh <= 80 && bh <= 64) {
		ssize_t n = process_vm_readv(w->pid, local, 3, remote, 3, 0);
		for (int i = 0; i < 3 && n > 0; i++) {
			got[i] = n < (ssize_t)local[i].iov_len
					 ? n
					 : (ssize_t)local[i].iov_len;
			n -= got[i];
		}
	}
	/* One that the joint read did not reach is read alone. */
	for (int i = 0; i < 3; i++)
		if (got[i] < (ssize_t)local[i].iov_len && remote[i].iov_base &&
		    got[i] < (ssize_t)(i == 2 ? bh : sh))
			got[i] = dlt_py_peek(w->pid, local[i].iov_base,
					     (uintptr_t)remote[i].iov_base,
					     local[i].iov_len);
	f->file_len = dlt_py_str(w, file, fb, got[0], text + *used,
				 DLT_PYSTACK_FILE_MAX, 1);
	*used += f->file_len;
	f->func_len = dlt_py_str(w, name, nb, got[1], text + *used,
				 DLT_PYSTACK_FUNC_MAX, 0);
	*used += f->func_len;
	f->line = first < 0 || table == 0
			  ? -1
			  : dlt_py_line(w, first, table, addr, tb, got[2]);
}

/* Where the thread states of threads were last seen: a search for one
 * thread goes through the others', and the watchdog then asks for them
 * in turn (a snapshot of N threads would read N * N thread states).  A
 * hint is only a place to look first: a thread state is taken when its
 * own id there is the thread's.  Written and read with relaxed atomics by
 * the watchdog and signal handlers alike; a torn pair fails that check. */
#define DLT_PY_HINTS 256
static struct {
	_Atomic uint32_t tid;
	_Atomic uintptr_t ts;
} dlt_py_hints[DLT_PY_HINTS];

static void dlt_py_hint(uint32_t tid, uintptr_t ts)
{
	unsigned i = (tid * 2654435761u) % DLT_PY_HINTS;
	atomic_store_explicit(&dlt_py_hints[i].ts, ts, memory_order_relaxed);
	atomic_store_explicit(&dlt_py_hints[i].tid, tid, memory_order_relaxed);
}

/* The kernel id of the thread whose thread state starts with head. */
static uint32_t dlt_py_tstate_tid(struct dlt_py_walk *w, const uint8_t *head)
{
	const struct dlt_py_layout *l = w->l;
	unsigned long id = 0;
	uint32_t t = 0;
	if (l->off[DLT_PYF_ts_native_tid]) {
		memcpy(&id, head + l->off[DLT_PYF_ts_native_tid], sizeof(id));
		return (uint32_t)id;
	}
	if (dlt_py.tid_off < 0)
		return 0;
	memcpy(&id, head + l->off[DLT_PYF_ts_thread_id], sizeof(id));
	if (id == 0 ||
	    dlt_py_read(w->pid, &t, id + (uintptr_t)dlt_py.tid_off, 4) != 0)
		return 0;
	return t;
}

/* Thread tid's PyThreadState, 0 when it has none. */
static uintptr_t dlt_py_thread(struct dlt_py_walk *w, uint32_t tid,
			       int *started)
{
	const struct dlt_py_layout *l = w->l;
	uintptr_t interp, ts;
	uint8_t head[DLT_PY_TSTATE_HEAD];
	*started = 0;
	unsigned h = (tid * 2654435761u) % DLT_PY_HINTS;
	uintptr_t hint =
		atomic_load_explicit(&dlt_py_hints[h].ts, memory_order_relaxed);
	if (atomic_load_explicit(&dlt_py_hints[h].tid, memory_order_relaxed) ==
		    tid &&
	    hint && dlt_py_read(w->pid, head, hint, sizeof(head)) == 0 &&
	    dlt_py_tstate_tid(w, head) == tid) {
		*started = 1;
		return hint;
	}
	if (dlt_py_ptr(w, dlt_py.runtime + l->off[DLT_PYF_rt_interp_head],
		       &interp) != 0)
		return 0;
	for (int i = 0; interp && i < 64; i++) {
		*started = 1;
		dlt_py_ptr(w, interp + l->off[DLT_PYF_is_threads_head], &ts);
		for (int j = 0; ts && j < 4096; j++) {
			/* Its id and the next one in one read. */
			if (dlt_py_read(w->pid, head, ts, sizeof(head)) != 0) {
				if (w->bad == 0)
					w->bad = ts;
				break;
			}
			uint32_t t = dlt_py_tstate_tid(w, head);
			if (t)
				dlt_py_hint(t, ts);
			if (t == tid)
				return ts;
			memcpy(&ts, head + l->off[DLT_PYF_ts_next], sizeof(ts));
		}
		if (dlt_py_ptr(w, interp + l->off[DLT_PYF_is_next], &interp) !=
		    0)
			break;
	}
	return 0;
}

/* The innermost frame of thread state ts, 0 if it runs no Python code. */
static uintptr_t dlt_py_top(struct dlt_py_walk *w, uintptr_t ts)
{
	const struct dlt_py_layout *l = w->l;
	uintptr_t f = 0;
	dlt_py_ptr(w, ts + l->off[DLT_PYF_ts_frame], &f);
	if (f && l->version >= 0x030b && l->version <= 0x030c) {
		uintptr_t cframe = f;
		dlt_py_ptr(w, cframe + l->off[DLT_PYF_cf_current_frame], &f);
	}
	return f;
}

/* Code object and byte offset of frame f; 0 when the frame is no Python
 * code's (3.12+ frames of the C stack, frames not started). */
static uintptr_t dlt_py_frame_code(struct dlt_py_walk *w, uintptr_t f,
				   uint8_t *co, int64_t *addr, uintptr_t *back)
{
	const struct dlt_py_layout *l = w->l;
	uint8_t fr[DLT_PY_FRAME_HEAD];
	uintptr_t code = 0;
	*back = 0;
	/* A 3.11+ frame can end a page before unmapped memory: what the
	 * layout reads must be there, not the whole head. */
	size_t need = 0;
	const int used[] = {DLT_PYF_fr_back, DLT_PYF_fr_code, DLT_PYF_fr_lasti,
			    DLT_PYF_fr_instr, DLT_PYF_fr_owner};
	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		if ((size_t)l->off[used[i]] + 8 > need)
			need = (size_t)l->off[used[i]] + 8;
	if (dlt_py_peek(w->pid, fr, f, sizeof(fr)) < (ssize_t)need) {
		if (w->bad == 0)
			w->bad = f;
		return 0;
	}
	memcpy(back, fr + l->off[DLT_PYF_fr_back], sizeof(*back));
	memcpy(&code, fr + l->off[DLT_PYF_fr_code], sizeof(code));
	if (code == 0)
		return 0;
	if (dlt_py_read(w->pid, co, code, DLT_PY_CODE_HEAD) != 0) {
		if (w->bad == 0)
			w->bad = code;
		return 0;
	}
	uintptr_t type;
	memcpy(&type, co + l->off[DLT_PYF_ob_type], sizeof(type));
	if (dlt_py.code_type && type != dlt_py.code_type)
		return 0;
	if (l->off[DLT_PYF_fr_instr] == 0) {
		int32_t lasti;
		memcpy(&lasti, fr + l->off[DLT_PYF_fr_lasti], 4);
		/* 3.10 counts code units of two bytes. */
		*addr = l->lines == DLT_PY_LINETABLE && lasti >= 0
				? (int64_t)lasti * 2
				: lasti;
		return code;
	}
	uint8_t owner = fr[l->off[DLT_PYF_fr_owner]];
	uintptr_t instr = 0;
	if (owner == l->off[DLT_PYF_owner_cstack])
		return 0;
	memcpy(&instr, fr + l->off[DLT_PYF_fr_instr], sizeof(instr));
	uintptr_t start = code + l->off[DLT_PYF_co_code];
	if (instr < start)
		return 0; /* a frame being set up */
	*addr = (int64_t)(instr - start);
	return code;
}

/* Fills r (its frames, then their text at text) for thread tid. */
static size_t dlt_py_walk(struct dlt_rec_pystack *r, char *text, uint32_t tid)
{
	int st = atomic_load_explicit(&dlt_py_state, memory_order_acquire);
	if (st == 0) {
		r->reason = DLT_PYSTACK_NOT_PREPARED;
		return 0;
	}
	r->py_version = dlt_py.version;
	if (st != 1 + DLT_PYSTACK_OK) {
		r->reason = (uint16_t)(st - 1);
		return 0;
	}
	struct dlt_py_walk w = {getpid(), dlt_py.l, 0};
	int started;
	uintptr_t ts = dlt_py_thread(&w, tid, &started);
	if (ts)
		w.bad = 0; /* found: a thread state that failed on the way is
			    * another thread's */
	uintptr_t f = ts ? dlt_py_top(&w, ts) : 0;
	if (f == 0) {
		r->reason = w.bad     ? DLT_PYSTACK_UNREADABLE
			    : started ? DLT_PYSTACK_NO_THREAD
				      : DLT_PYSTACK_NOT_STARTED;
		r->addr = w.bad;
		return 0;
	}
	size_t used = 0;
	for (int k = 0; f && k < 4096; k++) {
		int64_t addr = -1;
		uintptr_t back;
		uint8_t co[DLT_PY_CODE_HEAD];
		uintptr_t code = dlt_py_frame_code(&w, f, co, &addr, &back);
		if (code && r->depth++ < DLT_PYSTACK_MAX_FRAMES)
			dlt_py_frame(&w, co, addr, &r->frames[r->n++], text,
				     &used);
		f = back;
	}
	if (w.bad) {
		r->reason = DLT_PYSTACK_UNREADABLE;
		r->addr = w.bad;
	} else if (r->depth == 0) {
		r->reason = DLT_PYSTACK_NO_THREAD;
	}
	return used;
}

#define DLT_PYSTACK_TEXT_MAX \
	(DLT_PYSTACK_MAX_FRAMES * (DLT_PYSTACK_FILE_MAX + DLT_PYSTACK_FUNC_MAX))

int dlt_pystack_record(pid_t tid, uint64_t ts, uint16_t flags)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL)
		return -1;
	int saved = errno;
	const uint32_t cap =
		(uint32_t)(sizeof(struct dlt_rec_pystack) +
			   DLT_PYSTACK_MAX_FRAMES * sizeof(struct dlt_pyframe) +
			   DLT_PYSTACK_TEXT_MAX);
	struct dlt_rec_pystack *r = dlt_rec_reserve(w, &dlt_tls, cap);
	if (r == NULL) {
		errno = saved;
		return -1;
	}
	r->tid = (uint32_t)tid;
	r->n = 0;
	r->reason = DLT_PYSTACK_OK;
	r->py_version = 0;
	r->depth = 0;
	r->addr = 0;
	char *text = (char *)&r->frames[DLT_PYSTACK_MAX_FRAMES];
	size_t used = dlt_py_walk(r, text, (uint32_t)tid);
	/* When the stack had been read. */
	r->h.ts = ts ? ts : dlt_now_ns();
	memmove(&r->frames[r->n], text, used);
	uint32_t len =
		(uint32_t)(sizeof(*r) + r->n * sizeof(r->frames[0]) + used);
	/* Readers stop at a zero length word: what the walk wrote past the
	 * record's end is cleared before the rest is given back. */
	size_t dirty = (size_t)(text - (char *)r) + used;
	if (dirty > len)
		memset((char *)r + len, 0, dirty - len);
	uint32_t keep = dlt_rec_shrink(&dlt_tls, r, cap, len);
	memset((char *)r + len, 0, dlt_rec_round(len) - len);
	int n = r->n;
	dlt_rec_commit(r, DLT_REC_PYSTACK, flags, keep);
	errno = saved;
	return n;
}
