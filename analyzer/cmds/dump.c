/* "dump": every record of a trace, decoded, in file order.  Meant for
 * debugging dltrace itself, so it shows the raw facts (ids, offsets, flag
 * bits) next to their meaning and hides nothing the reader accepted. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>

#include "apinames.h"
#include "commands.h"
#include "job.h"
#include "model.h"
#include "pyframes.h"

/* Frames of a PYSTACK dump prints: the most a record holds. */
#define DLT_DUMP_PYFRAMES 64

const char dlt_dump_usage[] =
	"usage: dltrace-analyze dump [--run ID] PATH...\n"
	"\n"
	"The file header, then one line per record in file order: offset,\n"
	"thread, writer (shim, audit, launcher), time since the trace started\n"
	"(seconds), record type and its fields.  Records of types this "
	"version\n"
	"does not know are shown as \"type N len L\".  A call written as an\n"
	"8-byte compact entry (format 2.0) is shown as the API_CALL it stands\n"
	"for, marked \"compact\".  An AGG record (format 2.6: a ring chunk\n"
	"summed up) shows the chunk it stands for and each row: API, second,\n"
	"key, count, errors, durations and the histogram's non-empty buckets.\n"
	"\n"
	"  --run ID   only the traces of that run of the launcher (summary\n"
	"             shows each run's identity)\n"
	"\n"
	"PATH is a trace file or a directory of *.dltrace files.  Damage is\n"
	"reported on stderr; the exit status is 2 only when no input could be\n"
	"read at all.\n";

struct dlt_dump {
	FILE *out;
	struct dlt_trace *t;
	uint64_t start;
};

static void dlt_dump_str(struct dlt_dump *d, const char *key, uint32_t id)
{
	fprintf(d->out, " %s=", key);
	if (id == DLT_STR_NONE) {
		fputc('-', d->out);
		return;
	}
	const char *s = dlt_trace_str(d->t, id);
	if (s)
		dlt_fput_quoted(d->out, s);
	else
		fprintf(d->out, "<lost string %" PRIu32 ">", id);
}

static void dlt_dump_names(FILE *out, char names[][DLT_NAME_LEN], size_t n)
{
	if (n == 0)
		fputc('-', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? "|" : "", names[i]);
}

static void dlt_dump_tried(struct dlt_dump *d, const struct dlt_rec_hdr *r,
			   size_t fixed, const struct dlt_tried *tried,
			   uint32_t n)
{
	uint32_t room = (uint32_t)((r->len - fixed) / sizeof(*tried));
	fprintf(d->out, " tried=[");
	for (uint32_t i = 0; i < n && i < room; i++) {
		fprintf(d->out, "%s%s:", i ? " " : "",
			dlt_found_via_name(tried[i].via));
		const char *s = dlt_trace_str(d->t, tried[i].path);
		if (s)
			dlt_fput_quoted(d->out, s);
		else
			fprintf(d->out, "<string %" PRIu32 ">", tried[i].path);
	}
	fputc(']', d->out);
	if (n > room)
		fprintf(d->out,
			" (n_tried %" PRIu32 " but room for %" PRIu32 ")", n,
			room);
}

static void dlt_dump_lib_load(struct dlt_dump *d,
			      const struct dlt_rec_lib_load *r)
{
	FILE *out = d->out;
	char names[40][DLT_NAME_LEN];
	fputs(" flags=", out);
	dlt_dump_names(out, names, dlt_lib_flag_names(r->h.flags, names, 40));
	fprintf(out,
		" obj=0x%" PRIx64 " requester_obj=0x%" PRIx64 " base=0x%" PRIx64
		" lmid=%" PRId64,
		r->obj, r->requester_obj, r->base, r->lmid);
	dlt_dump_str(d, "requested", r->requested);
	dlt_dump_str(d, "requester", r->requester);
	dlt_dump_str(d, "path", r->path);
	dlt_dump_str(d, "realpath", r->realpath);
	dlt_dump_str(d, "soname", r->soname);
	dlt_dump_str(d, "runpath", r->runpath);
	dlt_dump_str(d, "rpath", r->rpath);
	fprintf(out, " found_via=%s", dlt_found_via_name(r->found_via));
	if (r->found_via >= DLT_VIA_COUNT)
		fprintf(out, "(%" PRIu32 ")", r->found_via);
	fprintf(out,
		" dev=%" PRIu64 " ino=%" PRIu64 " size=%" PRIu64
		" mtime_ns=%" PRId64 " build_id=",
		r->dev, r->ino, r->size, r->mtime_ns);
	if (r->build_id_len == 0)
		fputc('-', out);
	for (uint32_t i = 0; i < r->build_id_len && i < sizeof(r->build_id);
	     i++)
		fprintf(out, "%02x", r->build_id[i]);
	if (r->build_id_len > sizeof(r->build_id))
		fprintf(out, "(len %" PRIu32 ")", r->build_id_len);
	dlt_dump_tried(d, &r->h, sizeof(*r), r->tried, r->n_tried);
}

