/* cuDNN backend (graph) API: which engine ran which convolution.
 *
 * PyTorch >= 2.0 never names a convolution algorithm: it builds tensor,
 * convolution and operation descriptors into an operation graph, picks an
 * engine (a global index plus knob choices) by heuristics or by trying
 * them, and finalizes an execution plan from that engine configuration.
 * The attributes are only ever seen going in (SetAttribute) or coming out
 * (GetAttribute), so this file keeps what dltrace needs of every live
 * descriptor in a table keyed by the descriptor pointer, and writes one
 * BK_FINALIZE record per finalized engine, engine configuration and plan:
 * its engine, knobs, and the CONV_PROBLEM of its graph's convolution.
 *
 * cuDNN refuses a descriptor-valued attribute that is not finalized
 * (CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, seen with 9.19), so a child's
 * values are final when it is set into its parent: each parent copies what
 * it needs of its children at SetAttribute time, and no entry depends on
 * another staying in the table.  A child destroyed early changes nothing.
 *
 * This runs inside cuDNN calls of the program: no allocation, a fixed
 * table, a lock that gives up rather than waits forever, and the only
 * memory read that the program handed over is the attribute array, within
 * the count and element type cuDNN itself accepted. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "apitable.h"
#include "convprob.h"
#include "cudnn_backend.h"
#include "hooks.h"
#include "state.h"

#define DLT_BK_SLOTS 8192u /* power of two */
#define DLT_BK_DIMS 8	   /* CUDNN_DIM_MAX */
#define DLT_BK_SPATIAL 6   /* struct dlt_rec_conv_problem's arrays */
#define DLT_BK_KNOBS 16
#define DLT_BK_OPS_SCAN 64 /* ops of a graph looked at for a convolution */
#define DLT_BK_SPIN 64	   /* pauses before yielding the CPU */
#define DLT_BK_YIELDS 100000u

/* Entry flags. */
#define DLT_BKF_FINALIZED 0x1u /* Finalize succeeded */
#define DLT_BKF_FILLED 0x2u    /* cuDNN filled it in a GetAttribute */

/* A tensor as a convolution problem records it. */
struct dlt_bk_tsnap {
	int32_t nd; /* 0 unknown */
	int32_t dtype;
	int32_t dims[DLT_BK_DIMS];
};

struct dlt_bk_tensor {
	struct dlt_bk_tsnap s;
	int32_t n_strides;
	int32_t pad;
	int64_t uid;
	int64_t strides[DLT_BK_DIMS];
};

struct dlt_bk_conv {
	int32_t known; /* 1 once any attribute was set */
	int32_t spatial;
	int32_t comp_type;
	int32_t mode;
	int32_t n_pre, n_post, n_stride, n_dil;
	int32_t pre[DLT_BK_SPATIAL];
	int32_t post[DLT_BK_SPATIAL];
	int32_t stride[DLT_BK_SPATIAL];
	int32_t dil[DLT_BK_SPATIAL];
};

/* A convolution operation.  The pointers only serve to refresh the copies
 * at the operation's own Finalize, while the children are still tracked. */
struct dlt_bk_op {
	void *xp, *wp, *yp, *cp;
	struct dlt_bk_tsnap x, w, y; /* canonical x, w, y (cudnn.c) */
	struct dlt_bk_conv c;
};

/* What an engine, engine configuration, plan or heuristics query knows. */
struct dlt_bk_sel {
	uint64_t problem;
	int32_t engine; /* -1 unknown */
	int32_t op;	/* DLT_BK_OP_* */
	int32_t knobs_known;
	uint32_t n_knobs;
	void *cfg; /* plans: the engine configuration set into it */
	struct dlt_knob knobs[DLT_BK_KNOBS];
};

struct dlt_bk_graph {
	uint64_t problem;
	int32_t op;
	int32_t pad;
};

struct dlt_bk_knob {
	int64_t type; /* -1 unknown */
	int64_t value;
};

struct dlt_bk_ent {
	void *key; /* NULL: free slot */
	int32_t type;
	uint32_t flags;
	union {
		struct dlt_bk_tensor t;
		struct dlt_bk_conv c;
		struct dlt_bk_op op;
		struct dlt_bk_graph g;
		struct dlt_bk_sel s;
		struct dlt_bk_knob k;
	} u;
};

static struct dlt_bk_ent dlt_bk_tab[DLT_BK_SLOTS];
static uint32_t dlt_bk_used;
static _Atomic int dlt_bk_lock_word;
static _Atomic uint64_t dlt_bk_untracked; /* descriptors the table missed */
static _Atomic uint64_t dlt_bk_lock_lost; /* hooks that gave up the lock */
static _Atomic int dlt_bk_full_noted;
static _Atomic int dlt_bk_lost_noted;
static pthread_once_t dlt_bk_once = PTHREAD_ONCE_INIT;
static int dlt_bk_fork_locked;

/* ---- the lock ----------------------------------------------------------- */

/* Spins, then yields, then gives up: a hook that loses the race records
 * less, but never stops the program (a lock word left set by a thread that
 * is gone must not hang every later cuDNN call). */
static int dlt_bk_lock(void)
{
	for (uint32_t i = 0; i < DLT_BK_SPIN + DLT_BK_YIELDS; i++) {
		if (!atomic_exchange_explicit(&dlt_bk_lock_word, 1,
					      memory_order_acquire))
			return 1;
		if (i < DLT_BK_SPIN) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		} else {
			sched_yield();
		}
	}
	atomic_fetch_add(&dlt_bk_lock_lost, 1);
	struct dlt_writer *w = dlt_writer_on();
	if (w && !atomic_exchange(&dlt_bk_lost_noted, 1))
		dlt_note(w, &dlt_tls, DLT_NOTE_WARN,
			 "cuDNN backend: descriptor table busy for too long; "
			 "some backend calls were not followed");
	return 0;
}

