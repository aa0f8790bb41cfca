/* libunwind's remote interface against the analyzer's own unwinder over
 * libdw (analyzer/stacks/unwind.c), on the captures unwind_bench replays
 * (unwind_caps.c): the choice the issue left to a measurement.  Both
 * name their frames with dlt_unwind_name(), so that only the unwinding
 * differs.  libunwind reads the process through accessors of ours: the
 * stack copy, the captured registers, and the mapped objects' file bytes
 * at the load addresses the MODMAP implies; its tables are each object's
 * .eh_frame_hdr, searched by the dwarf_search_unwind_table libunwind
 * exports for remote use.  Per program: the frames each found, whether
 * the function sequences agree, milliseconds per 10,000 stacks cold and
 * warm, then both stacks of one run side by side.  Not a test.
 *
 *   unwind_cmp [-n STACKS] [-r RUNS] [PROGRAM...]
 *   unwind_cmp -l CAPTURE...          (files saved by unwind_bench -s)
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "unwind.h"
#include "unwind_caps.h"

/* Exported by libunwind (1.6: _Ux86_64_dwarf_search_unwind_table) for
 * remote unwinders' find_proc_info, but declared in no installed header. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as,
					      unw_word_t ip, unw_dyn_info_t *di,
					      unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

#define CMP_FRAMES 128
#define CMP_MAX_LOADS 8

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The namer's object cache stat()s the object's path on every lookup
 * (dlt_ucmod_get in analyzer/stacks/unwind.c: once per mapping and stack
 * in dlt_unwind, once per frame through dlt_unwind_name), which is about
 * half of the time measured.  Answering stat() from a table for one more
 * set of passes shows both unwinders without it: this definition takes
 * the place of the C library's for the whole program. */
static int cmp_stat_cached;
static struct {
	char path[512];
	struct stat sb;
} cmp_stats[64];
static size_t cmp_nstats;

int stat(const char *restrict path, struct stat *restrict sb)
{
	if (!cmp_stat_cached || strlen(path) >= sizeof(cmp_stats[0].path))
		return fstatat(AT_FDCWD, path, sb, 0);
	for (size_t i = 0; i < cmp_nstats; i++)
		if (strcmp(cmp_stats[i].path, path) == 0) {
			*sb = cmp_stats[i].sb;
			return 0;
		}
	int rc = fstatat(AT_FDCWD, path, sb, 0);
	if (rc == 0 && cmp_nstats < sizeof(cmp_stats) / sizeof(cmp_stats[0])) {
		strcpy(cmp_stats[cmp_nstats].path, path);
		cmp_stats[cmp_nstats++].sb = *sb;
	}
	return rc;
}

/* ---- the objects' files, mapped once per run ---------------------------- */

struct lu_obj {
	char *path;
	const uint8_t *img; /* the whole file, NULL: not readable */
	size_t len;
	Elf64_Phdr loads[CMP_MAX_LOADS];
	int nloads;
	uint64_t lo_v, hi_v; /* the PT_LOADs' span, ELF addresses */
	uint64_t hdr_v;	     /* .eh_frame_hdr's address, 0: none usable */
	uint64_t nfde;
	struct lu_obj *next;
};

static void lu_obj_parse(struct lu_obj *o)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)o->img;
	if (o->len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > o->len)
		return;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(o->img + eh->e_phoff);
	o->lo_v = UINT64_MAX;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && o->nloads < CMP_MAX_LOADS) {
			o->loads[o->nloads++] = ph[i];
			if (ph[i].p_vaddr < o->lo_v)
				o->lo_v = ph[i].p_vaddr;
			if (ph[i].p_vaddr + ph[i].p_memsz > o->hi_v)
				o->hi_v = ph[i].p_vaddr + ph[i].p_memsz;
		}
		if (ph[i].p_type != PT_GNU_EH_FRAME ||
		    ph[i].p_offset + 12 > o->len)
			continue;
		/* What every linker writes: the .eh_frame pointer pcrel
		 * sdata4, the count udata4, the table datarel sdata4 (the
		 * encoding dwarf_search_unwind_table reads).  Anything else
		 * is left without a table, as libunwind's own local
		 * lookup would. */
		const uint8_t *h = o->img + ph[i].p_offset;
		if (h[0] != 1 || h[1] != 0x1b || h[2] != 0x03 || h[3] != 0x3b)
			continue;
		uint32_t n;
		memcpy(&n, h + 8, 4);
		o->hdr_v = ph[i].p_vaddr;
		o->nfde = n;
	}
	if (o->nloads == 0)
		o->lo_v = 0;
}

