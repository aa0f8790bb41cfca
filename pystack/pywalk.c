/* The walk from _PyRuntime to a thread's frames: interpreters -> thread
 * states -> frames -> code objects -> file, function and line, in the
 * process pi->pid, the calling one or another.
 *
 * Every read of the interpreter's memory is a process_vm_readv, which
 * returns an error where a load would fault (a frame freed meanwhile, a
 * pointer half written by a thread that runs), every loop is bounded, and
 * nothing allocates or locks, so it can run in a signal handler and can
 * read a thread that holds the GIL or runs.  A thread that runs while it
 * is read may give a stack that mixes two moments; a thread waiting (the
 * watchdog's case) gives its stack.  The same reads from another process
 * cost the same system calls: process_vm_readv needs ptrace access to the
 * process (the same user, or CAP_SYS_PTRACE), not a stopped one. */
#define _GNU_SOURCE
#include "pywalk.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* Reads n bytes at addr of process pid; the bytes read (short or -1 where
 * the memory is not mapped). */
static ssize_t dlt_pywalk_vm(pid_t pid, void *dst, uintptr_t addr, size_t n)
{
	struct iovec local = {dst, n};
	struct iovec remote = {(void *)addr, n};
	return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

int dlt_pywalk_peek(pid_t pid, void *dst, uint64_t addr, size_t n)
{
	return addr != 0 && dlt_pywalk_vm(pid, dst, (uintptr_t)addr, n) ==
				       (ssize_t)n
		       ? 0
		       : -1;
}

int dlt_pywalk_tid_offset(void)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	uint32_t words[512];
	uintptr_t self = (uintptr_t)pthread_self();
	ssize_t got = dlt_pywalk_vm(getpid(), words, self, sizeof(words));
	for (ssize_t i = 0; got > 0 && i < got / 4; i++)
		if (words[i] == tid)
			return (int)(i * 4);
	return -1;
}

/* A build whose published offsets differ from the table (another ABI, a
 * patched CPython) is not read with the table. */
