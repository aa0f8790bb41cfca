#define _GNU_SOURCE
#include "model.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

/* Sanity bounds against corrupt records: a real command line has far fewer
 * arguments than this (/proc/self/cmdline is read into 64 KiB). */
#define DLT_MAX_ARGC (1u << 20)

/* ---- memory --------------------------------------------------------- */

static void dlt_oom(void)
{
	fputs("dltrace-analyze: out of memory\n", stderr);
	exit(2);
}

void *dlt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		dlt_oom();
	return p;
}

void *dlt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (p == NULL)
		dlt_oom();
	return p;
}

void *dlt_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		dlt_oom();
	size_t bytes = n * size;
	void *q = realloc(p, bytes ? bytes : 1);
	if (q == NULL)
		dlt_oom();
	return q;
}

char *dlt_xstrdup(const char *s)
{
	char *p = strdup(s);
	if (p == NULL)
		dlt_oom();
	return p;
}

/* Makes room for one more element of an array that grows by doubling. */
static void *dlt_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 16;
	return dlt_xrealloc(arr, *cap, size);
}

/* The per-process arena: the model's strings and small arrays live until
 * the process is freed, so one list of blocks replaces thousands of frees. */
struct dlt_arena_blk {
	struct dlt_arena_blk *next;
	size_t used;
	size_t cap;
	uint64_t data[]; /* uint64_t: keeps every allocation 8-aligned */
};

#define DLT_ARENA_BLOCK (64u * 1024u)

void *dlt_arena_alloc(struct dlt_arena_blk **head, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	struct dlt_arena_blk *b = *head;
	if (b == NULL || b->cap - b->used < n) {
		size_t cap = n > DLT_ARENA_BLOCK / 4 ? n : DLT_ARENA_BLOCK;
		b = dlt_xmalloc(sizeof(*b) + cap);
		b->used = 0;
		b->cap = cap;
		if (*head != NULL && cap != DLT_ARENA_BLOCK) {
			/* A big one-off block goes behind the current one,
			 * whose free space stays in use. */
			b->next = (*head)->next;
			(*head)->next = b;
		} else {
			b->next = *head;
			*head = b;
		}
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

const char *dlt_arena_strdup(struct dlt_arena_blk **head, const char *s)
{
	if (s == NULL)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = dlt_arena_alloc(head, n);
	memcpy(p, s, n);
	return p;
}

void dlt_arena_free(struct dlt_arena_blk *b)
{
	while (b) {
		struct dlt_arena_blk *next = b->next;
		free(b);
		b = next;
	}
}

/* ---- names ---------------------------------------------------------- */

static const char *const dlt_via_names[DLT_VIA_COUNT] = {
	[DLT_VIA_UNKNOWN] = "UNKNOWN",
	[DLT_VIA_RPATH] = "RPATH",
	[DLT_VIA_LD_LIBRARY_PATH] = "LD_LIBRARY_PATH",
	[DLT_VIA_RUNPATH] = "RUNPATH",
	[DLT_VIA_LD_SO_CACHE] = "LD_SO_CACHE",
	[DLT_VIA_DEFAULT] = "DEFAULT",
	[DLT_VIA_ABSOLUTE] = "ABSOLUTE",
	[DLT_VIA_PRELOAD] = "PRELOAD",
	[DLT_VIA_MAIN] = "MAIN",
};

const char *dlt_found_via_name(uint32_t via)
{
	if (via < DLT_VIA_COUNT && dlt_via_names[via])
		return dlt_via_names[via];
	return "UNKNOWN";
}

const char *dlt_writer_name(uint32_t writer)
{
	switch (writer) {
	case DLT_WRITER_SHIM:
		return "shim";
	case DLT_WRITER_AUDIT:
		return "audit";
	case DLT_WRITER_LAUNCHER:
		return "launcher";
	}
	return NULL;
}

const char *dlt_parent_kind_name(uint32_t kind)
{
	switch (kind) {
	case DLT_PARENT_NONE:
		return "none";
	case DLT_PARENT_FORK:
		return "fork";
	case DLT_PARENT_EXEC:
		return "exec";
	}
	return "unknown";
}

const char *dlt_note_level_name(uint32_t level)
{
	switch (level) {
	case DLT_NOTE_INFO:
		return "info";
	case DLT_NOTE_WARN:
		return "warn";
	case DLT_NOTE_ERROR:
		return "error";
	}
	return "note";
}

/* Linux numbering, which is what the traced machine used; the analyzer may
 * run elsewhere, so the host's <signal.h> is not consulted. */
static const char *const dlt_sig_names[] = {
	NULL,	   "SIGHUP",  "SIGINT",	   "SIGQUIT", "SIGILL",	   "SIGTRAP",
	"SIGABRT", "SIGBUS",  "SIGFPE",	   "SIGKILL", "SIGUSR1",   "SIGSEGV",
	"SIGUSR2", "SIGPIPE", "SIGALRM",   "SIGTERM", "SIGSTKFLT", "SIGCHLD",
	"SIGCONT", "SIGSTOP", "SIGTSTP",   "SIGTTIN", "SIGTTOU",   "SIGURG",
	"SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",  "SIGIO",
	"SIGPWR",  "SIGSYS",
};

const char *dlt_signal_name(int sig)
{
	if (sig > 0 &&
	    (size_t)sig < sizeof(dlt_sig_names) / sizeof(dlt_sig_names[0]))
		return dlt_sig_names[sig];
	return NULL;
}

/* RTLD_* values of glibc on Linux: the trace holds the bits as the traced
 * program passed them, whatever machine reads it. */
#define DLT_RTLD_LAZY 0x1
#define DLT_RTLD_NOW 0x2
#define DLT_RTLD_NOLOAD 0x4
#define DLT_RTLD_DEEPBIND 0x8
#define DLT_RTLD_GLOBAL 0x100
#define DLT_RTLD_NODELETE 0x1000

static size_t dlt_add_name(char names[][DLT_NAME_LEN], size_t n, size_t max,
			   const char *name)
{
	if (n < max)
		snprintf(names[n], DLT_NAME_LEN, "%s", name);
	return n + 1;
}

static size_t dlt_add_unknown_bits(char names[][DLT_NAME_LEN], size_t n,
				   size_t max, uint32_t bits)
{
	for (uint32_t b = 1; b != 0; b <<= 1) {
		if ((bits & b) == 0)
			continue;
		char hex[DLT_NAME_LEN];
		snprintf(hex, sizeof(hex), "0x%" PRIx32, b);
		n = dlt_add_name(names, n, max, hex);
	}
	return n;
}

size_t dlt_rtld_mode_names(int32_t mode, char names[][DLT_NAME_LEN], size_t max)
{
	uint32_t m = (uint32_t)mode;
	size_t n = 0;
	if (m & DLT_RTLD_LAZY)
		n = dlt_add_name(names, n, max, "RTLD_LAZY");
	if (m & DLT_RTLD_NOW)
		n = dlt_add_name(names, n, max, "RTLD_NOW");
	/* RTLD_LOCAL is 0: its absence of RTLD_GLOBAL is what matters. */
	n = dlt_add_name(names, n, max,
			 m & DLT_RTLD_GLOBAL ? "RTLD_GLOBAL" : "RTLD_LOCAL");
	if (m & DLT_RTLD_NOLOAD)
		n = dlt_add_name(names, n, max, "RTLD_NOLOAD");
	if (m & DLT_RTLD_DEEPBIND)
		n = dlt_add_name(names, n, max, "RTLD_DEEPBIND");
	if (m & DLT_RTLD_NODELETE)
		n = dlt_add_name(names, n, max, "RTLD_NODELETE");
	uint32_t known = DLT_RTLD_LAZY | DLT_RTLD_NOW | DLT_RTLD_NOLOAD |
			 DLT_RTLD_DEEPBIND | DLT_RTLD_GLOBAL |
			 DLT_RTLD_NODELETE;
	n = dlt_add_unknown_bits(names, n, max, m & ~known);
	return n < max ? n : max;
}

size_t dlt_lib_flag_names(uint32_t flags, char names[][DLT_NAME_LEN],
			  size_t max)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} tab[] = {
		{DLT_LIB_MAIN, "main"},
		{DLT_LIB_PRELOAD, "preload"},
		{DLT_LIB_DEEPBIND, "deepbind"},
		{DLT_LIB_LOCAL, "local"},
		{DLT_LIB_DLOPEN, "dlopen"},
		{DLT_LIB_TRIED_CUT, "tried_cut"},
		{DLT_LIB_VDSO, "vdso"},
	};
	size_t n = 0;
	uint32_t known = 0;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		known |= tab[i].bit;
		if (flags & tab[i].bit)
			n = dlt_add_name(names, n, max, tab[i].name);
	}
	n = dlt_add_unknown_bits(names, n, max, flags & ~known);
	return n < max ? n : max;
}

