#define _GNU_SOURCE
#include "elfread.h"

#include "hash.h"
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define DLT_ELF_MAX_DYN 4096 /* entries read; real objects have < 100 */

/* File offset of a virtual address, through the PT_LOAD that holds it. */
static int dlt_vaddr_to_off(const struct dlt_elf *e, uint64_t va, uint64_t *off)
{
	for (int i = 0; i < e->nph; i++) {
		const ElfW(Phdr) *p = &e->ph[i];
		if (p->p_type == PT_LOAD && va >= p->p_vaddr &&
		    va - p->p_vaddr < p->p_filesz) {
			*off = p->p_offset + (va - p->p_vaddr);
			return 0;
		}
	}
	return -1;
}

/* The dynamic string table's place, from DT_STRTAB and DT_STRSZ. */
static int dlt_elf_find_strtab(void *ctx, int64_t tag, uint64_t val)
{
	uint64_t *v = ctx;
	if (tag == DT_STRTAB)
		v[0] = val, v[2] = 1;
	else if (tag == DT_STRSZ)
		v[1] = val;
	return 0;
}

int dlt_elf_open(struct dlt_elf *e, const char *path)
{
	memset(e, 0, sizeof(*e));
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0)
		return -errno;
	struct stat st;
	ElfW(Ehdr) eh;
	if (fstat(e->fd, &st) != 0 ||
	    dlt_io_pread_all(e->fd, &eh, sizeof(eh), 0) != 0 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] !=
		    (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0)
		goto bad;
	e->size = (uint64_t)st.st_size;
	e->nph =
		eh.e_phnum < DLT_ELF_MAX_PHDRS ? eh.e_phnum : DLT_ELF_MAX_PHDRS;
	if (dlt_io_pread_all(e->fd, e->ph, (size_t)e->nph * sizeof(e->ph[0]),
			     eh.e_phoff) != 0)
		goto bad;
	for (int i = 0; i < e->nph; i++)
		if (e->ph[i].p_type == PT_DYNAMIC &&
		    e->ph[i].p_offset + e->ph[i].p_filesz <= e->size) {
			e->dyn_off = e->ph[i].p_offset;
			e->dyn_n = e->ph[i].p_filesz / sizeof(ElfW(Dyn));
			break;
		}
	uint64_t st_v[3] = {0, 0, 0}; /* DT_STRTAB, DT_STRSZ, seen */
	if (e->dyn_n && dlt_elf_each_dyn(e, dlt_elf_find_strtab, st_v) == 0 &&
	    st_v[2] && dlt_vaddr_to_off(e, st_v[0], &e->str_off) == 0) {
		e->str_sz = st_v[1];
		if (e->str_off > e->size)
			e->str_sz = 0;
		else if (e->str_sz == 0 || e->str_sz > e->size - e->str_off)
			e->str_sz = e->size - e->str_off;
	}
	return 0;
bad:
	close(e->fd);
	e->fd = -1;
	return -ENOEXEC;
}

void dlt_elf_close(struct dlt_elf *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
}

int dlt_elf_each_dyn(struct dlt_elf *e,
		     int (*fn)(void *ctx, int64_t tag, uint64_t val), void *ctx)
{
	ElfW(Dyn) dyn[64];
	uint64_t n = e->dyn_n < DLT_ELF_MAX_DYN ? e->dyn_n : DLT_ELF_MAX_DYN;
	for (uint64_t k = 0; k < n;) {
		uint64_t batch = n - k < 64 ? n - k : 64;
		if (dlt_io_pread_all(e->fd, dyn, batch * sizeof(dyn[0]),
				     e->dyn_off + k * sizeof(dyn[0])) != 0)
			return -1;
		for (uint64_t i = 0; i < batch; i++, k++) {
			if (dyn[i].d_tag == DT_NULL)
				return 0;
			if (fn(ctx, (int64_t)dyn[i].d_tag, dyn[i].d_un.d_val))
				return 0;
		}
	}
	return 0;
}

int dlt_elf_dynstr(const struct dlt_elf *e, uint64_t off, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (cap == 0 || off >= e->str_sz)
		return -1;
	size_t want = cap - 1;
	if (want > e->str_sz - off)
		want = (size_t)(e->str_sz - off);
	ssize_t r = pread(e->fd, buf, want, (off_t)(e->str_off + off));
	if (r < 0)
		r = 0;
	buf[r] = '\0';
	return 0;
}

