/* Readings of the memory cgroup (common/memcg.c, the MEMCG record).  A
 * reading opens four files (about 170 us on a loaded 2-core VM, 50 of
 * them /proc/vmstat): none is taken at start,
 * where every process of a tree would pay for it, but before a process
 * starts its first child, when it reaps a child that SIGKILL ended, and
 * in the watchdog's thread.  The analyzer compares a reading taken before
 * a death with one taken after it (docs/findings.md, OOM_KILL). */
#include "oom.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memcg.h"
#include "state.h"

static _Atomic int dlt_oom_before_taken;

static void dlt_oom_take(uint16_t flags, pid_t subject, int status,
			 uint64_t max_rss_kb)
{
	struct dlt_writer *w = dlt_writer_on();
	/* A vfork child shares the parent's memory under another pid. */
	if (w == NULL || w->pid != getpid())
		return;
	int saved = errno;
	struct dlt_memcg m;
	dlt_memcg_read(&dlt_memcg_system, &m);
	dlt_memcg_record(w, &dlt_tls, flags, (uint32_t)subject, status,
			 max_rss_kb, &m, 0);
	errno = saved;
}

void dlt_oom_before_child(void)
{
	/* A forked child inherits the flag: its parent's reading, in the
	 * same cgroup, is its "before" too, and the child's page of it is
	 * not copied by a store. */
	if (atomic_load_explicit(&dlt_oom_before_taken, memory_order_relaxed) ||
	    atomic_exchange(&dlt_oom_before_taken, 1))
		return;
	dlt_oom_take(DLT_MEMCG_START | DLT_MEMCG_OWN, getpid(), 0, 0);
}

void dlt_oom_after_kill(pid_t child, int status, uint64_t max_rss_kb)
{
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		return;
	dlt_oom_take(DLT_MEMCG_DEATH, child, status, max_rss_kb);
}

void dlt_oom_own(void)
{
	dlt_oom_take(DLT_MEMCG_START | DLT_MEMCG_OWN, getpid(), 0, 0);
}
