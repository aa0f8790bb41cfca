/* Raw stack capture (rawcap.h).  Async-signal-safe: the crash handler runs
 * it.  Everything large is in the caller's struct dlt_rc_maps, nothing
 * here takes more than a few hundred bytes of stack. */
#define _GNU_SOURCE
#include "rawcap.h"

#include <elf.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "procmaps.h"
#include "record.h"

void dlt_rc_maps_begin(struct dlt_rc_maps *m, uint64_t sp)
{
	m->n = 0;
	m->trunc = 0;
	m->sp = sp;
	m->stack_lo = m->stack_hi = 0;
	m->above_lo = m->above_hi = 0;
	m->hash = DLT_FNV_OFFSET;
	m->ll = 0;
	m->cur_path[0] = '\0';
	m->cur_base = 0;
}

static void dlt_rc_copy(char *dst, const char *src, size_t cap)
{
	size_t k = 0;
	for (; src[k] && k < cap - 1; k++)
		dst[k] = src[k];
	dst[k] = '\0';
}

static void dlt_rc_line(struct dlt_rc_maps *m)
{
	struct dlt_maps_line l;
	m->line[m->ll] = '\0';
	if (dlt_maps_parse(m->line, &l) != 0)
		return;
	if (m->sp >= l.lo && m->sp < l.hi) {
		m->stack_lo = l.lo;
		m->stack_hi = l.hi;
	} else if (l.lo > m->sp && m->above_lo == 0) {
		/* The listing is in address order: the first above is the
		 * nearest. */
		m->above_lo = l.lo;
		m->above_hi = l.hi;
	}
	if (l.path[0] == '\0')
		return;
	/* The ELF header of a file is where its offset 0 is mapped; a
	 * file's mappings are listed together, that one first. */
	if (l.off == 0) {
		dlt_rc_copy(m->cur_path, l.path, sizeof(m->cur_path));
		m->cur_base = l.lo;
	}
	if (!l.exec)
		return;
	if (m->n >= DLT_RC_MAX_ENTS) {
		m->trunc = 1;
		return;
	}
	uint32_t i = m->n++;
	struct dlt_modmap_ent *e = &m->e[i];
	memset(e, 0, sizeof(*e));
	e->lo = l.lo;
	e->hi = l.hi;
	e->off = l.off;
	dlt_rc_copy(m->path[i], l.path, DLT_RC_PATH);
	m->base[i] = strcmp(m->path[i], m->cur_path) == 0 ? m->cur_base : 0;
}

void dlt_rc_maps_feed(struct dlt_rc_maps *m, const char *buf, size_t n)
{
	m->hash = dlt_fnv1a_more(m->hash, buf, n);
	for (size_t k = 0; k < n; k++) {
		if (buf[k] != '\n') {
			/* A longer line is a path too long to keep: cut. */
			if (m->ll < sizeof(m->line) - 1)
				m->line[m->ll++] = buf[k];
			continue;
		}
		dlt_rc_line(m);
		m->ll = 0;
	}
}

/* The GNU build-id note in the n bytes of notes at b, copied into e. */
static int dlt_rc_note(const uint8_t *b, size_t n, struct dlt_modmap_ent *e)
{
	size_t k = 0;
	while (k + sizeof(Elf64_Nhdr) <= n) {
		Elf64_Nhdr nh;
		memcpy(&nh, b + k, sizeof(nh));
		size_t name = (nh.n_namesz + 3u) & ~3u;
		size_t desc = (nh.n_descsz + 3u) & ~3u;
		size_t at = k + sizeof(nh);
		if (name > n - at || desc > n - at - name)
			return -1;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(b + at, "GNU", 4) == 0 && nh.n_descsz > 0) {
			size_t len = nh.n_descsz < sizeof(e->build_id)
					     ? nh.n_descsz
					     : sizeof(e->build_id);
			memcpy(e->build_id, b + at + name, len);
			e->build_id_len = (uint8_t)len;
			return 0;
		}
		k = at + name + desc;
	}
	return -1;
}

/* Notes no longer than this are looked at (a build-id note is 36 bytes;
 * .note.gnu.property and the ABI tag come before it). */
#define DLT_RC_NOTE_MAX 1024u

/* The build-id of the ELF object whose header is mapped at base, read
 * from the process: its program headers, then each PT_NOTE.  One read of
 * the header's page covers both in the usual layout. */
static void dlt_rc_build_id(struct dlt_rc_maps *m, uint64_t base,
			    struct dlt_modmap_ent *e, dlt_rc_read_fn rd,
			    void *ctx)
{
	uint8_t *pg = m->scratch;
	ssize_t got = rd(ctx, pg, base, sizeof(m->scratch));
	if (got < (ssize_t)sizeof(Elf64_Ehdr))
		return;
	Elf64_Ehdr eh;
	memcpy(&eh, pg, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
	    eh.e_phoff > (uint64_t)got ||
	    (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) >
		    (uint64_t)got - eh.e_phoff)
		return;
	/* The load bias: the first PT_LOAD maps offset 0 at base. */
	uint64_t bias = 0;
	int have_bias = 0;
	for (unsigned i = 0; i < eh.e_phnum && !have_bias; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, pg + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD) {
			uint64_t page = ph.p_align > 1 ? ph.p_align : 4096;
			bias = base -
			       ((ph.p_vaddr - ph.p_offset) & ~(page - 1));
			have_bias = 1;
		}
	}
	if (!have_bias)
		return;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, pg + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_filesz == 0)
			continue;
		size_t n = ph.p_filesz < DLT_RC_NOTE_MAX ? ph.p_filesz
							 : DLT_RC_NOTE_MAX;
		uint64_t at = bias + ph.p_vaddr;
		if (at >= base && at - base + n <= (uint64_t)got) {
			if (dlt_rc_note(pg + (at - base), n, e) == 0)
				return;
			continue;
		}
		/* Further into the file: a read of its own, into the
		 * scratch's second half (the headers are done with but for
		 * the next notes, which are read again). */
		uint8_t *nb = pg + sizeof(m->scratch) - DLT_RC_NOTE_MAX;
		if (rd(ctx, nb, at, n) == (ssize_t)n &&
		    dlt_rc_note(nb, n, e) == 0)
			return;
		/* The headers may be overwritten: read them again. */
		if (rd(ctx, pg, base, sizeof(m->scratch)) != got)
			return;
	}
}

