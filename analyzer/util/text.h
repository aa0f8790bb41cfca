/* Text output of untrusted strings (text.c). */
#ifndef DLTRACE_TEXT_H
#define DLTRACE_TEXT_H

#include <stdio.h>

/* Text output of untrusted strings.  dlt_fput_text writes s with control
 * characters as \xHH (dflt when s is NULL); dlt_fput_quoted writes a C-style
 * double-quoted string; dlt_fput_shell_word writes s so that a POSIX shell
 * would read it back as one word. */
void dlt_fput_text(FILE *out, const char *s, const char *dflt);
void dlt_fput_quoted(FILE *out, const char *s);
void dlt_fput_shell_word(FILE *out, const char *s);

#endif
