/* Helpers shared by the GPU interposition and hang tests (test_gpu_*.c):
 * running a program plainly and under dltrace, its printed calls against
 * its API_CALL records, LIB_FAMILY and value checks by slot name, and the
 * findings of `dltrace-analyze check|hangs --json`.  Traces are read with
 * testutil's tu_trace_read (every record kept, in file order). */
#ifndef DLT_GPUUTIL_H
#define DLT_GPUUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "apinames.h"
#include "fake_paths.h"
#include "testutil.h"

/* How long a program under test may run. */
#define TG_RUN_MS 60000

/* What follows the last slash of p. */
const char *tg_base_name(const char *p);

/* Runs cmd under `dltrace -o dir --` (TG_RUN_MS at most). */
int tg_run_traced(struct tu_proc *p, const char *dir, const char *const cmd[],
		  const char *const env[]);

/* Runs cmd plainly and under `dltrace -o dir`; the runs must match and the
 * plain one must exit with want_exit (-1: any). */
void tg_run_pair(const char *what, const char *const cmd[],
		 const char *const env[], const char *dir, int want_exit,
		 struct tu_proc *plain, struct tu_proc *traced);

/* Copies src into dst, cut to fit. */
void tg_set_line(char *dst, size_t cap, const char *src);

/* CLOCK_REALTIME in nanoseconds. */
uint64_t tg_realtime_ns(void);

/* Sleeps ms milliseconds, through signals. */
void tg_sleep_ms(long ms);

/* An API id's name ("?" for none) and a name's id, from apis.def. */
const char *tg_api_name(uint16_t id);

uint16_t tg_api_id(const char *name);

/* How many values an API_CALL or API_ENTER record carries. */
size_t tg_call_nv(const struct dlt_rec_hdr *h);

/* API_CALL records of one API, in order. */
size_t tg_calls(const struct tu_trace *g, uint16_t id,
		const struct dlt_rec_api_call **out, size_t max);

/* Records of this type. */
size_t tg_count(const struct tu_trace *g, uint16_t type);

/* Prints the API records of a trace, for failure messages. */
void tg_dump_calls(const struct tu_trace *g);

/* The printed calls of out against the API_CALL records of thread tid.
 * Returns the number of calls compared. */
size_t tg_expect_calls(const char *what, const struct tu_trace *g, uint32_t tid,
		       const char *out);

/* Every API_CALL of a function that writes API_ENTER follows its own
 * API_ENTER in the same thread, whose values start the call's values, and
 * every API_ENTER is matched (nothing left in flight).  A function whose
 * values are known before the call (apinames' once) is one API_CALL,
 * written when the call starts and closed when it returns: its API_ENTER
 * exists only when the thread changed chunks during the call.  need:
 * functions that must have been seen so. */
void tg_expect_enter_pairs(const char *what, const struct tu_trace *g,
			   const char *const need[]);

/* The LIB_FAMILY records written after a first call (not those of the
 * versions at load, test_tree.c's). */
const struct dlt_rec_family *tg_family(const struct tu_trace *g, int fam,
				       size_t *count);

/* A value a test expects, by its index name (DLT_FV_..., DLT_V_...); a
 * list ends with TG_WANT_END. */
struct tg_want {
	int slot;
	int64_t value;
};
#define TG_WANT_END   \
	{             \
		-1, 0 \
	}

/* One LIB_FAMILY of this family, from want_path, first found by
 * first_api, with these slots (the others not checked). */
void tg_expect_family(const char *what, const struct tu_trace *g, int fam,
		      const char *want_path, const char *first_api,
		      const struct tg_want *want);

/* Where an API's value of this name is in its records; past the last
 * value when it has none. */
size_t tg_value_index(uint16_t api, const char *value);

/* No NOTE record of g holds text. */
void tg_expect_no_note(const char *what, const struct tu_trace *g,
		       const char *text);

/* dir/name; caller frees. */
char *tg_fake_file(const char *dir, const char *name);

/* The nth API_CALL of name has these values (the others not checked). */
void tg_expect_values(const char *what, const struct tu_trace *g,
		      const char *name, size_t nth, const struct tg_want *want);

/* A number member of a JSON object, or dflt. */
double tg_jnum(const struct tu_json *o, const char *key, double dflt);

/* Both strings there and equal. */
int tg_same_str(const char *a, const char *b);

/* `dltrace-analyze CMD --json` (check or hangs) on every trace in dir,
 * parsed, every finding documented; *rc gets its exit status (0 or 1),
 * *text (when not NULL) the output. */
struct tu_json *tg_analyze_json(const char *cmd, const char *dir, int *rc,
				char **text);

/* Findings of this code; up to max of them in out. */
size_t tg_findings(const struct tu_json *j, const char *code,
		   const struct tu_json **out, size_t max);

/* Versions the fakes are told to report: same major as the build's, so the
 * runtime accepts the driver, and different from the defaults. */
#define TG_RT_VER (DLT_FAKE_CUDART_MAJOR * 1000 + 20)
#define TG_DRV_VER (DLT_FAKE_CUDART_MAJOR * 1000 + 50)

/* LD_LIBRARY_PATH to the fake driver, and the fakes' runtime and driver
 * versions set to TG_RT_VER and TG_DRV_VER; NULL-terminated. */
const char *const *tg_cuda_env(void);
/* The fake NCCL's rendezvous directory rdv, its version 2.28.10 and extra
 * (may be NULL); NULL-terminated. */
const char *const *tg_nccl_env(const char *rdv, const char *extra);

/* Under qemu-user (scripts/cross-arm64.sh sets DLTRACE_TEST_EMULATED),
 * /proc/self/task/TID/syscall shows the emulator's own system call and
 * registers, not the program's: the watchdog cannot see what a thread
 * waits in there.  Why a suite that needs it cannot run, or NULL. */
const char *tg_watchdog_skip(void);

#endif
