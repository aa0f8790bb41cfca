/* How a library file came onto this machine: the package manager that
 * owns it, where that can be known.  Fix texts name only the manager that
 * installed the file (a pip wheel's libcudnn is not removed with apt). */
#ifndef DLTRACE_INSTALL_H
#define DLTRACE_INSTALL_H

#include <stdbool.h>
#include <stddef.h>

enum dlt_installer {
	DLT_INST_UNKNOWN = 0,
	DLT_INST_DPKG,	/* listed in /var/lib/dpkg/info/<package>.list */
	DLT_INST_PIP,	/* listed in site-packages/<dist>.dist-info/RECORD */
	DLT_INST_CONDA, /* listed in <prefix>/conda-meta/<package>.json */
};

struct dlt_install {
	enum dlt_installer by;
	char package[128]; /* "" when unknown */
};

/* Looks on this machine for what installed path (a loaded library's path
 * or real path): a pip wheel's RECORD or a conda package's conda-meta
 * entry above it, else a dpkg file list under dpkg_info
 * ("/var/lib/dpkg/info"; NULL: no dpkg lookup), whose lists are read once
 * per process (a list written later is not seen) and only for shared
 * objects (a last path component holding ".so").  Paths a list names
 * through a symlinked directory (/lib and /usr/lib on merged-/usr systems)
 * are matched too. */
void dlt_install_find(const char *path, const char *dpkg_info,
		      struct dlt_install *out);
/* "dpkg", "pip", "conda", "unknown". */
const char *dlt_installer_name(enum dlt_installer by);

#endif
