/* Capturing a thread's stack raw (format 2.4, MODMAP and RAWSTACK), for
 * the crash handler (shim/signals.c: its own process, inside a signal
 * handler) and the watcher (watcher/watch.c: another process): the
 * process's executable mappings with their GNU build-ids, the mapping a
 * stack pointer is in, and a copy of the stack.  Nothing is unwound or
 * named here; the analyzer does that offline (docs/design.md, "Stacks:
 * capture raw").
 *
 * Memory is read through the caller's reader (process_vm_readv on its own
 * pid or on another's), so that an unmapped address fails instead of
 * faulting.  No allocation, no stdio, no locks, no loader calls: every
 * buffer is the caller's (struct dlt_rc_maps is large: the shim keeps one
 * static, used by one thread at a time). */
#ifndef DLTRACE_RAWCAP_H
#define DLTRACE_RAWCAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dltrace/format.h"

/* Reads n bytes at addr of the process: the bytes read (fewer where the
 * memory ends), or -1. */
typedef ssize_t (*dlt_rc_read_fn)(void *ctx, void *dst, uint64_t addr,
				  size_t n);

/* A process with PyTorch maps over 300 executable pieces. */
#define DLT_RC_MAX_ENTS 1024
#define DLT_RC_PATH 256
#define DLT_RC_STACK_MAX (32u * 1024u)

struct dlt_rc_maps {
	/* The result: executable file mappings in address order, their
	 * paths (e[i].path is left 0: the caller's writer makes the string
	 * ids) and whether more were listed than fit. */
	struct dlt_modmap_ent e[DLT_RC_MAX_ENTS];
	char path[DLT_RC_MAX_ENTS][DLT_RC_PATH];
	uint32_t n;
	int trunc;
	/* The mapping sp is in (0 none).  A stack pointer below every
	 * mapping by less than DLT_RC_BELOW (a frame that overflowed its
	 * stack) gets the mapping just above it. */
	uint64_t sp, stack_lo, stack_hi;
	/* FNV-1a of the whole text: a listing that did not change. */
	uint64_t hash;
	/* While parsing. */
	uint64_t base[DLT_RC_MAX_ENTS]; /* the file's offset-0 mapping */
	char line[640];
	size_t ll;
	char cur_path[DLT_RC_PATH]; /* the last file mapped at offset 0 */
	uint64_t cur_base;
	uint64_t above_lo, above_hi; /* the nearest mapping above sp */
	/* The read buffer while the text is read, then the ELF headers. */
	uint8_t scratch[4096];
};

#define DLT_RC_BELOW (64u * 1024u)

/* Parsing a listing fed in pieces: begin, feed the text as it comes (any
 * split), end; then, unless the hash says the caller has it already, the
 * build-ids, read through rd. */
void dlt_rc_maps_begin(struct dlt_rc_maps *m, uint64_t sp);
void dlt_rc_maps_feed(struct dlt_rc_maps *m, const char *buf, size_t n);
void dlt_rc_maps_end(struct dlt_rc_maps *m);
void dlt_rc_maps_ids(struct dlt_rc_maps *m, dlt_rc_read_fn rd, void *ctx);

/* begin, feed and end over /proc/PID/maps read from fd (the caller opens
 * and closes it).  Returns 0, or -1 when nothing could be read. */
int dlt_rc_maps_fd(struct dlt_rc_maps *m, int fd, uint64_t sp);

/* The entry whose mapping holds pc, or -1. */
int dlt_rc_maps_find(const struct dlt_rc_maps *m, uint64_t pc);

/* Copies up to cap bytes of stack from sp into dst, never past hi (0: no
 * bound known), halving the length where the read fails.  Returns the
 * bytes copied; *more is set when the stack goes on past them (always
 * when hi is unknown). */
uint32_t dlt_rc_stack(dlt_rc_read_fn rd, void *ctx, uint64_t sp, uint64_t hi,
		      void *dst, uint32_t cap, int *more);

/* The bytes of stack a RAWSTACK wants at sp: DLT_RC_STACK_MAX, less where
 * hi (0 unknown) is closer. */
uint32_t dlt_rc_stack_want(uint64_t sp, uint64_t hi);

/* ---- records (the writer's, tracer/) ---- */
struct dlt_writer;
struct dlt_tls;

/* Writes m as a MODMAP record at ts, its paths' strings before it. */
void dlt_rc_modmap_write(struct dlt_writer *w, struct dlt_tls *t,
			 struct dlt_rc_maps *m, uint64_t ts);

/* A RAWSTACK in two steps, so that the stack is copied straight into the
 * record (no buffer on a crashed thread's stack): begin reserves room for
 * the header and the stack at sp below hi (0 unknown) and zeroes the
 * header but for sp; the caller fills ts, tid, arch, why, the registers
 * and stack_lo/stack_hi; end copies the stack, gives back what was not
 * used and commits.  begin returns NULL when nothing can be recorded. */
struct dlt_rec_rawstack *dlt_rc_raw_begin(struct dlt_writer *w,
					  struct dlt_tls *t, uint64_t sp,
					  uint64_t hi, uint32_t *cap);
void dlt_rc_raw_end(struct dlt_tls *t, struct dlt_rec_rawstack *r, uint32_t cap,
		    dlt_rc_read_fn rd, void *ctx);

#endif