static void dlt_bk_unlock(void)
{
	atomic_store_explicit(&dlt_bk_lock_word, 0, memory_order_release);
}

/* fork() while another thread holds the lock would leave it held in the
 * child for good; take it around fork so the child's table is whole. */
static void dlt_bk_prefork(void)
{
	dlt_bk_fork_locked = dlt_bk_lock();
}

static void dlt_bk_postfork_parent(void)
{
	if (dlt_bk_fork_locked)
		dlt_bk_unlock();
}

static void dlt_bk_postfork_child(void)
{
	atomic_store(&dlt_bk_lock_word, 0);
}

static void dlt_bk_init(void)
{
	pthread_atfork(dlt_bk_prefork, dlt_bk_postfork_parent,
		       dlt_bk_postfork_child);
}

/* ---- the table: linear probing, deletion by backward shift ------------- */

static uint32_t dlt_bk_home(const void *key)
{
	uint64_t k = (uint64_t)(uintptr_t)key >> 4;
	return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 40) &
	       (DLT_BK_SLOTS - 1);
}

static struct dlt_bk_ent *dlt_bk_find(const void *key)
{
	if (key == NULL)
		return NULL;
	uint32_t i = dlt_bk_home(key);
	for (uint32_t n = 0; n < DLT_BK_SLOTS; n++) {
		struct dlt_bk_ent *e = &dlt_bk_tab[i];
		if (e->key == key)
			return e;
		if (e->key == NULL)
			return NULL;
		i = (i + 1) & (DLT_BK_SLOTS - 1);
	}
	return NULL;
}

/* A fresh entry for key (an existing one is reset: its destroy was not
 * seen and the pointer was reused).  NULL when the table is full. */
static struct dlt_bk_ent *dlt_bk_insert(void *key, int type)
{
	struct dlt_bk_ent *e = dlt_bk_find(key);
	if (e == NULL) {
		/* Keep one slot free so that every probe ends. */
		if (dlt_bk_used + 1 >= DLT_BK_SLOTS)
			return NULL;
		uint32_t i = dlt_bk_home(key);
		while (dlt_bk_tab[i].key != NULL)
			i = (i + 1) & (DLT_BK_SLOTS - 1);
		e = &dlt_bk_tab[i];
		dlt_bk_used++;
	}
	memset(e, 0, sizeof(*e));
	e->key = key;
	e->type = type;
	switch (type) {
	case DLT_CUDNN_BK_TENSOR:
		e->u.t.s.dtype = -1;
		e->u.t.uid = -1;
		break;
	case DLT_CUDNN_BK_CONVOLUTION:
		e->u.c.comp_type = -1;
		e->u.c.mode = -1;
		break;
	case DLT_CUDNN_BK_OP_CONV_FWD:
	case DLT_CUDNN_BK_OP_CONV_BWD_DATA:
	case DLT_CUDNN_BK_OP_CONV_BWD_FILTER:
		e->u.op.x.dtype = e->u.op.w.dtype = e->u.op.y.dtype = -1;
		e->u.op.c.comp_type = e->u.op.c.mode = -1;
		break;
	case DLT_CUDNN_BK_ENGINE:
	case DLT_CUDNN_BK_ENGINECFG:
	case DLT_CUDNN_BK_ENGINEHEUR:
	case DLT_CUDNN_BK_EXECUTION_PLAN:
		e->u.s.engine = -1;
		break;
	case DLT_CUDNN_BK_KNOB_CHOICE:
		e->u.k.type = -1;
		break;
	}
	return e;
}

static void dlt_bk_remove(const void *key)
{
	struct dlt_bk_ent *e = dlt_bk_find(key);
	if (e == NULL)
		return;
	uint32_t hole = (uint32_t)(e - dlt_bk_tab);
	uint32_t j = hole;
	/* Move back every later entry of the run whose home does not lie
	 * cyclically in (hole, j]: without it a lookup would stop at the
	 * hole before reaching it. */
	for (;;) {
		j = (j + 1) & (DLT_BK_SLOTS - 1);
		struct dlt_bk_ent *n = &dlt_bk_tab[j];
		if (n->key == NULL)
			break;
		uint32_t h = dlt_bk_home(n->key);
		int stays =
			hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
		if (stays)
			continue;
		dlt_bk_tab[hole] = *n;
		hole = j;
	}
	dlt_bk_tab[hole].key = NULL;
	dlt_bk_used--;
}

/* The types this file needs; others (variant packs, made per execution,
 * pointwise operations ...) are not worth a slot. */
static int dlt_bk_tracked_type(int type)
{
	switch (type) {
	case DLT_CUDNN_BK_TENSOR:
	case DLT_CUDNN_BK_CONVOLUTION:
	case DLT_CUDNN_BK_OP_CONV_FWD:
	case DLT_CUDNN_BK_OP_CONV_BWD_DATA:
	case DLT_CUDNN_BK_OP_CONV_BWD_FILTER:
	case DLT_CUDNN_BK_OPERATIONGRAPH:
	case DLT_CUDNN_BK_ENGINE:
	case DLT_CUDNN_BK_ENGINECFG:
	case DLT_CUDNN_BK_ENGINEHEUR:
	case DLT_CUDNN_BK_EXECUTION_PLAN:
	case DLT_CUDNN_BK_KNOB_CHOICE:
		return 1;
	}
	return 0;
}