struct lu_files {
	struct lu_obj *head;
};

static struct lu_obj *lu_files_get(struct lu_files *fs, const char *path)
{
	for (struct lu_obj *o = fs->head; o; o = o->next)
		if (strcmp(o->path, path) == 0)
			return o;
	struct lu_obj *o = calloc(1, sizeof(*o));
	if (o == NULL)
		return NULL;
	o->path = strdup(path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd >= 0 && fstat(fd, &sb) == 0 && sb.st_size > 0) {
		void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE,
			       fd, 0);
		if (p != MAP_FAILED) {
			o->img = p;
			o->len = (size_t)sb.st_size;
			lu_obj_parse(o);
		}
	}
	if (fd >= 0)
		close(fd);
	o->next = fs->head;
	fs->head = o;
	return o;
}

static void lu_files_free(struct lu_files *fs)
{
	for (struct lu_obj *o = fs->head, *nx; o; o = nx) {
		nx = o->next;
		if (o->img)
			munmap((void *)o->img, o->len);
		free(o->path);
		free(o);
	}
	fs->head = NULL;
}

/* ---- one captured process as libunwind's address space ------------------ */

/* A MODMAP entry with its object and load bias (runtime address - ELF
 * address). */
struct lu_bind {
	const struct dlt_umod *m;
	const struct lu_obj *o;
	uint64_t bias;
};

struct lu_proc {
	const struct cap *c;
	struct lu_bind *b;
	size_t nb;
	unw_addr_space_t as;
};

/* The bias from the executable PT_LOAD the mapping's file offset falls
 * in; without one, the file offset stands for the ELF address (as the
 * namer does). */
static uint64_t lu_bias(const struct dlt_umod *m, const struct lu_obj *o)
{
	for (int i = 0; o && i < o->nloads; i++) {
		const Elf64_Phdr *p = &o->loads[i];
		uint64_t pg = p->p_offset & ~(uint64_t)0xfff;
		if ((p->p_flags & PF_X) && m->off >= pg &&
		    m->off < p->p_offset + p->p_filesz)
			return m->lo - m->off - (p->p_vaddr - p->p_offset);
	}
	return m->lo - m->off;
}

/* The object holding runtime address a (any of its PT_LOADs), for the
 * tables and the file bytes. */
static const struct lu_bind *lu_obj_at(const struct lu_proc *p, uint64_t a)
{
	for (size_t i = 0; i < p->nb; i++) {
		const struct lu_bind *b = &p->b[i];
		if (b->o && b->o->nloads && a >= b->bias + b->o->lo_v &&
		    a < b->bias + b->o->hi_v)
			return b;
	}
	return NULL;
}

/* The executable mapping holding a, for naming (the MODMAP's view). */
static const struct lu_bind *lu_map_at(const struct lu_proc *p, uint64_t a)
{
	for (size_t i = 0; i < p->nb; i++)
		if (a >= p->b[i].m->lo && a < p->b[i].m->hi)
			return &p->b[i];
	return NULL;
}

