#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void dlt_json_init(struct dlt_json *j, FILE *out, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = pretty;
}

static void dlt_json_newline(struct dlt_json *j, int depth)
{
	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (int i = 0; i < depth; i++)
		fputs("  ", j->out);
}

/* Whatever comes before a value: the comma and indentation of an array
 * member, nothing after a key.  A value where a key is due is misuse. */
static void dlt_json_before_value(struct dlt_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0) {
		if (j->top_done)
			j->misuse = true;
		j->top_done = true;
		return;
	}
	int lvl = j->depth - 1;
	if (lvl < DLT_JSON_MAX_DEPTH) {
		if (j->kind[lvl] != '[')
			j->misuse = true;
		if (j->members[lvl])
			fputc(',', j->out);
		j->members[lvl] = true;
	}
	dlt_json_newline(j, j->depth);
}

static void dlt_json_open(struct dlt_json *j, char kind)
{
	dlt_json_before_value(j);
	fputc(kind, j->out);
	if (j->depth < DLT_JSON_MAX_DEPTH) {
		j->kind[j->depth] = kind;
		j->members[j->depth] = false;
	} else {
		/* Commas can no longer be tracked below this level. */
		j->misuse = true;
	}
	j->depth++;
}

static void dlt_json_close(struct dlt_json *j, char kind)
{
	if (j->depth == 0 || j->after_key) {
		j->misuse = true;
		if (j->depth == 0)
			return;
	}
	int lvl = j->depth - 1;
	bool had = false;
	if (lvl < DLT_JSON_MAX_DEPTH) {
		if (j->kind[lvl] != kind)
			j->misuse = true;
		had = j->members[lvl];
	}
	j->depth--;
	if (had)
		dlt_json_newline(j, j->depth);
	fputc(kind == '{' ? '}' : ']', j->out);
}

void dlt_json_object_begin(struct dlt_json *j)
{
	dlt_json_open(j, '{');
}

void dlt_json_object_end(struct dlt_json *j)
{
	dlt_json_close(j, '{');
}

void dlt_json_array_begin(struct dlt_json *j)
{
	dlt_json_open(j, '[');
}

void dlt_json_array_end(struct dlt_json *j)
{
	dlt_json_close(j, '[');
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0 if
 * the bytes there are not one: overlong forms, surrogates and code points
 * past U+10FFFF are rejected, as a strict JSON parser would. */
static size_t dlt_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
		return 0;
	if (len == 4 && (cp < 0x10000 || cp > 0x10ffff))
		return 0;
	return len;
}

static void dlt_json_quoted(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', out);
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc((int)c, out);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n':
				fputs("\\n", out);
				break;
			case '\t':
				fputs("\\t", out);
				break;
			case '\r':
				fputs("\\r", out);
				break;
			case '\b':
				fputs("\\b", out);
				break;
			case '\f':
				fputs("\\f", out);
				break;
			default:
				fprintf(out, "\\u%04x", c);
			}
			i++;
		} else if (c < 0x80) {
			fputc((int)c, out);
			i++;
		} else {
			size_t len = dlt_utf8_seq(s + i, n - i);
			if (len == 0) {
				/* One replacement character per bad byte keeps
				 * the damage visible without guessing. */
				fputs("\\ufffd", out);
				i++;
			} else {
				fwrite(s + i, 1, len, out);
				i += len;
			}
		}
	}
	fputc('"', out);
}

void dlt_json_key(struct dlt_json *j, const char *key)
{
	int lvl = j->depth - 1;
	if (j->depth == 0 || j->after_key ||
	    (lvl < DLT_JSON_MAX_DEPTH && j->kind[lvl] != '{')) {
		j->misuse = true;
	}
	if (j->depth > 0 && lvl < DLT_JSON_MAX_DEPTH) {
		if (j->members[lvl])
			fputc(',', j->out);
		j->members[lvl] = true;
	}
	dlt_json_newline(j, j->depth);
	dlt_json_quoted(j->out, key ? key : "", key ? strlen(key) : 0);
	fputs(j->pretty ? ": " : ":", j->out);
	j->after_key = true;
}

void dlt_json_string_n(struct dlt_json *j, const char *s, size_t n)
{
	if (s == NULL) {
		dlt_json_null(j);
		return;
	}
	dlt_json_before_value(j);
	dlt_json_quoted(j->out, s, n);
}

void dlt_json_string(struct dlt_json *j, const char *s)
{
	dlt_json_string_n(j, s, s ? strlen(s) : 0);
}

void dlt_json_int(struct dlt_json *j, int64_t v)
{
	dlt_json_before_value(j);
	fprintf(j->out, "%" PRId64, v);
}

void dlt_json_uint(struct dlt_json *j, uint64_t v)
{
	dlt_json_before_value(j);
	fprintf(j->out, "%" PRIu64, v);
}

static void dlt_json_number(struct dlt_json *j, double v, int digits)
{
	/* JSON has no NaN or infinity. */
	if (!isfinite(v)) {
		dlt_json_null(j);
		return;
	}
	dlt_json_before_value(j);
	fprintf(j->out, "%.*g", digits, v);
}

void dlt_json_double(struct dlt_json *j, double v)
{
	dlt_json_number(j, v, 6);
}

void dlt_json_double_fine(struct dlt_json *j, double v)
{
	dlt_json_number(j, v, 15);
}

void dlt_json_bool(struct dlt_json *j, bool v)
{
	dlt_json_before_value(j);
	fputs(v ? "true" : "false", j->out);
}

void dlt_json_null(struct dlt_json *j)
{
	dlt_json_before_value(j);
	fputs("null", j->out);
}

void dlt_json_kv_string(struct dlt_json *j, const char *key, const char *s)
{
	dlt_json_key(j, key);
	dlt_json_string(j, s);
}

void dlt_json_kv_int(struct dlt_json *j, const char *key, int64_t v)
{
	dlt_json_key(j, key);
	dlt_json_int(j, v);
}

void dlt_json_kv_uint(struct dlt_json *j, const char *key, uint64_t v)
{
	dlt_json_key(j, key);
	dlt_json_uint(j, v);
}

void dlt_json_kv_double(struct dlt_json *j, const char *key, double v)
{
	dlt_json_key(j, key);
	dlt_json_double(j, v);
}

void dlt_json_kv_double_fine(struct dlt_json *j, const char *key, double v)
{
	dlt_json_key(j, key);
	dlt_json_double_fine(j, v);
}

void dlt_json_kv_bool(struct dlt_json *j, const char *key, bool v)
{
	dlt_json_key(j, key);
	dlt_json_bool(j, v);
}

void dlt_json_kv_null(struct dlt_json *j, const char *key)
{
	dlt_json_key(j, key);
	dlt_json_null(j);
}

int dlt_json_finish(struct dlt_json *j)
{
	if (j->depth != 0 || j->after_key || !j->top_done)
		j->misuse = true;
	fputc('\n', j->out);
	if (fflush(j->out) != 0 || ferror(j->out))
		return -1;
	return j->misuse ? -1 : 0;
}
