/* pystack/pylayout.c held against one CPython's own headers: compiled once
 * per installed CPython (tests/CMakeLists.txt), with Py_BUILD_CORE for the
 * internal structs, it compares every offset of that version's entry in
 * the table with offsetof() and the bit fields of a string's state with
 * what the compiler makes of them.  3.13 also carries _Py_DebugOffsets in
 * _PyRuntime: the table must agree with those too. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <frameobject.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#if PY_VERSION_HEX < 0x03090000
#include "internal/pycore_pystate.h"
#else
#include "internal/pycore_interp.h"
#include "internal/pycore_runtime.h"
#endif
#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_frame.h"
#endif

#include "pylayout.h"

#define MM ((PY_VERSION_HEX >> 16) & 0xffff)

#if PY_VERSION_HEX >= 0x030b0000
typedef _PyInterpreterFrame dlt_probe_frame;
#else
typedef PyFrameObject dlt_probe_frame;
#endif

static int dlt_probe_fails;

static void dlt_probe_expect(const char *what, unsigned table, unsigned real)
{
	if (table == real)
		return;
	printf("FAIL %d.%d %s: table says %u, the headers %u\n", MM >> 8,
	       MM & 0xff, what, table, real);
	dlt_probe_fails++;
}

/* The bit a state field sets, found by setting it on a zeroed object. */
static unsigned dlt_probe_state_bits(int kind, int compact, int ascii)
{
	PyASCIIObject o;
	memset(&o, 0, sizeof(o));
	o.state.kind = (unsigned)kind;
	o.state.compact = (unsigned)compact;
	o.state.ascii = (unsigned)ascii;
	unsigned word;
	memcpy(&word, (char *)&o + offsetof(PyASCIIObject, state),
	       sizeof(word));
	return word;
}

