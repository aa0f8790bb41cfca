/* Fake libnccl.so.2.  Every function is defined as pncclX and exported
 * with a weak alias ncclX, as the real library does.
 *
 * Initialisation blocks like the real bootstrap: ncclCommInitRank meets
 * the other ranks in a directory named after the unique id,
 * ${FAKE_NCCL_DIR:-/tmp}/fake-nccl-<first 8 id bytes in hex>/, where each
 * rank creates "rank<N>".  As in the real library, whose caller waits while
 * its bootstrap thread talks to the peers, the calling thread then waits on
 * a condition variable (a futex wait) while a helper thread
 * ("fake-nccl-boot") waits in poll(2) on an inotify descriptor until all
 * nranks files are there, and wakes it.  A stall detector so sees the
 * caller blocked in futex and the helper in poll.
 *
 * Knobs:
 *   FAKE_NCCL_VERSION          ncclGetVersion (default 22809)
 *   FAKE_NCCL_DIR              where rendezvous directories go (/tmp)
 *   FAKE_NCCL_INIT_TIMEOUT_MS  give up waiting with ncclSystemError
 *                              (default: wait forever)
 *   FAKE_NCCL_ALLREDUCE_HANG   1: ncclAllReduce waits forever (a futex)
 *   FAKE_NCCL_COLL_SYNC        1: ncclAllReduce waits for every rank of
 *                              its communicator to reach the same one (the
 *                              N-th of each meets in <dir>/allreduce<N>),
 *                              as a real collective does on the GPU
 *   FAKE_NCCL_INIT_ERROR       init returns this code at once (1: what the
 *                              real one returns without a GPU)
 * Limits: ncclCommSplit of a communicator from ncclCommInitAll with more
 * than one rank is ncclInvalidUsage (the ranks share one thread). */
#define _GNU_SOURCE
#include "fake_api.h"
#include "fake_env.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define COMM_MAGIC 0x4e43434cu
#define CONFIG_MAGIC 0xcafebeefu

struct ncclComm {
	uint32_t magic;
	int nranks;
	int rank;
	int dev;
	int top;       /* made by init, not by split: owns the directory */
	int split_seq; /* splits so far, names their directories */
	int coll_seq;  /* FAKE_NCCL_COLL_SYNC: allreduces so far */
	char dir[PATH_MAX];
	int abort_pipe[2];
	int has_thread;
	pthread_t thread;
	ncclResult_t async;
};

static __thread int group_depth;

static int comm_ok(const struct ncclComm *c)
{
	return c != NULL && c->magic == COMM_MAGIC;
}

/* The real library prints its version from a string like this one in its
 * read-only data ("NCCL version 2.28.9+cuda13.0"); it is what a tracer can
 * read from the file without calling the library. */
FAKE_EXPORT const char fake_nccl_version_string[] =
	"NCCL version 2.28.9+cuda13.0";

FAKE_EXPORT ncclResult_t pncclGetVersion(int *version)
{
	if (version == NULL)
		return ncclInvalidArgument;
	*version = (int)fake_env_long("FAKE_NCCL_VERSION", 22809);
	return ncclSuccess;
}

/* Laid out like the real id: 8 random bytes (the bootstrap magic), then a
 * sockaddr_in of the root's listening socket. */
FAKE_EXPORT ncclResult_t pncclGetUniqueId(ncclUniqueId *uniqueId)
{
	unsigned char rnd[10];
	if (uniqueId == NULL)
		return ncclInvalidArgument;
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return ncclSystemError;
	memset(uniqueId, 0, sizeof(*uniqueId));
	memcpy(uniqueId->internal, rnd, 8);
	uniqueId->internal[8] = 2; /* AF_INET */
	uniqueId->internal[10] = (char)(rnd[8] | 0x80);
	uniqueId->internal[11] = (char)rnd[9];
	uniqueId->internal[12] = 127;
	uniqueId->internal[15] = 1;
	return ncclSuccess;
}

