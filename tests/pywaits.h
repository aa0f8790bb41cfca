/* The Python script whose threads wait at known lines
 * (tests/py/pystack_waits.py), and what their stacks must be (pywaits.c):
 * shared by the shim's test (test_pystack.c) and the watcher's
 * (test_pyremote.c). */
#ifndef DLT_TEST_PYWAITS_H
#define DLT_TEST_PYWAITS_H

#include <stddef.h>
#include <stdint.h>

#include "dltrace/format.h"

#define PW_SCRIPT DLT_TEST_SRC "/tests/py/pystack_waits.py"

/* The line of the script that holds marker ("# MAIN_SLEEP"), -1 none. */
int pw_script_line(const char *marker);
/* The thread a stack is of: 'm' the main thread (its tid is main_tid),
 * 'w' the worker, 'd' the deep one, '?' none of them. */
char pw_which_thread(const struct dlt_rec_pystack *r, uint32_t main_tid);
/* frame is "<PW_SCRIPT>:<line> in <func>" (line 0: any line). */
int pw_is_frame(const char *frame, int line, const char *func);
/* The frames of a PYSTACK as text, innermost first; how many. */
size_t pw_rec_frames(const struct dlt_rec_pystack *r, char out[][1024],
		     size_t cap);
/* Failed checks, with where in their text, unless the frames are those of
 * the main thread, the worker, the deep thread (depth: its PYSTACK's). */
void pw_expect_main(char fr[][1024], size_t n, const char *where);
void pw_expect_worker(char fr[][1024], size_t n, const char *where);
/* Failed checks unless the main thread's PYSTACK r marks as entered from
 * C exactly the frames C entered: every frame before 3.11; from 3.11
 * middle (called by map) and the module. */
void pw_expect_main_entries(const struct dlt_rec_pystack *r, const char *where);
void pw_expect_deep(char fr[][1024], size_t n, uint32_t depth,
		    const char *where);

/* Interpreter py's minor version (sys.version_info[1]), -1 when it
 * cannot be asked. */
int pw_python_minor(const char *py);

#endif
