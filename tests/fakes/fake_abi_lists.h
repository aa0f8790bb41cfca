/* The enumerator lists of the real ABI, X(name, value), from which
 * fake_abi.h declares its enums and abi_check.c checks them against the real
 * headers.  Plain macros: included in every mode.  DLT_FA_ENUMERATOR uses
 * DLT_FA(), which fake_abi.h defines. */
#ifndef DLT_FAKE_ABI_LISTS
#define DLT_FAKE_ABI_LISTS

#define DLT_FA_CURESULT_LIST(X)                   \
	X(CUDA_SUCCESS, 0)                        \
	X(CUDA_ERROR_INVALID_VALUE, 1)            \
	X(CUDA_ERROR_OUT_OF_MEMORY, 2)            \
	X(CUDA_ERROR_NOT_INITIALIZED, 3)          \
	X(CUDA_ERROR_DEINITIALIZED, 4)            \
	X(CUDA_ERROR_STUB_LIBRARY, 34)            \
	X(CUDA_ERROR_NO_DEVICE, 100)              \
	X(CUDA_ERROR_INVALID_DEVICE, 101)         \
	X(CUDA_ERROR_INVALID_IMAGE, 200)          \
	X(CUDA_ERROR_INVALID_CONTEXT, 201)        \
	X(CUDA_ERROR_ECC_UNCORRECTABLE, 214)      \
	X(CUDA_ERROR_INVALID_HANDLE, 400)         \
	X(CUDA_ERROR_NOT_FOUND, 500)              \
	X(CUDA_ERROR_NOT_READY, 600)              \
	X(CUDA_ERROR_ILLEGAL_ADDRESS, 700)        \
	X(CUDA_ERROR_ASSERT, 710)                 \
	X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714)   \
	X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715)    \
	X(CUDA_ERROR_MISALIGNED_ADDRESS, 716)     \
	X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717)  \
	X(CUDA_ERROR_INVALID_PC, 718)             \
	X(CUDA_ERROR_LAUNCH_FAILED, 719)          \
	X(CUDA_ERROR_NOT_SUPPORTED, 801)          \
	X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803) \
	X(CUDA_ERROR_UNKNOWN, 999)

#define DLT_FA_CU_PROC_FLAGS_LIST(X)            \
	X(CU_GET_PROC_ADDRESS_DEFAULT, 0)       \
	X(CU_GET_PROC_ADDRESS_LEGACY_STREAM, 1) \
	X(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, 2)

#define DLT_FA_CU_PROC_RESULT_LIST(X)              \
	X(CU_GET_PROC_ADDRESS_SUCCESS, 0)          \
	X(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, 1) \
	X(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, 2)

#define DLT_FA_CUDAERROR_LIST(X)                \
	X(cudaSuccess, 0)                       \
	X(cudaErrorInvalidValue, 1)             \
	X(cudaErrorMemoryAllocation, 2)         \
	X(cudaErrorInitializationError, 3)      \
	X(cudaErrorCudartUnloading, 4)          \
	X(cudaErrorInvalidConfiguration, 9)     \
	X(cudaErrorInvalidMemcpyDirection, 21)  \
	X(cudaErrorStubLibrary, 34)             \
	X(cudaErrorInsufficientDriver, 35)      \
	X(cudaErrorCallRequiresNewerDriver, 36) \
	X(cudaErrorDevicesUnavailable, 46)      \
	X(cudaErrorInvalidDeviceFunction, 98)   \
	X(cudaErrorNoDevice, 100)               \
	X(cudaErrorInvalidDevice, 101)          \
	X(cudaErrorInvalidKernelImage, 200)     \
	X(cudaErrorNoKernelImageForDevice, 209) \
	X(cudaErrorECCUncorrectable, 214)       \
	X(cudaErrorInvalidResourceHandle, 400)  \
	X(cudaErrorSymbolNotFound, 500)         \
	X(cudaErrorNotReady, 600)               \
	X(cudaErrorIllegalAddress, 700)         \
	X(cudaErrorLaunchTimeout, 702)          \
	X(cudaErrorAssert, 710)                 \
	X(cudaErrorHardwareStackError, 714)     \
	X(cudaErrorIllegalInstruction, 715)     \
	X(cudaErrorMisalignedAddress, 716)      \
	X(cudaErrorInvalidAddressSpace, 717)    \
	X(cudaErrorInvalidPc, 718)              \
	X(cudaErrorLaunchFailure, 719)          \
	X(cudaErrorNotSupported, 801)           \
	X(cudaErrorSystemDriverMismatch, 803)   \
	X(cudaErrorUnknown, 999)