static int lu_read(const struct lu_proc *p, uint64_t a, uint8_t out[8])
{
	const struct dlt_ustack *st = &p->c->st;
	if (a >= st->sp && a - st->sp <= st->len &&
	    st->len - (a - st->sp) >= 8) {
		memcpy(out, st->bytes + (a - st->sp), 8);
		return 0;
	}
	const struct lu_bind *b = lu_obj_at(p, a);
	if (b == NULL || b->o->img == NULL)
		return -1;
	uint64_t v = a - b->bias;
	for (int i = 0; i < b->o->nloads; i++) {
		const Elf64_Phdr *ph = &b->o->loads[i];
		if (v < ph->p_vaddr || v >= ph->p_vaddr + ph->p_filesz)
			continue;
		uint64_t fo = v - ph->p_vaddr + ph->p_offset;
		if (fo >= b->o->len)
			return -1;
		/* libunwind reads whole aligned words: the last one of a
		 * segment may reach past its bytes. */
		uint64_t n = ph->p_vaddr + ph->p_filesz - v;
		if (n > b->o->len - fo)
			n = b->o->len - fo;
		if (n > 8)
			n = 8;
		memset(out, 0, 8);
		memcpy(out, b->o->img + fo, n);
		return 0;
	}
	return -1;
}

static int lu_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
			 int write, void *arg)
{
	(void)as;
	if (write)
		return -UNW_EINVAL;
	uint8_t w[8];
	if (lu_read(arg, addr, w) != 0)
		return -UNW_EINVAL;
	memcpy(val, w, 8);
	return 0;
}

/* libunwind's register numbers against the capture's (DWARF's). */
static const struct {
	int unw, dwarf;
} lu_regs[] = {
	{UNW_X86_64_RAX, 0},  {UNW_X86_64_RDX, 1},  {UNW_X86_64_RCX, 2},
	{UNW_X86_64_RBX, 3},  {UNW_X86_64_RSI, 4},  {UNW_X86_64_RDI, 5},
	{UNW_X86_64_RBP, 6},  {UNW_X86_64_RSP, 7},  {UNW_X86_64_R8, 8},
	{UNW_X86_64_R9, 9},   {UNW_X86_64_R10, 10}, {UNW_X86_64_R11, 11},
	{UNW_X86_64_R12, 12}, {UNW_X86_64_R13, 13}, {UNW_X86_64_R14, 14},
	{UNW_X86_64_R15, 15}, {UNW_X86_64_RIP, 16},
};

static int lu_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
			 int write, void *arg)
{
	(void)as;
	const struct dlt_ustack *st = &((const struct lu_proc *)arg)->c->st;
	if (write)
		return -UNW_EREADONLYREG;
	for (size_t i = 0; i < sizeof(lu_regs) / sizeof(lu_regs[0]); i++) {
		if (lu_regs[i].unw != reg)
			continue;
		if (!(st->regs_known >> lu_regs[i].dwarf & 1))
			return -UNW_EBADREG;
		*val = st->regs[lu_regs[i].dwarf];
		return 0;
	}
	return -UNW_EBADREG;
}

static int lu_access_fpreg(unw_addr_space_t as, unw_regnum_t reg,
			   unw_fpreg_t *val, int write, void *arg)
{
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EBADREG;
}

static int lu_find_proc_info(unw_addr_space_t as, unw_word_t ip,
			     unw_proc_info_t *pi, int need_unwind_info,
			     void *arg)
{
	const struct lu_bind *b = lu_obj_at(arg, ip);
	if (b == NULL || b->o->hdr_v == 0)
		return -UNW_ENOINFO;
	unw_dyn_info_t di;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = b->bias + b->o->lo_v;
	di.end_ip = b->bias + b->o->hi_v;
	/* The table's entries are relative to .eh_frame_hdr (datarel),
	 * which is what segbase means here; its length is in words. */
	di.u.rti.segbase = b->bias + b->o->hdr_v;
	di.u.rti.table_data = di.u.rti.segbase + 12;
	di.u.rti.table_len = b->o->nfde * 8 / sizeof(unw_word_t);
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi,
						  need_unwind_info, arg);
}

static void lu_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi,
			       void *arg)
{
	/* The table search's unwind info is libunwind's own, freed by it. */
	(void)as;
	(void)pi;
	(void)arg;
}