static int dlt_bk_is_conv_op(int type)
{
	return type == DLT_CUDNN_BK_OP_CONV_FWD ||
	       type == DLT_CUDNN_BK_OP_CONV_BWD_DATA ||
	       type == DLT_CUDNN_BK_OP_CONV_BWD_FILTER;
}

static int dlt_bk_is_sel(int type)
{
	return type == DLT_CUDNN_BK_ENGINE || type == DLT_CUDNN_BK_ENGINECFG ||
	       type == DLT_CUDNN_BK_ENGINEHEUR ||
	       type == DLT_CUDNN_BK_EXECUTION_PLAN;
}

static void dlt_bk_full(void)
{
	atomic_fetch_add(&dlt_bk_untracked, 1);
	struct dlt_writer *w = dlt_writer_on();
	if (w && !atomic_exchange(&dlt_bk_full_noted, 1))
		dlt_note(w, &dlt_tls, DLT_NOTE_WARN,
			 "cuDNN backend: too many live descriptors; new ones "
			 "go untracked until others are destroyed (no "
			 "BK_FINALIZE for them, or one without engine or "
			 "problem)");
}

/* ---- attribute values --------------------------------------------------- */

static int32_t dlt_bk_i32(int64_t v)
{
	return v > INT32_MAX   ? INT32_MAX
	       : v < INT32_MIN ? INT32_MIN
			       : (int32_t)v;
}

/* cuDNN's enums are C enums: 4 bytes. */
static int32_t dlt_bk_enum(const void *el)
{
	int32_t v;
	memcpy(&v, el, sizeof(v));
	return v;
}

static int64_t dlt_bk_i64(const void *el, int64_t i)
{
	int64_t v;
	memcpy(&v, (const char *)el + 8 * i, sizeof(v));
	return v;
}

static void *dlt_bk_desc(const void *el, int64_t i)
{
	void *v;
	memcpy(&v, (const char *)el + sizeof(void *) * i, sizeof(v));
	return v;
}

/* An int64 array of at most cap elements into int32 slots; *count = n, or
 * -1 when the array does not fit (unknown). */
static void dlt_bk_arr32(int32_t *dst, int32_t *count, int cap, const void *el,
			 int64_t n)
{
	memset(dst, 0, sizeof(*dst) * (size_t)cap);
	if (n > cap) {
		*count = -1;
		return;
	}
	for (int64_t i = 0; i < n; i++)
		dst[i] = dlt_bk_i32(dlt_bk_i64(el, i));
	*count = (int32_t)n;
}

static void dlt_bk_conv_attr(struct dlt_bk_conv *c, int attr, int type,
			     int64_t n, const void *el)
{
	if (type == DLT_CUDNN_TYPE_INT64) {
		switch (attr) {
		case DLT_CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS:
			c->spatial = dlt_bk_i32(dlt_bk_i64(el, 0));
			break;
		case DLT_CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS:
			dlt_bk_arr32(c->pre, &c->n_pre, DLT_BK_SPATIAL, el, n);
			break;
		case DLT_CUDNN_ATTR_CONVOLUTION_POST_PADDINGS:
			dlt_bk_arr32(c->post, &c->n_post, DLT_BK_SPATIAL, el,
				     n);
			break;
		case DLT_CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES:
			dlt_bk_arr32(c->stride, &c->n_stride, DLT_BK_SPATIAL,
				     el, n);
			break;
		case DLT_CUDNN_ATTR_CONVOLUTION_DILATIONS:
			dlt_bk_arr32(c->dil, &c->n_dil, DLT_BK_SPATIAL, el, n);
			break;
		default:
			return;
		}
	} else if (type == DLT_CUDNN_TYPE_DATA_TYPE &&
		   attr == DLT_CUDNN_ATTR_CONVOLUTION_COMP_TYPE) {
		c->comp_type = dlt_bk_enum(el);
	} else if (type == DLT_CUDNN_TYPE_CONVOLUTION_MODE &&
		   attr == DLT_CUDNN_ATTR_CONVOLUTION_CONV_MODE) {
		c->mode = dlt_bk_enum(el);
	} else {
		return;
	}
	c->known = 1;
}

static void dlt_bk_tensor_attr(struct dlt_bk_tensor *t, int attr, int type,
			       int64_t n, const void *el)
{
	if (type == DLT_CUDNN_TYPE_DATA_TYPE &&
	    attr == DLT_CUDNN_ATTR_TENSOR_DATA_TYPE) {
		t->s.dtype = dlt_bk_enum(el);
		return;
	}
	if (type != DLT_CUDNN_TYPE_INT64)
		return;
	switch (attr) {
	case DLT_CUDNN_ATTR_TENSOR_DIMENSIONS:
		dlt_bk_arr32(t->s.dims, &t->s.nd, DLT_BK_DIMS, el, n);
		if (t->s.nd < 0)
			t->s.nd = 0; /* more than cuDNN allows: unknown */
		break;
	case DLT_CUDNN_ATTR_TENSOR_STRIDES:
		t->n_strides = 0;
		if (n <= DLT_BK_DIMS) {
			for (int64_t i = 0; i < n; i++)
				t->strides[i] = dlt_bk_i64(el, i);
			t->n_strides = (int32_t)n;
		}
		break;
	case DLT_CUDNN_ATTR_TENSOR_UNIQUE_ID:
		t->uid = dlt_bk_i64(el, 0);
		break;
	}
}

/* Which of the canonical x (0), w (1), y (2) or the convolution (3) each
 * operation attribute sets: x is the input activation, y the output one,
 * whichever way the data flows (cudnn.c, dlt_cudnn_problem). */
