/* C++ names demangled with libstdc++'s __cxa_demangle, looked up at run
 * time (dltrace is C, and an analysing machine without libstdc++ still
 * gets the mangled names). */
#ifndef DLTRACE_DEMANGLE_H
#define DLTRACE_DEMANGLE_H

#include <stddef.h>

/* name ("_ZN2ns3fooEi") demangled into out ("ns::foo(int)"; without the
 * parameter list when params is 0: "ns::foo").  Returns 0, or -1 when name
 * is not a C++ name or cannot be demangled here (out then holds name). */
int dlt_demangle(const char *name, int params, char *out, size_t cap);

#endif
