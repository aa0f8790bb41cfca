/* Values for people (units.h). */
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define DLT_MICRO "\xc2\xb5" /* U+00B5, micro sign */

char *dlt_units_dur(uint64_t ns, char *buf, size_t cap)
{
	if (cap == 0)
		return buf;
	double us = (double)ns / 1e3, ms = us / 1e3, s = ms / 1e3;
	/* Each bound is where the shorter form would round up to the next
	 * one's first value ("999.7 µs" is "1.0 ms", not "1000 µs"). */
	if (ns == 0)
		snprintf(buf, cap, "0 " DLT_MICRO "s");
	else if (ns < 5)
		snprintf(buf, cap, "< 0.01 " DLT_MICRO "s");
	else if (us < 0.995)
		snprintf(buf, cap, "%.2f " DLT_MICRO "s", us);
	else if (us < 9.95)
		snprintf(buf, cap, "%.1f " DLT_MICRO "s", us);
	else if (us < 999.5)
		snprintf(buf, cap, "%.0f " DLT_MICRO "s", us);
	else if (ms < 9.95)
		snprintf(buf, cap, "%.1f ms", ms);
	else if (ms < 999.5)
		snprintf(buf, cap, "%.0f ms", ms);
	else if (s < 59.95)
		snprintf(buf, cap, "%.1f s", s);
	else if (s < 59.95 * 60)
		snprintf(buf, cap, "%.1f min", s / 60);
	else
		snprintf(buf, cap, "%.1f h", s / 3600);
	return buf;
}

uint64_t dlt_units_u64(double v)
{
	if (!(v > 0))
		return 0;
	/* The largest double below 2^64. */
	return v >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)v;
}

char *dlt_units_secs(double s, char *buf, size_t cap)
{
	if (cap == 0)
		return buf;
	if (!isfinite(s) || s <= 0)
		snprintf(buf, cap, "0 s");
	else if (s < 1)
		dlt_units_dur(dlt_units_u64(s * 1e9), buf, cap);
	/* A moment in a process's life reads to the hundredth below ten
	 * seconds ("1.56 s"): two events of one second stay apart. */
	else if (s < 9.995)
		snprintf(buf, cap, "%.2f s", s);
	else if (s < 59.95)
		snprintf(buf, cap, "%.1f s", s);
	else /* beyond 2^64 ns (584 years), a damaged value: the most */
		dlt_units_dur(dlt_units_u64(s * 1e9), buf, cap);
	return buf;
}

char *dlt_units_bytes(uint64_t bytes, char *buf, size_t cap)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	if (cap == 0)
		return buf;
	if (bytes < 1024) {
		snprintf(buf, cap, "%u B", (unsigned)bytes);
		return buf;
	}
	double v = (double)bytes / 1024;
	size_t u = 0;
	/* 1023.7 KiB is "1.0 MiB", not "1024 KiB". */
	while (v >= 1023.5 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, cap, v < 99.95 ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

char *dlt_units_kib(uint64_t kib, char *buf, size_t cap)
{
	return dlt_units_bytes(
		kib > UINT64_MAX / 1024 ? UINT64_MAX : kib * 1024, buf, cap);
}

char *dlt_units_wall(uint64_t unix_ns, char *buf, size_t cap)
{
	if (cap == 0)
		return buf;
	time_t sec = (time_t)(unix_ns / 1000000000u);
	unsigned ms = (unsigned)(unix_ns % 1000000000u / 1000000u);
	struct tm tm;
	char day[48], zone[16];
	/* localtime_r need not read TZ again: a change of it in the same
	 * process (the tests set TZ) must count. */
	tzset();
	if (unix_ns == 0 || localtime_r(&sec, &tm) == NULL ||
	    strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm) == 0) {
		snprintf(buf, cap, "-");
		return buf;
	}
	if (strftime(zone, sizeof(zone), "%Z", &tm) == 0 || zone[0] == '\0')
		strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, cap, "%s.%03u %s", day, ms, zone);
	return buf;
}

char *dlt_units_offset(int64_t ns, char *buf, size_t cap)
{
	if (cap == 0)
		return buf;
	char d[32];
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	dlt_units_dur(mag, d, sizeof(d));
	snprintf(buf, cap, "%s%s", ns < 0 ? "-" : "+", d);
	return buf;
}

char *dlt_units_after(uint64_t at_ns, uint64_t start_ns, char *buf, size_t cap)
{
	return dlt_units_offset(at_ns >= start_ns
					? (int64_t)(at_ns - start_ns)
					: -(int64_t)(start_ns - at_ns),
				buf, cap);
}
