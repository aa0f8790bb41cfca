#include "value.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

static struct dlt_val *dlt_val_alloc(struct dlt_arena_blk **arena,
				     enum dlt_val_type type)
{
	struct dlt_val *v = dlt_arena_alloc(arena, sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->arena = arena;
	return v;
}

struct dlt_val *dlt_val_object(struct dlt_arena_blk **arena)
{
	return dlt_val_alloc(arena, DLT_V_OBJ);
}

struct dlt_val *dlt_val_array(struct dlt_arena_blk **arena)
{
	return dlt_val_alloc(arena, DLT_V_ARR);
}

/* Appends a child to a container; NULL when there is no container. */
static struct dlt_val *dlt_add(struct dlt_val *c, const char *key,
			       enum dlt_val_type type)
{
	if (c == NULL)
		return NULL;
	struct dlt_val *v = dlt_val_alloc(c->arena, type);
	if (key)
		v->key = dlt_arena_strdup(c->arena, key);
	if (c->last)
		c->last->next = v;
	else
		c->first = v;
	c->last = v;
	c->n++;
	return v;
}

void dlt_obj_str(struct dlt_val *o, const char *key, const char *s)
{
	struct dlt_val *v = dlt_add(o, key, s ? DLT_V_STR : DLT_V_NULL);
	if (v && s)
		v->as.s = dlt_arena_strdup(o->arena, s);
}

void dlt_obj_strf(struct dlt_val *o, const char *key, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dlt_obj_str(o, key, buf);
}

void dlt_obj_int(struct dlt_val *o, const char *key, int64_t x)
{
	struct dlt_val *v = dlt_add(o, key, DLT_V_INT);
	if (v)
		v->as.i = x;
}

void dlt_obj_uint(struct dlt_val *o, const char *key, uint64_t x)
{
	struct dlt_val *v = dlt_add(o, key, DLT_V_UINT);
	if (v)
		v->as.u = x;
}

void dlt_obj_double(struct dlt_val *o, const char *key, double x)
{
	struct dlt_val *v = dlt_add(o, key, DLT_V_DOUBLE);
	if (v)
		v->as.d = x;
}

void dlt_obj_bool(struct dlt_val *o, const char *key, bool x)
{
	struct dlt_val *v = dlt_add(o, key, DLT_V_BOOL);
	if (v)
		v->as.b = x;
}

void dlt_obj_null(struct dlt_val *o, const char *key)
{
	dlt_add(o, key, DLT_V_NULL);
}

struct dlt_val *dlt_obj_array(struct dlt_val *o, const char *key)
{
	return dlt_add(o, key, DLT_V_ARR);
}

struct dlt_val *dlt_obj_object(struct dlt_val *o, const char *key)
{
	return dlt_add(o, key, DLT_V_OBJ);
}

void dlt_arr_str(struct dlt_val *a, const char *s)
{
	dlt_obj_str(a, NULL, s);
}

void dlt_arr_int(struct dlt_val *a, int64_t x)
{
	dlt_obj_int(a, NULL, x);
}

struct dlt_val *dlt_arr_object(struct dlt_val *a)
{
	return dlt_add(a, NULL, DLT_V_OBJ);
}

const struct dlt_val *dlt_val_get(const struct dlt_val *o, const char *key)
{
	if (o == NULL || o->type != DLT_V_OBJ)
		return NULL;
	for (const struct dlt_val *c = o->first; c; c = c->next)
		if (c->key && strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

void dlt_val_json(struct dlt_json *j, const struct dlt_val *v)
{
	if (v == NULL) {
		dlt_json_null(j);
		return;
	}
	switch (v->type) {
	case DLT_V_NULL:
		dlt_json_null(j);
		break;
	case DLT_V_BOOL:
		dlt_json_bool(j, v->as.b);
		break;
	case DLT_V_INT:
		dlt_json_int(j, v->as.i);
		break;
	case DLT_V_UINT:
		dlt_json_uint(j, v->as.u);
		break;
	case DLT_V_DOUBLE:
		dlt_json_double(j, v->as.d);
		break;
	case DLT_V_STR:
		dlt_json_string(j, v->as.s);
		break;
	case DLT_V_ARR:
		dlt_json_array_begin(j);
		for (const struct dlt_val *c = v->first; c; c = c->next)
			dlt_val_json(j, c);
		dlt_json_array_end(j);
		break;
	case DLT_V_OBJ:
		dlt_json_object_begin(j);
		for (const struct dlt_val *c = v->first; c; c = c->next) {
			dlt_json_key(j, c->key ? c->key : "");
			dlt_val_json(j, c);
		}
		dlt_json_object_end(j);
		break;
	}
}

/* ---- frames for people ------------------------------------------------ */

#define DLT_ARROW " \xe2\x86\x92 " /* " → " between a merged stack's rows */

/* Where a trailing "+0x1a2b" starts in s[0..len), or len when none. */
static size_t dlt_hex_off(const char *s, size_t len)
{
	size_t i = len;
	while (i > 0 && isxdigit((unsigned char)s[i - 1]))
		i--;
	if (i == len || i < 3 || s[i - 1] != 'x' || s[i - 2] != '0' ||
	    s[i - 3] != '+')
		return len;
	return i - 3;
}

/* A Python frame: "path:12 in func". */
static bool dlt_frame_is_python(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (s[i] != ':' || !isdigit((unsigned char)s[i + 1]))
			continue;
		size_t j = i + 1;
		while (j < len && isdigit((unsigned char)s[j]))
			j++;
		if (j + 4 <= len && memcmp(s + j, " in ", 4) == 0)
			return true;
	}
	return false;
}

bool dlt_frame_is_raw(const char *s, size_t len)
{
	if (len == 0 || dlt_frame_is_python(s, len))
		return false;
	const char *bang = memchr(s, '!', len);
	if (bang && bang > s && bang + 1 < s + len) {
		/* The object's file name has no blanks; a C++ function may
		 * ("std::map<int, int>::find"). */
		for (const char *q = s; q < bang; q++)
			if (*q == ' ' || *q == '(')
				return false;
		return dlt_hex_off(s, len) < len || !memchr(s, ' ', len);
	}
	return !memchr(s, ' ', len) && dlt_hex_off(s, len) < len &&
	       dlt_hex_off(s, len) > 0;
}

const char *dlt_frame_people(const char *raw, size_t len, bool offset,
			     char *buf, size_t cap)
{
	static const char nosym[] = " [no symbol covers it]";
	static const char nosym2[] = " (no symbol)";
	if (cap == 0)
		return buf;
	char f[640];
	if (len >= sizeof(f))
		len = sizeof(f) - 1;
	memcpy(f, raw, len);
	f[len] = '\0';
	/* A recursion folded: " (x12)" stays at the end. */
	char rep[32] = "";
	char *x = strrchr(f, '(');
	if (x && x > f && x[-1] == ' ' && x[1] == 'x' &&
	    isdigit((unsigned char)x[2]) && f[len - 1] == ')' &&
	    strspn(x + 2, "0123456789") == (size_t)(f + len - 1 - (x + 2))) {
		snprintf(rep, sizeof(rep), "%s", x - 1);
		len = (size_t)(x - 1 - f);
		f[len] = '\0';
	}
	if (dlt_frame_is_python(f, len)) {
		snprintf(buf, cap, "%s%s", f, rep);
		return buf;
	}
	bool unnamed = false;
	size_t nl = sizeof(nosym) - 1, nl2 = sizeof(nosym2) - 1;
	if (len > nl && strcmp(f + len - nl, nosym) == 0) {
		len -= nl;
		unnamed = true;
	} else if (len > nl2 && strcmp(f + len - nl2, nosym2) == 0) {
		len -= nl2;
		unnamed = true;
	}
	f[len] = '\0';
	const char *bang = strchr(f, '!');
	if (!unnamed && len > 0 && f[len - 1] == ')') {
		/* "func+0x18 (lib.so)": the library is in the last
		 * parentheses. */
		char *open = NULL;
		for (char *q = strstr(f, " ("); q; q = strstr(q + 1, " ("))
			open = q;
		if (open) {
			size_t fl = (size_t)(open - f);
			size_t at = offset ? fl : dlt_hex_off(f, fl);
			snprintf(buf, cap, "%.*s%s%s", (int)at, f, open, rep);
			return buf;
		}
	}
	if (!unnamed && bang && bang > f && dlt_frame_is_raw(f, len)) {
		const char *fn = bang + 1;
		size_t fl = len - (size_t)(fn - f);
		size_t at = offset ? fl : dlt_hex_off(fn, fl);
		snprintf(buf, cap, "%.*s (%.*s)%s", (int)at, fn,
			 (int)(bang - f), f, rep);
		return buf;
	}
	size_t off = dlt_hex_off(f, len);
	if (off < len && off > 0 && !memchr(f, ' ', len)) {
		/* "lib.so+0x1139": no symbol covers the address. */
		snprintf(buf, cap, "%.*s (no symbol)%s",
			 (int)(offset ? len : off), f, rep);
		return buf;
	}
	snprintf(buf, cap, "%s%s%s", f, unnamed ? " (no symbol)" : "", rep);
	return buf;
}

const char *dlt_frame_prose(const char *raw, char *buf, size_t cap)
{
	return dlt_frame_people(raw ? raw : "", raw ? strlen(raw) : 0, false,
				buf, cap);
}

/* ---- the text view ------------------------------------------------------ */

/* Frames a stack shows in the text view; the rest are counted (check
 * --json has them all). */
#define DLT_VT_FRAMES 12
/* Threads a list of waits shows, one line each. */
#define DLT_VT_THREADS 16

struct dlt_vt_thread {
	uint64_t pid, tid;
};

/* What one evidence object's text has shown so far: a stack or a thread
 * is shown once, and said to be "as above" after. */
struct dlt_vt {
	FILE *out;
	const struct dlt_val_view *view;
	uint64_t pid;	/* the pid the current members are about, 0 none */
	uint64_t start; /* its start, ns since the epoch, 0 unknown */
	const char **stacks;
	size_t nstacks, capstacks;
	struct dlt_vt_thread *threads;
	size_t nthreads, capthreads;
	/* The next member goes on the line already begun ("- " of a list's
	 * element), without its indent. */
	bool inline_first;
};

static void dlt_vt_pad(struct dlt_vt *t, int indent)
{
	if (t->inline_first)
		t->inline_first = false;
	else
		fprintf(t->out, "%*s", indent, "");
}

static uint64_t dlt_num(const struct dlt_val *v, bool *ok)
{
	*ok = true;
	if (v && v->type == DLT_V_UINT)
		return v->as.u;
	if (v && v->type == DLT_V_INT && v->as.i >= 0)
		return (uint64_t)v->as.i;
	*ok = false;
	return 0;
}

static bool dlt_is_num(const struct dlt_val *v)
{
	return v->type == DLT_V_INT || v->type == DLT_V_UINT ||
	       v->type == DLT_V_DOUBLE;
}

static double dlt_dbl(const struct dlt_val *v)
{
	return v->type == DLT_V_DOUBLE ? v->as.d
	       : v->type == DLT_V_INT  ? (double)v->as.i
				       : (double)v->as.u;
}

static bool dlt_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && strcmp(s + n - m, suffix) == 0;
}

/* The pid members of o are about sets the start "+12.4 s" counts from. */
static void dlt_vt_enter(struct dlt_vt *t, const struct dlt_val *o)
{
	bool ok;
	uint64_t pid = dlt_num(dlt_val_get(o, "pid"), &ok);
	if (!ok || pid == 0 || pid == t->pid)
		return;
	t->pid = pid;
	if (t->view && t->view->start_of) {
		uint64_t s = t->view->start_of(t->view->arg, pid);
		/* A pid of no process read (a sender, a parent outside the
		 * traces): the finding's start is no start of it. */
		t->start = s;
	}
}

enum dlt_unit {
	DLT_U_NONE,
	DLT_U_WALL,   /* ns since the epoch */
	DLT_U_OFFSET, /* ns after the process's start */
	DLT_U_NS,     /* a duration */
	DLT_U_US,
	DLT_U_MS,
	DLT_U_S, /* seconds, a double */
	DLT_U_KIB,
	DLT_U_BYTES,
};

static const struct {
	const char *suffix;
	enum dlt_unit unit;
} dlt_suffixes[] = {
	{"_unix_ns", DLT_U_WALL},
	{"_realtime_ns", DLT_U_WALL},
	{"_offset_ns", DLT_U_OFFSET},
	{"_ns", DLT_U_NS},
	{"_us", DLT_U_US},
	{"_ms", DLT_U_MS},
	{"_s", DLT_U_S},
	{"_kb", DLT_U_KIB},
	{"_bytes", DLT_U_BYTES},
};

/* Byte counts that do not say so in their key: a file's size, the
 * memory a cuDNN algorithm asks for (a job's "size" is its ranks). */
static bool dlt_bytes_key(const struct dlt_val *parent, const char *key)
{
	if (strcmp(key, "bytes") == 0 || strcmp(key, "memory") == 0)
		return true;
	return strcmp(key, "size") == 0 && parent &&
	       (dlt_val_get(parent, "path") || dlt_val_get(parent, "inode") ||
		dlt_val_get(parent, "build_id") || dlt_val_get(parent, "file"));
}

/* The unit a member's key gives it, and its label without the suffix. */
static enum dlt_unit dlt_unit_of(const struct dlt_val *parent,
				 const struct dlt_val *c, char *label,
				 size_t cap)
{
	const char *key = c->key ? c->key : "";
	snprintf(label, cap, "%s", key);
	if (c->type != DLT_V_NULL && !dlt_is_num(c))
		return DLT_U_NONE;
	for (size_t i = 0; i < sizeof(dlt_suffixes) / sizeof(dlt_suffixes[0]);
	     i++)
		if (dlt_ends(key, dlt_suffixes[i].suffix)) {
			size_t n = strlen(key) - strlen(dlt_suffixes[i].suffix);
			snprintf(label, cap, "%.*s", (int)n, key);
			return dlt_suffixes[i].unit;
		}
	if (dlt_bytes_key(parent, key))
		return DLT_U_BYTES;
	return DLT_U_NONE;
}

/* A double into an integer without the undefined conversion of one out
 * of range (a trace's values are whatever its bytes say). */
static uint64_t dlt_dbl_u64(double d)
{
	if (!(d > 0))
		return 0;
	return d >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)d;
}

