/* Durations for people (units.h). */
#include "units.h"

#include <stdio.h>

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