int dlt_pywalk_check_debug(pid_t pid, uint64_t rt,
			   const struct dlt_py_layout *l)
{
	char d[512];
	if (dlt_pywalk_peek(pid, d, rt, sizeof(d)) != 0)
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

struct dlt_pywalk_ctx {
	const struct dlt_pyinterp *pi;
	pid_t pid;
	const struct dlt_py_layout *l;
	uintptr_t bad;	/* the first address that could not be read */
	uint32_t *seen; /* when set: each thread state's thread id, 0 unknown */
	int seen_cap, nseen;
};

static int dlt_pywalk_ptr(struct dlt_pywalk_ctx *w, uintptr_t at,
			  uintptr_t *out)
{
	if (dlt_pywalk_peek(w->pid, out, at, sizeof(*out)) == 0)
		return 0;
	if (w->bad == 0)
		w->bad = at ? at : 1;
	*out = 0;
	return -1;
}

/* A bytes object's contents, a few bytes at a time. */
struct dlt_pywalk_bytes {
	struct dlt_pywalk_ctx *w;
	uintptr_t at, end;
	uint8_t buf[256];
	uint32_t pos, len;
};

static int dlt_pywalk_byte(struct dlt_pywalk_bytes *b)
{
	if (b->pos == b->len) {
		if (b->at >= b->end)
			return -1;
		uintptr_t n = b->end - b->at;
		if (n > sizeof(b->buf))
			n = sizeof(b->buf);
		if (dlt_pywalk_peek(b->w->pid, b->buf, b->at, n) != 0)
			return -1;
		b->at += n;
		b->pos = 0;
		b->len = (uint32_t)n;
	}
	return b->buf[b->pos++];
}

/* The location table's variable-length numbers: 6 bits a byte, low
 * first, 0x40 says another byte follows. */
static int64_t dlt_pywalk_varint(struct dlt_pywalk_bytes *b)
{
	int c = dlt_pywalk_byte(b);
	if (c < 0)
		return -1;
	uint64_t v = (uint64_t)c & 63;
	for (int shift = 6; (c & 64) && shift < 60; shift += 6) {
		if ((c = dlt_pywalk_byte(b)) < 0)
			return -1;
		v |= ((uint64_t)c & 63) << shift;
	}
	return (int64_t)v;
}

static int64_t dlt_pywalk_svarint(struct dlt_pywalk_bytes *b)
{
	int64_t v = dlt_pywalk_varint(b);
	return (v & 1) ? -(v >> 1) : v >> 1;
}

/* 3.8-3.9 co_lnotab: (address increment, signed line increment) pairs;
 * the line of the last pair that starts at or before addr. */
static int32_t dlt_pywalk_lnotab(struct dlt_pywalk_bytes *b, int32_t line,
				 int64_t addr)
{
	int64_t a = 0;
	for (;;) {
		int da = dlt_pywalk_byte(b), dl = dlt_pywalk_byte(b);
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
static int32_t dlt_pywalk_linetable(struct dlt_pywalk_bytes *b, int32_t line,
				    int64_t addr)
{
	int64_t end = 0;
	for (;;) {
		int len = dlt_pywalk_byte(b), dl = dlt_pywalk_byte(b);
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
static int32_t dlt_pywalk_locations(struct dlt_pywalk_bytes *b, int32_t line,
				    int64_t addr)
{
	int64_t unit = addr / 2, pos = 0;
	for (int guard = 0; guard < 1000000; guard++) {
		int c = dlt_pywalk_byte(b);
		if (c < 0 || !(c & 0x80))
			return -1;
		int code = (c >> 3) & 15, len = (c & 7) + 1;
		int64_t delta = 0;
		int skip = 0;
		if (code == 14) {
			delta = dlt_pywalk_svarint(b);
			skip = 3; /* end line, start and end column */
		} else if (code == 13) {
			delta = dlt_pywalk_svarint(b);
		} else if (code >= 10 && code <= 12) {
			delta = code - 10;
			for (int i = 0; i < 2; i++)
				dlt_pywalk_byte(b);
		} else if (code < 10) {
			dlt_pywalk_byte(b);
		}
		for (int i = 0; i < skip; i++)
			dlt_pywalk_varint(b);
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
static int32_t dlt_pywalk_line(struct dlt_pywalk_ctx *w, int32_t first,
			       uintptr_t table, int64_t addr,
			       const uint8_t *head, ssize_t got)
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
	struct dlt_pywalk_bytes b = {.w = w};
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
		return dlt_pywalk_lnotab(&b, first, addr);
	case DLT_PY_LINETABLE:
		return dlt_pywalk_linetable(&b, first, addr);
	default:
		return dlt_pywalk_locations(&b, first, addr);
	}
}

/* Appends code point c as UTF-8 if it fits in cap - *n bytes. */
static int dlt_pywalk_utf8(char *out, size_t cap, size_t *n, uint32_t c)
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
static uint16_t dlt_pywalk_str(struct dlt_pywalk_ctx *w, uintptr_t s,
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
		if (dlt_pywalk_peek(w->pid, out, s + hd + skip, n) != 0) {
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
	if (dlt_pywalk_peek(w->pid, raw, from, chars * kind) != 0) {
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
		if (dlt_pywalk_utf8(out, cap, &n, c) != 0)
			break;
	}
	return (uint16_t)n;
}

/* One frame: the code object whose first bytes co holds, at byte offset
 * addr of its bytecode (-1: not started).  Its texts go to text + *used. */
static void dlt_pywalk_frame(struct dlt_pywalk_ctx *w, const uint8_t *co,
			     int64_t addr, struct dlt_pyframe *f, char *text,
			     size_t *used)
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
			got[i] = dlt_pywalk_vm(w->pid, local[i].iov_base,
					       (uintptr_t)remote[i].iov_base,
					       local[i].iov_len);
	f->file_len = dlt_pywalk_str(w, file, fb, got[0], text + *used,
				     DLT_PYSTACK_FILE_MAX, 1);
	*used += f->file_len;
	f->func_len = dlt_pywalk_str(w, name, nb, got[1], text + *used,
				     DLT_PYSTACK_FUNC_MAX, 0);
	*used += f->func_len;
	f->line = first < 0 || table == 0
			  ? -1
			  : dlt_pywalk_line(w, first, table, addr, tb, got[2]);
}

/* Where the thread states of threads were last seen: a search for one
 * thread goes through the others', and the watchdog then asks for them
 * in turn (a snapshot of N threads would read N * N thread states).  A
 * hint is only a place to look first: a thread state is taken when its
 * own id there is the thread's.  Written and read with relaxed atomics by
 * the watchdog and signal handlers alike; a torn entry fails that check.
 * Keyed by thread and process: a watcher reads the threads of many
 * processes with one table (1,024 entries: 16 KiB, touched only by
 * walks). */
#define DLT_PY_HINTS 1024
static struct {
	_Atomic uint32_t tid;
	_Atomic int32_t pid;
	_Atomic uintptr_t ts;
} dlt_pywalk_hints[DLT_PY_HINTS];

static void dlt_pywalk_hint(pid_t pid, uint32_t tid, uintptr_t ts)
{
	unsigned i = (tid * 2654435761u) % DLT_PY_HINTS;
	atomic_store_explicit(&dlt_pywalk_hints[i].ts, ts,
			      memory_order_relaxed);
	atomic_store_explicit(&dlt_pywalk_hints[i].pid, pid,
			      memory_order_relaxed);
	atomic_store_explicit(&dlt_pywalk_hints[i].tid, tid,
			      memory_order_relaxed);
}

/* The kernel id of the thread whose thread state starts with head. */
static uint32_t dlt_pywalk_tstate_tid(struct dlt_pywalk_ctx *w,
				      const uint8_t *head)
{
	const struct dlt_py_layout *l = w->l;
	unsigned long id = 0;
	uint32_t t = 0;
	if (l->off[DLT_PYF_ts_native_tid]) {
		memcpy(&id, head + l->off[DLT_PYF_ts_native_tid], sizeof(id));
		return (uint32_t)id;
	}
	if (w->pi->tid_off < 0)
		return 0;
	memcpy(&id, head + l->off[DLT_PYF_ts_thread_id], sizeof(id));
	if (id == 0 ||
	    dlt_pywalk_peek(w->pid, &t, id + (uintptr_t)w->pi->tid_off, 4) != 0)
		return 0;
	return t;
}

/* Thread tid's PyThreadState, 0 when it has none. */
static uintptr_t dlt_pywalk_thread(struct dlt_pywalk_ctx *w, uint32_t tid,
				   int *started)
{
	const struct dlt_py_layout *l = w->l;
	uintptr_t interp, ts;
	uint8_t head[DLT_PY_TSTATE_HEAD];
	*started = 0;
	unsigned h = (tid * 2654435761u) % DLT_PY_HINTS;
	uintptr_t hint = atomic_load_explicit(&dlt_pywalk_hints[h].ts,
					      memory_order_relaxed);
	if (atomic_load_explicit(&dlt_pywalk_hints[h].tid,
				 memory_order_relaxed) == tid &&
	    atomic_load_explicit(&dlt_pywalk_hints[h].pid,
				 memory_order_relaxed) == w->pid &&
	    hint && dlt_pywalk_peek(w->pid, head, hint, sizeof(head)) == 0 &&
	    dlt_pywalk_tstate_tid(w, head) == tid) {
		*started = 1;
		return hint;
	}
	if (dlt_pywalk_ptr(w, w->pi->runtime + l->off[DLT_PYF_rt_interp_head],
			   &interp) != 0)
		return 0;
	for (int i = 0; interp && i < 64; i++) {
		*started = 1;
		dlt_pywalk_ptr(w, interp + l->off[DLT_PYF_is_threads_head],
			       &ts);
		for (int j = 0; ts && j < 4096; j++) {
			/* Its id and the next one in one read. */
			if (dlt_pywalk_peek(w->pid, head, ts, sizeof(head)) !=
			    0) {
				if (w->bad == 0)
					w->bad = ts;
				break;
			}
			uint32_t t = dlt_pywalk_tstate_tid(w, head);
			if (w->seen && w->nseen < w->seen_cap)
				w->seen[w->nseen++] = t;
			if (t)
				dlt_pywalk_hint(w->pid, t, ts);
			if (t == tid)
				return ts;
			memcpy(&ts, head + l->off[DLT_PYF_ts_next], sizeof(ts));
		}
		if (dlt_pywalk_ptr(w, interp + l->off[DLT_PYF_is_next],
				   &interp) != 0)
			break;
	}
	return 0;
}

int dlt_pywalk_threads(const struct dlt_pyinterp *pi, uint32_t *tids, int cap)
{
	if (pi->reason != DLT_PYSTACK_OK || pi->layout == NULL)
		return -1;
	struct dlt_pywalk_ctx w = {.pi = pi,
				   .pid = pi->pid,
				   .l = pi->layout,
				   .seen = tids,
				   .seen_cap = cap};
	int started;
	/* A thread id no thread has: every thread state is gone through. */
	dlt_pywalk_thread(&w, UINT32_MAX, &started);
	return w.bad && w.nseen == 0 ? -1 : w.nseen;
}

/* The innermost frame of thread state ts, 0 if it runs no Python code. */
static uintptr_t dlt_pywalk_top(struct dlt_pywalk_ctx *w, uintptr_t ts)
{
	const struct dlt_py_layout *l = w->l;
	uintptr_t f = 0;
	dlt_pywalk_ptr(w, ts + l->off[DLT_PYF_ts_frame], &f);
	if (f && l->version >= 0x030b && l->version <= 0x030c) {
		uintptr_t cframe = f;
		dlt_pywalk_ptr(w, cframe + l->off[DLT_PYF_cf_current_frame],
			       &f);
	}
	return f;
}

/* What a frame is to the walk: a Python code's, one of the C stack's (the
 * shim frame 3.12+ pushes in each call of the evaluation loop, before the
 * first frame it runs), or one skipped (not started, unreadable). */
enum dlt_pywalk_kind { DLT_PYWALK_SKIP, DLT_PYWALK_CODE, DLT_PYWALK_SHIM };

/* Code object and byte offset of frame f; 0 when the frame is no Python
 * code's (3.12+ frames of the C stack: *kind says SHIM; frames not
 * started).  *entry: C entered this frame, as far as the frame itself
 * tells (before 3.11 always, in 3.11 its is_entry; from 3.12 the shim
 * frame behind it tells, which the caller sees next). */
static uintptr_t dlt_pywalk_frame_code(struct dlt_pywalk_ctx *w, uintptr_t f,
				       uint8_t *co, int64_t *addr,
				       uintptr_t *back, int *kind, int *entry)
{
	const struct dlt_py_layout *l = w->l;
	uint8_t fr[DLT_PY_FRAME_HEAD];
	uintptr_t code = 0;
	*back = 0;
	*kind = DLT_PYWALK_SKIP;
	*entry = 0;
	/* A 3.11+ frame can end a page before unmapped memory: what the
	 * layout reads must be there, not the whole head. */
	size_t need = 0;
	const int used[] = {DLT_PYF_fr_back,  DLT_PYF_fr_code,
			    DLT_PYF_fr_lasti, DLT_PYF_fr_instr,
			    DLT_PYF_fr_owner, DLT_PYF_fr_entry};
	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		if ((size_t)l->off[used[i]] + 8 > need)
			need = (size_t)l->off[used[i]] + 8;
	if (dlt_pywalk_vm(w->pid, fr, f, sizeof(fr)) < (ssize_t)need) {
		if (w->bad == 0)
			w->bad = f;
		return 0;
	}
	memcpy(back, fr + l->off[DLT_PYF_fr_back], sizeof(*back));
	/* Told before its code is looked at: 3.13's shim frames hold None
	 * there, 3.12's a trampoline that is a code object. */
	if (l->off[DLT_PYF_fr_instr] != 0 &&
	    fr[l->off[DLT_PYF_fr_owner]] == l->off[DLT_PYF_owner_cstack]) {
		*kind = DLT_PYWALK_SHIM;
		return 0;
	}
	memcpy(&code, fr + l->off[DLT_PYF_fr_code], sizeof(code));
	if (code == 0)
		return 0;
	if (dlt_pywalk_peek(w->pid, co, code, DLT_PY_CODE_HEAD) != 0) {
		if (w->bad == 0)
			w->bad = code;
		return 0;
	}
	uintptr_t type;
	memcpy(&type, co + l->off[DLT_PYF_ob_type], sizeof(type));
	if (w->pi->code_type && type != w->pi->code_type)
		return 0;
	if (l->off[DLT_PYF_fr_instr] == 0) {
		int32_t lasti;
		memcpy(&lasti, fr + l->off[DLT_PYF_fr_lasti], 4);
		/* 3.10 counts code units of two bytes. */
		*addr = l->lines == DLT_PY_LINETABLE && lasti >= 0
				? (int64_t)lasti * 2
				: lasti;
		/* Each frame has its own call of the evaluation loop. */
		*entry = 1;
		*kind = DLT_PYWALK_CODE;
		return code;
	}
	uintptr_t instr = 0;
	memcpy(&instr, fr + l->off[DLT_PYF_fr_instr], sizeof(instr));
	uintptr_t start = code + l->off[DLT_PYF_co_code];
	if (instr < start)
		return 0; /* a frame being set up */
	*addr = (int64_t)(instr - start);
	if (l->off[DLT_PYF_fr_entry] != 0)
		*entry = fr[l->off[DLT_PYF_fr_entry]] != 0;
	*kind = DLT_PYWALK_CODE;
	return code;
}

/* Fills r (its frames, then their text at text) for thread tid. */
size_t dlt_pywalk_read(const struct dlt_pyinterp *pi, uint32_t tid,
		       struct dlt_rec_pystack *r, char *text)
{
	r->tid = tid;
	r->n = 0;
	r->reason = pi->reason;
	r->py_version = pi->version;
	r->depth = 0;
	r->addr = 0;
	if (pi->reason != DLT_PYSTACK_OK || pi->layout == NULL) {
		if (pi->reason == DLT_PYSTACK_OK)
			r->reason = DLT_PYSTACK_VERSION;
		return 0;
	}
	struct dlt_pywalk_ctx w = {.pi = pi, .pid = pi->pid, .l = pi->layout};
	int started;
	uintptr_t ts = dlt_pywalk_thread(&w, tid, &started);
	if (ts)
		w.bad = 0; /* found: a thread state that failed on the way is
			    * another thread's */
	uintptr_t f = ts ? dlt_pywalk_top(&w, ts) : 0;
	if (f == 0) {
		r->reason = w.bad     ? DLT_PYSTACK_UNREADABLE
			    : started ? DLT_PYSTACK_NO_THREAD
				      : DLT_PYSTACK_NOT_STARTED;
		r->addr = w.bad;
		return 0;
	}
	size_t used = 0;
	/* The frame kept just before, while the walk has seen nothing else
	 * since: a shim frame behind it says C entered it (3.12+). */
	struct dlt_pyframe *last = NULL;
	for (int k = 0; f && k < 4096; k++) {
		int64_t addr = -1;
		uintptr_t back;
		uint8_t co[DLT_PY_CODE_HEAD];
		int kind, entry;
		uintptr_t code = dlt_pywalk_frame_code(&w, f, co, &addr, &back,
						       &kind, &entry);
		if (kind == DLT_PYWALK_SHIM && last)
			last->func_len |= DLT_PYFRAME_ENTRY;
		last = NULL;
		if (code && r->depth++ < DLT_PYSTACK_MAX_FRAMES) {
			last = &r->frames[r->n++];
			dlt_pywalk_frame(&w, co, addr, last, text, &used);
			/* The length's 15 bits, whatever the name's. */
			last->func_len &= DLT_PYFRAME_LEN;
			if (entry)
				last->func_len |= DLT_PYFRAME_ENTRY;
		}
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

/* A str object's text, when it is a compact ASCII one of at most cap - 1
 * bytes, into out with a NUL: its length, or -1.  Names of functions,
 * variables and most paths are.  tail: the end of a longer one instead
 * (its last cap - 1 bytes), for a path's suffix. */
static int dlt_pywalk_ascii(struct dlt_pywalk_ctx *w, uintptr_t s, char *out,
			    size_t cap, int tail)
{
	const struct dlt_py_layout *l = w->l;
	size_t hd = l->off[DLT_PYF_str_ascii_data];
	uint8_t head[80 + 64];
	if (s == 0 || hd > 80 || cap > 64 + 1)
		return -1;
	ssize_t got = dlt_pywalk_vm(w->pid, head, s, hd + cap - 1);
	if (got < (ssize_t)hd)
		return -1;
	int64_t len;
	uint32_t state;
	memcpy(&len, head + l->off[DLT_PYF_str_length], 8);
	memcpy(&state, head + l->off[DLT_PYF_str_state], 4);
	if (len < 0 || (state & (DLT_PY_STATE_COMPACT | DLT_PY_STATE_ASCII)) !=
			       (DLT_PY_STATE_COMPACT | DLT_PY_STATE_ASCII))
		return -1;
	size_t n = (size_t)len;
	if (n > cap - 1) {
		if (!tail ||
		    dlt_pywalk_peek(w->pid, out, s + hd + n - (cap - 1),
				    cap - 1) != 0)
			return -1;
		n = cap - 1;
	} else {
		if ((size_t)got < hd + n)
			return -1;
		memcpy(out, head + hd, n);
	}
	out[n] = '\0';
	return (int)n;
}

/* The index of s in the NULL-ended list, or -1. */
static int dlt_pywalk_in(const char *const *list, const char *s, int suffix)
{
	size_t n = strlen(s);
	for (int i = 0; list && list[i]; i++) {
		size_t k = strlen(list[i]);
		if (suffix ? n >= k && memcmp(s + n - k, list[i], k) == 0
			   : n == k && memcmp(s, list[i], k) == 0)
			return i;
	}
	return -1;
}

/* The value of int object o: 0 and *v, or -1 when it is no int or does
 * not fit in two digits. */
static int dlt_pywalk_int(struct dlt_pywalk_ctx *w, uintptr_t o, int64_t *v)
{
	const struct dlt_py_layout *l = w->l;
	uint8_t head[32];
	uintptr_t type;
	unsigned long flags;
	size_t dg = l->off[DLT_PYF_long_digit];
	if (dg + 8 > sizeof(head) || dlt_pywalk_peek(w->pid, head, o, dg) != 0)
		return -1;
	memcpy(&type, head + l->off[DLT_PYF_ob_type], sizeof(type));
	if (dlt_pywalk_peek(w->pid, &flags, type + l->off[DLT_PYF_type_flags],
			    sizeof(flags)) != 0 ||
	    !(flags & DLT_PY_TPFLAGS_LONG_SUBCLASS))
		return -1;
	int64_t size;
	memcpy(&size, head + l->off[DLT_PYF_long_tag], sizeof(size));
	uint64_t ndigits;
	int neg;
	if (l->version >= DLT_PY_LONG_TAG_VERSION) {
		/* lv_tag: digits from bit 3, sign 0 +, 1 zero, 2 -. */
		if ((size & 3) == 1) {
			*v = 0;
			return 0;
		}
		ndigits = (uint64_t)size >> 3;
		neg = (size & 3) == 2;
	} else {
		ndigits = size < 0 ? (uint64_t)-size : (uint64_t)size;
		neg = size < 0;
	}
	if (ndigits == 0) {
		*v = 0;
		return 0;
	}
	uint32_t d[2] = {0, 0};
	if (ndigits > 2 ||
	    dlt_pywalk_peek(w->pid, d, o + dg, 4 * (size_t)ndigits) != 0)
		return -1;
	uint64_t mask = (1u << DLT_PY_LONG_SHIFT) - 1;
	uint64_t u = (d[0] & mask) | (uint64_t)(d[1] & mask)
					     << DLT_PY_LONG_SHIFT;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

/* Frame f's locals named in want->locals, whose code object's first bytes
 * co holds, into m. */
static void dlt_pywalk_locals(struct dlt_pywalk_ctx *w, uintptr_t f,
			      const uint8_t *co,
			      const struct dlt_pywalk_want *want,
			      struct dlt_pywalk_match *m)
{
	const struct dlt_py_layout *l = w->l;
	uintptr_t names;
	memcpy(&names, co + l->off[DLT_PYF_co_varnames], sizeof(names));
	int64_t n;
	if (names == 0 ||
	    dlt_pywalk_peek(w->pid, &n, names + l->off[DLT_PYF_tuple_size],
			    sizeof(n)) != 0)
		return;
	/* The parameters come first: a rank's is among the first few. */
	if (n <= 0)
		return;
	if (n > 64)
		n = 64;
	uintptr_t items[64];
	if (dlt_pywalk_peek(w->pid, items, names + l->off[DLT_PYF_tuple_items],
			    (size_t)n * sizeof(items[0])) != 0)
		return;
	for (int64_t i = 0; i < n; i++) {
		char name[32];
		if (dlt_pywalk_ascii(w, items[i], name, sizeof(name), 0) < 0)
			continue;
		int k = dlt_pywalk_in(want->locals, name, 0);
		if (k < 0 || k >= DLT_PYWALK_LOCALS_MAX || (m->have & 1u << k))
			continue;
		uintptr_t o;
		if (dlt_pywalk_peek(w->pid, &o,
				    f + l->off[DLT_PYF_fr_localsplus] +
					    (uintptr_t)i * sizeof(o),
				    sizeof(o)) != 0 ||
		    o == 0)
			continue;
		if (dlt_pywalk_int(w, o, &m->val[k]) == 0)
			m->have |= 1u << k;
	}
}

/* A code object as dlt_pywalk_want's memo knows it: never 0. */
static uint64_t dlt_pywalk_code_key(uint64_t code, uint64_t name, uint64_t file)
{
	uint64_t h = code * 0x9e3779b97f4a7c15ull;
	h ^= (name + (h << 6) + (h >> 2)) * 0xbf58476d1ce4e5b9ull;
	h ^= (file + (h << 6) + (h >> 2)) * 0x94d049bb133111ebull;
	return h | 1;
}

int dlt_pywalk_find(const struct dlt_pyinterp *pi, uint32_t tid,
		    const struct dlt_pywalk_want *want,
		    struct dlt_pywalk_match *out, int cap)
{
	if (pi->reason != DLT_PYSTACK_OK || pi->layout == NULL || cap <= 0)
		return 0;
	struct dlt_pywalk_ctx w = {.pi = pi, .pid = pi->pid, .l = pi->layout};
	int started, found = 0, frames = 0;
	uintptr_t ts = dlt_pywalk_thread(&w, tid, &started);
	uintptr_t f = ts ? dlt_pywalk_top(&w, ts) : 0;
	/* Shim frames count too, so that the loop is bounded whatever the
	 * memory says. */
	for (int k = 0; f && k < 2 * want->max_frames &&
			frames < want->max_frames && found < cap;
	     k++) {
		int64_t addr = -1;
		uintptr_t back;
		uint8_t co[DLT_PY_CODE_HEAD];
		int kind, entry;
		uintptr_t code = dlt_pywalk_frame_code(&w, f, co, &addr, &back,
						       &kind, &entry);
		if (code) {
			frames++;
			uintptr_t name, file;
			char text[64];
			memcpy(&name, co + w.l->off[DLT_PYF_co_name],
			       sizeof(name));
			memcpy(&file, co + w.l->off[DLT_PYF_co_filename],
			       sizeof(file));
			uint64_t key = dlt_pywalk_code_key(code, name, file);
			_Atomic uint64_t *slot =
				want->nomatch
					? &want->nomatch[(code >> 4) &
							 (want->nomatch_n - 1)]
					: NULL;
			if (slot &&
			    atomic_load_explicit(slot, memory_order_relaxed) ==
				    key) {
				f = back;
				continue;
			}
			int fn = -1;
			/* The name first: one read for most frames. */
			if (dlt_pywalk_ascii(&w, name, text, 33, 0) >= 0)
				fn = dlt_pywalk_in(want->funcs, text, 0);
			if (fn >= 0 &&
			    dlt_pywalk_ascii(&w, file, text, sizeof(text), 1) >=
				    0 &&
			    dlt_pywalk_in(want->files, text, 1) >= 0) {
				struct dlt_pywalk_match *m = &out[found++];
				memset(m, 0, sizeof(*m));
				m->func = fn;
				dlt_pywalk_locals(&w, f, co, want, m);
				if (fn == want->stop_func)
					break;
			} else if (slot) {
				atomic_store_explicit(slot, key,
						      memory_order_relaxed);
			}
		}
		f = back;
	}
	return found;
}