#define DLT_FA_MEMCPYKIND_LIST(X)      \
	X(cudaMemcpyHostToHost, 0)     \
	X(cudaMemcpyHostToDevice, 1)   \
	X(cudaMemcpyDeviceToHost, 2)   \
	X(cudaMemcpyDeviceToDevice, 3) \
	X(cudaMemcpyDefault, 4)

#define DLT_FA_ENTRYPOINT_FLAGS_LIST(X) \
	X(cudaEnableDefault, 0)         \
	X(cudaEnableLegacyStream, 1)    \
	X(cudaEnablePerThreadDefaultStream, 2)

#define DLT_FA_ENTRYPOINT_RESULT_LIST(X)         \
	X(cudaDriverEntryPointSuccess, 0)        \
	X(cudaDriverEntryPointSymbolNotFound, 1) \
	X(cudaDriverEntryPointVersionNotSufficent, 2)

/* cuDNN 9 numbering (cudnn_graph.h).  cuDNN <= 8 numbers differently:
 * fake_cudnn7.h. */
#define DLT_FA_CUDNN_STATUS_LIST(X)                                      \
	X(CUDNN_STATUS_SUCCESS, 0)                                       \
	X(CUDNN_STATUS_NOT_INITIALIZED, 1001)                            \
	X(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, 1002)                \
	X(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH, 1003)             \
	X(CUDNN_STATUS_DEPRECATED, 1004)                                 \
	X(CUDNN_STATUS_LICENSE_ERROR, 1005)                              \
	X(CUDNN_STATUS_RUNTIME_IN_PROGRESS, 1006)                        \
	X(CUDNN_STATUS_RUNTIME_FP_OVERFLOW, 1007)                        \
	X(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED, 1008)                  \
	X(CUDNN_STATUS_BAD_PARAM, 2000)                                  \
	X(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, 2002)                     \
	X(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER, 2003)               \
	X(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, 2004)                    \
	X(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND, 2005)                     \
	X(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT, 2006)                \
	X(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH, 2007)                  \
	X(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH, 2008)                   \
	X(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES, 2009)               \
	X(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, 2010)                   \
	X(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH, 2011)              \
	X(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE, 2012)                  \
	X(CUDNN_STATUS_NOT_SUPPORTED, 3000)                              \
	X(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN, 3001)                \
	X(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, 3002)                        \
	X(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, 3003)                    \
	X(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT, 3004)                       \
	X(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER, 3005)     \
	X(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART, 3006)          \
	X(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH, 3007)                \
	X(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING, 3008) \
	X(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE, 3009)       \
	X(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT, 3010)   \
	X(CUDNN_STATUS_NOT_SUPPORTED_PADDING, 3011)                      \
	X(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM, 3012)             \
	X(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API, 3013)        \
	X(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE, 3014)        \
	X(CUDNN_STATUS_INTERNAL_ERROR, 4000)                             \
	X(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED, 4001)          \
	X(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE, 4002)            \
	X(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, 4003)      \
	X(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED, 4004)    \
	X(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM, 4005)            \
	X(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED, 4006)     \
	X(CUDNN_STATUS_EXECUTION_FAILED, 5000)                           \
	X(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER, 5001)               \
	X(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS, 5002)                    \
	X(CUDNN_STATUS_EXECUTION_FAILED_CUDART, 5003)                    \
	X(CUDNN_STATUS_EXECUTION_FAILED_CURAND, 5004)                    \
	X(CUDNN_STATUS_ALLOC_FAILED, 4003)                               \
	X(CUDNN_STATUS_INVALID_VALUE, 2001)                              \
	X(CUDNN_STATUS_ARCH_MISMATCH, 3007)                              \
	X(CUDNN_STATUS_MAPPING_ERROR, 4006)                              \
	X(CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING, 3008)               \
	X(CUDNN_STATUS_VERSION_MISMATCH, 1002)

