/* The traces of a large distributed job that hung, without running one:
 * N ranks, K per node, each with its trace and the watcher's companion,
 * written with the real writer (tracer/) so that the files are what the
 * shim and the watcher write, for the analyzer's benchmarks over 1,024
 * and 10,000 ranks (scripts/bench.sh, "9b. 10,000 ranks") and the test
 * of the folded output (tests/test_job.c, "fold").
 *
 *   gen_ranks --out DIR [--ranks N] [--per-node K] [--culprit R]
 *             [--collectives C] [--seed S]
 *
 * DIR/node0042/node0042.PID.0.rRANK.dltrace and its .watch companion.
 * Each rank: PROC, ARG, the allow-listed environment (a few ranks with an
 * outlier value), about 300 LIB_LOAD rows (one rank loads another
 * libnccl), the NCCL versions, ncclCommInitRank, C ncclAllReduce calls
 * written as the shim writes them (an API_DEF, then 8-byte compact
 * entries), and then, for every rank but the culprit, collective C + 1
 * open (never returned), with the companion's STALL in futex and the
 * PYSTACK of the waiting thread.  The culprit (default N / 2 - 1) made C
 * collectives and sleeps in train.py:88 in load_batch.  The heartbeat and
 * the launcher's KILL records are those of a job ended by --hang-timeout.
 *
 * Deterministic: the contents depend on the options only (the trace ids
 * and the start time are the writer's, as in any trace). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

#include "dltrace/apivals.h"

#define GEN_MS 1000000ull
#define GEN_S 1000000000ull
#define GEN_NCCL_ID 141u   /* ncclCommInitRank (apis.def) */
#define GEN_ALLRED_ID 152u /* ncclAllReduce */
#define GEN_UID_ID 140u	   /* ncclGetUniqueId */

struct gen_opts {
	int ranks, per_node, culprit, colls;
	const char *out;
	uint64_t seed;
};

/* Large: off the stack. */
static struct dlt_writer gen_w, gen_c;

/* splitmix64: the per-rank values from the seed. */
static uint64_t gen_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t gen_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

/* The slot of an API and its values, as shim/calls.h's dlt_call_hash
 * computes it: a reader checks only that the chunk defines the slot, but
 * the files should be the shim's. */
static uint32_t gen_call_hash(uint16_t id, const uint64_t *v, uint32_t n)
{
	uint64_t h = (uint64_t)id << 48;
	for (uint32_t i = 0; i < n; i++)
		h ^= (v[i] << (13 * i % 64)) | (v[i] >> ((64 - 13 * i) % 64));
	return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >>
			  (64 - DLT_ENTRY_SLOT_BITS));
}

/* A duration as API_CALL.dur holds it (shim/apitable.h's dlt_dur). */
static uint32_t gen_dur(uint64_t ns)
{
	if (ns < DLT_DUR_US_FLAG)
		return (uint32_t)ns;
	uint64_t us = ns / 1000;
	return us < DLT_DUR_US_FLAG - 1 ? (uint32_t)us | DLT_DUR_US_FLAG
					: DLT_DUR_OPEN - 1;
}

/* ---- the library table --------------------------------------------------
 *
 * What a torch job on CUDA maps: the system's libraries, Python's, its
 * extension modules, torch's and the NVIDIA wheels' (about 300 rows). */

#define GEN_SITE "/opt/venv/lib/python3.11/site-packages"
#define GEN_NV GEN_SITE "/nvidia"

