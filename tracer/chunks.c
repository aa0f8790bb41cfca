/* The slow path of recording: handing out chunks of the file to threads,
 * mapping segments and letting them go (the fast path is record.h). */
#define _GNU_SOURCE
#include "writer_int.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint32_t dlt_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* The mapping of segment seg, growing the file first if needed.  NULL
 * with *err set when it cannot be made. */
static uint8_t *dlt_seg_map(struct dlt_writer *w, uint32_t seg, int *err,
			    int populate)
{
	uint8_t *sbase =
		atomic_load_explicit(&w->segs[seg], memory_order_acquire);
	if (sbase != NULL)
		return sbase;
	dlt_spin_lock(&w->lock);
	sbase = atomic_load_explicit(&w->segs[seg], memory_order_acquire);
	if (sbase == NULL) {
		sbase = dlt_map_range(
			w, DLT_DATA_OFFSET + (uint64_t)seg * DLT_SEG_SIZE,
			dlt_seg_len(w, seg), err, populate);
		if (sbase != NULL)
			atomic_store_explicit(&w->segs[seg], sbase,
					      memory_order_release);
	}
	dlt_spin_unlock(&w->lock);
	return sbase;
}

/* The same for a recording thread: NULL when tracing had to stop. */
static uint8_t *dlt_seg_get(struct dlt_writer *w, uint32_t seg)
{
	int err = 0;
	uint8_t *sbase = dlt_seg_map(w, seg, &err, 1);
	if (sbase == NULL)
		dlt_writer_disable(w, "cannot grow", w->path, err);
	return sbase;
}

/* Every chunk of the segment at p is done.  Its pages leave the process at
 * once, so resident memory stays bounded however long the process records;
 * its address range goes DLT_DONE_SEGS segments later.  Not at once: a
 * signal handler that records can retire the chunk its own thread was
 * writing a record into when the signal came, and that record is finished
 * after the handler returns.  A page dropped here comes back from the file
 * if it is written again; an unmapped one would be a SIGSEGV.  Only full
 * segments get here: a last segment cut short by the size limit never has
 * all DLT_SEG_SIZE / DLT_CHUNK_SIZE chunks given back. */
static void dlt_seg_done(struct dlt_writer *w, uint8_t *p)
{
	madvise(p, DLT_SEG_SIZE, MADV_DONTNEED);
	uint32_t i = atomic_fetch_add(&w->done_next, 1) % DLT_DONE_SEGS;
	uint8_t *old = atomic_exchange(&w->done_segs[i], p);
	if (old)
		munmap(old, DLT_SEG_SIZE);
}

/* Segment seg's mapping, if every chunk of it was given back: let go.
 * Whoever maps a segment that may already be finished calls this after
 * publishing the mapping; the exchange makes sure only one caller (this
 * one or the thread that retired the last chunk) lets it go. */
static void dlt_seg_let_go_if_done(struct dlt_writer *w, uint32_t seg)
{
	if (atomic_load(&w->seg_retired[seg]) != DLT_SEG_SIZE / DLT_CHUNK_SIZE)
		return;
	uint8_t *p = atomic_exchange(&w->segs[seg], NULL);
	if (p)
		dlt_seg_done(w, p);
}

/* Maps the DLT_SEGS_AHEAD segments after seg, without their pages, for the
 * prefetch thread to fill.  Here, in the recording thread, because mapping
 * opens the trace file: a descriptor taken by another thread, even for a
 * moment, could change the number the program's own next open() returns. */
static void dlt_seg_ahead(struct dlt_writer *w, uint32_t seg)
{
	for (uint32_t a = seg + 1;
	     a <= seg + DLT_SEGS_AHEAD && a < DLT_MAX_SEGS; a++) {
		if (atomic_load_explicit(&w->segs[a], memory_order_relaxed) ||
		    DLT_DATA_OFFSET + ((uint64_t)a + 1) * DLT_SEG_SIZE >
			    w->max_size)
			continue;
		int err = 0;
		/* A failure is left for the thread that will need it. */
		if (dlt_seg_map(w, a, &err, 0) == NULL)
			break;
		/* Other threads may have taken every chunk of segment a and
		 * given them all back since this thread took its chunk: then
		 * nobody will let go of the mapping just made (1000 short
		 * threads left one or two such mappings behind). */
		dlt_seg_let_go_if_done(w, a);
	}
	dlt_on_seg_ahead(w, seg);
}

int dlt_writer_prefetch(struct dlt_writer *w, uint32_t seg)
{
	if (seg >= DLT_MAX_SEGS ||
	    !atomic_load_explicit(&w->enabled, memory_order_acquire) ||
	    w->pid != dlt_self_pid(w) || atomic_load(&w->seg_retired[seg]) != 0)
		return -1;
	uint8_t *p = atomic_load_explicit(&w->segs[seg], memory_order_acquire);
	if (p == NULL)
		return -1;
	/* A segment let go meanwhile keeps its address range for
	 * DLT_DONE_SEGS more segments (dlt_seg_done): this cannot touch
	 * memory that is not the trace's. */
	return madvise(p, dlt_seg_len(w, seg), MADV_POPULATE_WRITE) == 0 ? 0
									 : -1;
}