static int lu_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil,
				     void *arg)
{
	/* A recorded process registers no JIT unwind info we could read. */
	(void)as;
	(void)dil;
	(void)arg;
	return -UNW_ENOINFO;
}

static int lu_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as;
	(void)c;
	(void)arg;
	return -UNW_EINVAL;
}

static int lu_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf,
			    size_t len, unw_word_t *off, void *arg)
{
	/* dlt_unwind_name names the frames. */
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)off;
	(void)arg;
	return -UNW_ENOINFO;
}

static unw_accessors_t lu_accessors = {
	.find_proc_info = lu_find_proc_info,
	.put_unwind_info = lu_put_unwind_info,
	.get_dyn_info_list_addr = lu_get_dyn_info_list_addr,
	.access_mem = lu_access_mem,
	.access_reg = lu_access_reg,
	.access_fpreg = lu_access_fpreg,
	.resume = lu_resume,
	.get_proc_name = lu_get_proc_name,
};

/* Everything libunwind's side keeps between stacks: the files, a process
 * (bindings and address space) per capture, the namer. */
struct lu_run {
	const struct ucaps *uc;
	struct lu_files files;
	struct lu_proc *procs; /* per capture; as NULL until first used */
	struct dlt_unwinder *u;
};

static void lu_run_init(struct lu_run *r, const struct ucaps *uc)
{
	memset(r, 0, sizeof(*r));
	r->uc = uc;
	r->procs = calloc(uc->n, sizeof(*r->procs));
	r->u = dlt_unwinder_new(NULL);
}

static void lu_run_free(struct lu_run *r)
{
	for (size_t i = 0; i < r->uc->n; i++) {
		if (r->procs[i].as)
			unw_destroy_addr_space(r->procs[i].as);
		free(r->procs[i].b);
	}
	free(r->procs);
	lu_files_free(&r->files);
	dlt_unwinder_free(r->u);
}

static struct lu_proc *lu_proc_of(struct lu_run *r, size_t ci)
{
	struct lu_proc *p = &r->procs[ci];
	if (p->as)
		return p;
	const struct cap *c = &r->uc->caps[ci];
	p->c = c;
	p->b = calloc(c->map.n ? c->map.n : 1, sizeof(*p->b));
	for (size_t i = 0; i < c->map.n; i++) {
		struct lu_bind *b = &p->b[p->nb++];
		b->m = &c->map.m[i];
		b->o = lu_files_get(&r->files, b->m->path);
		b->bias = lu_bias(b->m, b->o);
	}
	p->as = unw_create_addr_space(&lu_accessors, 0);
	unw_set_caching_policy(p->as, UNW_CACHE_GLOBAL);
	return p;
}

struct lu_ip {
	uint64_t ip;
	int sig; /* libunwind took it for a signal frame */
};

/* What unw_is_signal_frame() says of a cursor changed: libunwind 1.6 (its
 * x86-64 code) answers whether the step that reached this frame went
 * through a signal frame (the CIE's "S" of the frame before), later
 * versions whether the pc is at the sigreturn sequence. */
#if UNW_VERSION_MAJOR == 1 && UNW_VERSION_MINOR <= 6
#define LU_SIG_LAGS 1
#else
#define LU_SIG_LAGS 0
#endif

static size_t lu_unwind(struct lu_proc *p, struct lu_ip *out, size_t cap,
			char *stop, size_t stop_cap)
{
	unw_cursor_t cur;
	int r = unw_init_remote(&cur, p->as, p);
	if (r < 0) {
		snprintf(stop, stop_cap, "init: %s", unw_strerror(r));
		return 0;
	}
	size_t n = 0;
	for (;;) {
		if (n == cap) {
			snprintf(stop, stop_cap, "frame limit");
			break;
		}
		unw_word_t ip;
		if ((r = unw_get_reg(&cur, UNW_REG_IP, &ip)) < 0) {
			snprintf(stop, stop_cap, "ip: %s", unw_strerror(r));
			break;
		}
		out[n].ip = ip;
		out[n].sig = 0;
		if (unw_is_signal_frame(&cur) > 0) {
			if (!LU_SIG_LAGS)
				out[n].sig = 1;
			else if (n > 0)
				out[n - 1].sig = 1;
		}
		n++;
		r = unw_step(&cur);
		if (r <= 0) {
			snprintf(stop, stop_cap, "%s",
				 r == 0 ? "outermost frame" : unw_strerror(r));
			break;
		}
	}
	return n;
}

