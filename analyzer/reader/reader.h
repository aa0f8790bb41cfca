/* Trace reader: validates a trace file and hands out its records.
 *
 * Never trusts the file: every length and offset is checked against the
 * bytes actually present, damage is reported with its offset, and everything
 * valid before (and, for other chunks, after) the damage is still read.
 * A file is read, not mapped, a window of whole chunks at a time: memory
 * stays the same however long the trace. */
#ifndef DLTRACE_READER_H
#define DLTRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dltrace/format.h"

struct dlt_trace;

/* A record handed to a callback, with the context of its chunk.  The file
 * is read through a window of bounded size, so rec is only valid during the
 * callback: copy what is kept. */
struct dlt_rec_view {
	const struct dlt_rec_hdr *rec; /* rec->len bytes are readable */
	uint64_t offset;	       /* of the record in the file */
	uint32_t tid;		       /* thread that wrote the chunk */
	uint32_t writer;	       /* enum dlt_writer_kind */
	/* 1: rec is the API_CALL (or API_ENTER) a compact entry of format
	 * 2.0 stands for, built by the reader; the entry is 8 bytes. */
	uint32_t compact;
	/* 0: the record is in the trace's own file; k: in its k-th
	 * companion's (dlt_trace_attach), where offset is. */
	uint32_t companion;
};

/* Called for each record in file order; return non-zero to stop. */
typedef int (*dlt_rec_fn)(void *ctx, const struct dlt_rec_view *v);

/* Opens and validates a trace.  On failure returns NULL and puts a message
 * in err.  A trace that opens may still carry problems (see below). */
struct dlt_trace *dlt_trace_open(const char *path, char *err, size_t errlen);
/* The same, opened for writing too when writable (compact), never through
 * a symbolic link then. */
struct dlt_trace *dlt_trace_open_rw(const char *path, bool writable, char *err,
				    size_t errlen);
/* Gives the trace's descriptor back until it is read again (then the file
 * is opened again, and must be the same file): for a job of more traces
 * than the process may hold open. */
void dlt_trace_park(struct dlt_trace *t);
/* The descriptor the trace reads from (opened again if parked); -1 for a
 * trace in memory or one whose file could not be opened again. */
int dlt_trace_fd(struct dlt_trace *t);
/* The same over bytes in memory, which must outlive the trace (fuzzing,
 * tests).  name is used in messages. */
struct dlt_trace *dlt_trace_open_mem(const void *buf, size_t size,
				     const char *name, char *err,
				     size_t errlen);
void dlt_trace_close(struct dlt_trace *t);

/* Makes companion, a watcher's companion trace about t's process (format
 * 2.3: DLT_FEAT_WATCHER, parent_trace_id t's), part of t, which takes it
 * over and closes it with itself.  Reading t then reads its own file and
 * then each companion's records as t's own, in the order attached: its
 * strings (ids with DLT_STR_WATCHER) resolve through t, what reading it
 * found is among t's problems ("watcher records FILE: ..."), its records
 * count in t's stats, and t's header takes the larger alive_ns and
 * rss_peak_kb of the two.  A companion whose string ids clash with an
 * earlier one's of the same trace is left out, and said. */
void dlt_trace_attach(struct dlt_trace *t, struct dlt_trace *companion);
/* How many companions are attached to t. */
size_t dlt_trace_companions(const struct dlt_trace *t);
/* Reads a file in windows of about this many bytes (whole chunks, at least
 * one) from now on, instead of the default.  Tests use a small window to put
 * window boundaries inside small traces. */
void dlt_trace_set_window(struct dlt_trace *t, size_t bytes);

const char *dlt_reader_path(const struct dlt_trace *t);
const struct dlt_file_header *dlt_trace_header(const struct dlt_trace *t);

/* The string with this id, or NULL if the trace has none (an id written by
 * a record whose STRING record was lost, or DLT_STR_NONE).  Strings are
 * copies owned by the trace, valid until it is closed. */
const char *dlt_trace_str(const struct dlt_trace *t, uint32_t id);
/* Same, but "" instead of NULL. */
const char *dlt_trace_strz(const struct dlt_trace *t, uint32_t id);

/* Visits every committed record except CHUNK and STRING, in file order
 * (the trace's own file, then its companions').
 * Records shorter than their type's fixed part are reported as damage and
 * skipped, so callbacks may read the fixed part of a known type directly.
 * Returns what the callback returned to stop, or 0. */
int dlt_trace_foreach(struct dlt_trace *t, dlt_rec_fn fn, void *ctx);

/* Problems found while reading: damage, truncation, a newer minor version.
 * Stable after the first dlt_trace_foreach. */
size_t dlt_trace_problem_count(const struct dlt_trace *t);
const char *dlt_trace_problem(const struct dlt_trace *t, size_t i);

/* Whether the trace was found damaged or cut (by the reads so far), and
 * the first offset where: what it lost there may have held its end. */
int dlt_trace_damage(const struct dlt_trace *t, uint64_t *off);

/* Counters from the last full dlt_trace_foreach. */
struct dlt_trace_stats {
	uint64_t records; /* committed records, CHUNK and STRING included */
	uint64_t chunks;
	uint64_t bytes;	  /* file size */
	uint64_t unknown; /* records of types this reader does not know */
};
void dlt_trace_stats(const struct dlt_trace *t, struct dlt_trace_stats *out);

/* Minimum size of a record type's fixed part, 0 for unknown types. */
uint32_t dlt_rec_min_size(uint16_t type);
const char *dlt_rec_type_name(uint16_t type);

#endif