static void dlt_dump_exit(FILE *out, const struct dlt_rec_exit *r)
{
	static const char *const how[] = {NULL,	    "normal", "_exit", "exec",
					  "reaped", "main",   "abort"};
	if (r->h.flags < sizeof(how) / sizeof(how[0]) && how[r->h.flags])
		fprintf(out, " how=%s", how[r->h.flags]);
	else
		fprintf(out, " how=%u", (unsigned)r->h.flags);
	if (r->h.flags == DLT_EXIT_REAPED) {
		fprintf(out, " wait_status=0x%" PRIx32, (uint32_t)r->status);
		struct dlt_end e = {.how = DLT_END_REAPED, .status = r->status};
		char buf[128];
		fprintf(out, " (%s)", dlt_end_describe(&e, buf, sizeof(buf)));
	} else {
		fprintf(out, " status=%" PRId32, r->status);
	}
}

/* A counter or limit of a MEMCG record: "?" unknown, "max" none. */
static void dlt_dump_count(FILE *out, const char *key, uint64_t v)
{
	if (v == DLT_MEMCG_UNKNOWN)
		fprintf(out, " %s=?", key);
	else if (v == DLT_MEMCG_NO_LIMIT)
		fprintf(out, " %s=max", key);
	else
		fprintf(out, " %s=%" PRIu64, key, v);
}

static void dlt_dump_memcg(struct dlt_dump *d, const struct dlt_rec_memcg *r)
{
	FILE *out = d->out;
	uint32_t f = r->h.flags;
	fprintf(out, " %s%s%s subject=%" PRIu32,
		f & DLT_MEMCG_DEATH ? "after-death" : "before",
		f & DLT_MEMCG_OWN ? " own" : "",
		f & DLT_MEMCG_V1   ? " v1"
		: f & DLT_MEMCG_V2 ? " v2"
				   : " no-memcg",
		r->subject);
	size_t room = r->h.len - sizeof(*r);
	if (r->path_len < room && r->path[r->path_len] == '\0') {
		fputs(" cgroup=", out);
		dlt_fput_text(out, r->path, "");
	} else {
		fputs(" cgroup=?", out);
	}
	dlt_dump_count(out, "oom_kill", r->oom_kills);
	dlt_dump_count(out, "limit", r->limit);
	dlt_dump_count(out, "machine_oom_kill", r->sys_oom_kills);
	if (f & DLT_MEMCG_DEATH)
		fprintf(out, " wait_status=0x%" PRIx32 " max_rss_kb=%" PRIu64,
			(uint32_t)r->status, r->max_rss_kb);
}

static void dlt_dump_time(FILE *out, uint64_t ts, uint64_t start)
{
	if (ts == 0) {
		/* Records whose time does not matter (ARG, ENV) carry 0. */
		fprintf(out, "%14s", "-");
		return;
	}
	char sign = ts >= start ? '+' : '-';
	uint64_t d = ts >= start ? ts - start : start - ts;
	char buf[40];
	snprintf(buf, sizeof(buf), "%c%" PRIu64 ".%06" PRIu64, sign,
		 d / 1000000000u, d % 1000000000u / 1000u);
	fprintf(out, "%14s", buf);
}

/* The values of an API_CALL or API_ENTER, named as apis.def names them. */
static void dlt_dump_vals(FILE *out, const struct dlt_api_desc *a,
			  const uint64_t *v, size_t n)
{
	char buf[32];
	for (size_t i = 0; i < n; i++) {
		const char *label = dlt_api_value_label(a, i, buf, sizeof(buf));
		if (dlt_label_is_handle(label))
			fprintf(out, " %s=0x%" PRIx64, label, v[i]);
		else
			fprintf(out, " %s=%" PRId64, label, (int64_t)v[i]);
	}
}

