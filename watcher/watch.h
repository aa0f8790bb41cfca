/* The watcher: hang watching from outside the traced processes (watch.c,
 * docs/design.md "The watcher").  The launcher runs one for its run; a
 * run without the launcher gets one per host and trace directory
 * (`dltrace --watch DIR`), started by the first process that asks to be
 * watched. */
#ifndef DLTRACE_WATCH_H
#define DLTRACE_WATCH_H

#include <stddef.h>
#include <stdint.h>

struct dlt_watcher;

struct dlt_watch_opts {
	const char *dir; /* the trace directory */
	/* Watch the traces of this launcher run only; 0: those made without
	 * a launcher (run_id 0). */
	uint64_t run_id;
};

/* NULL with the reason in err when the directory cannot be read. */
struct dlt_watcher *dlt_watcher_new(const struct dlt_watch_opts *o, char *err,
				    size_t cap);

/* One look at every process of the directory that asked to be watched:
 * new traces found, waits followed, heartbeats and peak memory stored.
 * snapshot: every waiting thread is recorded now, whatever the threshold
 * (the launcher's --hang-timeout).  Returns how many processes of the
 * directory are alive (watched or not). */
int dlt_watcher_look(struct dlt_watcher *wt, int snapshot);

/* How long to sleep between looks: the smallest threshold of the watched
 * processes over 5, between 100 ms and 1 s. */
uint64_t dlt_watcher_tick_ns(const struct dlt_watcher *wt);

/* Ends every companion (cut to its records, unmapped) and frees. */
void dlt_watcher_free(struct dlt_watcher *wt);

/* `dltrace --watch DIR`: the host's watcher of a run without the
 * launcher.  Detaches (its first process returns at once), takes the
 * host's watch lock in DIR (another watcher holds it: returns), looks
 * until no traced process of the directory has been alive for 10 s.
 * Returns the exit status. */
int dlt_watcher_daemon(const char *dir);

#endif
