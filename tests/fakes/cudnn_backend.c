/* Fake cuDNN 9 backend (graph) API, in libcudnn_graph.so.9 as in the real
 * one.  Descriptors store every attribute generically (name, type, count,
 * bytes) so that Get returns what Set stored; Finalize checks what the real
 * library checks on the descriptor kinds a convolution needs (as measured
 * against 9.19 where no GPU is needed) and derives what Get may then ask
 * for: engine counts, heuristic results, workspace sizes, the plan's JSON.
 *
 * Knobs:
 *   FAKE_CUDNN_BAD_ENGINES        "3,5": finalizing an execution plan whose
 *                                 engine has one of these global indices
 *                                 returns CUDNN_STATUS_NOT_SUPPORTED
 *   FAKE_CUDNN_BAD_ENGINES_STAGE  "engine": fail when the engine itself is
 *                                 finalized instead
 *   FAKE_CUDNN_ALGO_SEED          changes the heuristic order as for the
 *                                 legacy API (>= 64 input channels only) */
#include "fake_cudnn.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BK_MAGIC 0x424b4e44u
#define BK_MAX_ATTRS 32
#define BK_MAX_KNOBS 8
#define BK_MAX_UIDS 8
#define BK_ANY -1
#define BK_NUM_TYPES 44 /* cudnnBackendDescriptorType_t values in 9.19 */
#define BK_NUM_KNOBS 44 /* CUDNN_KNOB_TYPE_COUNTS in 9.19 */

struct bk_attr {
	int name;
	int type;
	int64_t count;
	void *data;
};

/* What Finalize derived from the attributes. */
struct bk_info {
	int has_problem;
	struct dlt_conv_problem prob;
	char problem[160];
	int nuids;
	int64_t uids[BK_MAX_UIDS];
	int64_t engine_count;
	int64_t gi;
	int nknobs;
	int64_t knob_type[BK_MAX_KNOBS];
	int64_t knob_value[BK_MAX_KNOBS];
	int64_t ws;
	char json[512];
};

struct bk_desc {
	uint32_t magic;
	int type;
	int finalized;
	int nattr;
	struct bk_attr attr[BK_MAX_ATTRS];
	struct bk_info info;
	struct bk_desc *owned; /* a heuristic result's engine */
};

static size_t type_size(int t)
{
	switch (t) {
	case CUDNN_TYPE_HANDLE:
	case CUDNN_TYPE_INT64:
	case CUDNN_TYPE_DOUBLE:
	case CUDNN_TYPE_VOID_PTR:
	case CUDNN_TYPE_BACKEND_DESCRIPTOR:
		return 8;
	case CUDNN_TYPE_BOOLEAN:
	case CUDNN_TYPE_CHAR:
		return 1;
	case CUDNN_TYPE_FRACTION:
		return sizeof(cudnnFraction_t);
	default:
		return 4; /* every enum, INT32, FLOAT */
	}
}

/* Which attributes a descriptor kind takes, and of which type.  Returns 0
 * when NAME does not belong to descriptors of kind DTYPE.  Kinds the fake
 * does not model take anything. */
