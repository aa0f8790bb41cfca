/* ENV_DIFFERS: the odd one out.  The ranks of one job (one run, one
 * MASTER_ADDR:MASTER_PORT) should load the same GPU libraries from the
 * same place, the same NCCL plugins, and see the same variables that steer
 * loading and NCCL/CUDA: a rank (a host) that differs is where "works on
 * node A, hangs on node B" comes from.  A warning; an error where the
 * difference is known to break collectives: two NCCL versions, or a
 * network plugin on some ranks only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envprof.h"
#include "rules.h"

/* The system's items worth comparing between ranks: a kernel or an OS
 * point release differs between nodes of a healthy cluster. */
static bool dlt_odd_sys_key(const char *key)
{
	return strcmp(key, "NVIDIA driver") == 0 ||
	       strcmp(key, "CUDA driver API") == 0 ||
	       strcmp(key, "python") == 0 || strcmp(key, "torch") == 0;
}

static bool dlt_odd_breaks(const struct dlt_envp_item *key,
			   const struct dlt_envp_group *g, size_t ng)
{
	if (key->kind == DLT_ENVP_PLUGIN)
		return true;
	if (key->kind == DLT_ENVP_VAR)
		return strcmp(key->key, "NCCL_NET_PLUGIN") == 0 ||
		       strcmp(key->key, "NCCL_NET") == 0;
	if (key->kind != DLT_ENVP_GPU_LIB || strcmp(key->key, "libnccl") != 0)
		return false;
	for (size_t i = 1; i < ng; i++)
		if (g[i].item && g[0].item &&
		    strcmp(g[i].item->value, g[0].item->value) != 0)
			return true;
	return false;
}

/* "2.28.9 (/usr/lib/libnccl.so.2, LD_SO_CACHE)", "unset" ... */
static const char *dlt_odd_value(const struct dlt_envp_item *key,
				 const struct dlt_envp_item *it, char *buf,
				 size_t cap)
{
	if (it == NULL)
		snprintf(buf, cap, "%s",
			 key->kind == DLT_ENVP_VAR ? "unset" : "not loaded");
	else if (key->kind == DLT_ENVP_VAR)
		snprintf(buf, cap, "\"%s\"", it->value);
	else if (it->path)
		snprintf(buf, cap, "%s (%s, %s)", it->value, it->path,
			 it->via ? it->via : "?");
	else
		snprintf(buf, cap, "%s", it->value);
	return buf;
}

static void dlt_odd_ev_group(struct dlt_val *o, const struct dlt_envp_unit *u,
			     const struct dlt_envp_group *g)
{
	if (g->item) {
		dlt_obj_str(o, "value", g->item->value);
		if (g->item->path) {
			dlt_obj_str(o, "path", g->item->path);
			dlt_obj_str(o, "found_via", g->item->via);
			dlt_obj_str(o, "identity", g->item->identity);
		}
	} else {
		dlt_obj_null(o, "value");
	}
	struct dlt_val *r = dlt_obj_array(o, "ranks");
	struct dlt_val *h = dlt_obj_array(o, "hosts");
	for (size_t k = 0; k < g->n; k++) {
		const struct dlt_envprof *p = u[g->units[k]].prof;
		dlt_arr_int(r, p->rank);
		bool seen = false;
		for (size_t m = 0; m < k && !seen; m++)
			seen = strcmp(u[g->units[m]].prof->host, p->host) == 0;
		if (!seen)
			dlt_arr_str(h, p->host);
	}
}

/* The process of c that stands for a unit: its rank's first. */
static size_t dlt_odd_proc(const struct dlt_job_ctx *c, const size_t *members,
			   size_t n, int32_t rank)
{
	for (size_t k = 0; k < n; k++)
		if (c->chk->procs[c->proc[members[k]]].rank == rank)
			return members[k];
	return members[0];
}

