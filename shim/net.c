/* connect, bind, listen and accept: who a process tried to reach during a
 * rendezvous (MASTER_ADDR:MASTER_PORT, NCCL's bootstrap), and what came of
 * it.  A rendezvous that retries ECONNREFUSED every few milliseconds adds
 * one record, whose repeat count grows in place. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apitable.h"
#include "pystack.h"
#include "real.h"
#include "state.h"
#include "watchdog.h"

typedef int (*dlt_connect_fn)(int, const struct sockaddr *, socklen_t);
typedef int (*dlt_accept4_fn)(int, struct sockaddr *, socklen_t *, int);
typedef int (*dlt_listen_fn)(int, int);

/* This thread's last failed socket call: a retry that fails the same way
 * counts in its record's repeat while the record can be updated. */
static __thread struct {
	struct dlt_rec_sock *rec;
	uint64_t ticket;
	int op, err;
	uint32_t addr;
} dlt_last_sock;

static int dlt_sock_family_ok(const struct sockaddr *sa)
{
	return sa && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6 ||
		      sa->sa_family == AF_UNIX);
}

/* The local end of connected socket fd, next to the peer address as:
 * one getsockname per connection made, never per message. */
static void dlt_sock_ends(struct dlt_writer *w, int op, int fd, uint32_t peer,
			  uint64_t ts)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	char addr[256];
	if (getsockname(fd, (struct sockaddr *)&ss, &l) != 0)
		return;
	dlt_format_sockaddr((struct sockaddr *)&ss, l, addr, sizeof(addr));
	if (addr[0] == '\0')
		return;
	uint32_t local = dlt_str(w, &dlt_tls, addr);
	struct dlt_rec_sock_ends *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = ts;
	r->fd = fd;
	r->local = local;
	r->peer = peer;
	r->pad = 0;
	dlt_rec_commit(r, DLT_REC_SOCK_ENDS, (uint16_t)op, sizeof(*r));
}

static void dlt_sock_record(int op, int fd, int ret, int err,
			    const struct sockaddr *sa, socklen_t len,
			    uint64_t t0, uint64_t t1)
{
	struct dlt_writer *w = dlt_writer_on();
	if (w == NULL || w->pid != getpid())
		return;
	char addr[256];
	dlt_format_sockaddr(sa, len, addr, sizeof(addr));
	uint32_t as = addr[0] ? dlt_str(w, &dlt_tls, addr) : DLT_STR_NONE;
	/* A connect in progress is a connection made, not a failure. */
	if (ret < 0 && err != EINPROGRESS && dlt_last_sock.rec &&
	    dlt_last_sock.op == op && dlt_last_sock.err == err &&
	    dlt_last_sock.addr == as &&
	    dlt_rec_in_place(w, &dlt_tls, dlt_last_sock.ticket)) {
		struct dlt_rec_sock *r = dlt_last_sock.rec;
		atomic_fetch_add((_Atomic uint32_t *)&r->repeat, 1);
		atomic_store((_Atomic uint64_t *)&r->last_ts, t1);
		return;
	}
	struct dlt_rec_sock *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r == NULL)
		return;
	r->h.ts = t0;
	r->fd = fd;
	r->ret = ret;
	r->err = ret < 0 ? err : 0;
	r->addr = as;
	r->dur = dlt_dur(t1 - t0);
	r->repeat = 0;
	r->last_ts = t1;
	dlt_rec_commit(r, DLT_REC_SOCK, (uint16_t)op, sizeof(*r));
	dlt_last_sock.rec = ret < 0 ? r : NULL;
	dlt_last_sock.ticket = dlt_rec_ticket(&dlt_tls);
	dlt_last_sock.op = op;
	dlt_last_sock.err = err;
	dlt_last_sock.addr = as;
	if (op == DLT_SOCK_CONNECT && (ret == 0 || err == EINPROGRESS))
		dlt_sock_ends(w, op, fd, as, t1);
	else if (op == DLT_SOCK_ACCEPT && ret >= 0)
		dlt_sock_ends(w, op, ret, as, t1);
}

/* The (rank, world size) pairs this process recorded in RANK records: each
 * once.  A process has one or two (a re-initialised process group); more
 * than the table holds are recorded again, which a reader takes alike. */
#define DLT_RANKS_SEEN 8
static _Atomic uint64_t dlt_ranks_seen[DLT_RANKS_SEEN];
/* This thread is in dlt_sock_rank (asking to be watched may connect). */
static __thread int dlt_sock_rank_busy;

/* A socket call during torch.distributed's rendezvous: the rank and world
 * size the job's code passed, read from the calling thread's Python
 * frames (shim/pystack.c), recorded once, and the process asks to be
 * watched like one started with a launcher's rank variables.  Costs a
 * walk of the thread's frames only where an interpreter was found. */