/* The GNU build-id in the n bytes of notes at buf, at most cap bytes of
 * it; its length, 0 when there is none. */
static uint32_t dlt_notes_build_id(const uint8_t *buf, size_t n, uint8_t *out,
				   uint32_t cap)
{
	size_t p = 0;
	while (p + sizeof(ElfW(Nhdr)) <= n) {
		ElfW(Nhdr) nh;
		memcpy(&nh, buf + p, sizeof(nh));
		size_t name_off = p + sizeof(nh);
		size_t desc_off = name_off + ((nh.n_namesz + 3u) & ~3u);
		size_t next = desc_off + ((nh.n_descsz + 3u) & ~3u);
		if (next > n || next <= p)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(buf + name_off, "GNU", 4) == 0) {
			uint32_t l = nh.n_descsz < cap ? nh.n_descsz : cap;
			memcpy(out, buf + desc_off, l);
			return l;
		}
		p = next;
	}
	return 0;
}

uint32_t dlt_elf_build_id(const struct dlt_elf *e, uint8_t *out, uint32_t cap)
{
	for (int i = 0; i < e->nph; i++) {
		if (e->ph[i].p_type != PT_NOTE)
			continue;
		uint8_t buf[1024];
		size_t n = e->ph[i].p_filesz < sizeof(buf) ? e->ph[i].p_filesz
							   : sizeof(buf);
		if (dlt_io_pread_all(e->fd, buf, n, e->ph[i].p_offset))
			continue;
		uint32_t l = dlt_notes_build_id(buf, n, out, cap);
		if (l)
			return l;
	}
	return 0;
}

/* DT_SONAME, DT_RUNPATH, DT_RPATH: string offsets + 1 (0: absent). */
struct dlt_elf_names {
	uint64_t soname, runpath, rpath;
};

static int dlt_elf_take_names(void *ctx, int64_t tag, uint64_t val)
{
	struct dlt_elf_names *n = ctx;
	if (tag == DT_SONAME)
		n->soname = val + 1;
	else if (tag == DT_RUNPATH)
		n->runpath = val + 1;
	else if (tag == DT_RPATH)
		n->rpath = val + 1;
	return 0;
}

void dlt_elf_info_clear(struct dlt_elf_info *out)
{
	out->soname[0] = out->runpath[0] = out->rpath[0] = '\0';
	memset(out->build_id, 0, sizeof(out->build_id));
	out->build_id_len = 0;
	out->has_runpath = out->has_rpath = 0;
}

int dlt_elf_read(const char *path, struct dlt_elf_info *out)
{
	dlt_elf_info_clear(out);
	struct dlt_elf e;
	int r = dlt_elf_open(&e, path);
	if (r != 0)
		return r;
	out->build_id_len =
		dlt_elf_build_id(&e, out->build_id, sizeof(out->build_id));
	struct dlt_elf_names n = {0, 0, 0};
	if (e.dyn_n && dlt_elf_each_dyn(&e, dlt_elf_take_names, &n) == 0) {
		out->has_runpath = n.runpath != 0;
		out->has_rpath = n.rpath != 0;
		if (n.soname)
			dlt_elf_dynstr(&e, n.soname - 1, out->soname,
				       sizeof(out->soname));
		if (n.runpath)
			dlt_elf_dynstr(&e, n.runpath - 1, out->runpath,
				       sizeof(out->runpath));
		if (n.rpath)
			dlt_elf_dynstr(&e, n.rpath - 1, out->rpath,
				       sizeof(out->rpath));
	}
	dlt_elf_close(&e);
	return 0;
}

