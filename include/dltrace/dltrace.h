/* Public API of libdltrace.so for programs that want to annotate a trace.
 *
 * Declare the functions weak in the program (or look them up with dlsym) so
 * that the program still runs without dltrace. */
#ifndef DLTRACE_DLTRACE_H
#define DLTRACE_DLTRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record a MARK record: a program-defined id and two values.  Cheap enough to
 * call in a hot loop; does nothing when tracing is off. */
void dltrace_mark(uint32_t id, uint32_t aux, uint64_t value);

#ifdef __cplusplus
}
#endif

#endif
