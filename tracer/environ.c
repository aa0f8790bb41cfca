/* Which environment variables a trace may show (docs/privacy.md), and the
 * rank and world size the launchers' variables give. */
#include "writer.h"

#include "rankvars.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Variables a bug report may show: the loader's, the GPU stack's and the
 * launchers'.  Exact names end without '*'; prefixes end with '*'. */
static const char *const dlt_env_allow[] = {
	DLT_RANK_VARS(DLT_RANKVAR_STR) DLT_WORLD_SIZE_VARS(DLT_RANKVAR_STR)
		DLT_LOCAL_RANK_VARS(DLT_RANKVAR_STR) "LD_*",
	"CUDA_*",
	"NVIDIA_*",
	"CUDNN_*",
	"NCCL_*",
	"TORCH_*",
	"PYTORCH_*",
	"LOCAL_WORLD_SIZE",
	"GROUP_RANK",
	"ROLE_RANK",
	"MASTER_ADDR",
	"MASTER_PORT",
	"OMP_*",
	"PYTHONPATH",
	"PYTHONHOME",
	"PYTHONNOUSERSITE",
	"PYTHONUSERBASE",
	"VIRTUAL_ENV",
	"CONDA_PREFIX",
	"CONDA_DEFAULT_ENV",
	"XLA_FLAGS",
	"TF_CPP_MIN_LOG_LEVEL",
	"XLA_PYTHON_CLIENT_PREALLOCATE",
	"JAX_PLATFORMS",
	"SLURM_JOB_ID",
	"SLURM_NODEID",
	"DLTRACE_*",
	"UCX_NET_DEVICES",
	"FI_PROVIDER",
	"PATH",
	NULL};

/* Substrings that mark a value as secret even under an allowed prefix. */
static const char *const dlt_env_secret_words[] = {
	"TOKEN",      "SECRET", "PASSW",  "KEY",
	"CREDENTIAL", "AUTH",	"COOKIE", NULL};

int dlt_env_allowed(const char *name, size_t len)
{
	for (const char *const *a = dlt_env_allow; *a; a++) {
		size_t al = strlen(*a);
		if ((*a)[al - 1] == '*') {
			if (len >= al - 1 && memcmp(name, *a, al - 1) == 0)
				return 1;
		} else if (len == al && memcmp(name, *a, al) == 0) {
			return 1;
		}
	}
	return 0;
}

int dlt_env_secret(const char *name, size_t len)
{
	for (const char *const *s = dlt_env_secret_words; *s; s++) {
		size_t sl = strlen(*s);
		for (size_t i = 0; i + sl <= len; i++)
			if (memcmp(name + i, *s, sl) == 0)
				return 1;
	}
	return 0;
}

static int dlt_env_int(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		if (v && *v) {
			char *end;
			long r = strtol(v, &end, 10);
			if (*end == '\0' && r >= 0 && r < (1L << 30))
				return (int)r;
		}
	}
	return -1;
}

int dlt_env_rank(void)
{
	static const char *const n[] = {DLT_RANK_VARS(DLT_RANKVAR_STR) NULL};
	return dlt_env_int(n);
}

int dlt_env_world_size(void)
{
	static const char *const n[] = {DLT_WORLD_SIZE_VARS(DLT_RANKVAR_STR)
						NULL};
	return dlt_env_int(n);
}

/* "512", "64K", "256M", "2G" (K, M, G are powers of 1024; a trailing "B"
 * or "iB" is allowed): bytes, or 0 when v is not a size. */
uint64_t dlt_parse_size(const char *v)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (end == v || errno != 0 || *v == '-')
		return 0;
	unsigned shift = 0;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	}
	if (shift && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
		end += strlen(end);
	if (*end != '\0' || n > (~0ull >> shift))
		return 0;
	return (uint64_t)n << shift;
}