#define DLT_FA_CUDNN_DATATYPE_LIST(X) \
	X(CUDNN_DATA_FLOAT, 0)        \
	X(CUDNN_DATA_DOUBLE, 1)       \
	X(CUDNN_DATA_HALF, 2)         \
	X(CUDNN_DATA_INT8, 3)         \
	X(CUDNN_DATA_INT32, 4)        \
	X(CUDNN_DATA_INT8x4, 5)       \
	X(CUDNN_DATA_UINT8, 6)        \
	X(CUDNN_DATA_UINT8x4, 7)      \
	X(CUDNN_DATA_INT8x32, 8)      \
	X(CUDNN_DATA_BFLOAT16, 9)     \
	X(CUDNN_DATA_INT64, 10)       \
	X(CUDNN_DATA_BOOLEAN, 11)     \
	X(CUDNN_DATA_FP8_E4M3, 12)    \
	X(CUDNN_DATA_FP8_E5M2, 13)

#define DLT_FA_CUDNN_MATHTYPE_LIST(X)               \
	X(CUDNN_DEFAULT_MATH, 0)                    \
	X(CUDNN_TENSOR_OP_MATH, 1)                  \
	X(CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, 2) \
	X(CUDNN_FMA_MATH, 3)

#define DLT_FA_CUDNN_TENSORFORMAT_LIST(X) \
	X(CUDNN_TENSOR_NCHW, 0)           \
	X(CUDNN_TENSOR_NHWC, 1)           \
	X(CUDNN_TENSOR_NCHW_VECT_C, 2)

#define DLT_FA_CUDNN_CONVMODE_LIST(X) \
	X(CUDNN_CONVOLUTION, 0)       \
	X(CUDNN_CROSS_CORRELATION, 1)

#define DLT_FA_CUDNN_DETERMINISM_LIST(X) \
	X(CUDNN_NON_DETERMINISTIC, 0)    \
	X(CUDNN_DETERMINISTIC, 1)

#define DLT_FA_CUDNN_FWDALGO_LIST(X)                           \
	X(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 0)         \
	X(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 1) \
	X(CUDNN_CONVOLUTION_FWD_ALGO_GEMM, 2)                  \
	X(CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, 3)                \
	X(CUDNN_CONVOLUTION_FWD_ALGO_FFT, 4)                   \
	X(CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, 5)            \
	X(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, 6)              \
	X(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, 7)     \
	X(CUDNN_CONVOLUTION_FWD_ALGO_COUNT, 8)

#define DLT_FA_CUDNN_BWDFILTERALGO_LIST(X)                        \
	X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, 0)                 \
	X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1)                 \
	X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, 2)               \
	X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3, 3)                 \
	X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD, 4)          \
	X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, 5) \
	X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING, 6)        \
	X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, 7)

#define DLT_FA_CUDNN_BWDDATAALGO_LIST(X)                        \
	X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, 0)                 \
	X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1)                 \
	X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, 2)               \
	X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING, 3)        \
	X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD, 4)          \
	X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, 5) \
	X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, 6)

#define DLT_FA_CUDNN_BACKEND_DESC_LIST(X)                                     \
	X(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, 0)                              \
	X(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 1)                            \
	X(CUDNN_BACKEND_ENGINE_DESCRIPTOR, 2)                                 \
	X(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 3)                              \
	X(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, 4)                             \
	X(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 5)                         \
	X(CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR, 6)                      \
	X(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, 7)                            \
	X(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, 8)                              \
	X(CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR, 9)                            \
	X(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, 10)         \
	X(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, 11) \
	X(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, 12)   \
	X(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, 13)                   \
	X(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, 14)                   \
	X(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 15)                        \
	X(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 16)                          \
	X(CUDNN_BACKEND_TENSOR_DESCRIPTOR, 17)                                \
	X(CUDNN_BACKEND_MATMUL_DESCRIPTOR, 18)                                \
	X(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, 19)

