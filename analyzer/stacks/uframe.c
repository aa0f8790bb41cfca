/* The parts of the unwinder that need no libdw: the format of a frame,
 * the mapping of an address, the scan of a copy for return addresses. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "procmaps.h"
#include "uscan.h"

static const char *dlt_uframe_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *dlt_uframe_format(const struct dlt_uframe *f, char *buf, size_t cap)
{
	if (cap == 0)
		return buf;
	if (f->obj == NULL)
		snprintf(buf, cap, "0x%" PRIx64, f->pc);
	else if (f->func[0] == '\0')
		snprintf(buf, cap, "%s+0x%" PRIx64, dlt_uframe_base(f->obj),
			 f->rel);
	else if (f->how == DLT_UF_INLINE)
		snprintf(buf, cap, "%s (%s)", f->func, dlt_uframe_base(f->obj));
	else
		snprintf(buf, cap, "%s+0x%" PRIx64 " (%s)", f->func,
			 f->func_off, dlt_uframe_base(f->obj));
	return buf;
}

long dlt_umap_find(const struct dlt_umap *map, uint64_t addr)
{
	/* The mappings are few (tens, a few hundred) and in no promised
	 * order: a linear search costs less than sorting them per stack. */
	for (size_t i = 0; map && i < map->n; i++)
		if (addr >= map->m[i].lo && addr < map->m[i].hi)
			return (long)i;
	return -1;
}

size_t dlt_uscan(const struct dlt_umap *map, const struct dlt_ustack *st,
		 uint64_t from, uint64_t *ras, size_t *mods, size_t cap,
		 dlt_ubytes_fn bytes, void *ctx)
{
	size_t n = 0;
	uint64_t end = st->sp + st->len;
	if (from < st->sp)
		from = st->sp;
	/* Return addresses are stored aligned: the ABIs keep the stack
	 * pointer 8- (x86-64 at a call: 16 - 8) or 16-aligned. */
	from = (from + 7) & ~(uint64_t)7;
	for (uint64_t a = from; a + 8 <= end && n < cap; a += 8) {
		uint64_t w;
		memcpy(&w, st->bytes + (a - st->sp), 8);
		long mi = dlt_umap_find(map, w);
		if (mi < 0)
			continue;
		const struct dlt_umod *m = &map->m[mi];
		uint64_t fo = w - m->lo + m->off;
		uint8_t b[8];
		/* The call is in the file (the process's copy is not here);
		 * a word at the mapping's first bytes has no call before it
		 * that this mapping holds. */
		if (w - m->lo < 8 || bytes(ctx, (size_t)mi, fo, b) != 0 ||
		    !dlt_is_after_call(b))
			continue;
		ras[n] = w;
		mods[n] = (size_t)mi;
		n++;
	}
	return n;
}

int dlt_uarch_pc(uint16_t arch)
{
	return arch == DLT_ARCH_X86_64	  ? DLT_RAW_REG_PC_X86_64
	       : arch == DLT_ARCH_AARCH64 ? DLT_RAW_REG_PC_AARCH64
					  : -1;
}

int dlt_uarch_sp(uint16_t arch)
{
	return arch == DLT_ARCH_X86_64	  ? DLT_RAW_REG_SP_X86_64
	       : arch == DLT_ARCH_AARCH64 ? DLT_RAW_REG_SP_AARCH64
					  : -1;
}

static const char *const dlt_x86_64_regs[17] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
	"r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip"};

const char *dlt_uarch_regname(uint16_t arch, int reg, char *buf, size_t cap)
{
	if (arch == DLT_ARCH_X86_64 && reg >= 0 && reg < 17)
		return dlt_x86_64_regs[reg];
	if (arch == DLT_ARCH_AARCH64 && reg >= 0 && reg <= 30)
		snprintf(buf, cap, "x%d", reg);
	else if (arch == DLT_ARCH_AARCH64 && reg == 31)
		snprintf(buf, cap, "sp");
	else if (arch == DLT_ARCH_AARCH64 && reg == 32)
		snprintf(buf, cap, "pc");
	else
		snprintf(buf, cap, "reg %d", reg);
	return buf;
}