static const struct {
	int optype, attr, slot;
} dlt_bk_op_attrs[] = {
	{DLT_CUDNN_BK_OP_CONV_FWD, DLT_CUDNN_ATTR_OP_CONV_FWD_X, 0},
	{DLT_CUDNN_BK_OP_CONV_FWD, DLT_CUDNN_ATTR_OP_CONV_FWD_W, 1},
	{DLT_CUDNN_BK_OP_CONV_FWD, DLT_CUDNN_ATTR_OP_CONV_FWD_Y, 2},
	{DLT_CUDNN_BK_OP_CONV_FWD, DLT_CUDNN_ATTR_OP_CONV_FWD_CONV_DESC, 3},
	{DLT_CUDNN_BK_OP_CONV_BWD_DATA, DLT_CUDNN_ATTR_OP_CONV_BWD_DATA_DX, 0},
	{DLT_CUDNN_BK_OP_CONV_BWD_DATA, DLT_CUDNN_ATTR_OP_CONV_BWD_DATA_W, 1},
	{DLT_CUDNN_BK_OP_CONV_BWD_DATA, DLT_CUDNN_ATTR_OP_CONV_BWD_DATA_DY, 2},
	{DLT_CUDNN_BK_OP_CONV_BWD_DATA,
	 DLT_CUDNN_ATTR_OP_CONV_BWD_DATA_CONV_DESC, 3},
	{DLT_CUDNN_BK_OP_CONV_BWD_FILTER, DLT_CUDNN_ATTR_OP_CONV_BWD_FILTER_X,
	 0},
	{DLT_CUDNN_BK_OP_CONV_BWD_FILTER, DLT_CUDNN_ATTR_OP_CONV_BWD_FILTER_DW,
	 1},
	{DLT_CUDNN_BK_OP_CONV_BWD_FILTER, DLT_CUDNN_ATTR_OP_CONV_BWD_FILTER_DY,
	 2},
	{DLT_CUDNN_BK_OP_CONV_BWD_FILTER,
	 DLT_CUDNN_ATTR_OP_CONV_BWD_FILTER_CONV_DESC, 3},
};

static int dlt_bk_op_slot(int optype, int attr)
{
	for (size_t i = 0;
	     i < sizeof(dlt_bk_op_attrs) / sizeof(dlt_bk_op_attrs[0]); i++)
		if (dlt_bk_op_attrs[i].optype == optype &&
		    dlt_bk_op_attrs[i].attr == attr)
			return dlt_bk_op_attrs[i].slot;
	return -1;
}

/* Copies child into slot of op when it is a tracked descriptor of the
 * right type; an untracked one leaves the slot unknown. */
static void dlt_bk_op_child(struct dlt_bk_op *op, int slot, void *child)
{
	struct dlt_bk_ent *c = dlt_bk_find(child);
	struct dlt_bk_tsnap *snap[3] = {&op->x, &op->w, &op->y};
	void **ptr[4] = {&op->xp, &op->wp, &op->yp, &op->cp};
	*ptr[slot] = child;
	if (slot == 3) {
		if (c && c->type == DLT_CUDNN_BK_CONVOLUTION)
			op->c = c->u.c;
		else
			memset(&op->c, 0, sizeof(op->c));
		return;
	}
	if (c && c->type == DLT_CUDNN_BK_TENSOR) {
		*snap[slot] = c->u.t.s;
	} else {
		memset(snap[slot], 0, sizeof(*snap[slot]));
		snap[slot]->dtype = -1;
	}
}

static int dlt_bk_op_kind(int type)
{
	switch (type) {
	case DLT_CUDNN_BK_OP_CONV_FWD:
		return DLT_BK_OP_CONV_FWD;
	case DLT_CUDNN_BK_OP_CONV_BWD_DATA:
		return DLT_BK_OP_CONV_BWD_DATA;
	case DLT_CUDNN_BK_OP_CONV_BWD_FILTER:
		return DLT_BK_OP_CONV_BWD_FILTER;
	}
	return DLT_BK_OP_NONE;
}

/* The CONV_PROBLEM of a convolution operation, written the first time;
 * 0 while a part of it is unknown.  Fields follow dlt_cudnn_problem() in
 * cudnn.c, so that a legacy and a backend description of one convolution
 * differ only where the backend cannot say (filter format, math type). */
static uint64_t dlt_bk_problem(const struct dlt_bk_op *op)
{
	const struct dlt_bk_conv *c = &op->c;
	if (op->x.nd <= 0 || op->w.nd <= 0 || op->y.nd <= 0 || !c->known)
		return 0;
	struct dlt_rec_conv_problem p;
	memset(&p, 0, sizeof(p));
	p.data_type = op->x.dtype;
	p.nb_dims = op->x.nd;
	p.format = -1;
	p.mode = c->mode;
	p.compute_type = c->comp_type;
	p.math_type = -1;
	p.conv_dims = c->spatial > 0 ? c->spatial : c->n_pre;
	/* Backend dims are logical (N, C, spatial...) whatever the layout,
	 * as legacy Nd getters report them: w's C is x's C per group. */
	p.groups = 1;
	if (op->x.nd >= 2 && op->w.nd >= 2 && op->w.dims[1] > 0 &&
	    op->x.dims[1] % op->w.dims[1] == 0 &&
	    op->x.dims[1] / op->w.dims[1] > 1)
		p.groups = op->x.dims[1] / op->w.dims[1];
	memcpy(p.x, op->x.dims, sizeof(p.x));
	memcpy(p.w, op->w.dims, sizeof(p.w));
	memcpy(p.y, op->y.dims, sizeof(p.y));
	/* One padding per dimension in the record, as the legacy API has:
	 * the leading side (asymmetric padding is not representable). */
	for (int i = 0; i < DLT_BK_SPATIAL; i++) {
		p.pad[i] = i < c->n_pre ? c->pre[i] : 0;
		p.stride[i] = i < c->n_stride ? c->stride[i] : 0;
		p.dilation[i] = i < c->n_dil ? c->dil[i] : 0;
	}
	return dlt_conv_problem_emit(&p);
}

