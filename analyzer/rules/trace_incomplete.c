/* TRACE_INCOMPLETE: the process was ended by a signal or left no end
 * record (SIGKILL, a crash, still running), its trace is damaged or cut,
 * the tracer turned parts of itself off, or calls were still in progress
 * when the trace ends.  What is in the trace is still right; what is not
 * there cannot be read as "did not happen". */
#include <stdio.h>
#include <string.h>

#include "death.h"
#include "rules.h"

static void dlt_rule_trace_incomplete(struct dlt_rule_ctx *c)
{
	const struct dlt_process *p = c->p;
	const struct dlt_gpu *g = c->g;
	int sig = dlt_end_signal(&p->end);
	bool no_end = p->end.how == DLT_END_NONE;
	size_t notes = 0;
	for (size_t i = 0; i < p->nnotes; i++)
		notes += p->notes[i].level >= DLT_NOTE_WARN;
	/* Format 2.6: records that did not fit the budget were counted in
	 * the header instead (calls past the ring are its business). */
	uint32_t lost = p->hdr.lost_records;
	if (!no_end && sig == 0 && p->nproblems == 0 && notes == 0 &&
	    g->nopens == 0 && lost == 0)
		return;
	/* CRASH or SIGNAL_SENT says what the signal was. */
	const struct dlt_signal_ev *ds = dlt_death_signal(p);
	if (ds &&
	    (dlt_signal_is_crash(ds->signo) ||
	     dlt_signal_sent_by_other(p, ds)) &&
	    p->nproblems == 0 && notes == 0 && g->nopens == 0 && lost == 0)
		return;
	char how[512];
	dlt_end_describe(&p->end, how, sizeof(how));
	char why[1024];
	if (no_end && p->end.damaged)
		snprintf(why, sizeof(why),
			 "the trace is damaged at offset %llu and holds no "
			 "end: how the process ended is not known; what was "
			 "lost may have held its end or a crash and its last "
			 "calls",
			 (unsigned long long)p->end.damage_off);
	else if (p->end.damaged)
		snprintf(why, sizeof(why),
			 "the trace is damaged at offset %llu; its end "
			 "survived (%s), records after the damage in that "
			 "chunk are lost",
			 (unsigned long long)p->end.damage_off, how);
	else if (sig || no_end)
		/* How it ended says why ("killed by SIGKILL (signal 9)"). */
		snprintf(why, sizeof(why), "%s", how);
	else if (lost)
		snprintf(why, sizeof(why),
			 "%u record%s did not fit DLTRACE_MAX_SIZE (%.0f MiB) "
			 "and %s left out",
			 lost, lost == 1 ? "" : "s",
			 (double)p->hdr.alloc_cursor / 1048576.0,
			 lost == 1 ? "was" : "were");
	else if (p->nproblems)
		snprintf(why, sizeof(why),
			 "the trace has %zu problem%s (damage or a cut)",
			 p->nproblems, p->nproblems == 1 ? "" : "s");
	else if (g->nopens)
		snprintf(why, sizeof(why),
			 "%zu call%s had not returned when the trace ends",
			 g->nopens, g->nopens == 1 ? "" : "s");
	else
		snprintf(why, sizeof(why),
			 "the tracer turned part of itself off");
	/* Evidence left out or lost (a full disk, a copy cut short) is a
	 * warning: a gate (--fail-on warning) must see it. */
	struct dlt_finding *f = dlt_rule_finding(
		c, lost || p->end.damaged ? DLT_SEV_WARNING : DLT_SEV_INFO,
		"trace incomplete: %s", why);
	dlt_obj_uint(f->evidence, "lost_records", lost);
	dlt_obj_uint(f->evidence, "lost_calls", p->hdr.lost_calls);
	f->ts = p->end.ts;
	struct dlt_val *ev = f->evidence;
	dlt_obj_str(ev, "ended", how);
	if (sig) {
		dlt_obj_int(ev, "signal", sig);
		dlt_obj_str(ev, "signal_name", dlt_signal_name(sig));
	}
	dlt_obj_bool(ev, "end_recorded", !no_end);
	if (p->end.damaged)
		dlt_obj_uint(ev, "damaged_at", p->end.damage_off);
	else
		dlt_obj_null(ev, "damaged_at");
	struct dlt_val *pr = dlt_obj_array(ev, "problems");
	for (size_t i = 0; i < p->nproblems; i++)
		dlt_arr_str(pr, p->problems[i]);
	struct dlt_val *tn = dlt_obj_array(ev, "tracer_notes");
	for (size_t i = 0; i < p->nnotes; i++)
		if (p->notes[i].level >= DLT_NOTE_WARN)
			dlt_arr_str(tn, p->notes[i].text);
	struct dlt_val *oc = dlt_obj_array(ev, "calls_in_progress");
	uint64_t end = g->last_ts > p->end.ts ? g->last_ts : p->end.ts;
	for (size_t i = 0; i < g->nopens; i++) {
		const struct dlt_gpu_open *o = &g->opens[i];
		const struct dlt_api_desc *a = dlt_api_by_id(o->api);
		struct dlt_val *v = dlt_arr_object(oc);
		dlt_obj_str(v, "function", a ? a->name : NULL);
		dlt_obj_uint(v, "thread", o->tid);
		dlt_obj_double(v, "since_s", dlt_rel_s(p, o->ts));
		dlt_obj_double(v, "for_s",
			       end > o->ts ? (double)(end - o->ts) / 1e9 : 0.0);
		dlt_ev_api_values(v, a, o->v, o->nv);
	}
	if (p->end.damaged && no_end)
		dlt_finding_fix(c, f,
				"the trace is damaged (a disk that filled, a "
				"copy cut short, a file changed by hand): what "
				"it holds before the damage is right; keep the "
				"file for a bug report");
	else if (sig == 9)
		dlt_finding_fix(c, f,
				"OOM_KILL or SIGKILL says what is known of "
				"who killed it, unless dltrace did after "
				"--hang-timeout; what the trace holds up to "
				"the end is complete");
	else if (sig == 9 || no_end)
		dlt_finding_fix(c, f,
				"nothing to fix in the trace: what it holds "
				"up to the end is complete; for a hang, the "
				"calls in progress say where each thread was");
	else if (sig)
		dlt_finding_fix(c, f,
				"the program died of %s: run it under a "
				"debugger or enable core dumps (ulimit -c "
				"unlimited) to see where",
				dlt_signal_name(sig) ? dlt_signal_name(sig)
						     : "a signal");
	else if (lost)
		dlt_finding_fix(c, f,
				"raise DLTRACE_MAX_SIZE: the records left out "
				"(loads, errors, signals, stacks) are the kind "
				"that explain a failure; calls beyond the "
				"budget are summed up, never left out");
	else
		dlt_finding_fix(c, f,
				"see the problems and notes; a trace cut by "
				"DLTRACE_MAX_SIZE needs a larger limit");
}

DLT_RULE(trace_incomplete, 130, "TRACE_INCOMPLETE", DLT_SEV_INFO,
	 dlt_rule_trace_incomplete, NULL,
	 "a process ended by a signal, or its trace is cut short or damaged");
