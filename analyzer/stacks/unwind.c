/* The unwinder with elfutils' libdw (unwind.h).  libdw reads the objects
 * (their CFI, symbols, DWARF, debug files); the unwind loop is this
 * file's own, over a copy of the stack that no process owns any more:
 * libdwfl's own unwinder wants a live process or a core file. */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "demangle.h"
#include "unwind.h"
#include "uscan.h"

/* Names found for one address of an object, kept: a process's many stacks
 * share their frames, and names cost most (the DWARF walk of inlines). */
struct dlt_uname_ent {
	uint64_t key;	/* vaddr << 1 | caller */
	uint32_t first; /* in the unwinder's pool */
	uint32_t n;	/* 0: an empty slot */
};

#define DLT_UCMOD_MAX_LOADS 16

/* One object file, opened once per unwinder. */
struct dlt_ucmod {
	struct dlt_ucmod *next;
	char *path;  /* as the process mapped it */
	char *fpath; /* where it is read here: under DLTRACE_SYSROOT */
	const char *base;
	/* The key: the build-id the process had mapped, or when it had none,
	 * the file's size and time as found here. */
	uint8_t kid[32];
	uint32_t kid_len;
	uint64_t ksize;
	int64_t kmtime;
	/* NULL: names and CFI may come from the file; else why not. */
	const char *why;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	GElf_Addr bias; /* dwfl's addresses - the file's ELF addresses */
	int has_symtab;
	Dwarf_CFI *eh, *dbg;
	Dwarf_Addr eh_bias, dbg_bias;
	int dbg_tried;
	GElf_Phdr loads[DLT_UCMOD_MAX_LOADS];
	int nloads;
	/* The file, for the scan's look at the instruction before a word. */
	const uint8_t *img;
	size_t img_len;
	struct dlt_uname_ent *names;
	size_t names_cap, names_n;
};

#define DLT_UNWINDER_BUCKETS 512

struct dlt_unwinder {
	char *dpath;
	/* DLTRACE_SYSROOT: the files of the traced machine copied or mounted
	 * under a folder (another machine's trace, a container's image);
	 * "" reads them where the trace says. */
	char *root;
	Dwfl_Callbacks cb;
	struct dlt_ucmod *tab[DLT_UNWINDER_BUCKETS];
	struct dlt_uframe *pool;
	size_t pool_n, pool_cap;
};

struct dlt_unwinder *dlt_unwinder_new(const char *debug_dirs)
{
	struct dlt_unwinder *u = calloc(1, sizeof(*u));
	if (u == NULL)
		return NULL;
	if (debug_dirs == NULL)
		debug_dirs = getenv("DLTRACE_DEBUG_DIRS");
	if (debug_dirs == NULL || debug_dirs[0] == '\0')
		debug_dirs = "/usr/lib/debug";
	/* libdwfl's search path: "" the object's folder and ".debug" below
	 * it (debuglinks), then the absolute folders (build-ids there, and
	 * debuglinks under the object's path). */
	if (asprintf(&u->dpath, ":.debug:%s", debug_dirs) < 0) {
		free(u);
		return NULL;
	}
	/* Offline means offline: with DEBUGINFOD_URLS set (Debian's profile
	 * sets it), libdw would ask a server over the network for every
	 * file without a local debug file, and a verdict would wait on it.
	 * DLTRACE_DEBUGINFOD=1 lets it. */
	const char *dbgd = getenv("DLTRACE_DEBUGINFOD");
	if (dbgd == NULL || strcmp(dbgd, "1") != 0)
		unsetenv("DEBUGINFOD_URLS");
	const char *root = getenv("DLTRACE_SYSROOT");
	u->root = strdup(root ? root : "");
	if (u->root == NULL) {
		free(u->dpath);
		free(u);
		return NULL;
	}
	u->cb.find_elf = dwfl_build_id_find_elf;
	u->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	u->cb.section_address = dwfl_offline_section_address;
	u->cb.debuginfo_path = &u->dpath;
	return u;
}

void dlt_unwinder_free(struct dlt_unwinder *u)
{
	if (u == NULL)
		return;
	for (size_t b = 0; b < DLT_UNWINDER_BUCKETS; b++)
		for (struct dlt_ucmod *cm = u->tab[b], *nx; cm; cm = nx) {
			nx = cm->next;
			if (cm->dwfl)
				dwfl_end(cm->dwfl);
			if (cm->img)
				munmap((void *)cm->img, cm->img_len);
			free(cm->names);
			free(cm->path);
			free(cm->fpath);
			free(cm);
		}
	free(u->pool);
	free(u->dpath);
	free(u->root);
	free(u);
}

static uint64_t dlt_ufnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Opens the file of cm (cm->path), checked against the recorded build-id:
 * fills everything after the key. */