/* The attributes the fake knows by name; others are stored untyped. */
#define DLT_FA_CUDNN_ATTR_LIST(X)                                     \
	X(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, 100)                      \
	X(CUDNN_ATTR_CONVOLUTION_CONV_MODE, 101)                      \
	X(CUDNN_ATTR_CONVOLUTION_DILATIONS, 102)                      \
	X(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 103)                 \
	X(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, 104)                  \
	X(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, 105)                   \
	X(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 106)                   \
	X(CUDNN_ATTR_ENGINEHEUR_MODE, 200)                            \
	X(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, 201)                 \
	X(CUDNN_ATTR_ENGINEHEUR_RESULTS, 202)                         \
	X(CUDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET, 203)                 \
	X(CUDNN_ATTR_ENGINEHEUR_DEVICEPROP, 204)                      \
	X(CUDNN_ATTR_ENGINECFG_ENGINE, 300)                           \
	X(CUDNN_ATTR_ENGINECFG_INTERMEDIATE_INFO, 301)                \
	X(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, 302)                     \
	X(CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, 303)                   \
	X(CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED, 304)               \
	X(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, 400)                      \
	X(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, 401)               \
	X(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, 402)              \
	X(CUDNN_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS, 403)  \
	X(CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS, 404)  \
	X(CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, 405)         \
	X(CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, 406)                \
	X(CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP, 407)                  \
	X(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, 600)                      \
	X(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, 601)                     \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, 700)        \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, 701)         \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, 702)    \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, 703)            \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, 704)            \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, 705)            \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, 706)       \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, 707)        \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, 708)   \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, 709)           \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, 710)          \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, 711)          \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, 712)     \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, 713)      \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, 714) \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, 715)        \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, 716)         \
	X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, 717)        \
	X(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, 800)                      \
	X(CUDNN_ATTR_OPERATIONGRAPH_OPS, 801)                         \
	X(CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, 802)         \
	X(CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, 803)    \
	X(CUDNN_ATTR_OPERATIONGRAPH_IS_SAME_TOPOLOGY, 804)            \
	X(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 900)                      \
	X(CUDNN_ATTR_TENSOR_DATA_TYPE, 901)                           \
	X(CUDNN_ATTR_TENSOR_DIMENSIONS, 902)                          \
	X(CUDNN_ATTR_TENSOR_STRIDES, 903)                             \
	X(CUDNN_ATTR_TENSOR_VECTOR_COUNT, 904)                        \
	X(CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, 905)                \
	X(CUDNN_ATTR_TENSOR_UNIQUE_ID, 906)                           \
	X(CUDNN_ATTR_TENSOR_IS_VIRTUAL, 907)                          \
	X(CUDNN_ATTR_TENSOR_IS_BY_VALUE, 908)                         \
	X(CUDNN_ATTR_TENSOR_REORDERING_MODE, 909)                     \
	X(CUDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, 913)                  \
	X(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, 1000)                   \
	X(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, 1001)                \
	X(CUDNN_ATTR_VARIANT_PACK_INTERMEDIATES, 1002)                \
	X(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, 1003)                    \
	X(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, 1300)                    \
	X(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, 1301)                       \
	X(CUDNN_ATTR_ENGINE_KNOB_INFO, 1302)                          \
	X(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, 1303)                     \
	X(CUDNN_ATTR_ENGINE_LAYOUT_INFO, 1304)                        \
	X(CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, 1305)                      \
	X(CUDNN_ATTR_ENGINE_SM_COUNT_TARGET, 1306)                    \
	X(CUDNN_ATTR_ENGINE_DEVICEPROP, 1307)

#define DLT_FA_CUDNN_ATTRTYPE_LIST(X)             \
	X(CUDNN_TYPE_HANDLE, 0)                   \
	X(CUDNN_TYPE_DATA_TYPE, 1)                \
	X(CUDNN_TYPE_BOOLEAN, 2)                  \
	X(CUDNN_TYPE_INT64, 3)                    \
	X(CUDNN_TYPE_FLOAT, 4)                    \
	X(CUDNN_TYPE_DOUBLE, 5)                   \
	X(CUDNN_TYPE_VOID_PTR, 6)                 \
	X(CUDNN_TYPE_CONVOLUTION_MODE, 7)         \
	X(CUDNN_TYPE_HEUR_MODE, 8)                \
	X(CUDNN_TYPE_KNOB_TYPE, 9)                \
	X(CUDNN_TYPE_NAN_PROPOGATION, 10)         \
	X(CUDNN_TYPE_NUMERICAL_NOTE, 11)          \
	X(CUDNN_TYPE_LAYOUT_TYPE, 12)             \
	X(CUDNN_TYPE_ATTRIB_NAME, 13)             \
	X(CUDNN_TYPE_POINTWISE_MODE, 14)          \
	X(CUDNN_TYPE_BACKEND_DESCRIPTOR, 15)      \
	X(CUDNN_TYPE_GENSTATS_MODE, 16)           \
	X(CUDNN_TYPE_BN_FINALIZE_STATS_MODE, 17)  \
	X(CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 18) \
	X(CUDNN_TYPE_BEHAVIOR_NOTE, 19)           \
	X(CUDNN_TYPE_TENSOR_REORDERING_MODE, 20)  \
	X(CUDNN_TYPE_RESAMPLE_MODE, 21)           \
	X(CUDNN_TYPE_PADDING_MODE, 22)            \
	X(CUDNN_TYPE_INT32, 23)                   \
	X(CUDNN_TYPE_CHAR, 24)                    \
	X(CUDNN_TYPE_SIGNAL_MODE, 25)             \
	X(CUDNN_TYPE_FRACTION, 26)                \
	X(CUDNN_TYPE_NORM_MODE, 27)               \
	X(CUDNN_TYPE_NORM_FWD_PHASE, 28)          \
	X(CUDNN_TYPE_RNG_DISTRIBUTION, 29)

