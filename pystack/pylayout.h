/* Where CPython keeps what a stack walk reads, per minor version: the
 * offsets of the fields pywalk.c follows from _PyRuntime to a line
 * number.  Data only, so that tests/test_pylayout.c can compile against
 * each installed CPython's own headers and compare every entry. */
#ifndef DLTRACE_PYLAYOUT_H
#define DLTRACE_PYLAYOUT_H

#include <stdint.h>

/* One entry per field read: its name, and what it is in the headers. */
#define DLT_PY_FIELDS(X)                                                     \
	X(rt_interp_head)   /* _PyRuntimeState.interpreters.head */          \
	X(is_next)	    /* PyInterpreterState.next */                    \
	X(is_threads_head)  /* .tstate_head; .threads.head since 3.12 */     \
	X(ts_next)	    /* PyThreadState.next */                         \
	X(ts_frame)	    /* .frame; .cframe 3.11-3.12; .current_frame */  \
	X(ts_thread_id)	    /* .thread_id: a pthread_t */                    \
	X(ts_native_tid)    /* .native_thread_id (3.11+), else 0 */          \
	X(cf_current_frame) /* _PyCFrame.current_frame (3.11-3.12) */        \
	X(fr_back)	    /* f_back; _PyInterpreterFrame.previous */       \
	X(fr_code)	    /* f_code; f_executable in 3.13 */               \
	X(fr_lasti)	    /* PyFrameObject.f_lasti (3.8-3.10) */           \
	X(fr_instr)	    /* prev_instr; instr_ptr in 3.13 (3.11+) */      \
	X(fr_owner)	    /* _PyInterpreterFrame.owner (3.11+) */          \
	X(fr_entry)	    /* _PyInterpreterFrame.is_entry (3.11 only) */   \
	X(co_filename)	    /* PyCodeObject.co_filename */                   \
	X(co_name)	    /* .co_name */                                   \
	X(co_firstlineno)   /* .co_firstlineno (an int) */                   \
	X(co_linetable)	    /* .co_lnotab (3.8-3.9); .co_linetable */        \
	X(co_code)	    /* .co_code_adaptive (3.11+) */                  \
	X(ob_type)	    /* PyObject.ob_type */                           \
	X(bytes_size)	    /* PyVarObject.ob_size of a bytes object */      \
	X(bytes_data)	    /* PyBytesObject.ob_sval */                      \
	X(str_length)	    /* PyASCIIObject.length */                       \
	X(str_state)	    /* PyASCIIObject.state (bit fields) */           \
	X(str_ascii_data)   /* sizeof(PyASCIIObject): compact ASCII text */  \
	X(str_compact_data) /* sizeof(PyCompactUnicodeObject) */             \
	X(owner_cstack)	    /* FRAME_OWNED_BY_CSTACK (3.12+), else 0xffff */ \
	X(fr_localsplus)    /* f_localsplus; localsplus (3.11+) */           \
	X(co_varnames)	    /* co_varnames; co_localsplusnames (3.11+) */    \
	X(tuple_size)	    /* PyTupleObject's ob_size */                    \
	X(tuple_items)	    /* PyTupleObject.ob_item */                      \
	X(long_tag)	    /* PyLongObject's ob_size; lv_tag (3.12+) */     \
	X(long_digit)	    /* PyLongObject's ob_digit */                    \
	X(type_flags)	    /* PyTypeObject.tp_flags */

enum dlt_py_field {
#define DLT_X(name) DLT_PYF_##name,
	DLT_PY_FIELDS(DLT_X)
#undef DLT_X
		DLT_PYF_COUNT
};

/* How a code object maps an instruction to a line. */
enum dlt_py_lines {
	DLT_PY_LNOTAB = 1,    /* 3.8-3.9: byte pairs, f_lasti in bytes */
	DLT_PY_LINETABLE = 2, /* 3.10: byte pairs, f_lasti in code units */
	DLT_PY_LOCATIONS = 3, /* 3.11+: the location table */
};

/* PyASCIIObject.state on a little-endian GCC ABI: interned:2, kind:3,
 * compact:1, ascii:1 from bit 0 in every supported version. */
#define DLT_PY_STATE_KIND_SHIFT 2
#define DLT_PY_STATE_COMPACT 0x20u
#define DLT_PY_STATE_ASCII 0x40u

/* An int: its type's tp_flags has Py_TPFLAGS_LONG_SUBCLASS (int and
 * bool), its digits are PyLong_SHIFT bits wide (30 on LP64 builds).
 * Its size and sign: before 3.12 ob_size, digits with the sign of the
 * number; from 3.12 lv_tag, the digits from bit 3 and the sign in the low
 * two bits (0 positive, 1 zero, 2 negative). */
#define DLT_PY_TPFLAGS_LONG_SUBCLASS (1ul << 24)
#define DLT_PY_LONG_SHIFT 30
#define DLT_PY_LONG_TAG_VERSION 0x030c

struct dlt_py_layout {
	uint16_t version; /* 0x030b for 3.11 */
	uint16_t lines;	  /* enum dlt_py_lines */
	uint16_t off[DLT_PYF_COUNT];
};

/* 3.13's _PyRuntime starts with _Py_DebugOffsets, the offsets the
 * interpreter publishes for debuggers: a cookie, the version, whether it is
 * a free-threaded build, then per struct its size and field offsets, each a
 * uint64_t.  Where each one dltrace compares with its own table lies in
 * that struct, and the field of the table it must equal. */
#define DLT_PY_DEBUG_COOKIE "xdebugpy"
#define DLT_PY_DEBUG_FREE_THREADED 16
#define DLT_PY_DEBUG_OFFSETS(X)                                \
	X(runtime_state.interpreters_head, 40, rt_interp_head) \
	X(interpreter_state.next, 64, is_next)                 \
	X(interpreter_state.threads_head, 72, is_threads_head) \
	X(thread_state.next, 168, ts_next)                     \
	X(thread_state.current_frame, 184, ts_frame)           \
	X(thread_state.thread_id, 192, ts_thread_id)           \
	X(thread_state.native_thread_id, 200, ts_native_tid)   \
	X(interpreter_frame.previous, 232, fr_back)            \
	X(interpreter_frame.executable, 240, fr_code)          \
	X(interpreter_frame.instr_ptr, 248, fr_instr)          \
	X(interpreter_frame.owner, 264, fr_owner)              \
	X(code_object.filename, 280, co_filename)              \
	X(code_object.name, 288, co_name)                      \
	X(code_object.linetable, 304, co_linetable)            \
	X(code_object.firstlineno, 312, co_firstlineno)        \
	X(code_object.co_code_adaptive, 344, co_code)          \
	X(pyobject.ob_type, 360, ob_type)

/* The layout of CPython major.minor (version 0x030b), or NULL. */
const struct dlt_py_layout *dlt_py_layout_find(unsigned version);

#endif