FAKE_EXPORT const char *pncclGetErrorString(ncclResult_t result)
{
	switch ((int)result) {
	case ncclSuccess:
		return "no error";
	case ncclUnhandledCudaError:
		return "unhandled cuda error (run with NCCL_DEBUG=INFO for "
		       "details)";
	case ncclSystemError:
		return "unhandled system error (run with NCCL_DEBUG=INFO for "
		       "details)";
	case ncclInternalError:
		return "internal error - please report this issue to the NCCL "
		       "developers";
	case ncclInvalidArgument:
		return "invalid argument (run with NCCL_DEBUG=WARN for "
		       "details)";
	case ncclInvalidUsage:
		return "invalid usage (run with NCCL_DEBUG=WARN for details)";
	case ncclRemoteError:
		return "remote process exited or there was a network error";
	case ncclInProgress:
		return "NCCL operation in progress";
	default:
		return "unknown result code";
	}
}

FAKE_EXPORT const char *pncclGetLastError(ncclComm_t comm)
{
	(void)comm;
	return "";
}

static int make_dir(const char *path)
{
	return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* Files in DIR whose names start with PREFIX. */
static int count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	int n = 0;
	size_t plen = strlen(prefix);
	if (d == NULL)
		return -1;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strncmp(e->d_name, prefix, plen) == 0)
			n++;
	closedir(d);
	return n;
}

/* Write PAYLOAD to DIR/<PREFIX><RANK> atomically (rename), so that a rank
 * that counts the file can also read all of it. */
static int publish(const char *dir, const char *prefix, int rank,
		   const char *payload)
{
	char tmp[PATH_MAX + 64], final[PATH_MAX + 64];
	snprintf(tmp, sizeof(tmp), "%s/.tmp-%s%d-%ld", dir, prefix, rank,
		 (long)getpid());
	snprintf(final, sizeof(final), "%s/%s%d", dir, prefix, rank);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	size_t len = strlen(payload);
	int ok = write(fd, payload, len) == (ssize_t)len;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, final) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What the helper thread of one rendezvous works with. */
struct rdv_wait {
	const char *dir;
	int nranks;
	int ifd;
	int abort_fd;
	long deadline; /* CLOCK_MONOTONIC ms, -1 none */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	ncclResult_t res;
};

/* Waits in poll(2) on inotify (or, where inotify is unavailable, on the
 * abort pipe with a short timeout) until NRANKS ranks have published. */
static ncclResult_t rdv_watch(struct rdv_wait *w)
{
	for (;;) {
		int n = count_files(w->dir, "rank");
		if (n < 0)
			return ncclSystemError;
		if (n >= w->nranks)
			return ncclSuccess;
		int wait = -1;
		if (w->deadline >= 0) {
			long left = w->deadline - now_ms();
			if (left <= 0)
				return ncclSystemError;
			wait = (int)left;
		}
		if (w->ifd < 0 && (wait < 0 || wait > 50))
			wait = 50;
		struct pollfd pfd[2] = {{w->ifd, POLLIN, 0},
					{w->abort_fd, POLLIN, 0}};
		int r = poll(pfd, 2, wait);
		if (r < 0 && errno != EINTR)
			return ncclSystemError;
		if (pfd[1].revents != 0)
			return ncclInvalidUsage; /* aborted */
		char buf[4096];
		while (w->ifd >= 0 && read(w->ifd, buf, sizeof(buf)) > 0)
			;
	}
}

