#define _GNU_SOURCE
#include "symbolize.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elfread.h"
#include "io.h"

#define DLT_SYMZ_MAX_SHDRS 4096

/* The file of a loaded row, as the process saw it. */
static const char *dlt_symz_path(const struct dlt_lib *l)
{
	if (l->realpath && l->realpath[0] == '/')
		return l->realpath;
	if (l->path && l->path[0] == '/')
		return l->path;
	return NULL;
}

/* Whether vaddr is inside one of the file's PT_LOAD segments. */
static int dlt_symz_covers(const struct dlt_elf *e, uint64_t vaddr)
{
	for (int i = 0; i < e->nph; i++) {
		const ElfW(Phdr) *ph = &e->ph[i];
		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr - ph->p_vaddr < ph->p_memsz)
			return 1;
	}
	return 0;
}

/* The file is the one the process loaded: same build-id when both are
 * known. */
static int dlt_symz_same(const struct dlt_elf *e, const struct dlt_lib *l)
{
	if (l->build_id_len == 0)
		return 1;
	uint8_t id[32];
	uint32_t n = dlt_elf_build_id(e, id, sizeof(id));
	return n == 0 ||
	       (n == l->build_id_len && memcmp(id, l->build_id, n) == 0);
}

struct dlt_symz_best {
	uint64_t start;
	uint64_t size;
	uint32_t name; /* offset in the string table */
	int found;
	int local; /* STB_LOCAL: an alias the compiler made */
};

/* The function symbol of one table that holds vaddr: the one whose
 * [value, value + size) covers it, else the nearest below it (assembly
 * without sizes). */
static void dlt_symz_table(int fd, const ElfW(Shdr) * sh, uint64_t vaddr,
			   struct dlt_symz_best *b)
{
	if (sh->sh_entsize != sizeof(ElfW(Sym)))
		return;
	ElfW(Sym) syms[256];
	uint64_t n = sh->sh_size / sizeof(ElfW(Sym));
	for (uint64_t at = 0; at < n;) {
		size_t k = n - at < 256 ? (size_t)(n - at) : 256;
		if (dlt_io_pread_all(fd, syms, k * sizeof(ElfW(Sym)),
				     sh->sh_offset + at * sizeof(ElfW(Sym))) !=
		    0)
			return;
		for (size_t i = 0; i < k; i++) {
			const ElfW(Sym) *s = &syms[i];
			int t = ELF64_ST_TYPE(s->st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) ||
			    s->st_shndx == SHN_UNDEF || s->st_value > vaddr)
				continue;
			int inside = vaddr - s->st_value < s->st_size;
			int best_inside =
				b->found && vaddr - b->start < b->size;
			int local = ELF64_ST_BIND(s->st_info) == STB_LOCAL;
			/* At one address, the exported name rather than a
			 * local alias (crash_here.localalias). */
			if (!b->found || (inside && !best_inside) ||
			    (inside == best_inside &&
			     (s->st_value > b->start ||
			      (s->st_value == b->start && b->local &&
			       !local)))) {
				b->start = s->st_value;
				b->size = s->st_size;
				b->name = s->st_name;
				b->found = 1;
				b->local = local;
			}
		}
		at += k;
	}
}

/* vaddr's function in the file at path from its .symtab (want_dyn 0) or
 * .dynsym (1).  0 when found. */
static int dlt_symz_file(const char *path, uint64_t vaddr, int want_dyn,
			 struct dlt_frame *f)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ElfW(Ehdr) eh;
	static ElfW(Shdr) sh[DLT_SYMZ_MAX_SHDRS];
	int ok = -1;
	if (dlt_io_pread_all(fd, &eh, sizeof(eh), 0) != 0 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_shentsize != sizeof(ElfW(Shdr)) || eh.e_shnum == 0 ||
	    eh.e_shnum > DLT_SYMZ_MAX_SHDRS ||
	    dlt_io_pread_all(fd, sh, eh.e_shnum * sizeof(ElfW(Shdr)),
			     eh.e_shoff) != 0)
		goto out;
	uint32_t type = want_dyn ? SHT_DYNSYM : SHT_SYMTAB;
	for (int i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_type != type || sh[i].sh_link >= eh.e_shnum)
			continue;
		struct dlt_symz_best b = {0, 0, 0, 0, 0};
		dlt_symz_table(fd, &sh[i], vaddr, &b);
		/* .dynsym lists exported functions only: the nearest one
		 * below an address in a static function is another function
		 * (python3.11!_PyUnicode_ToDecimalDigit+0x508), so only one
		 * that covers it names it. */
		if (!b.found || (want_dyn && vaddr - b.start >= b.size))
			continue;
		const ElfW(Shdr) *strs = &sh[sh[i].sh_link];
		if (b.name >= strs->sh_size)
			continue;
		size_t cap = sizeof(f->func) - 1;
		if (strs->sh_size - b.name < cap)
			cap = (size_t)(strs->sh_size - b.name);
		int err = 0;
		size_t got = dlt_io_pread_upto(fd, f->func, cap,
					       strs->sh_offset + b.name, &err);
		f->func[got] = '\0';
		f->func[strnlen(f->func, got)] = '\0';
		if (f->func[0] == '\0')
			continue;
		f->off = vaddr - b.start;
		f->source = want_dyn ? "dynsym" : "symtab";
		ok = 0;
		break;
	}
out:
	close(fd);
	return ok;
}