static int64_t dlt_dbl_i64(double d)
{
	if (!(d > -9223372036854774784.0))
		return d < 0 ? INT64_MIN : 0; /* NaN: 0 */
	return d >= 9223372036854774784.0 ? INT64_MAX : (int64_t)d;
}

/* A member's value for people into buf; false when it is not one of the
 * values with a unit (then shown as it is). */
static bool dlt_vt_unit_text(const struct dlt_vt *t, enum dlt_unit u,
			     const struct dlt_val *c, char *buf, size_t cap)
{
	if (u == DLT_U_NONE)
		return false;
	if (c->type == DLT_V_NULL) {
		snprintf(buf, cap, "-");
		return true;
	}
	double d = dlt_dbl(c);
	if (d < 0 && u != DLT_U_OFFSET && u != DLT_U_S)
		return false;
	uint64_t n = c->type == DLT_V_DOUBLE ? dlt_dbl_u64(d)
		     : c->type == DLT_V_UINT ? c->as.u
					     : (uint64_t)c->as.i;
	char a[64], b[64];
	switch (u) {
	case DLT_U_WALL:
		dlt_units_wall(n, a, sizeof(a));
		if (t->start && n >= t->start)
			snprintf(buf, cap, "%s (%s after start)", a,
				 dlt_units_after(n, t->start, b, sizeof(b)));
		else if (t->start && n)
			/* A reading taken before the process started (its
			 * parent's, the launcher's). */
			snprintf(buf, cap, "%s (%s before start)", a,
				 dlt_units_dur(t->start - n, b, sizeof(b)));
		else
			snprintf(buf, cap, "%s", a);
		break;
	case DLT_U_OFFSET:
		dlt_units_offset(c->type == DLT_V_UINT	? (int64_t)c->as.u
				 : c->type == DLT_V_INT ? c->as.i
							: dlt_dbl_i64(d),
				 buf, cap);
		break;
	case DLT_U_NS:
		dlt_units_dur(n, buf, cap);
		break;
	case DLT_U_US:
		dlt_units_dur(dlt_dbl_u64(d * 1e3), buf, cap);
		break;
	case DLT_U_MS:
		dlt_units_dur(dlt_dbl_u64(d * 1e6), buf, cap);
		break;
	case DLT_U_S:
		dlt_units_secs(d, buf, cap);
		break;
	case DLT_U_KIB:
		dlt_units_kib(n, buf, cap);
		break;
	case DLT_U_BYTES:
		dlt_units_bytes(n, buf, cap);
		break;
	default:
		return false;
	}
	return true;
}