static void *rdv_thread(void *arg)
{
	struct rdv_wait *w = arg;
	ncclResult_t res = rdv_watch(w);
	pthread_mutex_lock(&w->lock);
	w->res = res;
	w->done = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Publish this rank in DIR and block until NRANKS ranks have: the caller
 * waits on a condition variable, a helper thread watches the directory. */
static ncclResult_t rendezvous(const char *dir, int rank, int nranks,
			       const char *payload, int abort_fd)
{
	long timeout = fake_env_long("FAKE_NCCL_INIT_TIMEOUT_MS", -1);
	struct rdv_wait w = {
		.dir = dir,
		.nranks = nranks,
		.ifd = -1,
		.abort_fd = abort_fd,
		.deadline = timeout >= 0 ? now_ms() + timeout : -1,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
		.done = 0,
		.res = ncclSuccess,
	};

	if (make_dir(dir) != 0)
		return ncclSystemError;
	w.ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w.ifd >= 0 &&
	    inotify_add_watch(w.ifd, dir, IN_CREATE | IN_MOVED_TO) < 0) {
		close(w.ifd);
		w.ifd = -1;
	}
	if (publish(dir, "rank", rank, payload) != 0) {
		if (w.ifd >= 0)
			close(w.ifd);
		return ncclSystemError;
	}
	pthread_t th;
	if (pthread_create(&th, NULL, rdv_thread, &w) != 0) {
		w.res = rdv_watch(&w); /* no thread: wait here */
	} else {
		pthread_setname_np(th, "fake-nccl-boot");
		pthread_mutex_lock(&w.lock);
		while (!w.done)
			pthread_cond_wait(&w.cond, &w.lock);
		pthread_mutex_unlock(&w.lock);
		pthread_join(th, NULL);
	}
	if (w.ifd >= 0)
		close(w.ifd);
	pthread_cond_destroy(&w.cond);
	pthread_mutex_destroy(&w.lock);
	return w.res;
}

/* Remove DIR and what is in it, DEPTH levels of subdirectories deep. */
static void remove_tree(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		char path[PATH_MAX + 256];
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (depth > 0)
				remove_tree(path, depth - 1);
		} else {
			unlink(path);
		}
	}
	closedir(d);
	rmdir(dir);
}

static struct ncclComm *comm_new(int nranks, int rank, int dev)
{
	struct ncclComm *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	if (pipe2(c->abort_pipe, O_CLOEXEC) != 0) {
		free(c);
		return NULL;
	}
	c->magic = COMM_MAGIC;
	c->nranks = nranks;
	c->rank = rank;
	c->dev = dev;
	c->async = ncclSuccess;
	return c;
}

static void comm_free(struct ncclComm *c)
{
	c->magic = 0;
	close(c->abort_pipe[0]);
	close(c->abort_pipe[1]);
	free(c);
}

static ncclResult_t comm_rendezvous(struct ncclComm *c)
{
	char payload[32];
	snprintf(payload, sizeof(payload), "%ld\n", (long)getpid());
	return rendezvous(c->dir, c->rank, c->nranks, payload,
			  c->abort_pipe[0]);
}

/* A rank that gave up waiting takes its file back, and the directory with
 * it if it was alone. */
static void comm_unpublish(struct ncclComm *c)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/rank%d", c->dir, c->rank);
	unlink(path);
	rmdir(c->dir);
}

static void *init_thread(void *arg)
{
	struct ncclComm *c = arg;
	ncclResult_t r = comm_rendezvous(c);
	if (r != ncclSuccess)
		comm_unpublish(c);
	__atomic_store_n(&c->async, r, __ATOMIC_RELEASE);
	return NULL;
}

static ncclResult_t init_rank(ncclComm_t *comm, int nranks, ncclUniqueId commId,
			      int rank, const ncclConfig_t *config)
{
	long err = fake_env_long("FAKE_NCCL_INIT_ERROR", 0);
	if (err != 0)
		return (ncclResult_t)err;
	if (comm == NULL || nranks < 1 || rank < 0 || rank >= nranks)
		return ncclInvalidArgument;
	if (config != NULL &&
	    (config->magic != CONFIG_MAGIC ||
	     config->size < offsetof(ncclConfig_t, blocking) + sizeof(int)))
		return ncclInvalidArgument;
	struct ncclComm *c = comm_new(nranks, rank, 0);
	if (c == NULL)
		return ncclSystemError;
	c->top = 1;
	const char *base = getenv("FAKE_NCCL_DIR");
	if (base == NULL || *base == '\0')
		base = "/tmp";
	char hex[17];
	for (int i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x",
			 (unsigned char)commId.internal[i]);
	snprintf(c->dir, sizeof(c->dir), "%s/fake-nccl-%s", base, hex);
	if (nranks == 1) {
		*comm = c;
		return ncclSuccess;
	}
	if (config != NULL && config->blocking == 0) {
		/* Non-blocking: the caller polls ncclCommGetAsyncError. */
		c->async = ncclInProgress;
		if (pthread_create(&c->thread, NULL, init_thread, c) != 0) {
			comm_free(c);
			return ncclSystemError;
		}
		c->has_thread = 1;
		*comm = c;
		return ncclInProgress;
	}
	ncclResult_t r = comm_rendezvous(c);
	if (r != ncclSuccess) {
		comm_unpublish(c);
		comm_free(c);
		return r;
	}
	*comm = c;
	return ncclSuccess;
}

