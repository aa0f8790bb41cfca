/* Finds a function in the loaded objects without the dl* API.
 *
 * A successful dlsym() clears a dlerror() message the program has not read
 * yet (measured here on glibc 2.36), so a wrapper that resolved its real
 * function with dlsym in the middle of a program could change what the
 * program sees.  dl_iterate_phdr() and the objects' own dynamic symbol
 * tables leave that state alone, and they also see libraries loaded with
 * RTLD_LOCAL, which dlsym(RTLD_NEXT) does not. */
#define _GNU_SOURCE
#include "symlookup.h"
#include "hot.h"

#include "hash.h"

#include <elf.h>
#include <link.h>
#include <string.h>

struct dlt_find {
	const char *name;
	uint32_t gnu_hash;
	uint32_t sysv_hash;
	uintptr_t skip_base; /* objects loaded at this bias are ours */
	const char *skip_name;
	void *found;
	struct dlt_sym_where *where;
	/* Only objects after the one named skip_name (RTLD_NEXT's order);
	 * cleared once that object has been passed. */
	int after_skip;
};

/* glibc rewrites most address entries of a loaded object's dynamic section
 * to absolute addresses; the vDSO's and some others stay relative. */
static uintptr_t dlt_dyn_addr(uintptr_t base, uintptr_t v)
{
	return v < base ? base + v : v;
}

static int dlt_sym_ok(const ElfW(Sym) * s, const uint16_t *versym, uint32_t i)
{
	if (s->st_shndx == SHN_UNDEF || s->st_value == 0)
		return 0;
	int type = ELF64_ST_TYPE(s->st_info);
	int bind = ELF64_ST_BIND(s->st_info);
	if ((type != STT_FUNC && type != STT_OBJECT) ||
	    (bind != STB_GLOBAL && bind != STB_WEAK))
		return 0;
	/* A hidden (non-default) version is what old binaries bound to, not
	 * what a new lookup by name gets. */
	if (versym && (versym[i] & 0x8000))
		return 0;
	return 1;
}

DLT_START static int dlt_find_in(struct dl_phdr_info *info, size_t size,
				 void *data)
{
	(void)size;
	struct dlt_find *f = data;
	if (info->dlpi_addr == f->skip_base && f->skip_base != 0)
		return 0;
	const char *oname = info->dlpi_name ? info->dlpi_name : "";
	if (f->skip_name && *oname) {
		const char *b = strrchr(oname, '/');
		if (strcmp(b ? b + 1 : oname, f->skip_name) == 0) {
			f->after_skip = 0;
			return 0;
		}
	}
	if (f->after_skip)
		return 0;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr +
						  info->dlpi_phdr[i].p_vaddr);
	if (dyn == NULL)
		return 0;
	uintptr_t base = info->dlpi_addr;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const uint32_t *gnu = NULL, *sysv = NULL;
	const uint16_t *versym = NULL;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB:
			symtab =
				(const void *)dlt_dyn_addr(base, d->d_un.d_ptr);
			break;
		case DT_STRTAB:
			strtab =
				(const void *)dlt_dyn_addr(base, d->d_un.d_ptr);
			break;
		case DT_GNU_HASH:
			gnu = (const void *)dlt_dyn_addr(base, d->d_un.d_ptr);
			break;
		case DT_HASH:
			sysv = (const void *)dlt_dyn_addr(base, d->d_un.d_ptr);
			break;
		case DT_VERSYM:
			versym =
				(const void *)dlt_dyn_addr(base, d->d_un.d_ptr);
			break;
		}
	}
	if (symtab == NULL || strtab == NULL)
		return 0;
	const ElfW(Sym) *hit = NULL;
	uint32_t hit_i = 0;
	if (gnu) {
		uint32_t nbuckets = gnu[0], symoffset = gnu[1];
		uint32_t bloom_size = gnu[2], bloom_shift = gnu[3];
		const ElfW(Addr) *bloom = (const void *)&gnu[4];
		const uint32_t *buckets = (const void *)&bloom[bloom_size];
		const uint32_t *chain = &buckets[nbuckets];
		uint32_t h = f->gnu_hash;
		if (nbuckets == 0 || bloom_size == 0)
			return 0;
		ElfW(Addr) word =
			bloom[(h / (8 * sizeof(ElfW(Addr)))) % bloom_size];
		ElfW(Addr) mask =
			((ElfW(Addr))1 << (h % (8 * sizeof(ElfW(Addr))))) |
			((ElfW(Addr))1
			 << ((h >> bloom_shift) % (8 * sizeof(ElfW(Addr)))));
		if ((word & mask) != mask)
			return 0;
		uint32_t i = buckets[h % nbuckets];
		if (i < symoffset)
			return 0;
		for (;; i++) {
			uint32_t h2 = chain[i - symoffset];
			if ((h | 1) == (h2 | 1) &&
			    strcmp(strtab + symtab[i].st_name, f->name) == 0 &&
			    dlt_sym_ok(&symtab[i], versym, i)) {
				hit = &symtab[i];
				hit_i = i;
				break;
			}
			if (h2 & 1)
				break;
		}
	} else if (sysv) {
		uint32_t nbucket = sysv[0];
		const uint32_t *bucket = &sysv[2], *chain = &sysv[2 + nbucket];
		if (nbucket == 0)
			return 0;
		for (uint32_t i = bucket[f->sysv_hash % nbucket];
		     i != STN_UNDEF; i = chain[i]) {
			if (strcmp(strtab + symtab[i].st_name, f->name) == 0 &&
			    dlt_sym_ok(&symtab[i], versym, i)) {
				hit = &symtab[i];
				hit_i = i;
				break;
			}
		}
	}
	(void)hit_i;
	if (hit == NULL)
		return 0;
	f->found = (void *)(base + hit->st_value);
	if (f->where) {
		f->where->base = base;
		f->where->name = oname;
	}
	return 1; /* the first object in load order wins, as for the loader */
}