/* libunwind's pcs named as dlt_unwind names its own: a return address at
 * pc - 1 unless the frame before was a signal frame, the signal
 * restorer at its first instruction where pc - 1 names nothing. */
static size_t lu_name(struct dlt_unwinder *u, const struct lu_proc *p,
		      const struct lu_ip *ips, size_t n, struct dlt_uframe *out,
		      size_t cap)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k < cap; i++) {
		int caller = i > 0 && !ips[i - 1].sig;
		const struct lu_bind *b = lu_map_at(p, ips[i].ip);
		size_t m = 1;
		if (b == NULL) {
			memset(&out[k], 0, sizeof(out[k]));
			out[k].unnamed = "no file mapped";
		} else {
			uint64_t rel = ips[i].ip - b->bias;
			m = dlt_unwind_name(u, b->m->path, b->m->build_id,
					    b->m->build_id_len, rel, caller,
					    &out[k], cap - k);
			struct dlt_uframe *self = &out[k + m - 1];
			if (ips[i].sig && caller && self->func[0] == '\0') {
				struct dlt_uframe t[4];
				size_t tn = dlt_unwind_name(
					u, b->m->path, b->m->build_id,
					b->m->build_id_len, rel, 0, t, 4);
				if (t[tn - 1].func[0])
					*self = t[tn - 1];
			}
		}
		for (size_t j = 0; j < m; j++) {
			out[k + j].pc = ips[i].ip;
			out[k + j].caller = (uint8_t)caller;
		}
		out[k + m - 1].signal = (uint8_t)ips[i].sig;
		k += m;
	}
	return k;
}

/* ---- the passes --------------------------------------------------------- */

struct group {
	const char *name;
	size_t *idx; /* its captures */
	size_t n;
};

static double dlt_pass(struct dlt_unwinder *u, const struct ucaps *uc,
		       const struct group *g, size_t stacks)
{
	static struct dlt_uframe f[CMP_FRAMES];
	char stop[256];
	double t0 = now_ms();
	for (size_t i = 0; i < stacks; i++) {
		const struct cap *c = &uc->caps[g->idx[i % g->n]];
		dlt_unwind(u, &c->map, &c->st, f, CMP_FRAMES, stop,
			   sizeof(stop));
	}
	return (now_ms() - t0) * 10000.0 / (double)stacks;
}

static double lu_pass(struct lu_run *r, const struct group *g, size_t stacks,
		      int name)
{
	static struct dlt_uframe f[CMP_FRAMES];
	struct lu_ip ips[CMP_FRAMES];
	char stop[256];
	double t0 = now_ms();
	for (size_t i = 0; i < stacks; i++) {
		struct lu_proc *p = lu_proc_of(r, g->idx[i % g->n]);
		size_t n = lu_unwind(p, ips, CMP_FRAMES, stop, sizeof(stop));
		if (name)
			lu_name(r->u, p, ips, n, f, CMP_FRAMES);
	}
	return (now_ms() - t0) * 10000.0 / (double)stacks;
}

/* Milliseconds per 10,000 stacks of g: libdw cold and warm, libunwind
 * cold and warm, libunwind warm without naming. */
