/* Drives dlopen and calls by handle for the check tests, one command per
 * argument, in order:
 *   open:PATH   dlopen(PATH, RTLD_NOW | RTLD_LOCAL)
 *   deep:PATH   the same with RTLD_DEEPBIND
 *   try:PATH    the same, and a failure does not change the exit status
 *               (a framework probing for an optional library, a GPU
 *               library it falls back from)
 *   int:FUNC    int FUNC(int *) from the library opened last (versions,
 *               device counts)
 *   ptr:FUNC    int FUNC(void **) (cudnnCreate)
 *   void:FUNC   int FUNC(void)
 * One line of output per command.  Exit status 1 when an open or a lookup
 * failed, else 0. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	void *h = NULL;
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *arg = strchr(a, ':');
		if (arg == NULL) {
			fprintf(stderr, "fx_check: bad command %s\n", a);
			return 2;
		}
		arg++;
		if (strncmp(a, "open:", 5) == 0 ||
		    strncmp(a, "deep:", 5) == 0 || strncmp(a, "try:", 4) == 0) {
			int mode = RTLD_NOW | RTLD_LOCAL;
			if (a[0] == 'd')
				mode |= RTLD_DEEPBIND;
			void *n = dlopen(arg, mode);
			if (n == NULL) {
				const char *e = dlerror();
				printf("open %s failed: %s\n", arg,
				       e ? e : "(no dlerror)");
				bad |= a[0] != 't';
				continue;
			}
			h = n;
			printf("open %s ok\n", arg);
			continue;
		}
		void *f = h ? dlsym(h, arg) : NULL;
		if (f == NULL) {
			printf("%s: not found\n", arg);
			bad = 1;
			continue;
		}
		int rc;
		if (strncmp(a, "int:", 4) == 0) {
			int v = -1;
			rc = ((int (*)(int *))f)(&v);
			printf("%s rc=%d value=%d\n", arg, rc, v);
		} else if (strncmp(a, "ptr:", 4) == 0) {
			void *p = NULL;
			rc = ((int (*)(void **))f)(&p);
			printf("%s rc=%d\n", arg, rc);
		} else {
			rc = ((int (*)(void))f)();
			printf("%s rc=%d\n", arg, rc);
		}
	}
	return bad;
}
