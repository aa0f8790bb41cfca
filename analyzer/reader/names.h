/* Names of the format's values, for output (names.c). */
#ifndef DLTRACE_NAMES_H
#define DLTRACE_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Names, for output. */
const char *dlt_found_via_name(uint32_t via);	 /* "RPATH" ... "UNKNOWN" */
const char *dlt_writer_name(uint32_t writer);	 /* "shim" ..., NULL unknown */
const char *dlt_parent_kind_name(uint32_t kind); /* "none"/"fork"/... */
const char *dlt_note_level_name(uint32_t level); /* "info"/"warn"/"error" */
const char *dlt_signal_name(int sig);		 /* "SIGKILL", or NULL */
/* A RANK's source as the function whose arguments it was
 * ("init_process_group", "_create_c10d_store"), NULL unknown. */
const char *dlt_rank_source_name(uint32_t source);
/* name when it is one of the launchers' rank variables
 * (common/rankvars.h: "RANK", "SLURM_PROCID" ...), as a static string, and
 * *order its place in the order they are believed (0 first); else NULL. */
const char *dlt_rankvar_name(const char *name, int *order);

#define DLT_NAME_LEN 24
/* RTLD_* names of a dlopen mode ("RTLD_NOW", "RTLD_LOCAL", ...; unknown
 * bits as "0x..."), and DLT_LIB_* names ("main", "preload", ...).  Fill at
 * most max names and return how many were filled. */
size_t dlt_rtld_mode_names(int32_t mode, char names[][DLT_NAME_LEN],
			   size_t max);
size_t dlt_lib_flag_names(uint32_t flags, char names[][DLT_NAME_LEN],
			  size_t max);

/* "2024-05-01T12:00:00.123456Z". */
void dlt_format_utc(uint64_t realtime_ns, char *buf, size_t len);
/* Part after the last '/'; NULL gives NULL. */
const char *dlt_basename(const char *path);

#endif