/* A graph's convolution: the first convolution operation among its ops. */
static void dlt_bk_graph_ops(struct dlt_bk_graph *g, int64_t n, const void *el)
{
	g->op = DLT_BK_OP_NONE;
	g->problem = 0;
	for (int64_t i = 0; i < n && i < DLT_BK_OPS_SCAN; i++) {
		struct dlt_bk_ent *o = dlt_bk_find(dlt_bk_desc(el, i));
		if (o == NULL || !dlt_bk_is_conv_op(o->type))
			continue;
		g->op = dlt_bk_op_kind(o->type);
		g->problem = dlt_bk_problem(&o->u.op);
		return;
	}
}

static void dlt_bk_knob_choices(struct dlt_bk_sel *s, int64_t n, const void *el)
{
	s->n_knobs = 0;
	for (int64_t i = 0; i < n && i < DLT_BK_KNOBS; i++) {
		struct dlt_bk_ent *k = dlt_bk_find(dlt_bk_desc(el, i));
		struct dlt_knob *d = &s->knobs[s->n_knobs++];
		d->type = -1;
		d->value = 0;
		if (k && k->type == DLT_CUDNN_BK_KNOB_CHOICE) {
			d->type = k->u.k.type;
			d->value = k->u.k.value;
		}
	}
	s->knobs_known = 1;
}

/* What a selection descriptor learns from another it is built from. */
static void dlt_bk_sel_from(struct dlt_bk_sel *dst,
			    const struct dlt_bk_ent *src, int with_knobs)
{
	if (src == NULL || !dlt_bk_is_sel(src->type)) {
		dst->engine = -1;
		dst->op = DLT_BK_OP_NONE;
		dst->problem = 0;
		return;
	}
	dst->engine = src->u.s.engine;
	dst->op = src->u.s.op;
	dst->problem = src->u.s.problem;
	if (with_knobs) {
		dst->knobs_known = src->u.s.knobs_known;
		dst->n_knobs = src->u.s.n_knobs;
		memcpy(dst->knobs, src->u.s.knobs, sizeof(dst->knobs));
	}
}

static void dlt_bk_sel_from_graph(struct dlt_bk_sel *dst,
				  const struct dlt_bk_ent *g)
{
	int ok = g && g->type == DLT_CUDNN_BK_OPERATIONGRAPH;
	dst->op = ok ? g->u.g.op : DLT_BK_OP_NONE;
	dst->problem = ok ? g->u.g.problem : 0;
}

/* One attribute value into the entry; el holds n elements of type.  The
 * caller holds the lock. */
static void dlt_bk_apply(struct dlt_bk_ent *e, int attr, int type, int64_t n,
			 const void *el)
{
	int desc = type == DLT_CUDNN_TYPE_BACKEND_DESCRIPTOR;
	struct dlt_bk_sel *s = &e->u.s;
	switch (e->type) {
	case DLT_CUDNN_BK_TENSOR:
		dlt_bk_tensor_attr(&e->u.t, attr, type, n, el);
		break;
	case DLT_CUDNN_BK_CONVOLUTION:
		dlt_bk_conv_attr(&e->u.c, attr, type, n, el);
		break;
	case DLT_CUDNN_BK_OP_CONV_FWD:
	case DLT_CUDNN_BK_OP_CONV_BWD_DATA:
	case DLT_CUDNN_BK_OP_CONV_BWD_FILTER: {
		int slot = dlt_bk_op_slot(e->type, attr);
		if (desc && slot >= 0)
			dlt_bk_op_child(&e->u.op, slot, dlt_bk_desc(el, 0));
		break;
	}
	case DLT_CUDNN_BK_OPERATIONGRAPH:
		if (desc && attr == DLT_CUDNN_ATTR_OPERATIONGRAPH_OPS)
			dlt_bk_graph_ops(&e->u.g, n, el);
		break;
	case DLT_CUDNN_BK_ENGINE:
		if (desc && attr == DLT_CUDNN_ATTR_ENGINE_OPERATION_GRAPH)
			dlt_bk_sel_from_graph(s,
					      dlt_bk_find(dlt_bk_desc(el, 0)));
		else if (type == DLT_CUDNN_TYPE_INT64 &&
			 attr == DLT_CUDNN_ATTR_ENGINE_GLOBAL_INDEX)
			s->engine = dlt_bk_i32(dlt_bk_i64(el, 0));
		break;
	case DLT_CUDNN_BK_ENGINEHEUR:
		if (desc && attr == DLT_CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH)
			dlt_bk_sel_from_graph(s,
					      dlt_bk_find(dlt_bk_desc(el, 0)));
		break;
	case DLT_CUDNN_BK_ENGINECFG:
		if (desc && attr == DLT_CUDNN_ATTR_ENGINECFG_ENGINE) {
			dlt_bk_sel_from(s, dlt_bk_find(dlt_bk_desc(el, 0)), 0);
			/* A configuration without knob choices runs the
			 * engine's defaults: nothing more to learn. */
			s->knobs_known = 1;
		} else if (desc &&
			   attr == DLT_CUDNN_ATTR_ENGINECFG_KNOB_CHOICES) {
			dlt_bk_knob_choices(s, n, el);
		}
		break;
	case DLT_CUDNN_BK_EXECUTION_PLAN:
		if (desc &&
		    attr == DLT_CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG) {
			s->cfg = dlt_bk_desc(el, 0);
			dlt_bk_sel_from(s, dlt_bk_find(s->cfg), 1);
		}
		break;
	case DLT_CUDNN_BK_KNOB_CHOICE:
		if (type == DLT_CUDNN_TYPE_KNOB_TYPE &&
		    attr == DLT_CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE)
			e->u.k.type = dlt_bk_enum(el);
		else if (type == DLT_CUDNN_TYPE_INT64 &&
			 attr == DLT_CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE)
			e->u.k.value = dlt_bk_i64(el, 0);
		break;
	}
}

