/* shim/cudnn_backend.h writes down cuDNN backend numbers so that dltrace
 * builds without NVIDIA headers.  Built only where the real headers are
 * installed: every value must equal the real enumerator, or the build
 * fails here. */
#include <cudnn_graph.h>
#include <stdio.h>

#include "cudnn_backend.h"

#define DLT_X(name, real, value)                                           \
	_Static_assert((long long)DLT_CUDNN_##name == (long long)(real) && \
			       (long long)(real) == (value),               \
		       "DLT_CUDNN_" #name " differs from " #real);
DLT_CUDNN_BK_ENUMS(DLT_X)
#undef DLT_X

int main(void)
{
	int n = 0;
#define DLT_X(name, real, value) n++;
	DLT_CUDNN_BK_ENUMS(DLT_X)
#undef DLT_X
	printf("%d cuDNN backend values match cudnn_graph.h (%d.%d.%d)\n", n,
	       CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
	return 0;
}
