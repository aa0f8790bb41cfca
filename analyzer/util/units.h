/* Values as people read them (units.c): durations, sizes, moments.  Text
 * output never shows raw nanoseconds, byte counts or nanoseconds since the
 * epoch: a median of 4123 ns is "4.1 µs", a peak of 5324 KiB is
 * "5.2 MiB", a moment is "2026-12-05 05:21:49.502 UTC" and, next to the
 * start of its process, "+12.4 s" after it.  --json keeps the raw values
 * for tools. */
#ifndef DLTRACE_UNITS_H
#define DLTRACE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* ns in the unit that suits it, with two or three significant digits:
 * "0.05 µs", "4.1 µs", "412 µs", "2.3 ms", "412 ms", "12.4 s", "3.2 min",
 * "2.5 h"; "0 µs" for 0, "< 0.01 µs" below 5 ns.  Into buf (cap bytes, always
 * terminated when cap > 0); returns buf. */
char *dlt_units_dur(uint64_t ns, char *buf, size_t cap);

/* Seconds (a double, as evidence keeps a moment after a process's start):
 * "1.56 s", "12.4 s"; below a second and from a minute as dlt_units_dur
 * ("412 ms", "3.2 min"); a negative or non-finite value as "0 s".  Returns
 * buf. */
char *dlt_units_secs(double s, char *buf, size_t cap);

/* v as a uint64_t: 0 for a negative value or NaN, UINT64_MAX from 2^64 up
 * (a damaged trace's value, where the conversion would be undefined). */
uint64_t dlt_units_u64(double v);

/* A byte count: "512 B", "5.2 KiB", "13.2 MiB", "412 KiB", "1.5 GiB",
 * "2.0 TiB" (powers of 1024, a tenth below 100).  Returns buf. */
char *dlt_units_bytes(uint64_t bytes, char *buf, size_t cap);

/* A count of KiB (VmHWM, a memory limit in KiB): as dlt_units_bytes. */
char *dlt_units_kib(uint64_t kib, char *buf, size_t cap);

/* A moment (ns since the epoch) as wall-clock time in the local time zone,
 * TZ respected: "2026-12-05 05:21:49.502 UTC", "2026-12-05 06:21:49.502
 * CET".  0 (unknown) is "-".  Returns buf. */
char *dlt_units_wall(uint64_t unix_ns, char *buf, size_t cap);

/* A moment after a start, both in the same clock's ns: "+12.4 s"; before
 * it "-0.3 s".  Returns buf. */
char *dlt_units_after(uint64_t at_ns, uint64_t start_ns, char *buf, size_t cap);

/* An offset (ns after a start) as "+12.4 s" (negative: "-0.3 s"). */
char *dlt_units_offset(int64_t ns, char *buf, size_t cap);

#endif
