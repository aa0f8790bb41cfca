/* Names of the format's values, for output. */
#define _GNU_SOURCE
#include "names.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dltrace/format.h"
#include "rankvars.h"

static const char *const dlt_via_names[DLT_VIA_COUNT] = {
	[DLT_VIA_UNKNOWN] = "UNKNOWN",
	[DLT_VIA_RPATH] = "RPATH",
	[DLT_VIA_LD_LIBRARY_PATH] = "LD_LIBRARY_PATH",
	[DLT_VIA_RUNPATH] = "RUNPATH",
	[DLT_VIA_LD_SO_CACHE] = "LD_SO_CACHE",
	[DLT_VIA_DEFAULT] = "DEFAULT",
	[DLT_VIA_ABSOLUTE] = "ABSOLUTE",
	[DLT_VIA_PRELOAD] = "PRELOAD",
	[DLT_VIA_MAIN] = "MAIN",
};

const char *dlt_found_via_name(uint32_t via)
{
	if (via < DLT_VIA_COUNT && dlt_via_names[via])
		return dlt_via_names[via];
	return "UNKNOWN";
}

const char *dlt_writer_name(uint32_t writer)
{
	switch (writer) {
	case DLT_WRITER_SHIM:
		return "shim";
	case DLT_WRITER_AUDIT:
		return "audit";
	case DLT_WRITER_LAUNCHER:
		return "launcher";
	case DLT_WRITER_WATCHER:
		return "watcher";
	}
	return NULL;
}

const char *dlt_parent_kind_name(uint32_t kind)
{
	switch (kind) {
	case DLT_PARENT_NONE:
		return "none";
	case DLT_PARENT_FORK:
		return "fork";
	case DLT_PARENT_EXEC:
		return "exec";
	case DLT_PARENT_WATCHED:
		return "watched";
	}
	return "unknown";
}

const char *dlt_rank_source_name(uint32_t source)
{
	switch (source) {
	case DLT_RANK_FROM_INIT:
		return "init_process_group";
	case DLT_RANK_FROM_STORE:
		return "_create_c10d_store";
	}
	return NULL;
}

const char *dlt_rankvar_name(const char *name, int *order)
{
	static const char *const vars[] = {DLT_RANK_VARS(DLT_RANKVAR_STR)};
	for (size_t i = 0; name && i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strcmp(name, vars[i]) == 0) {
			*order = (int)i;
			return vars[i];
		}
	return NULL;
}

const char *dlt_note_level_name(uint32_t level)
{
	switch (level) {
	case DLT_NOTE_INFO:
		return "info";
	case DLT_NOTE_WARN:
		return "warn";
	case DLT_NOTE_ERROR:
		return "error";
	}
	return "note";
}

/* Linux numbering, which is what the traced machine used; the analyzer may
 * run elsewhere, so the host's <signal.h> is not consulted. */
static const char *const dlt_sig_names[] = {
	NULL,	   "SIGHUP",  "SIGINT",	   "SIGQUIT", "SIGILL",	   "SIGTRAP",
	"SIGABRT", "SIGBUS",  "SIGFPE",	   "SIGKILL", "SIGUSR1",   "SIGSEGV",
	"SIGUSR2", "SIGPIPE", "SIGALRM",   "SIGTERM", "SIGSTKFLT", "SIGCHLD",
	"SIGCONT", "SIGSTOP", "SIGTSTP",   "SIGTTIN", "SIGTTOU",   "SIGURG",
	"SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",  "SIGIO",
	"SIGPWR",  "SIGSYS",
};

const char *dlt_signal_name(int sig)
{
	if (sig > 0 &&
	    (size_t)sig < sizeof(dlt_sig_names) / sizeof(dlt_sig_names[0]))
		return dlt_sig_names[sig];
	return NULL;
}

/* RTLD_* values of glibc on Linux: the trace holds the bits as the traced
 * program passed them, whatever machine reads it. */
