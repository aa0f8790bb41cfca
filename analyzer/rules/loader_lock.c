/* LOADER_LOCK: a thread waits for the dynamic loader's lock (inside
 * dlopen, dlsym, dladdr, dl_iterate_phdr ...), and the thread that holds
 * it runs a library's constructor that does not return: a plugin whose
 * constructor waits for another thread, sleeps, or initialises CUDA; or a
 * forked worker whose parent forked while another thread held the lock
 * (nobody holds it in the child, and it is never given back).  Read off
 * the stall stacks unwound offline (stackview.h): the waiter has the
 * loader's entry points in its stack, the holder ld.so's call_init or
 * _dl_init, with the constructor the frame it called.  The holder's and
 * the waiter's stalls are this finding's, not STALL's. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"

/* Calls that take the loader's lock (glibc's dl_load_lock or its
 * rtld lock), as stack text names them ("object!function+0x..."). */
static const char *const dlt_ll_takers[] = {"!_dl_open",
					    "!dlopen",
					    "!__dlopen",
					    "!dlmopen",
					    "!dlclose",
					    "!__dlclose",
					    "!_dl_close",
					    "!dl_iterate_phdr",
					    "!__dl_iterate_phdr",
					    "!_dl_find_object",
					    "!dladdr",
					    "!_dl_addr",
					    "!__libc_dlopen_mode",
					    "!dlsym",
					    "!_dl_sym",
					    NULL};

static bool dlt_ll_has(const char *stack, const char *const *names)
{
	for (; *names; names++) {
		const char *p = strstr(stack, *names);
		/* A whole name: "!dlopen+" or "!dlopen" at a frame's end,
		 * not "!dlopen_doit". */
		while (p) {
			char c = p[strlen(*names)];
			if (c == '+' || c == ' ' || c == '\0')
				return true;
			p = strstr(p + 1, *names);
		}
	}
	return false;
}

/* The object of a frame's text ("libc.so.6!sleep+0x3a",
 * "ld-2.31.so+0x1139") is prefix, followed by '.', '-', '!' or '+'. */
static bool dlt_ll_obj_is(const char *frame, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len > n && strncmp(frame, prefix, n) == 0 &&
	       (frame[n] == '.' || frame[n] == '-' || frame[n] == '!' ||
		frame[n] == '+');
}

/* The dynamic loader itself (ld-linux-x86-64.so.2, ld-2.31.so). */
static bool dlt_ll_is_ld(const char *f, size_t len)
{
	return dlt_ll_obj_is(f, len, "ld-linux-x86-64") ||
	       dlt_ll_obj_is(f, len, "ld-linux-aarch64") ||
	       dlt_ll_obj_is(f, len, "ld-linux") || dlt_ll_obj_is(f, len, "ld");
}

/* The C library's own objects, which the loader also calls (its
 * exception handling, IFUNC resolvers), and dltrace's. */
static bool dlt_ll_is_sys(const char *f, size_t len)
{
	static const char *const sys[] = {"libc", "libpthread", "libdl",
					  "libdltrace", "libdltrace_audit"};
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (dlt_ll_obj_is(f, len, sys[i]))
			return true;
	return false;
}

/* The code the loader runs with its lock held: the innermost frame of
 * another library whose caller is the loader (its constructor from
 * call_init, or an IFUNC resolver), told by the objects alone, so that it
 * is found where the loader has no symbols (glibc 2.31's ld-2.31.so is
 * stripped).  "libfoo.so!init_plugin+0x1d" into buf; 0 when found. */
static int dlt_ll_ctor_frame(const char *stack, char *buf, size_t cap)
{
	const char *cur = stack;
	while (cur && *cur) {
		const char *end = strstr(cur, " < ");
		size_t len = end ? (size_t)(end - cur) : strlen(cur);
		const char *next = end ? end + 3 : NULL;
		if (next && !dlt_ll_is_ld(cur, len) &&
		    !dlt_ll_is_sys(cur, len)) {
			const char *nend = strstr(next, " < ");
			size_t nlen =
				nend ? (size_t)(nend - next) : strlen(next);
			if (dlt_ll_is_ld(next, nlen)) {
				snprintf(buf, cap, "%.*s", (int)len, cur);
				return 0;
			}
		}
		cur = next;
	}
	return -1;
}

/* "libfoo.so!init_plugin+0x1d" → "libfoo.so's constructor init_plugin";
 * unnamed, "libfoo.so's code at +0x1139 (a constructor)". */
static void dlt_ll_ctor_text(const char *frame, char *buf, size_t cap)
{
	const char *bang = strchr(frame, '!');
	if (bang == NULL) {
		const char *plus = strchr(frame, '+');
		snprintf(buf, cap, "%.*s's code at %s (a constructor)",
			 plus ? (int)(plus - frame) : (int)strlen(frame), frame,
			 plus ? plus : "?");
		return;
	}
	const char *plus = strchr(bang, '+');
	size_t fl = plus ? (size_t)(plus - bang - 1) : strlen(bang + 1);
	snprintf(buf, cap, "%.*s's constructor %.*s", (int)(bang - frame),
		 frame, (int)fl, bang + 1);
}

