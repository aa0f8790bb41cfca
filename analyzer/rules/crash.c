/* CRASH: the process died of a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGTRAP) or of SIGABRT (abort(), a failed assert, C++'s terminate): the
 * signal, its si_code by name, the address, the thread, the innermost
 * frames named on this machine (symbolize.h), and the library the crash is
 * in with what installed it.  An error whether or not a parent carried on:
 * a DataLoader worker's segfault is the job's bug even when the parent
 * only logs it.  A process a signal from another process ended is noted
 * for SIGNAL_SENT (signal_sent.c) instead. */
#include <signal.h>

#include "death.h"
#include "live.h"
#include "rules.h"
#include "sigdeath.h"
#include "stackview.h"
#include "symbolize.h"

/* Frames named in the evidence; the crash site is looked for in all. */
#define DLT_CRASH_SHOWN 12
#define DLT_CRASH_FRAMES 32

static struct dlt_sigdeath *dlt_sigdeaths;
static size_t dlt_nsigdeaths, dlt_capsigdeaths;

void dlt_sigdeath_add(const struct dlt_sigdeath *d)
{
	if (dlt_nsigdeaths && dlt_sigdeaths[0].chk != d->chk)
		dlt_nsigdeaths = 0;
	dlt_sigdeaths = dlt_util_grow(dlt_sigdeaths, &dlt_capsigdeaths,
				      dlt_nsigdeaths, sizeof(*dlt_sigdeaths));
	dlt_sigdeaths[dlt_nsigdeaths++] = *d;
}

const struct dlt_sigdeath *dlt_sigdeath_of(const struct dlt_check *chk,
					   size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < dlt_nsigdeaths; i++) {
		const struct dlt_sigdeath *d = &dlt_sigdeaths[i];
		if (d->chk != chk || d->proc >= chk->nprocs ||
		    chk->procs[d->proc].trace_id != d->trace_id)
			return NULL;
	}
	*n = dlt_nsigdeaths;
	return dlt_sigdeaths;
}

void dlt_sigdeath_clear(void)
{
	free(dlt_sigdeaths);
	dlt_sigdeaths = NULL;
	dlt_nsigdeaths = dlt_capsigdeaths = 0;
}

static void dlt_crash_note_sent(struct dlt_rule_ctx *c,
				const struct dlt_signal_ev *ev)
{
	const struct dlt_process *p = c->p;
	struct dlt_sigdeath d;
	memset(&d, 0, sizeof(d));
	d.chk = c->chk;
	d.proc = c->proc;
	d.trace_id = p->hdr.trace_id;
	d.ts = ev->ts;
	d.signo = ev->signo;
	d.code = ev->code;
	d.sender_pid = ev->sender_pid;
	d.sender_uid = ev->sender_uid;
	d.sender_comm = dlt_check_str(c->chk, ev->sender_comm);
	const struct dlt_signal_ev *fw = dlt_signal_forwarded(p, ev->signo);
	if (fw) {
		d.forwarded = 1;
		d.orig_pid = fw->sender_pid;
		d.orig_uid = fw->sender_uid;
		d.orig_comm = dlt_check_str(c->chk, fw->sender_comm);
	}
	dlt_sigdeath_add(&d);
}

/* Objects a crash passes through on its way to the signal: the frame to
 * name is the first outside them. */
static bool dlt_crash_plumbing(const struct dlt_frame *f)
{
	return dlt_sv_runtime(f->path);
}

/* The frames, named.  Return addresses (every frame but the first) are
 * looked up one byte back, inside the call, so that a call that ends a
 * function names that function. */
static size_t dlt_crash_frames(const struct dlt_process *p,
			       const struct dlt_signal_ev *ev,
			       struct dlt_frame *out, size_t cap)
{
	size_t n = ev->nframes < cap ? ev->nframes : cap;
	for (size_t i = 0; i < n; i++) {
		const struct dlt_sig_frame_ev *fe = &ev->frames[i];
		uint64_t back = i > 0;
		if (dlt_frame_resolve(p, fe->pc - back, ev->ts, &out[i]) != 0)
			dlt_frame_resolve_file(p, fe->pc - back, fe->file,
					       fe->off - back, &out[i]);
		out[i].pc = fe->pc;
		if (out[i].path) {
			out[i].off += back;
			out[i].vaddr += back;
		}
	}
	return n;
}