static void dlt_dump_api(FILE *out, const struct dlt_rec_hdr *h)
{
	const struct dlt_api_desc *a = dlt_api_by_id(h->flags);
	if (a)
		fprintf(out, " %s", a->name);
	else
		fprintf(out, " api#%u", (unsigned)h->flags);
	if (h->type == DLT_REC_API_CALL) {
		const struct dlt_rec_api_call *r = (const void *)h;
		fprintf(out, " ret=%" PRId32 " dur=%" PRIu64 "ns", r->ret,
			dlt_dur_ns(r->dur));
		dlt_dump_vals(out, a, r->v, (h->len - sizeof(*r)) / 8);
	} else {
		const struct dlt_rec_api_enter *r = (const void *)h;
		dlt_dump_vals(out, a, r->v, (h->len - sizeof(*r)) / 8);
	}
}

static void dlt_dump_dims(FILE *out, const char *key, const int32_t *v, int n,
			  int max)
{
	if (n < 0)
		n = 0;
	if (n > max)
		n = max;
	fprintf(out, " %s=[", key);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%" PRId32, i ? "," : "", v[i]);
	fputc(']', out);
}

static void dlt_dump_gpu(struct dlt_dump *d, const struct dlt_rec_hdr *h)
{
	FILE *out = d->out;
	switch (h->type) {
	case DLT_REC_API_CALL:
	case DLT_REC_API_ENTER:
		dlt_dump_api(out, h);
		break;
	case DLT_REC_LIB_FAMILY: {
		const struct dlt_rec_family *r = (const void *)h;
		const struct dlt_api_desc *a = dlt_api_by_id((uint16_t)r->api);
		static const char *const src[] = {"first call", "load", "file"};
		fprintf(out, " %s", dlt_family_name(h->flags));
		dlt_dump_str(d, "path", r->path);
		if (r->source < 3)
			fprintf(out, " from=%s", src[r->source]);
		else
			fprintf(out, " from=%u", (unsigned)r->source);
		if (r->source == DLT_FAMSRC_CALL)
			fprintf(out, " first=%s", a ? a->name : "?");
		dlt_dump_str(d, "kernel_driver", r->kdrv);
		/* Each slot by its name; an absent one as "-". */
		for (size_t i = 0; i < 8; i++) {
			const char *n = dlt_family_slot_name(h->flags, i);
			if (n == NULL && r->v[i] == DLT_VERSION_ABSENT)
				continue;
			if (n)
				fprintf(out, " %s=", n);
			else
				fprintf(out, " v%zu=", i);
			if (r->v[i] == DLT_VERSION_ABSENT)
				fputc('-', out);
			else
				fprintf(out, "%" PRId64, r->v[i]);
		}
		break;
	}
	case DLT_REC_STATIC_RUNTIME: {
		const struct dlt_rec_static_rt *r = (const void *)h;
		dlt_dump_str(d, "object", r->object);
		dlt_dump_str(d, "via", r->symbol);
		break;
	}
	case DLT_REC_CONV_PROBLEM: {
		const struct dlt_rec_conv_problem *r = (const void *)h;
		fprintf(out,
			" id=%016" PRIx64 " dtype=%" PRId32 " compute=%" PRId32
			" math=%" PRId32 " mode=%" PRId32 " groups=%" PRId32,
			r->id, r->data_type, r->compute_type, r->math_type,
			r->mode, r->groups);
		dlt_dump_dims(out, "x", r->x, r->nb_dims, 8);
		dlt_dump_dims(out, "w", r->w, r->nb_dims, 8);
		dlt_dump_dims(out, "y", r->y, r->nb_dims, 8);
		dlt_dump_dims(out, "pad", r->pad, r->conv_dims, 6);
		dlt_dump_dims(out, "stride", r->stride, r->conv_dims, 6);
		dlt_dump_dims(out, "dilation", r->dilation, r->conv_dims, 6);
		break;
	}
	case DLT_REC_ALGO_RESULT: {
		const struct dlt_rec_algo_result *r = (const void *)h;
		const struct dlt_api_desc *a = dlt_api_by_id(h->flags);
		uint64_t room = (h->len - sizeof(*r)) / sizeof(r->c[0]);
		uint32_t n = r->n < room ? r->n : (uint32_t)room;
		fprintf(out, " %s problem=%016" PRIx64 " status=%" PRId32,
			a ? a->name : "?", r->problem, r->status);
		for (uint32_t i = 0; i < n; i++)
			fprintf(out,
				" [algo=%" PRId32 " status=%" PRId32
				" time=%.3fms mem=%" PRIu64 " det=%" PRId32
				" math=%" PRId32 "]",
				r->c[i].algo, r->c[i].status,
				(double)r->c[i].time_ms, r->c[i].memory,
				r->c[i].determinism, r->c[i].math_type);
		break;
	}
	case DLT_REC_STALL: {
		const struct dlt_rec_stall *r = (const void *)h;
		fprintf(out,
			" tid=%" PRIu32 " syscall=%" PRId32
			" state=%c fd=%" PRId32
			" since=%+.6f dur=%.3fs ended=%u",
			r->tid, r->syscall, r->state ? r->state : '?', r->fd,
			d->start
				? (double)((int64_t)(r->since - d->start)) / 1e9
				: 0.0,
			(double)r->dur_ns / 1e9, (unsigned)r->ended);
		dlt_dump_str(d, "wchan", r->wchan);
		dlt_dump_str(d, "wait", r->detail);
		break;
	}
	case DLT_REC_STACK: {
		const struct dlt_rec_stack *r = (const void *)h;
		uint32_t room = (h->len - sizeof(*r)) / 4;
		uint32_t n = r->n < room ? r->n : room;
		fprintf(out, " tid=%" PRIu32 " pc=0x%" PRIx64, r->tid, r->pc);
		for (uint32_t i = 0; i < n; i++)
			dlt_dump_str(d, "frame", r->frames[i]);
		break;
	}
	case DLT_REC_MODMAP: {
		const struct dlt_rec_modmap *r = (const void *)h;
		uint32_t n = dlt_modmap_count(r);
		fprintf(out, " mappings=%" PRIu32 "%s", r->n,
			(h->flags & DLT_MODMAP_F_TRUNC) ? " (cut)" : "");
		for (uint32_t i = 0; i < n; i++) {
			fprintf(out,
				" [0x%" PRIx64 "-0x%" PRIx64 " off=0x%" PRIx64,
				r->e[i].lo, r->e[i].hi, r->e[i].off);
			dlt_dump_str(d, "path", r->e[i].path);
			fputs("]", out);
		}
		break;
	}
	case DLT_REC_RAWSTACK: {
		const struct dlt_rec_rawstack *r = (const void *)h;
		int pcr = r->arch == DLT_ARCH_AARCH64 ? DLT_RAW_REG_PC_AARCH64
						      : DLT_RAW_REG_PC_X86_64;
		fprintf(out,
			" tid=%" PRIu32
			" why=%s arch=%u registers=%d pc=0x%" PRIx64
			" sp=0x%" PRIx64 " stack=%" PRIu32 " bytes%s",
			r->tid,
			r->why == DLT_RAW_CRASH	  ? "crash"
			: r->why == DLT_RAW_STALL ? "stall"
						  : "?",
			(unsigned)r->arch, __builtin_popcountll(r->regs_known),
			r->regs[pcr], r->sp, r->len,
			(h->flags & DLT_RAW_F_TRUNC) ? " (more)" : "");
		break;
	}
	case DLT_REC_PYSTACK: {
		const struct dlt_rec_pystack *r = (const void *)h;
		struct dlt_pyframe_view f[DLT_DUMP_PYFRAMES];
		size_t n = dlt_pyframes(r, f, DLT_DUMP_PYFRAMES);
		char text[512];
		fprintf(out, " tid=%" PRIu32 " python=%u.%u depth=%" PRIu32,
			r->tid, (unsigned)(r->py_version >> 24),
			(unsigned)((r->py_version >> 16) & 0xff), r->depth);
		dlt_pyframes_why(r, text, sizeof(text));
		if (text[0])
			fprintf(out, " why=\"%s\"", text);
		for (size_t i = 0; i < n; i++) {
			dlt_pyframe_text(&f[i], text, sizeof(text));
			fprintf(out, " frame=\"%s\"", text);
		}
		break;
	}
	case DLT_REC_SOCK: {
		const struct dlt_rec_sock *r = (const void *)h;
		static const char *const ops[] = {"?", "connect", "bind",
						  "accept", "listen"};
		fprintf(out,
			" %s fd=%" PRId32 " ret=%" PRId32 " errno=%" PRId32,
			h->flags < 5 ? ops[h->flags] : "?", r->fd, r->ret,
			r->err);
		dlt_dump_str(d, "addr", r->addr);
		fprintf(out, " repeat=%" PRIu32, r->repeat);
		break;
	}
	case DLT_REC_SOCK_ENDS: {
		const struct dlt_rec_sock_ends *r = (const void *)h;
		fprintf(out, " %s fd=%" PRId32,
			h->flags == DLT_SOCK_ACCEPT ? "accept" : "connect",
			r->fd);
		dlt_dump_str(d, "local", r->local);
		dlt_dump_str(d, "peer", r->peer);
		break;
	}
	case DLT_REC_BK_FINALIZE: {
		const struct dlt_rec_bk_finalize *r = (const void *)h;
		uint64_t room = (h->len - sizeof(*r)) / sizeof(r->knobs[0]);
		uint32_t n = r->n_knobs < room ? r->n_knobs : (uint32_t)room;
		fprintf(out,
			" desc_type=%u desc=0x%" PRIx64 " status=%" PRId32
			" engine=%" PRId32 " op=%" PRId32
			" problem=%016" PRIx64,
			(unsigned)h->flags, r->desc, r->status, r->engine,
			r->op, r->problem);
		for (uint32_t i = 0; i < n; i++)
			fprintf(out, " knob%" PRId64 "=%" PRId64,
				r->knobs[i].type, r->knobs[i].value);
		break;
	}
	}
}