static void dlt_ucmod_open(struct dlt_unwinder *u, struct dlt_ucmod *cm)
{
	cm->dwfl = dwfl_begin(&u->cb);
	if (cm->dwfl == NULL) {
		cm->why = "libdw failed";
		return;
	}
	/* At bias 0 (base 0, p_vaddr added): the module's addresses are the
	 * file's own, whatever the process's load address was. */
	cm->mod = dwfl_report_elf(cm->dwfl, cm->base, cm->fpath, -1, 0, true);
	dwfl_report_end(cm->dwfl, NULL, NULL);
	if (cm->mod)
		cm->elf = dwfl_module_getelf(cm->mod, &cm->bias);
	if (cm->elf == NULL) {
		cm->why = "not an ELF object";
		return;
	}
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(cm->mod, &bits, &vaddr);
	/* The record keeps the note's first bytes (24 at most). */
	if (cm->kid_len &&
	    (n < (int)cm->kid_len || memcmp(bits, cm->kid, cm->kid_len) != 0))
		/* Another build: its symbols and its CFI would describe
		 * other code.  Its program headers are still taken below, so
		 * that rel reads about right. */
		cm->why = "build-id differs";
	size_t nph = 0;
	if (elf_getphdrnum(cm->elf, &nph) == 0)
		for (size_t i = 0; i < nph && cm->nloads < DLT_UCMOD_MAX_LOADS;
		     i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(cm->elf, (int)i, &ph) &&
			    ph.p_type == PT_LOAD)
				cm->loads[cm->nloads++] = ph;
		}
	for (Elf_Scn *s = NULL; (s = elf_nextscn(cm->elf, s)) != NULL;) {
		GElf_Shdr sh;
		if (gelf_getshdr(s, &sh) && sh.sh_type == SHT_SYMTAB)
			cm->has_symtab = 1;
	}
	if (cm->why)
		return;
	/* A mapping of its own: libelf may have read the file rather than
	 * mapped it, and keeps only what it parsed. */
	FILE *f = fopen(cm->fpath, "rb");
	if (f) {
		struct stat sb;
		if (fstat(fileno(f), &sb) == 0 && sb.st_size > 0) {
			void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ,
				       MAP_PRIVATE, fileno(f), 0);
			if (p != MAP_FAILED) {
				cm->img = p;
				cm->img_len = (size_t)sb.st_size;
			}
		}
		fclose(f);
	}
	cm->eh = dwfl_module_eh_cfi(cm->mod, &cm->eh_bias);
}

/* The object at path with that build-id, opened on first use. */
static struct dlt_ucmod *dlt_ucmod_get(struct dlt_unwinder *u, const char *path,
				       const uint8_t *bid, uint32_t bid_len)
{
	if (bid == NULL || bid_len > 32)
		bid_len = 0;
	if (path == NULL)
		path = "";
	uint64_t h = dlt_ufnv(0xcbf29ce484222325ull, path, strlen(path));
	h = bid_len ? dlt_ufnv(h, bid, bid_len) : h;
	size_t b = (size_t)(h % DLT_UNWINDER_BUCKETS);
	/* With a build-id the key needs no look at the file: a stat per
	 * mapping per stack was half of the unwinding's time. */
	if (bid_len)
		for (struct dlt_ucmod *cm = u->tab[b]; cm; cm = cm->next)
			if (cm->kid_len == bid_len &&
			    memcmp(cm->kid, bid, bid_len) == 0 &&
			    strcmp(cm->path, path) == 0)
				return cm;
	char *fpath = NULL;
	if (asprintf(&fpath, "%s%s", u->root, path) < 0)
		return NULL;
	struct stat sb;
	/* Only a regular file: a damaged trace may name a FIFO or a
	 * device, which opening would block on or read without end. */
	int found =
		path[0] == '/' && stat(fpath, &sb) == 0 && S_ISREG(sb.st_mode);
	uint64_t size = found ? (uint64_t)sb.st_size : 0;
	int64_t mtime = found ? (int64_t)sb.st_mtime : 0;
	if (!bid_len)
		for (struct dlt_ucmod *cm = u->tab[b]; cm; cm = cm->next)
			if (cm->kid_len == 0 && strcmp(cm->path, path) == 0 &&
			    cm->ksize == size && cm->kmtime == mtime) {
				free(fpath);
				return cm;
			}
	struct dlt_ucmod *cm = calloc(1, sizeof(*cm));
	if (cm == NULL) {
		free(fpath);
		return NULL;
	}
	cm->fpath = fpath;
	cm->path = strdup(path);
	if (cm->path == NULL) {
		free(cm->fpath);
		free(cm);
		return NULL;
	}
	const char *slash = strrchr(cm->path, '/');
	cm->base = slash ? slash + 1 : cm->path;
	if (bid_len)
		memcpy(cm->kid, bid, bid_len);
	cm->kid_len = bid_len;
	cm->ksize = size;
	cm->kmtime = mtime;
	if (!found)
		cm->why = "file not found";
	else
		dlt_ucmod_open(u, cm);
	cm->next = u->tab[b];
	u->tab[b] = cm;
	return cm;
}

/* File offset fo of cm as an ELF address, through the PT_LOAD holding
 * it (the offset itself when none does). */
static uint64_t dlt_ucmod_vaddr(const struct dlt_ucmod *cm, uint64_t fo)
{
	for (int i = 0; i < cm->nloads; i++) {
		const GElf_Phdr *p = &cm->loads[i];
		if (fo >= p->p_offset && fo < p->p_offset + p->p_filesz)
			return fo - p->p_offset + p->p_vaddr;
	}
	return fo;
}

static void dlt_usrc(char *out, size_t cap, const char *file, int line)
{
	const char *s = file ? strrchr(file, '/') : NULL;
	if (file && line > 0)
		snprintf(out, cap, "%s:%d", s ? s + 1 : file, line);
}

/* The name of an inlined (or any) function's DIE: its linkage name
 * demangled (C++: with its namespaces and templates, as gdb shows it),
 * else its name. */
