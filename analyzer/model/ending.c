/* How a process image ended, as the model read it from its records. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "live.h"
#include "model.h"

int dlt_end_exit_code(const struct dlt_end *e)
{
	switch (e->how) {
	case DLT_END_NORMAL:
	case DLT_END_UNDERSCORE:
	case DLT_END_MAIN:
		/* The parent sees the low byte of what exit() was given. */
		return e->status == -1 ? -1 : e->status & 0xff;
	case DLT_END_REAPED:
		return WIFEXITED(e->status) ? WEXITSTATUS(e->status) : -1;
	default:
		return -1;
	}
}

int dlt_end_signal(const struct dlt_end *e)
{
	if (e->how == DLT_END_REAPED && WIFSIGNALED(e->status))
		return WTERMSIG(e->status);
	if (e->how == DLT_END_ABORT)
		return e->status;
	return 0;
}

bool dlt_end_is_failure(const struct dlt_end *e)
{
	switch (e->how) {
	case DLT_END_NONE:
		return true;
	case DLT_END_EXEC:
		return false;
	case DLT_END_NORMAL:
	case DLT_END_UNDERSCORE:
	case DLT_END_MAIN:
		return e->status != -1 && (e->status & 0xff) != 0;
	case DLT_END_REAPED:
		return dlt_end_exit_code(e) != 0;
	case DLT_END_ABORT:
		return true;
	}
	return true;
}

bool dlt_end_handleable(const struct dlt_end *e)
{
	if (e->how != DLT_END_REAPED || e->reaped_by == 0 ||
	    e->own == DLT_END_ABORT || !dlt_end_is_failure(e))
		return false;
	if (WIFEXITED(e->status))
		return true;
	switch (dlt_end_signal(e)) {
	case SIGHUP:
	case SIGINT:
	case SIGPIPE:
	case SIGTERM:
		return true;
	}
	return false;
}

static void dlt_end_describe_own(const struct dlt_end *e, char *buf,
				 size_t len);

const char *dlt_end_describe(const struct dlt_end *e, char *buf, size_t len)
{
	dlt_end_describe_own(e, buf, len);
	/* An exit that answered dltrace's signal (a SIGTERM handler) says
	 * so; a death by it and no end say so above. */
	if (dlt_end_by_dltrace(e) && e->how != DLT_END_NONE &&
	    dlt_end_signal(e) != SIGTERM && dlt_end_signal(e) != SIGKILL) {
		size_t l = strlen(buf);
		if (l < len)
			snprintf(buf + l, len - l,
				 "; after dltrace sent it %s (--hang-timeout)",
				 dlt_death_dltrace_words(e));
	}
	return buf;
}