static const char *const gen_sys[] = {
	"/usr/bin/python3.11",
	"linux-vdso.so.1",
	"/lib/x86_64-linux-gnu/libc.so.6",
	"/lib/x86_64-linux-gnu/libm.so.6",
	"/lib/x86_64-linux-gnu/libz.so.1",
	"/lib/x86_64-linux-gnu/libexpat.so.1",
	"/lib64/ld-linux-x86-64.so.2",
	"/lib/x86_64-linux-gnu/libstdc++.so.6",
	"/lib/x86_64-linux-gnu/libgcc_s.so.1",
	"/lib/x86_64-linux-gnu/libffi.so.8",
	"/lib/x86_64-linux-gnu/libssl.so.3",
	"/lib/x86_64-linux-gnu/libcrypto.so.3",
	"/lib/x86_64-linux-gnu/libbz2.so.1.0",
	"/lib/x86_64-linux-gnu/liblzma.so.5",
	"/lib/x86_64-linux-gnu/libuuid.so.1",
	"/lib/x86_64-linux-gnu/libsqlite3.so.0",
	"/lib/x86_64-linux-gnu/libgomp.so.1",
	"/lib/x86_64-linux-gnu/librt.so.1",
	"/lib/x86_64-linux-gnu/libdl.so.2",
	"/lib/x86_64-linux-gnu/libpthread.so.0",
	"/lib/x86_64-linux-gnu/libutil.so.1",
	"/lib/x86_64-linux-gnu/libnuma.so.1",
	"/lib/x86_64-linux-gnu/libibverbs.so.1",
	"/lib/x86_64-linux-gnu/libmlx5.so.1",
	"/lib/x86_64-linux-gnu/libnl-3.so.200",
	"/lib/x86_64-linux-gnu/libnl-route-3.so.200",
	"/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07",
	"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.90.07",
	"/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.550.90.07",
	GEN_SITE "/torch/lib/libtorch_global_deps.so",
	GEN_SITE "/torch/lib/libtorch_python.so",
	GEN_SITE "/torch/lib/libtorch.so",
	GEN_SITE "/torch/lib/libtorch_cpu.so",
	GEN_SITE "/torch/lib/libtorch_cuda.so",
	GEN_SITE "/torch/lib/libc10.so",
	GEN_SITE "/torch/lib/libc10_cuda.so",
	GEN_SITE "/torch/lib/libshm.so",
	GEN_SITE "/torch/_C.cpython-311-x86_64-linux-gnu.so",
	GEN_SITE "/torch.libs/libgomp-a34b3233.so.1",
	GEN_NV "/cuda_runtime/lib/libcudart.so.12",
	GEN_NV "/cublas/lib/libcublas.so.12",
	GEN_NV "/cublas/lib/libcublasLt.so.12",
	GEN_NV "/cufft/lib/libcufft.so.11",
	GEN_NV "/curand/lib/libcurand.so.10",
	GEN_NV "/cusparse/lib/libcusparse.so.12",
	GEN_NV "/cusolver/lib/libcusolver.so.11",
	GEN_NV "/nvjitlink/lib/libnvJitLink.so.12",
	GEN_NV "/cuda_nvrtc/lib/libnvrtc.so.12",
	GEN_NV "/cuda_cupti/lib/libcupti.so.12",
	GEN_NV "/nvtx/lib/libnvToolsExt.so.1",
	GEN_NV "/cudnn/lib/libcudnn.so.9",
	GEN_NV "/cudnn/lib/libcudnn_graph.so.9",
	GEN_NV "/cudnn/lib/libcudnn_ops.so.9",
	GEN_NV "/cudnn/lib/libcudnn_cnn.so.9",
	GEN_NV "/cudnn/lib/libcudnn_adv.so.9",
	GEN_NV "/cudnn/lib/libcudnn_engines_precompiled.so.9",
	GEN_NV "/cudnn/lib/libcudnn_engines_runtime_compiled.so.9",
	GEN_NV "/cudnn/lib/libcudnn_heuristic.so.9",
	GEN_NV "/nccl/lib/libnccl.so.2",
	GEN_SITE "/numpy.libs/libopenblas64_p-r0-0cf96a72.3.23.dev.so",
	GEN_SITE "/numpy.libs/libgfortran-040039e1.so.5.0.0",
	GEN_SITE "/numpy.libs/libquadmath-96973f99.so.0.0.0",
};
/* Where the one outlier rank's NCCL comes from. */
#define GEN_NCCL_OTHER "/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.3"

/* Python's own extension modules. */
static const char *const gen_dynload[] = {"_ssl",
					  "_hashlib",
					  "_json",
					  "_struct",
					  "_ctypes",
					  "_decimal",
					  "_bz2",
					  "_lzma",
					  "_sqlite3",
					  "_uuid",
					  "_queue",
					  "_socket",
					  "select",
					  "math",
					  "cmath",
					  "array",
					  "binascii",
					  "_random",
					  "_bisect",
					  "_heapq",
					  "_datetime",
					  "_pickle",
					  "_posixsubprocess",
					  "_multiprocessing",
					  "mmap",
					  "fcntl",
					  "termios",
					  "resource",
					  "_contextvars",
					  "_asyncio",
					  "unicodedata",
					  "zlib",
					  "_csv",
					  "_opcode",
					  "_statistics",
					  "_zoneinfo",
					  "grp",
					  "_blake2",
					  "_sha512",
					  "_sha256",
					  "_md5",
					  "_sha1",
					  "pyexpat",
					  "_elementtree",
					  "_typing",
					  "_lsprof",
					  "_multibytecodec",
					  "_codecs_cn",
					  "_codecs_jp",
					  "_codecs_kr",
					  "_posixshmem",
					  "audioop",
					  "_curses",
					  "readline",
					  "_dbm",
					  "_gdbm",
					  "spwd",
					  "ossaudiodev",
					  "nis",
					  "_crypt"};
