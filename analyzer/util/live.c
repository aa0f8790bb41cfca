/* Is the process of a trace still running?  Only this machine's /proc can
 * say, and only for a trace of this machine: nothing is attached to,
 * signalled or stopped. */
#define _GNU_SOURCE
#include "live.h"

#include "io.h"
#include "procstat.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t dlt_clock_ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool dlt_is_this_host(const char *host)
{
	char me[256] = "";
	return host && host[0] && gethostname(me, sizeof(me) - 1) == 0 &&
	       strcmp(me, host) == 0;
}

enum dlt_live dlt_live_state(const char *host, uint32_t pid,
			     uint64_t start_mono_ns)
{
	if (pid == 0 || !dlt_is_this_host(host))
		return DLT_LIVE_UNKNOWN;
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (dlt_io_read_small(path, buf, sizeof(buf)) == 0) {
		/* No /proc at all: nothing can be said. */
		return access("/proc/self/stat", R_OK) == 0 ? DLT_LIVE_GONE
							    : DLT_LIVE_UNKNOWN;
	}
	/* starttime is in clock ticks since boot. */
	struct dlt_procstat st;
	if (dlt_procstat_parse(buf, &st) != 0)
		return DLT_LIVE_UNKNOWN;
	char state = st.state;
	unsigned long long ticks = st.starttime;
	long hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		return DLT_LIVE_UNKNOWN;
	uint64_t started_boot =
		(uint64_t)ticks * (1000000000ull / (uint64_t)hz);
	/* The trace's start on the same clock: CLOCK_MONOTONIC stops in a
	 * suspend, the boot clock does not. */
	uint64_t boot = dlt_clock_ns(CLOCK_BOOTTIME);
	uint64_t mono = dlt_clock_ns(CLOCK_MONOTONIC);
	if (boot == 0 || mono == 0)
		return DLT_LIVE_UNKNOWN;
	uint64_t trace_boot = start_mono_ns + (boot - mono);
	/* Two ticks of slack: the start time is counted in ticks. */
	uint64_t slack = 2 * (1000000000ull / (uint64_t)hz);
	if (started_boot > trace_boot + slack)
		return DLT_LIVE_GONE; /* the pid was taken again */
	if (state == 'Z' || state == 'X')
		return DLT_LIVE_ZOMBIE;
	return DLT_LIVE_RUNNING;
}

const char *dlt_live_name(enum dlt_live l)
{
	switch (l) {
	case DLT_LIVE_RUNNING:
		return "running";
	case DLT_LIVE_GONE:
		return "gone";
	case DLT_LIVE_ZOMBIE:
		return "ended, not yet reaped";
	case DLT_LIVE_UNKNOWN:
		break;
	}
	return "unknown (not this machine)";
}