static void dlt_end_describe_own(const struct dlt_end *e, char *buf, size_t len)
{
	int32_t st = e->status;
	switch (e->how) {
	case DLT_END_NONE: {
		double s = (double)e->seen_for_ns / 1e9;
		if (e->live == DLT_LIVE_RUNNING)
			snprintf(buf, len,
				 "still running (last sign of life %.2f s "
				 "after it started)",
				 s);
		else if (e->dltrace_sig)
			snprintf(buf, len,
				 "ended by dltrace after --hang-timeout (it "
				 "sent %s)%s (last sign of life "
				 "%.2f s after it started)",
				 dlt_death_dltrace_words(e),
				 e->live == DLT_LIVE_ZOMBIE
					 ? "; its parent has not reaped it yet"
					 : "",
				 s);
		else if (e->damaged)
			snprintf(buf, len,
				 "how it ended is not known: no end recorded, "
				 "and its trace is "
				 "damaged at offset %" PRIu64
				 ", where its end may have been lost (last "
				 "sign of life %.2f s after it started)",
				 e->damage_off, s);
		else if (e->live == DLT_LIVE_ZOMBIE)
			snprintf(buf, len,
				 "ended, but its parent has not reaped it yet: "
				 "how is not known (last sign of life %.2f s "
				 "after it started)",
				 s);
		else if (e->live == DLT_LIVE_GONE)
			snprintf(buf, len,
				 "no end recorded and no traced process reaped "
				 "it: killed without warning (SIGKILL, as when "
				 "a whole process group is killed) or crashed; "
				 "last sign of life %.2f s after it started",
				 s);
		else
			snprintf(buf, len,
				 "no end recorded and no traced process reaped "
				 "it: killed without warning (SIGKILL), "
				 "crashed, "
				 "or still running on another machine; last "
				 "sign of life %.2f s after it started",
				 s);
		break;
	}
	case DLT_END_NORMAL:
	case DLT_END_UNDERSCORE: {
		const char *via =
			e->how == DLT_END_UNDERSCORE ? " (_exit)" : "";
		if (e->how == DLT_END_NORMAL && st == -1)
			snprintf(buf, len, "exited (status not seen)");
		else if (st < 0 || st > 255)
			snprintf(buf, len,
				 "exited with status %" PRId32
				 "%s (the parent sees %d)",
				 st, via, st & 0xff);
		else
			snprintf(buf, len, "exited with status %" PRId32 "%s",
				 st, via);
		break;
	}
	case DLT_END_MAIN:
		snprintf(buf, len,
			 "exited with status %d (main returned %" PRId32 ")",
			 st & 0xff, st);
		break;
	case DLT_END_ABORT:
		snprintf(buf, len,
			 "aborted: abort() raised signal %" PRId32 " (SIGABRT)",
			 st);
		break;
	case DLT_END_EXEC:
		if (e->exec_path) {
			/* Room for the path is bounded by buf; a cut path is
			 * still recognisable. */
			snprintf(buf, len, "image replaced by exec of %s",
				 e->exec_path);
		} else {
			snprintf(buf, len,
				 "image replaced by exec (program not "
				 "recorded)");
		}
		break;
	case DLT_END_REAPED: {
		/* What the process's own records add to its parent's view. */
		const char *o = NULL;
		if (e->reaped_by && e->own == DLT_END_MAIN)
			o = "main returned, ";
		else if (e->reaped_by && e->own == DLT_END_ABORT)
			o = "abort() called, ";
		else if (e->reaped_by && e->own == DLT_END_NORMAL)
			o = "exit() called, ";
		else if (e->reaped_by && e->own == DLT_END_UNDERSCORE)
			o = "_exit() called, ";
		char by[192] = "";
		if (e->reaped_by)
			snprintf(by, sizeof(by),
				 ", %sseen by its parent (pid %u)", o ? o : "",
				 e->reaped_by);
		/* A signal dltrace sent after --hang-timeout says so. */
		int ds = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
		if (e->dltrace_sig && (ds == SIGTERM || ds == SIGKILL)) {
			size_t l = strlen(by);
			snprintf(by + l, sizeof(by) - l,
				 "; dltrace sent it after --hang-timeout");
		}
		if (WIFEXITED(st)) {
			snprintf(buf, len, "exited with status %d%s",
				 WEXITSTATUS(st), by);
		} else if (WIFSIGNALED(st)) {
			int sig = WTERMSIG(st);
			const char *name = dlt_signal_name(sig);
			/* "killed by SIGKILL (signal 9)" */
			if (name)
				snprintf(buf, len,
					 "killed by %s (signal %d%s)%s", name,
					 sig,
					 WCOREDUMP(st) ? ", core dumped" : "",
					 by);
			else
				snprintf(buf, len, "killed by signal %d%s%s",
					 sig,
					 WCOREDUMP(st) ? ", core dumped" : "",
					 by);
		} else {
			snprintf(buf, len,
				 "ended with wait status 0x%" PRIx32 "%s",
				 (uint32_t)st, by);
		}
		break;
	}
	default:
		snprintf(buf, len, "ended in an unknown way (%d)", (int)e->how);
	}
}
