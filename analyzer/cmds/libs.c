/* "libs": the library table of each process, as text or as JSON.
 *
 * The JSON shape is a contract with other tools; change it only by adding
 * members. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "sections.h"
#include "gpu.h"
#include "json.h"
#include "model.h"
#include "traceset.h"

const char dlt_libs_usage[] =
	"usage: dltrace-analyze libs [--json] [--run ID] PATH...\n"
	"\n"
	"Every library each process loaded or failed to load, in the order it\n"
	"happened: the rule that found it (RPATH, LD_LIBRARY_PATH, RUNPATH,\n"
	"LD_SO_CACHE, DEFAULT, ABSOLUTE, PRELOAD, MAIN, UNKNOWN), the file, "
	"the\n"
	"name asked for and who asked.  A failed load shows the error and the\n"
	"paths the loader tried; a probe of a library that loaded in the end\n"
	"under another name (cuDNN tries libcudnn_graph.so.9.19.0, .9.19,\n"
	"then .9) is one PROBE line and is counted apart, not as a failure.\n"
	"\n"
	"  --json   one JSON object: {\"processes\":[...],\"problems\":[...]}\n"
	"  --run ID only the traces of that run of the launcher (summary\n"
	"           shows each run's identity)\n"
	"\n"
	"PATH is a trace file or a directory of *.dltrace files.  Damage in a\n"
	"trace and inputs that cannot be read are reported on stderr (and in\n"
	"\"problems\" with --json); the exit status is 2 only when no input\n"
	"could be read at all.\n";

#define DLT_MAX_NAMES 40

static void dlt_put_mode(FILE *out, int32_t mode)
{
	char names[DLT_MAX_NAMES][DLT_NAME_LEN];
	size_t n = dlt_rtld_mode_names(mode, names, DLT_MAX_NAMES);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? "|" : "", names[i]);
}

static void dlt_text_tried(FILE *out, const struct dlt_tried_path *t)
{
	fprintf(out, "      tried %-15s ", dlt_found_via_name(t->via));
	dlt_fput_text(out, t->path, "(path lost)");
	fputc('\n', out);
}

/* The default directories alone make some 40 paths per name (glibc-hwcaps
 * and tls subdirectories): in text, a long run of one rule shows its ends;
 * --json has every path. */
static void dlt_text_tried_list(FILE *out, const struct dlt_lib *lib)
{
	uint32_t i = 0;
	while (i < lib->n_tried) {
		uint32_t j = i;
		while (j < lib->n_tried &&
		       lib->tried[j].via == lib->tried[i].via)
			j++;
		if (j - i <= 4) {
			for (uint32_t k = i; k < j; k++)
				dlt_text_tried(out, &lib->tried[k]);
		} else {
			dlt_text_tried(out, &lib->tried[i]);
			dlt_text_tried(out, &lib->tried[i + 1]);
			fprintf(out,
				"      ... %" PRIu32 " more %s paths ...\n",
				j - i - 3,
				dlt_found_via_name(lib->tried[i].via));
			dlt_text_tried(out, &lib->tried[j - 1]);
		}
		i = j;
	}
}

static void dlt_text_lib(FILE *out, const struct dlt_process *p,
			 const struct dlt_lib *lib, uint8_t kind)
{
	fprintf(out, "  %-15s ",
		kind == DLT_FAIL_PROBE ? "PROBE"
		: lib->failed && lib->from_fail_record
			? "NOT FOUND"
			: dlt_found_via_name(lib->found_via));
	const char *file = lib->realpath ? lib->realpath : lib->path;
	if (lib->failed && lib->from_fail_record)
		file = NULL;
	if (file)
		dlt_fput_text(out, file, "");
	else
		dlt_fput_text(out, lib->requested, "(name not recorded)");
	char ver[64];
	const char *from;
	if (file && dlt_lib_version_str(p, lib, ver, sizeof(ver), &from)[0] &&
	    strcmp(from, "file name") != 0) {
		/* A name's suffix is on the line already. */
		fputs(" [", out);
		dlt_fput_text(out, ver, "");
		fputc(']', out);
	}
	/* The name asked for, unless it is what is already shown. */
	const char *asked = lib->requested;
	if (asked && file &&
	    (strcmp(asked, file) == 0 ||
	     (lib->path && strcmp(asked, lib->path) == 0)))
		asked = NULL;
	if (!file)
		asked = NULL;
	if (asked || lib->requester) {
		fputs(" (", out);
		if (asked) {
			dlt_fput_text(out, asked, "");
			if (lib->requester)
				fputs(", ", out);
		}
		if (lib->requester) {
			fputs("by ", out);
			dlt_fput_text(out, dlt_basename(lib->requester), "");
		}
		fputc(')', out);
	}
	if (lib->dlopen_mode >= 0) {
		fputs(" dlopen ", out);
		dlt_put_mode(out, lib->dlopen_mode);
	}
	if (lib->flags & DLT_LIB_PRELOAD)
		fputs(" [preload]", out);
	if (lib->flags & DLT_LIB_VDSO)
		fputs(" [vdso]", out);
	/* A probe of a library that loaded in the end under another name
	 * (cuDNN tries libcudnn_graph.so.9.19.0, .9.19, then .9), and a name
	 * that failed before, take one line. */
	if (kind == DLT_FAIL_PROBE) {
		fputs(lib->from_fail_record ? ": not found" : ": did not load",
		      out);
		fputs(" (a probe; the library loaded under another name)\n",
		      out);
		return;
	}
	if (lib->failed) {
		fputs(kind == DLT_FAIL_REPEAT ? " FAILED again: " : " FAILED: ",
		      out);
		dlt_fput_text(out, lib->error, "");
	}
	fputc('\n', out);
	if (!lib->failed || kind == DLT_FAIL_REPEAT)
		return;
	dlt_text_tried_list(out, lib);
	if (lib->flags & DLT_LIB_TRIED_CUT)
		fputs("      (more paths were tried than recorded)\n", out);
}