/* The exact stack (a RAWSTACK unwound here) as the old frames: the site
 * and what the fix needs. */
static void dlt_crash_site_frame(const struct dlt_process *p,
				 const struct dlt_uframe *u,
				 struct dlt_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->pc = u->pc;
	f->path = u->obj;
	f->lib = dlt_lib_of_path(p, u->obj);
	f->vaddr = u->rel;
	snprintf(f->func, sizeof(f->func), "%s", u->func);
	f->off = u->func_off;
	f->source = u->name_src;
}

/* Between the fault and the program's code, a call from Python: through
 * ctypes (libffi, _ctypes), or from an extension module (the site's
 * object, called straight from the interpreter's frames). */
static const char *dlt_crash_from_python(const struct dlt_stack_view *v,
					 size_t site, char *ext, size_t cap)
{
	ext[0] = '\0';
	for (size_t i = 0; i < v->nnat; i++) {
		const char *b = dlt_sv_base(v->nat[i].obj);
		if (strncmp(b, "libffi.", 7) == 0 ||
		    strncmp(b, "_ctypes.", 8) == 0)
			return "ctypes";
		if (i < site || !dlt_sv_interp(&v->nat[i]))
			continue;
		/* The first of the interpreter's frames outside the site: the
		 * site's object is what the interpreter called. */
		if (i > site && v->nat[site].obj &&
		    !dlt_sv_interp(&v->nat[site])) {
			snprintf(ext, cap, "%s", dlt_sv_base(v->nat[site].obj));
			return "extension";
		}
		return NULL;
	}
	return NULL;
}