/* A ring chunk summed up (format 2.6): which chunk, then its rows, one
 * per API, key and second, as the record has them. */
static void dlt_dump_agg(struct dlt_dump *d, const struct dlt_rec_agg *r)
{
	FILE *out = d->out;
	uint64_t room = (r->h.len - sizeof(*r)) / sizeof(r->rows[0]);
	uint32_t n = r->n < room ? r->n : (uint32_t)room;
	fprintf(out,
		" chunk_off=%" PRIu64 " seq=%" PRIu32 " tid=%" PRIu32
		" first=%+.6f last=%+.6f",
		r->chunk_off, r->chunk_seq, r->tid,
		(double)(int64_t)(r->first_ts - d->start) / 1e9,
		(double)(int64_t)(r->last_ts - d->start) / 1e9);
	fprintf(out, " calls=%" PRIu32 " rows=%" PRIu32 "%s", r->calls, r->n,
		n < r->n ? " (cut)" : "");
	/* Rows wider than a second: a thread that called seldom. */
	if (r->span_s > 1)
		fprintf(out, " span=%" PRIu32 "s", r->span_s);
	for (uint32_t i = 0; i < n; i++) {
		const struct dlt_agg_row *w = &r->rows[i];
		const struct dlt_api_desc *a = dlt_api_by_id(w->api);
		fputs(" [", out);
		if (a)
			fputs(a->name, out);
		else
			fprintf(out, "api#%u", (unsigned)w->api);
		fprintf(out,
			" second=%" PRIu32 " key=0x%" PRIx64 " count=%" PRIu32
			" errors=%" PRIu32 " total=%" PRIu64 "ns min=%" PRIu64
			"ns max=%" PRIu64 "ns hist=",
			w->interval, w->key, w->count, w->errors, w->total_ns,
			w->min_ns, w->max_ns);
		/* Buckets that hold calls, by index: most are empty. */
		bool any = false;
		for (unsigned b = 0; b < DLT_AGG_HIST; b++)
			if (w->hist[b]) {
				fprintf(out, "%s%u:%" PRIu32, any ? "," : "", b,
					w->hist[b]);
				any = true;
			}
		fputs(any ? "]" : "-]", out);
	}
}

