/* Which environment variables a trace may show (docs/privacy.md), and the
 * rank and world size the launchers' variables give. */
#include "writer.h"
#include "hot.h"

#include "rankvars.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Variables a bug report may show: the loader's, the GPU stack's and the
 * launchers', exact names and prefixes.  Each comes with its length: every
 * variable of every process is tried against the list at start, and
 * measuring the ~45 names again for each variable made strlen the audit
 * module's hottest function in a profile of a short process (issue 31). */
struct dlt_env_name {
	const char *s;
	unsigned char len;
	unsigned char prefix;
	char first; /* s[0], beside the length: no pointer followed */
};
#define DLT_ENV_EXACT(name)                        \
	{                                          \
		name, sizeof(name) - 1, 0, name[0] \
	}
#define DLT_ENV_PREFIX(name)                       \
	{                                          \
		name, sizeof(name) - 1, 1, name[0] \
	}
#define DLT_ENV_RANKVAR(name) DLT_ENV_EXACT(name),
static const struct dlt_env_name dlt_env_allow[] = {
	/* clang-format off */
	DLT_RANK_VARS(DLT_ENV_RANKVAR)
	DLT_WORLD_SIZE_VARS(DLT_ENV_RANKVAR)
	DLT_LOCAL_RANK_VARS(DLT_ENV_RANKVAR)
	/* clang-format on */
	DLT_ENV_PREFIX("LD_"),
	DLT_ENV_PREFIX("CUDA_"),
	DLT_ENV_PREFIX("NVIDIA_"),
	DLT_ENV_PREFIX("CUDNN_"),
	DLT_ENV_PREFIX("NCCL_"),
	DLT_ENV_PREFIX("TORCH_"),
	DLT_ENV_PREFIX("PYTORCH_"),
	DLT_ENV_EXACT("LOCAL_WORLD_SIZE"),
	DLT_ENV_EXACT("GROUP_RANK"),
	DLT_ENV_EXACT("ROLE_RANK"),
	DLT_ENV_EXACT("MASTER_ADDR"),
	DLT_ENV_EXACT("MASTER_PORT"),
	DLT_ENV_PREFIX("OMP_"),
	DLT_ENV_EXACT("PYTHONPATH"),
	DLT_ENV_EXACT("PYTHONHOME"),
	DLT_ENV_EXACT("PYTHONNOUSERSITE"),
	DLT_ENV_EXACT("PYTHONUSERBASE"),
	DLT_ENV_EXACT("VIRTUAL_ENV"),
	DLT_ENV_EXACT("CONDA_PREFIX"),
	DLT_ENV_EXACT("CONDA_DEFAULT_ENV"),
	DLT_ENV_EXACT("XLA_FLAGS"),
	DLT_ENV_EXACT("TF_CPP_MIN_LOG_LEVEL"),
	DLT_ENV_EXACT("XLA_PYTHON_CLIENT_PREALLOCATE"),
	DLT_ENV_EXACT("JAX_PLATFORMS"),
	DLT_ENV_EXACT("SLURM_JOB_ID"),
	DLT_ENV_EXACT("SLURM_NODEID"),
	DLT_ENV_PREFIX("DLTRACE_"),
	DLT_ENV_EXACT("UCX_NET_DEVICES"),
	DLT_ENV_EXACT("FI_PROVIDER"),
	DLT_ENV_EXACT("PATH"),
};

/* Substrings that mark a value as secret even under an allowed prefix. */
static const char *const dlt_env_secret_words[] = {
	"TOKEN",      "SECRET", "PASSW",  "KEY",
	"CREDENTIAL", "AUTH",	"COOKIE", NULL};

int dlt_env_allowed(const char *name, size_t len)
{
	const size_t n = sizeof(dlt_env_allow) / sizeof(dlt_env_allow[0]);
	for (size_t i = 0; i < n; i++) {
		const struct dlt_env_name *a = &dlt_env_allow[i];
		/* The first letter and the length first: most variables
		 * match no name, and most names are exact. */
		if (name[0] != a->first ||
		    (a->prefix ? len < a->len : len != a->len))
			continue;
		if (memcmp(name, a->s, a->len) == 0)
			return 1;
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

#ifdef DLT_FREESTANDING
/* The audit module's environment is the process's first one, which it
 * never sees change (shim/nolibc.c): each answer is read once, not for
 * the configuration and then again for PROC (issue 31).  -2: not yet. */
DLT_HOT static int dlt_env_rank_v = -2, dlt_env_world_v = -2;
#define DLT_ENV_ONCE(v, expr) return v != -2 ? v : (v = (expr))
#else
#define DLT_ENV_ONCE(v, expr) return (expr)
#endif

DLT_START int dlt_env_rank(void)
{
	static const char *const n[] = {DLT_RANK_VARS(DLT_RANKVAR_STR) NULL};
	DLT_ENV_ONCE(dlt_env_rank_v, dlt_env_int(n));
}

int dlt_env_world_size(void)
{
	static const char *const n[] = {DLT_WORLD_SIZE_VARS(DLT_RANKVAR_STR)
						NULL};
	DLT_ENV_ONCE(dlt_env_world_v, dlt_env_int(n));
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