static void dlt_scalar_text(FILE *out, const struct dlt_val *v)
{
	switch (v->type) {
	case DLT_V_NULL:
		fputs("-", out);
		break;
	case DLT_V_BOOL:
		fputs(v->as.b ? "yes" : "no", out);
		break;
	case DLT_V_INT:
		fprintf(out, "%" PRId64, v->as.i);
		break;
	case DLT_V_UINT:
		fprintf(out, "%" PRIu64, v->as.u);
		break;
	case DLT_V_DOUBLE:
		fprintf(out, "%.6g", v->as.d);
		break;
	case DLT_V_STR:
		if (dlt_frame_is_raw(v->as.s, strlen(v->as.s))) {
			/* "lib.so!func+0x12" reads "func+0x12 (lib.so)". */
			char b[700];
			dlt_fput_text(out,
				      dlt_frame_people(v->as.s, strlen(v->as.s),
						       true, b, sizeof(b)),
				      "");
		} else {
			dlt_fput_text(out, v->as.s, "");
		}
		break;
	default:
		break;
	}
}

/* A member, scalar, with its label: "blocked: 21.2 s". */
static void dlt_vt_member(const struct dlt_vt *t, const struct dlt_val *parent,
			  const struct dlt_val *c, const char *sep)
{
	char label[128], v[160];
	enum dlt_unit u = dlt_unit_of(parent, c, label, sizeof(label));
	fprintf(t->out, "%s%s", label, sep);
	if (dlt_vt_unit_text(t, u, c, v, sizeof(v)))
		fputs(v, t->out);
	else
		dlt_scalar_text(t->out, c);
}