FAKE_EXPORT ncclResult_t pncclCommInitRank(ncclComm_t *comm, int nranks,
					   ncclUniqueId commId, int rank)
{
	return init_rank(comm, nranks, commId, rank, NULL);
}

FAKE_EXPORT ncclResult_t pncclCommInitRankConfig(ncclComm_t *comm, int nranks,
						 ncclUniqueId commId, int rank,
						 ncclConfig_t *config)
{
	return init_rank(comm, nranks, commId, rank, config);
}

FAKE_EXPORT ncclResult_t pncclCommInitAll(ncclComm_t *comm, int ndev,
					  const int *devlist)
{
	long err = fake_env_long("FAKE_NCCL_INIT_ERROR", 0);
	if (err != 0)
		return (ncclResult_t)err;
	if (comm == NULL || ndev < 1)
		return ncclInvalidArgument;
	for (int i = 0; i < ndev; i++) {
		comm[i] = comm_new(ndev, i, devlist != NULL ? devlist[i] : i);
		if (comm[i] == NULL) {
			while (i-- > 0)
				comm_free(comm[i]);
			return ncclSystemError;
		}
	}
	return ncclSuccess;
}

/* What every rank published for a split: "color key". */
static int read_split(const char *dir, int rank, int *color, int *key)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/rank%d", dir, rank);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	int ok = fscanf(f, "%d %d", color, key) == 2;
	fclose(f);
	return ok ? 0 : -1;
}

FAKE_EXPORT ncclResult_t pncclCommSplit(ncclComm_t comm, int color, int key,
					ncclComm_t *newcomm,
					ncclConfig_t *config)
{
	(void)config;
	if (!comm_ok(comm) || newcomm == NULL ||
	    (color < 0 && color != NCCL_SPLIT_NOCOLOR))
		return ncclInvalidArgument;
	if (comm->dir[0] == '\0' && comm->nranks > 1)
		return ncclInvalidUsage;
	int nranks = 1, rank = 0;
	char dir[PATH_MAX];
	if (snprintf(dir, sizeof(dir), "%s/split%d", comm->dir,
		     ++comm->split_seq) >= (int)sizeof(dir))
		return ncclSystemError;
	if (comm->nranks > 1) {
		char payload[64];
		snprintf(payload, sizeof(payload), "%d %d\n", color, key);
		ncclResult_t r = rendezvous(dir, comm->rank, comm->nranks,
					    payload, comm->abort_pipe[0]);
		if (r != ncclSuccess)
			return r;
		/* New rank: order by (key, old rank) among the same color. */
		nranks = 0;
		for (int i = 0; i < comm->nranks; i++) {
			int c, k;
			if (read_split(dir, i, &c, &k) != 0)
				return ncclSystemError;
			if (c != color)
				continue;
			nranks++;
			if (k < key || (k == key && i < comm->rank))
				rank++;
		}
	}
	if (color == NCCL_SPLIT_NOCOLOR) {
		*newcomm = NULL;
		return ncclSuccess;
	}
	struct ncclComm *c = comm_new(nranks, rank, comm->dev);
	if (c == NULL)
		return ncclSystemError;
	if (comm->dir[0] != '\0' &&
	    snprintf(c->dir, sizeof(c->dir), "%s-color%d", dir, color) >=
		    (int)sizeof(c->dir)) {
		comm_free(c);
		return ncclSystemError;
	}
	*newcomm = c;
	return ncclSuccess;
}