void dlt_format_utc(uint64_t realtime_ns, char *buf, size_t len)
{
	time_t sec = (time_t)(realtime_ns / 1000000000u);
	unsigned usec = (unsigned)(realtime_ns % 1000000000u / 1000u);
	struct tm tm;
	char day[64];
	if (gmtime_r(&sec, &tm) == NULL ||
	    strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		snprintf(buf, len, "@%" PRIu64 "ns", realtime_ns);
		return;
	}
	snprintf(buf, len, "%s.%06uZ", day, usec);
}

const char *dlt_basename(const char *path)
{
	if (path == NULL)
		return NULL;
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* ---- text output ---------------------------------------------------- */

void dlt_fput_text(FILE *out, const char *s, const char *dflt)
{
	if (s == NULL) {
		fputs(dflt, out);
		return;
	}
	/* Trace strings are untrusted: no terminal escape sequences. */
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			fprintf(out, "\\x%02x", *c);
		else
			fputc(*c, out);
	}
}

void dlt_fput_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*c < 0x20 || *c == 0x7f)
				fprintf(out, "\\x%02x", *c);
			else
				fputc(*c, out);
		}
	}
	fputc('"', out);
}

static bool dlt_shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("_@%+=:,./-", c) != NULL;
}

void dlt_fput_shell_word(FILE *out, const char *s)
{
	bool plain = *s != '\0', control = false;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (!dlt_shell_safe(*c))
			plain = false;
		if (*c < 0x20 || *c == 0x7f)
			control = true;
	}
	if (plain) {
		fputs(s, out);
		return;
	}
	if (control) {
		/* $'...' is the only quoting that shows control characters
		 * without writing them raw to a terminal (bash, zsh, ksh). */
		fputs("$'", out);
		for (const unsigned char *c = (const unsigned char *)s; *c;
		     c++) {
			if (*c == '\'' || *c == '\\')
				fprintf(out, "\\%c", *c);
			else if (*c < 0x20 || *c == 0x7f)
				fprintf(out, "\\x%02x", *c);
			else
				fputc(*c, out);
		}
		fputc('\'', out);
		return;
	}
	fputc('\'', out);
	for (const char *c = s; *c; c++) {
		if (*c == '\'')
			fputs("'\\''", out);
		else
			fputc(*c, out);
	}
	fputc('\'', out);
}

/* ---- how a process ended -------------------------------------------- */

int dlt_end_exit_code(const struct dlt_end *e)
{
	switch (e->how) {
	case DLT_END_NORMAL:
	case DLT_END_UNDERSCORE:
		/* The parent sees the low byte of what exit() was given. */
		return e->status == -1 ? -1 : e->status & 0xff;
	case DLT_END_REAPED:
		return WIFEXITED(e->status) ? WEXITSTATUS(e->status) : -1;
	default:
		return -1;
	}
}

int dlt_end_signal(const struct dlt_end *e)
{
	if (e->how == DLT_END_REAPED && WIFSIGNALED(e->status))
		return WTERMSIG(e->status);
	return 0;
}

bool dlt_end_is_failure(const struct dlt_end *e)
{
	switch (e->how) {
	case DLT_END_NONE:
		return true;
	case DLT_END_EXEC:
		return false;
	case DLT_END_NORMAL:
	case DLT_END_UNDERSCORE:
		return e->status != -1 && (e->status & 0xff) != 0;
	case DLT_END_REAPED:
		return dlt_end_exit_code(e) != 0;
	}
	return true;
}

