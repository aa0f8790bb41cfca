/* The trace file: making it, naming it, mapping it, growing it and cutting
 * it, and the trace of a forked child (made at its first record).  Every
 * use of a kernel feature that older systems may lack is in one small
 * function here with its fallback: open file description locks
 * (dlt_file_hold: flock), getrandom (dlt_random64: /dev/urandom), and
 * MADV_POPULATE_WRITE (chunks.c, dlt_writer_prefetch: nothing is made
 * ahead). */
#define _GNU_SOURCE
#include "writer_int.h"
#include "hash.h"
#include "hot.h"
#include "strbuf.h"
#include "tracelock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

DLT_HOT int dlt_writer_kind_self = DLT_WRITER_SHIM;
DLT_HOT void (*dlt_on_new_thread)(void);
DLT_HOT void (*dlt_on_grow)(struct dlt_writer *w, uint32_t pages);
DLT_HOT void (*dlt_on_materialized)(struct dlt_writer *w, struct dlt_tls *t,
				    int redact_argv);

static uint64_t dlt_realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

DLT_START pid_t dlt_self_pid(struct dlt_writer *w)
{
	/* Per copy of the library and per process image, like the writer's
	 * users; a race between threads stores the same values. */
	DLT_HOT static _Atomic uint32_t gen;
	DLT_HOT static _Atomic pid_t pid;
	uint32_t g = atomic_load_explicit(&w->gen, memory_order_relaxed);
	pid_t p = atomic_load_explicit(&pid, memory_order_relaxed);
	if (p == 0 || g != atomic_load_explicit(&gen, memory_order_relaxed)) {
		p = getpid();
		atomic_store_explicit(&pid, p, memory_order_relaxed);
		atomic_store_explicit(&gen, g, memory_order_relaxed);
	}
	return p;
}

void dlt_writer_disable(struct dlt_writer *w, const char *why, const char *what,
			int err)
{
	atomic_store(&w->enabled, 0);
	if (atomic_exchange(&w->said, 1))
		return;
	/* One writev(2) of one line: stdio may be in any state inside the
	 * host, and a single write keeps lines of many ranks apart.  The
	 * pieces in place, no line buffer: a crash handler on a small
	 * alternate stack may get here (a full trace). */
	/* The untranslated text, whatever the host's locale: strerror_l with
	 * the C locale (glibc hands back its static C locale object without
	 * allocating).  strerrordesc_np says the same, but from glibc 2.32. */
	const char *desc =
		err ? strerror_l(err, newlocale(LC_ALL_MASK, "C", (locale_t)0))
		    : NULL;
	const char *part[8] = {"dltrace: tracing turned off: ",
			       why,
			       what ? " " : "",
			       what ? what : "",
			       desc ? " (" : "",
			       desc ? desc : "",
			       desc ? ")" : "",
			       "\n"};
	struct iovec iov[8];
	for (int i = 0; i < 8; i++) {
		iov[i].iov_base = (void *)part[i];
		iov[i].iov_len = strlen(part[i]);
	}
	if (writev(2, iov, 8) < 0)
		return;
	/* Tracing is off; the program carries on as if dltrace were absent. */
}

/* A trace id: getrandom (a system call, where /dev/urandom took an open, a
 * read and a close per process), /dev/urandom where it is missing. */
uint64_t dlt_random64(void)
{
	uint64_t v = 0;
	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
		v = 0;
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
				v = 0;
			close(fd);
		}
	}
	if (v == 0)
		v = dlt_realtime_ns() ^ ((uint64_t)getpid() << 32);
	return v | 1;
}

uint64_t dlt_file_room(uint64_t want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    want > rl.rlim_cur)
		return rl.rlim_cur;
	return want;
}