#define DLT_RTLD_LAZY 0x1
#define DLT_RTLD_NOW 0x2
#define DLT_RTLD_NOLOAD 0x4
#define DLT_RTLD_DEEPBIND 0x8
#define DLT_RTLD_GLOBAL 0x100
#define DLT_RTLD_NODELETE 0x1000

static size_t dlt_add_name(char names[][DLT_NAME_LEN], size_t n, size_t max,
			   const char *name)
{
	if (n < max)
		snprintf(names[n], DLT_NAME_LEN, "%s", name);
	return n + 1;
}

static size_t dlt_add_unknown_bits(char names[][DLT_NAME_LEN], size_t n,
				   size_t max, uint32_t bits)
{
	for (uint32_t b = 1; b != 0; b <<= 1) {
		if ((bits & b) == 0)
			continue;
		char hex[DLT_NAME_LEN];
		snprintf(hex, sizeof(hex), "0x%" PRIx32, b);
		n = dlt_add_name(names, n, max, hex);
	}
	return n;
}

size_t dlt_rtld_mode_names(int32_t mode, char names[][DLT_NAME_LEN], size_t max)
{
	uint32_t m = (uint32_t)mode;
	size_t n = 0;
	if (m & DLT_RTLD_LAZY)
		n = dlt_add_name(names, n, max, "RTLD_LAZY");
	if (m & DLT_RTLD_NOW)
		n = dlt_add_name(names, n, max, "RTLD_NOW");
	/* RTLD_LOCAL is 0: its absence of RTLD_GLOBAL is what matters. */
	n = dlt_add_name(names, n, max,
			 m & DLT_RTLD_GLOBAL ? "RTLD_GLOBAL" : "RTLD_LOCAL");
	if (m & DLT_RTLD_NOLOAD)
		n = dlt_add_name(names, n, max, "RTLD_NOLOAD");
	if (m & DLT_RTLD_DEEPBIND)
		n = dlt_add_name(names, n, max, "RTLD_DEEPBIND");
	if (m & DLT_RTLD_NODELETE)
		n = dlt_add_name(names, n, max, "RTLD_NODELETE");
	uint32_t known = DLT_RTLD_LAZY | DLT_RTLD_NOW | DLT_RTLD_NOLOAD |
			 DLT_RTLD_DEEPBIND | DLT_RTLD_GLOBAL |
			 DLT_RTLD_NODELETE;
	n = dlt_add_unknown_bits(names, n, max, m & ~known);
	return n < max ? n : max;
}

size_t dlt_lib_flag_names(uint32_t flags, char names[][DLT_NAME_LEN],
			  size_t max)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} tab[] = {
		{DLT_LIB_MAIN, "main"},
		{DLT_LIB_PRELOAD, "preload"},
		{DLT_LIB_DEEPBIND, "deepbind"},
		{DLT_LIB_LOCAL, "local"},
		{DLT_LIB_DLOPEN, "dlopen"},
		{DLT_LIB_TRIED_CUT, "tried_cut"},
		{DLT_LIB_VDSO, "vdso"},
	};
	size_t n = 0;
	uint32_t known = 0;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		known |= tab[i].bit;
		if (flags & tab[i].bit)
			n = dlt_add_name(names, n, max, tab[i].name);
	}
	n = dlt_add_unknown_bits(names, n, max, flags & ~known);
	return n < max ? n : max;
}

void dlt_format_utc(uint64_t realtime_ns, char *buf, size_t len)
{
	time_t sec = (time_t)(realtime_ns / 1000000000u);
	unsigned usec = (unsigned)(realtime_ns % 1000000000u / 1000u);
	struct tm tm;
	char day[64];
	if (gmtime_r(&sec, &tm) == NULL ||
	    strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		snprintf(buf, len, "@%" PRIu64 "ns", realtime_ns);
		return;
	}
	snprintf(buf, len, "%s.%06uZ", day, usec);
}

const char *dlt_basename(const char *path)
{
	if (path == NULL)
		return NULL;
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}