static int attr_spec(int dtype, int name, int *want)
{
	static const struct {
		int dtype, name, type;
	} spec[] = {
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 900, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 901, CUDNN_TYPE_DATA_TYPE},
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 902, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 903, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 904, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 905, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 906, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 907, CUDNN_TYPE_BOOLEAN},
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 908, CUDNN_TYPE_BOOLEAN},
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 909,
		 CUDNN_TYPE_TENSOR_REORDERING_MODE},
		{CUDNN_BACKEND_TENSOR_DESCRIPTOR, 913,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 100,
		 CUDNN_TYPE_DATA_TYPE},
		{CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 101,
		 CUDNN_TYPE_CONVOLUTION_MODE},
		{CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 102, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 103, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 104, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 105, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 106, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, 200,
		 CUDNN_TYPE_HEUR_MODE},
		{CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, 201,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, 202,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, 203, CUDNN_TYPE_INT32},
		{CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, 204,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 300,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 301,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 302,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 303, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 304, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 400,
		 CUDNN_TYPE_HANDLE},
		{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 401,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 402,
		 CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 403,
		 CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 404,
		 CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 405, CUDNN_TYPE_CHAR},
		{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 406,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 407,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, 600,
		 CUDNN_TYPE_KNOB_TYPE},
		{CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, 601, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 800,
		 CUDNN_TYPE_HANDLE},
		{CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 801,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 802,
		 CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 803,
		 CUDNN_TYPE_BOOLEAN},
		{CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 804,
		 CUDNN_TYPE_BOOLEAN},
		{CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 1000, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 1001,
		 CUDNN_TYPE_VOID_PTR},
		{CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 1002,
		 CUDNN_TYPE_VOID_PTR},
		{CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 1003,
		 CUDNN_TYPE_VOID_PTR},
		{CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 1010, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 1011, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 1012, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1300,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1301, CUDNN_TYPE_INT64},
		{CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1302,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1303,
		 CUDNN_TYPE_NUMERICAL_NOTE},
		{CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1304,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1305,
		 CUDNN_TYPE_BEHAVIOR_NOTE},
		{CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1306, CUDNN_TYPE_INT32},
		{CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1307,
		 CUDNN_TYPE_BACKEND_DESCRIPTOR},
		{CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1308, CUDNN_TYPE_BOOLEAN},
	};
	/* The three convolution operations: alpha and beta FLOAT or DOUBLE,
	 * four descriptors, in blocks of six from 700. */
	static const int ops[3] = {
		CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
		CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
		CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
	};
	int modeled = 0;

	for (int i = 0; i < 3; i++) {
		if (dtype != ops[i])
			continue;
		int base = 700 + 6 * i;
		if (name < base || name >= base + 6)
			return 0;
		*want = name < base + 2 ? BK_ANY
					: CUDNN_TYPE_BACKEND_DESCRIPTOR;
		return 1;
	}
	for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		if (spec[i].dtype != dtype)
			continue;
		modeled = 1;
		if (spec[i].name == name) {
			*want = spec[i].type;
			return 1;
		}
	}
	*want = BK_ANY;
	return !modeled;
}

static struct bk_desc *bk(cudnnBackendDescriptor_t d)
{
	struct bk_desc *b = d;
	return b != NULL && b->magic == BK_MAGIC ? b : NULL;
}

static struct bk_attr *attr_find(struct bk_desc *d, int name)
{
	for (int i = 0; i < d->nattr; i++)
		if (d->attr[i].name == name)
			return &d->attr[i];
	return NULL;
}

/* The first element of an INT64 attribute, or DFLT. */
static int64_t attr_i64(struct bk_desc *d, int name, int64_t dflt)
{
	struct bk_attr *a = attr_find(d, name);
	if (a == NULL || a->count < 1 || a->type != CUDNN_TYPE_INT64)
		return dflt;
	int64_t v;
	memcpy(&v, a->data, sizeof(v));
	return v;
}

/* The I-th descriptor of a BACKEND_DESCRIPTOR attribute, if finalized and
 * of kind KIND (any kind when KIND < 0). */
static struct bk_desc *attr_desc(struct bk_desc *d, int name, int64_t i,
				 int kind)
{
	struct bk_attr *a = attr_find(d, name);
	if (a == NULL || a->type != CUDNN_TYPE_BACKEND_DESCRIPTOR ||
	    i >= a->count)
		return NULL;
	void *p;
	memcpy(&p, (char *)a->data + 8 * i, sizeof(p));
	struct bk_desc *r = bk(p);
	if (r == NULL || !r->finalized || (kind >= 0 && r->type != kind))
		return NULL;
	return r;
}

static void attrs_free(struct bk_desc *d)
{
	for (int i = 0; i < d->nattr; i++)
		free(d->attr[i].data);
	d->nattr = 0;
}

static cudnnStatus_t attr_store(struct bk_desc *d, int name, int type,
				int64_t count, const void *data)
{
	size_t bytes = type_size(type) * (size_t)count;
	void *copy = malloc(bytes > 0 ? bytes : 1);
	if (copy == NULL)
		return DLT_ST_ALLOC_FAILED;
	if (bytes > 0)
		memcpy(copy, data, bytes);
	struct bk_attr *a = attr_find(d, name);
	if (a == NULL) {
		if (d->nattr == BK_MAX_ATTRS) {
			free(copy);
			return DLT_ST_ALLOC_FAILED;
		}
		a = &d->attr[d->nattr++];
	} else {
		free(a->data);
	}
	a->name = name;
	a->type = type;
	a->count = count;
	a->data = copy;
	return DLT_ST_SUCCESS;
}

static void desc_free(struct bk_desc *d)
{
	attrs_free(d);
	if (d->owned != NULL)
		desc_free(d->owned);
	d->magic = 0;
	free(d);
}

