/* The cuDNN backend (graph) API's numbers that cudnn_backend.c reads, under
 * short names.  The values are those of include/dltrace/gpu_abi.def, which
 * tests/test_gpu_abi.c holds against the real headers; cuDNN 8's
 * cudnn_backend.h has the same values for every name listed. */
#ifndef DLTRACE_CUDNN_BACKEND_H
#define DLTRACE_CUDNN_BACKEND_H

#include "dltrace/gpu_abi.h"

/* X(our name, the real enumerator as gpu_abi.h names it) */
#define DLT_CUDNN_BK_ENUMS(X)                                                 \
	/* cudnnStatus_t */                                                   \
	X(STATUS_SUCCESS, CUDNN9_SUCCESS)                                     \
	/* cudnnBackendAttributeType_t */                                     \
	X(TYPE_HANDLE, CUDNN_TYPE_HANDLE)                                     \
	X(TYPE_DATA_TYPE, CUDNN_TYPE_DATA_TYPE)                               \
	X(TYPE_BOOLEAN, CUDNN_TYPE_BOOLEAN)                                   \
	X(TYPE_INT64, CUDNN_TYPE_INT64)                                       \
	X(TYPE_FLOAT, CUDNN_TYPE_FLOAT)                                       \
	X(TYPE_DOUBLE, CUDNN_TYPE_DOUBLE)                                     \
	X(TYPE_VOID_PTR, CUDNN_TYPE_VOID_PTR)                                 \
	X(TYPE_CONVOLUTION_MODE, CUDNN_TYPE_CONVOLUTION_MODE)                 \
	X(TYPE_HEUR_MODE, CUDNN_TYPE_HEUR_MODE)                               \
	X(TYPE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE)                               \
	X(TYPE_BACKEND_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR)             \
	X(TYPE_INT32, CUDNN_TYPE_INT32)                                       \
	X(TYPE_CHAR, CUDNN_TYPE_CHAR)                                         \
	/* cudnnBackendDescriptorType_t */                                    \
	X(BK_CONVOLUTION, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR)               \
	X(BK_ENGINE, CUDNN_BACKEND_ENGINE_DESCRIPTOR)                         \
	X(BK_ENGINECFG, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR)                   \
	X(BK_ENGINEHEUR, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR)                 \
	X(BK_EXECUTION_PLAN, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR)         \
	X(BK_KNOB_CHOICE, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR)               \
	X(BK_OP_CONV_FWD,                                                     \
	  CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR)             \
	X(BK_OP_CONV_BWD_FILTER,                                              \
	  CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR)     \
	X(BK_OP_CONV_BWD_DATA,                                                \
	  CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR)       \
	X(BK_OPERATIONGRAPH, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR)         \
	X(BK_VARIANT_PACK, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)             \
	X(BK_TENSOR, CUDNN_BACKEND_TENSOR_DESCRIPTOR)                         \
	/* cudnnBackendAttributeName_t */                                     \
	X(ATTR_CONVOLUTION_COMP_TYPE, CUDNN_ATTR_CONVOLUTION_COMP_TYPE)       \
	X(ATTR_CONVOLUTION_CONV_MODE, CUDNN_ATTR_CONVOLUTION_CONV_MODE)       \
	X(ATTR_CONVOLUTION_DILATIONS, CUDNN_ATTR_CONVOLUTION_DILATIONS)       \
	X(ATTR_CONVOLUTION_FILTER_STRIDES,                                    \
	  CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES)                              \
	X(ATTR_CONVOLUTION_POST_PADDINGS,                                     \
	  CUDNN_ATTR_CONVOLUTION_POST_PADDINGS)                               \
	X(ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS) \
	X(ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS) \
	X(ATTR_ENGINEHEUR_MODE, CUDNN_ATTR_ENGINEHEUR_MODE)                   \
	X(ATTR_ENGINEHEUR_OPERATION_GRAPH,                                    \
	  CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH)                              \
	X(ATTR_ENGINEHEUR_RESULTS, CUDNN_ATTR_ENGINEHEUR_RESULTS)             \
	X(ATTR_ENGINECFG_ENGINE, CUDNN_ATTR_ENGINECFG_ENGINE)                 \
	X(ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES)     \
	X(ATTR_EXECUTION_PLAN_ENGINE_CONFIG,                                  \
	  CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG)                            \
	X(ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE)       \
	X(ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE)     \
	X(ATTR_OP_CONV_FWD_CONV_DESC,                                         \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC)                 \
	X(ATTR_OP_CONV_FWD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W)     \
	X(ATTR_OP_CONV_FWD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X)     \
	X(ATTR_OP_CONV_FWD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y)     \
	X(ATTR_OP_CONV_BWD_DATA_CONV_DESC,                                    \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC)                \
	X(ATTR_OP_CONV_BWD_DATA_W,                                            \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W)                        \
	X(ATTR_OP_CONV_BWD_DATA_DX,                                           \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX)                       \
	X(ATTR_OP_CONV_BWD_DATA_DY,                                           \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY)                       \
	X(ATTR_OP_CONV_BWD_FILTER_CONV_DESC,                                  \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC)              \
	X(ATTR_OP_CONV_BWD_FILTER_DW,                                         \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW)                     \
	X(ATTR_OP_CONV_BWD_FILTER_X,                                          \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X)                      \
	X(ATTR_OP_CONV_BWD_FILTER_DY,                                         \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY)                     \
	X(ATTR_OPERATIONGRAPH_OPS, CUDNN_ATTR_OPERATIONGRAPH_OPS)             \
	X(ATTR_TENSOR_DATA_TYPE, CUDNN_ATTR_TENSOR_DATA_TYPE)                 \
	X(ATTR_TENSOR_DIMENSIONS, CUDNN_ATTR_TENSOR_DIMENSIONS)               \
	X(ATTR_TENSOR_STRIDES, CUDNN_ATTR_TENSOR_STRIDES)                     \
	X(ATTR_TENSOR_UNIQUE_ID, CUDNN_ATTR_TENSOR_UNIQUE_ID)                 \
	X(ATTR_ENGINE_OPERATION_GRAPH, CUDNN_ATTR_ENGINE_OPERATION_GRAPH)     \
	X(ATTR_ENGINE_GLOBAL_INDEX, CUDNN_ATTR_ENGINE_GLOBAL_INDEX)           \
	/* cudnnConvolutionMode_t, and a macro */                             \
	X(CONVOLUTION, CUDNN_CONVOLUTION)                                     \
	X(CROSS_CORRELATION, CUDNN_CROSS_CORRELATION)                         \
	X(DIM_MAX, CUDNN_DIM_MAX)

enum dlt_cudnn_bk_enum {
#define DLT_X(name, real) DLT_CUDNN_##name = DLT_ABI_##real,
	DLT_CUDNN_BK_ENUMS(DLT_X)
#undef DLT_X
};

#endif
