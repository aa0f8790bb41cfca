/* The offsets of pystack/pylayout.h per CPython minor version, x86-64 and
 * AArch64 (LP64: the same sizes and alignments), read off each version's
 * headers and held against them by tests/test_pylayout.c.  Fields a
 * version does not have are 0 (owner_cstack 0xffff). */
#include "pylayout.h"

#include <stddef.h>

#define DLT_L(f) [DLT_PYF_##f]

/* What every version has at the same place: a tuple's items, an int's
 * digits, a type's flags. */
#define DLT_PY_LAYOUT_OBJECTS                                                  \
	DLT_L(tuple_size) = 16, DLT_L(tuple_items) = 24, DLT_L(long_tag) = 16, \
	DLT_L(long_digit) = 24, DLT_L(type_flags) = 168

/* 3.8 and 3.9 read alike. */
#define DLT_PY_LAYOUT_38                                                  \
	{                                                                 \
		DLT_L(rt_interp_head) = 32, DLT_L(is_next) = 0,           \
		DLT_L(is_threads_head) = 8, DLT_L(ts_next) = 8,           \
		DLT_L(ts_frame) = 24, DLT_L(ts_thread_id) = 176,          \
		DLT_L(fr_back) = 24, DLT_L(fr_code) = 32,                 \
		DLT_L(fr_lasti) = 104, DLT_L(co_filename) = 104,          \
		DLT_L(co_name) = 112, DLT_L(co_firstlineno) = 40,         \
		DLT_L(co_linetable) = 120, DLT_L(ob_type) = 8,            \
		DLT_L(bytes_size) = 16, DLT_L(bytes_data) = 32,           \
		DLT_L(str_length) = 16, DLT_L(str_state) = 32,            \
		DLT_L(str_ascii_data) = 48, DLT_L(str_compact_data) = 72, \
		DLT_L(owner_cstack) = 0xffff, DLT_L(fr_localsplus) = 360, \
		DLT_L(co_varnames) = 72, DLT_PY_LAYOUT_OBJECTS            \
	}