static void dlt_rule_crash(struct dlt_rule_ctx *c)
{
	const struct dlt_process *p = c->p;
	const struct dlt_signal_ev *ev = dlt_death_signal(p);
	if (ev == NULL)
		return;
	if (dlt_signal_sent_by_other(p, ev)) {
		dlt_crash_note_sent(c, ev);
		return;
	}
	/* A process that raised SIGTERM on itself: TRACE_INCOMPLETE says
	 * how it ended. */
	if (!dlt_signal_is_crash(ev->signo))
		return;
	struct dlt_frame fr[DLT_CRASH_FRAMES];
	size_t nf = 0, site = 0;
	struct dlt_stack_view sv;
	bool exact = ev->raw && ev->map &&
		     dlt_sv_build(ev->map, ev->raw, ev->py_rec, &sv) == 0 &&
		     sv.nnat > 0;
	if (exact) {
		site = dlt_sv_site(&sv);
		nf = sv.nnat < DLT_CRASH_FRAMES ? sv.nnat : DLT_CRASH_FRAMES;
		for (size_t i = 0; i < nf; i++)
			dlt_crash_site_frame(p, &sv.nat[i], &fr[i]);
		if (site >= nf)
			site = 0;
	} else {
		nf = dlt_crash_frames(p, ev, fr, DLT_CRASH_FRAMES);
		while (site < nf && dlt_crash_plumbing(&fr[site]))
			site++;
		if (site == nf)
			site = 0;
	}
	const char *name = dlt_signal_name(ev->signo);
	char code[96], addr[64] = "";
	dlt_signal_code_name(ev->signo, ev->code, code, sizeof(code));
	bool overflow = exact && ev->signo == SIGSEGV &&
			dlt_sv_overflow(ev->raw, ev->addr);
	size_t nrec = 0;
	long rec = overflow ? dlt_sv_recursing(&sv, &nrec) : -1;
	char ext[128] = "";
	const char *frompy =
		exact ? dlt_crash_from_python(&sv, site, ext, sizeof(ext))
		      : NULL;
	/* Where, as prose (no offsets): the frame that faulted, and the
	 * caller to look at when the fault is in the C library's or the
	 * runtime's code. */
	char site_w[400] = "", caller_w[400] = "";
	if (nf) {
		char fb[400];
		if (exact && site > 0 && ev->signo != SIGABRT) {
			dlt_frame_prose(
				dlt_uframe_format(&sv.nat[0], fb, sizeof(fb)),
				site_w, sizeof(site_w));
			dlt_frame_prose(dlt_uframe_format(&sv.nat[site], fb,
							  sizeof(fb)),
					caller_w, sizeof(caller_w));
		} else {
			/* abort() and raise() are how, not where: the
			 * program's frame that called them is. */
			dlt_frame_prose(exact ? dlt_uframe_format(&sv.nat[site],
								  fb,
								  sizeof(fb))
					      : dlt_frame_format(&fr[site], fb,
								 sizeof(fb)),
					site_w, sizeof(site_w));
		}
	}
	/* What Python did: the line that passed a pointer through ctypes,
	 * called an extension, or ran when the crash came. */
	char py_w[640] = "", py_short[320] = "";
	if (ev->py_top)
		snprintf(py_short, sizeof(py_short), ", at %s", ev->py_top);
	if (frompy && ev->py_top && strcmp(frompy, "ctypes") == 0)
		snprintf(py_w, sizeof(py_w),
			 ": an invalid pointer passed from Python through "
			 "ctypes at %s",
			 ev->py_top);
	else if (frompy && ev->py_top)
		snprintf(py_w, sizeof(py_w),
			 ", called by the extension %s from Python at %s", ext,
			 ev->py_top);
	else if (ev->py_top)
		snprintf(py_w, sizeof(py_w), ", from Python at %s", ev->py_top);
	bool fault = ev->code > 0 && ev->signo != SIGABRT;
	if (fault && (ev->signo == SIGSEGV || ev->signo == SIGBUS))
		snprintf(addr, sizeof(addr), " at address 0x%llx",
			 (unsigned long long)ev->addr);
	/* abort() raises SIGABRT on its own thread: SI_TKILL says nothing
	 * a person needs. */
	bool aborted = ev->signo == SIGABRT && !dlt_signal_sent_by_other(p, ev);
	char recb[400] = "", recp[400] = "";
	if (rec >= 0) {
		dlt_uframe_format(&sv.nat[rec], recb, sizeof(recb));
		dlt_frame_prose(recb, recp, sizeof(recp));
	}
	/* The headline: who, what, where, why; "rank 1 (pid 22156) crashed
	 * with SIGSEGV in __strlen_evex (libc.so.6): an invalid pointer or
	 * argument passed from Python through ctypes at train.py:12 in step".
	 * What does not fit in a headline moves to the detail, the caller
	 * first, then the Python words; the detail begins with the signal's
	 * particulars. */
	const struct dlt_check_proc *cp = &c->chk->procs[c->proc];
	char who[128], what[640];
	if (cp->rank >= 0)
		snprintf(who, sizeof(who), "rank %" PRId32 " (pid %" PRIu32 ")",
			 cp->rank, cp->pid);
	else
		snprintf(who, sizeof(who), "pid %" PRIu32 " (%s)", cp->pid,
			 cp->exe ? dlt_basename(cp->exe) : "?");
	char sigw[400];
	if (overflow) {
		snprintf(what, sizeof(what), "%s crashed: stack overflow%s%s",
			 who, rec >= 0 ? ", recursing in " : "", recp);
		snprintf(sigw, sizeof(sigw),
			 "thread %u ran out of stack (SIGSEGV at 0x%llx, "
			 "below its stack)",
			 ev->tid, (unsigned long long)ev->addr);
		/* The recursing function is where. */
		if (rec >= 0)
			site_w[0] = caller_w[0] = '\0';
		if (rec >= 0 || !ev->py_top)
			py_w[0] = '\0';
	} else if (aborted) {
		snprintf(what, sizeof(what), "%s aborted with SIGABRT", who);
		snprintf(sigw, sizeof(sigw),
			 "abort(), a failed assert or C++'s terminate, in "
			 "thread %u",
			 ev->tid);
	} else {
		snprintf(what, sizeof(what), "%s crashed with %s", who,
			 name ? name : "a signal");
		snprintf(sigw, sizeof(sigw), "%s (%s)%s in thread %u",
			 name ? name : "signal", code, addr, ev->tid);
	}
	char head[2048], det[2048];
	/* Less and less: the caller goes first, then the Python words but
	 * the line, then the line. */
	const char *pys[] = {py_w, py_w, py_short, ""};
	int pass = 0;
	for (; pass < 4; pass++) {
		bool caller = pass == 0 && caller_w[0];
		snprintf(head, sizeof(head), "%s%s%s%s%s%s", what,
			 site_w[0] ? " in " : "", site_w,
			 caller ? " called from " : "", caller ? caller_w : "",
			 pys[pass]);
		if (dlt_text_chars(head) <= DLT_HEADLINE_MAX)
			break;
	}
	size_t dl = (size_t)snprintf(det, sizeof(det), "%s", sigw);
	if (pass > 0 && caller_w[0] && dl < sizeof(det))
		dl += (size_t)snprintf(det + dl, sizeof(det) - dl,
				       "; in %s called from %s", site_w,
				       caller_w);
	/* The Python words without the ": " or ", " that joined them. */
	if (pass > 1 && py_w[0] && dl < sizeof(det))
		snprintf(det + dl, sizeof(det) - dl, "; %s", py_w + 2);
	struct dlt_finding *f = dlt_rule_finding(c, DLT_SEV_ERROR, "%s", head);
	dlt_finding_detail(c->chk, f, "%s", det);
	f->ts = ev->ts;
	struct dlt_val *e = f->evidence;
	dlt_obj_int(e, "signal", ev->signo);
	dlt_obj_str(e, "signal_name", name);
	dlt_obj_int(e, "si_code", ev->code);
	dlt_obj_str(e, "si_code_name", code);
	if (fault)
		dlt_obj_strf(e, "address", "0x%llx",
			     (unsigned long long)ev->addr);
	dlt_obj_uint(e, "thread", ev->tid);
	dlt_obj_double(e, "at_s", dlt_rel_s(p, ev->ts));
	dlt_obj_str(e, "handled_by",
		    ev->action == DLT_SIG_ACT_HANDLER ? "the program's handler"
						      : "the default action");
	char hb[1024];
	dlt_obj_str(e, "ended", dlt_end_describe(&p->end, hb, sizeof(hb)));
	struct dlt_val *fa = dlt_obj_array(e, "frames");
	if (exact) {
		/* The merged stack: Python frames in place of the
		 * interpreter's, recursions folded. */
		for (size_t i = 0; i < sv.nrows && i < DLT_CRASH_SHOWN; i++) {
			char rb[340];
			if (sv.rows[i].repeat > 1)
				snprintf(rb, sizeof(rb), "%s (x%u)",
					 sv.rows[i].text, sv.rows[i].repeat);
			else
				snprintf(rb, sizeof(rb), "%s", sv.rows[i].text);
			dlt_arr_str(fa, rb);
		}
		dlt_obj_str(e, "unwound",
			    sv.scanned ? "CFI, then a scan" : "CFI");
		dlt_obj_str(e, "unwind_stop", sv.stop);
		dlt_obj_bool(e, "python_merged", sv.merged);
		if (overflow) {
			dlt_obj_bool(e, "stack_overflow", true);
			if (rec >= 0) {
				dlt_obj_str(e, "recursing", recb);
				dlt_obj_uint(e, "recursing_frames", nrec);
			}
		}
		if (frompy)
			dlt_obj_str(e, "called_from_python", frompy);
	} else {
		for (size_t i = 0; i < nf && i < DLT_CRASH_SHOWN; i++) {
			char fb[400];
			dlt_arr_str(fa,
				    dlt_frame_format(&fr[i], fb, sizeof(fb)));
		}
	}
	{
		char cause[96];
		snprintf(cause, sizeof(cause), "crashed: %s",
			 name ? name : "a signal");
		/* A thread without Python (gloo's, a C++ library's) crashed:
		 * where the main thread was is the program's place. */
		dlt_ev_culprit(e, p->rank, p->hdr.pid,
			       ev->py_top ? ev->py_top : ev->main_py, cause);
		if (ev->main_py)
			dlt_obj_str(e, "main_thread_python_at", ev->main_py);
	}
	dlt_obj_bool(e, "frames_from_stack_scan",
		     exact ? sv.scanned : (ev->flags & DLT_SIG_SCANNED) != 0);
	if (ev->py_why) {
		struct dlt_val *py = dlt_obj_array(e, "python_stack");
		for (uint32_t i = 0; i < ev->npy; i++)
			dlt_arr_str(py, ev->py_frames[i]);
		dlt_obj_str(e, "python_stack_missing",
			    ev->py_why[0] ? ev->py_why : NULL);
	}
	if (overflow) {
		dlt_finding_fix(
			c, f,
			"the thread's stack ran out: %s%s; bound the recursion "
			"(or make it a loop), or give the thread a larger "
			"stack (ulimit -s for the main thread, "
			"pthread_attr_setstacksize or threading.stack_size "
			"for others)",
			rec >= 0 ? recp : "a function",
			rec >= 0 ? " calls itself without end or too deep"
				 : " recursed too deep");
		goto done;
	}
	if (frompy && strcmp(frompy, "ctypes") == 0) {
		dlt_finding_fix(
			c, f,
			"check what Python passes at %s: a pointer given to C "
			"through ctypes must point to live memory of the type "
			"the function expects (declare argtypes and restype; "
			"a Python int is not a pointer, a freed or "
			"garbage-collected buffer is not live)",
			ev->py_top ? ev->py_top : "the ctypes call");
		goto done;
	}
	const struct dlt_lib *lib = nf ? fr[site].lib : NULL;
	const char *path = nf ? fr[site].path : NULL;
	if (path == NULL) {
		dlt_finding_fix(c, f,
				"the crash is in code no recorded library "
				"holds (generated code, or an address the "
				"program jumped to); run it under gdb, or "
				"with core dumps on (ulimit -c unlimited), to "
				"see where");
		goto done;
	}
	struct dlt_val *lo = dlt_obj_object(e, "library");
	struct dlt_identity id;
	memset(&id, 0, sizeof(id));
	if (lib) {
		dlt_ev_lib(lo, lib);
		dlt_lib_identity(lib, &id);
		const struct dlt_reported_version *rv =
			dlt_lib_reported_version(p, lib);
		if (rv)
			dlt_obj_int(lo, "reported_version", rv->version);
	} else {
		/* A forked child's trace lists no libraries: the file as
		 * the process mapped it, read here. */
		dlt_obj_str(lo, "path", path);
		if (dlt_is_this_host(p->host))
			dlt_file_identity(path, &id);
	}
	dlt_ev_identity(lo, &id);
	struct dlt_install in;
	dlt_ctx_install(c, path, &in);
	dlt_ev_install(lo, &in);
	/* Reinstalling only mends a file that is not what its package
	 * installed: a file that is cannot be the cause alone. */
	struct dlt_verify vf;
	dlt_ctx_verify(c, path, &in, &id, &vf);
	dlt_ev_verify(lo, &vf);
	char func[300];
	if (fr[site].func[0])
		snprintf(func, sizeof(func), "%s in ", fr[site].func);
	else
		func[0] = '\0';
	if ((lib && (lib->flags & DLT_LIB_MAIN)) || in.by == DLT_INST_UNKNOWN) {
		dlt_finding_fix(c, f,
				"the crash is in %s%s, the program's own code "
				"or a library no package manager installed: "
				"debug it there (gdb, or a core dump with "
				"ulimit -c unlimited)",
				func, path);
		goto done;
	}
	const char *pkg = in.package[0] ? in.package : "?";
	const char *by = dlt_installer_name(in.by);
	const char *ver = id.version[0] ? " version " : "";
	char cmd[256];
	const char *re = dlt_install_reinstall_cmd(&in, cmd, sizeof(cmd));
	if (vf.verdict == DLT_VERIFY_DIFFERS) {
		dlt_finding_fix(c, f,
				"the crash is in %s%s%s%s: the file differs "
				"from what %s installed (%s mismatch): "
				"reinstall it%s%s%s",
				func, path, ver, id.version, pkg, vf.digest,
				re ? " (" : "", re ? re : "", re ? ")" : "");
		goto done;
	}
	if (vf.verdict == DLT_VERIFY_SAME) {
		dlt_finding_fix(c, f,
				"the crash is in %s%s%s%s, which is as %s "
				"(%s) installed it (%s matches): the cause is "
				"how it is called: check the caller and that "
				"it matches the libraries it is used with "
				"(dltrace-analyze libs), or report the frames "
				"above to its maintainers",
				func, path, ver, id.version, pkg, by,
				vf.digest);
		goto done;
	}
	/* Not known either way: no reinstalling on a guess. */
	dlt_finding_fix(c, f,
			"the crash is in %s%s%s%s, installed by %s (%s): check "
			"that it matches the libraries it is used with "
			"(dltrace-analyze libs), or report the frames above to "
			"its maintainers",
			func, path, ver, id.version, by, pkg);
done:
	if (exact)
		dlt_sv_free(&sv);
}

DLT_RULE(crash, 125, "CRASH", DLT_SEV_ERROR, dlt_rule_crash, NULL,
	 "a process died of a fault or an abort: where, and in which "
	 "library");
