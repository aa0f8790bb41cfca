/* Reads what the trace needs to know about an ELF file from the file itself
 * (not from the loader's in-memory copy, whose layout differs between glibc
 * ports): SONAME, RUNPATH, RPATH and the GNU build-id. */
#ifndef DLTRACE_ELFINFO_H
#define DLTRACE_ELFINFO_H

#include <stdint.h>

struct dlt_elf_info {
	char soname[256];
	char runpath[1024];
	char rpath[1024];
	uint8_t build_id[32];
	uint32_t build_id_len;
	int has_runpath;
	int has_rpath;
};

/* Fills *out from the file at path.  Returns 0, or a negative errno (the
 * file cannot be read, or is not a 64-bit native ELF object). */
int dlt_elf_read(const char *path, struct dlt_elf_info *out);

#endif