static void dlt_udie_name(Dwarf_Die *die, char *out, size_t cap)
{
	Dwarf_Attribute a;
	const char *ln = dwarf_formstring(
		dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (ln == NULL)
		ln = dwarf_formstring(
			dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (ln) {
		dlt_demangle(ln, 0, out, cap);
		return;
	}
	const char *n =
		dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	snprintf(out, cap, "%s", n ? n : "");
}

/* Where the inlined subroutine die was called: "file.c:42" into out. */
static void dlt_ucall_site(Dwarf_Die *cu, Dwarf_Die *die, char *out, size_t cap)
{
	Dwarf_Attribute a;
	Dwarf_Word file = 0, line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &file) != 0 ||
	    dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &line) != 0)
		return;
	Dwarf_Files *files;
	size_t nf;
	if (dwarf_getsrcfiles(cu, &files, &nf) != 0 || file >= nf)
		return;
	dlt_usrc(out, cap, dwarf_filesrc(files, file, NULL, NULL), (int)line);
}

/* Names vaddr of cm (looked up at vaddr - 1 for a return address) into
 * out: its inline frames (innermost first), then the function's frame.
 * Returns how many, at least 1 (cap >= 1).  Only the fields of the name
 * are set; pc, how and signal are the caller's. */
static size_t dlt_uname_fill(struct dlt_ucmod *cm, uint64_t vaddr, int caller,
			     struct dlt_uframe *out, size_t cap)
{
	struct dlt_uframe base;
	memset(&base, 0, sizeof(base));
	base.obj = cm->path;
	base.rel = vaddr;
	base.caller = (uint8_t)caller;
	if (cm->why) {
		base.unnamed = cm->why;
		out[0] = base;
		return 1;
	}
	uint64_t look = vaddr - (caller ? 1 : 0);
	Dwarf_Addr addr = look + cm->bias;
	GElf_Off off = 0;
	GElf_Sym sym;
	Elf *selt = NULL;
	GElf_Addr sbias = 0;
	const char *nm = dwfl_module_addrinfo(cm->mod, addr, &off, &sym, NULL,
					      &selt, &sbias);
	/* libdwfl falls back on the nearest symbol before the address when
	 * none covers it: that one is not the function.  A symbol without a
	 * size (assembly, such as the C library's signal restorer) names
	 * only its own first address. */
	if (nm && nm[0] &&
	    ((sym.st_size > 0 && off < sym.st_size) ||
	     (sym.st_size == 0 && off == 0))) {
		/* A .symtab names versioned definitions "name@@VERSION":
		 * the version is not the function's name. */
		char plain[256];
		snprintf(plain, sizeof(plain), "%.*s", (int)strcspn(nm, "@"),
			 nm);
		dlt_demangle(plain, 0, base.func, sizeof(base.func));
		base.func_off = off + (caller ? 1 : 0);
		base.name_src = selt != cm->elf	 ? "debug file"
				: cm->has_symtab ? "symtab"
						 : "dynsym";
	} else {
		base.unnamed = "no symbol covers it";
	}
	Dwarf_Addr cubias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(cm->mod, addr, &cubias);
	/* Only within a unit that covers it: past the end of a unit's
	 * line table (crt1.o's _start after main's unit) the nearest row
	 * would be another function's. */
	Dwfl_Line *l = cu ? dwfl_module_getsrc(cm->mod, addr) : NULL;
	char lsrc[256] = "";
	if (l) {
		int line = 0;
		const char *f = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
		dlt_usrc(lsrc, sizeof(lsrc), f, line);
	}
	size_t n = 0;
	Dwarf_Die *scopes = NULL, *chain = NULL;
	int ns = cu ? dwarf_getscopes(cu, addr - cubias, &scopes) : 0;
	/* dwarf_getscopes follows an inlined subroutine with the scopes of
	 * its out-of-line definition; the levels it was inlined through are
	 * the scopes that contain its DIE where it was inlined. */
	int first = 0;
	while (first < ns && dwarf_tag(&scopes[first]) != DW_TAG_subprogram &&
	       dwarf_tag(&scopes[first]) != DW_TAG_inlined_subroutine)
		first++;
	int nc = 0;
	if (first < ns &&
	    dwarf_tag(&scopes[first]) == DW_TAG_inlined_subroutine)
		nc = dwarf_getscopes_die(&scopes[first], &chain);
	/* Lexical blocks sit between the levels: the inlined subroutines
	 * among the scopes up to the function. */
	int ninl = 0;
	int idx[64];
	for (int i = 0; i < nc && ninl < 64; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (tag == DW_TAG_inlined_subroutine)
			idx[ninl++] = i;
	}
	if ((size_t)ninl >= cap)
		ninl = (int)cap - 1;
	/* gdb's way: the innermost level at the address's line, each outer
	 * one at the call site of the level inside it. */
	for (int j = 0; j < ninl; j++) {
		struct dlt_uframe *f = &out[n++];
		*f = base;
		f->how = DLT_UF_INLINE;
		f->func_off = 0;
		f->unnamed = NULL;
		f->name_src = "debug file";
		if (selt == cm->elf && cm->has_symtab)
			f->name_src = "symtab";
		dlt_udie_name(&chain[idx[j]], f->func, sizeof(f->func));
		if (f->func[0] == '\0')
			f->unnamed = "no name in DWARF", f->name_src = NULL;
		if (j == 0)
			snprintf(f->src, sizeof(f->src), "%s", lsrc);
		else
			dlt_ucall_site(cu, &chain[idx[j - 1]], f->src,
				       sizeof(f->src));
	}
	struct dlt_uframe *f = &out[n++];
	*f = base;
	if (ninl == 0)
		snprintf(f->src, sizeof(f->src), "%s", lsrc);
	else
		dlt_ucall_site(cu, &chain[idx[ninl - 1]], f->src,
			       sizeof(f->src));
	free(chain);
	free(scopes);
	return n;
}