/* Extension modules of the packages a training script imports. */
static const char *const gen_ext[] = {"numpy/core/_multiarray_umath",
				      "numpy/core/_multiarray_tests",
				      "numpy/linalg/_umath_linalg",
				      "numpy/fft/_pocketfft_internal",
				      "numpy/random/mtrand",
				      "numpy/random/bit_generator",
				      "numpy/random/_common",
				      "numpy/random/_bounded_integers",
				      "numpy/random/_mt19937",
				      "numpy/random/_philox",
				      "numpy/random/_pcg64",
				      "numpy/random/_sfc64",
				      "numpy/random/_generator",
				      "torch/_C/_functorch",
				      "functorch/_C",
				      "yaml/_yaml",
				      "markupsafe/_speedups",
				      "psutil/_psutil_linux",
				      "psutil/_psutil_posix",
				      "safetensors/_safetensors_rust",
				      "tokenizers/tokenizers",
				      "regex/_regex",
				      "charset_normalizer/md",
				      "charset_normalizer/md__mypyc",
				      "google/_upb/_message",
				      "sentencepiece/_sentencepiece",
				      "pyarrow/lib",
				      "pyarrow/_compute",
				      "pyarrow/_fs",
				      "pyarrow/_json",
				      "pyarrow/_csv",
				      "pyarrow/_parquet",
				      "pyarrow/_dataset",
				      "pandas/_libs/lib",
				      "pandas/_libs/hashtable",
				      "pandas/_libs/algos",
				      "pandas/_libs/interval",
				      "pandas/_libs/index",
				      "pandas/_libs/join",
				      "pandas/_libs/missing",
				      "pandas/_libs/tslib",
				      "pandas/_libs/parsers",
				      "pandas/_libs/writers",
				      "pandas/_libs/reshape",
				      "pandas/_libs/groupby",
				      "pandas/_libs/sparse",
				      "pandas/_libs/window/aggregations",
				      "pandas/_libs/tslibs/np_datetime",
				      "pandas/_libs/tslibs/timedeltas",
				      "pandas/_libs/tslibs/timestamps",
				      "pandas/_libs/tslibs/offsets",
				      "pandas/_libs/tslibs/parsing",
				      "pandas/_libs/tslibs/period",
				      "pandas/_libs/tslibs/timezones",
				      "pandas/_libs/tslibs/tzconversion",
				      "pandas/_libs/tslibs/conversion",
				      "pandas/_libs/tslibs/fields",
				      "pandas/_libs/tslibs/nattype",
				      "pandas/_libs/tslibs/base",
				      "pandas/_libs/tslibs/dtypes",
				      "pandas/_libs/tslibs/ccalendar",
				      "pandas/_libs/tslibs/strptime",
				      "pandas/_libs/tslibs/vectorized",
				      "pandas/_libs/properties",
				      "pandas/_libs/ops",
				      "pandas/_libs/arrays",
				      "pandas/_libs/indexing",
				      "pandas/_libs/internals",
				      "pandas/_libs/hashing",
				      "pandas/_libs/json",
				      "pandas/_libs/testing",
				      "scipy/_lib/_ccallback_c",
				      "scipy/_lib/_fpumode",
				      "scipy/sparse/_sparsetools",
				      "scipy/sparse/_csparsetools",
				      "scipy/sparse/csgraph/_tools",
				      "scipy/sparse/csgraph/_traversal",
				      "scipy/sparse/csgraph/_shortest_path",
				      "scipy/sparse/linalg/_isolve",
				      "scipy/linalg/_fblas",
				      "scipy/linalg/_flapack",
				      "scipy/linalg/_flinalg",
				      "scipy/linalg/_decomp_update",
				      "scipy/linalg/_solve_toeplitz",
				      "scipy/linalg/cython_blas",
				      "scipy/linalg/cython_lapack",
				      "scipy/special/_ufuncs",
				      "scipy/special/_ufuncs_cxx",
				      "scipy/special/_specfun",
				      "scipy/special/_comb",
				      "scipy/special/_ellip_harm_2",
				      "scipy/optimize/_minpack",
				      "scipy/optimize/_lbfgsb",
				      "scipy/optimize/_moduleTNC",
				      "scipy/optimize/_cobyla",
				      "scipy/optimize/_slsqp",
				      "scipy/optimize/_zeros",
				      "scipy/optimize/_highs/_highs_wrapper",
				      "scipy/integrate/_odepack",
				      "scipy/integrate/_quadpack",
				      "scipy/integrate/_vode",
				      "scipy/integrate/_dop",
				      "scipy/integrate/_lsoda",
				      "scipy/interpolate/_fitpack",
				      "scipy/interpolate/dfitpack",
				      "scipy/interpolate/_bspl",
				      "scipy/interpolate/_ppoly",
				      "scipy/spatial/_ckdtree",
				      "scipy/spatial/_qhull",
				      "scipy/spatial/_voronoi",
				      "scipy/spatial/_distance_wrap",
				      "scipy/spatial/_hausdorff",
				      "scipy/ndimage/_nd_image",
				      "scipy/stats/_stats",
				      "scipy/stats/_sobol",
				      "scipy/stats/_qmc_cy",
				      "scipy/stats/_biasedurn",
				      "scipy/fft/_pocketfft/pypocketfft",
				      "sklearn/utils/_cython_blas",
				      "sklearn/utils/murmurhash",
				      "sklearn/utils/_openmp_helpers",
				      "sklearn/utils/_logistic_sigmoid",
				      "sklearn/utils/sparsefuncs_fast",
				      "sklearn/utils/_random",
				      "sklearn/utils/_seq_dataset",
				      "sklearn/utils/arrayfuncs",
				      "sklearn/utils/_fast_dict",
				      "sklearn/utils/_isfinite",
				      "PIL/_imaging",
				      "PIL/_imagingft",
				      "PIL/_imagingmath",
				      "PIL/_webp",
				      "kiwisolver/_cext",
				      "matplotlib/_path",
				      "matplotlib/ft2font",
				      "matplotlib/_image",
				      "matplotlib/_c_internal_utils",
				      "contourpy/_contourpy",
				      "h5py/_errors",
				      "h5py/defs",
				      "h5py/_objects",
				      "h5py/h5",
				      "h5py/h5r",
				      "h5py/utils",
				      "h5py/h5s",
				      "h5py/h5ac",
				      "h5py/h5p",
				      "h5py/h5t",
				      "h5py/h5d",
				      "h5py/h5f",
				      "h5py/h5g",
				      "h5py/h5i",
				      "h5py/h5fd",
				      "h5py/h5pl",
				      "h5py/h5o",
				      "h5py/h5l",
				      "h5py/_conv",
				      "h5py/_proxy",
				      "h5py/h5ds",
				      "h5py/h5a",
				      "h5py/h5z",
				      "msgpack/_cmsgpack",
				      "zstandard/backend_c",
				      "lz4/_version",
				      "lz4/frame/_frame",
				      "lz4/block/_block",
				      "xxhash/_xxhash",
				      "multidict/_multidict",
				      "yarl/_quoting_c",
				      "frozenlist/_frozenlist",
				      "aiohttp/_http_parser",
				      "aiohttp/_http_writer",
				      "aiohttp/_websocket",
				      "_cffi_backend",
				      "cryptography/hazmat/bindings/_rust",
				      "grpc/_cython/cygrpc",
				      "tensorboard_data_server/bin",
				      "wrapt/_wrappers",
				      "ujson",
				      "orjson/orjson",
				      "pydantic_core/_pydantic_core",
				      "triton/_C/libtriton",
				      "apex_C",
				      "amp_C",
				      "fused_adam_cuda",
				      "flash_attn_2_cuda",
				      "xformers/_C",
				      "bitsandbytes/libbitsandbytes_cuda121",
				      "deepspeed/ops/adam/cpu_adam",
				      "transformer_engine_torch",
				      "sympy/polys/_densearith"};