void dlt_rc_maps_end(struct dlt_rc_maps *m)
{
	if (m->ll > 0) {
		dlt_rc_line(m);
		m->ll = 0;
	}
	if (m->stack_lo == 0 && m->above_lo != 0 &&
	    m->above_lo - m->sp < DLT_RC_BELOW) {
		m->stack_lo = m->above_lo;
		m->stack_hi = m->above_hi;
	}
}

void dlt_rc_maps_ids(struct dlt_rc_maps *m, dlt_rc_read_fn rd, void *ctx)
{
	for (uint32_t i = 0; i < m->n; i++) {
		if (m->base[i] == 0)
			continue;
		/* Another mapping of the same object (the code split by a
		 * RELRO or a protection change): the same note. */
		if (i > 0 && m->base[i - 1] == m->base[i]) {
			memcpy(m->e[i].build_id, m->e[i - 1].build_id,
			       sizeof(m->e[i].build_id));
			m->e[i].build_id_len = m->e[i - 1].build_id_len;
			continue;
		}
		dlt_rc_build_id(m, m->base[i], &m->e[i], rd, ctx);
	}
}

int dlt_rc_maps_fd(struct dlt_rc_maps *m, int fd, uint64_t sp)
{
	dlt_rc_maps_begin(m, sp);
	ssize_t got;
	int any = 0;
	while ((got = read(fd, m->scratch, sizeof(m->scratch))) > 0) {
		dlt_rc_maps_feed(m, (const char *)m->scratch, (size_t)got);
		any = 1;
	}
	dlt_rc_maps_end(m);
	return any ? 0 : -1;
}

int dlt_rc_maps_find(const struct dlt_rc_maps *m, uint64_t pc)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (pc >= m->e[i].lo && pc < m->e[i].hi)
			return (int)i;
	return -1;
}

uint32_t dlt_rc_stack_want(uint64_t sp, uint64_t hi)
{
	if (hi > sp && hi - sp < DLT_RC_STACK_MAX)
		return (uint32_t)(hi - sp);
	return hi != 0 && hi <= sp ? 0 : DLT_RC_STACK_MAX;
}

uint32_t dlt_rc_stack(dlt_rc_read_fn rd, void *ctx, uint64_t sp, uint64_t hi,
		      void *dst, uint32_t cap, int *more)
{
	uint32_t want = dlt_rc_stack_want(sp, hi);
	if (want > cap)
		want = cap;
	ssize_t got = -1;
	/* A stack whose end is not known may end before 32 KiB: process_vm_
	 * readv stops at the end of what is mapped (a short read), or fails
	 * where the first page is not (then the halves). */
	for (; want >= 64 && got <= 0; want /= 2)
		got = rd(ctx, dst, sp, want);
	uint32_t n = got > 0 ? (uint32_t)got : 0;
	*more = hi == 0 || sp + n < hi;
	return n;
}

/* ---- records ------------------------------------------------------------ */

void dlt_rc_modmap_write(struct dlt_writer *w, struct dlt_tls *t,
			 struct dlt_rc_maps *m, uint64_t ts)
{
	/* The strings before the record: each is a record of its own. */
	for (uint32_t i = 0; i < m->n; i++)
		m->e[i].path = m->path[i][0] ? dlt_str(w, t, m->path[i])
					     : DLT_STR_NONE;
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_modmap) +
				  sizeof(struct dlt_modmap_ent) * m->n);
	struct dlt_rec_modmap *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		return;
	r->h.ts = ts;
	r->n = m->n;
	r->pad = 0;
	memcpy(r->e, m->e, sizeof(struct dlt_modmap_ent) * m->n);
	dlt_rec_commit(r, DLT_REC_MODMAP, m->trunc ? DLT_MODMAP_F_TRUNC : 0,
		       len);
}

struct dlt_rec_rawstack *dlt_rc_raw_begin(struct dlt_writer *w,
					  struct dlt_tls *t, uint64_t sp,
					  uint64_t hi, uint32_t *cap)
{
	*cap = dlt_rc_stack_want(sp, hi);
	uint32_t len = (uint32_t)sizeof(struct dlt_rec_rawstack) + *cap;
	struct dlt_rec_rawstack *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->sp = sp;
	return r;
}

void dlt_rc_raw_end(struct dlt_tls *t, struct dlt_rec_rawstack *r, uint32_t cap,
		    dlt_rc_read_fn rd, void *ctx)
{
	int more = 1;
	r->len = cap ? dlt_rc_stack(rd, ctx, r->sp, r->stack_hi, r->bytes, cap,
				    &more)
		     : 0;
	uint32_t len = (uint32_t)sizeof(*r) + cap;
	len = dlt_rec_shrink(t, r, len, (uint32_t)sizeof(*r) + r->len);
	dlt_rec_commit(r, DLT_REC_RAWSTACK, more ? DLT_RAW_F_TRUNC : 0, len);
}