/* dlt_uname_fill through the object's cache. */
static size_t dlt_uname(struct dlt_unwinder *u, struct dlt_ucmod *cm,
			uint64_t vaddr, int caller, struct dlt_uframe *out,
			size_t cap)
{
	uint64_t key = vaddr << 1 | (caller ? 1 : 0);
	if (cm->names_n * 2 >= cm->names_cap) {
		size_t ncap = cm->names_cap ? cm->names_cap * 2 : 64;
		struct dlt_uname_ent *t = calloc(ncap, sizeof(*t));
		if (t == NULL)
			return dlt_uname_fill(cm, vaddr, caller, out, cap);
		for (size_t i = 0; i < cm->names_cap; i++) {
			if (cm->names[i].n == 0)
				continue;
			size_t s = (size_t)(cm->names[i].key *
						    0x9e3779b97f4a7c15ull >>
					    20) &
				   (ncap - 1);
			while (t[s].n)
				s = (s + 1) & (ncap - 1);
			t[s] = cm->names[i];
		}
		free(cm->names);
		cm->names = t;
		cm->names_cap = ncap;
	}
	size_t s = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) &
		   (cm->names_cap - 1);
	for (; cm->names[s].n; s = (s + 1) & (cm->names_cap - 1)) {
		if (cm->names[s].key != key)
			continue;
		size_t n = cm->names[s].n;
		const struct dlt_uframe *src = &u->pool[cm->names[s].first];
		/* The innermost levels and the function's frame when cap
		 * cuts them. */
		if (n > cap) {
			memcpy(out, src, (cap - 1) * sizeof(*out));
			out[cap - 1] = src[n - 1];
			return cap;
		}
		memcpy(out, src, n * sizeof(*out));
		return n;
	}
	struct dlt_uframe tmp[65];
	size_t n = dlt_uname_fill(cm, vaddr, caller, tmp, 65);
	if (u->pool_n + n > u->pool_cap) {
		size_t ncap = u->pool_cap ? u->pool_cap * 2 : 256;
		while (ncap < u->pool_n + n)
			ncap *= 2;
		struct dlt_uframe *p = realloc(u->pool, ncap * sizeof(*p));
		if (p) {
			u->pool = p;
			u->pool_cap = ncap;
		}
	}
	if (u->pool_n + n <= u->pool_cap && u->pool_n + n <= UINT32_MAX) {
		memcpy(&u->pool[u->pool_n], tmp, n * sizeof(*tmp));
		cm->names[s].key = key;
		cm->names[s].first = (uint32_t)u->pool_n;
		cm->names[s].n = (uint32_t)n;
		cm->names_n++;
		u->pool_n += n;
	}
	if (n > cap) {
		memcpy(out, tmp, (cap - 1) * sizeof(*out));
		out[cap - 1] = tmp[n - 1];
		return cap;
	}
	memcpy(out, tmp, n * sizeof(*out));
	return n;
}

size_t dlt_unwind_name(struct dlt_unwinder *u, const char *path,
		       const uint8_t *build_id, uint32_t build_id_len,
		       uint64_t rel, int caller, struct dlt_uframe *out,
		       size_t cap)
{
	if (cap == 0)
		return 0;
	struct dlt_ucmod *cm = dlt_ucmod_get(u, path, build_id, build_id_len);
	if (cm == NULL) {
		memset(out, 0, sizeof(*out));
		out->pc = rel;
		out->rel = rel;
		out->unnamed = "out of memory";
		return 1;
	}
	size_t n = dlt_uname(u, cm, rel, caller, out, cap);
	for (size_t i = 0; i < n; i++) {
		out[i].pc = rel;
		if (out[i].how != DLT_UF_INLINE)
			out[i].how = caller ? DLT_UF_CFI : DLT_UF_REGS;
	}
	return n;
}

/* ---- the unwind ------------------------------------------------------ */

/* The architectures, as tables: the registers CFI recovers, the column
 * of the return address and where the caller's pc comes from. */
struct dlt_uarch {
	uint16_t arch;
	int ncols;	  /* CFI columns 0..ncols-1 unwound */
	int ra_col;	  /* the return address column */
	int pc_reg;	  /* regs[] index of the pc */
	int sp_reg;	  /* and of the stack pointer (its caller's: the CFA) */
	uint64_t ra_mask; /* bits of a return address that are address */
};

static const struct dlt_uarch dlt_uarchs[] = {
	{DLT_ARCH_X86_64, 17, 16, DLT_RAW_REG_PC_X86_64, DLT_RAW_REG_SP_X86_64,
	 ~0ull},
	/* AArch64's return addresses may carry a pointer authentication
	 * code in their top bits (48-bit addresses assumed). */
	{DLT_ARCH_AARCH64, 32, 30, DLT_RAW_REG_PC_AARCH64,
	 DLT_RAW_REG_SP_AARCH64, 0x0000ffffffffffffull},
};

