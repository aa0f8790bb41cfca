/* The slow path of recording: handing out chunks of the file to threads,
 * growing the file, cutting it when the process ends (the fast path is
 * record.h). */
#define _GNU_SOURCE
#include "writer_int.h"
#include "hot.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint32_t dlt_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static uint64_t dlt_round_page(uint64_t n)
{
	return (n + 4095) & ~(uint64_t)4095;
}

/* Grows the file so that it holds need bytes, under w->lock: to twice its
 * size, by at most DLT_STEP_MAX at a time, so that a small trace stays
 * small and a SIGKILL leaves at most one step beyond the data.  While the
 * process ends, only to what is needed.  0 or an errno. */
static int dlt_chunks_grow(struct dlt_writer *w, uint64_t need)
{
	uint64_t to;
	if (atomic_load_explicit(&w->ending, memory_order_relaxed))
		to = dlt_round_page(need);
	else
		to = dlt_round_page(w->size + (w->size < DLT_STEP_MAX
						       ? w->size
						       : DLT_STEP_MAX));
	if (to < need)
		to = dlt_round_page(need);
	if (to > w->max_size)
		to = w->max_size;
	/* Growing past RLIMIT_FSIZE would raise SIGXFSZ in the host. */
	to = dlt_file_room(to);
	if (to < need)
		return EFBIG;
	int err = 0;
	int fd = dlt_file_open(w, &err);
	if (fd < 0)
		return err;
	err = dlt_file_extend(fd, w->size, to - w->size);
	close(fd);
	if (err)
		return err;
	w->size = to;
	return 0;
}

/* t's chunk is now the one at c, of clen bytes. */
static uint8_t *dlt_chunk_take(struct dlt_tls *t, uint8_t *c, uint64_t clen)
{
	t->chunk = c;
	t->cur = c + sizeof(struct dlt_rec_chunk);
	t->end = c + clen;
	t->nchunk++;
	if (t->next_len < DLT_CHUNK_BIG)
		t->next_len *= 2;
	return t->cur;
}

/* A new chunk for t, at the end of what was handed out, for a record of
 * len bytes; NULL when it cannot have one.  The chunk's CHUNK record is on
 * disk before alloc_cursor moves past it (format.h): a reader finds every
 * chunk below the cursor.  A ring state's chunk (t->rare) is the oldest
 * ring chunk given back once the ring has its share (ring.c). */
static uint8_t *dlt_chunk_claim(struct dlt_writer *w, struct dlt_tls *t,
				uint32_t len, int *grew)
{
	uint64_t need = sizeof(struct dlt_rec_chunk) + (uint64_t)len;
	uint64_t clen = dlt_round_page(need);
	if (atomic_load_explicit(&w->ending, memory_order_relaxed) == 0 &&
	    clen < t->next_len)
		clen = t->next_len;
	uint8_t *base = (uint8_t *)w->hdr;
	_Atomic uint64_t *cursor = (_Atomic uint64_t *)&w->hdr->alloc_cursor;
	dlt_spin_lock(&w->lock);
	uint64_t off = atomic_load_explicit(cursor, memory_order_relaxed);
	uint64_t limit = w->max_size - w->tail_reserve;
	if (t->rare) {
		uint64_t old = dlt_ring_take(w, off, clen, limit);
		if (old) {
			dlt_spin_unlock(&w->lock);
			uint8_t *c = dlt_ring_reuse(w, t, old);
			if (c == NULL) {
				dlt_ring_lost(w, 1, 1);
				return NULL;
			}
			return dlt_chunk_take(t, c,
					      ((struct dlt_rec_hdr *)c)->len);
		}
	}
	if (off + clen > limit && off + need <= limit)
		clen = (limit - off) & ~(uint64_t)(DLT_REC_ALIGN - 1);
	if (off + clen > limit) {
		/* The budget is full: the other records take the ring's
		 * oldest chunks, down to its least share; then nothing is
		 * turned off, what does not fit is counted (format 2.6). */
		uint64_t old = t->rare ? 0 : dlt_ring_take_for(w, need);
		dlt_spin_unlock(&w->lock);
		uint8_t *c = old ? dlt_ring_steal(w, t, old) : NULL;
		if (c) {
			uint8_t *cur = dlt_chunk_take(
				t, c, ((struct dlt_rec_hdr *)c)->len);
			/* Past the chunk's own AGG, if it has one. */
			t->cur = cur + ((struct dlt_rec_hdr *)cur)->len;
			return t->cur;
		}
		dlt_ring_lost(w, t->rare != NULL, 1);
		return NULL;
	}
	if (off + clen > w->size) {
		int err = dlt_chunks_grow(w, off + clen);
		if (err) {
			dlt_spin_unlock(&w->lock);
			dlt_writer_disable(w, "cannot grow", w->path, err);
			return NULL;
		}
		*grew = 1;
	}
	uint16_t flags =
		(uint16_t)(w->kind >= 0 ? w->kind : dlt_writer_kind_self);
	if (t->rare) {
		flags |= DLT_CHUNK_F_RING;
		w->ring_bytes += clen;
		if (!(w->hdr->features & DLT_FEAT_RING))
			__atomic_fetch_or(&w->hdr->features, DLT_FEAT_RING,
					  __ATOMIC_RELAXED);
	}
	struct dlt_rec_chunk *c = (struct dlt_rec_chunk *)(base + off);
	c->h.ts = dlt_now_ns();
	c->tid = t->tid;
	c->seq = atomic_fetch_add(&w->chunk_seq, 1);
	dlt_rec_commit(c, DLT_REC_CHUNK, flags, (uint32_t)clen);
	atomic_store_explicit(cursor, off + clen, memory_order_release);
	dlt_spin_unlock(&w->lock);
	return dlt_chunk_take(t, (uint8_t *)c, clen);
}