/* ---- hooks -------------------------------------------------------------- */

static void dlt_bk_created(int status, int type, void *desc)
{
	if (status != DLT_CUDNN_STATUS_SUCCESS || desc == NULL)
		return;
	pthread_once(&dlt_bk_once, dlt_bk_init);
	if (!dlt_bk_lock())
		return;
	struct dlt_bk_ent *e = NULL;
	if (dlt_bk_tracked_type(type))
		e = dlt_bk_insert(desc, type);
	else
		dlt_bk_remove(desc); /* a reused pointer of a missed destroy */
	dlt_bk_unlock();
	if (e == NULL && dlt_bk_tracked_type(type))
		dlt_bk_full();
}

static void dlt_bk_destroyed(int status, void *desc)
{
	/* A failed destroy leaves the descriptor alive. */
	if (status != DLT_CUDNN_STATUS_SUCCESS || desc == NULL)
		return;
	if (!dlt_bk_lock())
		return;
	dlt_bk_remove(desc);
	dlt_bk_unlock();
}

static void dlt_bk_set(int status, void *desc, int attr, int type, int64_t n,
		       const void *el)
{
	/* Only what cuDNN accepted: then el really holds n elements. */
	if (status != DLT_CUDNN_STATUS_SUCCESS || desc == NULL || el == NULL ||
	    n <= 0)
		return;
	if (!dlt_bk_lock())
		return;
	struct dlt_bk_ent *e = dlt_bk_find(desc);
	if (e)
		dlt_bk_apply(e, attr, type, n, el);
	dlt_bk_unlock();
}

/* Descriptors cuDNN filled for the program in a GetAttribute: they carry
 * what their source knew (a heuristics result is an engine configuration
 * of the queried graph, with an engine index still to be learnt). */
static void dlt_bk_get_desc(struct dlt_bk_ent *e, int attr, int64_t n,
			    const void *el)
{
	if (e->type == DLT_CUDNN_BK_ENGINEHEUR &&
	    attr == DLT_CUDNN_ATTR_ENGINEHEUR_RESULTS) {
		for (int64_t i = 0; i < n; i++) {
			struct dlt_bk_ent *c = dlt_bk_find(dlt_bk_desc(el, i));
			if (c == NULL || c->type != DLT_CUDNN_BK_ENGINECFG)
				continue;
			memset(&c->u.s, 0, sizeof(c->u.s));
			c->u.s.engine = -1;
			c->u.s.op = e->u.s.op;
			c->u.s.problem = e->u.s.problem;
			c->flags |= DLT_BKF_FILLED;
		}
		return;
	}
	struct dlt_bk_ent *d = dlt_bk_find(dlt_bk_desc(el, 0));
	if (d == NULL)
		return;
	if (e->type == DLT_CUDNN_BK_ENGINECFG &&
	    attr == DLT_CUDNN_ATTR_ENGINECFG_ENGINE &&
	    d->type == DLT_CUDNN_BK_ENGINE) {
		dlt_bk_sel_from(&d->u.s, e, 0);
		d->flags |= DLT_BKF_FILLED;
	} else if (e->type == DLT_CUDNN_BK_EXECUTION_PLAN &&
		   attr == DLT_CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG &&
		   d->type == DLT_CUDNN_BK_ENGINECFG) {
		dlt_bk_sel_from(&d->u.s, e, 1);
		d->flags |= DLT_BKF_FILLED;
	} else if (e->type == DLT_CUDNN_BK_ENGINECFG &&
		   attr == DLT_CUDNN_ATTR_ENGINECFG_KNOB_CHOICES &&
		   e->u.s.knobs_known) {
		for (int64_t i = 0; i < n && i < e->u.s.n_knobs; i++) {
			struct dlt_bk_ent *k = dlt_bk_find(dlt_bk_desc(el, i));
			if (k == NULL || k->type != DLT_CUDNN_BK_KNOB_CHOICE)
				continue;
			k->u.k.type = e->u.s.knobs[i].type;
			k->u.k.value = e->u.s.knobs[i].value;
			k->flags |= DLT_BKF_FILLED;
		}
	}
}

static void dlt_bk_get(int status, void *desc, int attr, int type, int64_t req,
		       const int64_t *n, const void *el)
{
	if (status != DLT_CUDNN_STATUS_SUCCESS || desc == NULL || el == NULL ||
	    req <= 0)
		return;
	/* cuDNN wrote min(req, *n) elements.  Without n (cudnn-frontend
	 * passes NULL for single values) only a single value is certain. */
	int64_t count = n ? (*n < req ? *n : req) : (req == 1 ? 1 : 0);
	if (count <= 0)
		return;
	if (!dlt_bk_lock())
		return;
	struct dlt_bk_ent *e = dlt_bk_find(desc);
	if (e && type == DLT_CUDNN_TYPE_BACKEND_DESCRIPTOR)
		dlt_bk_get_desc(e, attr, count, el);
	else if (e)
		/* A value read back is a value the descriptor has, as if
		 * set: descriptors cuDNN filled become known this way. */
		dlt_bk_apply(e, attr, type, count, el);
	dlt_bk_unlock();
}