static void desc_reset(struct bk_desc *d)
{
	attrs_free(d);
	if (d->owned != NULL)
		desc_free(d->owned);
	d->owned = NULL;
	d->finalized = 0;
	memset(&d->info, 0, sizeof(d->info));
}

/* DST becomes a copy of SRC; an engine SRC owns is copied too, and DST's
 * configuration then points at the copy. */
static cudnnStatus_t desc_copy(struct bk_desc *dst, const struct bk_desc *src)
{
	desc_reset(dst);
	dst->type = src->type;
	dst->finalized = src->finalized;
	dst->info = src->info;
	for (int i = 0; i < src->nattr; i++) {
		const struct bk_attr *a = &src->attr[i];
		cudnnStatus_t st =
			attr_store(dst, a->name, a->type, a->count, a->data);
		if (st != DLT_ST_SUCCESS)
			return st;
	}
	if (src->owned != NULL) {
		struct bk_desc *e = calloc(1, sizeof(*e));
		if (e == NULL)
			return DLT_ST_ALLOC_FAILED;
		e->magic = BK_MAGIC;
		dst->owned = e;
		cudnnStatus_t st = desc_copy(e, src->owned);
		if (st != DLT_ST_SUCCESS)
			return st;
		return attr_store(dst, CUDNN_ATTR_ENGINECFG_ENGINE,
				  CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e);
	}
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t
cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
			     cudnnBackendDescriptor_t *descriptor)
{
	if (descriptor == NULL)
		return DLT_ST_BAD_PARAM_NULL;
	/* 9.19 answers an unknown kind with HOST_ALLOCATION_FAILED. */
	if ((int)descriptorType < 0 || (int)descriptorType >= BK_NUM_TYPES)
		return DLT_ST_ALLOC_FAILED;
	struct bk_desc *d = calloc(1, sizeof(*d));
	if (d == NULL)
		return DLT_ST_ALLOC_FAILED;
	d->magic = BK_MAGIC;
	d->type = descriptorType;
	*descriptor = d;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t
cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor)
{
	if (descriptor == NULL)
		return DLT_ST_BAD_PARAM_NULL;
	struct bk_desc *d = bk(descriptor);
	if (d == NULL)
		return DLT_ST_BAD_PARAM;
	desc_free(d);
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t
cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
			 cudnnBackendAttributeName_t attributeName,
			 cudnnBackendAttributeType_t attributeType,
			 int64_t elementCount, const void *arrayOfElements)
{
	int want;
	if (descriptor == NULL)
		return DLT_ST_BAD_PARAM_NULL;
	struct bk_desc *d = bk(descriptor);
	if (d == NULL || d->finalized || elementCount < 0 ||
	    (elementCount > 0 && arrayOfElements == NULL) ||
	    !attr_spec(d->type, attributeName, &want))
		return DLT_ST_BAD_PARAM;
	/* Alpha and beta: FLOAT or DOUBLE, anything else is BAD_PARAM (not
	 * BAD_PARAM_ATTRIBUTE_TYPE) in 9.19. */
	if (want == BK_ANY && d->type >= 10 && d->type <= 12 &&
	    attributeType != CUDNN_TYPE_FLOAT &&
	    attributeType != CUDNN_TYPE_DOUBLE)
		return DLT_ST_BAD_PARAM;
	if (want != BK_ANY && want != (int)attributeType)
		return DLT_ST_BAD_PARAM_ATTR_TYPE;
	return attr_store(d, attributeName, attributeType, elementCount,
			  arrayOfElements);
}

/* ---------------------------------------------------------------------
 * Finalize, per kind. */

static int64_t bad_engine(int64_t gi, const char *stage)
{
	const char *s = getenv("FAKE_CUDNN_BAD_ENGINES_STAGE");
	if (s == NULL || *s == '\0')
		s = "plan";
	return strcmp(s, stage) == 0 &&
	       fake_env_list_has("FAKE_CUDNN_BAD_ENGINES", (long)gi);
}

static cudnnStatus_t fin_tensor(struct bk_desc *d)
{
	struct bk_attr *dims = attr_find(d, CUDNN_ATTR_TENSOR_DIMENSIONS);
	struct bk_attr *str = attr_find(d, CUDNN_ATTR_TENSOR_STRIDES);
	if (dims == NULL || str == NULL || dims->count != str->count ||
	    dims->count < 1 || dims->count > CUDNN_DIM_MAX ||
	    attr_find(d, CUDNN_ATTR_TENSOR_DATA_TYPE) == NULL ||
	    attr_find(d, CUDNN_ATTR_TENSOR_UNIQUE_ID) == NULL ||
	    attr_find(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT) == NULL)
		return DLT_ST_BAD_PARAM;
	for (int64_t i = 0; i < dims->count; i++) {
		int64_t v;
		memcpy(&v, (char *)dims->data + 8 * i, 8);
		if (v <= 0)
			return DLT_ST_BAD_PARAM;
	}
	return DLT_ST_SUCCESS;
}