/* ---- stacks ---- */

struct dlt_span {
	const char *p;
	size_t n;
};

/* The frames of a stack string, innermost first: a native stack has them
 * so, " < " between; a merged one outermost first, " → " between.
 * Returns the count; *spans to free. */
static size_t dlt_stack_split(const char *s, struct dlt_span **spans)
{
	const char *sep = strstr(s, DLT_ARROW) ? DLT_ARROW : " < ";
	bool outer_first = sep[1] != '<';
	size_t sl = strlen(sep), n = 1;
	for (const char *q = strstr(s, sep); q; q = strstr(q + sl, sep))
		n++;
	struct dlt_span *sp = dlt_xcalloc(n, sizeof(*sp));
	size_t k = 0;
	for (const char *q = s; q && k < n; k++) {
		const char *e = strstr(q, sep);
		sp[k].p = q;
		sp[k].n = e ? (size_t)(e - q) : strlen(q);
		q = e ? e + sl : NULL;
	}
	if (outer_first)
		for (size_t i = 0; i < k / 2; i++) {
			struct dlt_span x = sp[i];
			sp[i] = sp[k - 1 - i];
			sp[k - 1 - i] = x;
		}
	*spans = sp;
	return k;
}

/* A string that is a stack of native frames. */
static bool dlt_is_stack_str(const struct dlt_val *c)
{
	if (c->type != DLT_V_STR || c->as.s[0] == '\0')
		return false;
	const char *key = c->key ? c->key : "";
	if (strcmp(key, "stack") == 0 || strcmp(key, "merged_stack") == 0)
		return true;
	const char *e = strstr(c->as.s, " < ");
	return e && dlt_frame_is_raw(c->as.s, (size_t)(e - c->as.s));
}

/* A list of frames: a crash's, a Python stack. */
static bool dlt_is_frame_list(const struct dlt_val *c)
{
	const char *key = c->key ? c->key : "";
	return c->type == DLT_V_ARR && c->n > 0 &&
	       (strcmp(key, "frames") == 0 || strcmp(key, "python_stack") == 0);
}