static void dlt_odd_key(struct dlt_job_ctx *c, const size_t *members, size_t nm,
			const struct dlt_envp_unit *u, size_t nu,
			const struct dlt_envp_item *key,
			struct dlt_envp_group *groups, size_t *idx)
{
	struct dlt_envp_group absent;
	size_t ng = dlt_envp_present(
		key, groups, dlt_envp_groups(u, nu, key, groups, idx), &absent);
	if (ng < 2)
		return;
	bool breaks = dlt_odd_breaks(key, groups, ng);
	const struct dlt_envp_group *odd = &groups[1];
	char who[512], mwho[512], v1[1200], v0[1200];
	dlt_envp_who(u, odd, who, sizeof(who));
	dlt_envp_who(u, &groups[0], mwho, sizeof(mwho));
	size_t at = dlt_odd_proc(c, members, nm, u[odd->units[0]].prof->rank);
	const char *what = key->kind == DLT_ENVP_VAR ? "variable" : "library";
	if (key->kind == DLT_ENVP_PLUGIN)
		what = "NCCL plugin";
	else if (key->kind == DLT_ENVP_SYS)
		what = "version";
	const struct dlt_envp_item *a = groups[0].item, *b = odd->item;
	const char *same_build =
		a && b && a->identity && b->identity &&
				strcmp(a->identity, b->identity) == 0 &&
				strcmp(a->value, b->value) == 0
			? " (the same build, another place)"
			: "";
	struct dlt_finding *f = dlt_job_finding(
		c, at, breaks ? DLT_SEV_ERROR : DLT_SEV_WARNING,
		"%s %s differs on %s: %s, where %s %s %s%s%s", what, key->key,
		who, dlt_odd_value(key, odd->item, v1, sizeof(v1)), mwho,
		groups[0].n == 1 ? "has" : "have",
		dlt_odd_value(key, groups[0].item, v0, sizeof(v0)), same_build,
		ng > 2 ? " (and other values elsewhere)" : "");
	dlt_obj_str(f->evidence, "key", key->key);
	dlt_obj_str(f->evidence, "kind", dlt_envp_kind_name(key->kind));
	dlt_odd_ev_group(dlt_obj_object(f->evidence, "majority"), u,
			 &groups[0]);
	struct dlt_val *o = dlt_obj_array(f->evidence, "odd");
	for (size_t g = 1; g < ng; g++)
		dlt_odd_ev_group(dlt_arr_object(o), u, &groups[g]);
	if (key->kind == DLT_ENVP_VAR)
		dlt_job_fix(c, f,
			    "set %s the same way for every rank (or for none): "
			    "it comes from the shell profile, the container "
			    "image or the launch script of the odd host",
			    key->key);
	else if (key->kind == DLT_ENVP_PLUGIN)
		dlt_job_fix(c, f,
			    "install the same NCCL plugin on every node, or "
			    "none: NCCL picks its network transport from the "
			    "plugin, and ranks with different transports "
			    "cannot connect");
	else
		dlt_job_fix(
			c, f,
			"give every rank the same %s: the same image or "
			"environment on every node, and the same "
			"LD_LIBRARY_PATH (`dltrace-analyze env` shows where "
			"each rank got it)",
			key->key);
}

/* The processes with a profile in i's job, i first: the same run and the
 * same MASTER_ADDR:MASTER_PORT. */
static size_t dlt_odd_members(const struct dlt_job_ctx *c, size_t i,
			      size_t *out)
{
	const struct dlt_hang_proc *a = c->procs[i];
	size_t n = 0;
	for (size_t j = 0; j < c->n; j++) {
		const struct dlt_hang_proc *b = c->procs[j];
		if (c->chk->procs[c->proc[j]].env == NULL ||
		    a->run_group != b->run_group ||
		    strcmp(a->master_addr, b->master_addr) != 0 ||
		    strcmp(a->master_port, b->master_port) != 0)
			continue;
		if (j < i && n == 0)
			return 0; /* an earlier process judges the job */
		out[n++] = j;
	}
	return n;
}

static void dlt_rule_env_differs(struct dlt_job_ctx *c)
{
	size_t *members = dlt_xcalloc(c->n ? c->n : 1, sizeof(*members));
	struct dlt_envprof **profs =
		dlt_xcalloc(c->n ? c->n : 1, sizeof(*profs));
	for (size_t i = 0; i < c->n; i++) {
		if (c->chk->procs[c->proc[i]].env == NULL)
			continue;
		size_t nm = dlt_odd_members(c, i, members);
		if (nm < 2)
			continue;
		for (size_t k = 0; k < nm; k++)
			profs[k] = c->chk->procs[c->proc[members[k]]].env;
		size_t nu, nk;
		struct dlt_envp_unit *u =
			dlt_envp_units(&c->chk->arena, profs, nm, &nu);
		const struct dlt_envp_item **keys = dlt_envp_keys(u, nu, &nk);
		struct dlt_envp_group *groups =
			dlt_xcalloc(nu ? nu : 1, sizeof(*groups));
		size_t *idx = dlt_xcalloc(nu ? nu : 1, sizeof(*idx));
		for (size_t k = 0; nu > 1 && k < nk; k++) {
			bool per_rank = false;
			if (keys[k]->kind == DLT_ENVP_LIB ||
			    (keys[k]->kind == DLT_ENVP_VAR &&
			     (!dlt_envp_var_shapes(keys[k]->key, &per_rank) ||
			      per_rank)) ||
			    (keys[k]->kind == DLT_ENVP_SYS &&
			     !dlt_odd_sys_key(keys[k]->key)))
				continue;
			dlt_odd_key(c, members, nm, u, nu, keys[k], groups,
				    idx);
		}
		free(idx);
		free(groups);
		free(keys);
		free(u);
	}
	free(profs);
	free(members);
}

DLT_RULE(env_differs, 162, "ENV_DIFFERS", DLT_SEV_WARNING, NULL,
	 dlt_rule_env_differs,
	 "one rank's GPU libraries, NCCL plugins or environment differ "
	 "from the others'");