/* One LIB_LOAD row: the file's identity from its path, as a file of the
 * same contents would have it on every node. */
static void gen_lib(struct dlt_writer *w, struct dlt_tls *t, uint64_t *ts,
		    const char *path, uint32_t via, uint16_t flags,
		    uint64_t *obj)
{
	uint64_t h = gen_hash(path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	uint32_t ps = dlt_str(w, t, path);
	uint32_t bs = dlt_str(w, t, base);
	uint32_t rs = *obj == 0x7f0000001000ull ? DLT_STR_NONE
						: dlt_str(w, t, gen_sys[0]);
	uint32_t ntried = via == DLT_VIA_MAIN ? 0 : 1;
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_lib_load) +
				  ntried * sizeof(struct dlt_tried));
	struct dlt_rec_lib_load *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		return;
	memset((char *)r + sizeof(r->h), 0, len - sizeof(r->h));
	*ts += 40000 + h % 200000;
	r->h.ts = *ts;
	r->obj = *obj;
	r->requester_obj = via == DLT_VIA_MAIN ? 0 : 0x7f0000001000ull;
	r->base = 0x7f1000000000ull + (h & 0xffff000ull) * 16;
	r->dev = 0x803;
	r->ino = 100000 + h % 9000000;
	r->size = 16384 + h % (64u << 20);
	r->mtime_ns = 1700000000 * (int64_t)GEN_S + (int64_t)(h % GEN_S);
	r->lmid = 0;
	r->requested = via == DLT_VIA_ABSOLUTE || via == DLT_VIA_MAIN ? ps : bs;
	r->requester = rs;
	r->path = ps;
	r->realpath = ps;
	r->soname = strstr(base, ".so") && !strstr(base, "cpython") ? bs : 0;
	r->found_via = via;
	r->build_id_len = 20;
	for (int i = 0; i < 20; i++)
		r->build_id[i] = (uint8_t)(gen_mix(h + (uint64_t)i) >> 56);
	r->n_tried = ntried;
	if (ntried)
		r->tried[0] = (struct dlt_tried){ps, via};
	dlt_rec_commit(r, DLT_REC_LIB_LOAD, flags, len);
	*obj += 0x1000;
}

static uint32_t gen_via_of(const char *path)
{
	if (strncmp(path, GEN_SITE, strlen(GEN_SITE)) == 0)
		return strstr(path, "cpython") ? DLT_VIA_ABSOLUTE
					       : DLT_VIA_RUNPATH;
	if (path[0] != '/')
		return DLT_VIA_UNKNOWN;
	return DLT_VIA_LD_SO_CACHE;
}

static size_t gen_libs(struct dlt_writer *w, struct dlt_tls *t, uint64_t *ts,
		       int other_nccl)
{
	uint64_t obj = 0x7f0000001000ull;
	size_t n = 0;
	char path[512];
	for (size_t i = 0; i < sizeof(gen_sys) / sizeof(gen_sys[0]); i++) {
		const char *p = gen_sys[i];
		if (other_nccl && strstr(p, "/libnccl.so"))
			p = GEN_NCCL_OTHER;
		uint32_t via = i == 0 ? DLT_VIA_MAIN : gen_via_of(p);
		uint16_t flags = i == 0	       ? DLT_LIB_MAIN
				 : p[0] != '/' ? DLT_LIB_VDSO
				 : strstr(p, "site-packages")
					 ? DLT_LIB_DLOPEN | DLT_LIB_LOCAL
					 : 0;
		gen_lib(w, t, ts, p, via, flags, &obj);
		n++;
	}
	for (size_t i = 0; i < sizeof(gen_dynload) / sizeof(gen_dynload[0]);
	     i++) {
		snprintf(path, sizeof(path),
			 "/usr/lib/python3.11/lib-dynload/"
			 "%s.cpython-311-x86_64-linux-gnu.so",
			 gen_dynload[i]);
		gen_lib(w, t, ts, path, DLT_VIA_ABSOLUTE,
			DLT_LIB_DLOPEN | DLT_LIB_LOCAL, &obj);
		n++;
	}
	for (size_t i = 0; i < sizeof(gen_ext) / sizeof(gen_ext[0]); i++) {
		snprintf(path, sizeof(path),
			 GEN_SITE "/%s.cpython-311-x86_64-linux-gnu.so",
			 gen_ext[i]);
		gen_lib(w, t, ts, path, DLT_VIA_ABSOLUTE,
			DLT_LIB_DLOPEN | DLT_LIB_LOCAL, &obj);
		n++;
	}
	return n;
}

/* ---- records ------------------------------------------------------------ */