/* ---- asking cuDNN ------------------------------------------------------- */

typedef int (*dlt_bk_create_fn)(int, void **);
typedef int (*dlt_bk_destroy_fn)(void *);
typedef int (*dlt_bk_getattr_fn)(void *, int, int, int64_t, int64_t *, void *);

/* cuDNN's own create, destroy and get, never our wrappers of them: all
 * three, or 0 when cuDNN is not loaded. */
struct dlt_bk_fns {
	dlt_bk_create_fn create;
	dlt_bk_destroy_fn destroy;
	dlt_bk_getattr_fn get;
};

static int dlt_bk_real_fns(struct dlt_bk_fns *f)
{
	f->create = (dlt_bk_create_fn)dlt_link_real(
		DLT_IDX_cudnnBackendCreateDescriptor);
	f->destroy = (dlt_bk_destroy_fn)dlt_link_real(
		DLT_IDX_cudnnBackendDestroyDescriptor);
	f->get = (dlt_bk_getattr_fn)dlt_link_real(
		DLT_IDX_cudnnBackendGetAttribute);
	return f->create && f->destroy && f->get;
}

/* The engine index and knobs of a finalized engine configuration, the way
 * cudnn-frontend reads them for a plan's tag: copies into scratch
 * descriptors of our own, destroyed before returning.  Only
 * GetAttribute touches the program's descriptor.  We run inside the
 * program's wrapped call, so cuDNN's calls between its own libraries pass
 * our wrappers untraced. */
static int dlt_bk_ask_cfg(void *cfg, struct dlt_bk_sel *s)
{
	struct dlt_bk_fns f;
	if (!dlt_bk_real_fns(&f))
		return 0;
	int64_t n = 0, idx = -1;
	void *eng = NULL;
	if (f.create(DLT_CUDNN_BK_ENGINE, &eng) != 0 || eng == NULL)
		return 0;
	int ok = f.get(cfg, DLT_CUDNN_ATTR_ENGINECFG_ENGINE,
		       DLT_CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng) == 0 &&
		 f.get(eng, DLT_CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
		       DLT_CUDNN_TYPE_INT64, 1, &n, &idx) == 0 &&
		 n == 1;
	f.destroy(eng);
	if (!ok)
		return 0;
	s->engine = dlt_bk_i32(idx);

	void *k[DLT_BK_KNOBS];
	int made = 0;
	while (made < DLT_BK_KNOBS &&
	       f.create(DLT_CUDNN_BK_KNOB_CHOICE, &k[made]) == 0 && k[made])
		made++;
	n = 0;
	if (made > 0 &&
	    f.get(cfg, DLT_CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
		  DLT_CUDNN_TYPE_BACKEND_DESCRIPTOR, made, &n, k) == 0) {
		s->n_knobs = 0;
		for (int64_t i = 0; i < n && i < made; i++) {
			int32_t kt = -1;
			int64_t kv = 0, c = 0;
			if (f.get(k[i], DLT_CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
				  DLT_CUDNN_TYPE_KNOB_TYPE, 1, &c, &kt) != 0)
				kt = -1;
			if (f.get(k[i], DLT_CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE,
				  DLT_CUDNN_TYPE_INT64, 1, &c, &kv) != 0)
				kv = 0;
			s->knobs[s->n_knobs].type = kt;
			s->knobs[s->n_knobs].value = kv;
			s->n_knobs++;
		}
		s->knobs_known = 1;
	}
	for (int i = 0; i < made; i++)
		f.destroy(k[i]);
	return 1;
}

/* A plan whose configuration is not tracked (loaded from JSON, or built
 * before the table had room): its configuration, copied out. */
static int dlt_bk_ask_plan(void *plan, struct dlt_bk_sel *s)
{
	struct dlt_bk_fns f;
	if (!dlt_bk_real_fns(&f))
		return 0;
	void *cfg = NULL;
	int64_t n = 0;
	if (f.create(DLT_CUDNN_BK_ENGINECFG, &cfg) != 0 || cfg == NULL)
		return 0;
	int ok = f.get(plan, DLT_CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
		       DLT_CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &cfg) == 0 &&
		 n == 1 && dlt_bk_ask_cfg(cfg, s);
	f.destroy(cfg);
	return ok;
}

static int dlt_bk_ask_engine(void *eng, struct dlt_bk_sel *s)
{
	dlt_bk_getattr_fn get = (dlt_bk_getattr_fn)dlt_link_real(
		DLT_IDX_cudnnBackendGetAttribute);
	int64_t n = 0, idx = -1;
	if (get == NULL || get(eng, DLT_CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
			       DLT_CUDNN_TYPE_INT64, 1, &n, &idx) != 0)
		return 0;
	s->engine = dlt_bk_i32(idx);
	return 1;
}

/* Keeps what was learnt by asking, so that plans sharing a configuration
 * ask once. */
static void dlt_bk_remember(void *key, int type, const struct dlt_bk_sel *s)
{
	if (key == NULL || !dlt_bk_lock())
		return;
	struct dlt_bk_ent *e = dlt_bk_find(key);
	if (e && e->type == type && e->u.s.engine < 0) {
		e->u.s.engine = s->engine;
		if (s->knobs_known) {
			e->u.s.knobs_known = 1;
			e->u.s.n_knobs = s->n_knobs;
			memcpy(e->u.s.knobs, s->knobs, sizeof(s->knobs));
		}
	}
	dlt_bk_unlock();
}

