/* Text output of untrusted strings (paths, messages and arguments come
 * from traces made on other machines). */
#include "text.h"

#include <stdbool.h>
#include <string.h>

void dlt_fput_text(FILE *out, const char *s, const char *dflt)
{
	if (s == NULL) {
		fputs(dflt, out);
		return;
	}
	/* Trace strings are untrusted: no terminal escape sequences. */
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			fprintf(out, "\\x%02x", *c);
		else
			fputc(*c, out);
	}
}

void dlt_fput_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*c < 0x20 || *c == 0x7f)
				fprintf(out, "\\x%02x", *c);
			else
				fputc(*c, out);
		}
	}
	fputc('"', out);
}

static bool dlt_shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("_@%+=:,./-", c) != NULL;
}

void dlt_fput_shell_word(FILE *out, const char *s)
{
	bool plain = *s != '\0', control = false;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (!dlt_shell_safe(*c))
			plain = false;
		if (*c < 0x20 || *c == 0x7f)
			control = true;
	}
	if (plain) {
		fputs(s, out);
		return;
	}
	if (control) {
		/* $'...' is the only quoting that shows control characters
		 * without writing them raw to a terminal (bash, zsh, ksh). */
		fputs("$'", out);
		for (const unsigned char *c = (const unsigned char *)s; *c;
		     c++) {
			if (*c == '\'' || *c == '\\')
				fprintf(out, "\\%c", *c);
			else if (*c < 0x20 || *c == 0x7f)
				fprintf(out, "\\x%02x", *c);
			else
				fputc(*c, out);
		}
		fputc('\'', out);
		return;
	}
	fputc('\'', out);
	for (const char *c = s; *c; c++) {
		if (*c == '\'')
			fputs("'\\''", out);
		else
			fputc(*c, out);
	}
	fputc('\'', out);
}