static bool dlt_vt_stack_shown(struct dlt_vt *t, const char *id)
{
	for (size_t i = 0; i < t->nstacks; i++)
		if (t->stacks[i] == id || strcmp(t->stacks[i], id) == 0)
			return true;
	t->stacks = dlt_util_grow(t->stacks, &t->capstacks, t->nstacks,
				  sizeof(*t->stacks));
	t->stacks[t->nstacks++] = id;
	return false;
}

static void dlt_vt_frames(struct dlt_vt *t, const char *label,
			  const struct dlt_span *sp, size_t n, int indent,
			  const char *id)
{
	dlt_vt_pad(t, indent);
	fprintf(t->out, "%s:", label);
	if (id && dlt_vt_stack_shown(t, id)) {
		fputs(" the same as above\n", t->out);
		return;
	}
	fputc('\n', t->out);
	for (size_t i = 0; i < n && i < DLT_VT_FRAMES; i++) {
		char b[700];
		fprintf(t->out, "%*s", indent + 2, "");
		dlt_fput_text(
			t->out,
			dlt_frame_people(sp[i].p, sp[i].n, true, b, sizeof(b)),
			"");
		fputc('\n', t->out);
	}
	if (n > DLT_VT_FRAMES)
		fprintf(t->out, "%*s… %zu more (check --json has them)\n",
			indent + 2, "", n - DLT_VT_FRAMES);
}

/* A stack string or a list of frames as a block, a frame a line. */
static void dlt_vt_stack(struct dlt_vt *t, const char *label,
			 const struct dlt_val *c, int indent)
{
	if (c->type == DLT_V_STR) {
		struct dlt_span *sp;
		size_t n = dlt_stack_split(c->as.s, &sp);
		dlt_vt_frames(t, label, sp, n, indent, c->as.s);
		free(sp);
		return;
	}
	struct dlt_span *sp = dlt_xcalloc(c->n ? c->n : 1, sizeof(*sp));
	size_t n = 0;
	for (const struct dlt_val *e = c->first; e; e = e->next)
		if (e->type == DLT_V_STR) {
			sp[n].p = e->as.s;
			sp[n++].n = strlen(e->as.s);
		}
	dlt_vt_frames(t, label, sp, n, indent, n ? c->first->as.s : NULL);
	free(sp);
}

/* The stack (a string or a list) holds this frame. */
static bool dlt_stack_has(const struct dlt_val *st, const char *frame)
{
	if (st == NULL || frame == NULL)
		return false;
	if (st->type == DLT_V_STR)
		return strstr(st->as.s, frame) != NULL;
	for (const struct dlt_val *e = st ? st->first : NULL; e; e = e->next)
		if (e->type == DLT_V_STR && strstr(e->as.s, frame))
			return true;
	return false;
}

/* ---- threads ---- */

/* An object about one thread's wait: a stall, or a rank's state. */
static bool dlt_is_thread(const struct dlt_val *o)
{
	return o && o->type == DLT_V_OBJ && dlt_val_get(o, "tid") &&
	       !dlt_val_get(o, "to_rank") && !dlt_val_get(o, "to_pid") &&
	       (dlt_val_get(o, "blocked_ns") || dlt_val_get(o, "syscall") ||
		dlt_val_get(o, "state"));
}

/* Members a thread's line says, or that only tools read: its text leaves
 * them out. */
static bool dlt_thread_said(const char *key)
{
	static const char *const said[] = {
		"rank",		"pid",		 "tid",
		"syscall",	"blocked_ns",	 "wait",
		"in",		"where",	 "python_at",
		"ended",	"syscall_nr",	 "wchan",
		"python_depth", "stack_unwound", "blocked_since_unix_ns"};
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++)
		if (strcmp(key, said[i]) == 0)
			return true;
	return false;
}

static const char *dlt_str_of(const struct dlt_val *o, const char *key)
{
	const struct dlt_val *v = dlt_val_get(o, key);
	return v && v->type == DLT_V_STR && v->as.s[0] ? v->as.s : NULL;
}

/* What a wait waits on, from its detail: the sockets ("tcp
 * 127.0.0.1:29500, tcp [::1]:4242"); "" for a futex, a sleep or a child,
 * which the system call says as much as the detail. */
static void dlt_wait_target(const char *d, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (d == NULL || strstr(d, "fd ") == NULL)
		return;
	/* "poll nfds=2 fd 18 fd 16 tcp [::ffff:127.0.0.1]:35587": the
	 * descriptors that say where they lead. */
	size_t used = 0, named = 0, more = 0;
	for (const char *q = strstr(d, "fd "); q;) {
		const char *p = q + 3;
		while (isdigit((unsigned char)*p))
			p++;
		const char *next = strstr(p, " fd ");
		size_t n = next ? (size_t)(next - p) : strlen(p);
		while (n && *p == ' ') {
			p++;
			n--;
		}
		if (n && named < 3 && used < cap)
			used += (size_t)snprintf(buf + used, cap - used,
						 "%s%.*s", named ? ", " : "",
						 (int)n, p);
		else if (n)
			more++;
		named += n > 0;
		q = next ? next + 1 : NULL;
	}
	if (more && used < cap)
		snprintf(buf + used, cap - used, " and %zu more", more);
}

/* The first frame of a native stack that is not the C library's: the
 * code that waits ("gloo::transport::tcp::Loop::run (libgloo.so)"), as
 * prose; "" when it is the interpreter's (its Python line says more). */
