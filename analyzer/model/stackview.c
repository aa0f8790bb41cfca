/* Stacks as the findings show them (stackview.h). */
#include "stackview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "pyframes.h"

static struct dlt_unwinder *dlt_sv_u;

static void dlt_sv_unwinder_free(void)
{
	dlt_unwinder_free(dlt_sv_u);
	dlt_sv_u = NULL;
}

struct dlt_unwinder *dlt_sv_unwinder(void)
{
	if (dlt_sv_u == NULL) {
		dlt_sv_u = dlt_unwinder_new(NULL);
		if (dlt_sv_u)
			atexit(dlt_sv_unwinder_free);
	}
	return dlt_sv_u;
}

const char *dlt_sv_base(const char *path)
{
	if (path == NULL)
		return "";
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The object's file name starts with one of prefixes, followed by '.' or
 * '-' (libc.so.6, libc-2.31.so). */
static bool dlt_sv_obj_is(const char *path, const char *const *prefixes)
{
	const char *b = dlt_sv_base(path);
	for (; *prefixes; prefixes++) {
		size_t n = strlen(*prefixes);
		if (strncmp(b, *prefixes, n) == 0 &&
		    (b[n] == '.' || b[n] == '-'))
			return true;
	}
	return false;
}

/* dltrace's own code in the traced process: its internals (dlt_*, and
 * what it cannot name) are not the program's frames.  A wrapper the
 * program called (dlopen, sigaction ...) stays, shown in libdltrace.so:
 * the call the program made. */
static bool dlt_sv_own(const struct dlt_uframe *f)
{
	static const char *const own[] = {"libdltrace", "libdltrace_audit",
					  NULL};
	return f->obj && dlt_sv_obj_is(f->obj, own) &&
	       (f->func[0] == '\0' || strncmp(f->func, "dlt_", 4) == 0 ||
		f->how == DLT_UF_INLINE);
}

bool dlt_sv_interp(const struct dlt_uframe *f)
{
	const char *b = dlt_sv_base(f->obj);
	return strncmp(b, "python", 6) == 0 || strncmp(b, "libpython", 9) == 0;
}

static bool dlt_sv_eval(const struct dlt_uframe *f)
{
	return f->how != DLT_UF_INLINE &&
	       strcmp(f->func, "_PyEval_EvalFrameDefault") == 0;
}

static bool dlt_sv_same(const struct dlt_uframe *a, const struct dlt_uframe *b)
{
	/* An inlined function and the function it is inlined in are two
	 * frames, even of one name. */
	if (a->how == DLT_UF_INLINE || b->how == DLT_UF_INLINE)
		return false;
	if ((a->obj == NULL) != (b->obj == NULL))
		return false;
	if (a->obj && strcmp(a->obj, b->obj) != 0)
		return false;
	if (a->func[0] || b->func[0])
		return strcmp(a->func, b->func) == 0;
	return a->rel == b->rel;
}

static struct dlt_sv_row *dlt_sv_row_add(struct dlt_stack_view *v, int kind)
{
	if (v->nrows == DLT_SV_MAX_ROWS)
		return NULL;
	struct dlt_sv_row *r = &v->rows[v->nrows++];
	memset(r, 0, sizeof(*r));
	r->kind = (uint8_t)kind;
	r->repeat = 1;
	return r;
}

static void dlt_sv_native_row(struct dlt_stack_view *v, size_t i)
{
	/* A recursion: one row, counted. */
	struct dlt_sv_row *last = v->nrows ? &v->rows[v->nrows - 1] : NULL;
	if (last && last->kind == DLT_SV_NATIVE &&
	    dlt_sv_same(&v->nat[last->nat], &v->nat[i])) {
		last->repeat++;
		return;
	}
	struct dlt_sv_row *r = dlt_sv_row_add(v, DLT_SV_NATIVE);
	if (r == NULL)
		return;
	r->nat = (uint32_t)i;
	const struct dlt_uframe *f = &v->nat[i];
	dlt_uframe_format(f, r->text, sizeof(r->text));
	/* An address no file explains says why ("no symbol covers it",
	 * "build-id differs", "file not found"). */
	if (f->func[0] == '\0' && f->unnamed) {
		size_t l = strlen(r->text);
		snprintf(r->text + l, sizeof(r->text) - l, " [%s]", f->unnamed);
	}
}

static void dlt_sv_py_row(struct dlt_stack_view *v,
			  const struct dlt_pyframe_view *f)
{
	char t[sizeof(v->rows[0].text)];
	dlt_pyframe_text(f, t, sizeof(t));
	struct dlt_sv_row *last = v->nrows ? &v->rows[v->nrows - 1] : NULL;
	if (last && last->kind == DLT_SV_PYTHON && strcmp(last->text, t) == 0) {
		last->repeat++;
		return;
	}
	struct dlt_sv_row *r = dlt_sv_row_add(v, DLT_SV_PYTHON);
	if (r)
		memcpy(r->text, t, sizeof(t));
}

#define DLT_SV_MAX_PY 256

/* Rows: the native frames innermost first, each evaluation frame of the
 * interpreter replaced by the Python frames it ran (from the innermost
 * Python frame up to the next one C code entered), the interpreter's
 * other frames left out.  Without the entry marks (a trace before 2.4)
 * every frame is an entry up to 3.10, and from 3.11 all Python frames
 * go in at the innermost evaluation frame. */
static void dlt_sv_rows(struct dlt_stack_view *v,
			const struct dlt_rec_pystack *py)
{
	static struct dlt_pyframe_view pf[DLT_SV_MAX_PY];
	size_t npy = py ? dlt_pyframes(py, pf, DLT_SV_MAX_PY) : 0;
	bool marks = false;
	for (size_t k = 0; k < npy; k++)
		if (py->frames[k].func_len & DLT_PYFRAME_ENTRY)
			marks = true;
	bool each = !marks && py && py->py_version < 0x030b0000;
	size_t next = 0; /* the next Python frame to place */
	for (size_t i = 0; i < v->nnat; i++) {
		const struct dlt_uframe *f = &v->nat[i];
		if (next < npy && dlt_sv_eval(f)) {
			v->merged = true;
			if (!marks && !each) {
				while (next < npy)
					dlt_sv_py_row(v, &pf[next++]);
				continue;
			}
			for (;;) {
				bool entry =
					each || (py->frames[next].func_len &
						 DLT_PYFRAME_ENTRY);
				dlt_sv_py_row(v, &pf[next++]);
				if (entry || next >= npy)
					break;
			}
			continue;
		}
		/* The interpreter's own frames say nothing the Python rows
		 * do not, unless the thread is inside them. */
		if (py && dlt_sv_interp(f) && v->nrows > 0)
			continue;
		dlt_sv_native_row(v, i);
	}
	/* Python frames no native frame took (the unwinding stopped
	 * before their evaluation frames). */
	for (; next < npy; next++)
		dlt_sv_py_row(v, &pf[next]);
}

int dlt_sv_build(const struct dlt_umap *map, const struct dlt_ustack *st,
		 const struct dlt_rec_pystack *py, struct dlt_stack_view *v)
{
	memset(v, 0, sizeof(*v));
	struct dlt_unwinder *u = dlt_sv_unwinder();
	if (u == NULL || map == NULL || st == NULL)
		return -1;
	v->nat = dlt_xmalloc(sizeof(*v->nat) * DLT_SV_MAX_NATIVE);
	size_t n = dlt_unwind(u, map, st, v->nat, DLT_SV_MAX_NATIVE, v->stop,
			      sizeof(v->stop));
	for (size_t i = 0; i < n; i++) {
		if (v->nat[i].how == DLT_UF_SCAN)
			v->scanned = true;
		/* dltrace's wrapper between the program and the call it
		 * made is not the program's frame. */
		if (dlt_sv_own(&v->nat[i]) && i > 0)
			continue;
		if (v->nnat != i)
			v->nat[v->nnat] = v->nat[i];
		v->nnat++;
	}
	v->rows = dlt_xmalloc(sizeof(*v->rows) * DLT_SV_MAX_ROWS);
	dlt_sv_merge(v, py);
	return 0;
}

void dlt_sv_merge(struct dlt_stack_view *v, const struct dlt_rec_pystack *py)
{
	v->nrows = 0;
	v->merged = false;
	if (v->rows)
		dlt_sv_rows(v, py);
}

void dlt_sv_free(struct dlt_stack_view *v)
{
	free(v->nat);
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

bool dlt_sv_runtime(const char *path)
{
	/* By file name with the version either way: libc.so.6 and, where
	 * the path is the real file (glibc before 2.34), libc-2.31.so,
	 * libpthread-2.31.so, ld-2.31.so; "ld" is ld-linux-x86-64.so.2 too. */
	static const char *const libs[] = {
		"libc",	      "libdltrace", "libstdc++", "libgcc_s",
		"libpthread", "ld",	    NULL};
	return path && dlt_sv_obj_is(path, libs);
}

size_t dlt_sv_site(const struct dlt_stack_view *v)
{
	/* libffi too: a ctypes call's way down to the C function. */
	static const char *const ffi[] = {"libffi", NULL};
	for (size_t i = 0; i < v->nnat; i++)
		if (v->nat[i].obj == NULL ||
		    !(dlt_sv_runtime(v->nat[i].obj) ||
		      dlt_sv_obj_is(v->nat[i].obj, ffi)))
			return i;
	return 0;
}

bool dlt_sv_overflow(const struct dlt_ustack *st, uint64_t addr)
{
	if (st == NULL || st->stack_lo == 0)
		return false;
	uint64_t sp = st->sp;
	/* The thread's stack pointer is at the bottom of its stack, and the
	 * fault just below it: the guard page of a thread's stack, or the
	 * gap the kernel keeps below a growing main stack (256 pages). */
	bool sp_low = sp >= st->stack_lo && sp - st->stack_lo < 64 * 1024;
	bool addr_low = addr < st->stack_lo + 4096 &&
			st->stack_lo - addr <= (1u << 20) + 65536;
	return sp_low && addr_low;
}

long dlt_sv_recursing(const struct dlt_stack_view *v, size_t *count)
{
	long best = -1;
	size_t bestn = 1;
	for (size_t i = 0; i < v->nnat;) {
		size_t j = i + 1;
		while (j < v->nnat && dlt_sv_same(&v->nat[i], &v->nat[j]))
			j++;
		if (j - i > bestn) {
			bestn = j - i;
			best = (long)i;
		}
		i = j;
	}
	*count = best >= 0 ? bestn : 0;
	return best;
}

long dlt_sv_find(const struct dlt_stack_view *v, const char *const *names)
{
	for (size_t i = 0; i < v->nnat; i++)
		for (const char *const *n = names; *n; n++)
			if (strcmp(v->nat[i].func, *n) == 0)
				return (long)i;
	return -1;
}

const char *dlt_sv_line(const struct dlt_stack_view *v, size_t max, char *buf,
			size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	size_t n = v->nrows < max ? v->nrows : max;
	/* The rows that fit, counted from the innermost: a long stack loses
	 * its outermost rows (the interpreter's start), never the frame that
	 * waits or a part of one. */
	size_t need = 0, fit = 0;
	for (; fit < n; fit++) {
		const struct dlt_sv_row *r = &v->rows[fit];
		need += strlen(r->text) + (fit ? 5 : 0) +
			(r->repeat > 1 ? 16 : 0);
		if (need >= cap)
			break;
	}
	n = fit;
	for (size_t k = n; k-- > 0;) {
		const struct dlt_sv_row *r = &v->rows[k];
		char rep[32] = "";
		if (r->repeat > 1)
			snprintf(rep, sizeof(rep), " (x%u)", r->repeat);
		int w = snprintf(buf + used, used < cap ? cap - used : 0,
				 "%s%s%s", used ? " \xe2\x86\x92 " : "",
				 r->text, rep);
		if (w < 0 || used + (size_t)w >= cap)
			break;
		used += (size_t)w;
	}
	return buf;
}

const char *dlt_sv_text(const struct dlt_stack_view *v, size_t max, char *buf,
			size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < v->nnat && i < max; i++) {
		const struct dlt_uframe *f = &v->nat[i];
		const char *b = f->obj ? dlt_sv_base(f->obj) : "?";
		int w;
		if (f->func[0] && f->how == DLT_UF_INLINE)
			w = snprintf(buf + used, cap - used, "%s%s!%s",
				     used ? " < " : "", b, f->func);
		else if (f->func[0])
			w = snprintf(buf + used, cap - used, "%s%s!%s+0x%llx",
				     used ? " < " : "", b, f->func,
				     (unsigned long long)f->func_off);
		else if (f->obj)
			w = snprintf(buf + used, cap - used, "%s%s+0x%llx",
				     used ? " < " : "", b,
				     (unsigned long long)f->rel);
		else
			w = snprintf(buf + used, cap - used, "%s0x%llx",
				     used ? " < " : "",
				     (unsigned long long)f->pc);
		if (w < 0 || used + (size_t)w >= cap)
			break;
		used += (size_t)w;
	}
	return buf;
}
