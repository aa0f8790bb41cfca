#define _GNU_SOURCE
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define DLT_MAX_PROBLEMS 64

struct dlt_trace {
	char *path;
	const uint8_t *map;
	size_t size;
	struct dlt_file_header hdr; /* copy; zero-extended if shorter */
	uint64_t end;		    /* last byte of chunk data to look at */
	uint32_t chunk_size;
	const char **strs; /* index = string id */
	uint32_t nstrs;
	int strings_loaded;
	int mapped; /* map is ours to munmap */
	/* An open API_CALL (format 1.2) shown as the API_ENTER it stands
	 * for (dlt_open_as_enter). */
	uint8_t *enter_buf;
	size_t enter_cap;
	char *problems[DLT_MAX_PROBLEMS];
	size_t nproblems;
	size_t dropped_problems;
	struct dlt_trace_stats stats;
};

/* Since format 1.2 a blocking call is one API_CALL written before the call
 * and closed in place when it returns (format.h).  One still open never
 * returned: every consumer sees it as the API_ENTER of the older format,
 * which means exactly that. */
static const struct dlt_rec_hdr *dlt_open_as_enter(struct dlt_trace *t,
						   const struct dlt_rec_hdr *r)
{
	if (r->type != DLT_REC_API_CALL || t->hdr.version_minor < 2 ||
	    r->len < sizeof(struct dlt_rec_api_call))
		return r;
	const struct dlt_rec_api_call *c = (const void *)r;
	if (c->dur != DLT_DUR_OPEN)
		return r;
	if (t->enter_cap < r->len) {
		uint8_t *b = realloc(t->enter_buf, r->len);
		if (b == NULL)
			return r;
		t->enter_buf = b;
		t->enter_cap = r->len;
	}
	size_t nv = (r->len - sizeof(*c)) / 8;
	struct dlt_rec_api_enter *e = (void *)t->enter_buf;
	e->h = *r;
	e->h.type = DLT_REC_API_ENTER;
	e->h.len = (uint32_t)(sizeof(*e) + nv * 8);
	memcpy(e->v, c->v, nv * 8);
	return &e->h;
}

static const struct {
	uint16_t type;
	uint32_t size;
	const char *name;
} dlt_types[] = {
#define DLT_X(id, nm, st) {id, sizeof(struct st), #nm},
	DLT_RECORD_TYPES(DLT_X)
#undef DLT_X
};

uint32_t dlt_rec_min_size(uint16_t type)
{
	for (size_t i = 0; i < sizeof(dlt_types) / sizeof(dlt_types[0]); i++)
		if (dlt_types[i].type == type)
			return dlt_types[i].size;
	return 0;
}

const char *dlt_rec_type_name(uint16_t type)
{
	for (size_t i = 0; i < sizeof(dlt_types) / sizeof(dlt_types[0]); i++)
		if (dlt_types[i].type == type)
			return dlt_types[i].name;
	return NULL;
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

const char *dlt_trace_path(const struct dlt_trace *t)
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

static struct dlt_trace *dlt_trace_init(const uint8_t *map, size_t size,
					const char *path, char *err,
					size_t errlen);

struct dlt_trace *dlt_trace_open(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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
	if (size < 16) {
		dlt_err(err, errlen,
			"%s: %zu bytes: too short to be a dltrace trace", path,
			size);
		close(fd);
		return NULL;
	}
	const uint8_t *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		dlt_err(err, errlen, "%s: cannot map: %s", path,
			strerror(errno));
		return NULL;
	}
	struct dlt_trace *t = dlt_trace_init(map, size, path, err, errlen);
	if (t == NULL)
		munmap((void *)map, size);
	else
		t->mapped = 1;
	return t;
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
	return dlt_trace_init(buf, size, name, err, errlen);
}

