#define _GNU_SOURCE
#include "capture.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__aarch64__)
#include <asm/ptrace.h> /* struct user_pt_regs */
#endif

#include "elfread.h"
#include "procmaps.h"

#define CAP_STACK_MAX (32 * 1024)

static void cap_err(char *err, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cap_err(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && cap)
		vsnprintf(err, cap, fmt, ap);
	va_end(ap);
}

void cap_free(struct cap *c)
{
	for (size_t i = 0; i < c->map.n; i++) {
		free((char *)c->mods[i].path);
		free((uint8_t *)c->mods[i].build_id);
	}
	free(c->mods);
	free(c->bytes);
	memset(c, 0, sizeof(*c));
}

static int cap_regs(pid_t pid, struct cap *c)
{
#if defined(__x86_64__)
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, pid, NULL, &r) != 0)
		return -1;
	/* DWARF's order: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip. */
	const unsigned long long v[17] = {
		r.rax, r.rdx, r.rcx, r.rbx, r.rsi, r.rdi, r.rbp, r.rsp, r.r8,
		r.r9,  r.r10, r.r11, r.r12, r.r13, r.r14, r.r15, r.rip};
	for (int i = 0; i < 17; i++)
		c->st.regs[i] = v[i];
	c->st.regs_known = (1ull << 17) - 1;
	c->st.arch = DLT_ARCH_X86_64;
	c->st.sp = r.rsp;
	return 0;
#elif defined(__aarch64__)
	struct user_pt_regs r;
	struct iovec io = {&r, sizeof(r)};
	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io) != 0)
		return -1;
	for (int i = 0; i < 31; i++)
		c->st.regs[i] = r.regs[i];
	c->st.regs[31] = r.sp;
	c->st.regs[32] = r.pc;
	c->st.regs_known = (1ull << 33) - 1;
	c->st.arch = DLT_ARCH_AARCH64;
	c->st.sp = r.sp;
	return 0;
#else
	(void)pid;
	(void)c;
	errno = ENOSYS;
	return -1;
#endif
}

/* The stack mapping and the executable file mappings, from /proc. */
static int cap_maps(pid_t pid, struct cap *c)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	char line[4096];
	size_t capm = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		struct dlt_maps_line m;
		if (dlt_maps_parse(line, &m) != 0)
			continue;
		if (c->st.sp >= m.lo && c->st.sp < m.hi) {
			c->st.stack_lo = m.lo;
			c->st.stack_hi = m.hi;
		}
		if (!m.exec || m.path[0] != '/')
			continue;
		if (c->map.n == capm) {
			capm = capm ? capm * 2 : 16;
			c->mods = realloc(c->mods, capm * sizeof(*c->mods));
		}
		struct dlt_umod *u = &c->mods[c->map.n++];
		memset(u, 0, sizeof(*u));
		u->lo = m.lo;
		u->hi = m.hi;
		u->off = m.off;
		u->path = strdup(m.path);
		struct dlt_elf e;
		if (dlt_elf_open(&e, m.path) == 0) {
			uint8_t bid[32];
			uint32_t n = dlt_elf_build_id(&e, bid, sizeof(bid));
			if (n > 24)
				n = 24; /* as a MODMAP keeps it */
			if (n) {
				uint8_t *b = malloc(n);
				memcpy(b, bid, n);
				u->build_id = b;
				u->build_id_len = n;
			}
			dlt_elf_close(&e);
		}
	}
	fclose(f);
	c->map.m = c->mods;
	return 0;
}

static int cap_stack(pid_t pid, struct cap *c)
{
	uint64_t len = CAP_STACK_MAX;
	if (c->st.stack_hi > c->st.sp && c->st.stack_hi - c->st.sp < len)
		len = c->st.stack_hi - c->st.sp;
	c->bytes = malloc(CAP_STACK_MAX);
	/* Shorter and shorter where the stack's end is not where maps
	 * said (a guard page, a thread's stack in another mapping). */
	for (; len >= 64; len /= 2) {
		struct iovec l = {c->bytes, len};
		struct iovec r = {(void *)(uintptr_t)c->st.sp, len};
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len) {
			c->st.bytes = c->bytes;
			c->st.len = (uint32_t)len;
			return 0;
		}
	}
	return -1;
}