/* The file offset and size of the section called name; 0 or -1. */
static int dlt_elf_section(int fd, const char *name, uint64_t *off,
			   uint64_t *size)
{
	ElfW(Ehdr) eh;
	if (dlt_io_pread_all(fd, &eh, sizeof(eh), 0) != 0 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_shentsize != sizeof(ElfW(Shdr)) || eh.e_shnum == 0 ||
	    eh.e_shstrndx >= eh.e_shnum)
		return -1;
	ElfW(Shdr) names;
	if (dlt_io_pread_all(fd, &names, sizeof(names),
			     eh.e_shoff + (uint64_t)eh.e_shstrndx *
						  sizeof(ElfW(Shdr))) != 0)
		return -1;
	size_t nl = strlen(name) + 1;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		ElfW(Shdr) sh;
		char sn[64];
		if (dlt_io_pread_all(fd, &sh, sizeof(sh),
				     eh.e_shoff + (uint64_t)i * sizeof(sh)) !=
		    0)
			return -1;
		if (nl > sizeof(sn) || sh.sh_name + nl > names.sh_size ||
		    dlt_io_pread_all(fd, sn, nl,
				     names.sh_offset + sh.sh_name) != 0 ||
		    memcmp(sn, name, nl) != 0)
			continue;
		if (sh.sh_type == SHT_NOBITS)
			return -1;
		*off = sh.sh_offset;
		*size = sh.sh_size;
		return 0;
	}
	return -1;
}

int dlt_elf_section_string(const char *path, const char *section,
			   const char *prefix, uint64_t max_bytes, char *out,
			   size_t cap)
{
	out[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	uint64_t off, size;
	int found = -1;
	if (dlt_elf_section(fd, section, &off, &size) != 0 ||
	    size > max_bytes) {
		close(fd);
		return -1;
	}
	/* Pieces overlap by the longest string kept, so that one that
	 * straddles two pieces is seen whole in the second. */
	static char buf[65536];
	size_t keep = cap < 1024 ? cap : 1024;
	size_t pl = strlen(prefix);
	for (uint64_t at = 0; at < size && found != 0;) {
		size_t want = size - at < sizeof(buf) ? (size_t)(size - at)
						      : sizeof(buf);
		ssize_t r = pread(fd, buf, want, (off_t)(off + at));
		if (r <= 0)
			break;
		for (size_t i = 0; i + pl < (size_t)r && found != 0; i++) {
			/* The prefix, then a digit: a version, not a
			 * format.  (Data need not end in a NUL before a
			 * string: a jump table can come right before.) */
			if (buf[i] != prefix[0] ||
			    memcmp(buf + i, prefix, pl) != 0 ||
			    buf[i + pl] < '0' || buf[i + pl] > '9')
				continue;
			size_t n = strnlen(buf + i, (size_t)r - i);
			if (n == (size_t)r - i && at + (uint64_t)r < size)
				break; /* cut by the piece: seen in the next */
			if (n >= cap)
				n = cap - 1;
			memcpy(out, buf + i, n);
			out[n] = '\0';
			found = 0;
		}
		if ((size_t)r < sizeof(buf) || at + (uint64_t)r >= size)
			break;
		at += (uint64_t)r - keep;
	}
	close(fd);
	return found;
}

/* Whether [p, p + n) is mapped in this process: mincore says ENOMEM for an
 * address range with a hole, and reads nothing. */
static int dlt_mapped(uintptr_t p, size_t n)
{
	/* Asked each time: a variable of its own would be a page of the
	 * audit module's .bss touched at start (the C library answers from
	 * the loader's, the module from the auxiliary vector). */
	long page = sysconf(_SC_PAGESIZE);
	if (n == 0 || p + n < p)
		return 0;
	uintptr_t a = p & ~(uintptr_t)(page - 1);
	size_t len = (size_t)(p + n - a);
	unsigned char vec[64];
	if ((len + (size_t)page - 1) / (size_t)page > sizeof(vec))
		return 0;
	return mincore((void *)a, len, vec) == 0;
}

/* An address the dynamic section gives: absolute once the loader rewrote
 * it, else relative to the load bias (as symlookup.c reads it). */
static uintptr_t dlt_dyn_ptr(uintptr_t base, uint64_t v)
{
	return v < base ? base + (uintptr_t)v : (uintptr_t)v;
}

/* Whether [p, p + n) lies in one of the object's loadable segments, which
 * the loader (or the kernel, for the program and the vDSO) mapped whole:
 * the same answer as dlt_mapped for the parts the headers name, without a
 * mincore system call each (1.2 us on a KVM guest, four to six per object
 * mapped, docs/performance.md "Issue 31"). */
static int dlt_in_load(const ElfW(Phdr) * ph, int nph, uintptr_t base,
		       uintptr_t p, size_t n)
{
	if (n == 0 || p + n < p)
		return 0;
	for (int i = 0; i < nph; i++) {
		uintptr_t lo = base + ph[i].p_vaddr;
		if (ph[i].p_type == PT_LOAD && p >= lo &&
		    p + n <= lo + ph[i].p_memsz)
			return 1;
	}
	return 0;
}

static void dlt_mapped_str(const char *tab, uint64_t sz, uint64_t off,
			   char *buf, size_t cap)
{
	buf[0] = '\0';
	if (off >= sz)
		return;
	size_t n = strnlen(tab + off, (size_t)(sz - off));
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, tab + off, n);
	buf[n] = '\0';
}