/* What an expression is evaluated against: the frame's registers, its
 * CFA, the copy of the stack. */
struct dlt_uctx {
	const struct dlt_ustack *st;
	const uint64_t *regs;
	uint64_t known;
	uint64_t cfa;
	int have_cfa;
	char why[128];
};

static int dlt_uread(struct dlt_uctx *c, uint64_t addr, unsigned size,
		     uint64_t *v)
{
	const struct dlt_ustack *st = c->st;
	if (size > 8 || addr < st->sp || addr - st->sp > st->len ||
	    st->len - (addr - st->sp) < size) {
		snprintf(c->why, sizeof(c->why), "stack copy ends");
		return -1;
	}
	uint64_t w = 0;
	memcpy(&w, st->bytes + (addr - st->sp), size);
	*v = w;
	return 0;
}

static int dlt_ureg(struct dlt_uctx *c, unsigned reg, uint64_t *v)
{
	if (reg >= DLT_RAW_NREGS || !(c->known >> reg & 1)) {
		char b[16];
		snprintf(
			c->why, sizeof(c->why), "register %s not known",
			dlt_uarch_regname(c->st->arch, (int)reg, b, sizeof(b)));
		return -1;
	}
	*v = c->regs[reg];
	return 0;
}

/* Evaluates a DWARF expression of the CFI.  *is_value: it ended with
 * DW_OP_stack_value (the result is the value, not where it is).  0, or -1
 * with c->why. */
static int dlt_ueval(struct dlt_uctx *c, const Dwarf_Op *ops, size_t nops,
		     uint64_t *out, int *is_value)
{
	uint64_t stk[64];
	size_t sp = 0;
	*is_value = 0;
#define DLT_NEED(k)                                                       \
	do {                                                              \
		if (sp < (k)) {                                           \
			snprintf(c->why, sizeof(c->why),                  \
				 "bad CFI expression (stack underflow)"); \
			return -1;                                        \
		}                                                         \
	} while (0)
#define DLT_PUSH(v)                                                      \
	do {                                                             \
		if (sp >= 64) {                                          \
			snprintf(c->why, sizeof(c->why),                 \
				 "bad CFI expression (stack overflow)"); \
			return -1;                                       \
		}                                                        \
		uint64_t pv_ = (v);                                      \
		stk[sp++] = pv_;                                         \
	} while (0)
	size_t steps = 0;
	for (size_t i = 0; i < nops; i++) {
		/* Branches can loop: a bound, not a trust. */
		if (++steps > 1000) {
			snprintf(c->why, sizeof(c->why),
				 "bad CFI expression (too long)");
			return -1;
		}
		const Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;
		uint64_t x, y, v;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			DLT_PUSH((uint64_t)(a - DW_OP_lit0));
			continue;
		}
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			if (dlt_ureg(c, a - DW_OP_breg0, &v) != 0)
				return -1;
			DLT_PUSH(v + op->number);
			continue;
		}
		switch (a) {
		case DW_OP_bregx:
			if (dlt_ureg(c, (unsigned)op->number, &v) != 0)
				return -1;
			DLT_PUSH(v + op->number2);
			break;
		case DW_OP_addr:
		case DW_OP_const1u:
		case DW_OP_const1s:
		case DW_OP_const2u:
		case DW_OP_const2s:
		case DW_OP_const4u:
		case DW_OP_const4s:
		case DW_OP_const8u:
		case DW_OP_const8s:
		case DW_OP_constu:
		case DW_OP_consts:
			/* libdw gives the signed ones sign-extended. */
			DLT_PUSH(op->number);
			break;
		case DW_OP_dup:
			DLT_NEED(1);
			DLT_PUSH(stk[sp - 1]);
			break;
		case DW_OP_drop:
			DLT_NEED(1);
			sp--;
			break;
		case DW_OP_over:
			DLT_NEED(2);
			DLT_PUSH(stk[sp - 2]);
			break;
		case DW_OP_pick:
			DLT_NEED(op->number + 1);
			DLT_PUSH(stk[sp - 1 - op->number]);
			break;
		case DW_OP_swap:
			DLT_NEED(2);
			x = stk[sp - 1];
			stk[sp - 1] = stk[sp - 2];
			stk[sp - 2] = x;
			break;
		case DW_OP_rot:
			DLT_NEED(3);
			x = stk[sp - 1];
			stk[sp - 1] = stk[sp - 2];
			stk[sp - 2] = stk[sp - 3];
			stk[sp - 3] = x;
			break;
		case DW_OP_deref:
		case DW_OP_deref_size:
			DLT_NEED(1);
			if (dlt_uread(c, stk[sp - 1],
				      a == DW_OP_deref ? 8
						       : (unsigned)op->number,
				      &v) != 0)
				return -1;
			stk[sp - 1] = v;
			break;
		case DW_OP_abs:
			DLT_NEED(1);
			if ((int64_t)stk[sp - 1] < 0)
				stk[sp - 1] = -stk[sp - 1];
			break;
		case DW_OP_neg:
			DLT_NEED(1);
			stk[sp - 1] = -stk[sp - 1];
			break;
		case DW_OP_not:
			DLT_NEED(1);
			stk[sp - 1] = ~stk[sp - 1];
			break;
		case DW_OP_plus_uconst:
			DLT_NEED(1);
			stk[sp - 1] += op->number;
			break;
		case DW_OP_and:
		case DW_OP_or:
		case DW_OP_xor:
		case DW_OP_plus:
		case DW_OP_minus:
		case DW_OP_mul:
		case DW_OP_div:
		case DW_OP_mod:
		case DW_OP_shl:
		case DW_OP_shr:
		case DW_OP_shra:
		case DW_OP_eq:
		case DW_OP_ne:
		case DW_OP_lt:
		case DW_OP_le:
		case DW_OP_gt:
		case DW_OP_ge:
			DLT_NEED(2);
			y = stk[--sp];
			x = stk[sp - 1];
			switch (a) {
			case DW_OP_and:
				v = x & y;
				break;
			case DW_OP_or:
				v = x | y;
				break;
			case DW_OP_xor:
				v = x ^ y;
				break;
			case DW_OP_plus:
				v = x + y;
				break;
			case DW_OP_minus:
				v = x - y;
				break;
			case DW_OP_mul:
				v = x * y;
				break;
			case DW_OP_div:
				if (y == 0) {
					snprintf(c->why, sizeof(c->why),
						 "bad CFI expression "
						 "(division by zero)");
					return -1;
				}
				v = (uint64_t)((int64_t)x / (int64_t)y);
				break;
			case DW_OP_mod:
				if (y == 0) {
					snprintf(c->why, sizeof(c->why),
						 "bad CFI expression "
						 "(division by zero)");
					return -1;
				}
				v = x % y;
				break;
			case DW_OP_shl:
				v = y >= 64 ? 0 : x << y;
				break;
			case DW_OP_shr:
				v = y >= 64 ? 0 : x >> y;
				break;
			case DW_OP_shra:
				v = (uint64_t)((int64_t)x >>
					       (y >= 64 ? 63 : y));
				break;
			/* The comparisons are signed (DWARF 5, 2.5.1.4). */
			case DW_OP_eq:
				v = x == y;
				break;
			case DW_OP_ne:
				v = x != y;
				break;
			case DW_OP_lt:
				v = (int64_t)x < (int64_t)y;
				break;
			case DW_OP_le:
				v = (int64_t)x <= (int64_t)y;
				break;
			case DW_OP_gt:
				v = (int64_t)x > (int64_t)y;
				break;
			default:
				v = (int64_t)x >= (int64_t)y;
				break;
			}
			stk[sp - 1] = v;
			break;
		case DW_OP_skip:
		case DW_OP_bra: {
			if (a == DW_OP_bra) {
				DLT_NEED(1);
				if (stk[--sp] == 0)
					break;
			}
			/* The target is a byte offset from the next op:
			 * find the op that starts there. */
			uint64_t to = ops[i].offset + 3 + op->number;
			size_t j = 0;
			while (j < nops && ops[j].offset != to)
				j++;
			/* Past the last op: the end. */
			if (j == nops && to <= ops[nops - 1].offset) {
				snprintf(c->why, sizeof(c->why),
					 "bad CFI expression (branch)");
				return -1;
			}
			i = j - 1;
			break;
		}
		case DW_OP_nop:
			break;
		case DW_OP_call_frame_cfa:
			if (!c->have_cfa) {
				snprintf(c->why, sizeof(c->why),
					 "bad CFI (the CFA uses itself)");
				return -1;
			}
			DLT_PUSH(c->cfa);
			break;
		case DW_OP_stack_value:
			*is_value = 1;
			break;
		default:
			snprintf(c->why, sizeof(c->why),
				 "CFI expression op 0x%x not handled", a);
			return -1;
		}
	}
	DLT_NEED(1);
	*out = stk[sp - 1];
	return 0;
