/* Durations as people read them (units.c).  Text output never shows raw
 * nanoseconds: a median of 4123 ns is "4.1 µs", and a line of a thousand
 * calls reads the same whichever unit the trace stored. */
#ifndef DLTRACE_UNITS_H
#define DLTRACE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* ns in the unit that suits it, with two or three significant digits:
 * "0.05 µs", "4.1 µs", "412 µs", "2.3 ms", "412 ms", "12.4 s", "3.2 min",
 * "2.5 h"; "0 µs" for 0, "< 0.01 µs" below 5 ns.  Into buf (cap bytes, always
 * terminated when cap > 0); returns buf. */
char *dlt_units_dur(uint64_t ns, char *buf, size_t cap);

#endif
