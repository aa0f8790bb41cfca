/* Traces about a process and its watcher's companion (companion.h), written
 * the way the watchdog writes its records (shim/watchdog.c's
 * dlt_wd_report and dlt_wd_stack, shim/pystack.c's dlt_pystack_record),
 * but through a writer about another process with its own thread state,
 * as the watcher outside the process does. */
#define _GNU_SOURCE
#include "companion.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/* Large: off the stack. */
static struct dlt_writer tc_w;

static void tc_note(struct dlt_tls *t, const char *text)
{
	dlt_note(&tc_w, t, 0, text);
}

int tc_make_process(const char *dir, uint32_t pid, int rank, char *path,
		    size_t cap)
{
	struct dlt_open_params p = {.dir = dir,
				    .host = "unit-host",
				    .rank = rank,
				    .pid = (pid_t)pid,
				    .ppid = 1,
				    .parent_kind = DLT_PARENT_NONE,
				    .features = DLT_FEAT_PRELOAD};
	if (dlt_writer_create(&tc_w, &p) != 0)
		return -1;
	struct dlt_tls t;
	memset(&t, 0, sizeof(t));
	uint32_t host = dlt_str(&tc_w, &t, "unit-host");
	uint32_t exe = dlt_str(&tc_w, &t, "/usr/bin/python3");
	uint32_t cwd = dlt_str(&tc_w, &t, "/srv/job");
	struct dlt_rec_proc *r = dlt_rec_reserve(&tc_w, &t, sizeof(*r));
	if (r) {
		r->h.ts = dlt_now_ns();
		r->host = host;
		r->exe = exe;
		r->cwd = cwd;
		r->rank = rank;
		r->world_size = 2;
		r->argc = 0;
		dlt_rec_commit(r, DLT_REC_PROC, 0, sizeof(*r));
	}
	tc_note(&t, "the process's own note");
	snprintf(path, cap, "%s", tc_w.path);
	dlt_writer_close(&tc_w, &t);
	return 0;
}

/* Host and rank from a trace's name: HOST.PID.SEQ[.rRANK]...dltrace. */
static void tc_name_parts(const char *path, char *host, size_t cap, int *rank)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strcspn(b, ".");
	snprintf(host, cap, "%.*s", (int)n, b);
	*rank = -1;
	const char *r = strstr(b, ".r");
	if (r && r[2] >= '0' && r[2] <= '9')
		*rank = atoi(r + 2);
}

static void tc_stall(struct dlt_tls *t, uint32_t tid, uint64_t since,
		     uint64_t dur)
{
	uint32_t ws = dlt_str(&tc_w, t, TC_WCHAN);
	uint32_t ds = dlt_str(&tc_w, t, TC_DETAIL);
	struct dlt_rec_stall *r = dlt_rec_reserve(&tc_w, t, sizeof(*r));
	if (r == NULL)
		return;
	memset(r, 0, sizeof(*r));
	r->h.ts = since + dur;
	r->tid = tid;
	r->syscall = 202; /* futex */
	r->args[0] = 0x7f00;
	r->since = since;
	r->dur_ns = dur;
	r->wchan = ws;
	r->detail = ds;
	r->fd = -1;
	r->state = 'S';
	dlt_rec_commit(r, DLT_REC_STALL, 0, sizeof(*r));
}

static void tc_stack(struct dlt_tls *t, uint32_t tid, uint64_t ts)
{
	uint32_t frames[2] = {dlt_str(&tc_w, t, TC_FRAME0),
			      dlt_str(&tc_w, t, TC_FRAME1)};
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_stack) + 4 * 2);
	struct dlt_rec_stack *r = dlt_rec_reserve(&tc_w, t, len);
	if (r == NULL)
		return;
	r->h.ts = ts;
	r->tid = tid;
	r->n = 2;
	r->pc = 0x7f0000001000ull;
	memcpy(r->frames, frames, sizeof(frames));
	dlt_rec_commit(r, DLT_REC_STACK, 0, len);
}

static void tc_pystack(struct dlt_tls *t, uint32_t tid, uint64_t ts)
{
	size_t fl = strlen(TC_PYFILE), gl = strlen(TC_PYFUNC);
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_pystack) +
				  sizeof(struct dlt_pyframe) + fl + gl);
	struct dlt_rec_pystack *r = dlt_rec_reserve(&tc_w, t, len);
	if (r == NULL)
		return;
	r->h.ts = ts;
	r->tid = tid;
	r->n = 1;
	r->reason = DLT_PYSTACK_OK;
	r->py_version = 0x030b04f0;
	r->depth = 1;
	r->addr = 0;
	r->frames[0] =
		(struct dlt_pyframe){TC_PYLINE, (uint16_t)fl, (uint16_t)gl};
	char *text = (char *)&r->frames[1];
	memcpy(text, TC_PYFILE, fl);
	memcpy(text + fl, TC_PYFUNC, gl);
	memset(text + fl + gl, 0, dlt_rec_round(len) - len);
	dlt_rec_commit(r, DLT_REC_PYSTACK, 0, len);
}

int tc_make_companion(const char *trace_path, char *out, size_t cap)
{
	struct dlt_file_header h;
	int fd = open(trace_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = pread(fd, &h, sizeof(h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(h))
		return -1;
	char dir[4096], host[256];
	snprintf(dir, sizeof(dir), "%s", trace_path);
	char *slash = strrchr(dir, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	int rank;
	tc_name_parts(trace_path, host, sizeof(host), &rank);
	struct dlt_open_params p = {.dir = dir,
				    .host = host,
				    .rank = rank,
				    .pid = (pid_t)h.pid,
				    .ppid = (pid_t)h.ppid,
				    .exec_seq = h.exec_seq,
				    .run_id = h.run_id,
				    .parent_trace_id = h.trace_id,
				    .parent_kind = DLT_PARENT_WATCHED,
				    .features = DLT_FEAT_WATCHER,
				    .str_base = DLT_STR_WATCHER,
				    .writer_kind = DLT_WRITER_WATCHER,
				    .name_suffix = ".watch",
				    .start_realtime_ns = h.start_realtime_ns,
				    .start_monotonic_ns = h.start_monotonic_ns};
	if (dlt_writer_create(&tc_w, &p) != 0)
		return -1;
	struct dlt_tls t;
	memset(&t, 0, sizeof(t));
	tc_note(&t, TC_NOTE);
	uint64_t since = h.start_monotonic_ns + 1000000000ull;
	uint64_t dur = 30000000000ull;
	tc_stall(&t, h.pid, since, dur);
	tc_stack(&t, h.pid, since + dur);
	tc_pystack(&t, h.pid, since + dur);
	tc_w.hdr->alive_ns = h.start_monotonic_ns + TC_ALIVE_AFTER_NS;
	tc_w.hdr->rss_peak_kb = TC_RSS_KB;
	snprintf(out, cap, "%s", tc_w.path);
	dlt_writer_close(&tc_w, &t);
	return 0;
}