const char *dlt_end_describe(const struct dlt_end *e, char *buf, size_t len)
{
	int32_t st = e->status;
	switch (e->how) {
	case DLT_END_NONE:
		snprintf(buf, len,
			 "no end recorded: killed (e.g. SIGKILL), crashed, or "
			 "still running");
		break;
	case DLT_END_NORMAL:
	case DLT_END_UNDERSCORE: {
		const char *via =
			e->how == DLT_END_UNDERSCORE ? " (_exit)" : "";
		if (e->how == DLT_END_NORMAL && st == -1)
			snprintf(buf, len, "exited (status not seen)");
		else if (st < 0 || st > 255)
			snprintf(buf, len,
				 "exited with status %" PRId32
				 "%s (the parent sees %d)",
				 st, via, st & 0xff);
		else
			snprintf(buf, len, "exited with status %" PRId32 "%s",
				 st, via);
		break;
	}
	case DLT_END_EXEC:
		if (e->exec_path) {
			/* Room for the path is bounded by buf; a cut path is
			 * still recognisable. */
			snprintf(buf, len, "image replaced by exec of %s",
				 e->exec_path);
		} else {
			snprintf(buf, len,
				 "image replaced by exec (program not "
				 "recorded)");
		}
		break;
	case DLT_END_REAPED:
		if (WIFEXITED(st)) {
			snprintf(buf, len, "exited with status %d",
				 WEXITSTATUS(st));
		} else if (WIFSIGNALED(st)) {
			int sig = WTERMSIG(st);
			const char *name = dlt_signal_name(sig);
			snprintf(buf, len, "killed by signal %d%s%s%s%s", sig,
				 name ? " (" : "", name ? name : "",
				 name ? ")" : "",
				 WCOREDUMP(st) ? ", core dumped" : "");
		} else {
			snprintf(buf, len, "ended with wait status 0x%" PRIx32,
				 (uint32_t)st);
		}
		break;
	default:
		snprintf(buf, len, "ended in an unknown way (%d)", (int)e->how);
	}
	return buf;
}

/* ---- loading -------------------------------------------------------- */

#define DLT_COUNTED_TYPES 64 /* every type format.h defines is below */

/* A record kept for the second pass, which needs timestamp order. */
struct dlt_ev {
	const struct dlt_rec_hdr *rec; /* a copy in dlt_load.recs */
	size_t at;		       /* where, until the copies stop moving */
	uint64_t offset;
	uint32_t tid;
	uint32_t seq; /* file order, to keep the sort stable */
};

/* What one thread is doing, for the dlopen correlation. */
struct dlt_thread_state {
	uint32_t tid;
	bool in_dlopen;
	int32_t mode;
	const char *name;
	size_t first_row; /* first library row since its last DLOPEN */
};

struct dlt_load {
	struct dlt_trace *t;
	const struct dlt_load_hook *hook;
	struct dlt_process *p;
	struct dlt_ev *ev;
	size_t nev, evcap;
	/* The reader hands out records only for the time of a callback; the
	 * few kept for the second pass are copied here, back to back. */
	uint64_t *recs;
	size_t recs_len, recs_cap; /* in uint64_t: records are 8-aligned */
	/* Records per type: the types this analyzer knows by index, any
	 * others (newer writers, damage) in a short list. */
	uint64_t counts[DLT_COUNTED_TYPES];
	struct dlt_type_count *other_types;
	size_t nother, othercap;
	/* Trace string pointer to arena copy, open addressing. */
	const char **skeys;
	const char **svals;
	size_t scap, sn;
	struct dlt_thread_state *threads;
	size_t nthreads, threadcap;
	size_t libcap, envcap, notecap, execcap, forkcap, probcap, argvcap;
	/* How the image ended so far, in timestamp order. */
	const struct dlt_rec_exit *reaped;
	bool exec_pending;
	const char *exec_path;
	uint64_t exec_ts;
	const struct dlt_rec_exit *exit_rec;
	uint64_t exit_ts;
};

static void dlt_model_problem(struct dlt_load *l, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	struct dlt_process *p = l->p;
	for (size_t i = 0; i < p->nproblems; i++)
		if (strcmp(p->problems[i], buf) == 0)
			return;
	p->problems = dlt_grow(p->problems, &l->probcap, p->nproblems,
			       sizeof(*p->problems));
	p->problems[p->nproblems++] = dlt_arena_strdup(&p->arena, buf);
}

static size_t dlt_ptr_hash(const char *s, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & mask;
}

/* A string of the trace, copied once into the process's arena however many
 * records refer to it. */