static void gen_env(struct dlt_writer *w, struct dlt_tls *t, const char *name,
		    const char *value)
{
	uint32_t ns = dlt_str(w, t, name), vs = dlt_str(w, t, value);
	struct dlt_rec_env *r = dlt_rec_reserve(w, t, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = 0;
	r->name = ns;
	r->value = vs;
	dlt_rec_commit(r, DLT_REC_ENV, 0, sizeof(*r));
}

static void gen_arg(struct dlt_writer *w, struct dlt_tls *t, uint32_t i,
		    const char *s)
{
	uint32_t ss = dlt_str(w, t, s);
	struct dlt_rec_arg *a = dlt_rec_reserve(w, t, sizeof(*a));
	if (a == NULL)
		return;
	a->h.ts = 0;
	a->index = i;
	a->str = ss;
	dlt_rec_commit(a, DLT_REC_ARG, 0, sizeof(*a));
}

static void gen_family(struct dlt_writer *w, struct dlt_tls *t, uint64_t ts,
		       uint16_t fam, const char *path, int64_t version)
{
	uint32_t ps = dlt_str(w, t, path);
	struct dlt_rec_family *r = dlt_rec_reserve(w, t, sizeof(*r));
	if (r == NULL)
		return;
	memset((char *)r + sizeof(r->h), 0, sizeof(*r) - sizeof(r->h));
	r->h.ts = ts;
	r->path = ps;
	r->source = DLT_FAMSRC_LOAD;
	for (int i = 0; i < 8; i++)
		r->v[i] = DLT_VERSION_ABSENT;
	r->v[0] = version;
	dlt_rec_commit(r, DLT_REC_LIB_FAMILY, fam, sizeof(*r));
}

static void gen_enter(struct dlt_writer *w, struct dlt_tls *t, uint64_t ts,
		      uint16_t id, const uint64_t *v, uint32_t n)
{
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_enter) + 8 * n);
	struct dlt_rec_api_enter *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		return;
	r->h.ts = ts;
	memcpy(r->v, v, 8 * n);
	dlt_rec_commit(r, DLT_REC_API_ENTER, id, len);
}

/* What shim/calls.c keeps per thread for its compact entries: the slot
 * this thread's chunk defines and the time of the chunk's last call. */
struct gen_calls {
	uint32_t chunk; /* t->nchunk of the definition, + 1; 0 none */
	uint32_t slot;
	uint64_t base;
};

/* A call as shim/calls.h writes it (dlt_call_done, or dlt_call_open with
 * dur DLT_DUR_OPEN): an 8-byte entry when this chunk defined its slot
 * and the gap fits, else an API_DEF that defines it. */
static void gen_call(struct dlt_writer *w, struct dlt_tls *t,
		     struct gen_calls *c, uint16_t id, uint64_t t0,
		     uint64_t dur, const uint64_t *v, uint32_t n)
{
	uint32_t s = gen_call_hash(id, v, n);
	uint64_t edur = dur == DLT_DUR_OPEN ? DLT_ENTRY_DUR_OPEN : dur;
	uint64_t dt = t0 - c->base + (1ull << (DLT_ENTRY_DT_BITS - 1));
	if (c->chunk == t->nchunk + 1 && c->slot == s &&
	    (dt >> DLT_ENTRY_DT_BITS) == 0 && edur <= DLT_ENTRY_DUR_OPEN &&
	    t->cur != NULL && t->end - t->cur >= 8 &&
	    t->gen == atomic_load(&w->gen)) {
		uint64_t word = DLT_ENTRY_CALL |
				((uint64_t)s << DLT_ENTRY_SLOT_SHIFT) |
				(((dt - (1ull << (DLT_ENTRY_DT_BITS - 1))) &
				  ((1ull << DLT_ENTRY_DT_BITS) - 1))
				 << DLT_ENTRY_DT_SHIFT) |
				(edur << DLT_ENTRY_DUR_SHIFT);
		uint8_t *p = t->cur;
		t->cur = p + 8;
		atomic_store_explicit((_Atomic uint64_t *)(void *)p, word,
				      memory_order_release);
		c->base = t0;
		return;
	}
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_api_def) + 8 * n);
	struct dlt_rec_api_def *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		return;
	r->h.ts = t0;
	r->ret = 0;
	r->dur = dur == DLT_DUR_OPEN ? DLT_DUR_OPEN : gen_dur(dur);
	r->slot = s;
	r->pad = 0;
	memcpy(r->v, v, 8 * n);
	dlt_rec_commit(r, DLT_REC_API_DEF, id, len);
	c->chunk = t->nchunk + 1;
	c->slot = s;
	c->base = t0;
}