#undef DLT_NEED
#undef DLT_PUSH
}

/* The CFI frame of ELF address look: .eh_frame's, else .debug_frame's
 * (from the file, or its debug file). */
static Dwarf_Frame *dlt_ucfi_frame(struct dlt_ucmod *cm, uint64_t look)
{
	Dwarf_Frame *fr = NULL;
	if (cm->eh && dwarf_cfi_addrframe(cm->eh, look + cm->bias - cm->eh_bias,
					  &fr) == 0)
		return fr;
	if (!cm->dbg_tried) {
		cm->dbg_tried = 1;
		cm->dbg = dwfl_module_dwarf_cfi(cm->mod, &cm->dbg_bias);
	}
	if (cm->dbg &&
	    dwarf_cfi_addrframe(cm->dbg, look + cm->bias - cm->dbg_bias, &fr) ==
		    0)
		return fr;
	return NULL;
}

struct dlt_uscan_ctx {
	struct dlt_unwinder *u;
	const struct dlt_umap *map;
	struct dlt_ucmod **cms;
};

static struct dlt_ucmod *dlt_ucmod_of(struct dlt_unwinder *u,
				      const struct dlt_umap *map,
				      struct dlt_ucmod **cms, size_t i)
{
	if (cms[i] == NULL)
		cms[i] = dlt_ucmod_get(u, map->m[i].path, map->m[i].build_id,
				       map->m[i].build_id_len);
	return cms[i];
}

static int dlt_uscan_bytes(void *ctx, size_t mod, uint64_t fo, uint8_t out[8])
{
	struct dlt_uscan_ctx *c = ctx;
	struct dlt_ucmod *cm = dlt_ucmod_of(c->u, c->map, c->cms, mod);
	if (cm == NULL || cm->why || cm->img == NULL || fo < 8 ||
	    fo > cm->img_len)
		return -1;
	memcpy(out, cm->img + fo - 8, 8);
	return 0;
}

