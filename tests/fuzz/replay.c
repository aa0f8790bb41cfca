/* Runs a libFuzzer target over files without libFuzzer, so that the test
 * suite replays the fuzz corpus with any compiler (and under ASan+UBSan in
 * the sanitizer build):
 *
 *   fuzz_replay_X FILE|DIR...
 *
 * Every regular file named, or found (not recursively) in a directory
 * named, is one input.  A crash, a sanitizer report or an abort in the
 * target ends the run with the input named on stdout just before; a
 * directory without a single input is a failure too, since then nothing
 * was tested. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static FILE *rp_out;
static size_t rp_count;
static double rp_slowest;
static char rp_slowest_name[4096];

static double rp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int rp_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		perror(path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (nb == NULL)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (buf == NULL) {
		fprintf(stderr, "%s: out of memory\n", path);
		return -1;
	}
	fprintf(rp_out, "input %s (%zu bytes)\n", path, n);
	fflush(rp_out);
	/* An exact-size copy: ASan then sees a read past the input. */
	uint8_t *exact = malloc(n ? n : 1);
	memcpy(exact, buf, n);
	free(buf);
	double t0 = rp_now();
	LLVMFuzzerTestOneInput(exact, n);
	double dt = rp_now() - t0;
	free(exact);
	if (dt > rp_slowest) {
		rp_slowest = dt;
		snprintf(rp_slowest_name, sizeof(rp_slowest_name), "%s", path);
	}
	rp_count++;
	return 0;
}

static int rp_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int rp_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d == NULL) {
		perror(dir);
		return -1;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char **nn = realloc(names, (n + 1) * sizeof(*names));
		if (nn == NULL)
			break;
		names = nn;
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0)
			break;
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), rp_name_cmp);
	int rc = n ? 0 : -1;
	if (n == 0)
		fprintf(stderr, "%s: no input in this directory\n", dir);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    rp_file(names[i]) != 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	/* The target may silence stdout; progress goes to a copy of it. */
	rp_out = fdopen(dup(1), "w");
	if (rp_out == NULL)
		return 1;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			rc = 1;
		} else if (S_ISDIR(st.st_mode) ? rp_dir(argv[i]) != 0
					       : rp_file(argv[i]) != 0) {
			rc = 1;
		}
	}
	fprintf(rp_out, "%zu inputs replayed; slowest %.3f s (%s)\n", rp_count,
		rp_slowest, rp_slowest_name);
	return rc || rp_count == 0;
}
