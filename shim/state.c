#define _GNU_SOURCE
#include "state.h"
#include "hot.h"

#include "rankvars.h"
#include "strbuf.h"

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

DLT_HOT struct dlt_writer *dlt_w;
DLT_TLS struct dlt_tls dlt_tls;
DLT_HOT DLT_EXPORT struct dlt_rendezvous dlt_rendezvous;
DLT_HOT const char *dlt_audit_path = dlt_self_path;
char dlt_self_path[DLT_PATH_MAX];
DLT_HOT const char *dlt_self_src;
DLT_HOT bool dlt_have_audit;
DLT_HOT bool dlt_exit_recorded;
DLT_HOT pid_t dlt_owner_pid;
DLT_HOT bool dlt_no_loader;
DLT_HOT struct dlt_config dlt_cfg;
char dlt_watcher_bin[DLT_PATH_MAX];
DLT_HOT const char *dlt_dir_abs = "";
char dlt_dir_buf[DLT_PATH_MAX];
DLT_TLS int dlt_api_depth;

const char *dlt_dir_now(char *buf, size_t cap)
{
	if (dlt_dir_abs[0])
		return dlt_dir_abs;
	struct dlt_writer *w = dlt_w;
	if (w && w->dir_len > 0 && w->dir_len < cap && w->path[0] == '/') {
		memcpy(buf, w->path, w->dir_len);
		buf[w->dir_len] = '\0';
		return buf;
	}
	return dlt_cfg.dir;
}

bool dlt_in_owner(void)
{
	pid_t o = dlt_owner_pid;
	return o == 0 || getpid() == o;
}

#ifndef DLT_FREESTANDING
DLT_HOT static bool dlt_self_made; /* dlt_self_path made from dlt_self_src */

const char *dlt_self_file(void)
{
	/* Threads that race write the same bytes.  Asked for before a fork
	 * (shim/lifecycle.c), so that a vfork child finds it made. */
	const char *src = dlt_self_src;
	if (src != NULL && !dlt_self_made) {
		if (realpath(src, dlt_self_path) == NULL)
			dlt_copy_str(dlt_self_path, sizeof(dlt_self_path), src);
		dlt_self_made = true;
	}
	return dlt_self_path;
}

const char *dlt_self_name(void)
{
	/* The loader's name is the one the look-ups compare (symlookup.c),
	 * without a realpath, and without reading dlt_self_path's page. */
	const char *src = dlt_self_src;
	if (src != NULL) {
		const char *b = strrchr(src, '/');
		return b ? b + 1 : src;
	}
	/* A wrapper called before this copy's constructor (another library's
	 * constructor forking) looks its real function up by this name. */
	if (dlt_self_path[0] == '\0')
		dlt_find_self(NULL);
	const char *b = strrchr(dlt_self_path, '/');
	return b ? b + 1 : (dlt_self_path[0] ? dlt_self_path : "libdltrace.so");
}

/* The loaded object one of whose segments holds addr. */
struct dlt_self_find {
	uintptr_t addr;
	const char *name;
	uintptr_t base;
};

static int dlt_self_find_cb(struct dl_phdr_info *i, size_t size, void *data)
{
	(void)size;
	struct dlt_self_find *f = data;
	for (int k = 0; k < i->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &i->dlpi_phdr[k];
		uintptr_t lo = i->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && f->addr >= lo &&
		    f->addr - lo < ph->p_memsz) {
			f->name = i->dlpi_name;
			f->base = i->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

/* dl_iterate_phdr, which is libc's, rather than dladdr: before glibc 2.34
 * libdl's functions crash when an audit module calls them from la_version
 * or its constructor (they run before the loader has finished loading the
 * program, and libdl then calls through a hook that is still NULL). */
int dlt_find_self(uintptr_t *base)
{
	struct dlt_self_find f = {(uintptr_t)&dlt_self_path, NULL, 0};
	if (dl_iterate_phdr(dlt_self_find_cb, &f) == 0 || f.name == NULL ||
	    f.name[0] == '\0')
		return -1;
	if (realpath(f.name, dlt_self_path) == NULL)
		dlt_copy_str(dlt_self_path, sizeof(dlt_self_path), f.name);
	if (base)
		*base = f.base;
	return 0;
}
#endif

/* One line on stderr with one write(2): stdio may be in any state inside
 * the host, and one write keeps the lines of many ranks apart. */
static void dlt_config_say(bool say, const char *name, const char *value,
			   const char *dflt)
{
	if (!say)
		return;
	/* Built without snprintf: the LD_AUDIT module has no C library. */
	char line[512];
	struct dlt_strbuf b;
	dlt_sb_init(&b, line, sizeof(line) - 1);
	dlt_sb_str(&b, "dltrace: ");
	dlt_sb_str(&b, name);
	dlt_sb_char(&b, '=');
	dlt_sb_mem(&b, value, strnlen(value, 200));
	dlt_sb_str(&b, " is not understood; using ");
	dlt_sb_str(&b, dflt);
	size_t n = strlen(line);
	line[n++] = '\n';
	if (write(2, line, n) < 0)
		return;
}

static const char *dlt_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* Digits of base 10 or 16 at s, as an unsigned number: the end of them, or
 * NULL when there is none or the number passes max.  Not strtoull: the
 * variables every traced process has (DLTRACE_PARENT, DLTRACE_RUN) would
 * touch the C library's number parsing and locale tables at start, pages
 * of each copy's C library that nothing else needs then. */
static const char *dlt_parse_num(const char *s, unsigned base, uint64_t max,
				 uint64_t *out)
{
	uint64_t n = 0;
	const char *p = s;
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a') + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A') + 10;
		else
			break;
		if (n > (max - d) / base)
			return NULL;
		n = n * base + d;
	}
	if (p == s)
		return NULL;
	*out = n;
	return p;
}