static const char *dlt_load_str(struct dlt_load *l, uint32_t id)
{
	const char *s = dlt_trace_str(l->t, id);
	if (s == NULL)
		return NULL;
	if (l->sn * 2 >= l->scap) {
		size_t ncap = l->scap ? l->scap * 2 : 1024;
		const char **nk = dlt_xcalloc(ncap, sizeof(*nk));
		const char **nv = dlt_xcalloc(ncap, sizeof(*nv));
		for (size_t i = 0; i < l->scap; i++) {
			if (l->skeys[i] == NULL)
				continue;
			size_t j = dlt_ptr_hash(l->skeys[i], ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = l->skeys[i];
			nv[j] = l->svals[i];
		}
		free(l->skeys);
		free(l->svals);
		l->skeys = nk;
		l->svals = nv;
		l->scap = ncap;
	}
	size_t j = dlt_ptr_hash(s, l->scap - 1);
	while (l->skeys[j]) {
		if (l->skeys[j] == s)
			return l->svals[j];
		j = (j + 1) & (l->scap - 1);
	}
	l->skeys[j] = s;
	l->svals[j] = dlt_arena_strdup(&l->p->arena, s);
	l->sn++;
	return l->svals[j];
}

static void dlt_count_other(struct dlt_load *l, uint16_t type)
{
	for (size_t i = 0; i < l->nother; i++)
		if (l->other_types[i].type == type) {
			l->other_types[i].count++;
			return;
		}
	l->other_types = dlt_grow(l->other_types, &l->othercap, l->nother,
				  sizeof(*l->other_types));
	l->other_types[l->nother++] = (struct dlt_type_count){type, 1};
}

static int dlt_collect(void *ctx, const struct dlt_rec_view *v)
{
	struct dlt_load *l = ctx;
	l->p->records++;
	if (v->rec->type < DLT_COUNTED_TYPES)
		l->counts[v->rec->type]++;
	else
		dlt_count_other(l, v->rec->type);
	if (l->hook && l->hook->rec)
		l->hook->rec(l->hook->ctx, l->t, v);
	switch (v->rec->type) {
	case DLT_REC_PROC:
	case DLT_REC_ARG:
	case DLT_REC_ENV:
	case DLT_REC_NOTE:
	case DLT_REC_LIB_LOAD:
	case DLT_REC_LIB_FAIL:
	case DLT_REC_LIB_UNLOAD:
	case DLT_REC_DLOPEN:
	case DLT_REC_DLERROR:
	case DLT_REC_EXIT:
	case DLT_REC_FORK:
	case DLT_REC_EXEC:
		break;
	default:
		return 0;
	}
	size_t words = v->rec->len / 8; /* the reader checked len % 8 */
	if (l->recs_cap - l->recs_len < words) {
		size_t cap = l->recs_cap ? l->recs_cap : 512;
		while (cap - l->recs_len < words)
			cap *= 2;
		l->recs = dlt_xrealloc(l->recs, cap, sizeof(*l->recs));
		l->recs_cap = cap;
	}
	memcpy(l->recs + l->recs_len, v->rec, v->rec->len);
	l->ev = dlt_grow(l->ev, &l->evcap, l->nev, sizeof(*l->ev));
	l->ev[l->nev] = (struct dlt_ev){NULL, l->recs_len, v->offset, v->tid,
					(uint32_t)l->nev};
	l->recs_len += words;
	l->nev++;
	return 0;
}

static int dlt_ev_cmp(const void *a, const void *b)
{
	const struct dlt_ev *x = a, *y = b;
	if (x->rec->ts != y->rec->ts)
		return x->rec->ts < y->rec->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct dlt_thread_state *dlt_thread(struct dlt_load *l, uint32_t tid)
{
	for (size_t i = 0; i < l->nthreads; i++)
		if (l->threads[i].tid == tid)
			return &l->threads[i];
	l->threads = dlt_grow(l->threads, &l->threadcap, l->nthreads,
			      sizeof(*l->threads));
	struct dlt_thread_state *th = &l->threads[l->nthreads++];
	*th = (struct dlt_thread_state){.tid = tid};
	return th;
}

/* Every argument has an ARG record of its own, so a trace cannot describe
 * more arguments than it has room for such records: a forged count or index
 * must not make the argv table larger than the file (found by fuzzing). */
static uint32_t dlt_argc_limit(const struct dlt_process *p)
{
	uint64_t room = p->stats.bytes / sizeof(struct dlt_rec_arg);
	return room < DLT_MAX_ARGC ? (uint32_t)room : DLT_MAX_ARGC;
}

static void dlt_on_proc(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_proc *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	if (p->has_proc)
		return; /* the first one describes the image */
	p->has_proc = true;
	p->host = dlt_load_str(l, r->host);
	p->exe = dlt_load_str(l, r->exe);
	p->cwd = dlt_load_str(l, r->cwd);
	p->rank = r->rank;
	p->world_size = r->world_size;
	if (r->argc > dlt_argc_limit(p)) {
		dlt_model_problem(l,
				  "PROC record at offset %" PRIu64
				  " claims %" PRIu32 " arguments; ignored",
				  e->offset, r->argc);
	} else if (r->argc > p->argc) {
		p->argv = dlt_xrealloc(p->argv, r->argc, sizeof(*p->argv));
		memset(p->argv + p->argc, 0,
		       (r->argc - p->argc) * sizeof(*p->argv));
		p->argc = r->argc;
	}
}

static void dlt_on_arg(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_arg *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	if (r->index >= dlt_argc_limit(p)) {
		dlt_model_problem(l,
				  "ARG record at offset %" PRIu64
				  " has index %" PRIu32 "; ignored",
				  e->offset, r->index);
		return;
	}
	if (r->index >= p->argc) {
		p->argv = dlt_xrealloc(p->argv, r->index + 1, sizeof(*p->argv));
		memset(p->argv + p->argc, 0,
		       (r->index + 1 - p->argc) * sizeof(*p->argv));
		p->argc = r->index + 1;
	}
	if (p->argv[r->index] == NULL)
		p->argv[r->index] = dlt_load_str(l, r->str);
	if (r->h.flags & 1)
		p->argv_cut = true;
}

static void dlt_on_env(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_env *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	const char *name = dlt_load_str(l, r->name);
	if (name == NULL)
		return;
	/* Both library instances may record the environment. */
	for (size_t i = 0; i < p->nenv; i++)
		if (p->env[i].name == name)
			return;
	p->env = dlt_grow(p->env, &l->envcap, p->nenv, sizeof(*p->env));
	p->env[p->nenv++] = (struct dlt_env_var){
		name, dlt_load_str(l, r->value), (r->h.flags & 1) != 0};
}

static void dlt_on_note(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_note *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	p->notes =
		dlt_grow(p->notes, &l->notecap, p->nnotes, sizeof(*p->notes));
	p->notes[p->nnotes++] = (struct dlt_note_entry){
		r->h.ts, r->h.flags, dlt_load_str(l, r->text)};
}

/* Copies a tried list, cut to what the record really holds. */
static void dlt_copy_tried(struct dlt_load *l, const struct dlt_ev *e,
			   struct dlt_lib *lib, size_t fixed,
			   const struct dlt_tried *tried, uint32_t n)
{
	uint32_t room = (uint32_t)((e->rec->len - fixed) / sizeof(*tried));
	if (n > room) {
		dlt_model_problem(
			l,
			"%s record at offset %" PRIu64 " lists %" PRIu32
			" tried paths but holds %" PRIu32 "; the list is cut",
			dlt_rec_type_name(e->rec->type), e->offset, n, room);
		n = room;
	}
	lib->n_tried = n;
	if (n == 0)
		return;
	lib->tried = dlt_arena_alloc(&l->p->arena, n * sizeof(*lib->tried));
	for (uint32_t i = 0; i < n; i++) {
		lib->tried[i].path = dlt_load_str(l, tried[i].path);
		lib->tried[i].via = tried[i].via;
	}
}

static struct dlt_lib *dlt_new_row(struct dlt_load *l, const struct dlt_ev *e)
{
	struct dlt_process *p = l->p;
	p->libs = dlt_grow(p->libs, &l->libcap, p->nlibs, sizeof(*p->libs));
	struct dlt_lib *lib = &p->libs[p->nlibs++];
	memset(lib, 0, sizeof(*lib));
	lib->ts = e->rec->ts;
	lib->offset = e->offset;
	lib->tid = e->tid;
	lib->dlopen_mode = -1;
	struct dlt_thread_state *th = dlt_thread(l, e->tid);
	if (th->in_dlopen) {
		lib->dlopen_mode = th->mode;
		lib->dlopen_name = th->name;
	}
	return lib;
}

static void dlt_on_lib_load(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_lib_load *r = (const void *)e->rec;
	struct dlt_lib *lib = dlt_new_row(l, e);
	lib->requested = dlt_load_str(l, r->requested);
	lib->requester = dlt_load_str(l, r->requester);
	lib->path = dlt_load_str(l, r->path);
	lib->realpath = dlt_load_str(l, r->realpath);
	lib->soname = dlt_load_str(l, r->soname);
	lib->runpath = dlt_load_str(l, r->runpath);
	lib->rpath = dlt_load_str(l, r->rpath);
	lib->found_via = r->found_via;
	lib->flags = r->h.flags;
	lib->obj = r->obj;
	lib->requester_obj = r->requester_obj;
	lib->base = r->base;
	lib->dev = r->dev;
	lib->ino = r->ino;
	lib->size = r->size;
	lib->mtime_ns = r->mtime_ns;
	lib->lmid = r->lmid;
	lib->build_id_len = r->build_id_len;
	if (lib->build_id_len > sizeof(lib->build_id)) {
		dlt_model_problem(l,
				  "LIB_LOAD record at offset %" PRIu64
				  " has a build id of %" PRIu32
				  " bytes; it is cut to 32",
				  e->offset, r->build_id_len);
		lib->build_id_len = sizeof(lib->build_id);
	}
	memcpy(lib->build_id, r->build_id, lib->build_id_len);
	dlt_copy_tried(l, e, lib, sizeof(*r), r->tried, r->n_tried);
}

static void dlt_on_lib_fail(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_lib_fail *r = (const void *)e->rec;
	struct dlt_lib *lib = dlt_new_row(l, e);
	lib->from_fail_record = true;
	lib->failed = true;
	lib->requested = dlt_load_str(l, r->requested);
	lib->requester = dlt_load_str(l, r->requester);
	lib->requester_obj = r->requester_obj;
	lib->flags = r->h.flags;
	dlt_copy_tried(l, e, lib, sizeof(*r), r->tried, r->n_tried);
}

static void dlt_on_lib_unload(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_lib_unload *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	/* The latest mapping with that id: a link_map address can be reused
	 * after an earlier object was closed. */
	for (size_t i = p->nlibs; i-- > 0;) {
		struct dlt_lib *lib = &p->libs[i];
		if (!lib->from_fail_record && lib->obj == r->obj) {
			lib->unloaded = true;
			if (r->h.flags & 1)
				lib->failed = true;
			return;
		}
	}
	if ((r->h.flags & 1) == 0)
		return; /* a dlclose, or the exit, of something older */
	dlt_model_problem(l,
			  "LIB_UNLOAD record at offset %" PRIu64
			  " names object 0x%" PRIx64 ", which no LIB_LOAD "
			  "record loaded",
			  e->offset, r->obj);
}

static void dlt_on_dlopen(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_dlopen *r = (const void *)e->rec;
	struct dlt_thread_state *th = dlt_thread(l, e->tid);
	th->in_dlopen = true;
	th->mode = r->mode;
	th->name = dlt_load_str(l, r->name);
	th->first_row = l->p->nlibs;
}

/* The text a program got from dlerror() explains every failure of its
 * thread since that thread's last dlopen: a dlopen fails as a whole, and a
 * missing dependency also unloads what had been mapped for it. */
static void dlt_on_dlerror(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_dlerror *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	struct dlt_thread_state *th = dlt_thread(l, e->tid);
	const char *text = NULL;
	/* The loader reports a relocation failure (undefined symbol) after
	 * the new objects were announced as consistent, so their unmapping
	 * looks like a dlclose.  A message that names one of the objects
	 * unmapped since this thread's last dlopen says they all went with
	 * the failed load. */
	const char *msg = dlt_trace_str(l->t, r->text);
	bool named = false;
	for (size_t i = th->first_row; msg && i < p->nlibs && !named; i++) {
		const struct dlt_lib *lib = &p->libs[i];
		const char *n[2] = {lib->path, lib->requested};
		for (int k = 0; k < 2 && !named; k++) {
			size_t len = n[k] ? strlen(n[k]) : 0;
			named = lib->tid == e->tid && lib->unloaded && len &&
				strncmp(msg, n[k], len) == 0 && msg[len] == ':';
		}
	}
	for (size_t i = th->first_row; named && i < p->nlibs; i++) {
		struct dlt_lib *lib = &p->libs[i];
		if (lib->tid == e->tid && lib->unloaded &&
		    !lib->from_fail_record)
			lib->failed = true;
	}
	for (size_t i = th->first_row; i < p->nlibs; i++) {
		struct dlt_lib *lib = &p->libs[i];
		if (lib->tid != e->tid || !lib->failed || lib->error)
			continue;
		if (text == NULL)
			text = dlt_load_str(l, r->text);
		lib->error = text;
	}
	/* dlerror() clears the thread's error: a later message explains only
	 * later failures.  Without this, a trace of many failed loads and
	 * many dlerror records and no dlopen made the load quadratic (a
	 * hostile 2 MiB trace took seconds, 10 MiB minutes). */
	th->first_row = p->nlibs;
}

static void dlt_on_exit(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_exit *r = (const void *)e->rec;
	switch (r->h.flags) {
	case DLT_EXIT_REAPED:
		l->reaped = r;
		break;
	case DLT_EXIT_EXEC:
		l->exec_pending = true;
		l->exec_ts = r->h.ts;
		break;
	case DLT_EXIT_NORMAL:
	case DLT_EXIT_UNDERSCORE:
		/* "Status not seen" adds nothing to a status already seen. */
		if (l->exit_rec && r->h.flags == DLT_EXIT_NORMAL &&
		    r->status == -1)
			break;
		l->exit_rec = r;
		l->exit_ts = r->h.ts;
		break;
	default:
		dlt_model_problem(l,
				  "EXIT record at offset %" PRIu64
				  " has unknown kind %u; ignored",
				  e->offset, (unsigned)r->h.flags);
	}
}

static void dlt_on_exec(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_exec *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	const char *path = dlt_load_str(l, r->path);
	if (r->h.flags & 1) {
		l->exec_pending = false;
		p->exec_fails =
			dlt_grow(p->exec_fails, &l->execcap, p->nexec_fails,
				 sizeof(*p->exec_fails));
		p->exec_fails[p->nexec_fails++] =
			(struct dlt_exec_fail){r->h.ts, path, r->err};
		return;
	}
	l->exec_pending = true;
	l->exec_path = path;
	l->exec_ts = r->h.ts;
}

static void dlt_on_fork(struct dlt_load *l, const struct dlt_ev *e)
{
	const struct dlt_rec_fork *r = (const void *)e->rec;
	struct dlt_process *p = l->p;
	p->forks =
		dlt_grow(p->forks, &l->forkcap, p->nforks, sizeof(*p->forks));
	p->forks[p->nforks++] = r->child_pid;
}

/* The launcher's wait status is the ground truth; otherwise whichever of an
 * exec and an exit came last, since an exec that returned means the process
 * carried on (and its failure record may be missing). */
static void dlt_decide_end(struct dlt_load *l)
{
	struct dlt_end *end = &l->p->end;
	memset(end, 0, sizeof(*end));
	if (l->reaped) {
		end->how = DLT_END_REAPED;
		end->status = l->reaped->status;
		end->ts = l->reaped->h.ts;
	} else if (l->exec_pending &&
		   (l->exit_rec == NULL || l->exec_ts >= l->exit_ts)) {
		end->how = DLT_END_EXEC;
		end->ts = l->exec_ts;
		end->exec_path = l->exec_path;
	} else if (l->exit_rec) {
		end->how = (enum dlt_end_how)l->exit_rec->h.flags;
		end->status = l->exit_rec->status;
		end->ts = l->exit_ts;
	}
}

static void dlt_finish_libs(struct dlt_load *l)
{
	struct dlt_process *p = l->p;
	for (size_t i = 0; i < p->nlibs; i++) {
		struct dlt_lib *lib = &p->libs[i];
		if (!lib->failed) {
			p->nlibs_loaded++;
			continue;
		}
		p->nlibs_failed++;
		if (lib->error)
			continue;
		char buf[128];
		if (lib->from_fail_record)
			snprintf(buf, sizeof(buf),
				 "not found; tried %" PRIu32 " path%s%s",
				 lib->n_tried, lib->n_tried == 1 ? "" : "s",
				 lib->flags & DLT_LIB_TRIED_CUT
					 ? " (more were not recorded)"
					 : "");
		else
			snprintf(buf, sizeof(buf),
				 "mapped, then unloaded by a failed load");
		lib->error = dlt_arena_strdup(&p->arena, buf);
	}
}

static int dlt_type_count_cmp(const void *a, const void *b)
{
	const struct dlt_type_count *x = a, *y = b;
	return (x->type > y->type) - (x->type < y->type);
}

static void dlt_build_types(struct dlt_load *l)
{
	struct dlt_process *p = l->p;
	size_t n = l->nother;
	for (size_t t = 0; t < DLT_COUNTED_TYPES; t++)
		n += l->counts[t] != 0;
	p->types = dlt_xcalloc(n, sizeof(*p->types));
	for (size_t t = 0; t < DLT_COUNTED_TYPES; t++)
		if (l->counts[t])
			p->types[p->ntypes++] = (struct dlt_type_count){
				(uint16_t)t, l->counts[t]};
	/* All above the indexed ones, so ascending order is kept. */
	if (l->nother > 1)
		qsort(l->other_types, l->nother, sizeof(*l->other_types),
		      dlt_type_count_cmp);
	for (size_t i = 0; i < l->nother; i++)
		p->types[p->ntypes++] = l->other_types[i];
}

struct dlt_process *dlt_process_load(const char *path, char *err, size_t errlen)
{
	return dlt_process_load_hooked(path, NULL, err, errlen);
}

struct dlt_process *dlt_process_load_hooked(const char *path,
					    const struct dlt_load_hook *hook,
					    char *err, size_t errlen)
{
	struct dlt_trace *t = dlt_trace_open(path, err, errlen);
	if (t == NULL)
		return NULL;
	struct dlt_process *p = dlt_xcalloc(1, sizeof(*p));
	struct dlt_load l = {.t = t, .p = p, .hook = hook};
	p->trace = dlt_arena_strdup(&p->arena, path);
	p->hdr = *dlt_trace_header(t);
	p->rank = -1;
	p->world_size = -1;

	dlt_trace_foreach(t, dlt_collect, &l);
	dlt_trace_stats(t, &p->stats);
	for (size_t i = 0; i < l.nev; i++)
		l.ev[i].rec = (const void *)(l.recs + l.ev[i].at);
	/* Threads write into their own chunks, and the two library copies
	 * into separate chunks of the same thread: only timestamps (all
	 * CLOCK_MONOTONIC) put a DLOPEN before the loads it caused. */
	if (l.nev > 1)
		qsort(l.ev, l.nev, sizeof(*l.ev), dlt_ev_cmp);

	/* Reader problems first: they explain the model's. */
	for (size_t i = 0; i < dlt_trace_problem_count(t); i++) {
		p->problems = dlt_grow(p->problems, &l.probcap, p->nproblems,
				       sizeof(*p->problems));
		p->problems[p->nproblems++] =
			dlt_arena_strdup(&p->arena, dlt_trace_problem(t, i));
	}

	for (size_t i = 0; i < l.nev; i++) {
		const struct dlt_ev *e = &l.ev[i];
		switch (e->rec->type) {
		case DLT_REC_PROC:
			dlt_on_proc(&l, e);
			break;
		case DLT_REC_ARG:
			dlt_on_arg(&l, e);
			break;
		case DLT_REC_ENV:
			dlt_on_env(&l, e);
			break;
		case DLT_REC_NOTE:
			dlt_on_note(&l, e);
			break;
		case DLT_REC_LIB_LOAD:
			dlt_on_lib_load(&l, e);
			break;
		case DLT_REC_LIB_FAIL:
			dlt_on_lib_fail(&l, e);
			break;
		case DLT_REC_LIB_UNLOAD:
			dlt_on_lib_unload(&l, e);
			break;
		case DLT_REC_DLOPEN:
			dlt_on_dlopen(&l, e);
			break;
		case DLT_REC_DLERROR:
			dlt_on_dlerror(&l, e);
			break;
		case DLT_REC_EXIT:
			dlt_on_exit(&l, e);
			break;
		case DLT_REC_EXEC:
			dlt_on_exec(&l, e);
			break;
		case DLT_REC_FORK:
			dlt_on_fork(&l, e);
			break;
		}
	}
	dlt_decide_end(&l);
	dlt_finish_libs(&l);
	dlt_build_types(&l);

	free(l.ev);
	free(l.recs);
	free(l.other_types);
	free(l.skeys);
	free(l.svals);
	free(l.threads);
	dlt_trace_close(t);
	return p;
}

void dlt_process_free(struct dlt_process *p)
{
	if (p == NULL)
		return;
	free(p->argv);
	free(p->env);
	free(p->exec_fails);
	free(p->forks);
	free(p->libs);
	free(p->notes);
	free(p->types);
	free(p->problems);
	dlt_arena_free(p->arena);
	free(p);
}

size_t dlt_lower_bound(const void *base, size_t n, size_t size, const void *key,
		       int (*cmp)(const void *, const void *))
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp((const char *)base + mid * size, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t dlt_process_count(const struct dlt_process *p, uint16_t type)
{
	for (size_t i = 0; i < p->ntypes; i++)
		if (p->types[i].type == type)
			return p->types[i].count;
	return 0;
}

/* ---- failed loads ---------------------------------------------------- */

void dlt_lib_key(const char *name, char *buf, size_t cap)
{
	const char *b = dlt_basename(name ? name : "");
	const char *so = strstr(b, ".so");
	size_t l = so ? (size_t)(so - b) + 3 : strlen(b);
	if (l >= cap)
		l = cap - 1;
	memcpy(buf, b, l);
	buf[l] = '\0';
}

/* cuDNN and others probe several versioned names before the one that
 * exists; only the library's key (name up to ".so") tells that the probes
 * and the load are one library. */
struct dlt_name_ref {
	const char *name;
	size_t row;
};

static int dlt_name_ref_cmp(const void *a, const void *b)
{
	const struct dlt_name_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->row < y->row ? -1 : x->row > y->row;
}

static const char *dlt_row_name(const struct dlt_lib *lib)
{
	return lib->requested ? lib->requested : lib->path;
}

bool *dlt_lib_failures_matter(const struct dlt_process *p)
{
	size_t n = p->nlibs;
	bool *matters = dlt_xcalloc(n ? n : 1, sizeof(*matters));
	/* Keys of the loaded rows (two each: by real path and by name), and
	 * the names of the failed rows with their row numbers, sorted. */
	struct dlt_name_ref *keys = dlt_xcalloc(2 * n + 1, sizeof(*keys));
	struct dlt_name_ref *fails = dlt_xcalloc(n + 1, sizeof(*fails));
	size_t nkeys = 0, nfails = 0;
	char key[256];
	for (size_t i = 0; i < n; i++) {
		const struct dlt_lib *o = &p->libs[i];
		const char *on = dlt_row_name(o);
		if (on == NULL)
			continue;
		if (o->failed) {
			fails[nfails++] = (struct dlt_name_ref){on, i};
			continue;
		}
		dlt_lib_key(o->realpath ? o->realpath : on, key, sizeof(key));
		keys[nkeys++] = (struct dlt_name_ref){dlt_xstrdup(key), i};
		dlt_lib_key(on, key, sizeof(key));
		keys[nkeys++] = (struct dlt_name_ref){dlt_xstrdup(key), i};
	}
	qsort(keys, nkeys, sizeof(*keys), dlt_name_ref_cmp);
	qsort(fails, nfails, sizeof(*fails), dlt_name_ref_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct dlt_lib *lib = &p->libs[i];
		if (!lib->failed)
			continue;
		const char *name = dlt_row_name(lib);
		dlt_lib_key(name ? name : "", key, sizeof(key));
		/* Row 0 sorts before every row of the same name. */
		struct dlt_name_ref probe = {key, 0};
		size_t lo = dlt_lower_bound(keys, nkeys, sizeof(*keys), &probe,
					    dlt_name_ref_cmp);
		matters[i] = !(lo < nkeys && strcmp(keys[lo].name, key) == 0);
	}
	/* Of the failed rows with one name, only the first matters. */
	for (size_t i = 1; i < nfails; i++)
		if (strcmp(fails[i].name, fails[i - 1].name) == 0)
			matters[fails[i].row] = false;
	for (size_t i = 0; i < nkeys; i++)
		free((char *)keys[i].name);
	free(keys);
	free(fails);
	return matters;
}

/* ---- inputs --------------------------------------------------------- */

static void dlt_input_error(struct dlt_inputs *in, size_t *cap,
			    const char *path, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	in->errors =
		dlt_grow(in->errors, cap, in->nerrors, sizeof(*in->errors));
	in->errors[in->nerrors++] =
		(struct dlt_input_error){dlt_xstrdup(path), dlt_xstrdup(buf)};
}

static int dlt_strptr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool dlt_is_trace_name(const char *name)
{
	static const char suffix[] = ".dltrace";
	size_t n = strlen(name), s = sizeof(suffix) - 1;
	return n > s && strcmp(name + n - s, suffix) == 0;
}

static void dlt_collect_dir(struct dlt_inputs *in, size_t *pathcap,
			    size_t *errcap, const char *dir)
{
	DIR *d = opendir(dir);
	if (d == NULL) {
		dlt_input_error(in, errcap, dir, "cannot read directory: %s",
				strerror(errno));
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	size_t dl = strlen(dir);
	bool slash = dl > 0 && dir[dl - 1] == '/';
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!dlt_is_trace_name(de->d_name))
			continue;
		size_t len = dl + 1 + strlen(de->d_name) + 1;
		char *full = dlt_xmalloc(len);
		snprintf(full, len, "%s%s%s", dir, slash ? "" : "/",
			 de->d_name);
		struct stat st;
		if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(full);
			continue;
		}
		names = dlt_grow(names, &cap, n, sizeof(*names));
		names[n++] = full;
	}
	closedir(d);
	if (n == 0) {
		dlt_input_error(in, errcap, dir,
				"no trace files (*.dltrace) in this directory");
		free(names);
		return;
	}
	/* The directory's full paths share a prefix, so sorting them sorts
	 * the names. */
	qsort(names, n, sizeof(*names), dlt_strptr_cmp);
	for (size_t i = 0; i < n; i++) {
		in->paths = dlt_grow(in->paths, pathcap, in->npaths,
				     sizeof(*in->paths));
		in->paths[in->npaths++] = names[i];
	}
	free(names);
}

int dlt_inputs_collect(struct dlt_inputs *in, int argc, char *const argv[])
{
	memset(in, 0, sizeof(*in));
	size_t pathcap = 0, errcap = 0;
	for (int i = 0; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			dlt_collect_dir(in, &pathcap, &errcap, argv[i]);
			continue;
		}
		/* Anything else is tried as a trace: opening it gives the
		 * most precise message when it is not one. */
		in->paths = dlt_grow(in->paths, &pathcap, in->npaths,
				     sizeof(*in->paths));
		in->paths[in->npaths++] = dlt_xstrdup(argv[i]);
	}
	return in->npaths > 0 ? 0 : -1;
}