static void timings(const struct ucaps *uc, const struct group *g, double t[5])
{
	struct dlt_unwinder *du = dlt_unwinder_new(NULL);
	t[0] = dlt_pass(du, uc, g, uc->stacks);
	t[1] = dlt_pass(du, uc, g, uc->stacks);
	dlt_unwinder_free(du);
	struct lu_run r;
	lu_run_init(&r, uc);
	t[2] = lu_pass(&r, g, uc->stacks, 1);
	t[3] = lu_pass(&r, g, uc->stacks, 1);
	t[4] = lu_pass(&r, g, uc->stacks, 0);
	lu_run_free(&r);
}

/* ---- the comparison ----------------------------------------------------- */

static const char *fkey(const struct dlt_uframe *f, char *buf, size_t cap)
{
	if (f->func[0])
		return f->func;
	return dlt_uframe_format(f, buf, cap);
}

/* The first index where the function sequences differ, or -1. */
static long first_diff(const struct dlt_uframe *a, size_t na,
		       const struct dlt_uframe *b, size_t nb)
{
	char x[512], y[512];
	size_t n = na < nb ? na : nb;
	for (size_t i = 0; i < n; i++)
		if (strcmp(fkey(&a[i], x, sizeof(x)),
			   fkey(&b[i], y, sizeof(y))) != 0)
			return (long)i;
	return na == nb ? -1 : (long)n;
}

struct side {
	struct dlt_uframe f[CMP_FRAMES];
	size_t n, scanned;
	char stop[256];
};

static void both(struct dlt_unwinder *du, struct lu_run *r, size_t ci,
		 struct side *d, struct side *l)
{
	const struct cap *c = &r->uc->caps[ci];
	d->n = dlt_unwind(du, &c->map, &c->st, d->f, CMP_FRAMES, d->stop,
			  sizeof(d->stop));
	d->scanned = 0;
	for (size_t i = 0; i < d->n; i++)
		d->scanned += d->f[i].how == DLT_UF_SCAN;
	struct lu_ip ips[CMP_FRAMES];
	struct lu_proc *p = lu_proc_of(r, ci);
	size_t n = lu_unwind(p, ips, CMP_FRAMES, l->stop, sizeof(l->stop));
	l->n = lu_name(r->u, p, ips, n, l->f, CMP_FRAMES);
	l->scanned = 0;
}

static void show(const char *name, const struct side *d, const struct side *l)
{
	static const char hows[] = "?rcsi";
	printf("\n%s  (libdw: %s | libunwind: %s)\n", name, d->stop, l->stop);
	size_t n = d->n > l->n ? d->n : l->n;
	for (size_t i = 0; i < n; i++) {
		char a[300] = "", b[300] = "";
		if (i < d->n)
			dlt_uframe_format(&d->f[i], a, sizeof(a));
		if (i < l->n)
			dlt_uframe_format(&l->f[i], b, sizeof(b));
		char x[512], y[512];
		int same = i < d->n && i < l->n &&
			   strcmp(fkey(&d->f[i], x, sizeof(x)),
				  fkey(&l->f[i], y, sizeof(y))) == 0;
		printf("  %2zu %c %c%-44.44s %s %s%s\n", i,
		       i < d->n ? hows[d->f[i].how <= 4 ? d->f[i].how : 0]
				: ' ',
		       i < d->n && d->f[i].signal ? '!' : ' ', a,
		       same ? "  " : "<>",
		       i < l->n && l->f[i].signal ? "!" : "", b);
	}
}