/* /usr/lib/debug/.build-id/xx/yyyy.debug for the row's build-id. */
static int dlt_symz_debug_path(const struct dlt_lib *l, char *buf, size_t cap)
{
	if (l->build_id_len < 2)
		return -1;
	size_t n = (size_t)snprintf(buf, cap, "/usr/lib/debug/.build-id/%02x/",
				    l->build_id[0]);
	for (uint32_t i = 1; i < l->build_id_len && n + 3 < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%02x", l->build_id[i]);
	if (n + 7 >= cap)
		return -1;
	memcpy(buf + n, ".debug", 7);
	return 0;
}

/* f->func from f->path's .symtab, the debug file of l's build-id (when l
 * is known), or .dynsym. */
static void dlt_symz_name(struct dlt_frame *f, const struct dlt_lib *l)
{
	char dbg[128];
	if (dlt_symz_file(f->path, f->vaddr, 0, f) == 0)
		return;
	if (l && dlt_symz_debug_path(l, dbg, sizeof(dbg)) == 0 &&
	    dlt_symz_file(dbg, f->vaddr, 0, f) == 0) {
		f->source = "debug file";
		return;
	}
	dlt_symz_file(f->path, f->vaddr, 1, f);
}

int dlt_frame_resolve(const struct dlt_process *p, uint64_t pc, uint64_t ts,
		      struct dlt_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->pc = pc;
	for (size_t i = p->nlibs; i-- > 0;) {
		const struct dlt_lib *l = &p->libs[i];
		if (l->from_fail_record || (ts && l->ts > ts) || pc < l->base)
			continue;
		const char *path = dlt_symz_path(l);
		if (path == NULL)
			continue;
		struct dlt_elf e;
		if (dlt_elf_open(&e, path) != 0)
			continue;
		uint64_t vaddr = pc - l->base;
		int covers = dlt_symz_covers(&e, vaddr);
		int same = covers && dlt_symz_same(&e, l);
		dlt_elf_close(&e);
		if (!covers)
			continue;
		f->lib = l;
		f->path = path;
		f->vaddr = vaddr;
		if (same)
			dlt_symz_name(f, l);
		return 0;
	}
	return -1;
}

const struct dlt_lib *dlt_lib_of_path(const struct dlt_process *p,
				      const char *path)
{
	for (size_t i = p->nlibs; path && i-- > 0;) {
		const struct dlt_lib *l = &p->libs[i];
		if (!l->from_fail_record &&
		    ((l->realpath && strcmp(l->realpath, path) == 0) ||
		     (l->path && strcmp(l->path, path) == 0)))
			return l;
	}
	return NULL;
}

int dlt_frame_resolve_file(const struct dlt_process *p, uint64_t pc,
			   const char *path, uint64_t off, struct dlt_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->pc = pc;
	if (path == NULL || path[0] != '/')
		return -1;
	struct dlt_elf e;
	if (dlt_elf_open(&e, path) != 0)
		return -1;
	int found = -1;
	for (int i = 0; i < e.nph && found < 0; i++) {
		const ElfW(Phdr) *ph = &e.ph[i];
		if (ph->p_type == PT_LOAD && off >= ph->p_offset &&
		    off - ph->p_offset < ph->p_filesz) {
			f->vaddr = off - ph->p_offset + ph->p_vaddr;
			found = i;
		}
	}
	dlt_elf_close(&e);
	if (found < 0)
		return -1;
	f->path = path;
	f->lib = dlt_lib_of_path(p, path);
	dlt_symz_name(f, f->lib);
	return 0;
}

const char *dlt_frame_format(const struct dlt_frame *f, char *buf, size_t cap)
{
	if (f->path == NULL) {
		snprintf(buf, cap, "0x%llx", (unsigned long long)f->pc);
		return buf;
	}
	const char *path = f->path;
	const char *base = path ? strrchr(path, '/') : NULL;
	base = base ? base + 1 : path ? path : "?";
	if (f->func[0])
		snprintf(buf, cap, "%s+0x%llx (%s)", f->func,
			 (unsigned long long)f->off, base);
	else
		snprintf(buf, cap, "%s+0x%llx", base,
			 (unsigned long long)f->vaddr);
	return buf;
}

int dlt_frame_name_file(const char *path, const uint8_t *build_id,
			uint32_t build_id_len, uint64_t off,
			struct dlt_frame *f)
{
	memset(f, 0, sizeof(*f));
	struct dlt_lib l;
	memset(&l, 0, sizeof(l));
	if (build_id_len > sizeof(l.build_id))
		build_id_len = 0;
	if (build_id_len)
		memcpy(l.build_id, build_id, build_id_len);
	l.build_id_len = build_id_len;
	struct dlt_elf e;
	if (path == NULL || path[0] != '/' || dlt_elf_open(&e, path) != 0)
		return -1;
	/* dladdr counts from the page of the first loaded segment. */
	uint64_t first = UINT64_MAX;
	for (int i = 0; i < e.nph; i++)
		if (e.ph[i].p_type == PT_LOAD && e.ph[i].p_vaddr < first)
			first = e.ph[i].p_vaddr;
	uint64_t vaddr =
		(first == UINT64_MAX ? 0 : first & ~(uint64_t)4095) + off;
	int ok = dlt_symz_covers(&e, vaddr) && dlt_symz_same(&e, &l);
	dlt_elf_close(&e);
	if (!ok)
		return -1;
	f->path = path;
	f->vaddr = vaddr;
	if (dlt_symz_file(path, vaddr, 0, f) == 0)
		return 0;
	char dbg[128];
	if (dlt_symz_debug_path(&l, dbg, sizeof(dbg)) == 0 &&
	    dlt_symz_file(dbg, vaddr, 0, f) == 0) {
		f->source = "debug file";
		return 0;
	}
	/* The exported names last: what dladdr gave when stacks were named
	 * inside the process (a stripped library keeps only these). */
	return dlt_symz_file(path, vaddr, 1, f) == 0 ? 0 : -1;
}