/* A thread that holds the loader's lock running another library's code:
 * the constructor's frame into ctor (cap bytes; NULL: not wanted). */
static bool dlt_ll_holder(const struct dlt_hang_stall *s, char *ctor,
			  size_t cap)
{
	char tmp[384];
	if (ctor == NULL) {
		ctor = tmp;
		cap = sizeof(tmp);
	}
	return !s->ended && dlt_ll_ctor_frame(s->stack, ctor, cap) == 0;
}

/* A thread that waits for the loader's lock: in one of its entry points
 * (or, unnamed, in the loader's code) and blocked on a futex, running no
 * other library's code under it. */
static bool dlt_ll_waiter(const struct dlt_hang_stall *s)
{
	if (s->ended || dlt_ll_holder(s, NULL, 0))
		return false;
	if (dlt_ll_has(s->stack, dlt_ll_takers))
		return true;
	if (s->syscall != 202 /* futex */)
		return false;
	for (const char *cur = s->stack; cur && *cur;) {
		const char *end = strstr(cur, " < ");
		size_t len = end ? (size_t)(end - cur) : strlen(cur);
		if (dlt_ll_is_ld(cur, len))
			return true;
		cur = end ? end + 3 : NULL;
	}
	return false;
}

bool dlt_loader_lock_stall(const struct dlt_hang_stall *s)
{
	return dlt_ll_waiter(s) || dlt_ll_holder(s, NULL, 0);
}

static void dlt_rule_loader_lock(struct dlt_job_ctx *c)
{
	enum dlt_severity sev = c->completed ? DLT_SEV_INFO : DLT_SEV_ERROR;
	for (size_t i = 0; i < c->n; i++) {
		const struct dlt_hang_proc *hp = c->procs[i];
		const struct dlt_hang_stall *holder = NULL;
		char ctor[384] = "";
		for (size_t k = 0; k < hp->nstalls && holder == NULL; k++) {
			const struct dlt_hang_stall *s = &hp->stalls[k];
			if (dlt_ll_holder(s, ctor, sizeof(ctor)))
				holder = s;
		}
		for (size_t k = 0; k < hp->nstalls; k++) {
			const struct dlt_hang_stall *s = &hp->stalls[k];
			if (s == holder || !dlt_ll_waiter(s))
				continue;
			char hw[512] = "", ct[512] = "";
			struct dlt_finding *f;
			if (holder) {
				dlt_hang_wait_text(holder, hw, sizeof(hw));
				dlt_ll_ctor_text(ctor, ct, sizeof(ct));
				f = dlt_job_finding(
					c, i, sev,
					"thread %" PRIu32 " waits %.1f s for "
					"the loader's lock, which thread "
					"%" PRIu32 " holds while it runs %s; "
					"the holder is %s",
					s->tid, (double)s->dur_ns / 1e9,
					holder->tid, ct, hw);
			} else {
				f = dlt_job_finding(
					c, i, sev,
					"thread %" PRIu32 " waits %.1f s for "
					"the loader's lock, and no thread of "
					"the process runs a constructor: the "
					"lock's holder is gone (a thread that "
					"ended holding it, or a fork taken "
					"while another thread held it)",
					s->tid, (double)s->dur_ns / 1e9);
			}
			f->ts = s->since;
			struct dlt_val *w =
				dlt_obj_object(f->evidence, "waiter");
			dlt_ev_hang_stall(w, hp, s);
			if (holder) {
				struct dlt_val *h =
					dlt_obj_object(f->evidence, "holder");
				dlt_ev_hang_stall(h, hp, holder);
				dlt_obj_str(f->evidence, "constructor", ctor);
				dlt_job_fix(
					c, f,
					"a constructor runs with the loader's "
					"lock held, so every thread that loads "
					"a library or looks up a symbol waits "
					"for it: make %s return without "
					"waiting (no sleeps, no waits for "
					"other threads, no CUDA or NCCL "
					"initialisation in a constructor: do "
					"that on first use)",
					ct);
			} else {
				dlt_job_fix(c, f,
					    "in a forked worker, load "
					    "libraries and initialise CUDA in "
					    "the parent before the fork or "
					    "only after an exec (the spawn or "
					    "forkserver start methods); no "
					    "thread should fork while another "
					    "loads a library");
			}
		}
	}
}

DLT_RULE(loader_lock, 145, "LOADER_LOCK", DLT_SEV_ERROR, NULL,
	 dlt_rule_loader_lock,
	 "a thread waits for the dynamic loader's lock, held by a library "
	 "constructor that does not return");