/* Frames for pc into out (its inlines, then itself): how, caller and
 * signal as given.  Returns how many. */
static size_t dlt_uframe_at(struct dlt_unwinder *u, const struct dlt_umap *map,
			    struct dlt_ucmod **cms, uint64_t pc, int how,
			    int caller, struct dlt_uframe *out, size_t cap,
			    struct dlt_ucmod **cmp, uint64_t *vaddrp)
{
	long mi = dlt_umap_find(map, pc);
	struct dlt_ucmod *cm =
		mi < 0 ? NULL : dlt_ucmod_of(u, map, cms, (size_t)mi);
	*cmp = cm;
	size_t n = 1;
	if (cm == NULL) {
		memset(out, 0, sizeof(*out));
		out->unnamed = mi < 0 ? "no file mapped" : "out of memory";
		out->obj = NULL;
		*vaddrp = pc;
	} else {
		const struct dlt_umod *m = &map->m[mi];
		uint64_t vaddr = dlt_ucmod_vaddr(cm, pc - m->lo + m->off);
		*vaddrp = vaddr;
		n = dlt_uname(u, cm, vaddr, caller, out, cap);
	}
	for (size_t i = 0; i < n; i++) {
		out[i].pc = pc;
		out[i].caller = (uint8_t)caller;
		if (i + 1 == n)
			out[i].how = (uint8_t)how;
	}
	return n;
}