static void dlt_libs_text_process(FILE *out, const struct dlt_process *p)
{
	fprintf(out, "pid %" PRIu32, p->hdr.pid);
	if (p->rank >= 0)
		fprintf(out, " rank %" PRId32, p->rank);
	fputs(" on ", out);
	dlt_fput_text(out, p->host, "?");
	fputs(": ", out);
	dlt_fput_text(out, p->exe, "(program not recorded)");
	fputs(" [", out);
	dlt_fput_text(out, p->trace, "");
	size_t failed, probes;
	dlt_lib_fail_counts(p, &failed, &probes);
	fprintf(out, "]: %zu loaded, %zu failed", p->nlibs_loaded, failed);
	if (probes)
		fprintf(out, ", %zu probe%s", probes, probes == 1 ? "" : "s");
	fputc('\n', out);
	if (p->nlibs == 0)
		fputs("  (no library records)\n", out);
	uint8_t *kind = dlt_lib_fail_kinds(p);
	for (size_t i = 0; i < p->nlibs; i++)
		dlt_text_lib(out, p, &p->libs[i], kind[i]);
	free(kind);
}

static void dlt_json_names(struct dlt_json *j, char names[][DLT_NAME_LEN],
			   size_t n)
{
	dlt_json_array_begin(j);
	for (size_t i = 0; i < n; i++)
		dlt_json_string(j, names[i]);
	dlt_json_array_end(j);
}