int main(void)
{
	const struct dlt_py_layout *l = dlt_py_layout_find(MM);
	if (l == NULL) {
		printf("FAIL %d.%d: not in the table\n", MM >> 8, MM & 0xff);
		return 1;
	}
	unsigned real[DLT_PYF_COUNT];
	memset(real, 0, sizeof(real));
	real[DLT_PYF_rt_interp_head] =
		offsetof(_PyRuntimeState, interpreters.head);
	real[DLT_PYF_is_next] = offsetof(PyInterpreterState, next);
#if PY_VERSION_HEX >= 0x030b0000
	real[DLT_PYF_is_threads_head] =
		offsetof(PyInterpreterState, threads.head);
#else
	real[DLT_PYF_is_threads_head] =
		offsetof(PyInterpreterState, tstate_head);
#endif
	real[DLT_PYF_ts_next] = offsetof(PyThreadState, next);
	real[DLT_PYF_ts_thread_id] = offsetof(PyThreadState, thread_id);
#if PY_VERSION_HEX >= 0x030d0000
	real[DLT_PYF_ts_frame] = offsetof(PyThreadState, current_frame);
#elif PY_VERSION_HEX >= 0x030b0000
	real[DLT_PYF_ts_frame] = offsetof(PyThreadState, cframe);
	real[DLT_PYF_cf_current_frame] = offsetof(_PyCFrame, current_frame);
#else
	real[DLT_PYF_ts_frame] = offsetof(PyThreadState, frame);
#endif
#if PY_VERSION_HEX >= 0x030b0000
	real[DLT_PYF_ts_native_tid] = offsetof(PyThreadState, native_thread_id);
	real[DLT_PYF_fr_back] = offsetof(dlt_probe_frame, previous);
	real[DLT_PYF_fr_owner] = offsetof(dlt_probe_frame, owner);
	real[DLT_PYF_co_code] = offsetof(PyCodeObject, co_code_adaptive);
#else
	real[DLT_PYF_fr_back] = offsetof(dlt_probe_frame, f_back);
	real[DLT_PYF_fr_lasti] = offsetof(dlt_probe_frame, f_lasti);
#endif
#if PY_VERSION_HEX >= 0x030d0000
	real[DLT_PYF_fr_code] = offsetof(dlt_probe_frame, f_executable);
	real[DLT_PYF_fr_instr] = offsetof(dlt_probe_frame, instr_ptr);
#elif PY_VERSION_HEX >= 0x030b0000
	real[DLT_PYF_fr_code] = offsetof(dlt_probe_frame, f_code);
	real[DLT_PYF_fr_instr] = offsetof(dlt_probe_frame, prev_instr);
#else
	real[DLT_PYF_fr_code] = offsetof(dlt_probe_frame, f_code);
#endif
	real[DLT_PYF_co_filename] = offsetof(PyCodeObject, co_filename);
	real[DLT_PYF_co_name] = offsetof(PyCodeObject, co_name);
	real[DLT_PYF_co_firstlineno] = offsetof(PyCodeObject, co_firstlineno);
#if PY_VERSION_HEX >= 0x030a0000
	real[DLT_PYF_co_linetable] = offsetof(PyCodeObject, co_linetable);
#else
	real[DLT_PYF_co_linetable] = offsetof(PyCodeObject, co_lnotab);
#endif
	real[DLT_PYF_ob_type] = offsetof(PyObject, ob_type);
	real[DLT_PYF_bytes_size] = offsetof(PyVarObject, ob_size);
	real[DLT_PYF_bytes_data] = offsetof(PyBytesObject, ob_sval);
	real[DLT_PYF_str_length] = offsetof(PyASCIIObject, length);
	real[DLT_PYF_str_state] = offsetof(PyASCIIObject, state);
	real[DLT_PYF_str_ascii_data] = sizeof(PyASCIIObject);
	real[DLT_PYF_str_compact_data] = sizeof(PyCompactUnicodeObject);
#if PY_VERSION_HEX >= 0x030b0000 && PY_VERSION_HEX < 0x030c0000
	real[DLT_PYF_fr_entry] = offsetof(dlt_probe_frame, is_entry);
#endif
#if PY_VERSION_HEX >= 0x030c0000
	real[DLT_PYF_owner_cstack] = FRAME_OWNED_BY_CSTACK;
#else
	real[DLT_PYF_owner_cstack] = 0xffff;
#endif
	/* A frame's local variables and their names, a tuple's items, an
	 * int's value and a type's flags: what the shim reads a rank
	 * with. */
#if PY_VERSION_HEX >= 0x030b0000
	real[DLT_PYF_fr_localsplus] = offsetof(dlt_probe_frame, localsplus);
	real[DLT_PYF_co_varnames] = offsetof(PyCodeObject, co_localsplusnames);
#else
	real[DLT_PYF_fr_localsplus] = offsetof(dlt_probe_frame, f_localsplus);
	real[DLT_PYF_co_varnames] = offsetof(PyCodeObject, co_varnames);
#endif
	real[DLT_PYF_tuple_size] = offsetof(PyTupleObject, ob_base.ob_size);
	real[DLT_PYF_tuple_items] = offsetof(PyTupleObject, ob_item);
#if PY_VERSION_HEX >= 0x030c0000
	real[DLT_PYF_long_tag] = offsetof(PyLongObject, long_value.lv_tag);
	real[DLT_PYF_long_digit] = offsetof(PyLongObject, long_value.ob_digit);
#else
	real[DLT_PYF_long_tag] = offsetof(PyLongObject, ob_base.ob_size);
	real[DLT_PYF_long_digit] = offsetof(PyLongObject, ob_digit);
#endif
	real[DLT_PYF_type_flags] = offsetof(PyTypeObject, tp_flags);
	static const char *const names[] = {
#define DLT_X(name) #name,
		DLT_PY_FIELDS(DLT_X)
#undef DLT_X
	};
	for (int i = 0; i < DLT_PYF_COUNT; i++)
		dlt_probe_expect(names[i], l->off[i], real[i]);

	unsigned lines = PY_VERSION_HEX >= 0x030b0000	? DLT_PY_LOCATIONS
			 : PY_VERSION_HEX >= 0x030a0000 ? DLT_PY_LINETABLE
							: DLT_PY_LNOTAB;
	dlt_probe_expect("line table kind", l->lines, lines);
	dlt_probe_expect("state kind 4",
			 DLT_PY_STATE_KIND_SHIFT ? 4u << DLT_PY_STATE_KIND_SHIFT
						 : 0,
			 dlt_probe_state_bits(4, 0, 0));
	dlt_probe_expect("state compact", DLT_PY_STATE_COMPACT,
			 dlt_probe_state_bits(0, 1, 0));
	dlt_probe_expect("state ascii", DLT_PY_STATE_ASCII,
			 dlt_probe_state_bits(0, 0, 1));
	dlt_probe_expect("Py_TPFLAGS_LONG_SUBCLASS",
			 (unsigned)DLT_PY_TPFLAGS_LONG_SUBCLASS,
			 (unsigned)Py_TPFLAGS_LONG_SUBCLASS);
	dlt_probe_expect("PyLong_SHIFT", DLT_PY_LONG_SHIFT, PyLong_SHIFT);
	dlt_probe_expect("an int's size as lv_tag",
			 MM >= DLT_PY_LONG_TAG_VERSION,
			 PY_VERSION_HEX >= 0x030c0000);

#if PY_VERSION_HEX >= 0x030d0000 && defined(DLT_PROBE_LIBPYTHON)
	/* The offsets the interpreter publishes for debuggers, read where
	 * shim/pystack.c reads them (this probe is linked with libpython). */
	const char *dbg = (const char *)&_PyRuntime.debug_offsets;
	dlt_probe_expect("debug offsets at the start of _PyRuntime", 0,
			 (unsigned)offsetof(_PyRuntimeState, debug_offsets));
	dlt_probe_expect("debug cookie", 0,
			 (unsigned)memcmp(dbg, DLT_PY_DEBUG_COOKIE, 8));
	dlt_probe_expect("debug free_threaded position",
			 DLT_PY_DEBUG_FREE_THREADED,
			 (unsigned)offsetof(_Py_DebugOffsets, free_threaded));
#define DLT_X(path, pos, field)                                               \
	{                                                                     \
		uint64_t v;                                                   \
		memcpy(&v, dbg + (pos), 8);                                   \
		dlt_probe_expect("debug " #path " position", pos,             \
				 (unsigned)offsetof(_Py_DebugOffsets, path)); \
		dlt_probe_expect("debug " #path, l->off[DLT_PYF_##field],     \
				 (unsigned)v);                                \
	}
	DLT_PY_DEBUG_OFFSETS(DLT_X)
#undef DLT_X
#endif
	if (dlt_probe_fails)
		return 1;
	printf("CPython %d.%d: %d offsets match the headers%s\n", MM >> 8,
	       MM & 0xff, (int)DLT_PYF_COUNT,
#if PY_VERSION_HEX >= 0x030d0000 && defined(DLT_PROBE_LIBPYTHON)
	       " and its _Py_DebugOffsets"
#else
	       ""
#endif
	);
	return 0;
}
