/* Reading ELF objects, for the audit module (SONAME, RUNPATH, RPATH,
 * build-id of each object mapped: from the loader's mapped copy when it
 * can be checked, else from disk), the analyzer (DT_NEEDED of files on
 * the analysing machine) and the watcher (symbols of another process's
 * objects).  Nothing is allocated:
 * the audit module calls this with the loader's lock held. */
#ifndef DLTRACE_ELFREAD_H
#define DLTRACE_ELFREAD_H

#include <elf.h>
#include <link.h>
#include <stdint.h>

#define DLT_ELF_MAX_PHDRS 64

/* An ELF object of this machine's class, opened: its program headers and
 * where its dynamic section and dynamic string table are in the file. */
struct dlt_elf {
	int fd;
	uint64_t size; /* of the file */
	ElfW(Phdr) ph[DLT_ELF_MAX_PHDRS];
	int nph;
	uint64_t dyn_off, dyn_n;  /* PT_DYNAMIC: file offset, entries */
	uint64_t str_off, str_sz; /* DT_STRTAB in the file, DT_STRSZ */
};

/* Opens path and reads its headers.  Returns 0, or a negative errno (the
 * file cannot be read, or is not an ELF object of this machine's class). */
int dlt_elf_open(struct dlt_elf *e, const char *path);
void dlt_elf_close(struct dlt_elf *e);

/* Calls fn for each entry of the dynamic section, in order, until fn
 * returns non-zero or DT_NULL is reached.  Returns 0, or -1 when the
 * section cannot be read. */
int dlt_elf_each_dyn(struct dlt_elf *e,
		     int (*fn)(void *ctx, int64_t tag, uint64_t val),
		     void *ctx);

/* The string at offset off of the dynamic string table, cut to cap - 1
 * bytes.  Returns 0, or -1 when off is outside the table. */
int dlt_elf_dynstr(const struct dlt_elf *e, uint64_t off, char *buf,
		   size_t cap);

/* The GNU build-id (at most cap bytes of it); returns its length, 0 when
 * there is none. */
uint32_t dlt_elf_build_id(const struct dlt_elf *e, uint8_t *out, uint32_t cap);

/* Calls fn with the name of each symbol version the object defines (its
 * version definitions, the base one, which names the file, excepted), in
 * order, until fn returns non-zero.  Returns 0, or -1 when they cannot be
 * read (an object without versions has none: 0). */
int dlt_elf_each_verdef(struct dlt_elf *e,
			int (*fn)(void *ctx, const char *version), void *ctx);

/* Calls fn with each symbol version the object needs and the file (its
 * DT_NEEDED name) it needs it from, until fn returns non-zero.  Returns 0,
 * or -1 when they cannot be read. */
int dlt_elf_each_verneed(struct dlt_elf *e,
			 int (*fn)(void *ctx, const char *file,
				   const char *version),
			 void *ctx);

/* Whether the object defines (exports) a symbol of that name: 1 yes, 0 no,
 * -1 when its symbol table cannot be read.  Looked up in its GNU hash
 * table as the loader does. */
int dlt_elf_defines(struct dlt_elf *e, const char *name);

/* The same, with the symbol's value (its link-time address: add the load
 * bias) in *value when it is defined: 1, 0 not defined, -1 unreadable.
 * The watcher finds another process's _PyRuntime with it. */
int dlt_elf_symbol(struct dlt_elf *e, const char *name, uint64_t *value);

/* What the audit module records of an object. */
struct dlt_elf_info {
	char soname[256];
	char runpath[1024];
	char rpath[1024];
	uint8_t build_id[32];
	uint32_t build_id_len;
	int has_runpath;
	int has_rpath;
};

/* Empty: the strings' first bytes, the build-id and the flags, not the
 * 2 KiB of the strings' buffers (written on the stack, they were a page
 * fault at every process's start, issue 31). */
void dlt_elf_info_clear(struct dlt_elf_info *out);

/* Fills *out from the file at path.  Returns 0 or a negative errno. */
int dlt_elf_read(const char *path, struct dlt_elf_info *out);

/* The value (an offset from the load bias) of the symbol name that the
 * object mapped at load bias base, with its dynamic section at dyn,
 * defines, through its GNU hash table: whether the loader has relocated
 * the object yet or not (the LD_AUDIT module finds the preload copy's
 * dlt_rendezvous before it is).  0, or -1 when it defines none or has no
 * GNU hash table.  *size (when size is not NULL) is the symbol's size: an
 * object of another version of the library may be smaller than ours. */
int dlt_elf_mapped_symbol(uintptr_t base, const void *dyn, const char *name,
			  uint64_t *value, uint64_t *size);

/* The first NUL-terminated string in section section (".rodata") of the
 * file at path that begins with prefix and a digit ("NCCL version 2.28.9"),
 * copied into out (cut to cap - 1 bytes).  Reads the section in pieces; a
 * section larger than max_bytes is not searched.  Returns 0, or -1 when there
 * is no such string. */
int dlt_elf_section_string(const char *path, const char *section,
			   const char *prefix, uint64_t max_bytes, char *out,
			   size_t cap);

/* Fills *out from an object the loader has mapped at load bias base with
 * its dynamic section at dyn (a link_map's l_addr and l_ld), without
 * opening its file: the ELF and program headers where the first segment
 * maps them, checked against dyn, every range checked to be mapped.  The
 * dynamic section's addresses are taken either way: the loader rewrites
 * them to absolute ones on some ports and not on others.  Returns 0, or -1
 * when anything does not fit (then read the file). */
int dlt_elf_read_mapped(uintptr_t base, const void *dyn,
			struct dlt_elf_info *out);

#endif