/* DLTRACE_PARENT=<kind>:<pid>:<trace id hex>:<exec seq>, as the exec and
 * spawn wrappers write it; left unset (parent_kind 0) when unreadable. */
static void dlt_parse_parent(const char *v, struct dlt_config *c)
{
	uint64_t pid, id, seq;
	if ((v[0] != 'e' && v[0] != 's') || v[1] != ':')
		return;
	const char *p = dlt_parse_num(v + 2, 10, INT32_MAX, &pid);
	if (p == NULL || *p != ':' || pid == 0)
		return;
	p = dlt_parse_num(p + 1, 16, UINT64_MAX, &id);
	if (p == NULL || *p != ':')
		return;
	if (dlt_parse_num(p + 1, 10, UINT32_MAX, &seq) == NULL)
		return;
	c->parent_kind = v[0];
	c->parent_pid = (int)pid;
	c->parent_id = id;
	c->parent_seq = (uint32_t)seq;
}

void dlt_copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void dlt_config_read(bool say)
{
	struct dlt_config *c = &dlt_cfg;
	memset(c, 0, sizeof(*c));
	const char *v = dlt_env("DLTRACE_DIR");
	c->dir = v ? v : "dltrace.out";

	v = dlt_env("DLTRACE_PARENT");
	if (v)
		dlt_parse_parent(v, c);

	/* The launcher's run: every trace of its tree carries it. */
	v = dlt_env("DLTRACE_RUN");
	if (v) {
		uint64_t run;
		const char *end = dlt_parse_num(v, 16, UINT64_MAX, &run);
		if (end && *end == '\0' && run != 0)
			c->run_id = run;
		else
			dlt_config_say(say, "DLTRACE_RUN", v,
				       "none (it is set by dltrace itself)");
	}

	c->redact_argv = getenv("DLTRACE_REDACT_ARGV") != NULL;
	v = getenv("DLTRACE_AUDIT");
	c->audit_off = v && strcmp(v, "0") == 0;
	v = getenv("DLTRACE_REEXEC");
	c->reexec_set = v != NULL;
	if (v)
		dlt_copy_str(c->reexec_comm, sizeof(c->reexec_comm), v);

	c->watchdog = -1;
	v = dlt_env("DLTRACE_WATCHDOG");
	if (v && strcmp(v, "0") == 0)
		c->watchdog = 0;
	else if (v && strcmp(v, "1") == 0)
		c->watchdog = 1;
	else if (v)
		dlt_config_say(say, "DLTRACE_WATCHDOG", v,
			       "the default (started where hangs matter)");

	v = dlt_env("DLTRACE_PYSTACK");
	c->pystack = !(v && strcmp(v, "0") == 0);

	c->stall_ns = 5000ull * 1000000ull;
	v = dlt_env("DLTRACE_STALL_MS");
	if (v) {
		char *end;
		unsigned long long ms = strtoull(v, &end, 10);
		if (*end == '\0' && *v != '-' && ms >= 10 &&
		    ms < 1000ull * 1000 * 1000)
			c->stall_ns = ms * 1000000ull;
		else
			dlt_config_say(say, "DLTRACE_STALL_MS", v,
				       "5000 (at least 10 ms)");
	}

	/* A thread of dltrace's in the program only when the user asks for
	 * it (docs/design.md, "The watcher"). */
	v = getenv("DLTRACE_PREFETCH");
	c->prefetch = v && strcmp(v, "1") == 0;
	c->watcher = -1;
	v = getenv("DLTRACE_WATCHER");
	if (v && strcmp(v, "0") == 0)
		c->watcher = 0;
	else if (v && strcmp(v, "1") == 0)
		c->watcher = 1;
	v = getenv("DLTRACE_WATCHER_BIN");
	if (v && *v)
		dlt_copy_str(dlt_watcher_bin, sizeof(dlt_watcher_bin), v);
	c->watcher_bin = dlt_watcher_bin;
	v = getenv("DLTRACE_SIGNALS");
	c->signals = !(v && strcmp(v, "0") == 0);
	/* dltrace's alternate signal stacks (altstack.c). */
	v = getenv("DLTRACE_ALTSTACK");
	c->altstack = !(v && strcmp(v, "0") == 0);

	v = dlt_env("DLTRACE_MAX_SIZE");
	if (v) {
		c->max_size = dlt_parse_size(v);
		if (c->max_size == 0)
			dlt_config_say(say, "DLTRACE_MAX_SIZE", v,
				       "256M (a size: 512M, 2G ...)");
	}

	v = dlt_env("DLTRACE_CLOCK");
	c->clock_monotonic = v && strcmp(v, "monotonic") == 0;
	if (v && !c->clock_monotonic)
		dlt_config_say(say, "DLTRACE_CLOCK", v,
			       "the default (only 'monotonic' is known)");
	if (c->clock_monotonic)
		dlt_clock_force_monotonic();

	static const char *const rank_vars[] = {
		DLT_RANK_VARS(DLT_RANKVAR_STR)
			DLT_WORLD_SIZE_VARS(DLT_RANKVAR_STR)
				DLT_LOCAL_RANK_VARS(DLT_RANKVAR_STR) NULL};
	for (const char *const *r = rank_vars; *r; r++)
		if (getenv(*r))
			c->distributed = true;
	c->rank = dlt_env_rank();
}