static void dlt_sock_rank(struct dlt_writer *w)
{
	if (dlt_sock_rank_busy)
		return;
	dlt_sock_rank_busy = 1;
	int32_t rank, ws;
	uint32_t src = dlt_pystack_rank(&rank, &ws);
	if (src == 0) {
		dlt_sock_rank_busy = 0;
		return;
	}
	/* Never 0: world_size > 0. */
	uint64_t key = (uint64_t)(uint32_t)rank << 32 | (uint32_t)ws;
	for (int i = 0; i < DLT_RANKS_SEEN; i++) {
		uint64_t cur = atomic_load(&dlt_ranks_seen[i]);
		if (cur == key) {
			dlt_sock_rank_busy = 0;
			return;
		}
		if (cur == 0 && atomic_compare_exchange_strong(
					&dlt_ranks_seen[i], &cur, key))
			break;
		if (cur == key) {
			dlt_sock_rank_busy = 0;
			return;
		}
	}
	struct dlt_rec_rank *r = dlt_rec_reserve(w, &dlt_tls, sizeof(*r));
	if (r) {
		r->h.ts = dlt_now_ns();
		r->rank = rank;
		r->world_size = ws;
		r->source = src;
		r->tid = (uint32_t)syscall(SYS_gettid);
		dlt_rec_commit(r, DLT_REC_RANK, 0, sizeof(*r));
	}
	dlt_watch_ask("a rank of torch.distributed");
	dlt_sock_rank_busy = 0;
}

/* connect and bind: a call with an address, timed and recorded. */
static int dlt_sock_addr_call(int op, dlt_connect_fn real, int fd,
			      const struct sockaddr *sa, socklen_t len)
{
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (!dlt_sock_family_ok(sa) || dlt_writer_on() == NULL)
		return real(fd, sa, len);
	uint64_t t0 = dlt_now_ns();
	int r = real(fd, sa, len);
	int e = errno;
	dlt_sock_record(op, fd, r, e, sa, len, t0, dlt_now_ns());
	struct dlt_writer *w = dlt_writer_on();
	if (w && w->pid == getpid() && sa->sa_family != AF_UNIX)
		dlt_sock_rank(w);
	errno = e;
	return r;
}

DLT_EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	static dlt_connect_fn real;
	if (real == NULL)
		real = (dlt_connect_fn)dlt_real_lookup("connect");
	return dlt_sock_addr_call(DLT_SOCK_CONNECT, real, fd, sa, len);
}

DLT_EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	static dlt_connect_fn real;
	if (real == NULL)
		real = (dlt_connect_fn)dlt_real_lookup("bind");
	return dlt_sock_addr_call(DLT_SOCK_BIND, real, fd, sa, len);
}

DLT_EXPORT int listen(int fd, int backlog)
{
	static dlt_listen_fn real;
	if (real == NULL)
		real = (dlt_listen_fn)dlt_real_lookup("listen");
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (dlt_writer_on() == NULL)
		return real(fd, backlog);
	uint64_t t0 = dlt_now_ns();
	int r = real(fd, backlog);
	int e = errno;
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &l) == 0 &&
	    dlt_sock_family_ok((struct sockaddr *)&ss))
		dlt_sock_record(DLT_SOCK_LISTEN, fd, r, e,
				(struct sockaddr *)&ss, l, t0, dlt_now_ns());
	errno = e;
	return r;
}

static int dlt_accept_common(int fd, struct sockaddr *sa, socklen_t *len,
			     int flags)
{
	static dlt_accept4_fn real;
	if (real == NULL)
		real = (dlt_accept4_fn)dlt_real_lookup("accept4");
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (dlt_writer_on() == NULL)
		return real(fd, sa, len, flags);
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	uint64_t t0 = dlt_now_ns();
	int r = real(fd, (struct sockaddr *)&ss, &l, flags);
	int e = errno;
	if (r >= 0 && sa && len) {
		/* Hand back exactly what the real call would have. */
		socklen_t n = *len < l ? *len : l;
		memcpy(sa, &ss, n);
		*len = l;
	}
	if (r >= 0 && dlt_sock_family_ok((struct sockaddr *)&ss))
		dlt_sock_record(DLT_SOCK_ACCEPT, fd, r, e,
				(struct sockaddr *)&ss, l, t0, dlt_now_ns());
	errno = e;
	return r;
}

DLT_EXPORT int accept(int fd, struct sockaddr *sa, socklen_t *len)
{
	return dlt_accept_common(fd, sa, len, 0);
}

DLT_EXPORT int accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	return dlt_accept_common(fd, sa, len, flags);
}
