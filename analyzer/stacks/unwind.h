/* Stacks recorded raw (a RAWSTACK: registers and a copy of the stack
 * memory; a MODMAP: the executable mappings with their build-ids),
 * unwound and named here, on the analysing machine, from the objects'
 * files: call frame information (.eh_frame, .debug_frame, the debug file
 * of the object's build-id or debuglink) read with elfutils' libdw,
 * names from .symtab, the debug file or .dynsym, inlined functions from
 * DWARF, C++ names demangled.  Where the CFI cannot go on (no CFI for an
 * address, a register the capture did not know), the rest is a scan of
 * the copied memory for return addresses, marked as such.  Objects are
 * read once per unwinder (keyed by file and build-id), whatever the
 * number of processes and stacks. */
#ifndef DLTRACE_UNWIND_H
#define DLTRACE_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "dltrace/format.h"

/* One executable mapping of the process (a MODMAP entry). */
struct dlt_umod {
	uint64_t lo, hi; /* addresses */
	uint64_t off;	 /* offset in the file */
	const char *path;
	const uint8_t *build_id; /* NULL or build_id_len bytes */
	uint32_t build_id_len;
};

struct dlt_umap {
	const struct dlt_umod *m;
	size_t n;
};

/* One thread's raw state (a RAWSTACK). */
struct dlt_ustack {
	uint16_t arch;	     /* enum dlt_raw_arch */
	uint64_t regs_known; /* bit i: regs[i] known */
	uint64_t regs[DLT_RAW_NREGS];
	uint64_t sp; /* address of bytes[0] */
	const uint8_t *bytes;
	uint32_t len;
	uint64_t stack_lo, stack_hi; /* 0: unknown */
};

/* How a frame was found. */
enum dlt_uf_how {
	DLT_UF_REGS = 1,   /* the registers' pc: where the thread was */
	DLT_UF_CFI = 2,	   /* a return address the unwind tables gave */
	DLT_UF_SCAN = 3,   /* a return address found by scanning the copy */
	DLT_UF_INLINE = 4, /* a function inlined at the next frame's pc */
};

struct dlt_uframe {
	uint64_t pc;	/* the pc, or the return address */
	uint8_t how;	/* enum dlt_uf_how */
	uint8_t caller; /* pc is a return address: looked up at pc - 1 */
	uint8_t signal; /* the kernel's signal frame (<signal handler called>)
			 */
	uint8_t pad;
	const char *obj;   /* the mapped file (lives as long as the unwinder);
			    * NULL: no file is mapped at pc */
	uint64_t rel;	   /* pc in the object's own (ELF) addresses */
	char func[256];	   /* the function, demangled; "" unknown */
	uint64_t func_off; /* pc - the function's start (0 for INLINE) */
	char src[256];	   /* "file.c:42", "" unknown */
	/* Where the name came from: "symtab", "debug file", "dynsym"; NULL
	 * when unnamed. */
	const char *name_src;
	/* Why func is "" ("no symbol covers it", "file not found",
	 * "build-id differs", "no file mapped"); NULL when named. */
	const char *unnamed;
};

/* The entries of a MODMAP that its length holds. */
uint32_t dlt_modmap_count(const struct dlt_rec_modmap *r);

/* Entry x as a mapping of path; its build_id points into the record. */
void dlt_umod_of(const struct dlt_modmap_ent *x, const char *path,
		 struct dlt_umod *m);

/* r as a stack whose bytes point into the record, its length cut to the
 * record's; -1 when r is shorter than its fixed part. */
int dlt_ustack_of(const struct dlt_rec_rawstack *r, struct dlt_ustack *st);

struct dlt_unwinder;

/* debug_dirs: ':'-separated folders holding .build-id/xx/yyyy.debug and
 * debuglink targets, NULL for the default (DLTRACE_DEBUG_DIRS, else
 * /usr/lib/debug). */
struct dlt_unwinder *dlt_unwinder_new(const char *debug_dirs);
void dlt_unwinder_free(struct dlt_unwinder *u);

/* Unwinds st against map into out (innermost first, at most cap frames,
 * inline frames included).  *stop (never NULL on return) says why it
 * ended: "outermost frame", "stack copy ends", "no CFI for 0x...",
 * "register rbp not known", "scanned", "frame limit".  Returns the number
 * of frames. */
size_t dlt_unwind(struct dlt_unwinder *u, const struct dlt_umap *map,
		  const struct dlt_ustack *st, struct dlt_uframe *out,
		  size_t cap, char *stop, size_t stop_cap);

/* Names one address of the object at path (its build-id when known):
 * rel in the object's ELF addresses, caller as in dlt_uframe.  Fills
 * out[0] (and inline frames before it: out[0] innermost); returns the
 * number of frames written, at least 1. */
size_t dlt_unwind_name(struct dlt_unwinder *u, const char *path,
		       const uint8_t *build_id, uint32_t build_id_len,
		       uint64_t rel, int caller, struct dlt_uframe *out,
		       size_t cap);

/* "stale_deep+0x41 (libstale.so)", "inlined_fn (prog)",
 * "libfoo.so+0x1139", "0x7f00deadbeef".  Returns buf. */
const char *dlt_uframe_format(const struct dlt_uframe *f, char *buf,
			      size_t cap);

#endif