static int dlt_dump_rec(void *ctx, const struct dlt_rec_view *v)
{
	struct dlt_dump *d = ctx;
	FILE *out = d->out;
	const struct dlt_rec_hdr *h = v->rec;
	const char *writer = dlt_writer_name(v->writer);
	fprintf(out, "%10" PRIu64 " %7" PRIu32 " ", v->offset, v->tid);
	if (writer)
		fprintf(out, "%-8s ", writer);
	else
		fprintf(out, "w%-7" PRIu32 " ", v->writer);
	dlt_dump_time(out, h->ts, d->start);
	const char *type = dlt_rec_type_name(h->type);
	if (type == NULL) {
		fprintf(out, " type %u len %" PRIu32 " flags 0x%x\n",
			(unsigned)h->type, h->len, (unsigned)h->flags);
		return 0;
	}
	fprintf(out, " %-10s", type);
	char names[40][DLT_NAME_LEN];
	switch (h->type) {
	case DLT_REC_PROC: {
		const struct dlt_rec_proc *r = (const void *)h;
		dlt_dump_str(d, "host", r->host);
		dlt_dump_str(d, "exe", r->exe);
		dlt_dump_str(d, "cwd", r->cwd);
		fprintf(out,
			" rank=%" PRId32 " world_size=%" PRId32
			" argc=%" PRIu32,
			r->rank, r->world_size, r->argc);
		break;
	}
	case DLT_REC_ARG: {
		const struct dlt_rec_arg *r = (const void *)h;
		fprintf(out, " index=%" PRIu32, r->index);
		dlt_dump_str(d, "arg", r->str);
		if (h->flags & 1)
			fputs(" (cut)", out);
		break;
	}
	case DLT_REC_ENV: {
		const struct dlt_rec_env *r = (const void *)h;
		dlt_dump_str(d, "name", r->name);
		dlt_dump_str(d, "value", r->value);
		if (h->flags & 1)
			fputs(" (redacted)", out);
		break;
	}
	case DLT_REC_NOTE: {
		const struct dlt_rec_note *r = (const void *)h;
		fprintf(out, " level=%s", dlt_note_level_name(h->flags));
		dlt_dump_str(d, "text", r->text);
		break;
	}
	case DLT_REC_LIB_LOAD:
		dlt_dump_lib_load(d, (const void *)h);
		break;
	case DLT_REC_LIB_FAIL: {
		const struct dlt_rec_lib_fail *r = (const void *)h;
		fputs(" flags=", out);
		dlt_dump_names(out, names,
			       dlt_lib_flag_names(h->flags, names, 40));
		fprintf(out, " requester_obj=0x%" PRIx64, r->requester_obj);
		dlt_dump_str(d, "requested", r->requested);
		dlt_dump_str(d, "requester", r->requester);
		dlt_dump_tried(d, h, sizeof(*r), r->tried, r->n_tried);
		break;
	}
	case DLT_REC_LIB_UNLOAD: {
		const struct dlt_rec_lib_unload *r = (const void *)h;
		fprintf(out, " obj=0x%" PRIx64 "%s", r->obj,
			h->flags & 1 ? " (load failed after mapping)" : "");
		break;
	}
	case DLT_REC_DLOPEN: {
		const struct dlt_rec_dlopen *r = (const void *)h;
		dlt_dump_str(d, "name", r->name);
		fprintf(out, " mode=0x%" PRIx32 "(", (uint32_t)r->mode);
		dlt_dump_names(out, names,
			       dlt_rtld_mode_names(r->mode, names, 40));
		fprintf(out, ") caller=0x%" PRIx64, r->caller);
		dlt_dump_str(d, "caller_obj", r->caller_obj);
		break;
	}
	case DLT_REC_DLERROR: {
		const struct dlt_rec_dlerror *r = (const void *)h;
		dlt_dump_str(d, "text", r->text);
		break;
	}
	case DLT_REC_EXIT:
		dlt_dump_exit(out, (const void *)h);
		break;
	case DLT_REC_FORK: {
		const struct dlt_rec_fork *r = (const void *)h;
		fprintf(out, " child_pid=%" PRIu32, r->child_pid);
		break;
	}
	case DLT_REC_REAP: {
		static const char *const call[] = {NULL, "wait", "waitpid",
						   "wait4", "waitid"};
		const struct dlt_rec_reap *r = (const void *)h;
		struct dlt_end e = {.how = DLT_END_REAPED, .status = r->status};
		char buf[128];
		fprintf(out, " child_pid=%" PRIu32, r->pid);
		if (h->flags < sizeof(call) / sizeof(call[0]) && call[h->flags])
			fprintf(out, " by=%s", call[h->flags]);
		else
			fprintf(out, " by=%u", (unsigned)h->flags);
		fprintf(out, " wait_status=0x%" PRIx32 " (%s)",
			(uint32_t)r->status,
			dlt_end_describe(&e, buf, sizeof(buf)));
		if (h->len >= sizeof(*r))
			fprintf(out, " max_rss_kb=%" PRIu64, r->max_rss_kb);
		break;
	}
	case DLT_REC_MEMCG:
		dlt_dump_memcg(d, (const void *)h);
		break;
	case DLT_REC_KILL: {
		const struct dlt_rec_kill *r = (const void *)h;
		const char *n = dlt_signal_name(r->signal);
		fprintf(out, " pid=%" PRIu32 " signal=%" PRId32 " (%s)%s",
			r->pid, r->signal, n ? n : "?",
			h->flags == DLT_KILL_HANG_TIMEOUT ? " by=--hang-timeout"
							  : "");
		if (r->err)
			fprintf(out, " failed err=%" PRId32 " (%s)", r->err,
				strerror(r->err));
		break;
	}
	case DLT_REC_RANK: {
		const struct dlt_rec_rank *r = (const void *)h;
		const char *src = dlt_rank_source_name(r->source);
		fprintf(out, " rank=%" PRId32 " world_size=%" PRId32, r->rank,
			r->world_size);
		if (src)
			fprintf(out, " source=%s", src);
		else
			fprintf(out, " source=%" PRIu32, r->source);
		fprintf(out, " tid=%" PRIu32, r->tid);
		break;
	}
	case DLT_REC_EXEC: {
		const struct dlt_rec_exec *r = (const void *)h;
		dlt_dump_str(d, "path", r->path);
		if (h->flags & 1)
			fprintf(out, " failed err=%" PRId32 " (%s)", r->err,
				strerror(r->err));
		break;
	}
	case DLT_REC_API_CALL:
	case DLT_REC_API_ENTER:
	case DLT_REC_LIB_FAMILY:
	case DLT_REC_STATIC_RUNTIME:
	case DLT_REC_CONV_PROBLEM:
	case DLT_REC_ALGO_RESULT:
	case DLT_REC_BK_FINALIZE:
	case DLT_REC_STALL:
	case DLT_REC_STACK:
	case DLT_REC_MODMAP:
	case DLT_REC_RAWSTACK:
	case DLT_REC_PYSTACK:
	case DLT_REC_SOCK:
	case DLT_REC_SOCK_ENDS:
		dlt_dump_gpu(d, h);
		if (v->compact)
			fputs(" compact", out);
		break;
	case DLT_REC_SYSTEM: {
		const struct dlt_rec_system *r = (const void *)h;
		dlt_dump_str(d, "os", r->os);
		dlt_dump_str(d, "kernel", r->kernel);
		dlt_dump_str(d, "glibc", r->glibc);
		dlt_dump_str(d, "machine", r->machine);
		break;
	}
	case DLT_REC_RUNTIME_VERSION: {
		const struct dlt_rec_runtime_version *r = (const void *)h;
		fprintf(out, " %s",
			h->flags == DLT_RUNTIME_PYTHON	? "python"
			: h->flags == DLT_RUNTIME_TORCH ? "torch"
							: "?");
		dlt_dump_str(d, "version", r->version);
		dlt_dump_str(d, "path", r->path);
		break;
	}
	case DLT_REC_SIGNAL: {
		const struct dlt_rec_signal *r = (const void *)h;
		uint32_t room = (h->len - sizeof(*r)) / sizeof(r->frames[0]);
		uint32_t n = r->n < room ? r->n : room;
		const char *name = dlt_signal_name(r->signo);
		fprintf(out,
			" %s%s signo=%" PRId32 " (%s) code=%" PRId32
			" addr=0x%" PRIx64 " tid=%" PRIu32 " action=%s",
			h->flags & DLT_SIG_FORWARDED ? "forwarded" : "received",
			h->flags & DLT_SIG_SCANNED ? " scanned" : "", r->signo,
			name ? name : "?", r->code, r->addr, r->tid,
			r->action == DLT_SIG_ACT_DEFAULT   ? "default"
			: r->action == DLT_SIG_ACT_HANDLER ? "handler"
							   : "-");
		if (r->sender_pid)
			fprintf(out,
				" sender_pid=%" PRId32 " sender_uid=%" PRIu32
				" sender_comm=\"%.16s\"",
				r->sender_pid, r->sender_uid, r->sender_comm);
		for (uint32_t i = 0; i < n; i++) {
			fprintf(out, " frame=0x%" PRIx64, r->frames[i].pc);
			if (r->frames[i].obj) {
				dlt_dump_str(d, "", r->frames[i].obj);
				fprintf(out, "+0x%" PRIx64, r->frames[i].off);
			}
		}
		break;
	}
	case DLT_REC_AGG:
		dlt_dump_agg(d, (const void *)h);
		break;
	case DLT_REC_MARK: {
		const struct dlt_rec_mark *r = (const void *)h;
		fprintf(out,
			" id=%" PRIu32 " aux=%" PRIu32 " value=%" PRIu64
			" (0x%" PRIx64 ")",
			r->id, r->aux, r->value, r->value);
		break;
	}
	default:
		fprintf(out, " len=%" PRIu32 " flags=0x%x", h->len,
			(unsigned)h->flags);
	}
	fputc('\n', out);
	return 0;
}