/* A thread is done with its chunk (it needs a new one, or it exits).  When
 * every chunk of a segment is done, nobody can reserve there again (chunks
 * are handed out in file order): the segment is let go (dlt_seg_done). */
static void dlt_chunk_retire(struct dlt_writer *w, struct dlt_tls *t)
{
	if (t->cur == NULL || t->gen != atomic_load(&w->gen))
		return;
	uint32_t seg = t->seg;
	t->cur = t->end = NULL;
	t->nchunk++;
	atomic_fetch_add(&w->seg_retired[seg], 1);
	dlt_seg_let_go_if_done(w, seg);
}

/* Holds back asynchronous signals (never faults) while the calling thread
 * changes its chunk: a handler that records must not see the chunk half
 * handed over, nor lose its record to the in_slow guard.  Two system calls
 * per chunk. */
static void dlt_signals_hold(sigset_t *saved)
{
	sigset_t block;
	sigfillset(&block);
	static const int faults[] = {SIGSEGV, SIGBUS,  SIGILL,
				     SIGFPE,  SIGTRAP, SIGSYS};
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&block, faults[i]);
	pthread_sigmask(SIG_BLOCK, &block, saved);
}

void dlt_tls_release(struct dlt_writer *w, struct dlt_tls *t)
{
	if (w == NULL || t->in_slow)
		return;
	/* A signal may still come while the thread ends (pthread_kill from
	 * another thread): its handler's record waits until the chunk is
	 * given back and goes into a new one (a handler's mark was lost
	 * here, 1 run in 15 of the signals fault test). */
	sigset_t saved;
	dlt_signals_hold(&saved);
	t->in_slow = 1;
	dlt_chunk_retire(w, t);
	t->in_slow = 0;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void *dlt_rec_reserve_slow(struct dlt_writer *w, struct dlt_tls *t,
			   uint32_t len)
{
	if (!atomic_load_explicit(&w->enabled, memory_order_relaxed) ||
	    t->in_slow)
		return NULL;
	if (len > DLT_CHUNK_SIZE - sizeof(struct dlt_rec_chunk))
		return NULL;
	sigset_t saved_mask;
	dlt_signals_hold(&saved_mask);
	t->in_slow = 1;
	void *rec = NULL;
	uint32_t gen = atomic_load(&w->gen);
	dlt_chunk_retire(w, t);
	if (t->gen != gen) {
		/* First record of this thread in this file, or after fork. */
		t->cur = t->end = NULL;
		t->gen = gen;
		t->tid = dlt_gettid();
		if (dlt_on_new_thread)
			dlt_on_new_thread();
	}
	/* The cursor only moves past space the file already has: a trace
	 * whose writer is killed never claims chunks beyond its end. */
	_Atomic uint64_t *cursor = (_Atomic uint64_t *)&w->hdr->alloc_cursor;
	uint64_t off = atomic_load(cursor), rel;
	uint32_t seg;
	uint8_t *sbase;
	for (;;) {
		if (off + DLT_CHUNK_SIZE + w->tail_reserve > w->max_size) {
			dlt_writer_disable(w,
					   "trace size limit reached "
					   "(DLTRACE_MAX_SIZE) in",
					   w->path, 0);
			goto out;
		}
		rel = off - DLT_DATA_OFFSET;
		seg = (uint32_t)(rel / DLT_SEG_SIZE);
		sbase = dlt_seg_get(w, seg);
		if (sbase == NULL)
			goto out;
		if (atomic_compare_exchange_weak(cursor, &off,
						 off + DLT_CHUNK_SIZE))
			break;
		/* Lost the race.  If the segment we looked at filled up and
		 * was retired meanwhile, our mapping of it is not needed. */
		dlt_seg_let_go_if_done(w, seg);
	}
	uint8_t *chunk = sbase + (rel % DLT_SEG_SIZE);
	struct dlt_rec_chunk *c = (struct dlt_rec_chunk *)chunk;
	c->h.ts = dlt_now_ns();
	c->tid = t->tid;
	c->seq = atomic_fetch_add(&w->chunk_seq, 1);
	dlt_rec_commit(c, DLT_REC_CHUNK, (uint16_t)dlt_writer_kind_self,
		       DLT_CHUNK_SIZE);
	t->cur = chunk + sizeof(*c);
	t->end = chunk + DLT_CHUNK_SIZE;
	t->seg = seg;
	t->nchunk++;
	if (dlt_on_seg_ahead && seg + DLT_SEGS_AHEAD < DLT_MAX_SEGS &&
	    atomic_load_explicit(&w->segs[seg + DLT_SEGS_AHEAD],
				 memory_order_relaxed) == NULL)
		dlt_seg_ahead(w, seg);
	rec = t->cur;
	t->cur += len;
out:
	t->in_slow = 0;
	pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
	return rec;
}