static void dlt_own_frame(const char *stack, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (stack == NULL)
		return;
	struct dlt_span *sp;
	size_t n = dlt_stack_split(stack, &sp);
	for (size_t i = 0; i < n; i++) {
		const char *f = sp[i].p;
		/* The C library's, the loader's and dltrace's own wrappers
		 * (its dlopen) are how, not where. */
		if (strncmp(f, "libc.so", 7) == 0 ||
		    strncmp(f, "libpthread", 10) == 0 ||
		    strncmp(f, "ld-linux", 8) == 0 ||
		    strncmp(f, "libdltrace.so", 13) == 0)
			continue;
		if (strncmp(f, "python", 6) == 0 ||
		    strncmp(f, "libpython", 9) == 0)
			break;
		dlt_frame_people(f, sp[i].n, false, buf, cap);
		break;
	}
	free(sp);
}

/* The file name of a Python frame: "train.py:12 in step". */
static const char *dlt_py_base(const char *frame)
{
	const char *colon = strstr(frame, " in ");
	const char *base = frame;
	for (const char *q = frame; *q && (colon == NULL || q < colon); q++)
		if (*q == '/')
			base = q + 1;
	return base;
}

/* A thread's wait on one line: "rank 0 pid 22158 thread 22178: epoll_wait
 * for 21.6 s on tcp 127.0.0.1:37387 in gloo::transport::tcp::Loop::run
 * (libgloo.so.0.5.0)". */
static void dlt_vt_thread_line(struct dlt_vt *t, const struct dlt_val *o)
{
	FILE *out = t->out;
	bool ok;
	const struct dlt_val *rank = dlt_val_get(o, "rank");
	if (rank && rank->type == DLT_V_INT && rank->as.i >= 0)
		fprintf(out, "rank %" PRId64 " ", rank->as.i);
	uint64_t pid = dlt_num(dlt_val_get(o, "pid"), &ok);
	if (ok)
		fprintf(out, "pid %" PRIu64 " ", pid);
	uint64_t tid = dlt_num(dlt_val_get(o, "tid"), &ok);
	fprintf(out, "thread %" PRIu64 "%s: ", tid,
		ok && tid == (pid ? pid : t->pid) ? " (main)" : "");
	const char *sc = dlt_str_of(o, "syscall");
	uint64_t ns = dlt_num(dlt_val_get(o, "blocked_ns"), &ok);
	char d[32];
	if (sc) {
		dlt_fput_text(out, sc, "");
		if (ok)
			fprintf(out, " for %s",
				dlt_units_dur(ns, d, sizeof(d)));
	} else {
		dlt_fput_text(out, dlt_str_of(o, "state"), "not seen waiting");
	}
	char target[400];
	dlt_wait_target(dlt_str_of(o, "wait"), target, sizeof(target));
	if (target[0]) {
		fputs(" on ", out);
		dlt_fput_text(out, target, "");
	}
	/* Where: its own frame (a rank's state names it), else the stack's
	 * first that is not the C library's; then its Python line. */
	char fr[400] = "";
	const char *where = dlt_str_of(o, "where");
	if (where)
		dlt_frame_prose(where, fr, sizeof(fr));
	else
		dlt_own_frame(dlt_str_of(o, "stack"), fr, sizeof(fr));
	if (fr[0]) {
		fputs(" in ", out);
		dlt_fput_text(out, fr, "");
	}
	const char *py = dlt_str_of(o, "python_at");
	const struct dlt_val *ps = dlt_val_get(o, "python_stack");
	if (py == NULL && ps && ps->first && ps->first->type == DLT_V_STR)
		py = dlt_py_base(ps->first->as.s);
	if (py) {
		fputs(" at ", out);
		dlt_fput_text(out, py, "");
	}
	const struct dlt_val *ended = dlt_val_get(o, "ended");
	if (ended && ended->type == DLT_V_BOOL && ended->as.b)
		fputs(" (it ended)", out);
	fputc('\n', out);
}

/* 0 when the thread was not shown yet (it is noted shown), else 1 + the
 * index of its note: the notes before a list are the threads shown above
 * it. */
static size_t dlt_vt_thread_seen(struct dlt_vt *t, const struct dlt_val *o)
{
	bool ok;
	uint64_t pid = dlt_num(dlt_val_get(o, "pid"), &ok);
	if (!ok)
		pid = t->pid;
	uint64_t tid = dlt_num(dlt_val_get(o, "tid"), &ok);
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].pid == pid && t->threads[i].tid == tid)
			return i + 1;
	t->threads = dlt_util_grow(t->threads, &t->capthreads, t->nthreads,
				   sizeof(*t->threads));
	t->threads[t->nthreads].pid = pid;
	t->threads[t->nthreads++].tid = tid;
	return 0;
}

/* ---- objects ---- */

static bool dlt_all_scalars(const struct dlt_val *a)
{
	for (const struct dlt_val *c = a->first; c; c = c->next)
		if (c->type == DLT_V_ARR || c->type == DLT_V_OBJ)
			return false;
	return true;
}

/* Members an object may have and still be one line ("sender: pid=1
 * uid=0 command=sh"); a library's row of a dozen reads better a member a
 * line. */
#define DLT_VT_FLAT_MAX 6

