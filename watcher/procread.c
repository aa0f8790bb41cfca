/* What the watcher reads of another process (procread.h).  The process
 * never notices: /proc files and process_vm_readv, which fails cleanly
 * where memory is gone.  Sockets are named from the process's own network
 * namespace's tables (/proc/PID/net/tcp, tcp6, unix) by the inode its
 * descriptor links to: the watcher cannot call getpeername on a
 * descriptor of another process. */
#define _GNU_SOURCE
#include "procread.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io.h"
#include "procstat.h"

ssize_t dlt_pr_peek(pid_t pid, void *dst, uint64_t addr, size_t n)
{
	struct iovec local = {dst, n};
	struct iovec remote = {(void *)(uintptr_t)addr, n};
	return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

/* A small /proc file whole, with errno kept for the caller: 0 or -1. */
static int dlt_pr_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int err = 0;
	size_t n = dlt_io_pread_upto(fd, buf, cap - 1, 0, &err);
	close(fd);
	buf[n] = '\0';
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int dlt_pr_thread_read(pid_t pid, uint32_t tid, struct dlt_pr_thread *t)
{
	char path[96], text[512];
	memset(t, 0, sizeof(*t));
	t->state = '?';
	t->nr = -1;
	snprintf(path, sizeof(path), "/proc/%d/task/%u/stat", (int)pid, tid);
	if (dlt_pr_read(path, text, sizeof(text)) != 0)
		return -1;
	struct dlt_procstat ps;
	if (dlt_procstat_parse(text, &ps) == 0 && ps.state)
		t->state = ps.state;
	snprintf(path, sizeof(path), "/proc/%d/task/%u/syscall", (int)pid, tid);
	if (dlt_pr_read(path, text, sizeof(text)) != 0)
		return -1;
	unsigned long long a[6] = {0}, sp = 0, pc = 0;
	int got = sscanf(text, "%ld %llx %llx %llx %llx %llx %llx %llx %llx",
			 &t->nr, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &sp,
			 &pc);
	t->in_call = got == 9 && t->nr >= 0;
	if (!t->in_call)
		t->nr = -1;
	/* Between system calls (a stopped thread): "-1 sp pc". */
	if (got == 3 && t->nr == -1) {
		sp = a[0];
		pc = a[1];
		a[0] = a[1] = 0;
	}
	for (int i = 0; i < 6; i++)
		t->a[i] = a[i];
	t->sp = sp;
	t->pc = pc;
	return 0;
}

/* An address of /proc/net/tcp{,6}: the bytes of the address as the
 * kernel prints its 32-bit words (in this machine's order), and the
 * port. */
static void dlt_pr_inet(const char *hex, int v6, char *buf, size_t cap)
{
	const char *p = hex;
	uint32_t words[4] = {0};
	for (int i = 0; i < (v6 ? 4 : 1); i++) {
		char w[9];
		memcpy(w, p, 8);
		w[8] = '\0';
		words[i] = (uint32_t)strtoul(w, NULL, 16);
		p += 8;
	}
	unsigned port = *p == ':' ? (unsigned)strtoul(p + 1, NULL, 16) : 0;
	char ip[INET6_ADDRSTRLEN] = "?";
	inet_ntop(v6 ? AF_INET6 : AF_INET, words, ip, sizeof(ip));
	if (v6)
		snprintf(buf, cap, "tcp [%s]:%u", ip, port);
	else
		snprintf(buf, cap, "tcp %s:%u", ip, port);
}

/* The socket with this inode in /proc/PID/net/tcp or tcp6. */
static int dlt_pr_tcp(pid_t pid, const char *ino, int v6, char *buf, size_t cap)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/net/tcp%s", (int)pid,
		 v6 ? "6" : "");
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	int found = -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		char local[64], rem[64], st[8], inode[32];
		if (sscanf(line, " %*s %63s %63s %7s %*s %*s %*s %*s %*s %31s",
			   local, rem, st, inode) != 4 ||
		    strcmp(inode, ino) != 0)
			continue;
		/* Not connected: a listener, or a socket bound but not yet
		 * connected; its own address says which port. */
		const char *colon = strchr(rem, ':');
		int unconnected = strcmp(st, "0A") == 0 ||
				  (colon && strtoul(colon + 1, NULL, 16) == 0);
		dlt_pr_inet(unconnected ? local : rem, v6, buf, cap);
		if (unconnected) {
			size_t n = strlen(buf);
			snprintf(buf + n, cap - n, " (local, not connected)");
		}
		found = 0;
	}
	fclose(f);
	return found;
}