static void dlt_dump_header(FILE *out, const char *path,
			    const struct dlt_file_header *h, uint64_t bytes)
{
	char when[64];
	fputs("trace ", out);
	dlt_fput_text(out, path, "");
	fprintf(out,
		"\n  format %u.%u  header_size %" PRIu32 "  chunk_size %" PRIu32
		"  data_offset %" PRIu64 "  alloc_cursor %" PRIu64
		"  file_size %" PRIu64 "\n",
		(unsigned)h->version_major, (unsigned)h->version_minor,
		h->header_size, h->chunk_size, h->data_offset, h->alloc_cursor,
		bytes);
	fprintf(out,
		"  pid %" PRIu32 "  ppid %" PRIu32 "  exec_seq %" PRIu32
		"  trace_id 0x%016" PRIx64 "  parent_trace_id 0x%016" PRIx64
		" (%s)\n",
		h->pid, h->ppid, h->exec_seq, h->trace_id, h->parent_trace_id,
		dlt_parent_kind_name(h->parent_kind));
	dlt_format_utc(h->start_realtime_ns, when, sizeof(when));
	fprintf(out,
		"  start %s  realtime_ns %" PRIu64 "  monotonic_ns %" PRIu64
		"\n",
		when, h->start_realtime_ns, h->start_monotonic_ns);
	fprintf(out, "  features 0x%" PRIx64 "%s%s%s%s%s%s%s\n", h->features,
		h->features & DLT_FEAT_AUDIT ? " audit" : "",
		h->features & DLT_FEAT_PRELOAD ? " preload" : "",
		h->features & DLT_FEAT_ARGV_REDACTED ? " argv_redacted" : "",
		h->features & DLT_FEAT_NO_LOCK ? " no_lock" : "",
		h->features & DLT_FEAT_WATCHER ? " watcher" : "",
		h->features & DLT_FEAT_WATCH ? " watch" : "",
		h->features & DLT_FEAT_RING ? " ring" : "");
	/* Zero in traces before 2.1 (and 1.3): no run, no heartbeat. */
	fprintf(out, "  run_id 0x%016" PRIx64 "  alive_ns %" PRIu64, h->run_id,
		h->alive_ns);
	if (h->alive_ns >= h->start_monotonic_ns && h->alive_ns)
		fprintf(out, " (+%.6f)",
			(double)(h->alive_ns - h->start_monotonic_ns) / 1e9);
	if (h->rss_peak_kb)
		fprintf(out, "  rss_peak_kb %" PRIu64, h->rss_peak_kb);
	/* Zero before 2.6, and in any trace that kept everything. */
	if (h->lost_calls || h->lost_records)
		fprintf(out, "  lost_calls %" PRIu32 "  lost_records %" PRIu32,
			h->lost_calls, h->lost_records);
	fputc('\n', out);
	fprintf(out, "%10s %7s %-8s %14s %s\n", "offset", "tid", "writer",
		"time", "record");
}

