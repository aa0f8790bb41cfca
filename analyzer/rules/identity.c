/* What a library file is, whatever path it was loaded from: its GNU
 * build-id, its size and the version its name carries.  Two paths holding
 * the same build are one library in two places; a different build-id, size
 * or version is another library.  Rules compare these, never paths. */
#include "rules.h"

#include "elfread.h"
#include "install.h"
#include "live.h"

static void dlt_hex(const uint8_t *b, uint32_t n, char *buf, size_t cap)
{
	buf[0] = '\0';
	for (uint32_t i = 0; i < n && 2 * i + 2 < cap; i++)
		snprintf(buf + 2 * i, 3, "%02x", b[i]);
}

void dlt_lib_identity(const struct dlt_lib *lib, struct dlt_identity *id)
{
	memset(id, 0, sizeof(*id));
	id->size = lib->size;
	id->build_id_len = lib->build_id_len > sizeof(id->build_id)
				   ? (uint32_t)sizeof(id->build_id)
				   : lib->build_id_len;
	memcpy(id->build_id, lib->build_id, id->build_id_len);
	dlt_lib_file_version(lib->realpath ? lib->realpath : lib->path,
			     id->version, sizeof(id->version));
}

bool dlt_file_identity(const char *path, struct dlt_identity *id)
{
	memset(id, 0, sizeof(*id));
	struct dlt_elf e;
	if (dlt_elf_open(&e, path) != 0)
		return false;
	id->size = e.size;
	id->build_id_len =
		dlt_elf_build_id(&e, id->build_id, sizeof(id->build_id));
	dlt_elf_close(&e);
	char real[PATH_MAX];
	dlt_lib_file_version(realpath(path, real) ? real : path, id->version,
			     sizeof(id->version));
	return true;
}

/* Whether two name versions can be one release: "9" and "9.19.0" can
 * (a soname and the file it points to), "9.18.0" and "9.19.0" cannot. */
static bool dlt_versions_agree(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t n = la < lb ? la : lb;
	if (n == 0 || strncmp(a, b, n) != 0)
		return n == 0;
	return la == lb || (la > lb ? a[n] : b[n]) == '.';
}

enum dlt_same dlt_identity_cmp(const struct dlt_identity *a,
			       const struct dlt_identity *b)
{
	/* The build-id decides where both have one: a copy renamed to
	 * its full version is still the same build. */
	if (a->build_id_len && b->build_id_len)
		return a->build_id_len == b->build_id_len &&
				       memcmp(a->build_id, b->build_id,
					      a->build_id_len) == 0 &&
				       a->size == b->size
			       ? DLT_SAME_BUILD
			       : DLT_OTHER_BUILD;
	if (!dlt_versions_agree(a->version, b->version) ||
	    (a->size && b->size && a->size != b->size))
		return DLT_OTHER_BUILD;
	return DLT_SAME_UNKNOWN;
}

enum dlt_same dlt_lib_cmp(const struct dlt_lib *a, const struct dlt_lib *b)
{
	const char *pa = a->realpath ? a->realpath : a->path;
	const char *pb = b->realpath ? b->realpath : b->path;
	if ((pa && pb && strcmp(pa, pb) == 0) ||
	    (a->ino != 0 && a->ino == b->ino && a->dev == b->dev))
		return DLT_SAME_FILE;
	struct dlt_identity ia, ib;
	dlt_lib_identity(a, &ia);
	dlt_lib_identity(b, &ib);
	return dlt_identity_cmp(&ia, &ib);
}

void dlt_ev_identity(struct dlt_val *o, const struct dlt_identity *id)
{
	char hex[2 * sizeof(id->build_id) + 1];
	dlt_hex(id->build_id, id->build_id_len, hex, sizeof(hex));
	dlt_obj_str(o, "build_id", hex[0] ? hex : NULL);
	dlt_obj_str(o, "version", id->version[0] ? id->version : NULL);
}

const char *dlt_dpkg_info(void)
{
	const char *d = getenv("DLTRACE_DPKG_INFO");
	return d && d[0] ? d : "/var/lib/dpkg/info";
}

void dlt_ctx_verify(struct dlt_rule_ctx *c, const char *path,
		    const struct dlt_install *in,
		    const struct dlt_identity *was, struct dlt_verify *out)
{
	memset(out, 0, sizeof(*out));
	if (!dlt_is_this_host(c->p->host)) {
		snprintf(out->why, sizeof(out->why),
			 "the trace was written on another machine");
		return;
	}
	/* A package upgraded since the run: the file now says nothing
	 * about the one that was loaded. */
	struct dlt_identity now;
	if (was && (was->build_id_len || was->size) &&
	    dlt_file_identity(path, &now) &&
	    dlt_identity_cmp(was, &now) == DLT_OTHER_BUILD) {
		snprintf(out->why, sizeof(out->why),
			 "the file is no longer the one the process loaded");
		return;
	}
	dlt_install_verify(path, DLT_DPKG_INFO, in, out);
}

void dlt_ev_verify(struct dlt_val *o, const struct dlt_verify *v)
{
	char buf[300];
	dlt_obj_str(o, "package_check", dlt_verify_text(v, buf, sizeof(buf)));
	dlt_obj_str(o, "package_digest", v->digest);
}

void dlt_ctx_install(struct dlt_rule_ctx *c, const char *path,
		     struct dlt_install *out)
{
	memset(out, 0, sizeof(*out));
	if (dlt_is_this_host(c->p->host))
		dlt_install_find(path, DLT_DPKG_INFO, out);
}

void dlt_ev_install(struct dlt_val *o, const struct dlt_install *in)
{
	dlt_obj_str(o, "installed_by", dlt_installer_name(in->by));
	dlt_obj_str(o, "package", in->package[0] ? in->package : NULL);
}

const char *dlt_install_remove_cmd(const struct dlt_install *in, char *buf,
				   size_t cap)
{
	switch (in->by) {
	case DLT_INST_DPKG:
		snprintf(buf, cap, "apt remove %s", in->package);
		break;
	case DLT_INST_PIP:
		snprintf(buf, cap, "pip uninstall %s", in->package);
		break;
	case DLT_INST_CONDA:
		snprintf(buf, cap, "conda remove %s", in->package);
		break;
	case DLT_INST_UNKNOWN:
		snprintf(buf, cap,
			 "move the file away; how it was installed "
			 "is unknown");
		break;
	}
	return buf;
}

const char *dlt_install_reinstall_cmd(const struct dlt_install *in, char *buf,
				      size_t cap)
{
	switch (in->by) {
	case DLT_INST_DPKG:
		snprintf(buf, cap, "apt install --reinstall %s", in->package);
		return buf;
	case DLT_INST_PIP:
		snprintf(buf, cap, "pip install --force-reinstall %s",
			 in->package);
		return buf;
	case DLT_INST_CONDA:
		snprintf(buf, cap, "conda install --force-reinstall %s",
			 in->package);
		return buf;
	case DLT_INST_UNKNOWN:
		break;
	}
	return NULL;
}