static int dlt_pr_unix(pid_t pid, const char *ino, char *buf, size_t cap)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/net/unix", (int)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	int found = -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		char inode[32], name[300] = "";
		int n = sscanf(line, " %*s %*s %*s %*s %*s %*s %31s %299s",
			       inode, name);
		if (n < 1 || strcmp(inode, ino) != 0)
			continue;
		/* A connected client has no name of its own; its peer is not
		 * in this table. */
		snprintf(buf, cap, "unix %s", name[0] ? name : "(unnamed)");
		found = 0;
	}
	fclose(f);
	return found;
}

void dlt_pr_fd_desc(pid_t pid, int fd, char *buf, size_t cap)
{
	char path[64], link[128];
	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	if (strncmp(link, "socket:[", 8) != 0)
		return;
	char ino[32];
	snprintf(ino, sizeof(ino), "%.*s", (int)strcspn(link + 8, "]"),
		 link + 8);
	if (dlt_pr_tcp(pid, ino, 0, buf, cap) == 0 ||
	    dlt_pr_tcp(pid, ino, 1, buf, cap) == 0 ||
	    dlt_pr_unix(pid, ino, buf, cap) == 0)
		return;
	buf[0] = '\0';
}

/* An epoll wait names no descriptor: the ones registered in it do
 * (/proc/PID/fdinfo lists them as "tfd: N"), and their peers say which
 * connections an event loop (gloo's, a store's) waits on; the first 8. */
static void dlt_pr_epoll(pid_t pid, int epfd, char *buf, size_t cap)
{
	char path[64], info[2048], peer[160];
	size_t used = (size_t)snprintf(buf, cap, "epoll fd %d", epfd);
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, epfd);
	if (dlt_pr_read(path, info, sizeof(info)) != 0)
		return;
	const char *p = info;
	for (int n = 0; n < 8 && used < cap && (p = strstr(p, "tfd:")); n++) {
		p += 4;
		int fd = (int)strtol(p, NULL, 10);
		dlt_pr_fd_desc(pid, fd, peer, sizeof(peer));
		if (peer[0])
			used += (size_t)snprintf(buf + used, cap - used,
						 " fd %d %s", fd, peer);
	}
}

int dlt_pr_wait_detail(pid_t pid, long nr, const uint64_t *a, char *buf,
		       size_t cap)
{
	buf[0] = '\0';
	char peer[160];
	switch (nr) {
	case SYS_futex:
		snprintf(buf, cap, "futex op=%llu word=0x%llx",
			 (unsigned long long)(a[1] & 0x7f),
			 (unsigned long long)a[0]);
		return -1;
#ifdef SYS_poll /* AArch64 has ppoll only */
	case SYS_poll:
#endif
	case SYS_ppoll: {
		struct pollfd fds[8];
		uint64_t n = a[1] < 8 ? a[1] : 8;
		size_t used = (size_t)snprintf(buf, cap, "poll nfds=%llu",
					       (unsigned long long)a[1]);
		if (n == 0 || dlt_pr_peek(pid, fds, a[0], n * sizeof(fds[0])) !=
				      (ssize_t)(n * sizeof(fds[0])))
			return -1;
		for (uint64_t i = 0; i < n && used < cap; i++) {
			dlt_pr_fd_desc(pid, fds[i].fd, peer, sizeof(peer));
			used += (size_t)snprintf(buf + used, cap - used,
						 " fd %d%s%s", fds[i].fd,
						 peer[0] ? " " : "", peer);
		}
		return n ? fds[0].fd : -1;
	}
	case SYS_read:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_accept:
	case SYS_accept4:
	case SYS_connect:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_write: {
		int fd = (int)a[0];
		dlt_pr_fd_desc(pid, fd, peer, sizeof(peer));
		snprintf(buf, cap, "fd %d%s%s", fd, peer[0] ? " " : "", peer);
		return fd;
	}
#ifdef SYS_epoll_wait /* AArch64 has epoll_pwait only */
	case SYS_epoll_wait:
#endif
	case SYS_epoll_pwait:
		dlt_pr_epoll(pid, (int)a[0], buf, cap);
		return (int)a[0];
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
		snprintf(buf, cap, "sleeping (a wait loop if it repeats)");
		return -1;
	case SYS_wait4:
	case SYS_waitid:
		snprintf(buf, cap, "waiting for a child process");
		return -1;
	default:
		return -1;
	}
}

uint64_t dlt_pr_rss_peak_kb(pid_t pid)
{
	char path[64], text[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (dlt_pr_read(path, text, sizeof(text)) != 0)
		return 0;
	const char *p = strstr(text, "\nVmHWM:");
	return p ? strtoull(p + 7, NULL, 10) : 0;
}
