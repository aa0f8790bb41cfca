/* The parts of the CUDA runtime, CUDA driver, cuDNN and NCCL ABIs that
 * dltrace's wrappers need, declared here so that dltrace builds without any
 * NVIDIA header.  Only the ABI matters: enums are int, handles are opaque
 * pointers, structs have the real layout.  The values and layouts come
 * from dltrace/gpu_abi.def, the one list of them.
 *
 * With DLT_GPU_ABI_REAL defined (after the real headers are included),
 * every dlt_ type name stands for the real type instead: tests/test_gpu_abi.c
 * compiles include/dltrace/apis.def that way, so that each interposed
 * function's type as the table writes it is compared whole with the real
 * declaration.  The stand-in structs (struct dlt_abi_*) and the constants
 * are declared in both modes, so that the test can hold them against the
 * real ones. */
#ifndef DLTRACE_GPU_ABI_H
#define DLTRACE_GPU_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_abi.def"

/* ---- the stand-in structs ---------------------------------------------- */

#define DLT_ABI_MEMBER(type, member, dims) type member dims;
/* The members of a layout of gpu_abi.def, for a struct's braces. */
#define DLT_ABI_MEMBERS(layout) DLT_ABI_##layout(DLT_ABI_MEMBER)

struct dlt_abi_dim3 {
	DLT_ABI_MEMBERS(DIM3)
};
struct dlt_abi_cudnn_algo_perf {
	DLT_ABI_MEMBERS(CUDNN_ALGO_PERF)
};
struct dlt_abi_cudnn_fraction {
	DLT_ABI_MEMBERS(CUDNN_FRACTION)
};
struct dlt_abi_nccl_unique_id {
	DLT_ABI_MEMBERS(NCCL_UNIQUE_ID)
};
struct dlt_abi_nccl_config {
	DLT_ABI_MEMBERS(NCCL_CONFIG)
};
/* The stand-in of each layout, by the layout's name in gpu_abi.def. */
#define DLT_ABI_STRUCT_DIM3 struct dlt_abi_dim3
#define DLT_ABI_STRUCT_CUDNN_ALGO_PERF struct dlt_abi_cudnn_algo_perf
#define DLT_ABI_STRUCT_CUDNN_FRACTION struct dlt_abi_cudnn_fraction
#define DLT_ABI_STRUCT_NCCL_UNIQUE_ID struct dlt_abi_nccl_unique_id
#define DLT_ABI_STRUCT_NCCL_CONFIG struct dlt_abi_nccl_config

/* ---- the values, as DLT_ABI_<real name> -------------------------------- */

/* cuDNN statuses as DLT_ABI_CUDNN9_<name> and DLT_ABI_CUDNN8_<name>
 * (DLT_ABI_CUDNN9_NOT_SUPPORTED is 3000, DLT_ABI_CUDNN8_NOT_SUPPORTED 9). */
#define DLT_ABI_CONST(name, value) DLT_ABI_##name = (value),
#define DLT_ABI_CONST9(name, value) DLT_ABI_CUDNN9_##name = (value),
#define DLT_ABI_CONST8(name, value) DLT_ABI_CUDNN8_##name = (value),
/* One enum: the runtime's and the driver's codes are compared with each
 * other (analyzer/rules/api_error.c). */
enum {
	DLT_ABI_CUDA_STATUS(DLT_ABI_CONST) DLT_ABI_CUDART_STATUS(DLT_ABI_CONST) DLT_ABI_CUDNN9_STATUS(
		DLT_ABI_CONST9) DLT_ABI_CUDNN8_STATUS(DLT_ABI_CONST8) DLT_ABI_NCCL_STATUS(DLT_ABI_CONST)
		DLT_ABI_CU_PROC_FLAGS(DLT_ABI_CONST) DLT_ABI_CU_PROC_RESULT(DLT_ABI_CONST) DLT_ABI_CUDA_MEMCPY_KIND(
			DLT_ABI_CONST) DLT_ABI_CUDA_ENTRY_FLAGS(DLT_ABI_CONST) DLT_ABI_CUDA_ENTRY_RESULT(DLT_ABI_CONST)
			DLT_ABI_CUDNN_DATA_TYPE(DLT_ABI_CONST) DLT_ABI_CUDNN_MATH_TYPE(
				DLT_ABI_CONST) DLT_ABI_CUDNN_TENSOR_FORMAT(DLT_ABI_CONST)
				DLT_ABI_CUDNN_CONV_MODE(DLT_ABI_CONST) DLT_ABI_CUDNN_DETERMINISM(
					DLT_ABI_CONST) DLT_ABI_CUDNN_FWD_ALGO(DLT_ABI_CONST)
					DLT_ABI_CUDNN_BWD_FILTER_ALGO(DLT_ABI_CONST) DLT_ABI_CUDNN_BWD_DATA_ALGO(
						DLT_ABI_CONST) DLT_ABI_CUDNN_BACKEND_DESC(DLT_ABI_CONST)
						DLT_ABI_CUDNN_ATTR(DLT_ABI_CONST) DLT_ABI_CUDNN_ATTR_TYPE(
							DLT_ABI_CONST) DLT_ABI_CUDNN_KNOB_TYPE(DLT_ABI_CONST)
							DLT_ABI_CUDNN_HEUR_MODE(DLT_ABI_CONST) DLT_ABI_CUDNN_NUM_NOTE(
								DLT_ABI_CONST)
								DLT_ABI_NCCL_RED_OP(
									DLT_ABI_CONST)
									DLT_ABI_NCCL_DATA_TYPE(
										DLT_ABI_CONST)
										DLT_ABI_MACROS(
											DLT_ABI_CONST)
};
#undef DLT_ABI_CONST
#undef DLT_ABI_CONST9
#undef DLT_ABI_CONST8

/* ---- the types of apis.def -------------------------------------------- */

#ifdef DLT_GPU_ABI_REAL
#define DLT_ABI_TYPEDEF(name, stand_in, real) typedef real name;
#else
#define DLT_ABI_TYPEDEF(name, stand_in, real) typedef stand_in name;
#endif
DLT_ABI_TYPES(DLT_ABI_TYPEDEF)
#undef DLT_ABI_TYPEDEF

#ifndef DLT_GPU_ABI_REAL
/* The three selections' results share one layout: the shim reads them as
 * one type. */
typedef struct dlt_abi_cudnn_algo_perf dlt_cudnnAlgoPerf_t;
#endif /* DLT_GPU_ABI_REAL */

#endif