int dlt_cmd_dump(int argc, char **argv)
{
	int npaths;
	const char *run = NULL;
	const struct dlt_flag_opt opts[] = {{"--run", NULL, &run}};
	int rc = dlt_cmd_args("dump", dlt_dump_usage, argc, argv, opts, 1,
			      &npaths);
	if (rc >= 0)
		return rc;
	struct dlt_job j;
	/* Each file as it is: a companion with its own header, which says
	 * what it is. */
	const struct dlt_job_opts how = {.companions_apart = true};
	rc = dlt_cmd_job("dump", run, &how, npaths, argv, &j);
	if (rc >= 0)
		return rc;
	for (size_t i = 0; i < j.ntraces; i++) {
		const char *path = j.traces[i].path;
		struct dlt_trace *t = dlt_job_take(&j, i);
		if (i)
			fputc('\n', stdout);
		const struct dlt_file_header *h = dlt_trace_header(t);
		struct dlt_trace_stats st;
		dlt_trace_stats(t, &st);
		dlt_dump_header(stdout, path, h, st.bytes);
		struct dlt_dump d = {stdout, t, h->start_monotonic_ns};
		dlt_trace_foreach(t, dlt_dump_rec, &d);
		dlt_trace_stats(t, &st);
		fprintf(stdout,
			"%" PRIu64 " records in %" PRIu64 " chunks, %" PRIu64
			" of unknown types\n",
			st.records, st.chunks, st.unknown);
		/* Problems are known once the records have been walked. */
		fflush(stdout);
		for (size_t k = 0; k < dlt_trace_problem_count(t); k++)
			fprintf(stderr, "dltrace-analyze: %s: %s\n", path,
				dlt_trace_problem(t, k));
		dlt_trace_close(t);
	}
	dlt_job_close(&j);
	return DLT_EXIT_OK;
}