int main(int argc, char **argv)
{
	struct ucaps uc;
	if (ucaps_gather(&uc, argc, argv, "unwind_cmp") != 0)
		return 1;
	/* The groups: each program's runs, then all of them together (what
	 * unwind_bench measures). */
	struct group *gs = calloc(uc.n + 1, sizeof(*gs));
	size_t ng = 0;
	for (size_t i = 0; i < uc.n; i++) {
		size_t g = 0;
		while (g < ng && strcmp(gs[g].name, uc.prog[i]) != 0)
			g++;
		if (g == ng) {
			gs[ng].name = uc.prog[i];
			gs[ng].idx = calloc(uc.n, sizeof(size_t));
			ng++;
		}
		gs[g].idx[gs[g].n++] = i;
	}
	struct group all = {"all", calloc(uc.n, sizeof(size_t)), uc.n};
	for (size_t i = 0; i < uc.n; i++)
		all.idx[i] = i;
	gs[ng++] = all;

	printf("unwind_cmp: libdw (dlt_unwind) against libunwind %d.%d "
	       "remote, %zu captures; ms per 10,000 stacks, unwound and "
	       "named\n",
	       UNW_VERSION_MAJOR, UNW_VERSION_MINOR, uc.n);
	printf("cold: a new unwinder (libunwind: new address spaces, files, "
	       "namer); warm: the same again (UNW_CACHE_GLOBAL)\n\n");
	printf("| program | runs | frames libdw (scanned) | frames libunwind "
	       "| same functions | libdw cold | libdw warm | libunwind cold "
	       "| libunwind warm | libunwind warm, unwind only |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|\n");
	static struct side d, l;
	for (size_t g = 0; g < ng; g++) {
		const struct group *gr = &gs[g];
		const char *base = strrchr(gr->name, '/');
		base = base ? base + 1 : gr->name;
		char frames_d[64] = "-", frames_l[64] = "-", same[96] = "-";
		if (gr != &gs[ng - 1]) {
			/* Every run compared; the counts are the first
			 * run's. */
			struct dlt_unwinder *du = dlt_unwinder_new(NULL);
			struct lu_run r;
			lu_run_init(&r, &uc);
			size_t eq = 0;
			long at = -1;
			for (size_t k = 0; k < gr->n; k++) {
				both(du, &r, gr->idx[k], &d, &l);
				long df = first_diff(d.f, d.n, l.f, l.n);
				eq += df < 0;
				if (k == 0) {
					snprintf(frames_d, sizeof(frames_d),
						 "%zu (%zu)", d.n, d.scanned);
					snprintf(frames_l, sizeof(frames_l),
						 "%zu", l.n);
					at = df;
				}
			}
			if (eq == gr->n)
				snprintf(same, sizeof(same), "yes (%zu/%zu)",
					 eq, gr->n);
			else
				snprintf(same, sizeof(same),
					 "no (%zu/%zu equal; run 1 from "
					 "frame %ld)",
					 eq, gr->n, at);
			lu_run_free(&r);
			dlt_unwinder_free(du);
		}
		double t[5];
		timings(&uc, gr, t);
		printf("| %s | %zu | %s | %s | %s | %.1f | %.1f | %.1f | %.1f "
		       "| %.1f |\n",
		       base, gr->n, frames_d, frames_l, same, t[0], t[1], t[2],
		       t[3], t[4]);
	}
	/* All the captures again, stat() answered from a table. */
	double t[5];
	cmp_stat_cached = 1;
	timings(&uc, &gs[ng - 1], t);
	cmp_stat_cached = 0;
	printf("| all, stat() cached | %zu | - | - | - | %.1f | %.1f | %.1f | "
	       "%.1f | %.1f |\n",
	       uc.n, t[0], t[1], t[2], t[3], t[4]);

	/* Each program's first run, both stacks: r regs, c CFI, s scanned,
	 * i inlined; ! a signal frame; <> the functions differ. */
	printf("\nThe first run of each, libdw | libunwind (r regs, c CFI, "
	       "s scanned, i inlined; ! signal frame; <> differ):\n");
	for (size_t g = 0; g + 1 < ng; g++) {
		struct dlt_unwinder *du = dlt_unwinder_new(NULL);
		struct lu_run r;
		lu_run_init(&r, &uc);
		both(du, &r, gs[g].idx[0], &d, &l);
		const char *base = strrchr(gs[g].name, '/');
		show(base ? base + 1 : gs[g].name, &d, &l);
		lu_run_free(&r);
		dlt_unwinder_free(du);
	}
	for (size_t g = 0; g < ng; g++)
		free(gs[g].idx);
	free(gs);
	ucaps_free(&uc);
	return 0;
}