int dlt_file_extend(int fd, uint64_t off, uint64_t len)
{
	/* Written zeros, not posix_fallocate and not a sparse hole: a store
	 * into a hole on a full disk would kill the host with SIGBUS, and a
	 * write reserves the blocks (or says ENOSPC) now.  It also leaves
	 * the pages made in the page cache, so the first store into each only
	 * maps it, and cutting the file again before it was written back
	 * frees no allocated blocks (measured: a few microseconds against
	 * 0.1 to 2 ms for fallocated ones). */
	/* Static, the vector too: a crash handler may grow the file on a
	 * small alternate stack (docs/design.md, "Stacks: capture raw"). */
	static const uint8_t zeros[4096];
	static const struct iovec iov[64] = {
		[0 ... 63] = {(void *)zeros, sizeof(zeros)}};
	while (len > 0) {
		/* Whole pages through the vector, a last part page alone. */
		uint64_t pages = len / 4096 < 64 ? len / 4096 : 64;
		ssize_t r = pages ? pwritev(fd, iov, (int)pages, (off_t)off)
				  : pwrite(fd, zeros, (size_t)len, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			return ENOSPC;
		off += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

/* The file's first len bytes: head, then zeros, in one write where it
 * can be (the head first: a write cut short by a full disk or a signal
 * has written the head's bytes before any zero). */
static int dlt_file_start(int fd, const void *head, size_t head_len,
			  uint64_t len)
{
	static const uint8_t zeros[4096];
	struct iovec iov[8] = {{(void *)head, head_len}};
	int n = 1;
	uint64_t at = head_len;
	while (n < 8 && at < len) {
		uint64_t k = 4096 - at % 4096;
		if (k > len - at)
			k = len - at;
		iov[n++] = (struct iovec){(void *)zeros, (size_t)k};
		at += k;
	}
	ssize_t r;
	do
		r = pwritev(fd, iov, n, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno;
	uint64_t done = (uint64_t)r;
	while (done < head_len) {
		r = pwrite(fd, (const uint8_t *)head + done, head_len - done,
			   (off_t)done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? errno : ENOSPC;
		done += (uint64_t)r;
	}
	return done < len ? dlt_file_extend(fd, done, len - done) : 0;
}

/* The lock that says this process is alive and maps the file (format.h).
 * Taken on a descriptor that is closed right after the file is mapped: the
 * mapping keeps the open file description, and with it the lock, until the
 * process unmaps the file, execs or ends.  An open file description lock
 * where the kernel has them (3.15), flock otherwise. */
static int dlt_file_hold(int fd)
{
	if (dlt_trace_lock_ofd(fd, 0) == 0)
		return 0;
	if (errno == EINVAL && flock(fd, LOCK_SH | LOCK_NB) == 0)
		return 0;
	return -1;
}

/* The mapping of the whole file, for up to *len bytes: less where the
 * address space is limited.  With RLIMIT_AS set, a trace takes at most a
 * 64th of it, so that the program's own allocations fail no sooner. */
static uint8_t *dlt_map_file(int fd, uint64_t *len, int *err)
{
	uint64_t want = *len;
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    want > rl.rlim_cur / 64)
		want = rl.rlim_cur / 64;
	want = (want + 4095) & ~(uint64_t)4095;
	if (want < DLT_FILE_START)
		want = DLT_FILE_START;
	for (;;) {
		void *p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fd, 0);
		if (p != MAP_FAILED) {
			*len = want;
			return p;
		}
		*err = errno;
		if (errno != ENOMEM || want <= DLT_FILE_START)
			return NULL;
		want = (want / 2 + 4095) & ~(uint64_t)4095;
		if (want < DLT_FILE_START)
			want = DLT_FILE_START;
	}
}

int dlt_file_open(struct dlt_writer *w, int *err)
{
	int fd = open(w->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != w->ino ||
	    (uint64_t)st.st_dev != w->dev) {
		close(fd);
		*err = ESTALE;
		return -1;
	}
	return fd;
}

int dlt_file_cut(struct dlt_writer *w, uint64_t size)
{
	int err = 0;
	int fd = dlt_file_open(w, &err);
	if (fd < 0)
		return err;
	int r = ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
	close(fd);
	return r;
}

int dlt_file_host_spelling(char *dst, size_t cap, const char *src)
{
	size_t n = 0;
	for (; src && *src && n + 1 < cap; src++) {
		char c = *src;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '-' || c == '_';
		dst[n++] = ok ? c : '_';
	}
	if (n == 0) {
		strcpy(dst, "host");
		return 4;
	}
	dst[n] = '\0';
	return (int)n;
}

/* w->path for one attempt:
 * DIR/HOST.PID.SEQ[.rRANK][SUFFIX][-ATTEMPT].dltrace, PID the subject's. */
static int dlt_file_trace_path(struct dlt_writer *w,
			       const struct dlt_open_params *p,
			       const char *host, const char *rank, int attempt)
{
	struct dlt_strbuf b;
	dlt_sb_init(&b, w->path, sizeof(w->path));
	dlt_sb_str(&b, p->dir);
	dlt_sb_char(&b, '/');
	dlt_sb_str(&b, host);
	dlt_sb_char(&b, '.');
	dlt_sb_int(&b, w->subject);
	dlt_sb_char(&b, '.');
	dlt_sb_uint(&b, p->exec_seq, 10);
	dlt_sb_str(&b, rank);
	if (p->name_suffix)
		dlt_sb_str(&b, p->name_suffix);
	if (attempt > 0) {
		dlt_sb_char(&b, '-');
		dlt_sb_int(&b, attempt);
	}
	dlt_sb_str(&b, ".dltrace");
	return dlt_sb_done(&b);
}

static void dlt_fill_header(struct dlt_writer *w, uint8_t *base,
			    const struct dlt_open_params *p, uint64_t trace_id,
			    int locked)
{
	struct dlt_file_header *h = (struct dlt_file_header *)base;
	memcpy(h->magic, DLT_MAGIC, 8);
	h->endian = DLT_ENDIAN_MARK;
	h->version_major = DLT_FORMAT_MAJOR;
	h->version_minor = DLT_FORMAT_MINOR;
	h->header_size = sizeof(*h);
	h->chunk_size = 0;
	h->features = p->features | (locked ? 0 : DLT_FEAT_NO_LOCK);
	h->data_offset = DLT_DATA_OFFSET;
	h->trace_id = trace_id ? trace_id : dlt_random64();
	h->parent_trace_id = p->parent_trace_id;
	h->pid = (uint32_t)w->subject;
	/* A forked child's trace made at its first record: its parent is
	 * the process that forked it, even when that one has ended since
	 * and the child was reparented (a tree ended at once). */
	h->ppid = (uint32_t)(w->detached || p->ppid ? p->ppid : getppid());
	h->parent_kind = p->parent_kind;
	h->exec_seq = p->exec_seq;
	h->start_realtime_ns =
		p->start_realtime_ns ? p->start_realtime_ns : dlt_realtime_ns();
	h->start_monotonic_ns =
		p->start_monotonic_ns ? p->start_monotonic_ns : dlt_now_ns();
	h->run_id = p->run_id;
	atomic_store((_Atomic uint64_t *)&h->alloc_cursor, DLT_DATA_OFFSET);
}

/* The file on fd made ready: locked, its header and the zeros after it
 * written (dlt_fill_header's, for a header that names locked), mapped.
 * NULL with *err set when it cannot be. */
static uint8_t *dlt_prepare(struct dlt_writer *w, int fd,
			    const struct dlt_open_params *p, uint64_t trace_id,
			    int *err)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		*err = errno;
		return NULL;
	}
	w->dev = (uint64_t)st.st_dev;
	w->ino = (uint64_t)st.st_ino;
	int locked = dlt_file_hold(fd) == 0;
	uint64_t start = dlt_file_room(DLT_FILE_START);
	if (start < DLT_FILE_START) {
		/* Growing past the limit would raise SIGXFSZ in the host. */
		*err = EFBIG;
		return NULL;
	}
	struct dlt_file_header h;
	memset(&h, 0, sizeof(h));
	dlt_fill_header(w, (uint8_t *)&h, p, trace_id, locked);
	*err = dlt_file_start(fd, &h, sizeof(h), DLT_FILE_START);
	if (*err)
		return NULL;
	w->size = DLT_FILE_START;
	uint64_t len = w->max_size;
	uint8_t *base = dlt_map_file(fd, &len, err);
	if (base == NULL)
		return NULL;
	w->map_len = len;
	if (w->max_size > len)
		w->max_size = len;
	/* Its pages (in the page cache since the write) made present and
	 * writable in one call: the header's and the first chunks' write
	 * faults were three page faults of every process on ext4 (issue 31).
	 * Linux before 5.14 says EINVAL: the faults are taken as before. */
	(void)madvise(base, DLT_FILE_START - DLT_CHUNK_FIRST,
		      MADV_POPULATE_WRITE);
	return base;
}

/* The file is made under its name, and its first write is the header: a
 * process killed in between leaves a file of 0 bytes, which readers
 * report as a trace that never started, never one of zeros.  (It was
 * made unnamed with O_TMPFILE and linked once complete: the link, a look
 * into /proc/self/fd and the orphan list's upkeep were a tenth of what a
 * short process's trace cost it, issue 31.) */
static uint8_t *dlt_create_named(struct dlt_writer *w,
				 const struct dlt_open_params *p,
				 const char *host, const char *rank,
				 uint64_t trace_id, int *err)
{
	int fd = -1, made_dir = 0;
	for (int attempt = 0; attempt < 100; attempt++) {
		if (dlt_file_trace_path(w, p, host, rank, attempt) != 0) {
			dlt_writer_disable(w, "trace path too long:", p->dir,
					   0);
			*err = ENAMETOOLONG;
			return NULL;
		}
		/* O_EXCL|O_NOFOLLOW: never follow a planted symlink, never
		 * overwrite a trace; 0644 is narrowed by the umask. */
		fd = open(w->path,
			  O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0644);
		/* The directory is made only when missing (a program run
		 * with LD_PRELOAD alone, a directory removed during the run):
		 * a mkdir of one that exists was a system call of every
		 * process (issue 31). */
		if (fd < 0 && errno == ENOENT && !made_dir) {
			made_dir = 1;
			if (mkdir(p->dir, 0755) == 0 || errno == EEXIST) {
				attempt--;
				continue;
			}
			errno = ENOENT;
		}
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		*err = errno;
		dlt_writer_disable(w, "cannot create a trace file in", p->dir,
				   *err);
		return NULL;
	}
	uint8_t *base = dlt_prepare(w, fd, p, trace_id, err);
	close(fd);
	if (base == NULL) {
		unlink(w->path);
		dlt_writer_disable(w, "cannot write", w->path, *err);
		return NULL;
	}
	return base;
}

/* The size limit: the one asked for (0: the default), within what the
 * writer can address. */
static void dlt_writer_limit(struct dlt_writer *w, uint64_t max_size)
{
	w->max_size = max_size ? max_size : DLT_DEFAULT_MAX_SIZE;
	if (w->max_size < DLT_FILE_START + DLT_TAIL_RESERVE)
		w->max_size = DLT_FILE_START + DLT_TAIL_RESERVE;
	if (w->max_size > DLT_MAX_SIZE_CAP)
		w->max_size = DLT_MAX_SIZE_CAP;
	/* The ring's share: the rest is for what is never given up (and
	 * for the AGG records of the ring chunks used again). */
	w->ring_max = (w->max_size - DLT_TAIL_RESERVE) / 4 * 3;
	w->ring_min = w->max_size / 8;
}

/* The state of one file, set afresh for each: what precedes pend in the
 * struct, and the string table (its count and its first, small index).
 * gen survives: a thread whose chunk belonged to the previous file (a
 * forked child's parent file) must see that it changed. */
static void dlt_writer_reset(struct dlt_writer *w)
{
	uint32_t gen = atomic_load(&w->gen);
	memset(w, 0, offsetof(struct dlt_writer, pend));
	atomic_store(&w->gen, gen + 1);
	w->magic = DLT_WRITER_MAGIC;
	w->layout = DLT_WRITER_LAYOUT;
	/* The table starts small and empty: its small index is on the page
	 * of the fields above, written here anyway. */
	w->str_count = 0;
	w->str_mask = DLT_STRTAB_FIRST - 1;
	memset(w->str_index_first, 0, sizeof(w->str_index_first));
	w->str_arena_used = 0;
	w->pid = getpid();
	w->subject = w->pid;
	w->kind = -1;
}

static int dlt_writer_open(struct dlt_writer *w,
			   const struct dlt_open_params *p, uint64_t trace_id)
{
	dlt_writer_reset(w);
	if (p->pid != 0) {
		w->subject = p->pid;
		w->detached = 1;
	}
	if (p->writer_kind != 0)
		w->kind = (int)p->writer_kind;
	w->next_str_id = p->str_base + 1;
	dlt_writer_limit(w, p->max_size);
	w->tail_reserve = DLT_TAIL_RESERVE;
	/* What a forked child's trace will take over. */
	w->rank = p->rank;
	w->redact_argv = p->redact_argv;
	w->want_max_size = p->max_size;
	w->run_id = p->run_id;
	/* The path starts with the directory (dlt_file_trace_path). */
	w->dir_len = (uint32_t)strnlen(p->dir, sizeof(w->path) - 1);

	char host[128];
	dlt_file_host_spelling(host, sizeof(host), p->host);
	char rank[32] = "";
	if (p->rank >= 0) {
		struct dlt_strbuf r;
		dlt_sb_init(&r, rank, sizeof(rank));
		dlt_sb_str(&r, ".r");
		dlt_sb_int(&r, p->rank);
	}

	int err = 0;
	uint8_t *base = dlt_create_named(w, p, host, rank, trace_id, &err);
	if (base == NULL)
		return -err;
	w->hdr = (struct dlt_file_header *)base;
	atomic_store(&w->enabled, 1);
	atomic_fetch_add(&w->gen, 1);
	return 0;
}

int dlt_writer_create(struct dlt_writer *w, const struct dlt_open_params *p)
{
	atomic_store(&w->pending, 0);
	w->dir_abs = NULL;
	return dlt_writer_open(w, p, 0);
}

int dlt_writer_attach(struct dlt_writer *w, const char *path, uint64_t max_size)
{
	dlt_writer_reset(w);
	dlt_writer_limit(w, max_size);
	/* The owner's string ids are unknown here: an attached writer writes
	 * no strings (dlt_strn returns DLT_STR_NONE). */
	w->next_str_id = 0;
	w->dir_abs = NULL;
	if (strlen(path) >= sizeof(w->path))
		return -ENAMETOOLONG;
	strcpy(w->path, path);
	const char *slash = strrchr(path, '/');
	w->dir_len = slash ? (uint32_t)(slash - path) : 0;
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	struct stat st;
	int err = 0;
	uint8_t *base = NULL;
	/* Before the size is read: a compaction (another launcher's, of the
	 * same directory) must not shorten the file under the mapping. */
	(void)dlt_trace_hold_wait(fd);
	if (fstat(fd, &st) != 0)
		err = errno;
	else if ((uint64_t)st.st_size < DLT_DATA_OFFSET)
		err = EINVAL;
	if (err == 0) {
		w->dev = (uint64_t)st.st_dev;
		w->ino = (uint64_t)st.st_ino;
		w->size = (uint64_t)st.st_size;
		if (w->max_size < w->size)
			w->max_size = w->size;
		uint64_t len = w->max_size;
		base = dlt_map_file(fd, &len, &err);
		w->map_len = len;
		if (base && w->max_size > len)
			w->max_size = len;
	}
	close(fd);
	if (base == NULL)
		return -err;
	struct dlt_file_header *h = (struct dlt_file_header *)base;
	uint64_t cursor = atomic_load((_Atomic uint64_t *)&h->alloc_cursor);
	if (memcmp(h->magic, DLT_MAGIC, 8) != 0 ||
	    h->endian != DLT_ENDIAN_MARK ||
	    h->version_major != DLT_FORMAT_MAJOR || h->chunk_size != 0 ||
	    h->data_offset != DLT_DATA_OFFSET || cursor < DLT_DATA_OFFSET ||
	    cursor > w->size || cursor > w->map_len) {
		munmap(base, w->map_len);
		return -EINVAL;
	}
	w->hdr = h;
	/* The owner's process ended: its last chunk is left as it was, and
	 * the file grows by what the new record needs.  Chunk numbers go on
	 * from the owner's (readers use them to find chunks after damage). */
	w->tail_reserve = 0;
	atomic_store(&w->ending, 1);
	uint32_t seq = 0;
	for (uint64_t off = DLT_DATA_OFFSET;
	     off + sizeof(struct dlt_rec_chunk) <= cursor;) {
		const struct dlt_rec_chunk *c = (const void *)(base + off);
		if (c->h.type != DLT_REC_CHUNK || c->h.len < DLT_CHUNK_MIN ||
		    c->h.len % 8 != 0 || c->h.len > DLT_CHUNK_MAX)
			break;
		seq = c->seq + 1;
		off += c->h.len;
	}
	atomic_store(&w->chunk_seq, seq);
	atomic_store(&w->enabled, 1);
	atomic_fetch_add(&w->gen, 1);
	return 0;
}

void dlt_writer_forget(struct dlt_writer *w)
{
	atomic_store(&w->enabled, 0);
	if (w->hdr)
		munmap(w->hdr, w->map_len);
	w->hdr = NULL;
	atomic_fetch_add(&w->gen, 1);
}

void dlt_writer_close(struct dlt_writer *w, struct dlt_tls *t)
{
	/* Not a forked child's: the file is its parent's to cut. */
	if (w->pid != getpid())
		return;
	dlt_writer_cut_tls(w, t, 1);
	dlt_writer_forget(w);
	/* A watcher closes a file per process it watched, for as long as it
	 * runs: each closed one would keep its megabyte of address space. */
	if (w->str_arena)
		munmap(w->str_arena, DLT_STR_ARENA);
	w->str_arena = NULL;
	w->str_arena_used = 0;
}

/* The id of the trace a forked child without one yet will make: chosen
 * at its first need, either its own first record or a fork of its own
 * (whose child names it), once (a system call of every forked child
 * before, most of which only exec, issue 31). */
static uint64_t dlt_pend_trace_id(struct dlt_writer *w)
{
	uint64_t id = __atomic_load_n(&w->pend.trace_id, __ATOMIC_ACQUIRE);
	if (id != 0)
		return id;
	uint64_t mine = dlt_random64();
	if (__atomic_compare_exchange_n(&w->pend.trace_id, &id, mine, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return mine;
	return id; /* another thread's, chosen first */
}

void dlt_writer_after_fork(struct dlt_writer *w)
{
	int pending = atomic_load(&w->pending) != 0;
	if (w->hdr == NULL && !pending)
		return;
	if (w->detached) {
		/* The watched process's trace is the parent's to write: the
		 * child only lets go of its mapping. */
		dlt_writer_forget(w);
		atomic_store(&w->pending, 0);
		return;
	}
	int was_on = atomic_load(&w->enabled);
	struct dlt_pending pend;
	if (pending) {
		/* A child of a child that has no trace yet: it will get the
		 * id chosen for it. */
		pend.parent_trace_id = dlt_pend_trace_id(w);
		pend.features = w->pend.features;
	} else if (w->fork_hdr == w->hdr) {
		pend.parent_trace_id = w->fork_trace_id;
		pend.features = w->fork_features & ~(uint64_t)DLT_FEAT_NO_LOCK;
	} else {
		pend.parent_trace_id = w->hdr->trace_id;
		pend.features = w->hdr->features & ~(uint64_t)DLT_FEAT_NO_LOCK;
	}
	pend.parent_pid = getppid();
	pend.trace_id = 0; /* dlt_pend_trace_id */
	pend.forked_realtime_ns = dlt_realtime_ns();
	pend.forked_monotonic_ns = dlt_now_ns();
	dlt_writer_forget(w);
	if (!was_on) {
		atomic_store(&w->pending, 0);
		return;
	}
	w->pend = pend;
	w->pid = getpid();
	atomic_store(&w->pending, 1);
	atomic_store(&w->enabled, 1);
}

/* Tries of the writer's locks before a fork: a lock is held for a system
 * call or two, so a thread that holds it longer is stopped (a debugger,
 * SIGSTOP); the fork then goes on without it, and the child frees it. */
#define DLT_HOLD_TRIES 10000

void dlt_writer_hold(struct dlt_writer *w, struct dlt_writer_hold *h)
{
	memset(h, 0, sizeof(*h));
	if (w == NULL)
		return;
	h->w = w;
	/* What the child's after-fork step needs of the header, read where
	 * its page is present; and the id of this process's own trace to be,
	 * which the child names as its parent's. */
	const struct dlt_file_header *hdr = w->hdr;
	if (hdr) {
		w->fork_trace_id = hdr->trace_id;
		w->fork_features =
			__atomic_load_n(&hdr->features, __ATOMIC_RELAXED);
	}
	w->fork_hdr = hdr;
	if (atomic_load(&w->pending) == 1)
		(void)dlt_pend_trace_id(w);
	for (int k = 0; k < 2; k++) {
		struct dlt_tls *(*of)(void) = w->tls_of[k];
		struct dlt_tls *t = of ? of() : NULL;
		h->t[k] = t;
		if (t) {
			h->in_slow[k] = t->in_slow;
			h->in_str[k] = t->in_str;
			t->in_slow = 1;
			t->in_str = 1;
		}
	}
	/* The string lock first: a string's record takes a chunk under it. */
	h->str_lock = dlt_spin_trylock(&w->str_lock, DLT_HOLD_TRIES);
	h->lock = dlt_spin_trylock(&w->lock, DLT_HOLD_TRIES);
}

void dlt_writer_release(struct dlt_writer_hold *h, int child)
{
	struct dlt_writer *w = h->w;
	if (w == NULL)
		return;
	/* Good for this fork's child only. */
	if (!child)
		w->fork_hdr = NULL;
	if (h->lock || (child && atomic_load(&w->lock)))
		dlt_spin_unlock(&w->lock);
	if (h->str_lock || (child && atomic_load(&w->str_lock)))
		dlt_spin_unlock(&w->str_lock);
	for (int k = 0; k < 2; k++) {
		struct dlt_tls *t = h->t[k];
		if (t) {
			t->in_slow = h->in_slow[k];
			t->in_str = h->in_str[k];
		}
	}
}

int dlt_writer_materialize(struct dlt_writer *w, struct dlt_tls *t)
{
	int one = 1;
	if (!atomic_compare_exchange_strong(&w->pending, &one, 2)) {
		/* Another thread makes it. */
		while (atomic_load(&w->pending) == 2)
			sched_yield();
		return atomic_load(&w->enabled) ? 0 : -1;
	}
	/* Signals wait: a handler's record would wait for this very thread
	 * to finish. */
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	struct dlt_open_params p;
	char host[256];
	char dir[DLT_PATH_MAX];
	memset(&p, 0, sizeof(p));
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	if (w->dir_abs) {
		p.dir = w->dir_abs;
	} else {
		/* The parent's file's directory, which the new path replaces.
		 */
		memcpy(dir, w->path, w->dir_len);
		dir[w->dir_len] = '\0';
		p.dir = dir;
	}
	p.host = host;
	p.rank = w->rank;
	p.max_size = w->want_max_size;
	p.redact_argv = w->redact_argv;
	p.run_id = w->run_id;
	p.parent_trace_id = w->pend.parent_trace_id;
	p.parent_kind = DLT_PARENT_FORK;
	p.features = w->pend.features;
	p.start_realtime_ns = w->pend.forked_realtime_ns;
	p.start_monotonic_ns = w->pend.forked_monotonic_ns;
	p.ppid = w->pend.parent_pid;
	int r = dlt_writer_open(w, &p, dlt_pend_trace_id(w));
	atomic_store(&w->pending, 0);
	if (r == 0 && dlt_on_materialized)
		dlt_on_materialized(w, t, w->redact_argv);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return r == 0 ? 0 : -1;
}

int dlt_writer_parent(struct dlt_writer *w, int exec, char *kind, int *pid,
		      uint64_t *id, uint32_t *seq)
{
	if (atomic_load(&w->pending)) {
		*kind = 's';
		*pid = (int)w->pend.parent_pid;
		*id = w->pend.parent_trace_id;
		*seq = 0;
		return 0;
	}
	if (w->hdr == NULL || w->detached)
		return -1;
	/* An exec in a vfork child (this process's memory, another pid)
	 * starts a child process, not this one's next image: it is
	 * announced as a spawn by the writer's process. */
	int vforked = w->pid != getpid();
	*kind = vforked || !exec ? 's' : 'e';
	*pid = (int)w->pid;
	*id = w->hdr->trace_id;
	*seq = w->hdr->exec_seq;
	return 0;
}
