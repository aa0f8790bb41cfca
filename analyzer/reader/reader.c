#define _GNU_SOURCE
#include "reader.h"

#include "io.h"
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DLT_MAX_PROBLEMS 64
/* Values an API_DEF may give its slot (apis.def has at most 8). */
#define DLT_API_DEF_MAX_VALS 8

/* What an API_DEF gave a slot, valid in the chunk numbered chunk. */
struct dlt_slot_def {
	uint32_t chunk;
	uint16_t id;
	uint16_t nv;
	uint64_t v[DLT_API_DEF_MAX_VALS];
};
/* What reading one chunk's records builds, per chunk being read (format
 * 2.6 reads a thread's ring chunks and its other chunks side by side):
 * the API_ENTER an open API_CALL stands for (dlt_open_as_enter), the
 * API_CALL an API_DEF or a compact entry stands for, and the slots the
 * chunk has defined. */
struct dlt_lane {
	uint8_t *enter_buf;
	size_t enter_cap;
	uint64_t call_buf[(sizeof(struct dlt_rec_api_call) +
			   8 * DLT_API_DEF_MAX_VALS) /
			  8];
	struct dlt_slot_def *slots;
	uint32_t chunk_no; /* of the chunk being read, from 1 */
};

/* Bytes read at once.  The file is read through this window rather than
 * mapped whole: a mapping's pages stay resident once touched, so memory
 * would grow with the trace, and a file cut short by another process would
 * raise SIGBUS instead of reading as damage.  Big enough that a read costs
 * little next to walking what it brought, small enough to stay in cache. */
#define DLT_WINDOW (512u * 1024u)

/* A window of the default size, kept from a closed trace for the next one:
 * commands read hundreds of traces one after another, and a fresh window
 * each time would cost page faults and, freed between what the analysis
 * keeps of each trace, scatter the heap. */
static _Atomic(uint8_t *) dlt_spare_win;

/* fd of a trace parked by dlt_trace_park. */
#define DLT_FD_PARKED (-2)

struct dlt_trace {
	char *path;
	int fd;	    /* -1: the bytes are in memory (mem) */
	int oflags; /* how it was opened, to open it again */
	dev_t dev;  /* the file opened, to find it again */
	ino_t ino;
	const uint8_t *mem; /* dlt_trace_open_mem's bytes */
	size_t size;
	struct dlt_file_header hdr; /* copy; zero-extended if shorter */
	uint64_t end;		    /* last byte of chunk data to look at */
	uint32_t chunk_size;
	/* The window: bytes [woff, woff + wlen) of the file in win. */
	uint8_t *win;
	size_t walloc; /* bytes allocated at win */
	size_t wcap, wlen;
	uint64_t woff;
	size_t want_wcap; /* dlt_trace_set_window, 0 for the default */
	/* Strings are copied out of the window: the offset of each one in
	 * sdata plus one, 0 where an id has no string.  Two tables: the
	 * process's own ids, and those with DLT_STR_WATCHER set (a watcher's
	 * companion, format 2.3), each indexed by the id without that bit. */
	struct dlt_strtab {
		uint64_t *off;
		uint32_t n;
	} stab[2];
	char *sdata;
	size_t slen, scap;
	int strings_loaded;
	/* The watcher's companions read as part of this trace (format 2.3,
	 * dlt_trace_attach), in the order attached; left[k]: companion k is
	 * not read (its strings clash with an earlier one's).  comp_no: this
	 * trace's number as a companion (from 1), 0 when it is none. */
	struct dlt_trace **comps;
	bool *left;
	size_t ncomps;
	uint32_t comp_no;
	uint64_t comp_bytes; /* the companions' sizes, for the string limit */
	/* The records built while reading a chunk in file order. */
	struct dlt_lane lane;
	char *problems[DLT_MAX_PROBLEMS];
	size_t nproblems;
	size_t dropped_problems;
	/* The first offset where the file was found damaged or cut, +1 (0:
	 * none): what the trace lost may have held its end. */
	uint64_t damage_at;
	struct dlt_trace_stats stats;
	/* Format 2.6, a trace with ring chunks: every chunk found by the
	 * strings' walk, by seq, and the chunks AGG records summed up, by
	 * offset. */
	struct dlt_chunk_ref {
		uint64_t off, len;
		uint32_t seq, tid;
		uint16_t flags; /* the CHUNK record's */
		uint8_t done;	/* read through, in this walk */
		int32_t lane;	/* t->lanes, -1 none */
	} * chunks, *folded;
	size_t nchunks, capchunks, nfolded, capfolded;
	int chunks_known;
	struct dlt_mlane *lanes; /* while a walk reads them */
	size_t nlanes;
};

/* Indexed by type: the walk looks up every record's type, so a search
 * through a list would cost more than the rest of the walk. */
#define DLT_NTYPES 66
#define DLT_X(id, nm, st) _Static_assert(id < DLT_NTYPES, "type id " #id);
DLT_RECORD_TYPES(DLT_X)
#undef DLT_X

static const uint32_t dlt_type_size[DLT_NTYPES] = {
#define DLT_X(id, nm, st) [id] = sizeof(struct st),
	DLT_RECORD_TYPES(DLT_X)
#undef DLT_X
};

static const char *const dlt_type_name[DLT_NTYPES] = {
#define DLT_X(id, nm, st) [id] = #nm,
	DLT_RECORD_TYPES(DLT_X)
#undef DLT_X
};

uint32_t dlt_rec_min_size(uint16_t type)
{
	/* A field appended in 2.2: older REAP records are shorter. */
	if (type == DLT_REC_REAP)
		return offsetof(struct dlt_rec_reap, max_rss_kb);
	return type < DLT_NTYPES ? dlt_type_size[type] : 0;
}

const char *dlt_rec_type_name(uint16_t type)
{
	return type < DLT_NTYPES ? dlt_type_name[type] : NULL;
}

/* Since format 1.2 a blocking call is one API_CALL written before the call
 * and closed in place when it returns (format.h).  One still open never
 * returned: every consumer sees it as the API_ENTER of the older format,
 * which means exactly that. */
