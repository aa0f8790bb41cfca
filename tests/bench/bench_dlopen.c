/* N dlopen/dlclose pairs of LIB; prints the total wall time in ms. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_dlopen LIB N\n");
		return 2;
	}
	long n = atol(argv[2]);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "bench_dlopen: %s\n", dlerror());
			return 1;
		}
		dlclose(h);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.3f\n", (double)(b.tv_sec - a.tv_sec) * 1e3 +
				 (double)(b.tv_nsec - a.tv_nsec) / 1e6);
	return 0;
}
