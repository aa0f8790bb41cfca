/* Fake libcudart.so.12 / libnccl.so.2 for scripts/bench.sh: the hot calls
 * return at once.  Built twice: -DBENCH_CUDART and -DBENCH_NCCL. */
#include <stddef.h>

#ifdef BENCH_CUDART
typedef struct {
	unsigned x, y, z;
} bench_dim3;

int cudaLaunchKernel(const void *f, bench_dim3 g, bench_dim3 b, void **a,
		     size_t sh, void *s)
{
	(void)f, (void)g, (void)b, (void)a, (void)sh, (void)s;
	return 0;
}

int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *s)
{
	(void)dst, (void)src, (void)n, (void)kind, (void)s;
	return 0;
}
#endif

#ifdef BENCH_NCCL
int ncclAllReduce(const void *s, void *d, size_t n, int dt, int op, void *c,
		  void *st)
{
	(void)s, (void)d, (void)n, (void)dt, (void)op, (void)c, (void)st;
	return 0;
}
#endif

#ifdef BENCH_PLAIN
int bench_inc(int x)
{
	return x + 1;
}
#endif
