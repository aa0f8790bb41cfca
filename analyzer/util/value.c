#include "value.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

static struct dlt_val *dlt_val_alloc(struct dlt_arena_blk **arena,
				     enum dlt_val_type type)
{
	struct dlt_val *v = dlt_arena_alloc(arena, sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->arena = arena;
	return v;
}

struct dlt_val *dlt_val_object(struct dlt_arena_blk **arena)
{
	return dlt_val_alloc(arena, DLT_V_OBJ);
}

struct dlt_val *dlt_val_array(struct dlt_arena_blk **arena)
{
	return dlt_val_alloc(arena, DLT_V_ARR);
}

/* Appends a child to a container; NULL when there is no container. */
static struct dlt_val *dlt_add(struct dlt_val *c, const char *key,
			       enum dlt_val_type type)
{
	if (c == NULL)
		return NULL;
	struct dlt_val *v = dlt_val_alloc(c->arena, type);
	if (key)
		v->key = dlt_arena_strdup(c->arena, key);
	if (c->last)
		c->last->next = v;
	else
		c->first = v;
	c->last = v;
	c->n++;
	return v;
}

void dlt_obj_str(struct dlt_val *o, const char *key, const char *s)
{
	struct dlt_val *v = dlt_add(o, key, s ? DLT_V_STR : DLT_V_NULL);
	if (v && s)
		v->as.s = dlt_arena_strdup(o->arena, s);
}

void dlt_obj_strf(struct dlt_val *o, const char *key, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dlt_obj_str(o, key, buf);
}

void dlt_obj_int(struct dlt_val *o, const char *key, int64_t x)
{
	struct dlt_val *v = dlt_add(o, key, DLT_V_INT);
	if (v)
		v->as.i = x;
}

void dlt_obj_uint(struct dlt_val *o, const char *key, uint64_t x)
{
	struct dlt_val *v = dlt_add(o, key, DLT_V_UINT);
	if (v)
		v->as.u = x;
}

void dlt_obj_double(struct dlt_val *o, const char *key, double x)
{
	struct dlt_val *v = dlt_add(o, key, DLT_V_DOUBLE);
	if (v)
		v->as.d = x;
}

void dlt_obj_bool(struct dlt_val *o, const char *key, bool x)
{
	struct dlt_val *v = dlt_add(o, key, DLT_V_BOOL);
	if (v)
		v->as.b = x;
}

void dlt_obj_null(struct dlt_val *o, const char *key)
{
	dlt_add(o, key, DLT_V_NULL);
}

struct dlt_val *dlt_obj_array(struct dlt_val *o, const char *key)
{
	return dlt_add(o, key, DLT_V_ARR);
}

struct dlt_val *dlt_obj_object(struct dlt_val *o, const char *key)
{
	return dlt_add(o, key, DLT_V_OBJ);
}

void dlt_arr_str(struct dlt_val *a, const char *s)
{
	dlt_obj_str(a, NULL, s);
}

void dlt_arr_int(struct dlt_val *a, int64_t x)
{
	dlt_obj_int(a, NULL, x);
}

struct dlt_val *dlt_arr_object(struct dlt_val *a)
{
	return dlt_add(a, NULL, DLT_V_OBJ);
}

const struct dlt_val *dlt_val_get(const struct dlt_val *o, const char *key)
{
	if (o == NULL || o->type != DLT_V_OBJ)
		return NULL;
	for (const struct dlt_val *c = o->first; c; c = c->next)
		if (c->key && strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

void dlt_val_json(struct dlt_json *j, const struct dlt_val *v)
{
	if (v == NULL) {
		dlt_json_null(j);
		return;
	}
	switch (v->type) {
	case DLT_V_NULL:
		dlt_json_null(j);
		break;
	case DLT_V_BOOL:
		dlt_json_bool(j, v->as.b);
		break;
	case DLT_V_INT:
		dlt_json_int(j, v->as.i);
		break;
	case DLT_V_UINT:
		dlt_json_uint(j, v->as.u);
		break;
	case DLT_V_DOUBLE:
		dlt_json_double(j, v->as.d);
		break;
	case DLT_V_STR:
		dlt_json_string(j, v->as.s);
		break;
	case DLT_V_ARR:
		dlt_json_array_begin(j);
		for (const struct dlt_val *c = v->first; c; c = c->next)
			dlt_val_json(j, c);
		dlt_json_array_end(j);
		break;
	case DLT_V_OBJ:
		dlt_json_object_begin(j);
		for (const struct dlt_val *c = v->first; c; c = c->next) {
			dlt_json_key(j, c->key ? c->key : "");
			dlt_val_json(j, c);
		}
		dlt_json_object_end(j);
		break;
	}
}

static void dlt_scalar_text(FILE *out, const struct dlt_val *v)
{
	switch (v->type) {
	case DLT_V_NULL:
		fputs("-", out);
		break;
	case DLT_V_BOOL:
		fputs(v->as.b ? "yes" : "no", out);
		break;
	case DLT_V_INT:
		fprintf(out, "%" PRId64, v->as.i);
		break;
	case DLT_V_UINT:
		fprintf(out, "%" PRIu64, v->as.u);
		break;
	case DLT_V_DOUBLE:
		fprintf(out, "%.6g", v->as.d);
		break;
	case DLT_V_STR:
		dlt_fput_text(out, v->as.s, "");
		break;
	default:
		break;
	}
}

static bool dlt_all_scalars(const struct dlt_val *a)
{
	for (const struct dlt_val *c = a->first; c; c = c->next)
		if (c->type == DLT_V_ARR || c->type == DLT_V_OBJ)
			return false;
	return true;
}

/* An object whose members are all scalars fits on one line. */
static void dlt_flat_object(FILE *out, const struct dlt_val *o)
{
	bool first = true;
	for (const struct dlt_val *c = o->first; c; c = c->next) {
		if (!first)
			fputs("  ", out);
		first = false;
		if (c->type == DLT_V_ARR && dlt_all_scalars(c)) {
			fprintf(out, "%s=[", c->key ? c->key : "");
			for (const struct dlt_val *e = c->first; e;
			     e = e->next) {
				dlt_scalar_text(out, e);
				if (e->next)
					fputc(',', out);
			}
			fputc(']', out);
			continue;
		}
		fprintf(out, "%s=", c->key ? c->key : "");
		dlt_scalar_text(out, c);
	}
}

static bool dlt_is_flat(const struct dlt_val *o)
{
	for (const struct dlt_val *c = o->first; c; c = c->next)
		if (c->type == DLT_V_OBJ ||
		    (c->type == DLT_V_ARR && !dlt_all_scalars(c)))
			return false;
	return true;
}

void dlt_val_text(FILE *out, const struct dlt_val *o, int indent)
{
	if (o == NULL || o->type != DLT_V_OBJ)
		return;
	for (const struct dlt_val *c = o->first; c; c = c->next) {
		fprintf(out, "%*s%s: ", indent, "", c->key ? c->key : "");
		if (c->type == DLT_V_OBJ) {
			if (dlt_is_flat(c)) {
				dlt_flat_object(out, c);
				fputc('\n', out);
			} else {
				fputc('\n', out);
				dlt_val_text(out, c, indent + 2);
			}
			continue;
		}
		if (c->type != DLT_V_ARR) {
			dlt_scalar_text(out, c);
			fputc('\n', out);
			continue;
		}
		if (c->n == 0) {
			fputs("(none)\n", out);
			continue;
		}
		if (dlt_all_scalars(c)) {
			/* Short lists on one line, long ones one per line. */
			if (c->n <= 4) {
				for (const struct dlt_val *e = c->first; e;
				     e = e->next) {
					dlt_scalar_text(out, e);
					if (e->next)
						fputs(", ", out);
				}
				fputc('\n', out);
				continue;
			}
			fputc('\n', out);
			size_t idx = 0;
			for (const struct dlt_val *e = c->first; e;
			     e = e->next, idx++) {
				if (c->n > 12 && idx == 4)
					fprintf(out, "%*s... %zu more ...\n",
						indent + 2, "", c->n - 6);
				if (c->n > 12 && idx >= 4 && idx < c->n - 2)
					continue;
				fprintf(out, "%*s- ", indent + 2, "");
				dlt_scalar_text(out, e);
				fputc('\n', out);
			}
			continue;
		}
		fputc('\n', out);
		/* Long lists (every path the loader tried) show their ends;
		 * the JSON output has every element. */
		size_t idx = 0;
		for (const struct dlt_val *e = c->first; e;
		     e = e->next, idx++) {
			if (c->n > 12 && idx == 4)
				fprintf(out, "%*s... %zu more ...\n",
					indent + 2, "", c->n - 6);
			if (c->n > 12 && idx >= 4 && idx < c->n - 2)
				continue;
			fprintf(out, "%*s- ", indent + 2, "");
			if (e->type == DLT_V_OBJ && dlt_is_flat(e)) {
				dlt_flat_object(out, e);
				fputc('\n', out);
			} else if (e->type == DLT_V_OBJ) {
				fputc('\n', out);
				dlt_val_text(out, e, indent + 4);
			} else {
				dlt_scalar_text(out, e);
				fputc('\n', out);
			}
		}
	}
}