static struct dlt_trace *dlt_trace_init(const uint8_t *map, size_t size,
					const char *path, char *err,
					size_t errlen)
{
	const char *why = NULL;
	struct dlt_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(&h, map, size < sizeof(h) ? size : sizeof(h));
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
	else if (h.chunk_size < 4096 || h.chunk_size % 4096 != 0 ||
		 h.chunk_size > (64u << 20))
		why = "bad chunk size";
	else if (h.data_offset < h.header_size || h.data_offset % 8 != 0 ||
		 h.data_offset > (1u << 20))
		why = "bad data offset";
	if (why) {
		dlt_err(err, errlen, "%s: %s", path, why);
		return NULL;
	}
	struct dlt_trace *t = calloc(1, sizeof(*t));
	if (t == NULL || (t->path = strdup(path)) == NULL) {
		free(t);
		dlt_err(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	t->map = map;
	t->size = size;
	t->hdr = h;
	t->chunk_size = h.chunk_size;
	t->stats.bytes = size;
	if (size < sizeof(h))
		dlt_problem(t, "file ends inside the header (%zu bytes)", size);
	if (h.version_minor > DLT_FORMAT_MINOR)
		dlt_problem(t,
			    "written by a newer dltrace (format %u.%u, this "
			    "reader knows %u.%u): records of unknown types are "
			    "skipped",
			    h.version_major, h.version_minor, DLT_FORMAT_MAJOR,
			    DLT_FORMAT_MINOR);
	uint64_t end = h.alloc_cursor;
	if (end > size) {
		dlt_problem(t,
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

void dlt_trace_close(struct dlt_trace *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->nproblems; i++)
		free(t->problems[i]);
	free(t->strs);
	free(t->enter_buf);
	if (t->mapped)
		munmap((void *)t->map, t->size);
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

/* Files the string with its id.  Ids are dense from 1, so the table never
 * needs more slots than the file has room for STRING records (32 bytes at
 * least each): a forged huge id cannot make us allocate more than that. */
static void dlt_add_string(struct dlt_trace *t, const struct dlt_rec_string *s,
			   uint64_t off)
{
	/* h.len >= sizeof(*s) is all the caller checked: without room for
	 * the NUL the subtraction below would wrap and admit any len. */
	if (s->h.len < sizeof(*s) + 1 || s->len > s->h.len - sizeof(*s) - 1 ||
	    s->data[s->len] != '\0' || s->id == 0) {
		dlt_problem(t, "corrupt string record at offset %llu; skipped",
			    (unsigned long long)off);
		return;
	}
	uint64_t limit = t->size / 32 + 256;
	if (s->id >= limit) {
		dlt_problem(t,
			    "string id %u at offset %llu is larger than the "
			    "file allows; skipped",
			    s->id, (unsigned long long)off);
		return;
	}
	if (s->id >= t->nstrs) {
		uint64_t n = t->nstrs ? t->nstrs : 256;
		while (n <= s->id)
			n *= 2;
		if (n > limit)
			n = limit;
		const char **ns = realloc(t->strs, n * sizeof(*ns));
		if (ns == NULL)
			return;
		memset(ns + t->nstrs, 0, (n - t->nstrs) * sizeof(*ns));
		t->strs = ns;
		t->nstrs = (uint32_t)n;
	}
	t->strs[s->id] = s->data;
}

/* Walks every chunk and hands each committed record to fn.  With strings_only
 * it collects STRING records instead.  Damage stops the chunk, not the file:
 * chunks have a fixed size, so the next one is always where it should be. */
static int dlt_walk(struct dlt_trace *t, int strings_only, dlt_rec_fn fn,
		    void *ctx)
{
	struct dlt_trace_stats st = {0, 0, t->size, 0};
	for (uint64_t c = t->hdr.data_offset; c + 32 <= t->end;
	     c += t->chunk_size) {
		const struct dlt_rec_chunk *ch =
			(const struct dlt_rec_chunk *)(t->map + c);
		uint64_t cend = c + t->chunk_size;
		if (cend > t->end)
			cend = t->end;
		if (ch->h.len == 0 && ch->h.type == 0)
			continue; /* handed out, never written: writer killed */
		if (ch->h.type != DLT_REC_CHUNK || ch->h.len != t->chunk_size) {
			dlt_problem(t,
				    "corrupt chunk header at offset %llu; that "
				    "chunk is skipped",
				    (unsigned long long)c);
			continue;
		}
		st.chunks++;
		st.records++;
		struct dlt_rec_view v = {NULL, 0, ch->tid, ch->h.flags};
		uint64_t off = c + sizeof(*ch);
		while (off + sizeof(struct dlt_rec_hdr) <= cend) {
			const struct dlt_rec_hdr *r =
				(const struct dlt_rec_hdr *)(t->map + off);
			if (r->len == 0)
				break; /* end of what was committed */
			if (r->len < sizeof(*r) || r->len % 8 != 0 ||
			    r->len > cend - off) {
				if (off + r->len > t->size && cend == t->end &&
				    r->len <= t->chunk_size)
					dlt_problem(t,
						    "file is cut inside a "
						    "record at "
						    "offset %llu; reading "
						    "stops there",
						    (unsigned long long)off);
				else
					dlt_problem(
						t,
						"corrupt record at offset %llu "
						"(length %u); the rest of that "
						"chunk is skipped",
						(unsigned long long)off,
						r->len);
				break;
			}
			st.records++;
			uint32_t min = dlt_rec_min_size(r->type);
			if (min == 0)
				st.unknown++;
			if (min != 0 && r->len < min) {
				dlt_problem(t,
					    "record at offset %llu is shorter "
					    "than its type %s needs; skipped",
					    (unsigned long long)off,
					    dlt_rec_type_name(r->type));
			} else if (r->type == DLT_REC_STRING) {
				if (strings_only)
					dlt_add_string(t, (const void *)r, off);
			} else if (!strings_only && r->type != DLT_REC_CHUNK) {
				v.rec = dlt_open_as_enter(t, r);
				v.offset = off;
				int stop = fn(ctx, &v);
				if (stop)
					return stop;
			}
			off += r->len;
		}
	}
	t->stats = st;
	return 0;
}

static void dlt_load_strings(struct dlt_trace *t)
{
	if (t->strings_loaded)
		return;
	t->strings_loaded = 1;
	dlt_walk(t, 1, NULL, NULL);
}

const char *dlt_trace_str(const struct dlt_trace *t, uint32_t id)
{
	dlt_load_strings((struct dlt_trace *)t);
	if (id == DLT_STR_NONE || id >= t->nstrs)
		return NULL;
	return t->strs[id];
}

const char *dlt_trace_strz(const struct dlt_trace *t, uint32_t id)
{
	const char *s = dlt_trace_str(t, id);
	return s ? s : "";
}

int dlt_trace_foreach(struct dlt_trace *t, dlt_rec_fn fn, void *ctx)
{
	dlt_load_strings(t);
	return dlt_walk(t, 0, fn, ctx);
}