int dlt_elf_read_mapped(uintptr_t base, const void *dyn,
			struct dlt_elf_info *out)
{
	dlt_elf_info_clear(out);
	if (base == 0 || dyn == NULL || !dlt_mapped(base, sizeof(ElfW(Ehdr))))
		return -1;
	const ElfW(Ehdr) *eh = (const void *)base;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] !=
		    (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phnum == 0 ||
	    eh->e_phnum > DLT_ELF_MAX_PHDRS)
		return -1;
	/* The program headers: mapped where the ELF header is, when they
	 * follow it on its page (as linkers put them). */
	uintptr_t phs = base + eh->e_phoff;
	size_t phn = eh->e_phnum * sizeof(ElfW(Phdr));
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t first_end = (base & ~(page - 1)) + page;
	if (phs < base || phs + phn > first_end || phs + phn < phs) {
		if (!dlt_mapped(phs, phn))
			return -1;
	}
	const ElfW(Phdr) *ph = (const void *)(base + eh->e_phoff);
	/* These are this object's headers: its dynamic segment is where the
	 * loader says. */
	uint64_t ndyn = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC &&
		    base + ph[i].p_vaddr == (uintptr_t)dyn)
			ndyn = ph[i].p_memsz / sizeof(ElfW(Dyn));
	if (ndyn == 0 || ndyn > DLT_ELF_MAX_DYN ||
	    !dlt_in_load(ph, eh->e_phnum, base, (uintptr_t)dyn,
			 ndyn * sizeof(ElfW(Dyn))))
		return -1;
	const ElfW(Dyn) *d = dyn;
	uint64_t strtab = 0, strsz = 0, soname = 0, runpath = 0, rpath = 0;
	for (uint64_t k = 0; k < ndyn; k++) {
		if (d[k].d_tag == DT_NULL)
			break;
		switch (d[k].d_tag) {
		case DT_STRTAB:
			strtab = d[k].d_un.d_ptr;
			break;
		case DT_STRSZ:
			strsz = d[k].d_un.d_val;
			break;
		case DT_SONAME:
			soname = d[k].d_un.d_val + 1;
			break;
		case DT_RUNPATH:
			runpath = d[k].d_un.d_val + 1;
			break;
		case DT_RPATH:
			rpath = d[k].d_un.d_val + 1;
			break;
		}
	}
	if (soname || runpath || rpath) {
		const char *tab = (const char *)dlt_dyn_ptr(base, strtab);
		if (strtab == 0 || strsz == 0 || strsz > (1u << 26) ||
		    !dlt_in_load(ph, eh->e_phnum, base, (uintptr_t)tab,
				 (size_t)strsz))
			return -1;
		if (soname)
			dlt_mapped_str(tab, strsz, soname - 1, out->soname,
				       sizeof(out->soname));
		if (runpath)
			dlt_mapped_str(tab, strsz, runpath - 1, out->runpath,
				       sizeof(out->runpath));
		if (rpath)
			dlt_mapped_str(tab, strsz, rpath - 1, out->rpath,
				       sizeof(out->rpath));
	}
	out->has_runpath = runpath != 0;
	out->has_rpath = rpath != 0;
	for (int i = 0; i < eh->e_phnum && out->build_id_len == 0; i++) {
		if (ph[i].p_type != PT_NOTE || ph[i].p_filesz > 4096 ||
		    !dlt_in_load(ph, eh->e_phnum, base, base + ph[i].p_vaddr,
				 ph[i].p_filesz))
			continue;
		out->build_id_len = dlt_notes_build_id(
			(const void *)(base + ph[i].p_vaddr), ph[i].p_filesz,
			out->build_id, sizeof(out->build_id));
	}
	return 0;
}