FAKE_EXPORT ncclResult_t pncclCommFinalize(ncclComm_t comm)
{
	if (!comm_ok(comm))
		return ncclInvalidArgument;
	return ncclSuccess;
}

/* Stop a non-blocking init still waiting, then free. */
static void comm_end(struct ncclComm *c)
{
	if (c->has_thread) {
		if (write(c->abort_pipe[1], "x", 1) < 0) {
			/* The thread then waits for the other ranks. */
		}
		pthread_join(c->thread, NULL);
	}
	comm_free(c);
}

FAKE_EXPORT ncclResult_t pncclCommDestroy(ncclComm_t comm)
{
	if (!comm_ok(comm))
		return ncclInvalidArgument;
	/* The last rank of a communicator made by init to leave removes the
	 * rendezvous directory: every rank that wrote "done" is past its
	 * wait. */
	if (comm->top && comm->nranks > 1 &&
	    __atomic_load_n(&comm->async, __ATOMIC_ACQUIRE) == ncclSuccess &&
	    publish(comm->dir, "done", comm->rank, "") == 0 &&
	    count_files(comm->dir, "done") >= comm->nranks)
		remove_tree(comm->dir, 2);
	comm_end(comm);
	return ncclSuccess;
}

FAKE_EXPORT ncclResult_t pncclCommAbort(ncclComm_t comm)
{
	if (!comm_ok(comm))
		return ncclInvalidArgument;
	comm_end(comm);
	return ncclSuccess;
}

FAKE_EXPORT ncclResult_t pncclCommGetAsyncError(ncclComm_t comm,
						ncclResult_t *asyncError)
{
	if (!comm_ok(comm) || asyncError == NULL)
		return ncclInvalidArgument;
	*asyncError = __atomic_load_n(&comm->async, __ATOMIC_ACQUIRE);
	return ncclSuccess;
}

FAKE_EXPORT ncclResult_t pncclCommCount(const ncclComm_t comm, int *count)
{
	if (!comm_ok(comm) || count == NULL)
		return ncclInvalidArgument;
	*count = comm->nranks;
	return ncclSuccess;
}

FAKE_EXPORT ncclResult_t pncclCommCuDevice(const ncclComm_t comm, int *device)
{
	if (!comm_ok(comm) || device == NULL)
		return ncclInvalidArgument;
	*device = comm->dev;
	return ncclSuccess;
}

FAKE_EXPORT ncclResult_t pncclCommUserRank(const ncclComm_t comm, int *rank)
{
	if (!comm_ok(comm) || rank == NULL)
		return ncclInvalidArgument;
	*rank = comm->rank;
	return ncclSuccess;
}

/* The checks every collective makes; nothing moves. */
static ncclResult_t coll_check(const void *send, const void *recv, size_t count,
			       ncclDataType_t type, int op, int root,
			       ncclComm_t comm)
{
	if (!comm_ok(comm) || (int)type < 0 || (int)type >= ncclNumTypes ||
	    op < 0 || op >= ncclNumOps || (root >= 0 && root >= comm->nranks) ||
	    (count > 0 && (send == NULL || recv == NULL)))
		return ncclInvalidArgument;
	ncclResult_t async = __atomic_load_n(&comm->async, __ATOMIC_ACQUIRE);
	if (async != ncclSuccess)
		return async == ncclInProgress ? ncclInvalidUsage : async;
	return ncclSuccess;
}

