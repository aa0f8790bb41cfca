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

/* Whether the file at path is still what its package installed: the
 * digest its manager recorded (dpkg's md5sums, pip's RECORD, conda's
 * paths_data) against the file's own.  Advice to reinstall a package is
 * only right when the file differs from it. */
enum dlt_verdict {
	DLT_VERIFY_UNKNOWN = 0,
	DLT_VERIFY_SAME,
	DLT_VERIFY_DIFFERS,
};

struct dlt_verify {
	enum dlt_verdict verdict;
	const char *digest; /* "md5", "sha256": what was compared; or NULL */
	char why[256];	    /* UNKNOWN: why it cannot be told */
};

/* Compares path (what in says installed it: dlt_install_find's answer for
 * the same path and dpkg_info) with its package's record: dpkg's
 * <package>[:<arch>].md5sums under dpkg_info, whose lines name the file
 * without its leading '/' (the path, its real path or their merged-/usr
 * twin); the RECORD of a .dist-info in the site-packages above it; the
 * "paths_data" of a conda-meta entry above it.  Reads the file whole when
 * a record names it. */
void dlt_install_verify(const char *path, const char *dpkg_info,
			const struct dlt_install *in, struct dlt_verify *out);
/* "same", "differs", "unknown: <why>" into buf. */
const char *dlt_verify_text(const struct dlt_verify *v, char *buf, size_t cap);

#endif