/* ---- finalize ----------------------------------------------------------- */

static void dlt_bk_op_refresh(struct dlt_bk_op *op)
{
	/* Children set before they were complete (cuDNN does not insist on
	 * finalized tensors here) are read again while still tracked. */
	void *p[4] = {op->xp, op->wp, op->yp, op->cp};
	for (int i = 0; i < 4; i++) {
		struct dlt_bk_ent *c = dlt_bk_find(p[i]);
		if (c && c->type == (i == 3 ? DLT_CUDNN_BK_CONVOLUTION
					    : DLT_CUDNN_BK_TENSOR))
			dlt_bk_op_child(op, i, p[i]);
	}
}

static void dlt_bk_write(void *desc, int type, int status,
			 const struct dlt_bk_sel *s)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL)
		return;
	uint32_t nk = s->n_knobs <= DLT_BK_KNOBS ? s->n_knobs : DLT_BK_KNOBS;
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_bk_finalize) +
				  nk * sizeof(struct dlt_knob));
	struct dlt_rec_bk_finalize *r = dlt_rec_reserve(w, &dlt_tls, len);
	if (r == NULL)
		return;
	r->h.ts = dlt_now_ns();
	r->desc = DLT_P(desc);
	r->problem = s->problem;
	r->status = status;
	r->engine = s->engine;
	r->op = s->op;
	r->n_knobs = nk;
	memcpy(r->knobs, s->knobs, nk * sizeof(struct dlt_knob));
	dlt_rec_commit(r, DLT_REC_BK_FINALIZE, (uint16_t)type, len);
}

static void dlt_bk_finalized(int status, void *desc)
{
	if (desc == NULL || !dlt_bk_lock())
		return;
	struct dlt_bk_ent *e = dlt_bk_find(desc);
	if (e == NULL) {
		dlt_bk_unlock();
		return;
	}
	if (status == DLT_CUDNN_STATUS_SUCCESS)
		e->flags |= DLT_BKF_FINALIZED;
	int type = e->type;
	if (dlt_bk_is_conv_op(type) && status == DLT_CUDNN_STATUS_SUCCESS)
		dlt_bk_op_refresh(&e->u.op);
	if (type != DLT_CUDNN_BK_ENGINE && type != DLT_CUDNN_BK_ENGINECFG &&
	    type != DLT_CUDNN_BK_EXECUTION_PLAN) {
		dlt_bk_unlock();
		return;
	}
	struct dlt_bk_sel s = e->u.s;
	/* Whom to ask for an engine index we were not told: only finalized
	 * descriptors, whose attributes cuDNN will report. */
	void *ask = NULL;
	int ask_type = type;
	if (s.engine < 0) {
		if (type != DLT_CUDNN_BK_EXECUTION_PLAN) {
			if (status == DLT_CUDNN_STATUS_SUCCESS)
				ask = desc;
		} else {
			struct dlt_bk_ent *c = dlt_bk_find(s.cfg);
			if (c && c->type == DLT_CUDNN_BK_ENGINECFG &&
			    (c->flags & (DLT_BKF_FINALIZED | DLT_BKF_FILLED))) {
				ask = s.cfg;
				ask_type = DLT_CUDNN_BK_ENGINECFG;
			} else if (status == DLT_CUDNN_STATUS_SUCCESS) {
				ask = desc;
			}
		}
	}
	dlt_bk_unlock();

	if (ask) {
		struct dlt_bk_sel q = s;
		int ok;
		if (ask_type == DLT_CUDNN_BK_ENGINE)
			ok = dlt_bk_ask_engine(ask, &q);
		else if (ask_type == DLT_CUDNN_BK_EXECUTION_PLAN)
			ok = dlt_bk_ask_plan(ask, &q);
		else
			ok = dlt_bk_ask_cfg(ask, &q);
		if (ok) {
			s = q;
			dlt_bk_remember(ask, ask_type, &q);
			if (ask != desc)
				dlt_bk_remember(desc, type, &q);
		}
	}
	dlt_bk_write(desc, type, status, &s);
}

/* ---- the post hooks ----------------------------------------------------- */

void dlt_post_cudnnBackendCreateDescriptor(int ret, int type,
					   dlt_cudnnBackendDescriptor_t *d)
{
	dlt_bk_created(ret, type, d ? *d : NULL);
}

void dlt_post_cudnnBackendDestroyDescriptor(int ret,
					    dlt_cudnnBackendDescriptor_t d)
{
	dlt_bk_destroyed(ret, d);
}

void dlt_post_cudnnBackendSetAttribute(int ret, dlt_cudnnBackendDescriptor_t d,
				       int name, int type, int64_t n,
				       const void *el)
{
	dlt_bk_set(ret, d, name, type, n, el);
}

void dlt_post_cudnnBackendGetAttribute(int ret, dlt_cudnnBackendDescriptor_t d,
				       int name, int type, int64_t req,
				       int64_t *n, void *el)
{
	dlt_bk_get(ret, d, name, type, req, n, el);
}

void dlt_post_cudnnBackendFinalize(int ret, dlt_cudnnBackendDescriptor_t d)
{
	dlt_bk_finalized(ret, d);
}

void dlt_post_cudnnBackendExecute(int ret, dlt_cudnnHandle_t h,
				  dlt_cudnnBackendDescriptor_t plan,
				  dlt_cudnnBackendDescriptor_t pack)
{
	(void)ret, (void)h, (void)plan, (void)pack;
}