int dlt_writer_prefetch(struct dlt_writer *w, uint32_t from, uint32_t to)
{
	if (!atomic_load_explicit(&w->enabled, memory_order_acquire) ||
	    w->hdr == NULL || w->detached || w->pid != dlt_self_pid(w))
		return -1;
	uint64_t a = (uint64_t)from << 12, b = (uint64_t)to << 12;
	if (b > w->map_len)
		b = w->map_len;
	if (a >= b)
		return 0;
	/* Past the end of a file cut meanwhile this fails with EFAULT (no
	 * signal); a kernel without MADV_POPULATE_WRITE (5.14) says EINVAL
	 * and the recording threads fault their pages in themselves. */
	if (madvise((uint8_t *)w->hdr + a, b - a, MADV_POPULATE_WRITE) == 0 ||
	    errno == EFAULT)
		return 0;
	return -1;
}

/* A thread is done with its chunk (it needs a new one, or it exits).  Its
 * pages leave the process at once, so resident memory stays bounded however
 * long the process records and however many threads come and go.  Its mapping
 * stays: a signal handler that records can retire the chunk its own thread was
 * writing a record into when the signal came, and that record is finished after
 * the handler returns (the page comes back from the file). */
static void dlt_chunk_retire(struct dlt_writer *w, struct dlt_tls *t)
{
	if (t->cur == NULL || t->gen != atomic_load(&w->gen))
		return;
	uint8_t *c = t->chunk;
	t->done = t->cur;
	t->cur = t->end = NULL;
	t->nchunk++;
	uint32_t len = ((struct dlt_rec_hdr *)c)->len;
	uintptr_t a = ((uintptr_t)c + 4095) & ~(uintptr_t)4095;
	uintptr_t b = ((uintptr_t)c + len) & ~(uintptr_t)4095;
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
	/* Only now may another thread take it again. */
	if (t->rare)
		dlt_ring_retired(w, t);
}

/* Holds back asynchronous signals (never faults) while the calling thread
 * changes its chunk: a handler that records must not see the chunk half
 * handed over, nor lose its record to the in_slow guard.  Two system calls
 * per chunk. */
void dlt_signals_hold(sigset_t *saved)
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