#define DLT_FA_CUDNN_KNOBTYPE_LIST(X)         \
	X(CUDNN_KNOB_TYPE_SPLIT_K, 0)         \
	X(CUDNN_KNOB_TYPE_SWIZZLE, 1)         \
	X(CUDNN_KNOB_TYPE_TILE_SIZE, 2)       \
	X(CUDNN_KNOB_TYPE_EDGE, 4)            \
	X(CUDNN_KNOB_TYPE_MULTIPLY, 11)       \
	X(CUDNN_KNOB_TYPE_SPLIT_K_BUF, 12)    \
	X(CUDNN_KNOB_TYPE_TILEK, 13)          \
	X(CUDNN_KNOB_TYPE_STAGES, 14)         \
	X(CUDNN_KNOB_TYPE_REDUCTION_MODE, 15) \
	X(CUDNN_KNOB_TYPE_SPLIT_K_SLC, 17)    \
	X(CUDNN_KNOB_TYPE_IDX_MODE, 18)       \
	X(CUDNN_KNOB_TYPE_SPECFILT, 23)       \
	X(CUDNN_KNOB_TYPE_KERNEL_CFG, 24)     \
	X(CUDNN_KNOB_TYPE_WORKSPACE, 25)

#define DLT_FA_CUDNN_HEURMODE_LIST(X)  \
	X(CUDNN_HEUR_MODE_INSTANT, 0)  \
	X(CUDNN_HEUR_MODE_B, 1)        \
	X(CUDNN_HEUR_MODE_FALLBACK, 2) \
	X(CUDNN_HEUR_MODE_A, 3)

#define DLT_FA_CUDNN_NUMNOTE_LIST(X)                           \
	X(CUDNN_NUMERICAL_NOTE_TENSOR_CORE, 0)                 \
	X(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS, 1)         \
	X(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION, 2) \
	X(CUDNN_NUMERICAL_NOTE_FFT, 3)                         \
	X(CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC, 4)            \
	X(CUDNN_NUMERICAL_NOTE_WINOGRAD, 5)

#define DLT_FA_NCCL_RESULT_LIST(X)   \
	X(ncclSuccess, 0)            \
	X(ncclUnhandledCudaError, 1) \
	X(ncclSystemError, 2)        \
	X(ncclInternalError, 3)      \
	X(ncclInvalidArgument, 4)    \
	X(ncclInvalidUsage, 5)       \
	X(ncclRemoteError, 6)        \
	X(ncclInProgress, 7)         \
	X(ncclNumResults, 8)

#define DLT_FA_NCCL_REDOP_LIST(X) \
	X(ncclSum, 0)             \
	X(ncclProd, 1)            \
	X(ncclMax, 2)             \
	X(ncclMin, 3)             \
	X(ncclAvg, 4)             \
	X(ncclNumOps, 5)          \
	X(ncclMaxRedOp, 0x7fffffff)

#define DLT_FA_NCCL_DATATYPE_LIST(X) \
	X(ncclInt8, 0)               \
	X(ncclChar, 0)               \
	X(ncclUint8, 1)              \
	X(ncclInt32, 2)              \
	X(ncclInt, 2)                \
	X(ncclUint32, 3)             \
	X(ncclInt64, 4)              \
	X(ncclUint64, 5)             \
	X(ncclFloat16, 6)            \
	X(ncclHalf, 6)               \
	X(ncclFloat32, 7)            \
	X(ncclFloat, 7)              \
	X(ncclFloat64, 8)            \
	X(ncclDouble, 8)             \
	X(ncclBfloat16, 9)           \
	X(ncclFloat8e4m3, 10)        \
	X(ncclFloat8e5m2, 11)        \
	X(ncclNumTypes, 12)

#define DLT_FA_ENUMERATOR(name, value) DLT_FA(name) = (value),

#endif /* DLT_FAKE_ABI_LISTS */
