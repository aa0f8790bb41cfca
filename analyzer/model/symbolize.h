/* Native code addresses of a traced process, named on the analysing
 * machine: the object from the process's LIB_LOAD records (its load base)
 * and the object's program headers, the function from its .symtab, its
 * .dynsym, or a separate debug file found by build-id
 * (/usr/lib/debug/.build-id/xx/yyyy.debug).  The object's file is read
 * where the trace says it was; a file whose build-id differs from the
 * recorded one is not used for names. */
#ifndef DLTRACE_SYMBOLIZE_H
#define DLTRACE_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct dlt_frame {
	uint64_t pc;
	/* The loaded object pc is in (a row of p->libs), NULL when none of
	 * the recorded objects covers it (JIT code, an object the trace did
	 * not see). */
	const struct dlt_lib *lib;
	const char *path; /* the object's file, NULL when unknown */
	uint64_t vaddr;	  /* pc in the object's own addresses (pc - base) */
	char func[256];	  /* the function, "" when not known */
	uint64_t off;	  /* pc - the function's start */
	/* Where the name came from: "symtab", "dynsym", "debug file", or
	 * NULL when there is none. */
	const char *source;
};

/* Names pc for process p (whose libs are in time order: the latest load
 * at or before ts that covers pc wins; ts 0 takes any).  Returns 0 when
 * pc is in a recorded object (f->func may still be ""), -1 when not. */
int dlt_frame_resolve(const struct dlt_process *p, uint64_t pc, uint64_t ts,
		      struct dlt_frame *f);

/* The process's row of the file at path (its latest load, by path or
 * real path), NULL when it has none. */
const struct dlt_lib *dlt_lib_of_path(const struct dlt_process *p,
				      const char *path);

/* Names pc found at offset off of the file at path, as the process's
 * mappings said (a SIGNAL record's frames): for code no LIB_LOAD record
 * covers, as in a forked child, whose trace lists no libraries.  f->lib is
 * the process's row of that file when it has one.  Returns 0 when the
 * file holds off in a loaded segment, -1 when not. */
int dlt_frame_resolve_file(const struct dlt_process *p, uint64_t pc,
			   const char *path, uint64_t off, struct dlt_frame *f);

/* Names the address off bytes past the start of the object at path (its
 * first loaded page, as dladdr counts), for text that recorded only
 * "object+0xoff" (the watcher's stacks): from the file's .symtab, the
 * debug file of its build-id, or its .dynsym.  The file must be the one
 * loaded (build_id, when given, equal).  0 when named. */
int dlt_frame_name_file(const char *path, const uint8_t *build_id,
			uint32_t build_id_len, uint64_t off,
			struct dlt_frame *f);

/* "crash_here+0x1b (libcrash.so)", "libcrash.so+0x1139",
 * "0x7f00deadbeef".  Returns buf. */
const char *dlt_frame_format(const struct dlt_frame *f, char *buf, size_t cap);

#endif
