/* The demo program: a "framework" that ships its own libdemo.so.1 in
 * $ORIGIN/bundled (found through RUNPATH) and loads a plugin at run time.
 * Run it with LD_LIBRARY_PATH pointing at an older libdemo.so.1 and the old
 * copy wins (RUNPATH is searched after LD_LIBRARY_PATH), as in
 * pytorch#80637; the plugin needs libhelper.so.1, which sits in a directory
 * nobody searches, as in faster-whisper#297. */
#include <dlfcn.h>
#include <stdio.h>

int demo_version(void);

int main(int argc, char **argv)
{
	int v = demo_version();
	printf("app: built against libdemo 2, running with libdemo %d%s\n", v,
	       v == 2 ? "" : "  <-- wrong copy");
	if (argc < 2)
		return v == 2 ? 0 : 1;
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL) {
		printf("app: cannot load plugin: %s\n", dlerror());
		return 1;
	}
	printf("app: plugin loaded\n");
	return v == 2 ? 0 : 1;
}