void dlt_config_take(const struct dlt_config *from)
{
	/* Its strings are the environment's or the other copy's, which
	 * stays mapped as long as the process.  The clock's choice is the
	 * shared state's already (the other copy made it, dlt_clock_share). */
	dlt_cfg = *from;
}

bool dlt_list_has(const char *list, const char *item)
{
	size_t n = strlen(item);
	while (list && *list) {
		size_t l = strcspn(list, ": ");
		if (l == n && strncmp(list, item, n) == 0)
			return true;
		list += l;
		list += strspn(list, ": ");
	}
	return false;
}

void dlt_read_host(char *buf, size_t cap)
{
	if (gethostname(buf, cap - 1) != 0)
		buf[0] = '\0';
	buf[cap - 1] = '\0';
}

/* DLTRACE_PARENT only counts for the process it was meant for: after exec
 * the pid is the same, after spawn the parent pid is. */
void dlt_start_params(struct dlt_open_params *p, char *hostbuf, size_t hcap)
{
	memset(p, 0, sizeof(*p));
	p->dir = dlt_dir_abs[0] ? dlt_dir_abs : dlt_cfg.dir;
	dlt_read_host(hostbuf, hcap);
	p->host = hostbuf;
	p->rank = dlt_cfg.rank;
	p->max_size = dlt_cfg.max_size;
	p->run_id = dlt_cfg.run_id;
	p->redact_argv = dlt_cfg.redact_argv;
	if (dlt_cfg.parent_kind == 'e' && dlt_cfg.parent_pid == (int)getpid()) {
		p->parent_kind = DLT_PARENT_EXEC;
		p->parent_trace_id = dlt_cfg.parent_id;
		p->exec_seq = dlt_cfg.parent_seq + 1;
	} else if (dlt_cfg.parent_kind == 's' &&
		   dlt_cfg.parent_pid == (int)getppid()) {
		p->parent_kind = DLT_PARENT_FORK;
		p->parent_trace_id = dlt_cfg.parent_id;
	}
}

void dlt_record_exit(int how, int status)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL || w->pid != getpid())
		return;
	int saved = errno;
	struct dlt_rec_exit *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r) {
		r->h.ts = dlt_now_ns();
		r->status = status;
		r->pad = 0;
		dlt_rec_commit(r, DLT_REC_EXIT, (uint16_t)how, sizeof(*r));
	}
	dlt_exit_recorded = true;
	errno = saved;
}