DLT_START void *dlt_rec_reserve_slow(struct dlt_writer *w, struct dlt_tls *t,
				     uint32_t len)
{
	if (!atomic_load_explicit(&w->enabled, memory_order_relaxed) ||
	    t->in_slow)
		return NULL;
	if (len > DLT_CHUNK_MAX - sizeof(struct dlt_rec_chunk))
		return NULL;
	/* A forked child's first record makes its trace. */
	if (__builtin_expect(atomic_load(&w->pending) != 0, 0) &&
	    dlt_writer_materialize(w, t) != 0)
		return NULL;
	sigset_t saved_mask;
	dlt_signals_hold(&saved_mask);
	t->in_slow = 1;
	void *rec = NULL;
	int grew = 0;
	uint32_t gen = atomic_load(&w->gen);
	dlt_chunk_retire(w, t);
	if (t->gen != gen) {
		/* First record of this thread in this file, or after fork. */
		t->cur = t->end = t->chunk = t->done = NULL;
		t->gen = gen;
		t->tid = dlt_gettid();
		t->next_len = DLT_CHUNK_FIRST;
		/* The shim's: a detached writer's thread is not one of the
		 * traced process's, and keeps its own state. */
		if (dlt_on_new_thread && !w->detached)
			dlt_on_new_thread();
	}
	if (atomic_load_explicit(&w->enabled, memory_order_relaxed) &&
	    w->hdr != NULL && dlt_chunk_claim(w, t, len, &grew) != NULL) {
		rec = t->cur;
		t->cur += len;
	}
	/* The prefetch thread is the traced process's, for its own file. */
	if (grew && dlt_on_grow && !w->detached)
		dlt_on_grow(w, (uint32_t)(w->size >> 12));
	t->in_slow = 0;
	pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
	return rec;
}

/* Shortens t's chunk (the one it writes, or the one it gave back last,
 * when tracing stopped at the next) to what it holds if it is the last one
 * handed out; returns the new end of what was handed out.  Under
 * w->lock. */
DLT_START static uint64_t dlt_cut_chunk(struct dlt_writer *w, struct dlt_tls *t,
					uint64_t end)
{
	uint8_t *used_end = t ? (t->cur ? t->cur : t->done) : NULL;
	if (t == NULL || t->gen != atomic_load(&w->gen) || used_end == NULL ||
	    t->chunk == NULL)
		return end;
	uint8_t *base = (uint8_t *)w->hdr;
	struct dlt_rec_hdr *ch = (struct dlt_rec_hdr *)t->chunk;
	uint64_t start = (uint64_t)(t->chunk - base);
	uint64_t used = (uint64_t)(used_end - t->chunk);
	if (start + ch->len != end || used >= ch->len)
		return end;
	/* The cursor first: a process killed in between leaves a last chunk
	 * that claims more than the file holds, which readers read up to the
	 * cursor.  A chunk with no record goes whole. */
	if (used == sizeof(struct dlt_rec_chunk))
		used = 0;
	atomic_store((_Atomic uint64_t *)&w->hdr->alloc_cursor, start + used);
	if (used)
		dlt_rec_commit(ch, ch->type, ch->flags, (uint32_t)used);
	if (t->cur)
		t->end = t->cur;
	return start + used;
}

/* The cut, with the calling thread's state either given (t, own_tls) or
 * taken from the copies of the library (tls_of). */
DLT_START static void dlt_chunks_cut(struct dlt_writer *w, struct dlt_tls *t,
				     int own_tls, int ending)
{
	/* Not in a vfork child, whose memory is its parent's. */
	if (w == NULL || w->hdr == NULL || w->pid != getpid())
		return;
	sigset_t saved;
	dlt_signals_hold(&saved);
	if (!dlt_spin_trylock(&w->lock, 1000))
		goto out;
	uint64_t end = atomic_load((_Atomic uint64_t *)&w->hdr->alloc_cursor);
	if (own_tls)
		end = dlt_cut_chunk(w, t, end);
	for (int k = 0; k < 2 && !own_tls; k++) {
		struct dlt_tls *(*of)(void) = w->tls_of[k];
		uint64_t e = of ? dlt_cut_chunk(w, of(), end) : end;
		if (e != end) {
			end = e;
			break;
		}
	}
	if (ending)
		atomic_store(&w->ending, 1);
	/* A file still at its start size stays so: the cut would cost a
	 * short process an open, an ftruncate and a close by path (about a
	 * fifth of what its trace costs it, issue 31) to give back at most
	 * 12 KiB, which the launcher's compaction gives back at the end
	 * anyway.  Readers stop at alloc_cursor either way. */
	if (w->size > end && w->size > DLT_FILE_START &&
	    dlt_file_cut(w, end) == 0)
		w->size = end;
	dlt_spin_unlock(&w->lock);
out:
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

DLT_START void dlt_writer_cut(struct dlt_writer *w, int ending)
{
	/* A detached writer's thread state is its caller's, never the
	 * library copies' thread-local one. */
	dlt_chunks_cut(w, NULL, w != NULL && w->detached, ending);
}

void dlt_writer_cut_tls(struct dlt_writer *w, struct dlt_tls *t, int ending)
{
	dlt_chunks_cut(w, t, 1, ending);
}