int dlt_elf_mapped_symbol(uintptr_t base, const void *dyn, const char *name,
			  uint64_t *value, uint64_t *size)
{
	if (base == 0 || dyn == NULL)
		return -1;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const uint32_t *gnu = NULL;
	uint64_t strsz = 0;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB:
			symtab = (const void *)dlt_dyn_ptr(base, d->d_un.d_ptr);
			break;
		case DT_STRTAB:
			strtab = (const void *)dlt_dyn_ptr(base, d->d_un.d_ptr);
			break;
		case DT_STRSZ:
			strsz = d->d_un.d_val;
			break;
		case DT_GNU_HASH:
			gnu = (const void *)dlt_dyn_ptr(base, d->d_un.d_ptr);
			break;
		}
	}
	if (symtab == NULL || strtab == NULL || gnu == NULL)
		return -1;
	uint32_t nbuckets = gnu[0], symoffset = gnu[1];
	uint32_t bloom_size = gnu[2], bloom_shift = gnu[3];
	if (nbuckets == 0 || bloom_size == 0)
		return -1;
	const ElfW(Addr) *bloom = (const void *)&gnu[4];
	const uint32_t *buckets = (const void *)&bloom[bloom_size];
	const uint32_t *chain = &buckets[nbuckets];
	const uint32_t bits = 8 * sizeof(ElfW(Addr));
	uint32_t h = dlt_gnu_hash(name);
	ElfW(Addr) mask = ((ElfW(Addr))1 << (h % bits)) |
			  ((ElfW(Addr))1 << ((h >> bloom_shift) % bits));
	if ((bloom[(h / bits) % bloom_size] & mask) != mask)
		return -1;
	for (uint32_t i = buckets[h % nbuckets]; i >= symoffset; i++) {
		uint32_t h2 = chain[i - symoffset];
		const ElfW(Sym) *sym = &symtab[i];
		if ((h | 1) == (h2 | 1) && sym->st_name < strsz &&
		    sym->st_shndx != SHN_UNDEF &&
		    strcmp(strtab + sym->st_name, name) == 0) {
			*value = sym->st_value;
			if (size)
				*size = sym->st_size;
			return 0;
		}
		if (h2 & 1)
			break;
	}
	return -1;
}

/* The dynamic entries the version and symbol readers need: virtual
 * addresses and counts. */
struct dlt_elf_tabs {
	uint64_t verdef, verdefnum, verneed, verneednum;
	uint64_t symtab, gnu_hash;
};

static int dlt_elf_take_tabs(void *ctx, int64_t tag, uint64_t val)
{
	struct dlt_elf_tabs *t = ctx;
	switch (tag) {
	case DT_VERDEF:
		t->verdef = val;
		break;
	case DT_VERDEFNUM:
		t->verdefnum = val;
		break;
	case DT_VERNEED:
		t->verneed = val;
		break;
	case DT_VERNEEDNUM:
		t->verneednum = val;
		break;
	case DT_SYMTAB:
		t->symtab = val;
		break;
	case DT_GNU_HASH:
		t->gnu_hash = val;
		break;
	}
	return 0;
}

static int dlt_elf_tabs(struct dlt_elf *e, struct dlt_elf_tabs *t)
{
	memset(t, 0, sizeof(*t));
	if (e->dyn_n == 0)
		return 0;
	return dlt_elf_each_dyn(e, dlt_elf_take_tabs, t);
}

/* A damaged file must not loop: at most this many entries of a chain. */
#define DLT_ELF_MAX_CHAIN 65536

int dlt_elf_each_verdef(struct dlt_elf *e,
			int (*fn)(void *ctx, const char *version), void *ctx)
{
	struct dlt_elf_tabs t;
	uint64_t off;
	if (dlt_elf_tabs(e, &t) != 0)
		return -1;
	if (t.verdef == 0)
		return 0;
	if (dlt_vaddr_to_off(e, t.verdef, &off) != 0)
		return -1;
	for (uint64_t i = 0; i < t.verdefnum && i < DLT_ELF_MAX_CHAIN; i++) {
		ElfW(Verdef) vd;
		ElfW(Verdaux) va;
		char name[256];
		if (dlt_io_pread_all(e->fd, &vd, sizeof(vd), off) != 0)
			return -1;
		if (!(vd.vd_flags & VER_FLG_BASE) && vd.vd_cnt > 0 &&
		    dlt_io_pread_all(e->fd, &va, sizeof(va), off + vd.vd_aux) ==
			    0 &&
		    dlt_elf_dynstr(e, va.vda_name, name, sizeof(name)) == 0 &&
		    fn(ctx, name))
			return 0;
		if (vd.vd_next == 0)
			break;
		off += vd.vd_next;
	}
	return 0;
}