int cap_run(const char *const argv[], const char *const env[], struct cap *c,
	    char *err, size_t errcap)
{
	memset(c, 0, sizeof(*c));
	pid_t pid = fork();
	if (pid < 0) {
		cap_err(err, errcap, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	int st, rc = -1;
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		cap_err(err, errcap, "%s did not stop at its exec", argv[0]);
		goto out;
	}
	for (int sig = 0;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) != 0 ||
		    waitpid(pid, &st, 0) != pid) {
			cap_err(err, errcap, "ptrace: %s", strerror(errno));
			goto out;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			cap_err(err, errcap, "%s ended without a crash",
				argv[0]);
			pid = 0;
			goto out;
		}
		sig = WSTOPSIG(st);
		if (sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT ||
		    sig == SIGFPE)
			break;
		if (sig == SIGTRAP)
			sig = 0;
	}
	c->sig = WSTOPSIG(st);
	if (cap_regs(pid, c) != 0 || cap_maps(pid, c) != 0 ||
	    cap_stack(pid, c) != 0) {
		cap_err(err, errcap, "reading the stopped %s: %s", argv[0],
			strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	if (rc != 0)
		cap_free(c);
	return rc;
}

/* The file: "DLTCAP1\n", then the fields in this machine's byte order. */
static const char cap_magic[8] = "DLTCAP1\n";

static int cap_w(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

static int cap_r(FILE *f, void *p, size_t n)
{
	return fread(p, 1, n, f) == n ? 0 : -1;
}

int cap_save(const struct cap *c, const char *path)
{
	FILE *f = fopen(path, "wb");
	if (f == NULL)
		return -1;
	int bad = cap_w(f, cap_magic, 8) | cap_w(f, &c->sig, sizeof(c->sig));
	const struct dlt_ustack *s = &c->st;
	bad |= cap_w(f, &s->arch, sizeof(s->arch)) |
	       cap_w(f, &s->regs_known, sizeof(s->regs_known)) |
	       cap_w(f, s->regs, sizeof(s->regs)) |
	       cap_w(f, &s->sp, sizeof(s->sp)) |
	       cap_w(f, &s->stack_lo, sizeof(s->stack_lo)) |
	       cap_w(f, &s->stack_hi, sizeof(s->stack_hi)) |
	       cap_w(f, &s->len, sizeof(s->len)) | cap_w(f, s->bytes, s->len);
	uint32_t n = (uint32_t)c->map.n;
	bad |= cap_w(f, &n, sizeof(n));
	for (uint32_t i = 0; i < n; i++) {
		const struct dlt_umod *m = &c->map.m[i];
		uint32_t pl = (uint32_t)strlen(m->path);
		bad |= cap_w(f, &m->lo, 8) | cap_w(f, &m->hi, 8) |
		       cap_w(f, &m->off, 8) | cap_w(f, &pl, 4) |
		       cap_w(f, m->path, pl) | cap_w(f, &m->build_id_len, 4) |
		       cap_w(f, m->build_id, m->build_id_len);
	}
	if (fclose(f) != 0)
		bad = -1;
	return bad ? -1 : 0;
}

int cap_load(struct cap *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return -1;
	char magic[8];
	struct dlt_ustack *s = &c->st;
	uint32_t n = 0;
	int bad = cap_r(f, magic, 8) || memcmp(magic, cap_magic, 8) != 0 ||
		  cap_r(f, &c->sig, sizeof(c->sig)) ||
		  cap_r(f, &s->arch, sizeof(s->arch)) ||
		  cap_r(f, &s->regs_known, sizeof(s->regs_known)) ||
		  cap_r(f, s->regs, sizeof(s->regs)) ||
		  cap_r(f, &s->sp, sizeof(s->sp)) ||
		  cap_r(f, &s->stack_lo, sizeof(s->stack_lo)) ||
		  cap_r(f, &s->stack_hi, sizeof(s->stack_hi)) ||
		  cap_r(f, &s->len, sizeof(s->len)) || s->len > (1u << 26);
	if (!bad) {
		c->bytes = malloc(s->len ? s->len : 1);
		bad = cap_r(f, c->bytes, s->len) || cap_r(f, &n, 4) ||
		      n > 100000;
		s->bytes = c->bytes;
	}
	if (!bad)
		c->mods = calloc(n ? n : 1, sizeof(*c->mods));
	for (uint32_t i = 0; !bad && i < n; i++) {
		struct dlt_umod *m = &c->mods[i];
		uint32_t pl = 0, bl = 0;
		bad = cap_r(f, &m->lo, 8) || cap_r(f, &m->hi, 8) ||
		      cap_r(f, &m->off, 8) || cap_r(f, &pl, 4) || pl > 4096;
		if (bad)
			break;
		char *p = calloc(1, pl + 1);
		m->path = p;
		c->map.n = i + 1;
		bad = cap_r(f, p, pl) || cap_r(f, &bl, 4) || bl > 32;
		if (!bad && bl) {
			uint8_t *b = malloc(bl);
			m->build_id = b;
			m->build_id_len = bl;
			bad = cap_r(f, b, bl);
		}
	}
	c->map.m = c->mods;
	fclose(f);
	if (bad) {
		cap_free(c);
		return -1;
	}
	return 0;
}
