/* Drives NCCL initialisation and a few collectives, printing every status
 * in a stable form.
 *
 *   fx_nccl [--nranks N] [--rank R] [--id-file F] [--split]
 *           [--nonblocking] [--allreduces K] [--hold-before-init]
 *           [--hold-before-end]
 *   fx_nccl --all
 *
 * Rank 0 makes the unique id and writes it to F (atomically); the other
 * ranks wait for F and read it.  --split splits the communicator by rank
 * parity; --nonblocking initialises with config.blocking = 0 and polls
 * ncclCommGetAsyncError; --all makes two communicators in this process
 * with ncclCommInitAll.  --allreduces K calls ncclAllReduce K more times
 * after the usual collectives; --hold-before-init and --hold-before-end
 * print "holding" and then read a pipe nobody writes to, before the init
 * or before finalizing: a rank held up elsewhere until it is killed.
 *
 * Exit status: 0 when everything succeeded, 1 otherwise, 2 on a usage
 * error or an id file that never came. */
#define _GNU_SOURCE
#include "fake_api.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;

static ncclResult_t report(const char *what, ncclResult_t rc, int expect_ok,
			   const char *extra)
{
	printf("%s rc=%d%s%s\n", what, (int)rc, extra[0] ? " " : "", extra);
	if (expect_ok && rc != ncclSuccess)
		failures++;
	return rc;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static int write_id(const char *path, const ncclUniqueId *id)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int ok = write(fd, id, sizeof(*id)) == (ssize_t)sizeof(*id);
	ok = close(fd) == 0 && ok;
	return ok && rename(tmp, path) == 0 ? 0 : -1;
}

/* Wait up to 60 s for rank 0 to publish the id. */
static int read_id(const char *path, ncclUniqueId *id)
{
	for (int i = 0; i < 6000; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, id, sizeof(*id));
			close(fd);
			return n == (ssize_t)sizeof(*id) ? 0 : -1;
		}
		sleep_ms(10);
	}
	return -1;
}

static void describe(const char *label, ncclComm_t comm)
{
	int count = -1, rank = -1, dev = -1;
	char extra[64];
	ncclResult_t rc = ncclCommCount(comm, &count);
	snprintf(extra, sizeof(extra), "count=%d", count);
	report(label[0] ? "ncclCommCount(sub)" : "ncclCommCount", rc, 1, extra);
	rc = ncclCommUserRank(comm, &rank);
	snprintf(extra, sizeof(extra), "rank=%d", rank);
	report(label[0] ? "ncclCommUserRank(sub)" : "ncclCommUserRank", rc, 1,
	       extra);
	rc = ncclCommCuDevice(comm, &dev);
	snprintf(extra, sizeof(extra), "device=%d", dev);
	report(label[0] ? "ncclCommCuDevice(sub)" : "ncclCommCuDevice", rc, 1,
	       extra);
}

static void collectives(ncclComm_t comm, int nranks, int rank, float *send,
			float *recv)
{
	int peer_to = (rank + 1) % nranks;
	int peer_from = (rank + nranks - 1) % nranks;
	char extra[64];
	report("ncclAllReduce",
	       ncclAllReduce(send, recv, 1024, ncclFloat, ncclSum, comm, NULL),
	       1, "");
	report("ncclBroadcast",
	       ncclBroadcast(send, recv, 1024, ncclFloat, 0, comm, NULL), 1,
	       "");
	report("ncclReduce",
	       ncclReduce(send, recv, 1024, ncclFloat, ncclMax, 0, comm, NULL),
	       1, "");
	report("ncclAllGather",
	       ncclAllGather(send, recv, 1024 / nranks, ncclFloat, comm, NULL),
	       1, "");
	report("ncclReduceScatter",
	       ncclReduceScatter(send, recv, 1024 / nranks, ncclFloat, ncclSum,
				 comm, NULL),
	       1, "");
	report("ncclGroupStart", ncclGroupStart(), 1, "");
	snprintf(extra, sizeof(extra), "peer=%d", peer_to);
	report("ncclSend", ncclSend(send, 256, ncclFloat, peer_to, comm, NULL),
	       1, extra);
	snprintf(extra, sizeof(extra), "peer=%d", peer_from);
	report("ncclRecv",
	       ncclRecv(recv, 256, ncclFloat, peer_from, comm, NULL), 1, extra);
	report("ncclGroupEnd", ncclGroupEnd(), 1, "");
	ncclResult_t async = ncclInternalError;
	ncclResult_t rc = ncclCommGetAsyncError(comm, &async);
	snprintf(extra, sizeof(extra), "async=%d", (int)async);
	report("ncclCommGetAsyncError", rc, 1, extra);
}

/* A rank held up elsewhere: in read(2) for good (this process holds the
 * pipe's write end, so no end of file comes). */
static void hold(void)
{
	int fds[2];
	char c;
	printf("holding\n");
	if (pipe(fds) != 0)
		return;
	while (read(fds[0], &c, 1) >= 0 || errno == EINTR)
		;
}