static const struct dlt_rec_hdr *dlt_open_as_enter(struct dlt_trace *t,
						   struct dlt_lane *L,
						   const struct dlt_rec_hdr *r)
{
	if (r->type != DLT_REC_API_CALL ||
	    (t->hdr.version_major == 1 && t->hdr.version_minor < 2) ||
	    r->len < sizeof(struct dlt_rec_api_call))
		return r;
	const struct dlt_rec_api_call *c = (const void *)r;
	if (c->dur != DLT_DUR_OPEN)
		return r;
	if (L->enter_cap < r->len) {
		uint8_t *b = realloc(L->enter_buf, r->len);
		if (b == NULL)
			return r;
		L->enter_buf = b;
		L->enter_cap = r->len;
	}
	size_t nv = (r->len - sizeof(*c)) / 8;
	struct dlt_rec_api_enter *e = (void *)L->enter_buf;
	e->h = *r;
	e->h.type = DLT_REC_API_ENTER;
	e->h.len = (uint32_t)(sizeof(*e) + nv * 8);
	memcpy(e->v, c->v, nv * 8);
	return &e->h;
}

static void dlt_problem(struct dlt_trace *t, const char *fmt, ...)
{
	if (t->nproblems >= DLT_MAX_PROBLEMS) {
		t->dropped_problems++;
		return;
	}
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < t->nproblems; i++)
		if (strcmp(t->problems[i], buf) == 0)
			return;
	char *p = strdup(buf);
	if (p)
		t->problems[t->nproblems++] = p;
}

/* Damage at offset off: a problem, and the first offset damaged. */
#define dlt_damage(t, off, ...)                                           \
	do {                                                              \
		uint64_t dlt_off_ = (off);                                \
		if ((t)->damage_at == 0 || dlt_off_ + 1 < (t)->damage_at) \
			(t)->damage_at = dlt_off_ + 1;                    \
		dlt_problem(t, __VA_ARGS__);                              \
	} while (0)

int dlt_trace_damage(const struct dlt_trace *t, uint64_t *off)
{
	if (t->damage_at == 0)
		return 0;
	*off = t->damage_at - 1;
	return 1;
}

const char *dlt_reader_path(const struct dlt_trace *t)
{
	return t->path;
}

const struct dlt_file_header *dlt_trace_header(const struct dlt_trace *t)
{
	return &t->hdr;
}