/* A NOTE at ts (dlt_note stamps it now, an hour after this job). */
static void gen_note(struct dlt_writer *w, struct dlt_tls *t, uint64_t ts,
		     const char *s)
{
	uint32_t id = dlt_str(w, t, s);
	struct dlt_rec_note *r = dlt_rec_reserve(w, t, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = ts;
	r->text = id;
	r->pad = 0;
	dlt_rec_commit(r, DLT_REC_NOTE, DLT_NOTE_INFO, sizeof(*r));
}

/* The watcher's STALL of the waiting thread: futex, or clock_nanosleep. */
static void gen_stall(struct dlt_writer *w, struct dlt_tls *t, uint32_t tid,
		      int sleeping, uint64_t since, uint64_t dur)
{
	uint32_t ws = dlt_str(
		w, t, sleeping ? "hrtimer_nanosleep" : "futex_wait_queue");
	struct dlt_rec_stall *r = dlt_rec_reserve(w, t, sizeof(*r));
	if (r == NULL)
		return;
	memset((char *)r + sizeof(r->h), 0, sizeof(*r) - sizeof(r->h));
	r->h.ts = since + dur;
	r->tid = tid;
	r->syscall = sleeping ? 230 : 202; /* clock_nanosleep, futex */
	r->args[0] = sleeping ? 1 : 0x7f3a2c0011a8ull;
	r->args[1] = sleeping ? 0 : 0x89; /* FUTEX_WAIT_BITSET_PRIVATE */
	r->since = since;
	r->dur_ns = dur;
	r->wchan = ws;
	r->fd = -1;
	r->state = 'S';
	dlt_rec_commit(r, DLT_REC_STALL, 0, sizeof(*r));
}

struct gen_frame {
	const char *file, *func;
	uint32_t line;
};

static void gen_pystack(struct dlt_writer *w, struct dlt_tls *t, uint32_t tid,
			uint64_t ts, const struct gen_frame *f, uint16_t n)
{
	size_t text = 0;
	for (uint16_t i = 0; i < n; i++)
		text += strlen(f[i].file) + strlen(f[i].func);
	uint32_t len = (uint32_t)(sizeof(struct dlt_rec_pystack) +
				  n * sizeof(struct dlt_pyframe) + text);
	struct dlt_rec_pystack *r = dlt_rec_reserve(w, t, len);
	if (r == NULL)
		return;
	r->h.ts = ts;
	r->tid = tid;
	r->n = n;
	r->reason = DLT_PYSTACK_OK;
	r->py_version = 0x030b04f0;
	r->depth = n;
	r->addr = 0;
	char *p = (char *)&r->frames[n];
	for (uint16_t i = 0; i < n; i++) {
		size_t fl = strlen(f[i].file), gl = strlen(f[i].func);
		r->frames[i] = (struct dlt_pyframe){f[i].line, (uint16_t)fl,
						    (uint16_t)gl};
		memcpy(p, f[i].file, fl);
		memcpy(p + fl, f[i].func, gl);
		p += fl + gl;
	}
	memset(p, 0, dlt_rec_round(len) - len);
	dlt_rec_commit(r, DLT_REC_PYSTACK, 0, len);
}

static const struct gen_frame gen_py_wait[] = {
	{GEN_SITE "/torch/distributed/distributed_c10d.py", "all_reduce", 2288},
	{GEN_SITE "/torch/distributed/c10d_logger.py", "wrapper", 83},
	{"/srv/job/train.py", "step", 120},
	{"/srv/job/train.py", "main", 140},
	{"/srv/job/train.py", "<module>", 152}};
static const struct gen_frame gen_py_sleep[] = {
	{"/srv/job/train.py", "load_batch", 88},
	{"/srv/job/train.py", "step", 112},
	{"/srv/job/train.py", "main", 140},
	{"/srv/job/train.py", "<module>", 152}};

/* A thread's state before its first record, as the writer makes it
 * (chunks.c), with the thread id of the process's thread rather than the
 * generator's own: the in-flight call and the wait must be one thread's. */
static void gen_tls(struct dlt_writer *w, struct dlt_tls *t, uint32_t tid)
{
	memset(t, 0, sizeof(*t));
	t->gen = atomic_load(&w->gen);
	t->tid = tid;
	t->next_len = DLT_CHUNK_FIRST;
}

/* ---- one rank ----------------------------------------------------------- */

/* Ranks with an outlier value, from the seed: one with another
 * NCCL_IB_HCA, one with a longer LD_LIBRARY_PATH, one with another
 * libnccl. */
struct gen_outliers {
	int ib_hca, ld_path, nccl;
};

static int gen_rank(const struct gen_opts *o, const struct gen_outliers *x,
		    int rank, uint64_t t0, uint64_t real0)
{
	int node = rank / o->per_node, local = rank % o->per_node;
	char host[32], dir[4096], buf[256];
	snprintf(host, sizeof(host), "node%04d", node);
	snprintf(dir, sizeof(dir), "%s/%s", o->out, host);
	if (local == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "gen_ranks: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	/* Pids as on a node: the agent's, then its workers'. */
	uint32_t ppid =
		4000 + (uint32_t)(gen_mix(o->seed + (uint64_t)node) % 20000);
	uint32_t pid = ppid + 17 + (uint32_t)local * 3;
	uint64_t jitter = gen_mix(o->seed ^ (uint64_t)rank) % (200 * GEN_MS);
	struct dlt_open_params p = {.dir = dir,
				    .host = host,
				    .rank = rank,
				    .pid = (pid_t)pid,
				    .ppid = (pid_t)ppid,
				    .parent_kind = DLT_PARENT_NONE,
				    .features =
					    DLT_FEAT_AUDIT | DLT_FEAT_PRELOAD,
				    .run_id = gen_mix(o->seed) | 1,
				    .start_realtime_ns = real0 + jitter,
				    .start_monotonic_ns = t0 + jitter};
	int rc = dlt_writer_create(&gen_w, &p);
	if (rc != 0) {
		fprintf(stderr, "gen_ranks: %s: %s\n", dir, strerror(-rc));
		return -1;
	}
	struct dlt_tls t;
	gen_tls(&gen_w, &t, pid);
	uint64_t ts = t0 + jitter + 1000;
	uint32_t hs = dlt_str(&gen_w, &t, host),
		 es = dlt_str(&gen_w, &t, "/usr/bin/python3.11"),
		 cs = dlt_str(&gen_w, &t, "/srv/job");
	struct dlt_rec_proc *pr = dlt_rec_reserve(&gen_w, &t, sizeof(*pr));
	if (pr) {
		pr->h.ts = ts;
		pr->host = hs;
		pr->exe = es;
		pr->cwd = cs;
		pr->rank = rank;
		pr->world_size = o->ranks;
		pr->argc = 3;
		dlt_rec_commit(pr, DLT_REC_PROC, 0, sizeof(*pr));
	}
	gen_arg(&gen_w, &t, 0, "/usr/bin/python3.11");
	gen_arg(&gen_w, &t, 1, "-u");
	gen_arg(&gen_w, &t, 2, "train.py");
	snprintf(buf, sizeof(buf), "%d", rank);
	gen_env(&gen_w, &t, "RANK", buf);
	snprintf(buf, sizeof(buf), "%d", o->ranks);
	gen_env(&gen_w, &t, "WORLD_SIZE", buf);
	snprintf(buf, sizeof(buf), "%d", local);
	gen_env(&gen_w, &t, "LOCAL_RANK", buf);
	snprintf(buf, sizeof(buf), "%d", o->per_node);
	gen_env(&gen_w, &t, "LOCAL_WORLD_SIZE", buf);
	snprintf(buf, sizeof(buf), "%d", node);
	gen_env(&gen_w, &t, "GROUP_RANK", buf);
	gen_env(&gen_w, &t, "MASTER_ADDR", "node0000");
	gen_env(&gen_w, &t, "MASTER_PORT", "29500");
	gen_env(&gen_w, &t, "TORCHELASTIC_RUN_ID", "job-4711");
	gen_env(&gen_w, &t, "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7");
	gen_env(&gen_w, &t, "NCCL_DEBUG", "WARN");
	gen_env(&gen_w, &t, "NCCL_SOCKET_IFNAME", "eth0");
	gen_env(&gen_w, &t, "NCCL_IB_HCA",
		rank == x->ib_hca ? "mlx5_0,mlx5_1" : "mlx5");
	gen_env(&gen_w, &t, "NCCL_IB_GID_INDEX", "3");
	gen_env(&gen_w, &t, "NCCL_NET_GDR_LEVEL", "PHB");
	gen_env(&gen_w, &t, "NCCL_ASYNC_ERROR_HANDLING", "1");
	gen_env(&gen_w, &t, "LD_LIBRARY_PATH",
		rank == x->ld_path
			? "/usr/local/nccl-2.18/lib:/usr/local/cuda/lib64:"
			  "/usr/local/nvidia/lib64"
			: "/usr/local/cuda/lib64:/usr/local/nvidia/lib64");
	gen_env(&gen_w, &t, "PATH",
		"/opt/venv/bin:/usr/local/cuda/bin:"
		"/usr/local/bin:/usr/bin:/bin");
	gen_env(&gen_w, &t, "OMP_NUM_THREADS", "8");
	gen_env(&gen_w, &t, "PYTHONUNBUFFERED", "1");
	gen_libs(&gen_w, &t, &ts, rank == x->nccl);
	ts += 50 * GEN_MS;
	gen_family(&gen_w, &t, ts, DLT_FAM_CUDART,
		   GEN_NV "/cuda_runtime/lib/libcudart.so.12", 12040);
	gen_family(&gen_w, &t, ts, DLT_FAM_CUDNN,
		   GEN_NV "/cudnn/lib/libcudnn.so.9", 90100);
	gen_family(&gen_w, &t, ts, DLT_FAM_NCCL,
		   rank == x->nccl ? GEN_NCCL_OTHER
				   : GEN_NV "/nccl/lib/libnccl.so.2",
		   rank == x->nccl ? 21803 : 22005);
	/* The first blocking GPU call asks to be watched (shim/watchdog.c). */
	gen_w.hdr->features |= DLT_FEAT_WATCH;
	gen_note(&gen_w, &t, ts,
		 "hang watching asked (distributed job or DLTRACE_WATCHDOG=1), "
		 "threshold 5000 ms: the watcher outside the process watches "
		 "it");

	/* The communicator: rank 0 made the unique id; every rank enters
	 * ncclCommInitRank (API_ENTER: its values before and after differ),
	 * which returns a handle. */
	struct gen_calls calls = {0};
	uint64_t uid = gen_mix(o->seed * 31 + 7);
	ts += 2 * GEN_S;
	if (rank == 0) {
		uint64_t v[1] = {uid};
		gen_call(&gen_w, &t, &calls, GEN_UID_ID, ts, 30000, v, 1);
		ts += GEN_MS;
	}
	uint64_t comm = 0x55d0c0de0000ull + (uint64_t)local * 0x100;
	uint64_t iv[4] = {(uint64_t)o->ranks, (uint64_t)rank, uid, comm};
	gen_enter(&gen_w, &t, ts, GEN_NCCL_ID, iv, 3);
	uint64_t init_dur = 3 * GEN_S + (gen_mix((uint64_t)rank) % GEN_S);
	gen_call(&gen_w, &t, &calls, GEN_NCCL_ID, ts, init_dur, iv, 4);
	ts += init_dur + 10 * GEN_MS;
	/* The training steps: one allreduce of the gradients each. */
	uint64_t stream = 0x7f3a2c00a000ull;
	uint64_t cv[5] = {25165824, 7 /* float32 */, 0 /* sum */, comm, stream};
	for (int i = 0; i < o->colls; i++) {
		uint64_t dur =
			2 * GEN_MS + gen_mix(o->seed + (uint64_t)i) % GEN_MS;
		gen_call(&gen_w, &t, &calls, GEN_ALLRED_ID, ts, dur, cv, 5);
		ts += 50 * GEN_MS;
	}
	int culprit = rank == o->culprit;
	uint64_t since = ts + 5 * GEN_MS;
	if (!culprit)
		gen_call(&gen_w, &t, &calls, GEN_ALLRED_ID, ts, DLT_DUR_OPEN,
			 cv, 5);
	else
		since = ts - 200 * GEN_MS;
	/* The heartbeat: the watcher's last look before --hang-timeout
	 * ended the tree, 10 minutes into the wait. */
	uint64_t alive = t0 + 200 * GEN_MS + (ts - t0) + 600 * GEN_S;
	uint64_t trace_id = gen_w.hdr->trace_id;
	char path[4096 + 256];
	snprintf(path, sizeof(path), "%s", gen_w.path);
	dlt_writer_close(&gen_w, &t);

	/* The watcher's companion: what it saw of the waiting thread. */
	struct dlt_open_params cp = {.dir = dir,
				     .host = host,
				     .rank = rank,
				     .pid = (pid_t)pid,
				     .ppid = (pid_t)ppid,
				     .run_id = p.run_id,
				     .parent_trace_id = trace_id,
				     .parent_kind = DLT_PARENT_WATCHED,
				     .features = DLT_FEAT_WATCHER,
				     .str_base = DLT_STR_WATCHER,
				     .writer_kind = DLT_WRITER_WATCHER,
				     .name_suffix = ".watch",
				     .start_realtime_ns = p.start_realtime_ns,
				     .start_monotonic_ns =
					     p.start_monotonic_ns};
	rc = dlt_writer_create(&gen_c, &cp);
	if (rc != 0) {
		fprintf(stderr, "gen_ranks: %s: %s\n", dir, strerror(-rc));
		return -1;
	}
	struct dlt_tls ct;
	gen_tls(&gen_c, &ct, 3999);
	gen_note(&gen_c, &ct, p.start_monotonic_ns + GEN_S,
		 "watched from outside by pid 3999 (the launcher), a look "
		 "every 1000 ms");
	gen_stall(&gen_c, &ct, pid, culprit, since, alive - since);
	if (culprit)
		gen_pystack(&gen_c, &ct, pid, alive, gen_py_sleep,
			    sizeof(gen_py_sleep) / sizeof(gen_py_sleep[0]));
	else
		gen_pystack(&gen_c, &ct, pid, alive, gen_py_wait,
			    sizeof(gen_py_wait) / sizeof(gen_py_wait[0]));
	gen_c.hdr->alive_ns = alive;
	gen_c.hdr->rss_peak_kb = 11u * 1024 * 1024 + (uint64_t)rank % 4096;
	dlt_writer_close(&gen_c, &ct);

	/* The launcher's KILL: SIGTERM after --hang-timeout, into the
	 * process's own trace once it was gone (launcher.c, record_kills). */
	dlt_writer_kind_self = DLT_WRITER_LAUNCHER;
	if (dlt_writer_attach(&gen_w, path, 0) == 0) {
		struct dlt_tls lt;
		gen_tls(&gen_w, &lt, 3998);
		struct dlt_rec_kill *k =
			dlt_rec_reserve(&gen_w, &lt, sizeof(*k));
		if (k) {
			k->h.ts = alive + GEN_MS;
			k->pid = pid;
			k->signal = 15;
			k->err = 0;
			k->pad = 0;
			dlt_rec_commit(k, DLT_REC_KILL, DLT_KILL_HANG_TIMEOUT,
				       sizeof(*k));
		}
		dlt_writer_forget(&gen_w);
	}
	dlt_writer_kind_self = DLT_WRITER_SHIM;
	return 0;
}

static int gen_usage(void)
{
	fputs("usage: gen_ranks --out DIR [--ranks N] [--per-node K] "
	      "[--culprit R] [--collectives C] [--seed S]\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct gen_opts o = {.ranks = 1024,
			     .per_node = 8,
			     .culprit = -1,
			     .colls = 1000,
			     .seed = 1};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (v == NULL)
			return gen_usage();
		if (strcmp(a, "--out") == 0)
			o.out = v;
		else if (strcmp(a, "--ranks") == 0)
			o.ranks = atoi(v);
		else if (strcmp(a, "--per-node") == 0)
			o.per_node = atoi(v);
		else if (strcmp(a, "--culprit") == 0)
			o.culprit = atoi(v);
		else if (strcmp(a, "--collectives") == 0)
			o.colls = atoi(v);
		else if (strcmp(a, "--seed") == 0)
			o.seed = strtoull(v, NULL, 0);
		else
			return gen_usage();
		i++;
	}
	if (o.out == NULL || o.ranks < 2 || o.per_node < 1 || o.colls < 0 ||
	    o.culprit >= o.ranks)
		return gen_usage();
	if (o.culprit < 0)
		o.culprit = o.ranks / 2 - 1;
	if (mkdir(o.out, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "gen_ranks: %s: %s\n", o.out, strerror(errno));
		return 1;
	}
	/* Outliers other than the culprit, so that each finding has its
	 * own rank. */
	struct gen_outliers x;
	x.ib_hca = (int)(gen_mix(o.seed + 101) % (uint64_t)o.ranks);
	x.ld_path = (int)(gen_mix(o.seed + 202) % (uint64_t)o.ranks);
	x.nccl = (int)(gen_mix(o.seed + 303) % (uint64_t)o.ranks);
	if (x.ib_hca == o.culprit)
		x.ib_hca = (x.ib_hca + 1) % o.ranks;
	if (x.ld_path == o.culprit)
		x.ld_path = (x.ld_path + 1) % o.ranks;
	if (x.nccl == o.culprit)
		x.nccl = (x.nccl + 1) % o.ranks;
	/* The job started an hour ago, every rank within 200 ms. */
	struct timespec m, r;
	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	uint64_t mono = (uint64_t)m.tv_sec * GEN_S + (uint64_t)m.tv_nsec;
	uint64_t real = (uint64_t)r.tv_sec * GEN_S + (uint64_t)r.tv_nsec;
	uint64_t back = 3600 * GEN_S;
	uint64_t t0 = mono > back ? mono - back : 0;
	for (int rank = 0; rank < o.ranks; rank++)
		if (gen_rank(&o, &x, rank, t0, real - back) != 0)
			return 1;
	printf("%d ranks in %s (%d per node), culprit rank %d; outliers: "
	       "NCCL_IB_HCA rank %d, LD_LIBRARY_PATH rank %d, libnccl rank "
	       "%d\n",
	       o.ranks, o.out, o.per_node, o.culprit, x.ib_hca, x.ld_path,
	       x.nccl);
	return 0;
}