int dlt_elf_each_verneed(struct dlt_elf *e,
			 int (*fn)(void *ctx, const char *file,
				   const char *version),
			 void *ctx)
{
	struct dlt_elf_tabs t;
	uint64_t off;
	if (dlt_elf_tabs(e, &t) != 0)
		return -1;
	if (t.verneed == 0)
		return 0;
	if (dlt_vaddr_to_off(e, t.verneed, &off) != 0)
		return -1;
	for (uint64_t i = 0; i < t.verneednum && i < DLT_ELF_MAX_CHAIN; i++) {
		ElfW(Verneed) vn;
		char file[256], name[256];
		if (dlt_io_pread_all(e->fd, &vn, sizeof(vn), off) != 0 ||
		    dlt_elf_dynstr(e, vn.vn_file, file, sizeof(file)) != 0)
			return -1;
		uint64_t aoff = off + vn.vn_aux;
		for (unsigned k = 0; k < vn.vn_cnt && k < DLT_ELF_MAX_CHAIN;
		     k++) {
			ElfW(Vernaux) va;
			if (dlt_io_pread_all(e->fd, &va, sizeof(va), aoff) != 0)
				return -1;
			if (dlt_elf_dynstr(e, va.vna_name, name,
					   sizeof(name)) == 0 &&
			    fn(ctx, file, name))
				return 0;
			if (va.vna_next == 0)
				break;
			aoff += va.vna_next;
		}
		if (vn.vn_next == 0)
			break;
		off += vn.vn_next;
	}
	return 0;
}

int dlt_elf_symbol(struct dlt_elf *e, const char *name, uint64_t *value)
{
	struct dlt_elf_tabs t;
	uint64_t hoff, soff;
	if (dlt_elf_tabs(e, &t) != 0 || t.gnu_hash == 0 || t.symtab == 0 ||
	    dlt_vaddr_to_off(e, t.gnu_hash, &hoff) != 0 ||
	    dlt_vaddr_to_off(e, t.symtab, &soff) != 0)
		return -1;
	uint32_t hdr[4]; /* nbuckets, symoffset, bloom size, bloom shift */
	if (dlt_io_pread_all(e->fd, hdr, sizeof(hdr), hoff) != 0 || hdr[0] == 0)
		return -1;
	uint32_t h = dlt_gnu_hash(name);
	uint64_t buckets =
		hoff + sizeof(hdr) + (uint64_t)hdr[2] * sizeof(ElfW(Addr));
	uint64_t chains = buckets + (uint64_t)hdr[0] * 4;
	uint32_t idx;
	if (dlt_io_pread_all(e->fd, &idx, 4,
			     buckets + (uint64_t)(h % hdr[0]) * 4))
		return -1;
	if (idx < hdr[1])
		return 0;
	for (unsigned n = 0; n < DLT_ELF_MAX_CHAIN; n++, idx++) {
		uint32_t ch;
		ElfW(Sym) sym;
		char sname[512];
		if (dlt_io_pread_all(e->fd, &ch, 4,
				     chains + (uint64_t)(idx - hdr[1]) * 4) !=
		    0)
			return -1;
		if ((ch | 1u) == (h | 1u) &&
		    dlt_io_pread_all(e->fd, &sym, sizeof(sym),
				     soff + (uint64_t)idx * sizeof(sym)) == 0 &&
		    sym.st_shndx != SHN_UNDEF &&
		    dlt_elf_dynstr(e, sym.st_name, sname, sizeof(sname)) == 0 &&
		    strcmp(sname, name) == 0) {
			*value = sym.st_value;
			return 1;
		}
		if (ch & 1u)
			break;
	}
	return 0;
}

int dlt_elf_defines(struct dlt_elf *e, const char *name)
{
	uint64_t value;
	return dlt_elf_symbol(e, name, &value);
}