static void dlt_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (errlen == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static struct dlt_trace *dlt_trace_init(const uint8_t *head, size_t size,
					const char *path, char *err,
					size_t errlen);

struct dlt_trace *dlt_trace_open(const char *path, char *err, size_t errlen)
{
	return dlt_trace_open_rw(path, false, err, errlen);
}

struct dlt_trace *dlt_trace_open_rw(const char *path, bool writable, char *err,
				    size_t errlen)
{
	/* A writer (compact) never follows a link out of the directory it
	 * was given. */
	int oflags = writable ? O_RDWR | O_CLOEXEC | O_NOFOLLOW
			      : O_RDONLY | O_CLOEXEC;
	int fd = open(path, oflags);
	if (fd < 0) {
		dlt_err(err, errlen, "%s: cannot open: %s", path,
			strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		dlt_err(err, errlen, "%s: not a regular file", path);
		close(fd);
		return NULL;
	}
	size_t size = (size_t)st.st_size;
	size_t pl = strlen(path);
	if (size == 0 && pl >= 8 && strcmp(path + pl - 8, ".dltrace") == 0) {
		/* The writer names the file, then writes its header first:
		 * empty, its process ended before that write (killed as it
		 * started; docs/trace-format.md). */
		dlt_err(err, errlen,
			"%s: 0 bytes, no header: its process ended while it "
			"made the file, before its first write (or is making "
			"it now); nothing was recorded",
			path);
		close(fd);
		return NULL;
	}
	if (size < 16) {
		dlt_err(err, errlen,
			"%s: %zu bytes: too short to be a dltrace trace", path,
			size);
		close(fd);
		return NULL;
	}
	struct dlt_file_header h;
	memset(&h, 0, sizeof(h));
	int rerr;
	size_t want = size < sizeof(h) ? size : sizeof(h);
	size_t got = dlt_io_pread_upto(fd, (uint8_t *)&h, want, 0, &rerr);
	if (got < 16) {
		dlt_err(err, errlen, "%s: cannot read: %s", path,
			rerr ? strerror(rerr) : "file shrank");
		close(fd);
		return NULL;
	}
	if (got < want)
		size = got; /* it shrank since fstat: judge what is left */
	struct dlt_trace *t =
		dlt_trace_init((const uint8_t *)&h, size, path, err, errlen);
	if (t == NULL) {
		close(fd);
		return NULL;
	}
	t->fd = fd;
	t->oflags = oflags;
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	/* Each trace is read front to back, twice at most. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return t;
}

void dlt_trace_park(struct dlt_trace *t)
{
	if (t->fd < 0)
		return;
	close(t->fd);
	t->fd = DLT_FD_PARKED;
}

/* Opens a parked trace again; the file must be the one first opened. */
static int dlt_unpark(struct dlt_trace *t)
{
	int fd = open(t->path, t->oflags);
	if (fd < 0) {
		dlt_problem(t, "cannot open again: %s; reading stops",
			    strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_dev != t->dev || st.st_ino != t->ino) {
		close(fd);
		dlt_problem(t, "replaced by another file while waiting to be "
			       "read; reading stops");
		return -1;
	}
	t->fd = fd;
	return 0;
}

int dlt_trace_fd(struct dlt_trace *t)
{
	if (t->fd == DLT_FD_PARKED && dlt_unpark(t) != 0)
		return -1;
	return t->fd;
}

struct dlt_trace *dlt_trace_open_mem(const void *buf, size_t size,
				     const char *name, char *err, size_t errlen)
{
	if (size < 16) {
		dlt_err(err, errlen,
			"%s: %zu bytes: too short to be a dltrace trace", name,
			size);
		return NULL;
	}
	struct dlt_trace *t = dlt_trace_init(buf, size, name, err, errlen);
	if (t)
		t->mem = buf;
	return t;
}

static struct dlt_trace *dlt_trace_init(const uint8_t *head, size_t size,
					const char *path, char *err,
					size_t errlen)
{
	const char *why = NULL;
	struct dlt_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(&h, head, size < sizeof(h) ? size : sizeof(h));
	if (memcmp(h.magic, DLT_MAGIC, 8) != 0)
		why = "not a dltrace trace (bad magic)";
	else if (h.endian == __builtin_bswap32(DLT_ENDIAN_MARK))
		why = "written on a machine of the other byte order, which "
		      "this reader does not convert";
	else if (h.endian != DLT_ENDIAN_MARK)
		why = "bad byte-order marker";
	else if (size < sizeof(h))
		/* The fields below would read as zero and be blamed. */
		why = "file ends inside the header: too short to hold any "
		      "record";
	else if (h.version_major > DLT_FORMAT_MAJOR)
		why = "written by a newer dltrace (format major version "
		      "too new); update dltrace-analyze";
	else if (h.version_major < 1)
		why = "format version 0 is not supported";
	else if (h.header_size < 128 || h.header_size > DLT_DATA_OFFSET)
		why = "bad header size";
	else if (h.version_major == 1 &&
		 (h.chunk_size < 4096 || h.chunk_size % 4096 != 0 ||
		  h.chunk_size > (64u << 20)))
		why = "bad chunk size";
	else if (h.data_offset < h.header_size || h.data_offset % 8 != 0 ||
		 h.data_offset > (1u << 20))
		why = "bad data offset";
	if (why) {
		dlt_err(err, errlen, "%s: %s", path, why);
		return NULL;
	}
	/* A shorter header (an older writer's, or a seed's of 128 bytes)
	 * is followed by chunk bytes, not by the fields it lacks. */
	if (h.header_size < sizeof(h))
		memset((uint8_t *)&h + h.header_size, 0,
		       sizeof(h) - h.header_size);
	struct dlt_trace *t = calloc(1, sizeof(*t));
	if (t == NULL || (t->path = strdup(path)) == NULL) {
		free(t);
		dlt_err(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	t->fd = -1;
	t->size = size;
	t->hdr = h;
	/* Since 2.0 chunks have sizes of their own, at most DLT_CHUNK_MAX. */
	t->chunk_size = h.version_major == 1 ? h.chunk_size : 0;
	t->stats.bytes = size;
	if (size < sizeof(h))
		dlt_problem(t, "file ends inside the header (%zu bytes)", size);
	if (h.version_major == DLT_FORMAT_MAJOR &&
	    h.version_minor > DLT_FORMAT_MINOR)
		dlt_problem(t,
			    "written by a newer dltrace (format %u.%u, this "
			    "reader knows %u.%u): records of unknown types are "
			    "skipped",
			    h.version_major, h.version_minor, DLT_FORMAT_MAJOR,
			    DLT_FORMAT_MINOR);
	uint64_t end = h.alloc_cursor;
	if (end > size) {
		dlt_damage(t, size,
			   "file is truncated: chunks were handed out up to "
			   "offset %llu but the file ends at %zu; records are "
			   "read up to the cut",
			   (unsigned long long)end, size);
		end = size;
	}
	if (end < h.data_offset)
		end = h.data_offset;
	t->end = end;
	return t;
}

static void dlt_drop_window(struct dlt_trace *t)
{
	if (t->win && t->walloc == DLT_WINDOW)
		free(atomic_exchange(&dlt_spare_win, t->win));
	else
		free(t->win);
	t->win = NULL;
	t->walloc = t->wcap = t->wlen = 0;
}

void dlt_trace_close(struct dlt_trace *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->ncomps; i++)
		dlt_trace_close(t->comps[i]);
	free(t->comps);
	free(t->left);
	for (size_t i = 0; i < t->nproblems; i++)
		free(t->problems[i]);
	free(t->stab[0].off);
	free(t->stab[1].off);
	free(t->sdata);
	free(t->lane.enter_buf);
	free(t->lane.slots);
	free(t->chunks);
	free(t->folded);
	dlt_drop_window(t);
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	free(t);
}

size_t dlt_trace_problem_count(const struct dlt_trace *t)
{
	return t->nproblems;
}

const char *dlt_trace_problem(const struct dlt_trace *t, size_t i)
{
	return i < t->nproblems ? t->problems[i] : NULL;
}

void dlt_trace_stats(const struct dlt_trace *t, struct dlt_trace_stats *out)
{
	*out = t->stats;
}

static void dlt_file_string(struct dlt_trace *t, struct dlt_strtab *tab,
			    uint32_t ix, const char *data, size_t len,
			    uint64_t limit);

/* Files a copy of the string with its id.  Ids are dense from 1 (from
 * DLT_STR_WATCHER + 1 in the second table), so a table never needs more
 * slots than the file has room for STRING records (32 bytes at least
 * each), and the copies never take more than the file: a forged huge id or
 * length cannot make us allocate more than that. */
static void dlt_add_string(struct dlt_trace *t, const struct dlt_rec_string *s,
			   uint64_t off)
{
	/* h.len >= sizeof(*s) is all the caller checked: without room for
	 * the NUL the subtraction below would wrap and admit any len. */
	if (s->h.len < sizeof(*s) + 1 || s->len > s->h.len - sizeof(*s) - 1 ||
	    s->data[s->len] != '\0' || (s->id & ~DLT_STR_WATCHER) == 0) {
		dlt_damage(t, off,
			   "corrupt string record at offset %llu; skipped",
			   (unsigned long long)off);
		return;
	}
	uint64_t limit = (t->size + t->comp_bytes) / 32 + 256;
	struct dlt_strtab *tab = &t->stab[(s->id & DLT_STR_WATCHER) != 0];
	uint32_t ix = s->id & ~DLT_STR_WATCHER;
	if (ix >= limit) {
		dlt_damage(t, off,
			   "string id %u at offset %llu is larger than the "
			   "file allows; skipped",
			   s->id, (unsigned long long)off);
		return;
	}
	dlt_file_string(t, tab, ix, s->data, s->len, limit);
}

/* Files the copy of data[0..len] (its NUL included) as string ix of tab,
 * which may grow up to limit slots. */
static void dlt_file_string(struct dlt_trace *t, struct dlt_strtab *tab,
			    uint32_t ix, const char *data, size_t len,
			    uint64_t limit)
{
	if (ix >= tab->n) {
		uint64_t n = tab->n ? tab->n : 256;
		while (n <= ix)
			n *= 2;
		if (n > limit)
			n = limit;
		uint64_t *ns = realloc(tab->off, n * sizeof(*ns));
		if (ns == NULL)
			return;
		memset(ns + tab->n, 0, (n - tab->n) * sizeof(*ns));
		tab->off = ns;
		tab->n = (uint32_t)n;
	}
	size_t need = len + 1;
	if (t->scap - t->slen < need) {
		size_t cap = t->scap ? t->scap : 4096;
		while (cap - t->slen < need)
			cap *= 2;
		char *nd = realloc(t->sdata, cap);
		if (nd == NULL)
			return;
		t->sdata = nd;
		t->scap = cap;
	}
	memcpy(t->sdata + t->slen, data, need);
	tab->off[ix] = t->slen + 1;
	t->slen += need;
}

void dlt_trace_set_window(struct dlt_trace *t, size_t bytes)
{
	dlt_drop_window(t);
	t->woff = 0;
	t->want_wcap = bytes;
}

/* The bytes [off, off + len) of the file (len at most one chunk); NULL
 * when there is no memory for the window.  The window is filled from off
 * on, so a chunk asked for from its start lies whole in one window.  When
 * the file has fewer bytes than it had at open (another process truncated
 * it, or a read failed), the trace ends where they end, as if it had been
 * cut there from the start: t->end and t->size come down, so callers
 * recheck. */
static const uint8_t *dlt_bytes(struct dlt_trace *t, uint64_t off, size_t len)
{
	if (t->mem)
		return t->mem + off;
	if (off >= t->woff && off + len <= t->woff + t->wlen)
		return t->win + (off - t->woff);
	size_t cap = t->want_wcap ? t->want_wcap : DLT_WINDOW;
	if (t->chunk_size) {
		/* Whole chunks of a fixed size: each in one window. */
		if (cap < t->chunk_size)
			cap = t->chunk_size;
		cap -= cap % t->chunk_size;
	}
	if (cap < len)
		cap = len;
	/* Never more than the file holds from here: a header can claim any
	 * chunk size (fuzz: 675 bytes claiming 16 MiB chunks made a 16 MiB
	 * window). */
	if (t->end > off && cap > t->end - off)
		cap = (size_t)(t->end - off);
	if (cap == 0)
		cap = 1;
	if (t->win == NULL || t->walloc < cap) {
		dlt_drop_window(t);
		if (cap == DLT_WINDOW)
			t->win = atomic_exchange(&dlt_spare_win, NULL);
		if (t->win == NULL)
			t->win = malloc(cap);
		if (t->win == NULL) {
			dlt_problem(t,
				    "out of memory: reading stops at offset "
				    "%llu",
				    (unsigned long long)off);
			return NULL;
		}
		t->walloc = cap;
	}
	t->wcap = cap;
	size_t n = t->end > off && t->end - off < cap ? (size_t)(t->end - off)
						      : cap;
	if (t->end <= off)
		n = 0;
	if (dlt_trace_fd(t) < 0) {
		/* Parked, and its file is gone: what was read stands. */
		t->end = t->size = off;
		return NULL;
	}
	int rerr;
	size_t got = dlt_io_pread_upto(t->fd, t->win, n, off, &rerr);
	t->woff = off;
	t->wlen = got;
	if (got < n) {
		t->end = t->size = off + got;
		if (rerr)
			dlt_damage(t, off + got,
				   "cannot read at offset %llu: %s; reading "
				   "stops there",
				   (unsigned long long)(off + got),
				   strerror(rerr));
		else
			dlt_damage(t, off + got,
				   "file shrank to %llu bytes while being "
				   "read; reading stops there",
				   (unsigned long long)(off + got));
	}
	return t->win;
}

/* Format 2.0: an API_DEF read as the API_CALL it is (the slot left out),
 * and its values kept for the compact entries of its chunk. */
static const struct dlt_rec_hdr *dlt_def_call(struct dlt_trace *t,
					      struct dlt_lane *L,
					      const struct dlt_rec_hdr *r,
					      uint64_t off)
{
	const struct dlt_rec_api_def *d = (const void *)r;
	size_t nv = (r->len - sizeof(*d)) / 8;
	if (d->slot >= DLT_ENTRY_SLOTS || nv > DLT_API_DEF_MAX_VALS) {
		dlt_damage(t, off,
			   "API_DEF at offset %llu has slot %u and %zu "
			   "values; skipped",
			   (unsigned long long)off, d->slot, nv);
		return NULL;
	}
	if (L->slots == NULL) {
		L->slots = calloc(DLT_ENTRY_SLOTS, sizeof(*L->slots));
		if (L->slots == NULL)
			return NULL;
	}
	struct dlt_slot_def *sd = &L->slots[d->slot];
	sd->chunk = L->chunk_no;
	sd->id = r->flags;
	sd->nv = (uint16_t)nv;
	memcpy(sd->v, d->v, nv * 8);
	struct dlt_rec_api_call *c = (void *)L->call_buf;
	c->h = *r;
	c->h.type = DLT_REC_API_CALL;
	c->h.len = (uint32_t)(sizeof(*c) + nv * 8);
	c->ret = d->ret;
	c->dur = d->dur;
	memcpy(c->v, d->v, nv * 8);
	return &c->h;
}

/* Format 2.0: the API_CALL a compact entry stands for; NULL when its
 * chunk does not define its slot.  *base is the start of the previous
 * API_DEF or entry of the chunk. */
static const struct dlt_rec_hdr *dlt_entry_call(struct dlt_lane *L,
						uint64_t word, uint64_t *base)
{
	uint32_t slot = dlt_entry_slot(word);
	int64_t dt = dlt_entry_dt(word);
	uint32_t dur = dlt_entry_dur(word);
	const struct dlt_slot_def *sd = L->slots ? &L->slots[slot] : NULL;
	if (sd == NULL || sd->chunk != L->chunk_no)
		return NULL;
	*base += (uint64_t)dt;
	struct dlt_rec_api_call *c = (void *)L->call_buf;
	c->h.len = (uint32_t)(sizeof(*c) + sd->nv * 8u);
	c->h.type = DLT_REC_API_CALL;
	c->h.flags = sd->id;
	c->h.ts = *base;
	c->ret = 0;
	c->dur = dur == DLT_ENTRY_DUR_OPEN ? DLT_DUR_OPEN : dur;
	memcpy(c->v, sd->v, sd->nv * 8u);
	return &c->h;
}

/* Format 2.0: whether a CHUNK record could start at p, found while
 * looking for the next chunk after a damaged one.  Chunks are handed out
 * in file order under one lock, so their seq and time only grow; a record
 * whose bytes happen to look like a CHUNK header seldom has both right. */
static int dlt_chunk_plausible(const struct dlt_rec_chunk *ch,
			       uint32_t last_seq, uint64_t last_ts,
			       uint64_t scanned, int ring)
{
	if (ch->h.type != DLT_REC_CHUNK ||
	    (ch->h.flags & DLT_CHUNK_KIND_MASK) > DLT_WRITER_WATCHER ||
	    (ch->h.flags & ~(DLT_CHUNK_KIND_MASK | DLT_CHUNK_F_RING)) != 0 ||
	    ch->h.len < DLT_CHUNK_MIN || ch->h.len % 8 != 0 ||
	    ch->h.len > DLT_CHUNK_MAX)
		return 0;
	/* A ring chunk used again has a later seq and time than the chunks
	 * after it in the file (format 2.6). */
	if (ring)
		return 1;
	uint64_t gap = ch->seq - (uint64_t)last_seq;
	if (ch->seq <= last_seq && last_seq != UINT32_MAX)
		return 0;
	if (last_seq != UINT32_MAX && gap > 1 + scanned / DLT_CHUNK_MIN)
		return 0;
	const uint64_t slack = 1000000000ull;
	const uint64_t day = 86400ull * 1000000000ull;
	return ch->h.ts + slack >= last_ts && ch->h.ts <= last_ts + day;
}

/* Format 2.0: the offset of the next plausible chunk after damage at c,
 * or 0: a chunk is at most DLT_CHUNK_MAX bytes, so the next one starts
 * within that. */
static uint64_t dlt_resync(struct dlt_trace *t, uint64_t c, uint32_t last_seq,
			   uint64_t last_ts, int ring)
{
	uint64_t stop = c + DLT_CHUNK_MAX + 8;
	for (uint64_t p = c + 8;
	     p < stop && p + sizeof(struct dlt_rec_chunk) <= t->end; p += 8) {
		const uint8_t *b =
			dlt_bytes(t, p, sizeof(struct dlt_rec_chunk));
		if (b == NULL || p + sizeof(struct dlt_rec_chunk) > t->end)
			return 0;
		if (dlt_chunk_plausible((const void *)b, last_seq, last_ts,
					p - c, ring))
			return p;
	}
	return 0;
}

/* Format 2.6: a ring chunk an AGG record summed up (the chunk at off
 * while it had seq) is not read: its calls are the AGG's rows, and its
 * bytes may be the next use's half made. */
static int dlt_folded(const struct dlt_trace *t, uint64_t off, uint32_t seq)
{
	size_t lo = 0, hi = t->nfolded;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct dlt_chunk_ref *f = &t->folded[mid];
		if (f->off == off && f->seq == seq)
			return 1;
		if (f->off < off || (f->off == off && f->seq < seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void dlt_ref_add(struct dlt_chunk_ref **a, size_t *n, size_t *cap,
			uint64_t off, uint64_t len, uint32_t seq, uint32_t tid,
			uint16_t flags)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*a = dlt_xrealloc(*a, *cap, sizeof(**a));
	}
	(*a)[(*n)++] = (struct dlt_chunk_ref){off, len, seq, tid, flags, 0, -1};
}

static int dlt_ref_by_seq(const void *a, const void *b)
{
	const struct dlt_chunk_ref *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int dlt_ref_by_off(const void *a, const void *b)
{
	const struct dlt_chunk_ref *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One chunk read record by record: its bytes at base (the window, or a
 * copy), from c (its CHUNK record) to cend. */
struct dlt_ccur {
	struct dlt_lane *L;
	const uint8_t *base;
	uint64_t c, cend, clen, off;
	uint64_t ebase; /* time of the last API_DEF or entry */
	int have_base;
	int strings_only;
	struct dlt_rec_view v; /* the record next() found */
};

static void dlt_ccur_open(struct dlt_trace *t, struct dlt_ccur *k,
			  struct dlt_lane *L, const uint8_t *base, uint64_t c,
			  uint64_t cend, uint64_t clen, int strings_only)
{
	const struct dlt_rec_chunk *ch = (const void *)base;
	memset(k, 0, sizeof(*k));
	k->L = L;
	k->base = base;
	k->c = c;
	k->cend = cend;
	k->clen = clen;
	k->off = c + sizeof(*ch);
	k->strings_only = strings_only;
	k->v.tid = ch->tid;
	k->v.writer = ch->h.flags & DLT_CHUNK_KIND_MASK;
	k->v.companion = t->comp_no;
	L->chunk_no++;
}

/* The chunk's next record for the callbacks in k->v: 1, or 0 at its end
 * (or at damage, which stops the chunk).  With strings_only its STRING
 * records are filed (and AGG records noted) instead, and it returns 0. */
static int dlt_ccur_next(struct dlt_trace *t, struct dlt_ccur *k,
			 struct dlt_trace_stats *st)
{
	int v2 = t->hdr.version_major >= 2;
	int strings_only = k->strings_only;
	uint64_t c = k->c, cend = k->cend;
	k->v.compact = 0;
	while (k->off + 8 <= cend) {
		uint64_t off = k->off;
		const uint8_t *rp = k->base + (off - c);
		uint64_t word;
		memcpy(&word, rp, 8);
		if (word == 0)
			return 0; /* end of what was committed */
		uint32_t tag =
			(uint32_t)word & ((1u << DLT_ENTRY_TAG_BITS) - 1);
		if (v2 && (tag == DLT_ENTRY_CALL || tag == DLT_ENTRY_SKIP)) {
			st->records++;
			k->off += 8;
			if (tag != DLT_ENTRY_CALL || strings_only)
				continue;
			const struct dlt_rec_hdr *e =
				k->have_base
					? dlt_entry_call(k->L, word, &k->ebase)
					: NULL;
			/* A slot its chunk never defined: the word is
			 * damage, not an entry. */
			if (e == NULL) {
				dlt_damage(t, off,
					   "compact entry at offset %llu "
					   "refers to no definition in its "
					   "chunk; the rest of that chunk is "
					   "skipped",
					   (unsigned long long)off);
				k->off = cend;
				return 0;
			}
			k->v.rec = dlt_open_as_enter(t, k->L, e);
			k->v.offset = off;
			k->v.compact = 1;
			return 1;
		}
		const struct dlt_rec_hdr *r = (const void *)rp;
		if (off + sizeof(*r) > cend || r->len < sizeof(*r) ||
		    r->len % 8 != 0 || r->len > cend - off) {
			if (off + r->len > t->size && cend == t->end &&
			    r->len <= k->clen)
				dlt_damage(t, off,
					   "file is cut inside a record at "
					   "offset %llu; reading stops there",
					   (unsigned long long)off);
			else
				dlt_damage(t, off,
					   "corrupt record at offset %llu "
					   "(length %u); the rest of that "
					   "chunk is skipped",
					   (unsigned long long)off, r->len);
			k->off = cend;
			return 0;
		}
		k->off += r->len;
		st->records++;
		uint32_t min = dlt_rec_min_size(r->type);
		if (min == 0)
			st->unknown++;
		if (min != 0 && r->len < min) {
			dlt_damage(t, off,
				   "record at offset %llu is shorter than its "
				   "type %s needs; skipped",
				   (unsigned long long)off,
				   dlt_rec_type_name(r->type));
		} else if (r->type == DLT_REC_STRING) {
			if (strings_only)
				dlt_add_string(t, (const void *)r, off);
		} else if (r->type == DLT_REC_AGG && strings_only) {
			const struct dlt_rec_agg *a = (const void *)r;
			dlt_ref_add(&t->folded, &t->nfolded, &t->capfolded,
				    a->chunk_off, 0, a->chunk_seq, 0, 0);
		} else if (r->type == DLT_REC_API_DEF && v2) {
			const struct dlt_rec_hdr *d =
				strings_only ? NULL
					     : dlt_def_call(t, k->L, r, off);
			k->ebase = r->ts;
			k->have_base = 1;
			if (d) {
				k->v.rec = dlt_open_as_enter(t, k->L, d);
				k->v.offset = off;
				return 1;
			}
		} else if (!strings_only && r->type != DLT_REC_CHUNK &&
			   r->type != DLT_REC_API_DEF) {
			k->v.rec = dlt_open_as_enter(t, k->L, r);
			k->v.offset = off;
			return 1;
		}
	}
	return 0;
}

/* The records of the chunk at c (clen bytes, its CHUNK header valid) handed
 * to fn, or its STRING records filed (strings_only).  Damage stops the
 * chunk.  -1 when the chunk cannot be read, else what fn returned to stop,
 * or 0. */
static int dlt_walk_chunk(struct dlt_trace *t, uint64_t c, uint64_t clen,
			  int strings_only, dlt_rec_fn fn, void *ctx,
			  struct dlt_trace_stats *st)
{
	uint64_t cend = c + clen < t->end ? c + clen : t->end;
	const uint8_t *base = dlt_bytes(t, c, (size_t)(cend - c));
	if (base == NULL || c + sizeof(struct dlt_rec_chunk) > t->end)
		return -1;
	if (cend > t->end)
		cend = t->end;
	st->chunks++;
	st->records++;
	struct dlt_ccur k;
	dlt_ccur_open(t, &k, &t->lane, base, c, cend, clen, strings_only);
	while (dlt_ccur_next(t, &k, st)) {
		int stop = fn(ctx, &k.v);
		if (stop)
			return stop;
	}
	return 0;
}

/* ---- format 2.6: a thread's ring chunks and its other chunks ----------- */

/* One thread's two streams of chunks (0 its other chunks, 1 its ring
 * chunks), read side by side, each record taken from the stream whose
 * next record is earlier (the ring's first on a tie: a call opened in the
 * ring that returned an error has its complete record in the other stream,
 * at the same time).  Each stream reads a copy of its chunk. */
struct dlt_mlane {
	uint32_t tid;
	struct dlt_lane L[2];
	struct dlt_ccur k[2];
	uint8_t *copy[2];
	size_t ccap[2];
	size_t *idx[2]; /* the stream's chunks (t->chunks), seq order */
	size_t n[2], cap[2], at[2];
	size_t cur[2]; /* t->chunks of the open chunk, SIZE_MAX none */
	int head[2];   /* k[s].v holds a record not handed out yet */
};

static int dlt_lane_by_tid(const void *a, const void *b)
{
	uint32_t x = ((const struct dlt_mlane *)a)->tid;
	uint32_t y = ((const struct dlt_mlane *)b)->tid;
	return (x > y) - (x < y);
}

/* The lanes: a thread with ring chunks has one, and each of its chunks
 * written by the shim (ring or not) is read through it. */
static void dlt_lanes_make(struct dlt_trace *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nchunks; i++)
		n += (t->chunks[i].flags & DLT_CHUNK_F_RING) != 0;
	t->lanes = dlt_xrealloc(NULL, n ? n : 1, sizeof(*t->lanes));
	t->nlanes = 0;
	for (size_t i = 0; i < t->nchunks; i++) {
		const struct dlt_chunk_ref *r = &t->chunks[i];
		if (!(r->flags & DLT_CHUNK_F_RING))
			continue;
		size_t l = 0;
		while (l < t->nlanes && t->lanes[l].tid != r->tid)
			l++;
		if (l == t->nlanes) {
			memset(&t->lanes[l], 0, sizeof(t->lanes[l]));
			t->lanes[l].tid = r->tid;
			t->lanes[l].cur[0] = t->lanes[l].cur[1] = SIZE_MAX;
			t->nlanes++;
		}
	}
	qsort(t->lanes, t->nlanes, sizeof(*t->lanes), dlt_lane_by_tid);
	for (size_t i = 0; i < t->nchunks; i++) {
		struct dlt_chunk_ref *r = &t->chunks[i];
		r->lane = -1;
		if ((r->flags & DLT_CHUNK_KIND_MASK) != DLT_WRITER_SHIM)
			continue;
		struct dlt_mlane key = {.tid = r->tid};
		struct dlt_mlane *m =
			bsearch(&key, t->lanes, t->nlanes, sizeof(*t->lanes),
				dlt_lane_by_tid);
		if (m == NULL)
			continue;
		int s = (r->flags & DLT_CHUNK_F_RING) != 0;
		r->lane = (int32_t)(m - t->lanes);
		if (m->n[s] == m->cap[s]) {
			m->cap[s] = m->cap[s] ? m->cap[s] * 2 : 16;
			m->idx[s] = dlt_xrealloc(m->idx[s], m->cap[s],
						 sizeof(*m->idx[s]));
		}
		m->idx[s][m->n[s]++] = i;
	}
}

static void dlt_lanes_free(struct dlt_trace *t)
{
	for (size_t l = 0; l < t->nlanes; l++)
		for (int s = 0; s < 2; s++) {
			free(t->lanes[l].idx[s]);
			free(t->lanes[l].copy[s]);
			free(t->lanes[l].L[s].enter_buf);
			free(t->lanes[l].L[s].slots);
		}
	free(t->lanes);
	t->lanes = NULL;
	t->nlanes = 0;
}

/* Stream s of m holds a record in k[s].v, opening its next chunks as
 * needed (those summed up are left out); 0 when it has none left. */
static int dlt_lane_fill(struct dlt_trace *t, struct dlt_mlane *m, int s,
			 struct dlt_trace_stats *st)
{
	while (!m->head[s]) {
		if (m->cur[s] != SIZE_MAX && dlt_ccur_next(t, &m->k[s], st)) {
			m->head[s] = 1;
			break;
		}
		if (m->cur[s] != SIZE_MAX)
			t->chunks[m->cur[s]].done = 1;
		m->cur[s] = SIZE_MAX;
		if (m->at[s] == m->n[s])
			return 0;
		size_t i = m->idx[s][m->at[s]++];
		struct dlt_chunk_ref *r = &t->chunks[i];
		if (r->done || dlt_folded(t, r->off, r->seq)) {
			r->done = 1;
			continue;
		}
		uint64_t cend =
			r->off + r->len < t->end ? r->off + r->len : t->end;
		const uint8_t *b =
			dlt_bytes(t, r->off, (size_t)(cend - r->off));
		if (b == NULL ||
		    r->off + sizeof(struct dlt_rec_chunk) > t->end) {
			r->done = 1;
			continue;
		}
		size_t len = (size_t)(cend - r->off);
		if (m->ccap[s] < len) {
			m->copy[s] = dlt_xrealloc(m->copy[s], len, 1);
			m->ccap[s] = len;
		}
		memcpy(m->copy[s], b, len);
		st->chunks++;
		st->records++;
		dlt_ccur_open(t, &m->k[s], &m->L[s], m->copy[s], r->off, cend,
			      r->len, 0);
		m->cur[s] = i;
	}
	return 1;
}

/* Hands out m's records in time order until the chunk at t->chunks[i] is
 * read through; what fn returned to stop, or 0. */
static int dlt_lane_until(struct dlt_trace *t, struct dlt_mlane *m, size_t i,
			  dlt_rec_fn fn, void *ctx, struct dlt_trace_stats *st)
{
	while (!t->chunks[i].done) {
		int h0 = dlt_lane_fill(t, m, 0, st);
		int h1 = dlt_lane_fill(t, m, 1, st);
		if (!h0 && !h1)
			break;
		int s = !h0 || (h1 && m->k[1].v.rec->ts <= m->k[0].v.rec->ts);
		m->head[s] = 0;
		int stop = fn(ctx, &m->k[s].v);
		if (stop)
			return stop;
	}
	t->chunks[i].done = 1;
	return 0;
}

/* Walks every chunk and hands each committed record to fn.  With strings_only
 * it collects STRING records instead (and, format 2.6, where the chunks are
 * and which were summed up).  Damage stops the chunk, not the file: before
 * format 2.0 chunks have a fixed size, so the next one is always where it
 * should be; since, the next one is where the damaged one said, or found by
 * its look (dlt_resync).  Format 2.6 with ring chunks: the chunks in the
 * order they were handed out (seq), those summed up left out. */
static int dlt_walk(struct dlt_trace *t, int strings_only, dlt_rec_fn fn,
		    void *ctx)
{
	struct dlt_trace_stats st = {0, 0, t->size, 0};
	int v2 = t->hdr.version_major >= 2;
	int ring = v2 && (t->hdr.features & DLT_FEAT_RING);
	uint32_t last_seq = UINT32_MAX;
	uint64_t last_ts = t->hdr.start_monotonic_ns;
	t->lane.chunk_no = 0;
	if (ring && !strings_only && t->chunks_known) {
		for (size_t i = 0; i < t->nchunks; i++)
			t->chunks[i].done = 0;
		dlt_lanes_make(t);
		int stop = 0;
		for (size_t i = 0; i < t->nchunks && stop <= 0; i++) {
			struct dlt_chunk_ref *r = &t->chunks[i];
			if (r->done || dlt_folded(t, r->off, r->seq))
				continue;
			if (r->lane >= 0)
				stop = dlt_lane_until(t, &t->lanes[r->lane], i,
						      fn, ctx, &st);
			else
				stop = dlt_walk_chunk(t, r->off, r->len, 0, fn,
						      ctx, &st);
			r->done = 1;
		}
		dlt_lanes_free(t);
		if (stop > 0)
			return stop;
		t->stats = st;
		return 0;
	}
	if (ring && strings_only) {
		t->nchunks = t->nfolded = 0;
		t->chunks_known = 1;
	}
	uint64_t c = t->hdr.data_offset;
	while (c + sizeof(struct dlt_rec_chunk) <= t->end) {
		uint64_t clen = t->chunk_size;
		uint32_t ctid = 0;
		uint16_t cflags = 0;
		if (v2) {
			const uint8_t *hb =
				dlt_bytes(t, c, sizeof(struct dlt_rec_chunk));
			if (hb == NULL ||
			    c + sizeof(struct dlt_rec_chunk) > t->end)
				break;
			const struct dlt_rec_chunk *ch = (const void *)hb;
			if (ch->h.len == 0 && ch->h.type == 0) {
				dlt_damage(t, c,
					   "no chunk at offset %llu, below the "
					   "end of what was handed out; "
					   "reading stops there",
					   (unsigned long long)c);
				break;
			}
			if (ch->h.type != DLT_REC_CHUNK ||
			    ch->h.len < DLT_CHUNK_MIN || ch->h.len % 8 != 0 ||
			    ch->h.len > DLT_CHUNK_MAX) {
				uint64_t next = dlt_resync(t, c, last_seq,
							   last_ts, ring);
				if (next)
					dlt_damage(
						t, c,
						"corrupt chunk header at "
						"offset %llu; reading goes on "
						"at the next chunk, offset "
						"%llu",
						(unsigned long long)c,
						(unsigned long long)next);
				else
					dlt_damage(t, c,
						   "corrupt chunk header at "
						   "offset %llu; no chunk "
						   "after it: reading stops "
						   "there",
						   (unsigned long long)c);
				if (next == 0)
					break;
				c = next;
				continue;
			}
			clen = ch->h.len;
			last_seq = ch->seq;
			last_ts = ch->h.ts;
			ctid = ch->tid;
			cflags = ch->h.flags;
		}
		if (!v2) {
			const uint8_t *hb =
				dlt_bytes(t, c, sizeof(struct dlt_rec_chunk));
			if (hb == NULL ||
			    c + sizeof(struct dlt_rec_chunk) > t->end)
				break;
			const struct dlt_rec_chunk *ch = (const void *)hb;
			if (ch->h.len == 0 && ch->h.type == 0) {
				/* handed out, never written: writer killed */
				c += clen;
				continue;
			}
			if (ch->h.type != DLT_REC_CHUNK ||
			    ch->h.len != t->chunk_size) {
				dlt_damage(t, c,
					   "corrupt chunk header at offset "
					   "%llu; that chunk is skipped",
					   (unsigned long long)c);
				c += clen;
				continue;
			}
		}
		if (ring && strings_only)
			dlt_ref_add(&t->chunks, &t->nchunks, &t->capchunks, c,
				    clen, last_seq, ctid, cflags);
		int stop =
			dlt_walk_chunk(t, c, clen, strings_only, fn, ctx, &st);
		if (stop < 0)
			break;
		if (stop)
			return stop;
		c += clen;
	}
	/* qsort of no array: an empty list is NULL. */
	if (ring && strings_only && t->nchunks)
		qsort(t->chunks, t->nchunks, sizeof(*t->chunks),
		      dlt_ref_by_seq);
	if (ring && strings_only && t->nfolded)
		qsort(t->folded, t->nfolded, sizeof(*t->folded),
		      dlt_ref_by_off);
	t->stats = st;
	return 0;
}

/* The string ix of a table, or NULL. */
static const char *dlt_strtab_get(const struct dlt_trace *t,
				  const struct dlt_strtab *tab, uint32_t ix)
{
	if (ix == 0 || ix >= tab->n || tab->off[ix] == 0)
		return NULL;
	return t->sdata + tab->off[ix] - 1;
}

/* Companion k's strings with bit 31 filed as t's own, so that a record of
 * it resolves through t like one of t's (the consumers resolve with the
 * trace they read, during the walk and after it).  Two companions of one
 * trace (two watchers, or one started again) number their strings each
 * from DLT_STR_WATCHER + 1: a companion that names an id otherwise than
 * one filed before is left out whole, rather than read with strings that
 * are not its own. */
static void dlt_merge_strings(struct dlt_trace *t, size_t k)
{
	struct dlt_trace *c = t->comps[k];
	const struct dlt_strtab *from = &c->stab[1];
	struct dlt_strtab *to = &t->stab[1];
	for (uint32_t ix = 1; ix < from->n; ix++) {
		const char *mine = dlt_strtab_get(t, to, ix);
		const char *its = dlt_strtab_get(c, from, ix);
		if (mine && its && strcmp(mine, its) != 0) {
			t->left[k] = true;
			dlt_problem(t,
				    "watcher records %s left out: its string "
				    "id %u is another text in an earlier "
				    "companion of this trace",
				    c->path, ix | DLT_STR_WATCHER);
			return;
		}
	}
	uint64_t limit = (t->size + t->comp_bytes) / 32 + 256;
	for (uint32_t ix = 1; ix < from->n; ix++) {
		const char *its = dlt_strtab_get(c, from, ix);
		if (its && dlt_strtab_get(t, to, ix) == NULL)
			dlt_file_string(t, to, ix, its, strlen(its), limit);
	}
	if (c->stab[0].n)
		dlt_problem(t,
			    "watcher records %s: strings without bit 31 in "
			    "their ids, which would be the process's own; "
			    "ignored",
			    c->path);
}

static void dlt_load_strings(struct dlt_trace *t)
{
	if (t->strings_loaded)
		return;
	t->strings_loaded = 1;
	dlt_walk(t, 1, NULL, NULL);
	for (size_t k = 0; k < t->ncomps; k++) {
		dlt_load_strings(t->comps[k]);
		dlt_merge_strings(t, k);
	}
}

void dlt_trace_attach(struct dlt_trace *t, struct dlt_trace *companion)
{
	t->comps = dlt_xrealloc(t->comps, t->ncomps + 1, sizeof(*t->comps));
	t->left = dlt_xrealloc(t->left, t->ncomps + 1, sizeof(*t->left));
	t->comps[t->ncomps] = companion;
	t->left[t->ncomps] = false;
	t->ncomps++;
	companion->comp_no = (uint32_t)t->ncomps;
	t->comp_bytes += companion->size;
	/* Attached after t's strings were read: its own are filed now. */
	if (t->strings_loaded) {
		dlt_load_strings(companion);
		dlt_merge_strings(t, t->ncomps - 1);
	}
	/* The watcher stores its sign of the process's life in both. */
	const struct dlt_file_header *ch = &companion->hdr;
	if (ch->alive_ns > t->hdr.alive_ns)
		t->hdr.alive_ns = ch->alive_ns;
	if (ch->rss_peak_kb > t->hdr.rss_peak_kb)
		t->hdr.rss_peak_kb = ch->rss_peak_kb;
}

size_t dlt_trace_companions(const struct dlt_trace *t)
{
	return t->ncomps;
}

/* What reading companion k found, said as t's, with the companion's file
 * (dlt_problem keeps each once however often the trace is read). */
static void dlt_take_problems(struct dlt_trace *t, const struct dlt_trace *c)
{
	for (size_t i = 0; i < c->nproblems; i++)
		dlt_problem(t, "watcher records %s: %s", c->path,
			    c->problems[i]);
}

const char *dlt_trace_str(const struct dlt_trace *t, uint32_t id)
{
	dlt_load_strings((struct dlt_trace *)t);
	const struct dlt_strtab *tab = &t->stab[(id & DLT_STR_WATCHER) != 0];
	uint32_t ix = id & ~DLT_STR_WATCHER;
	if (ix == 0 || ix >= tab->n || tab->off[ix] == 0)
		return NULL;
	return t->sdata + tab->off[ix] - 1;
}

const char *dlt_trace_strz(const struct dlt_trace *t, uint32_t id)
{
	const char *s = dlt_trace_str(t, id);
	return s ? s : "";
}

int dlt_trace_foreach(struct dlt_trace *t, dlt_rec_fn fn, void *ctx)
{
	dlt_load_strings(t);
	int stop = dlt_walk(t, 0, fn, ctx);
	for (size_t k = 0; k < t->ncomps && stop == 0; k++) {
		struct dlt_trace *c = t->comps[k];
		if (!t->left[k]) {
			stop = dlt_walk(c, 0, fn, ctx);
			t->stats.records += c->stats.records;
			t->stats.chunks += c->stats.chunks;
			t->stats.bytes += c->stats.bytes;
			t->stats.unknown += c->stats.unknown;
		}
		dlt_take_problems(t, c);
	}
	return stop;
}