static void dlt_json_lib(struct dlt_json *j, const struct dlt_process *p,
			 const struct dlt_lib *lib, uint8_t kind)
{
	char names[DLT_MAX_NAMES][DLT_NAME_LEN];
	dlt_json_object_begin(j);
	/* A failed load has no file to name; the opened path of one that was
	 * mapped and then dropped is still in loaded_as. */
	const char *path = lib->realpath ? lib->realpath : lib->path;
	dlt_json_kv_string(j, "path", lib->failed ? NULL : path);
	dlt_json_kv_string(j, "loaded_as", lib->path);
	dlt_json_kv_string(j, "requested", lib->requested);
	dlt_json_kv_string(j, "requester", lib->requester);
	dlt_json_kv_string(j, "found_via", dlt_found_via_name(lib->found_via));
	dlt_json_kv_string(j, "soname", lib->soname);
	dlt_json_kv_bool(j, "failed", lib->failed);
	dlt_json_kv_bool(j, "probe", kind == DLT_FAIL_PROBE);
	dlt_json_kv_string(j, "error", lib->failed ? lib->error : NULL);
	dlt_json_key(j, "dlopen_mode");
	if (lib->dlopen_mode >= 0)
		dlt_json_names(j, names,
			       dlt_rtld_mode_names(lib->dlopen_mode, names,
						   DLT_MAX_NAMES));
	else
		dlt_json_null(j);
	dlt_json_key(j, "tried");
	dlt_json_array_begin(j);
	for (uint32_t i = 0; i < lib->n_tried; i++) {
		dlt_json_object_begin(j);
		dlt_json_kv_string(j, "path", lib->tried[i].path);
		dlt_json_kv_string(j, "via",
				   dlt_found_via_name(lib->tried[i].via));
		dlt_json_object_end(j);
	}
	dlt_json_array_end(j);
	dlt_json_kv_string(j, "runpath", lib->runpath);
	dlt_json_kv_string(j, "rpath", lib->rpath);
	dlt_json_kv_uint(j, "size", lib->size);
	dlt_json_kv_int(j, "mtime_ns", lib->mtime_ns);
	dlt_json_kv_uint(j, "inode", lib->ino);
	dlt_json_kv_uint(j, "device", lib->dev);
	dlt_json_key(j, "build_id");
	if (lib->build_id_len > 0) {
		char hex[2 * sizeof(lib->build_id) + 1];
		for (uint32_t i = 0; i < lib->build_id_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", lib->build_id[i]);
		dlt_json_string(j, hex);
	} else {
		dlt_json_null(j);
	}
	dlt_json_key(j, "flags");
	dlt_json_names(j, names,
		       dlt_lib_flag_names(lib->flags, names, DLT_MAX_NAMES));
	char ver[64];
	const char *from;
	dlt_lib_version_str(p, lib, ver, sizeof(ver), &from);
	dlt_json_kv_string(j, "version", ver[0] ? ver : NULL);
	dlt_json_kv_string(j, "version_from", from);
	dlt_json_object_end(j);
}

void dlt_libs_json_process(struct dlt_json *j, const struct dlt_process *p)
{
	dlt_json_object_begin(j);
	dlt_json_kv_uint(j, "pid", p->hdr.pid);
	dlt_json_kv_uint(j, "ppid", p->hdr.ppid);
	if (p->rank >= 0)
		dlt_json_kv_int(j, "rank", p->rank);
	else
		dlt_json_kv_null(j, "rank");
	dlt_json_kv_string(j, "host", p->host);
	dlt_json_kv_string(j, "exe", p->exe);
	dlt_json_kv_string(j, "trace", p->trace);
	dlt_json_key(j, "libraries");
	dlt_json_array_begin(j);
	uint8_t *kind = dlt_lib_fail_kinds(p);
	for (size_t i = 0; i < p->nlibs; i++)
		dlt_json_lib(j, p, &p->libs[i], kind[i]);
	free(kind);
	dlt_json_array_end(j);
	dlt_json_object_end(j);
}

void dlt_libs_json_each(const struct dlt_process *p,
			void (*fn)(void *ctx, const char *json, size_t len),
			void *ctx)
{
	uint8_t *kind = dlt_lib_fail_kinds(p);
	for (size_t i = 0; i < p->nlibs; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (f == NULL) {
			fputs("dltrace-analyze: out of memory\n", stderr);
			exit(DLT_EXIT_USAGE);
		}
		struct dlt_json j;
		dlt_json_init(&j, f, false);
		dlt_json_lib(&j, p, &p->libs[i], kind[i]);
		dlt_json_finish(&j);
		fclose(f);
		fn(ctx, buf, len);
		free(buf);
	}
	free(kind);
}

static void dlt_json_problem(struct dlt_json *j, const char *trace,
			     const char *message)
{
	dlt_json_object_begin(j);
	dlt_json_kv_string(j, "trace", trace);
	dlt_json_kv_string(j, "message", message);
	dlt_json_object_end(j);
}

static int dlt_libs_json(FILE *out, const struct dlt_set *s)
{
	struct dlt_json j;
	dlt_json_init(&j, out, true);
	dlt_json_object_begin(&j);
	dlt_json_key(&j, "processes");
	dlt_json_array_begin(&j);
	for (size_t i = 0; i < s->nprocs; i++)
		dlt_libs_json_process(&j, s->procs[i]);
	dlt_json_array_end(&j);
	dlt_json_key(&j, "problems");
	dlt_json_array_begin(&j);
	for (size_t i = 0; i < s->nunusable; i++)
		dlt_json_problem(&j, s->unusable[i].path,
				 s->unusable[i].message);
	for (size_t i = 0; i < s->nprocs; i++)
		for (size_t k = 0; k < s->procs[i]->nproblems; k++)
			dlt_json_problem(&j, s->procs[i]->trace,
					 s->procs[i]->problems[k]);
	dlt_json_array_end(&j);
	dlt_json_object_end(&j);
	return dlt_json_finish(&j);
}

int dlt_cmd_libs(int argc, char **argv)
{
	bool json = false;
	const char *run = NULL;
	const struct dlt_flag_opt opts[] = {{"--json", &json, NULL},
					    {"--run", NULL, &run}};
	int npaths;
	int rc = dlt_cmd_args("libs", dlt_libs_usage, argc, argv, opts, 2,
			      &npaths);
	if (rc >= 0)
		return rc;
	struct dlt_job j;
	rc = dlt_cmd_job("libs", run, NULL, npaths, argv, &j);
	if (rc >= 0)
		return rc;
	struct dlt_set s;
	dlt_set_read(&s, &j, stderr);
	dlt_job_close(&j);
	if (json) {
		/* A write error is reported by main's check of stdout. */
		if (dlt_libs_json(stdout, &s) != 0 && !ferror(stdout)) {
			fputs("dltrace-analyze: internal error: malformed JSON "
			      "output\n",
			      stderr);
			rc = DLT_EXIT_USAGE;
		}
	} else {
		for (size_t i = 0; i < s.nprocs; i++) {
			if (i)
				fputc('\n', stdout);
			dlt_libs_text_process(stdout, s.procs[i]);
		}
	}
	dlt_set_free(&s);
	return rc < 0 ? DLT_EXIT_OK : rc;
}
