/* Lists of ranks (or pids) as text for people: runs of consecutive
 * numbers as ranges, thousands grouped, the length bounded (ranges.c).
 * Folded output over thousands of ranks ("ranks 0–4,998, 5,000–9,999")
 * names every rank in a few words instead of a line each. */
#ifndef DLTRACE_RANGES_H
#define DLTRACE_RANGES_H

#include <stddef.h>
#include <stdint.h>

/* The longest tail dlt_ranges_text adds when the list is cut
 * ("… and 4,294,967,295 more"), its NUL included. */
#define DLT_RANGES_TAIL 32u

/* x with its thousands grouped ("10,000", "-1,024") into buf (cap bytes,
 * always terminated when cap > 0); returns buf. */
char *dlt_ranges_num(int64_t x, char *buf, size_t cap);

/* The numbers v[0..n), ascending (a repeated number counts once), as
 * ranges: "0–4,998, 5,000–9,999" (an en dash between the ends, ", "
 * between items; two consecutive numbers are a range too).  What does not
 * fit in cap bytes is left out and counted: "0–3, 5, 7, … and 120 more"
 * (numbers, not ranges).  buf is always terminated when cap > 0; returns
 * buf. */
char *dlt_ranges_text(const int64_t *v, size_t n, char *buf, size_t cap);

#endif