void *dlt_sym_find(const char *name, uintptr_t skip_base, const char *skip_name,
		   struct dlt_sym_where *where)
{
	struct dlt_find f = {name,
			     dlt_gnu_hash(name),
			     dlt_sysv_hash(name),
			     skip_base,
			     skip_name,
			     NULL,
			     where,
			     0};
	dl_iterate_phdr(dlt_find_in, &f);
	return f.found;
}

DLT_START void *dlt_sym_next(const char *name, const char *self_name)
{
	struct dlt_find f = {name,
			     dlt_gnu_hash(name),
			     dlt_sysv_hash(name),
			     0,
			     self_name,
			     NULL,
			     NULL,
			     1};
	dl_iterate_phdr(dlt_find_in, &f);
	if (f.found == NULL && f.after_skip) {
		/* This library is not on the list (another namespace):
		 * every other object, in load order. */
		f.after_skip = 0;
		dl_iterate_phdr(dlt_find_in, &f);
	}
	return f.found;
}

struct dlt_find_obj {
	uintptr_t base;
	struct dlt_find *f;
};

static int dlt_find_in_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct dlt_find_obj *o = data;
	if (info->dlpi_addr != o->base)
		return 0;
	dlt_find_in(info, size, o->f);
	return 1;
}

void *dlt_sym_find_in(uintptr_t base, const char *name)
{
	struct dlt_find f = {name,
			     dlt_gnu_hash(name),
			     dlt_sysv_hash(name),
			     0,
			     NULL,
			     NULL,
			     NULL,
			     0};
	struct dlt_find_obj o = {base, &f};
	dl_iterate_phdr(dlt_find_in_one, &o);
	return f.found;
}

struct dlt_find_prefix {
	const char *prefix;
	size_t n;
	uintptr_t base;
	int found;
};

static int dlt_find_by_name(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct dlt_find_prefix *f = data;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	const char *b = strrchr(name, '/');
	b = b ? b + 1 : name;
	if (strncmp(b, f->prefix, f->n) != 0)
		return 0;
	f->base = info->dlpi_addr;
	f->found = 1;
	return 1;
}

int dlt_obj_find(const char *prefix, uintptr_t *base)
{
	struct dlt_find_prefix f = {prefix, strlen(prefix), 0, 0};
	dl_iterate_phdr(dlt_find_by_name, &f);
	if (!f.found)
		return -1;
	*base = f.base;
	return 0;
}