static cudnnStatus_t fin_conv(struct bk_desc *d)
{
	int64_t n = attr_i64(d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, -1);
	const int arrays[] = {CUDNN_ATTR_CONVOLUTION_DILATIONS,
			      CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
			      CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
			      CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS};
	if (attr_find(d, CUDNN_ATTR_CONVOLUTION_COMP_TYPE) == NULL ||
	    attr_find(d, CUDNN_ATTR_CONVOLUTION_CONV_MODE) == NULL)
		return DLT_ST_BAD_PARAM;
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		struct bk_attr *a = attr_find(d, arrays[i]);
		if (a == NULL || a->count < 1 || (n >= 0 && a->count != n))
			return DLT_ST_BAD_PARAM;
		n = a->count;
	}
	return DLT_ST_SUCCESS;
}

static void dims_of(struct bk_desc *t, int attr, int64_t *out, int64_t max)
{
	struct bk_attr *a = attr_find(t, attr);
	int64_t n = a != NULL && a->count < max ? a->count : max;
	for (int64_t i = 0; i < max; i++)
		out[i] = 0;
	if (a != NULL)
		memcpy(out, a->data, 8 * (size_t)n);
}

/* A convolution operation: its tensors and convolution, the problem they
 * make, and whether the shapes agree. */
static cudnnStatus_t fin_conv_op(struct bk_desc *d)
{
	int base = 700 + 6 * (d->type == 12 ? 1 : d->type == 11 ? 2 : 0);
	/* Descriptor order in each block: conv, then three tensors. */
	struct bk_desc *conv =
		attr_desc(d, base + 2, 0, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
	struct bk_desc *t[3];
	for (int i = 0; i < 3; i++) {
		t[i] = attr_desc(d, base + 3 + i, 0,
				 CUDNN_BACKEND_TENSOR_DESCRIPTOR);
		if (t[i] == NULL)
			return DLT_ST_BAD_PARAM;
	}
	if (conv == NULL)
		return DLT_ST_BAD_PARAM;
	/* Forward: W, X, Y.  Backward data: W, DX, DY.  Backward filter: DW,
	 * X, DY: the filter first, the input second, the output third. */
	struct bk_desc *w = t[0], *x = t[1], *y = t[2];
	int64_t xd[4], wd[4], yd[4], pad[2], str[2], dil[2];
	struct bk_attr *xa = attr_find(x, CUDNN_ATTR_TENSOR_DIMENSIONS);
	if (xa == NULL || xa->count != 4)
		return DLT_ST_NOT_SUPPORTED;
	dims_of(x, CUDNN_ATTR_TENSOR_DIMENSIONS, xd, 4);
	dims_of(w, CUDNN_ATTR_TENSOR_DIMENSIONS, wd, 4);
	dims_of(y, CUDNN_ATTR_TENSOR_DIMENSIONS, yd, 4);
	dims_of(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, pad, 2);
	dims_of(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, str, 2);
	dims_of(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, dil, 2);
	if (wd[1] <= 0 || xd[1] % wd[1] != 0 || str[0] <= 0 || str[1] <= 0)
		return DLT_ST_BAD_PARAM;
	struct dlt_conv_problem *p = &d->info.prob;
	memset(p, 0, sizeof(*p));
	p->n = xd[0], p->c = xd[1], p->h = xd[2], p->w = xd[3];
	p->k = wd[0], p->r = wd[2], p->s = wd[3];
	p->pad_h = pad[0], p->pad_w = pad[1];
	p->str_h = str[0], p->str_w = str[1];
	p->dil_h = dil[0], p->dil_w = dil[1];
	p->groups = xd[1] / wd[1];
	p->oh = (p->h + 2 * p->pad_h - (p->dil_h * (p->r - 1) + 1)) / p->str_h +
		1;
	p->ow = (p->w + 2 * p->pad_w - (p->dil_w * (p->s - 1) + 1)) / p->str_w +
		1;
	if (p->oh <= 0 || p->ow <= 0 || yd[0] != p->n || yd[1] != p->k ||
	    yd[2] != p->oh || yd[3] != p->ow)
		return DLT_ST_BAD_PARAM;
	struct bk_attr *dta = attr_find(x, CUDNN_ATTR_TENSOR_DATA_TYPE);
	memcpy(&p->dtype, dta->data, sizeof(p->dtype));
	d->info.has_problem = 1;
	d->info.nuids = 3;
	d->info.uids[0] = attr_i64(x, CUDNN_ATTR_TENSOR_UNIQUE_ID, -1);
	d->info.uids[1] = attr_i64(w, CUDNN_ATTR_TENSOR_UNIQUE_ID, -1);
	d->info.uids[2] = attr_i64(y, CUDNN_ATTR_TENSOR_UNIQUE_ID, -1);
	static const char *const kinds[] = {"conv_fwd", "conv_bwd_data",
					    "conv_bwd_filter"};
	snprintf(d->info.problem, sizeof(d->info.problem),
		 "%s x=%ldx%ldx%ldx%ld w=%ldx%ldx%ldx%ld pad=%ld,%ld "
		 "stride=%ld,%ld dil=%ld,%ld",
		 kinds[(base - 700) / 6], p->n, p->c, p->h, p->w, p->k,
		 p->c / p->groups, p->r, p->s, p->pad_h, p->pad_w, p->str_h,
		 p->str_w, p->dil_h, p->dil_w);
	return DLT_ST_SUCCESS;
}

static cudnnStatus_t fin_graph(struct bk_desc *d)
{
	struct bk_attr *ops = attr_find(d, CUDNN_ATTR_OPERATIONGRAPH_OPS);
	struct bk_attr *h = attr_find(d, CUDNN_ATTR_OPERATIONGRAPH_HANDLE);
	cudnnHandle_t handle = NULL;
	if (h != NULL && h->count == 1)
		memcpy(&handle, h->data, sizeof(handle));
	if (ops == NULL || ops->count < 1 || !dlt_handle_ok(handle))
		return DLT_ST_BAD_PARAM;
	for (int64_t i = 0; i < ops->count; i++) {
		struct bk_desc *op =
			attr_desc(d, CUDNN_ATTR_OPERATIONGRAPH_OPS, i, -1);
		if (op == NULL)
			return DLT_ST_BAD_PARAM;
		if (!d->info.has_problem && op->info.has_problem) {
			d->info.has_problem = 1;
			d->info.prob = op->info.prob;
			memcpy(d->info.problem, op->info.problem,
			       sizeof(d->info.problem));
			d->info.nuids = op->info.nuids;
			memcpy(d->info.uids, op->info.uids,
			       sizeof(d->info.uids));
		}
	}
	d->info.engine_count =
		d->info.has_problem ? dlt_rank_count(DLT_DIR_ENGINE) : 0;
	return DLT_ST_SUCCESS;
}

/* What an engine, a configuration and a plan carry from their graph. */
static void inherit(struct bk_desc *d, const struct bk_desc *from)
{
	d->info.has_problem = from->info.has_problem;
	d->info.prob = from->info.prob;
	memcpy(d->info.problem, from->info.problem, sizeof(d->info.problem));
	d->info.nuids = from->info.nuids;
	memcpy(d->info.uids, from->info.uids, sizeof(d->info.uids));
	d->info.engine_count = from->info.engine_count;
}

static cudnnStatus_t fin_engine(struct bk_desc *d)
{
	struct bk_desc *g = attr_desc(d, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, 0,
				      CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
	int64_t gi = attr_i64(d, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, -1);
	if (attr_find(d, CUDNN_ATTR_ENGINE_OPERATION_GRAPH) == NULL)
		return DLT_ST_BAD_PARAM_NULL; /* as 9.19 */
	if (g == NULL || gi < 0 || gi >= g->info.engine_count)
		return DLT_ST_BAD_PARAM;
	if (!dlt_rank_supported(&g->info.prob, DLT_DIR_ENGINE, (int)gi) ||
	    bad_engine(gi, "engine"))
		return DLT_ST_NOT_SUPPORTED;
	inherit(d, g);
	d->info.gi = gi;
	return DLT_ST_SUCCESS;
}

/* 9.19 finalizes a knob choice with nothing set: knob 0, value 0. */
static cudnnStatus_t fin_knob(struct bk_desc *d)
{
	struct bk_attr *t = attr_find(d, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE);
	int kt = 0;
	if (t != NULL && t->count == 1)
		memcpy(&kt, t->data, sizeof(kt));
	if (kt < 0 || kt >= BK_NUM_KNOBS)
		return DLT_ST_BAD_PARAM;
	d->info.nknobs = 1;
	d->info.knob_type[0] = kt;
	d->info.knob_value[0] =
		attr_i64(d, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, 0);
	return DLT_ST_SUCCESS;
}

static cudnnStatus_t fin_cfg(struct bk_desc *d)
{
	struct bk_desc *e = attr_desc(d, CUDNN_ATTR_ENGINECFG_ENGINE, 0,
				      CUDNN_BACKEND_ENGINE_DESCRIPTOR);
	struct bk_attr *k = attr_find(d, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES);
	if (e == NULL)
		return DLT_ST_BAD_PARAM;
	inherit(d, e);
	d->info.gi = e->info.gi;
	d->info.nknobs = 0;
	for (int64_t i = 0; k != NULL && i < k->count; i++) {
		struct bk_desc *kc =
			attr_desc(d, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, i,
				  CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
		if (kc == NULL || d->info.nknobs == BK_MAX_KNOBS)
			return DLT_ST_BAD_PARAM;
		d->info.knob_type[d->info.nknobs] = kc->info.knob_type[0];
		d->info.knob_value[d->info.nknobs++] = kc->info.knob_value[0];
	}
	d->info.ws = (int64_t)dlt_rank_memory(&d->info.prob, DLT_DIR_ENGINE,
					      (int)d->info.gi);
	return DLT_ST_SUCCESS;
}

static cudnnStatus_t fin_plan(struct bk_desc *d)
{
	struct bk_desc *c =
		attr_desc(d, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, 0,
			  CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
	struct bk_attr *h = attr_find(d, CUDNN_ATTR_EXECUTION_PLAN_HANDLE);
	cudnnHandle_t handle = NULL;
	if (h != NULL && h->count == 1)
		memcpy(&handle, h->data, sizeof(handle));
	if (c == NULL || !dlt_handle_ok(handle))
		return DLT_ST_BAD_PARAM;
	if (bad_engine(c->info.gi, "plan"))
		return DLT_ST_NOT_SUPPORTED;
	d->info = c->info;
	/* Not the real schema, but a JSON object carrying what the real one
	 * identifies a plan by: engine, knobs, graph, library version. */
	char knobs[160] = "";
	size_t len = 0;
	for (int i = 0; i < d->info.nknobs && len < sizeof(knobs); i++)
		len += (size_t)snprintf(knobs + len, sizeof(knobs) - len,
					"%s\"%ld\":%ld", i ? "," : "",
					(long)d->info.knob_type[i],
					(long)d->info.knob_value[i]);
	snprintf(d->info.json, sizeof(d->info.json),
		 "{\"version\":\"%ld\",\"engineId\":%ld,\"knobs\":{%s},"
		 "\"workspace\":%ld,\"operationGraph\":\"%s\"}",
		 dlt_cudnn_version(), (long)d->info.gi, knobs, (long)d->info.ws,
		 d->info.problem);
	return DLT_ST_SUCCESS;
}

static cudnnStatus_t fin_heur(struct bk_desc *d)
{
	struct bk_desc *g =
		attr_desc(d, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, 0,
			  CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
	if (g == NULL || attr_find(d, CUDNN_ATTR_ENGINEHEUR_MODE) == NULL)
		return DLT_ST_BAD_PARAM;
	inherit(d, g);
	return DLT_ST_SUCCESS;
}

static cudnnStatus_t fin_pack(struct bk_desc *d)
{
	struct bk_attr *u = attr_find(d, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
	struct bk_attr *p = attr_find(d, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
	if (u == NULL || p == NULL || u->count != p->count || u->count < 1)
		return DLT_ST_BAD_PARAM;
	return DLT_ST_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t
cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor)
{
	if (descriptor == NULL)
		return DLT_ST_BAD_PARAM_NULL;
	struct bk_desc *d = bk(descriptor);
	if (d == NULL || d->finalized)
		return DLT_ST_BAD_PARAM;
	cudnnStatus_t st = DLT_ST_SUCCESS;
	switch (d->type) {
	case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
		st = fin_tensor(d);
		break;
	case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR:
		st = fin_conv(d);
		break;
	case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
	case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
	case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
		st = fin_conv_op(d);
		break;
	case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
		st = fin_graph(d);
		break;
	case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
		st = fin_engine(d);
		break;
	case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
		st = fin_knob(d);
		break;
	case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
		st = fin_cfg(d);
		break;
	case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
		st = fin_plan(d);
		break;
	case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
		st = fin_heur(d);
		break;
	case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
		st = fin_pack(d);
		break;
	default:
		break;
	}
	if (st == DLT_ST_SUCCESS)
		d->finalized = 1;
	return st;
}

/* ---------------------------------------------------------------------
 * Get. */

/* Copy N elements of SIZE bytes, reporting the count as the real library
 * does: the total when none was requested, else what was written. */
static cudnnStatus_t get_values(const void *src, int64_t total, size_t size,
				int64_t requested, int64_t *elementCount,
				void *out)
{
	int64_t n = requested < total ? requested : total;
	if (elementCount != NULL)
		*elementCount = requested == 0 ? total : n;
	if (n > 0 && out != NULL && src != NULL)
		memcpy(out, src, size * (size_t)n);
	return DLT_ST_SUCCESS;
}

/* The heuristic's answer: engine configurations, best first, written into
 * the configuration descriptors the caller created. */
static cudnnStatus_t get_heur_results(struct bk_desc *d, int64_t requested,
				      int64_t *elementCount, void *out)
{
	struct dlt_candidate cand[DLT_MAX_CANDIDATES];
	int64_t gis[DLT_MAX_CANDIDATES], total = 0;
	int mode = 0;
	struct bk_attr *m = attr_find(d, CUDNN_ATTR_ENGINEHEUR_MODE);
	memcpy(&mode, m->data, sizeof(mode));
	int n = dlt_rank(&d->info.prob, DLT_DIR_ENGINE, DLT_RANK_HEURISTIC, 0,
			 cand);
	for (int i = 0; i < n; i++)
		if (cand[i].time >= 0)
			gis[total++] = cand[i].algo;
	if (mode == CUDNN_HEUR_MODE_FALLBACK) {
		/* Fallback lists the always-working engines by index. */
		total = 0;
		for (int i = 0; i < dlt_rank_count(DLT_DIR_ENGINE); i++)
			if (dlt_rank_supported(&d->info.prob, DLT_DIR_ENGINE,
					       i) &&
			    i < 4)
				gis[total++] = i;
	}
	int64_t k = requested < total ? requested : total;
	if (elementCount != NULL)
		*elementCount = requested == 0 ? total : k;
	for (int64_t i = 0; i < k && out != NULL; i++) {
		void *p;
		memcpy(&p, (char *)out + 8 * i, sizeof(p));
		struct bk_desc *cfg = bk(p);
		if (cfg == NULL ||
		    cfg->type != CUDNN_BACKEND_ENGINECFG_DESCRIPTOR)
			return DLT_ST_BAD_PARAM;
		/* The engine belongs to the configuration, freed with it. */
		desc_reset(cfg);
		struct bk_desc *e = calloc(1, sizeof(*e));
		if (e == NULL)
			return DLT_ST_ALLOC_FAILED;
		cfg->owned = e;
		e->magic = BK_MAGIC;
		e->type = CUDNN_BACKEND_ENGINE_DESCRIPTOR;
		struct bk_attr *ga =
			attr_find(d, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
		attr_store(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH,
			   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, ga->data);
		attr_store(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64,
			   1, &gis[i]);
		inherit(e, d);
		e->info.gi = gis[i];
		e->finalized = 1;
		attr_store(cfg, CUDNN_ATTR_ENGINECFG_ENGINE,
			   CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e);
		cudnnStatus_t st = fin_cfg(cfg);
		if (st != DLT_ST_SUCCESS)
			return st;
		cfg->finalized = 1;
	}
	return DLT_ST_SUCCESS;
}

/* Values Finalize derived rather than the caller set.  Returns 1 when NAME
 * is one of them (and *st what Get returns). */
static int get_derived(struct bk_desc *d, int name, int64_t requested,
		       int64_t *elementCount, void *out, cudnnStatus_t *st)
{
	int64_t v;
	switch (name) {
	case CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT:
		v = d->info.engine_count;
		break;
	case CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE:
	case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE:
		v = d->info.ws;
		break;
	case CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED:
		v = 0;
		break;
	case CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION:
		/* The count includes the terminating NUL. */
		*st = get_values(d->info.json,
				 (int64_t)strlen(d->info.json) + 1, 1,
				 requested, elementCount, out);
		return 1;
	case CUDNN_ATTR_ENGINEHEUR_RESULTS:
		*st = get_heur_results(d, requested, elementCount, out);
		return 1;
	case CUDNN_ATTR_ENGINE_KNOB_INFO:
	case CUDNN_ATTR_ENGINE_NUMERICAL_NOTE:
	case CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE:
	case CUDNN_ATTR_ENGINE_LAYOUT_INFO:
	case CUDNN_ATTR_ENGINECFG_INTERMEDIATE_INFO:
		/* None: no knobs to tune, nothing to note. */
		*st = get_values(NULL, 0, 8, requested, elementCount, out);
		return 1;
	default:
		return 0;
	}
	*st = get_values(&v, 1, sizeof(v), requested, elementCount, out);
	return 1;
}

FAKE_EXPORT cudnnStatus_t
cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
			 cudnnBackendAttributeName_t attributeName,
			 cudnnBackendAttributeType_t attributeType,
			 int64_t requestedElementCount, int64_t *elementCount,
			 void *arrayOfElements)
{
	int want;
	cudnnStatus_t st;
	if (descriptor == NULL)
		return DLT_ST_BAD_PARAM_NULL;
	struct bk_desc *d = bk(descriptor);
	if (d == NULL || requestedElementCount < 0 ||
	    !attr_spec(d->type, attributeName, &want))
		return DLT_ST_BAD_PARAM;
	if (want != BK_ANY && want != (int)attributeType)
		return DLT_ST_BAD_PARAM_ATTR_TYPE;
	if (!d->finalized)
		return DLT_ST_NOT_INITIALIZED;
	if (get_derived(d, attributeName, requestedElementCount, elementCount,
			arrayOfElements, &st))
		return st;
	struct bk_attr *a = attr_find(d, attributeName);
	if (a == NULL)
		return get_values(NULL, 0, 1, requestedElementCount,
				  elementCount, arrayOfElements);
	if (a->type != (int)attributeType)
		return DLT_ST_BAD_PARAM_ATTR_TYPE;
	if (a->type != CUDNN_TYPE_BACKEND_DESCRIPTOR)
		return get_values(a->data, a->count, type_size(a->type),
				  requestedElementCount, elementCount,
				  arrayOfElements);
	/* Descriptors are copied into the ones the caller created. */
	int64_t n = requestedElementCount < a->count ? requestedElementCount
						     : a->count;
	if (elementCount != NULL)
		*elementCount = requestedElementCount == 0 ? a->count : n;
	for (int64_t i = 0; i < n && arrayOfElements != NULL; i++) {
		void *sp, *dp;
		memcpy(&sp, (char *)a->data + 8 * i, sizeof(sp));
		memcpy(&dp, (char *)arrayOfElements + 8 * i, sizeof(dp));
		struct bk_desc *src = bk(sp), *dst = bk(dp);
		if (src == NULL || dst == NULL || dst->type != src->type)
			return DLT_ST_BAD_PARAM;
		st = desc_copy(dst, src);
		if (st != DLT_ST_SUCCESS)
			return st;
	}
	return DLT_ST_SUCCESS;
}

/* ---------------------------------------------------------------------
 * Execute: the plan must be finalized and every tensor of its graph must
 * have a pointer in the variant pack; nothing is computed. */

FAKE_EXPORT cudnnStatus_t cudnnBackendExecute(
	cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
	cudnnBackendDescriptor_t variantPack)
{
	if (executionPlan == NULL || variantPack == NULL)
		return DLT_ST_BAD_PARAM_NULL;
	struct bk_desc *plan = bk(executionPlan), *pack = bk(variantPack);
	if (!dlt_handle_ok(handle) || plan == NULL || pack == NULL ||
	    plan->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR ||
	    pack->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR ||
	    !plan->finalized || !pack->finalized)
		return DLT_ST_BAD_PARAM;
	struct bk_attr *u = attr_find(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
	struct bk_attr *p =
		attr_find(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
	for (int i = 0; i < plan->info.nuids; i++) {
		bool found = false;
		for (int64_t j = 0; j < u->count && !found; j++) {
			int64_t uid;
			void *ptr;
			memcpy(&uid, (char *)u->data + 8 * j, 8);
			memcpy(&ptr, (char *)p->data + 8 * j, 8);
			found = uid == plan->info.uids[i] && ptr != NULL;
		}
		if (!found)
			return DLT_ST_BAD_PARAM;
	}
	struct bk_attr *ws = attr_find(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE);
	void *wsp = NULL;
	if (ws != NULL && ws->count == 1)
		memcpy(&wsp, ws->data, sizeof(wsp));
	if (plan->info.ws > 0 && wsp == NULL)
		return DLT_ST_BAD_PARAM;
	return DLT_ST_SUCCESS;
}