static int run_all(float *send, float *recv)
{
	ncclComm_t comms[2] = {NULL, NULL};
	int devs[2] = {0, 1};
	if (report("ncclCommInitAll(2)", ncclCommInitAll(comms, 2, devs), 1,
		   "") != ncclSuccess)
		return 1;
	for (int i = 0; i < 2; i++)
		describe("", comms[i]);
	report("ncclGroupStart", ncclGroupStart(), 1, "");
	for (int i = 0; i < 2; i++)
		report("ncclAllReduce",
		       ncclAllReduce(send, recv, 1024, ncclFloat, ncclSum,
				     comms[i], NULL),
		       1, "");
	report("ncclGroupEnd", ncclGroupEnd(), 1, "");
	for (int i = 0; i < 2; i++)
		report("ncclCommDestroy", ncclCommDestroy(comms[i]), 1, "");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	int nranks = 1, rank = 0, split = 0, all = 0, nonblocking = 0;
	int allreduces = 0, hold_before_init = 0, hold_before_end = 0;
	const char *id_file = NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--nranks") == 0 && i + 1 < argc)
			nranks = atoi(argv[++i]);
		else if (strcmp(argv[i], "--rank") == 0 && i + 1 < argc)
			rank = atoi(argv[++i]);
		else if (strcmp(argv[i], "--id-file") == 0 && i + 1 < argc)
			id_file = argv[++i];
		else if (strcmp(argv[i], "--split") == 0)
			split = 1;
		else if (strcmp(argv[i], "--all") == 0)
			all = 1;
		else if (strcmp(argv[i], "--nonblocking") == 0)
			nonblocking = 1;
		else if (strcmp(argv[i], "--allreduces") == 0 && i + 1 < argc)
			allreduces = atoi(argv[++i]);
		else if (strcmp(argv[i], "--hold-before-init") == 0)
			hold_before_init = 1;
		else if (strcmp(argv[i], "--hold-before-end") == 0)
			hold_before_end = 1;
		else {
			fprintf(stderr, "usage: fx_nccl [--nranks N] [--rank R]"
					" [--id-file F] [--split] "
					"[--nonblocking] [--allreduces K] "
					"[--hold-before-init] "
					"[--hold-before-end] | --all\n");
			return 2;
		}
	}
	if (nranks < 1 || rank < 0 || rank >= nranks ||
	    (nranks > 1 && id_file == NULL)) {
		fprintf(stderr, "fx_nccl: bad --nranks/--rank, or no --id-file "
				"for more than one rank\n");
		return 2;
	}

	float *send = calloc(1024, sizeof(float));
	float *recv = calloc(1024, sizeof(float));
	if (send == NULL || recv == NULL)
		return 2;
	int version = -1;
	char extra[64];
	ncclResult_t rc = ncclGetVersion(&version);
	snprintf(extra, sizeof(extra), "version=%d", version);
	report("ncclGetVersion", rc, 1, extra);
	printf("ncclGetErrorString(1)=\"%s\"\n",
	       ncclGetErrorString(ncclUnhandledCudaError));
	if (all)
		return run_all(send, recv);

	ncclUniqueId id;
	memset(&id, 0, sizeof(id));
	if (rank == 0) {
		report("ncclGetUniqueId", ncclGetUniqueId(&id), 1, "");
		if (id_file != NULL && write_id(id_file, &id) != 0) {
			fprintf(stderr, "fx_nccl: cannot write %s\n", id_file);
			return 2;
		}
	} else if (read_id(id_file, &id) != 0) {
		fprintf(stderr, "fx_nccl: no id in %s\n", id_file);
		return 2;
	}

	ncclComm_t comm = NULL;
	if (hold_before_init)
		hold();
	snprintf(extra, sizeof(extra), "nranks=%d rank=%d", nranks, rank);
	if (nonblocking) {
		ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
		config.blocking = 0;
		rc = ncclCommInitRankConfig(&comm, nranks, id, rank, &config);
		report("ncclCommInitRankConfig(blocking=0)", rc, 0, extra);
		ncclResult_t async = rc;
		while (comm != NULL && async == ncclInProgress) {
			if (ncclCommGetAsyncError(comm, &async) != ncclSuccess)
				break;
			if (async == ncclInProgress)
				sleep_ms(1);
		}
		snprintf(extra, sizeof(extra), "async=%d", (int)async);
		report("ncclCommGetAsyncError(init)", ncclSuccess, 1, extra);
		rc = async;
	} else {
		rc = ncclCommInitRank(&comm, nranks, id, rank);
		report("ncclCommInitRank", rc, 1, extra);
	}
	if (rc != ncclSuccess) {
		printf("failures=%d\n", failures);
		return 1;
	}
	describe("", comm);
	collectives(comm, nranks, rank, send, recv);
	for (int k = 0; k < allreduces; k++)
		report("ncclAllReduce",
		       ncclAllReduce(send, recv, 1024, ncclFloat, ncclSum, comm,
				     NULL),
		       1, "");
	if (hold_before_end)
		hold();

	if (split) {
		ncclComm_t sub = NULL;
		snprintf(extra, sizeof(extra), "color=%d key=%d", rank % 2,
			 rank);
		rc = ncclCommSplit(comm, rank % 2, rank, &sub, NULL);
		report("ncclCommSplit", rc, 1, extra);
		if (rc == ncclSuccess && sub != NULL) {
			describe("sub", sub);
			report("ncclAllReduce(sub)",
			       ncclAllReduce(send, recv, 1024, ncclFloat,
					     ncclSum, sub, NULL),
			       1, "");
			report("ncclCommDestroy(sub)", ncclCommDestroy(sub), 1,
			       "");
		}
	}
	report("ncclCommFinalize", ncclCommFinalize(comm), 1, "");
	report("ncclCommDestroy", ncclCommDestroy(comm), 1, "");
	printf("failures=%d\n", failures);
	free(send);
	free(recv);
	return failures ? 1 : 0;
}
