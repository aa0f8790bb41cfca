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

/* Running constructors, with the lock held. */
static const char *const dlt_ll_ctor[] = {"!call_init", "!_dl_init", NULL};

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

/* The frame before (inside) the first that runs constructors: the
 * constructor.  "libfoo.so!init_plugin+0x1d" → buf.  0 when found. */
static int dlt_ll_ctor_frame(const char *stack, char *buf, size_t cap)
{
	const char *prev = NULL, *cur = stack;
	while (cur && *cur) {
		const char *end = strstr(cur, " < ");
		size_t len = end ? (size_t)(end - cur) : strlen(cur);
		char frame[384];
		snprintf(frame, sizeof(frame), "%.*s", (int)len, cur);
		if (dlt_ll_has(frame, dlt_ll_ctor)) {
			if (prev == NULL)
				return -1;
			const char *pend = strstr(prev, " < ");
			size_t pl = pend ? (size_t)(pend - prev) : strlen(prev);
			snprintf(buf, cap, "%.*s", (int)pl, prev);
			return 0;
		}
		prev = cur;
		cur = end ? end + 3 : NULL;
	}
	return -1;
}

/* "libfoo.so!init_plugin+0x1d" → "init_plugin" in libfoo.so's. */
static void dlt_ll_ctor_text(const char *frame, char *buf, size_t cap)
{
	const char *bang = strchr(frame, '!');
	if (bang == NULL) {
		snprintf(buf, cap, "a constructor at %s", frame);
		return;
	}
	const char *plus = strchr(bang, '+');
	size_t fl = plus ? (size_t)(plus - bang - 1) : strlen(bang + 1);
	snprintf(buf, cap, "%.*s's constructor %.*s", (int)(bang - frame),
		 frame, (int)fl, bang + 1);
}

bool dlt_loader_lock_stall(const struct dlt_hang_stall *s)
{
	return !s->ended && (dlt_ll_has(s->stack, dlt_ll_takers) ||
			     dlt_ll_has(s->stack, dlt_ll_ctor));
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
			if (!s->ended && dlt_ll_has(s->stack, dlt_ll_ctor) &&
			    dlt_ll_ctor_frame(s->stack, ctor, sizeof(ctor)) ==
				    0)
				holder = s;
		}
		for (size_t k = 0; k < hp->nstalls; k++) {
			const struct dlt_hang_stall *s = &hp->stalls[k];
			if (s == holder || s->ended ||
			    !dlt_ll_has(s->stack, dlt_ll_takers) ||
			    dlt_ll_has(s->stack, dlt_ll_ctor))
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
					"%" PRIu32 " holds while it runs %s: "
					"%s",
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