void dlt_inputs_free(struct dlt_inputs *in)
{
	for (size_t i = 0; i < in->npaths; i++)
		free(in->paths[i]);
	free(in->paths);
	for (size_t i = 0; i < in->nerrors; i++) {
		free(in->errors[i].path);
		free(in->errors[i].message);
	}
	free(in->errors);
	memset(in, 0, sizeof(*in));
}

/* ---- sets of traces ------------------------------------------------- */

static int dlt_proc_start_cmp(const void *a, const void *b)
{
	const struct dlt_process *x = *(const struct dlt_process *const *)a;
	const struct dlt_process *y = *(const struct dlt_process *const *)b;
	if (x->hdr.start_realtime_ns != y->hdr.start_realtime_ns)
		return x->hdr.start_realtime_ns < y->hdr.start_realtime_ns ? -1
									   : 1;
	if (x->hdr.pid != y->hdr.pid)
		return x->hdr.pid < y->hdr.pid ? -1 : 1;
	if (x->hdr.exec_seq != y->hdr.exec_seq)
		return x->hdr.exec_seq < y->hdr.exec_seq ? -1 : 1;
	return strcmp(x->trace, y->trace);
}

struct dlt_set_ref {
	uint64_t trace_id;
	size_t index;
};

static int dlt_ref_cmp(const void *a, const void *b)
{
	const struct dlt_set_ref *x = a, *y = b;
	if (x->trace_id != y->trace_id)
		return x->trace_id < y->trace_id ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int dlt_set_load(struct dlt_set *s, int argc, char *const argv[], FILE *diag)
{
	memset(s, 0, sizeof(*s));
	struct dlt_inputs in;
	dlt_inputs_collect(&in, argc, argv);
	size_t badcap = in.nerrors;
	s->unusable = in.errors;
	s->nunusable = in.nerrors;
	in.errors = NULL;
	in.nerrors = 0;
	if (diag)
		for (size_t i = 0; i < s->nunusable; i++)
			fprintf(diag, "dltrace-analyze: %s: %s\n",
				s->unusable[i].path, s->unusable[i].message);

	s->procs = dlt_xcalloc(in.npaths, sizeof(*s->procs));
	for (size_t i = 0; i < in.npaths; i++) {
		const char *path = in.paths[i];
		char err[1024] = "";
		struct dlt_process *p =
			dlt_process_load(path, err, sizeof(err));
		if (p == NULL) {
			/* The reader's message starts with the path. */
			const char *why = err;
			size_t pl = strlen(path);
			if (strncmp(err, path, pl) == 0 && err[pl] == ':' &&
			    err[pl + 1] == ' ')
				why = err + pl + 2;
			if (*why == '\0')
				why = "cannot be read";
			if (diag)
				fprintf(diag, "dltrace-analyze: %s: %s\n", path,
					why);
			s->unusable =
				dlt_grow(s->unusable, &badcap, s->nunusable,
					 sizeof(*s->unusable));
			s->unusable[s->nunusable++] = (struct dlt_input_error){
				dlt_xstrdup(path), dlt_xstrdup(why)};
			continue;
		}
		if (diag)
			for (size_t k = 0; k < p->nproblems; k++)
				fprintf(diag, "dltrace-analyze: %s: %s\n",
					p->trace, p->problems[k]);
		s->procs[s->nprocs++] = p;
	}
	dlt_inputs_free(&in);
	if (s->nprocs > 1)
		qsort(s->procs, s->nprocs, sizeof(*s->procs),
		      dlt_proc_start_cmp);
	s->by_id = dlt_xcalloc(s->nprocs, sizeof(*s->by_id));
	for (size_t i = 0; i < s->nprocs; i++)
		s->by_id[i] =
			(struct dlt_set_ref){s->procs[i]->hdr.trace_id, i};
	if (s->nprocs > 1)
		qsort(s->by_id, s->nprocs, sizeof(*s->by_id), dlt_ref_cmp);
	if (s->nprocs == 0) {
		if (diag)
			fprintf(diag, "dltrace-analyze: no usable trace among "
				      "the inputs\n");
		return -1;
	}
	return 0;
}

void dlt_set_free(struct dlt_set *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		dlt_process_free(s->procs[i]);
	free(s->procs);
	for (size_t i = 0; i < s->nunusable; i++) {
		free(s->unusable[i].path);
		free(s->unusable[i].message);
	}
	free(s->unusable);
	free(s->by_id);
	memset(s, 0, sizeof(*s));
}

static long dlt_set_lookup(const struct dlt_set *s, uint64_t trace_id)
{
	if (trace_id == 0 || s->by_id == NULL)
		return -1;
	size_t lo = 0, hi = s->nprocs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->by_id[mid].trace_id < trace_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nprocs && s->by_id[lo].trace_id == trace_id)
		return (long)s->by_id[lo].index;
	return -1;
}

