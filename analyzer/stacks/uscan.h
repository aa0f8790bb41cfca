/* What both builds of the unwinder (unwind.c with libdw, unwind_none.c
 * without) share: finding the mapping of an address, the scan of a stack
 * copy for return addresses, the architectures' register names. */
#ifndef DLTRACE_USCAN_H
#define DLTRACE_USCAN_H

#include <stddef.h>
#include <stdint.h>

#include "unwind.h"

/* The mapping of map holding addr, or -1. */
long dlt_umap_find(const struct dlt_umap *map, uint64_t addr);

/* Reads the 8 bytes of the file of map->m[mod] that end at file offset
 * fo (the bytes before a return address).  0, or -1 when they cannot be
 * read (no file, another build of it). */
typedef int (*dlt_ubytes_fn)(void *ctx, size_t mod, uint64_t fo,
			     uint8_t out[8]);

/* The words of st's copy from address from upwards that are return
 * addresses: inside an executable mapping, after a call instruction in
 * the file's bytes.  At most cap of them into ras, their mappings into
 * mods.  Returns how many. */
size_t dlt_uscan(const struct dlt_umap *map, const struct dlt_ustack *st,
		 uint64_t from, uint64_t *ras, size_t *mods, size_t cap,
		 dlt_ubytes_fn bytes, void *ctx);

/* The architecture's pc and stack pointer registers (DWARF numbers), -1
 * for an architecture not known. */
int dlt_uarch_pc(uint16_t arch);
int dlt_uarch_sp(uint16_t arch);
/* "rbp", "x29", "r12"; "reg N" past the table. */
const char *dlt_uarch_regname(uint16_t arch, int reg, char *buf, size_t cap);

#endif
