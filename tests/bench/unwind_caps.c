#define _GNU_SOURCE
#include "unwind_caps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ucaps_gather(struct ucaps *uc, int argc, char **argv, const char *tool)
{
	memset(uc, 0, sizeof(*uc));
	uc->stacks = 10000;
	int runs = 4, load = 0;
	const char *save = NULL;
	int opt;
	while ((opt = getopt(argc, argv, "n:r:ls:")) != -1) {
		if (opt == 'n')
			uc->stacks = strtoul(optarg, NULL, 10);
		else if (opt == 'r')
			runs = atoi(optarg);
		else if (opt == 'l')
			load = 1;
		else if (opt == 's')
			save = optarg;
		else
			return -1;
	}
	if (uc->stacks == 0)
		uc->stacks = 1;
	const char *defs[] = {
		DLT_TEST_STK "/stk_chain", DLT_TEST_STK "/stk_signal",
		DLT_TEST_STK "/stk_libc",  DLT_TEST_STK "/stk_dbg",
		DLT_TEST_STK "/stk_stale", DLT_TEST_STK "/stk_cxx"};
	const char **progs = defs;
	size_t np = sizeof(defs) / sizeof(defs[0]);
	if (optind < argc) {
		progs = (const char **)&argv[optind];
		np = (size_t)(argc - optind);
	}
	size_t max = np * (size_t)(runs > 0 ? runs : 1);
	uc->caps = calloc(max, sizeof(*uc->caps));
	uc->prog = calloc(max, sizeof(*uc->prog));
	if (uc->caps == NULL || uc->prog == NULL) {
		ucaps_free(uc);
		return -1;
	}
	for (size_t p = 0; p < np; p++) {
		if (load) {
			if (cap_load(&uc->caps[uc->n], progs[p]) == 0)
				uc->prog[uc->n++] = progs[p];
			else
				fprintf(stderr, "%s: not a capture\n",
					progs[p]);
			continue;
		}
		/* The C++ fixture is built only where there is a C++
		 * compiler. */
		if (access(progs[p], X_OK) != 0)
			continue;
		for (int r = 0; r < runs; r++) {
			const char *av[] = {progs[p], NULL};
			char err[256];
			struct cap *c = &uc->caps[uc->n];
			if (cap_run(av, NULL, c, err, sizeof(err)) != 0) {
				fprintf(stderr, "%s\n", err);
				continue;
			}
			if (save) {
				char path[4096];
				snprintf(path, sizeof(path), "%s/cap%zu", save,
					 uc->n);
				if (cap_save(c, path) != 0)
					fprintf(stderr, "%s: not saved\n",
						path);
			}
			uc->prog[uc->n++] = progs[p];
		}
	}
	if (uc->n == 0) {
		fprintf(stderr, "%s: no captures\n", tool);
		ucaps_free(uc);
		return -1;
	}
	return 0;
}

void ucaps_free(struct ucaps *uc)
{
	for (size_t i = 0; uc->caps && i < uc->n; i++)
		cap_free(&uc->caps[i]);
	free(uc->caps);
	free(uc->prog);
	memset(uc, 0, sizeof(*uc));
}