const struct dlt_process *dlt_set_find(const struct dlt_set *s,
				       uint64_t trace_id)
{
	long i = dlt_set_lookup(s, trace_id);
	return i < 0 ? NULL : s->procs[i];
}

long dlt_set_parent(const struct dlt_set *s, const struct dlt_process *p)
{
	long i = dlt_set_lookup(s, p->hdr.parent_trace_id);
	/* A trace naming itself (damage) has no parent in the set. */
	return i >= 0 && s->procs[i] == p ? -1 : i;
}

/* ---- command lines -------------------------------------------------- */

int dlt_cmd_args(const char *cmd, const char *usage, int argc, char **argv,
		 const struct dlt_flag_opt *opts, size_t nopts, int *npaths)
{
	int n = 0;
	bool only_paths = false;
	for (int i = 0; i < argc; i++) {
		char *a = argv[i];
		if (only_paths || a[0] != '-' || a[1] == '\0') {
			argv[n++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_paths = true;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		size_t k = 0, nl = 0;
		for (; k < nopts; k++) {
			nl = strlen(opts[k].name);
			if (strcmp(a, opts[k].name) == 0 ||
			    (opts[k].value &&
			     strncmp(a, opts[k].name, nl) == 0 && a[nl] == '='))
				break;
		}
		if (k == nopts) {
			fprintf(stderr,
				"dltrace-analyze %s: unknown option '%s'\n",
				cmd, a);
			fputs(usage, stderr);
			return 2;
		}
		if (opts[k].value) {
			if (a[nl] == '=') {
				*opts[k].value = a + nl + 1;
			} else if (i + 1 < argc) {
				*opts[k].value = argv[++i];
			} else {
				fprintf(stderr,
					"dltrace-analyze %s: option '%s' needs "
					"a value\n",
					cmd, a);
				fputs(usage, stderr);
				return 2;
			}
		}
		if (opts[k].set)
			*opts[k].set = true;
	}
	if (n == 0) {
		fprintf(stderr,
			"dltrace-analyze %s: no trace file or directory "
			"given\n",
			cmd);
		fputs(usage, stderr);
		return 2;
	}
	*npaths = n;
	return -1;
}