static bool dlt_is_flat(const struct dlt_val *o)
{
	if (dlt_is_thread(o) || o->n > DLT_VT_FLAT_MAX)
		return false;
	for (const struct dlt_val *c = o->first; c; c = c->next)
		if (c->type == DLT_V_OBJ ||
		    (c->type == DLT_V_ARR && !dlt_all_scalars(c)) ||
		    dlt_is_stack_str(c) || dlt_is_frame_list(c))
			return false;
	return true;
}

/* An object whose members are all scalars fits on one line. */
static void dlt_flat_object(struct dlt_vt *t, const struct dlt_val *o)
{
	bool first = true;
	uint64_t pid = t->pid, start = t->start;
	dlt_vt_enter(t, o);
	for (const struct dlt_val *c = o->first; c; c = c->next) {
		if (!first)
			fputs("  ", t->out);
		first = false;
		if (c->type == DLT_V_ARR && dlt_all_scalars(c)) {
			fprintf(t->out, "%s=[", c->key ? c->key : "");
			for (const struct dlt_val *e = c->first; e;
			     e = e->next) {
				dlt_scalar_text(t->out, e);
				if (e->next)
					fputc(',', t->out);
			}
			fputc(']', t->out);
			continue;
		}
		dlt_vt_member(t, o, c, "=");
	}
	t->pid = pid;
	t->start = start;
}

/* A link of a chain of waits: "rank 0 (pid 22158) thread 22178 in
 * epoll_wait → rank 1 (pid 22159) on tcp 127.0.0.1:37387". */
static bool dlt_vt_link(struct dlt_vt *t, const struct dlt_val *o)
{
	const struct dlt_val *fr = dlt_val_get(o, "from_rank"),
			     *to = dlt_val_get(o, "to_rank");
	bool ok1, ok2, ok3;
	uint64_t fp = dlt_num(dlt_val_get(o, "from_pid"), &ok1);
	uint64_t tp = dlt_num(dlt_val_get(o, "to_pid"), &ok2);
	uint64_t tid = dlt_num(dlt_val_get(o, "tid"), &ok3);
	if (!fr || !to || !ok1 || !ok2 || fr->type != DLT_V_INT ||
	    to->type != DLT_V_INT) {
		dlt_flat_object(t, o);
		fputc('\n', t->out);
		return false;
	}
	fprintf(t->out, "rank %" PRId64 " (pid %" PRIu64 ")", fr->as.i, fp);
	if (ok3)
		fprintf(t->out, " thread %" PRIu64, tid);
	const char *sc = dlt_str_of(o, "syscall");
	if (sc) {
		fputs(" in ", t->out);
		dlt_fput_text(t->out, sc, "");
	}
	fprintf(t->out, " \xe2\x86\x92 rank %" PRId64 " (pid %" PRIu64 ")",
		to->as.i, tp);
	const char *addr = dlt_str_of(o, "address");
	if (addr) {
		fputs(" on ", t->out);
		dlt_fput_text(t->out, addr, "");
	}
	fputc('\n', t->out);
	return true;
}

static void dlt_vt_object(struct dlt_vt *t, const struct dlt_val *o, int indent,
			  bool thread);

/* An object as a member or an element: a thread's line and what else it
 * says below, a link, one line of scalars, or members a level deeper.
 * The line continues the one the caller began ("key: ", "- "). */
static void dlt_vt_nested(struct dlt_vt *t, const struct dlt_val *o, int indent,
			  const char *lead)
{
	uint64_t pid = t->pid, start = t->start;
	if (dlt_is_thread(o)) {
		dlt_vt_enter(t, o);
		dlt_vt_thread_seen(t, o);
		fputs(lead, t->out);
		dlt_vt_thread_line(t, o);
		dlt_vt_object(t, o, indent + 2, true);
	} else if (dlt_val_get(o, "to_rank") && dlt_val_get(o, "from_rank")) {
		fputs(lead, t->out);
		dlt_vt_link(t, o);
	} else if (dlt_is_flat(o)) {
		fputs(lead, t->out);
		dlt_flat_object(t, o);
		fputc('\n', t->out);
	} else {
		/* A list's element begins on its "- " line; a member's
		 * members go below it. */
		if (lead[0])
			fputc('\n', t->out);
		else
			t->inline_first = true;
		dlt_vt_enter(t, o);
		dlt_vt_object(t, o, indent + 2, false);
		if (t->inline_first)
			fputc('\n', t->out);
		t->inline_first = false;
	}
	t->pid = pid;
	t->start = start;
}

/* A list of threads' waits (JOB_HANG's stalls): a line each, each thread
 * once; the threads shown above (the straggler, the waiting ranks) are
 * not repeated. */
