/* JSON of convolution problems and choices, shared by `algos` and `diff`. */
#include <inttypes.h>
#include <stdio.h>

#include "commands.h"
#include "conv.h"
#include "json.h"
#include "status.h"

static void dlt_json_dims(struct dlt_json *j, const char *key, const int32_t *v,
			  int n, int max)
{
	if (n < 0)
		n = 0;
	if (n > max)
		n = max;
	dlt_json_key(j, key);
	dlt_json_array_begin(j);
	for (int i = 0; i < n; i++)
		dlt_json_int(j, v[i]);
	dlt_json_array_end(j);
}

void dlt_json_conv_problem(struct dlt_json *j, const struct dlt_conv_entry *e)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%016" PRIx64, e->problem);
	dlt_json_kv_string(j, "problem", buf);
	dlt_json_kv_string(j, "direction", dlt_conv_dir_name(e->dir));
	dlt_json_key(j, "shape");
	if (!e->has_shape) {
		dlt_json_null(j);
		return;
	}
	const struct dlt_rec_conv_problem *p = &e->shape;
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "text",
			   dlt_conv_problem_str(p, buf, sizeof(buf)));
	dlt_json_dims(j, "x", p->x, p->nb_dims, 8);
	dlt_json_dims(j, "w", p->w, p->nb_dims, 8);
	dlt_json_dims(j, "y", p->y, p->nb_dims, 8);
	dlt_json_dims(j, "pad", p->pad, p->conv_dims, 6);
	dlt_json_dims(j, "stride", p->stride, p->conv_dims, 6);
	dlt_json_dims(j, "dilation", p->dilation, p->conv_dims, 6);
	dlt_json_kv_string(j, "data_type", dlt_cudnn_dtype_name(p->data_type));
	dlt_json_kv_string(j, "compute_type",
			   dlt_cudnn_dtype_name(p->compute_type));
	dlt_json_kv_int(j, "math_type", p->math_type);
	dlt_json_kv_int(j, "mode", p->mode);
	dlt_json_kv_int(j, "groups", p->groups);
	dlt_json_object_end(j);
}

void dlt_json_conv_choice(struct dlt_json *j, const struct dlt_conv_entry *e,
			  const struct dlt_conv_choice *c)
{
	char buf[256];
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "text",
			   dlt_conv_choice_str(e, c, buf, sizeof(buf)));
	if (!c->known) {
		dlt_json_object_end(j);
		return;
	}
	dlt_json_kv_string(j, "api", c->backend ? "backend" : "legacy");
	if (c->backend) {
		dlt_json_kv_int(j, "engine", c->id);
		dlt_json_kv_string(j, "knobs", c->knobs);
	} else {
		dlt_json_kv_int(j, "algo", c->id);
		dlt_json_kv_string(j, "name",
				   dlt_conv_algo_name(e->dir, c->id));
	}
	dlt_json_kv_bool(j, "executed", c->executed);
	dlt_json_kv_string(j, "executed_set", c->executed_set);
	dlt_json_kv_uint(j, "count", c->count);
	if (c->mean_us >= 0)
		dlt_json_kv_double(j, "mean_us", c->mean_us);
	else
		dlt_json_kv_null(j, "mean_us");
	if (c->select_ms >= 0)
		dlt_json_kv_double(j, "selection_time_ms", c->select_ms);
	else
		dlt_json_kv_null(j, "selection_time_ms");
	dlt_json_object_end(j);
}