size_t dlt_unwind(struct dlt_unwinder *u, const struct dlt_umap *map,
		  const struct dlt_ustack *st, struct dlt_uframe *out,
		  size_t cap, char *stop, size_t stop_cap)
{
	char sbuf[160];
	if (stop == NULL || stop_cap == 0) {
		stop = sbuf;
		stop_cap = sizeof(sbuf);
	}
	stop[0] = '\0';
	const struct dlt_uarch *ar = NULL;
	for (size_t i = 0; i < sizeof(dlt_uarchs) / sizeof(dlt_uarchs[0]); i++)
		if (dlt_uarchs[i].arch == st->arch)
			ar = &dlt_uarchs[i];
	if (ar == NULL) {
		snprintf(stop, stop_cap, "architecture %u not known",
			 (unsigned)st->arch);
		return 0;
	}
	if (!(st->regs_known >> ar->pc_reg & 1)) {
		snprintf(stop, stop_cap, "the pc is not known");
		return 0;
	}
	struct dlt_ucmod *cms_small[64] = {0};
	struct dlt_ucmod **cms = cms_small;
	size_t nmap = map ? map->n : 0;
	if (nmap > 64) {
		cms = calloc(nmap, sizeof(*cms));
		if (cms == NULL) {
			snprintf(stop, stop_cap, "out of memory");
			return 0;
		}
	}
	uint64_t regs[DLT_RAW_NREGS], nregs[DLT_RAW_NREGS];
	memcpy(regs, st->regs, sizeof(regs));
	uint64_t known = st->regs_known;
	size_t n = 0;
	int caller = 0, after_signal = 0, have_prev = 0, scan = 0;
	uint64_t prev_cfa = 0, prev_pc = 0;
	uint64_t scan_from =
		known >> ar->sp_reg & 1 ? regs[ar->sp_reg] : st->sp;
	while (cap > 0) {
		uint64_t pc = regs[ar->pc_reg];
		if (n >= cap) {
			snprintf(stop, stop_cap, "frame limit");
			break;
		}
		struct dlt_ucmod *cm;
		uint64_t vaddr;
		size_t k = dlt_uframe_at(u, map, cms, pc,
					 n == 0 ? DLT_UF_REGS : DLT_UF_CFI,
					 caller, &out[n], cap - n, &cm, &vaddr);
		struct dlt_uframe *self = &out[n + k - 1];
		n += k;
		if (cm == NULL || cm->why) {
			if (cm)
				snprintf(stop, stop_cap,
					 "%s: %s; the rest scanned", cm->base,
					 cm->why);
			else
				snprintf(stop, stop_cap,
					 "no file mapped at 0x%" PRIx64
					 "; the rest scanned",
					 pc);
			scan = 1;
			break;
		}
		Dwarf_Frame *fr = dlt_ucfi_frame(cm, vaddr - (caller ? 1 : 0));
		bool sig = false;
		if (fr)
			dwarf_frame_info(fr, NULL, NULL, &sig);
		if (caller && (fr == NULL || !sig)) {
			/* A signal trampoline's first instruction is where
			 * the handler returns to: its FDE may start there,
			 * not before it. */
			Dwarf_Frame *at = dlt_ucfi_frame(cm, vaddr);
			bool s2 = false;
			if (at)
				dwarf_frame_info(at, NULL, NULL, &s2);
			if (at && s2) {
				free(fr);
				fr = at;
				sig = true;
			} else {
				free(at);
			}
		}
		if (fr == NULL) {
			snprintf(stop, stop_cap,
				 "no CFI for %s+0x%" PRIx64
				 "; the rest scanned",
				 cm->base, vaddr);
			scan = 1;
			break;
		}
		self->signal = sig;
		if (sig && caller && self->func[0] == '\0') {
			/* The kernel's signal frame returns to the restorer's
			 * first instruction: named there, not one byte
			 * before it. */
			struct dlt_uframe t[4];
			size_t tn = dlt_uname(u, cm, vaddr, 0, t, 4);
			if (tn && t[tn - 1].func[0]) {
				memcpy(self->func, t[tn - 1].func,
				       sizeof(self->func));
				self->func_off = t[tn - 1].func_off;
				self->name_src = t[tn - 1].name_src;
				self->unnamed = NULL;
			}
		}
		struct dlt_uctx c = {.st = st, .regs = regs, .known = known};
		Dwarf_Op *ops;
		size_t nops = 0;
		int isv;
		if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops == 0) {
			snprintf(c.why, sizeof(c.why), "no CFA rule");
			goto fail;
		}
		if (dlt_ueval(&c, ops, nops, &c.cfa, &isv) != 0)
			goto fail;
		c.have_cfa = 1;
		if (have_prev && ((c.cfa < prev_cfa && !after_signal) ||
				  (c.cfa == prev_cfa && pc == prev_pc))) {
			free(fr);
			snprintf(stop, stop_cap,
				 "the unwind went back (CFA 0x%" PRIx64
				 " after 0x%" PRIx64 ")",
				 c.cfa, prev_cfa);
			break;
		}
		scan_from = c.cfa;
		uint64_t nknown = 0;
		uint64_t ra = 0;
		int ra_ok = 0, ra_undef = 0;
		char ra_why[128] = "";
		int sp_set = 0;
		for (int r = 0; r < ar->ncols; r++) {
			Dwarf_Op mem[3];
			Dwarf_Op *rops = NULL;
			size_t rn = 0;
			uint64_t v = 0;
			int ok = 0;
			if (dwarf_frame_register(fr, r, mem, &rops, &rn) != 0) {
				ok = 0;
			} else if (rn == 0 && rops == NULL) {
				/* same_value */
				ok = (int)(known >> r & 1);
				v = regs[r];
				if (!ok) {
					char rb[16];
					snprintf(c.why, sizeof(c.why),
						 "register %s not known",
						 dlt_uarch_regname(st->arch, r,
								   rb,
								   sizeof(rb)));
				}
			} else if (rn == 0) {
				/* undefined: call-clobbered */
				if (r == ar->ra_col)
					ra_undef = 1;
			} else {
				c.why[0] = '\0';
				uint64_t loc;
				if (dlt_ueval(&c, rops, rn, &loc, &isv) == 0) {
					if (isv) {
						v = loc;
						ok = 1;
					} else {
						ok = dlt_uread(&c, loc, 8,
							       &v) == 0;
					}
				}
				if (r == ar->sp_reg)
					sp_set = ok;
			}
			if (ok) {
				nregs[r] = v;
				nknown |= 1ull << r;
			}
			if (r == ar->ra_col) {
				ra_ok = ok;
				ra = v;
				snprintf(ra_why, sizeof(ra_why), "%s", c.why);
			}
		}
		free(fr);
		if (ra_undef) {
			snprintf(stop, stop_cap, "outermost frame");
			break;
		}
		if (!ra_ok) {
			snprintf(c.why, sizeof(c.why), "%s",
				 ra_why[0] ? ra_why : "no return address rule");
			fr = NULL;
			goto fail;
		}
		/* The caller's stack pointer is the CFA (the ABIs' rule),
		 * unless the CFI says where it was saved (a signal frame). */
		if (!sp_set) {
			nregs[ar->sp_reg] = c.cfa;
			nknown |= 1ull << ar->sp_reg;
		}
		ra &= ar->ra_mask;
		nregs[ar->pc_reg] = ra;
		nknown |= 1ull << ar->pc_reg;
		if (ra == 0) {
			/* Some runtimes end their chains with a zero return
			 * address instead of an undefined one. */
			snprintf(stop, stop_cap, "outermost frame");
			break;
		}
		have_prev = 1;
		prev_cfa = c.cfa;
		prev_pc = pc;
		/* After a signal frame the pc is the interrupted
		 * instruction, not a return address. */
		caller = !sig;
		after_signal = sig;
		memcpy(regs, nregs, sizeof(regs));
		known = nknown;
		continue;
	fail:
		free(fr);
		if (strcmp(c.why, "stack copy ends") == 0) {
			snprintf(stop, stop_cap, "stack copy ends");
			break;
		}
		snprintf(stop, stop_cap,
			 "%s at %s+0x%" PRIx64 "; the rest scanned", c.why,
			 cm->base, vaddr);
		scan = 1;
		break;
	}
	if (scan && n < cap) {
		uint64_t ras[256];
		size_t mods[256];
		struct dlt_uscan_ctx sc = {u, map, cms};
		size_t want = cap - n < 256 ? cap - n : 256;
		size_t k = dlt_uscan(map, st, scan_from, ras, mods, want,
				     dlt_uscan_bytes, &sc);
		for (size_t i = 0; i < k && n < cap; i++) {
			struct dlt_ucmod *cm;
			uint64_t vaddr;
			size_t m =
				dlt_uframe_at(u, map, cms, ras[i], DLT_UF_SCAN,
					      1, &out[n], cap - n, &cm, &vaddr);
			n += m;
		}
		if (n >= cap && k == want)
			snprintf(stop + strlen(stop), stop_cap - strlen(stop),
				 " (frame limit)");
	}
	if (cms != cms_small)
		free(cms);
	return n;
}