FAKE_EXPORT ncclResult_t pncclAllReduce(const void *sendbuff, void *recvbuff,
					size_t count, ncclDataType_t datatype,
					ncclRedOp_t op, ncclComm_t comm,
					cudaStream_t stream)
{
	(void)stream;
	ncclResult_t r =
		coll_check(sendbuff, recvbuff, count, datatype, op, -1, comm);
	/* A collective whose peer never comes: real NCCL (2.22+, lazy
	 * connection set-up) blocks in the first collective of a
	 * communicator while it connects to its peers. */
	if (r == ncclSuccess && fake_env_long("FAKE_NCCL_COLL_SYNC", 0) &&
	    comm->nranks > 1 && comm->dir[0] != '\0') {
		char dir[PATH_MAX];
		if (snprintf(dir, sizeof(dir), "%s/allreduce%d", comm->dir,
			     ++comm->coll_seq) >= (int)sizeof(dir))
			return ncclSystemError;
		r = rendezvous(dir, comm->rank, comm->nranks, "\n",
			       comm->abort_pipe[0]);
	}
	if (r == ncclSuccess && fake_env_long("FAKE_NCCL_ALLREDUCE_HANG", 0)) {
		static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
		static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
		pthread_mutex_lock(&m);
		for (;;)
			pthread_cond_wait(&never, &m);
	}
	return r;
}

FAKE_EXPORT ncclResult_t pncclBroadcast(const void *sendbuff, void *recvbuff,
					size_t count, ncclDataType_t datatype,
					int root, ncclComm_t comm,
					cudaStream_t stream)
{
	(void)stream;
	if (root < 0)
		return ncclInvalidArgument;
	return coll_check(sendbuff, recvbuff, count, datatype, ncclSum, root,
			  comm);
}

FAKE_EXPORT ncclResult_t pncclBcast(void *buff, size_t count,
				    ncclDataType_t datatype, int root,
				    ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	if (root < 0)
		return ncclInvalidArgument;
	return coll_check(buff, buff, count, datatype, ncclSum, root, comm);
}

FAKE_EXPORT ncclResult_t pncclReduce(const void *sendbuff, void *recvbuff,
				     size_t count, ncclDataType_t datatype,
				     ncclRedOp_t op, int root, ncclComm_t comm,
				     cudaStream_t stream)
{
	(void)stream;
	if (root < 0)
		return ncclInvalidArgument;
	return coll_check(sendbuff, recvbuff, count, datatype, op, root, comm);
}

FAKE_EXPORT ncclResult_t pncclAllGather(const void *sendbuff, void *recvbuff,
					size_t sendcount,
					ncclDataType_t datatype,
					ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	return coll_check(sendbuff, recvbuff, sendcount, datatype, ncclSum, -1,
			  comm);
}

FAKE_EXPORT ncclResult_t pncclReduceScatter(const void *sendbuff,
					    void *recvbuff, size_t recvcount,
					    ncclDataType_t datatype,
					    ncclRedOp_t op, ncclComm_t comm,
					    cudaStream_t stream)
{
	(void)stream;
	return coll_check(sendbuff, recvbuff, recvcount, datatype, op, -1,
			  comm);
}

FAKE_EXPORT ncclResult_t pncclSend(const void *sendbuff, size_t count,
				   ncclDataType_t datatype, int peer,
				   ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	if (peer < 0)
		return ncclInvalidArgument;
	return coll_check(sendbuff, sendbuff, count, datatype, ncclSum, peer,
			  comm);
}

FAKE_EXPORT ncclResult_t pncclRecv(void *recvbuff, size_t count,
				   ncclDataType_t datatype, int peer,
				   ncclComm_t comm, cudaStream_t stream)
{
	(void)stream;
	if (peer < 0)
		return ncclInvalidArgument;
	return coll_check(recvbuff, recvbuff, count, datatype, ncclSum, peer,
			  comm);
}

ncclResult_t pncclGroupStart(void);
ncclResult_t pncclGroupEnd(void);

FAKE_EXPORT ncclResult_t pncclGroupStart(void)
{
	group_depth++;
	return ncclSuccess;
}

FAKE_EXPORT ncclResult_t pncclGroupEnd(void)
{
	if (group_depth == 0)
		return ncclInvalidUsage;
	group_depth--;
	return ncclSuccess;
}

/* ncclX: weak aliases of pncclX, as in the real library. */
#define DLT_NCCL_API(ret, name, params, args) \
	FAKE_EXPORT ret name params __attribute__((weak, alias("p" #name)));
#include "nccl_api.def"
#undef DLT_NCCL_API