static const struct dlt_py_layout dlt_py_layouts[] = {
	{0x0308, DLT_PY_LNOTAB, DLT_PY_LAYOUT_38},
	{0x0309, DLT_PY_LNOTAB, DLT_PY_LAYOUT_38},
	{0x030a,
	 DLT_PY_LINETABLE,
	 {DLT_L(rt_interp_head) = 32,	DLT_L(is_next) = 0,
	  DLT_L(is_threads_head) = 8,	DLT_L(ts_next) = 8,
	  DLT_L(ts_frame) = 24,		DLT_L(ts_thread_id) = 176,
	  DLT_L(fr_back) = 24,		DLT_L(fr_code) = 32,
	  DLT_L(fr_lasti) = 96,		DLT_L(co_filename) = 104,
	  DLT_L(co_name) = 112,		DLT_L(co_firstlineno) = 40,
	  DLT_L(co_linetable) = 120,	DLT_L(ob_type) = 8,
	  DLT_L(bytes_size) = 16,	DLT_L(bytes_data) = 32,
	  DLT_L(str_length) = 16,	DLT_L(str_state) = 32,
	  DLT_L(str_ascii_data) = 48,	DLT_L(str_compact_data) = 72,
	  DLT_L(owner_cstack) = 0xffff, DLT_L(fr_localsplus) = 352,
	  DLT_L(co_varnames) = 72,	DLT_PY_LAYOUT_OBJECTS}},
	{0x030b,
	 DLT_PY_LOCATIONS,
	 {DLT_L(rt_interp_head) = 40,	DLT_L(is_next) = 0,
	  DLT_L(is_threads_head) = 16,	DLT_L(ts_next) = 8,
	  DLT_L(ts_frame) = 56,		DLT_L(ts_thread_id) = 152,
	  DLT_L(ts_native_tid) = 160,	DLT_L(cf_current_frame) = 8,
	  DLT_L(fr_back) = 48,		DLT_L(fr_code) = 32,
	  DLT_L(fr_instr) = 56,		DLT_L(fr_owner) = 69,
	  DLT_L(fr_entry) = 68,		DLT_L(co_filename) = 112,
	  DLT_L(co_name) = 120,		DLT_L(co_firstlineno) = 72,
	  DLT_L(co_linetable) = 136,	DLT_L(co_code) = 184,
	  DLT_L(ob_type) = 8,		DLT_L(bytes_size) = 16,
	  DLT_L(bytes_data) = 32,	DLT_L(str_length) = 16,
	  DLT_L(str_state) = 32,	DLT_L(str_ascii_data) = 48,
	  DLT_L(str_compact_data) = 72, DLT_L(owner_cstack) = 0xffff,
	  DLT_L(fr_localsplus) = 72,	DLT_L(co_varnames) = 96,
	  DLT_PY_LAYOUT_OBJECTS}},
	{0x030c,
	 DLT_PY_LOCATIONS,
	 {DLT_L(rt_interp_head) = 40,  DLT_L(is_next) = 0,
	  DLT_L(is_threads_head) = 72, DLT_L(ts_next) = 8,
	  DLT_L(ts_frame) = 56,	       DLT_L(ts_thread_id) = 136,
	  DLT_L(ts_native_tid) = 144,  DLT_L(cf_current_frame) = 0,
	  DLT_L(fr_back) = 8,	       DLT_L(fr_code) = 0,
	  DLT_L(fr_instr) = 56,	       DLT_L(fr_owner) = 70,
	  DLT_L(co_filename) = 112,    DLT_L(co_name) = 120,
	  DLT_L(co_firstlineno) = 68,  DLT_L(co_linetable) = 136,
	  DLT_L(co_code) = 192,	       DLT_L(ob_type) = 8,
	  DLT_L(bytes_size) = 16,      DLT_L(bytes_data) = 32,
	  DLT_L(str_length) = 16,      DLT_L(str_state) = 32,
	  DLT_L(str_ascii_data) = 40,  DLT_L(str_compact_data) = 56,
	  DLT_L(owner_cstack) = 3,     DLT_L(fr_localsplus) = 72,
	  DLT_L(co_varnames) = 96,     DLT_PY_LAYOUT_OBJECTS}},
	{0x030d,
	 DLT_PY_LOCATIONS,
	 {DLT_L(rt_interp_head) = 632,
	  DLT_L(is_next) = 7264,
	  DLT_L(is_threads_head) = 7344,
	  DLT_L(ts_next) = 8,
	  DLT_L(ts_frame) = 72,
	  DLT_L(ts_thread_id) = 152,
	  DLT_L(ts_native_tid) = 160,
	  DLT_L(fr_back) = 8,
	  DLT_L(fr_code) = 0,
	  DLT_L(fr_instr) = 56,
	  DLT_L(fr_owner) = 70,
	  DLT_L(co_filename) = 112,
	  DLT_L(co_name) = 120,
	  DLT_L(co_firstlineno) = 68,
	  DLT_L(co_linetable) = 136,
	  DLT_L(co_code) = 200,
	  DLT_L(ob_type) = 8,
	  DLT_L(bytes_size) = 16,
	  DLT_L(bytes_data) = 32,
	  DLT_L(str_length) = 16,
	  DLT_L(str_state) = 32,
	  DLT_L(str_ascii_data) = 40,
	  DLT_L(str_compact_data) = 56,
	  DLT_L(owner_cstack) = 3,
	  DLT_L(fr_localsplus) = 72,
	  DLT_L(co_varnames) = 96,
	  DLT_PY_LAYOUT_OBJECTS}},
};

const struct dlt_py_layout *dlt_py_layout_find(unsigned version)
{
	for (size_t i = 0;
	     i < sizeof(dlt_py_layouts) / sizeof(dlt_py_layouts[0]); i++)
		if (dlt_py_layouts[i].version == version)
			return &dlt_py_layouts[i];
	return NULL;
}