static void dlt_vt_waits(struct dlt_vt *t, const struct dlt_val *a, int indent)
{
	size_t shown = 0, again = 0, over = 0, above = t->nthreads;
	bool opened = false;
	for (const struct dlt_val *e = a->first; e; e = e->next) {
		if (!dlt_is_thread(e)) {
			if (!opened)
				fputc('\n', t->out);
			opened = true;
			fprintf(t->out, "%*s- ", indent + 2, "");
			dlt_vt_nested(t, e, indent + 2, "");
			continue;
		}
		uint64_t pid = t->pid, start = t->start;
		dlt_vt_enter(t, e);
		size_t note = dlt_vt_thread_seen(t, e);
		bool seen = note != 0;
		/* A thread shown above goes without a word; one this list
		 * has again (a wait that ended, then another) is counted. */
		if (note > above)
			again++;
		else if (shown >= DLT_VT_THREADS)
			over++;
		if (!seen && shown < DLT_VT_THREADS) {
			if (!opened)
				fputc('\n', t->out);
			opened = true;
			shown++;
			fprintf(t->out, "%*s- ", indent + 2, "");
			dlt_vt_thread_line(t, e);
		}
		t->pid = pid;
		t->start = start;
	}
	if (!opened)
		fputs(" the threads above\n", t->out);
	if (over)
		fprintf(t->out,
			"%*s… %zu more threads (check --json has them)\n",
			indent + 2, "", over);
	if (again && opened)
		fprintf(t->out,
			"%*s(and %zu earlier wait%s of these threads: check "
			"--json has them)\n",
			indent + 2, "", again, again == 1 ? "" : "s");
}

static void dlt_vt_array(struct dlt_vt *t, const struct dlt_val *c, int indent)
{
	if (c->n == 0) {
		fputs(" (none)\n", t->out);
		return;
	}
	if (dlt_all_scalars(c) && c->n <= 4) {
		/* Short lists on one line, long ones one per line. */
		fputc(' ', t->out);
		for (const struct dlt_val *e = c->first; e; e = e->next) {
			dlt_scalar_text(t->out, e);
			if (e->next)
				fputs(", ", t->out);
		}
		fputc('\n', t->out);
		return;
	}
	fputc('\n', t->out);
	/* Long lists (every path the loader tried) show their ends; the
	 * JSON output has every element. */
	size_t idx = 0;
	for (const struct dlt_val *e = c->first; e; e = e->next, idx++) {
		if (c->n > 12 && idx == 4)
			fprintf(t->out, "%*s... %zu more ...\n", indent + 2, "",
				c->n - 6);
		if (c->n > 12 && idx >= 4 && idx < c->n - 2)
			continue;
		fprintf(t->out, "%*s- ", indent + 2, "");
		if (e->type == DLT_V_OBJ) {
			dlt_vt_nested(t, e, indent + 2, "");
		} else {
			dlt_scalar_text(t->out, e);
			fputc('\n', t->out);
		}
	}
}

static void dlt_vt_object(struct dlt_vt *t, const struct dlt_val *o, int indent,
			  bool thread)
{
	if (o == NULL || o->type != DLT_V_OBJ)
		return;
	/* A stack is shown once: the merged one (Python frames in place of
	 * the interpreter's) over the native one, and a Python stack only
	 * when neither holds its frames. */
	const struct dlt_val *merged = dlt_val_get(o, "merged_stack");
	if (merged && !dlt_is_stack_str(merged))
		merged = NULL;
	const struct dlt_val *py = dlt_val_get(o, "python_stack");
	const char *py0 = py && py->type == DLT_V_ARR && py->first &&
					  py->first->type == DLT_V_STR
				  ? py->first->as.s
				  : NULL;
	bool py_said = py0 && (dlt_stack_has(merged, py0) ||
			       dlt_stack_has(dlt_val_get(o, "frames"), py0));
	for (const struct dlt_val *c = o->first; c; c = c->next) {
		const char *key = c->key ? c->key : "";
		if (thread && dlt_thread_said(key))
			continue;
		if ((merged && strcmp(key, "stack") == 0) ||
		    (c == py && py_said))
			continue;
		if (dlt_is_stack_str(c)) {
			dlt_vt_stack(t, "stack", c, indent);
			continue;
		}
		if (dlt_is_frame_list(c) && dlt_all_scalars(c)) {
			dlt_vt_stack(t,
				     strcmp(key, "frames") == 0
					     ? "frames"
					     : "python_stack",
				     c, indent);
			continue;
		}
		if (c->type == DLT_V_OBJ) {
			dlt_vt_pad(t, indent);
			fprintf(t->out, "%s:", key);
			dlt_vt_nested(t, c, indent, " ");
			continue;
		}
		if (c->type == DLT_V_ARR) {
			dlt_vt_pad(t, indent);
			fprintf(t->out, "%s:", key);
			if (strcmp(key, "stalls") == 0)
				dlt_vt_waits(t, c, indent);
			else
				dlt_vt_array(t, c, indent);
			continue;
		}
		dlt_vt_pad(t, indent);
		dlt_vt_member(t, o, c, ": ");
		fputc('\n', t->out);
	}
}

void dlt_val_text_view(FILE *out, const struct dlt_val *o, int indent,
		       const struct dlt_val_view *view)
{
	if (o == NULL || o->type != DLT_V_OBJ)
		return;
	struct dlt_vt t;
	memset(&t, 0, sizeof(t));
	t.out = out;
	t.view = view;
	t.pid = view ? view->pid : 0;
	t.start = view ? view->start_unix_ns : 0;
	/* The threads a member names (the straggler, the waiting ranks)
	 * come before the lists that would repeat them. */
	dlt_vt_object(&t, o, indent, false);
	free(t.stacks);
	free(t.threads);
}

void dlt_val_text(FILE *out, const struct dlt_val *o, int indent)
{
	dlt_val_text_view(out, o, indent, NULL);
}
