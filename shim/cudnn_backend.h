/* The numbers of the cuDNN backend (graph) API that cudnn_backend.c reads.
 *
 * dltrace builds without NVIDIA headers, so the values are written here.
 * They are those of cudnn_graph_v9.h (cuDNN 9.19); cuDNN 8's
 * cudnn_backend.h has the same values for every name listed.  Each entry
 * names the real enumerator next to ours: tests/test_cudnn_enums.c checks
 * them all against the real header wherever it is installed. */
#ifndef DLTRACE_CUDNN_BACKEND_H
#define DLTRACE_CUDNN_BACKEND_H

/* X(our name, the real enumerator, value) */
#define DLT_CUDNN_BK_ENUMS(X)                                                  \
	/* cudnnStatus_t */                                                    \
	X(STATUS_SUCCESS, CUDNN_STATUS_SUCCESS, 0)                             \
	/* cudnnBackendAttributeType_t */                                      \
	X(TYPE_HANDLE, CUDNN_TYPE_HANDLE, 0)                                   \
	X(TYPE_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1)                             \
	X(TYPE_BOOLEAN, CUDNN_TYPE_BOOLEAN, 2)                                 \
	X(TYPE_INT64, CUDNN_TYPE_INT64, 3)                                     \
	X(TYPE_FLOAT, CUDNN_TYPE_FLOAT, 4)                                     \
	X(TYPE_DOUBLE, CUDNN_TYPE_DOUBLE, 5)                                   \
	X(TYPE_VOID_PTR, CUDNN_TYPE_VOID_PTR, 6)                               \
	X(TYPE_CONVOLUTION_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 7)               \
	X(TYPE_HEUR_MODE, CUDNN_TYPE_HEUR_MODE, 8)                             \
	X(TYPE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 9)                             \
	X(TYPE_BACKEND_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 15)          \
	X(TYPE_INT32, CUDNN_TYPE_INT32, 23)                                    \
	X(TYPE_CHAR, CUDNN_TYPE_CHAR, 24)                                      \
	/* cudnnBackendDescriptorType_t */                                     \
	X(BK_CONVOLUTION, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 1)             \
	X(BK_ENGINE, CUDNN_BACKEND_ENGINE_DESCRIPTOR, 2)                       \
	X(BK_ENGINECFG, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 3)                 \
	X(BK_ENGINEHEUR, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, 4)               \
	X(BK_EXECUTION_PLAN, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 5)       \
	X(BK_KNOB_CHOICE, CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, 7)             \
	X(BK_OP_CONV_FWD,                                                      \
	  CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, 10)          \
	X(BK_OP_CONV_BWD_FILTER,                                               \
	  CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, 11)  \
	X(BK_OP_CONV_BWD_DATA,                                                 \
	  CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, 12)    \
	X(BK_OPERATIONGRAPH, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 15)      \
	X(BK_VARIANT_PACK, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 16)          \
	X(BK_TENSOR, CUDNN_BACKEND_TENSOR_DESCRIPTOR, 17)                      \
	/* cudnnBackendAttributeName_t */                                      \
	X(ATTR_CONVOLUTION_COMP_TYPE, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, 100)   \
	X(ATTR_CONVOLUTION_CONV_MODE, CUDNN_ATTR_CONVOLUTION_CONV_MODE, 101)   \
	X(ATTR_CONVOLUTION_DILATIONS, CUDNN_ATTR_CONVOLUTION_DILATIONS, 102)   \
	X(ATTR_CONVOLUTION_FILTER_STRIDES,                                     \
	  CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 103)                          \
	X(ATTR_CONVOLUTION_POST_PADDINGS,                                      \
	  CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, 104)                           \
	X(ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS,  \
	  105)                                                                 \
	X(ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS,  \
	  106)                                                                 \
	X(ATTR_ENGINEHEUR_MODE, CUDNN_ATTR_ENGINEHEUR_MODE, 200)               \
	X(ATTR_ENGINEHEUR_OPERATION_GRAPH,                                     \
	  CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, 201)                          \
	X(ATTR_ENGINEHEUR_RESULTS, CUDNN_ATTR_ENGINEHEUR_RESULTS, 202)         \
	X(ATTR_ENGINECFG_ENGINE, CUDNN_ATTR_ENGINECFG_ENGINE, 300)             \
	X(ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, 302) \
	X(ATTR_EXECUTION_PLAN_ENGINE_CONFIG,                                   \
	  CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, 401)                        \
	X(ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, 600)   \
	X(ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, 601) \
	X(ATTR_OP_CONV_FWD_CONV_DESC,                                          \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, 702)             \
	X(ATTR_OP_CONV_FWD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, 703) \
	X(ATTR_OP_CONV_FWD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, 704) \
	X(ATTR_OP_CONV_FWD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, 705) \
	X(ATTR_OP_CONV_BWD_DATA_CONV_DESC,                                     \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, 708)            \
	X(ATTR_OP_CONV_BWD_DATA_W,                                             \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, 709)                    \
	X(ATTR_OP_CONV_BWD_DATA_DX,                                            \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, 710)                   \
	X(ATTR_OP_CONV_BWD_DATA_DY,                                            \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, 711)                   \
	X(ATTR_OP_CONV_BWD_FILTER_CONV_DESC,                                   \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, 714)          \
	X(ATTR_OP_CONV_BWD_FILTER_DW,                                          \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, 715)                 \
	X(ATTR_OP_CONV_BWD_FILTER_X,                                           \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, 716)                  \
	X(ATTR_OP_CONV_BWD_FILTER_DY,                                          \
	  CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, 717)                 \
	X(ATTR_OPERATIONGRAPH_OPS, CUDNN_ATTR_OPERATIONGRAPH_OPS, 801)         \
	X(ATTR_TENSOR_DATA_TYPE, CUDNN_ATTR_TENSOR_DATA_TYPE, 901)             \
	X(ATTR_TENSOR_DIMENSIONS, CUDNN_ATTR_TENSOR_DIMENSIONS, 902)           \
	X(ATTR_TENSOR_STRIDES, CUDNN_ATTR_TENSOR_STRIDES, 903)                 \
	X(ATTR_TENSOR_UNIQUE_ID, CUDNN_ATTR_TENSOR_UNIQUE_ID, 906)             \
	X(ATTR_ENGINE_OPERATION_GRAPH, CUDNN_ATTR_ENGINE_OPERATION_GRAPH,      \
	  1300)                                                                \
	X(ATTR_ENGINE_GLOBAL_INDEX, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, 1301)      \
	/* cudnnConvolutionMode_t, CUDNN_DIM_MAX */                            \
	X(CONVOLUTION, CUDNN_CONVOLUTION, 0)                                   \
	X(CROSS_CORRELATION, CUDNN_CROSS_CORRELATION, 1)                       \
	X(DIM_MAX, CUDNN_DIM_MAX, 8)

enum dlt_cudnn_bk_enum {
#define DLT_X(name, real, value) DLT_CUDNN_##name = (value),
	DLT_CUDNN_BK_ENUMS(DLT_X)
#undef DLT_X
};

#endif
