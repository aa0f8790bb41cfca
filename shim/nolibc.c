/* The part of the C library that the LD_AUDIT module uses, made of system
 * calls (shim/nolibc_sys.h), for libdltrace-audit.so alone.
 *
 * Why: an LD_AUDIT module that links the C library makes the loader map,
 * relocate and initialise a second C library in the audit namespace of
 * every traced process, 29 page faults of a short process's 106 added
 * (docs/performance.md, "Issue 31").  The module's code (shim/audit.c,
 * the writer, the ELF reader) is compiled as it is against the C
 * library's headers and linked against these definitions instead: hidden,
 * so that nothing outside the module sees them, and no DT_NEEDED at all.
 *
 * What they keep of the C library's behaviour is what the module relies
 * on: errno (the module's own, never the program's), the environment and
 * the auxiliary vector as the process started (saved by the constructor,
 * which the loader calls with argc, argv and envp before la_version), the
 * mask of asynchronous signals without the two glibc keeps for itself,
 * the untranslated strerror texts, realpath.  No thread-local storage
 * (DLT_NO_TLS): the loader calls the module with its lock held. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/limits.h> /* PATH_MAX: clang's freestanding limits.h stops short of the C library's */
#include <link.h>
#include <locale.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "elfread.h"
#include "hot.h"
#include "nolibc_sys.h"
#include "state.h"

/* struct stat's functions get their names through asm labels: glibc
 * before 2.33 defines stat, lstat and fstat in its headers as inline
 * calls of __xstat, __lxstat and __fxstat, which this file defines too. */
struct stat;
int dlt_nolibc_stat(const char *path, struct stat *st) __asm__("stat");
int dlt_nolibc_lstat(const char *path, struct stat *st) __asm__("lstat");
int dlt_nolibc_fstat(int fd, struct stat *st) __asm__("fstat");
int __xstat(int ver, const char *path, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __fxstat(int ver, int fd, struct stat *st);

DLT_HOT static int dlt_nolibc_errno;
DLT_HOT static char **dlt_nolibc_env;
DLT_HOT static char **dlt_nolibc_argv;
DLT_HOT static int dlt_nolibc_argc;
DLT_HOT static const ElfW(auxv_t) * dlt_nolibc_auxv;
/* A Bloom filter of the environment's names (1,024 bits, two per name):
 * most of the sixty-odd variables the configuration, the rank and the
 * loader's searches ask for are not set, and each such getenv walked every
 * variable (10 us of a short process's start with 42 of them, measured
 * with perf; issue 31).  The module's environment is the initial one,
 * never changed, so the filter is made once. */
DLT_HOT static uint64_t dlt_nolibc_env_bloom[16];

/* FNV-1a over a name of n bytes; two bit positions from it. */
static uint64_t dlt_nolibc_name_hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int dlt_nolibc_bloom_has(uint64_t h)
{
	unsigned a = (unsigned)(h & 1023), b = (unsigned)((h >> 20) & 1023);
	return (dlt_nolibc_env_bloom[a / 64] >> (a % 64) & 1) &&
	       (dlt_nolibc_env_bloom[b / 64] >> (b % 64) & 1);
}

/* The loader calls the module's constructors with the process's argc,
 * argv and envp (rtld's dlmopen of an audit module); the auxiliary vector
 * follows the environment on the initial stack. */
__attribute__((constructor)) static void dlt_nolibc_init(int argc, char **argv,
							 char **envp)
{
	dlt_nolibc_argc = argc;
	dlt_nolibc_argv = argv;
	dlt_nolibc_env = envp;
	if (envp) {
		char **e = envp;
		for (; *e; e++) {
			size_t n = 0;
			while ((*e)[n] && (*e)[n] != '=')
				n++;
			uint64_t h = dlt_nolibc_name_hash(*e, n);
			unsigned a = (unsigned)(h & 1023);
			unsigned b = (unsigned)((h >> 20) & 1023);
			dlt_nolibc_env_bloom[a / 64] |= 1ull << (a % 64);
			dlt_nolibc_env_bloom[b / 64] |= 1ull << (b % 64);
		}
		dlt_nolibc_auxv = (const ElfW(auxv_t) *)(e + 1);
	}
}

int *__errno_location(void)
{
	return &dlt_nolibc_errno;
}

/* The kernel's answer as the C library gives it: -1 and errno. */
static long dlt_nolibc_ret(long r)
{
	if (r < 0 && r > -4096) {
		dlt_nolibc_errno = (int)-r;
		return -1;
	}
	return r;
}

/* ---- memory and strings (the compiler may call the first four) ------- */

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	for (; n >= sizeof(uint64_t); n -= sizeof(uint64_t)) {
		uint64_t v;
		__builtin_memcpy(&v, s, sizeof(v));
		__builtin_memcpy(d, &v, sizeof(v));
		d += sizeof(v);
		s += sizeof(v);
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (d == s || n == 0)
		return dst;
	if (d < s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	uint64_t v = (unsigned char)c * 0x0101010101010101ull;
	for (; n >= sizeof(v); n -= sizeof(v), d += sizeof(v))
		__builtin_memcpy(d, &v, sizeof(v));
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

void *memchr(const void *p, int c, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		if (s[i] == (unsigned char)c)
			return (void *)(s + i);
	return NULL;
}

/* A word at a time once aligned (an aligned word never crosses into the
 * next page): the environment's and the paths' lengths are most of what a
 * short process's start-up spends in string functions. */
size_t strlen(const char *s)
{
	const char *p = s;
	for (; (uintptr_t)p % sizeof(uint64_t); p++)
		if (*p == '\0')
			return (size_t)(p - s);
	const uint64_t ones = 0x0101010101010101ull;
	for (;; p += sizeof(uint64_t)) {
		uint64_t v;
		__builtin_memcpy(&v, p, sizeof(v));
		if ((v - ones) & ~v & (ones << 7))
			break;
	}
	while (*p)
		p++;
	return (size_t)(p - s);
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n > 0; n--, a++, b++)
		if (*a != *b || *a == '\0')
			return (unsigned char)*a - (unsigned char)*b;
	return 0;
}

char *strcpy(char *restrict dst, const char *restrict src)
{
	memcpy(dst, src, strlen(src) + 1);
	return dst;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (*s == '\0')
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;
	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (*s == '\0')
			return (char *)last;
	}
}

size_t strspn(const char *s, const char *accept)
{
	size_t n = 0;
	while (s[n] && strchr(accept, s[n]))
		n++;
	return n;
}

size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;
	while (s[n] && !strchr(reject, s[n]))
		n++;
	return n;
}

char *strpbrk(const char *s, const char *accept)
{
	s += strcspn(s, accept);
	return *s ? (char *)s : NULL;
}

char *strstr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncmp(hay, needle, n) == 0)
			return (char *)hay;
	return n == 0 ? (char *)hay : NULL;
}

/* ---- numbers ---------------------------------------------------------- */

/* The digits at s in base (0: by prefix), as strtoull reads them: *neg
 * for a leading '-', ERANGE past max. */
static unsigned long long dlt_nolibc_strto(const char *s, char **end, int base,
					   unsigned long long max, int *neg)
{
	const char *p = s;
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	*neg = 0;
	if (*p == '-' || *p == '+')
		*neg = *p++ == '-';
	if ((base == 0 || base == 16) && p[0] == '0' &&
	    (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = *p == '0' ? 8 : 10;
	}
	unsigned long long n = 0;
	const char *first = p;
	int over = 0;
	for (;; p++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'z')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'Z')
			d = *p - 'A' + 10;
		else
			break;
		if (d >= base)
			break;
		if (n > (max - (unsigned)d) / (unsigned)base)
			over = 1;
		else
			n = n * (unsigned)base + (unsigned)d;
	}
	if (end)
		*end = (char *)(p == first ? s : p);
	if (over) {
		dlt_nolibc_errno = ERANGE;
		return max;
	}
	return n;
}

unsigned long long strtoull(const char *restrict s, char **restrict end,
			    int base)
{
	int neg;
	unsigned long long n = dlt_nolibc_strto(s, end, base, ULLONG_MAX, &neg);
	return neg ? -n : n;
}

unsigned long strtoul(const char *restrict s, char **restrict end, int base)
{
	return (unsigned long)strtoull(s, end, base);
}

long strtol(const char *restrict s, char **restrict end, int base)
{
	int neg;
	unsigned long long n = dlt_nolibc_strto(
		s, end, base, (unsigned long long)LONG_MAX + 1, &neg);
	if (!neg && n > (unsigned long long)LONG_MAX) {
		dlt_nolibc_errno = ERANGE;
		return LONG_MAX;
	}
	return neg ? (long)(0 - n) : (long)n;
}

/* ---- the environment and the auxiliary vector ------------------------ */

/* The kernel lays out the strings of a new image on its stack as argv's,
 * then the environment's, then the executable's name (AT_EXECFN): the
 * ranges /proc/self/cmdline and /proc/self/environ read.  Taken only where
 * the pointers say nothing moved them: the loader run as a command (no
 * AT_BASE) skips its own arguments, and one that removes variables (a
 * secure process) leaves a gap. */
int dlt_nolibc_start_blocks(struct dlt_proc_blocks *b)
{
	char **argv = dlt_nolibc_argv, **env = dlt_nolibc_env;
	const char *end = (const char *)getauxval(AT_EXECFN);
	if (dlt_nolibc_argc <= 0 || argv == NULL || env == NULL ||
	    end == NULL || getauxval(AT_BASE) == 0)
		return -1;
	const char *p = argv[0];
	for (int i = 0; i < dlt_nolibc_argc; i++) {
		if (argv[i] != p)
			return -1;
		p += strlen(p) + 1;
	}
	b->args = argv[0];
	b->args_len = (size_t)(p - argv[0]);
	b->env = p;
	for (char **e = env; *e; e++) {
		if (*e != p)
			return -1;
		p += strlen(p) + 1;
	}
	if (p != end)
		return -1;
	b->env_len = (size_t)(p - b->env);
	return 0;
}

char *getenv(const char *name)
{
	size_t n = strlen(name);
	if (!dlt_nolibc_bloom_has(dlt_nolibc_name_hash(name, n)))
		return NULL;
	for (char **e = dlt_nolibc_env; e && *e; e++)
		if ((*e)[0] == name[0] && strncmp(*e, name, n) == 0 &&
		    (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

unsigned long getauxval(unsigned long type)
{
	for (const ElfW(auxv_t) *a = dlt_nolibc_auxv; a && a->a_type != AT_NULL;
	     a++)
		if (a->a_type == type)
			return a->a_un.a_val;
	dlt_nolibc_errno = ENOENT;
	return 0;
}

long sysconf(int name)
{
	if (name == _SC_PAGESIZE) {
		unsigned long p = getauxval(AT_PAGESZ);
		return p ? (long)p : 4096;
	}
	dlt_nolibc_errno = EINVAL;
	return -1;
}

/* ---- files ------------------------------------------------------------ */

int open(const char *path, int flags, ...)
{
	unsigned mode = 0;
	if (flags & (O_CREAT | __O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, unsigned);
		va_end(ap);
	}
	return (int)dlt_nolibc_ret(
		dlt_sys4(SYS_openat, AT_FDCWD, path, flags, mode));
}

int close(int fd)
{
	return (int)dlt_nolibc_ret(dlt_sys1(SYS_close, fd));
}

ssize_t read(int fd, void *buf, size_t n)
{
	return dlt_nolibc_ret(dlt_sys3(SYS_read, fd, buf, n));
}

ssize_t write(int fd, const void *buf, size_t n)
{
	return dlt_nolibc_ret(dlt_sys3(SYS_write, fd, buf, n));
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	return dlt_nolibc_ret(dlt_sys3(SYS_writev, fd, iov, n));
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return dlt_nolibc_ret(dlt_sys4(SYS_pread64, fd, buf, n, off));
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return dlt_nolibc_ret(dlt_sys4(SYS_pwrite64, fd, buf, n, off));
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	/* The offset in two halves; on a 64-bit kernel the low one is all
	 * of it. */
	return dlt_nolibc_ret(dlt_sys5(SYS_pwritev, fd, iov, n, off, 0));
}

int ftruncate(int fd, off_t len)
{
	return (int)dlt_nolibc_ret(dlt_sys2(SYS_ftruncate, fd, len));
}

int dlt_nolibc_stat(const char *path, struct stat *st)
{
	return (int)dlt_nolibc_ret(
		dlt_sys4(SYS_newfstatat, AT_FDCWD, path, st, 0));
}

int dlt_nolibc_lstat(const char *path, struct stat *st)
{
	return (int)dlt_nolibc_ret(dlt_sys4(SYS_newfstatat, AT_FDCWD, path, st,
					    AT_SYMLINK_NOFOLLOW));
}

int dlt_nolibc_fstat(int fd, struct stat *st)
{
	return (int)dlt_nolibc_ret(dlt_sys2(SYS_fstat, fd, st));
}

int __xstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return dlt_nolibc_stat(path, st);
}

int __lxstat(int ver, const char *path, struct stat *st)
{
	(void)ver;
	return dlt_nolibc_lstat(path, st);
}

int __fxstat(int ver, int fd, struct stat *st)
{
	(void)ver;
	return dlt_nolibc_fstat(fd, st);
}

int mkdir(const char *path, mode_t mode)
{
	return (int)dlt_nolibc_ret(dlt_sys3(SYS_mkdirat, AT_FDCWD, path, mode));
}

int unlink(const char *path)
{
	return (int)dlt_nolibc_ret(dlt_sys3(SYS_unlinkat, AT_FDCWD, path, 0));
}

ssize_t readlink(const char *restrict path, char *restrict buf, size_t n)
{
	return dlt_nolibc_ret(dlt_sys4(SYS_readlinkat, AT_FDCWD, path, buf, n));
}

char *getcwd(char *buf, size_t n)
{
	if (buf == NULL) {
		dlt_nolibc_errno = EINVAL; /* no allocation here */
		return NULL;
	}
	return dlt_nolibc_ret(dlt_sys2(SYS_getcwd, buf, n)) < 0 ? NULL : buf;
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	return (int)dlt_nolibc_ret(dlt_sys3(SYS_fcntl, fd, cmd, arg));
}

int flock(int fd, int op)
{
	return (int)dlt_nolibc_ret(dlt_sys2(SYS_flock, fd, op));
}

/* The path of the file the name leads to, each component's link read
 * in turn, as the C library does.  Not read back from an O_PATH
 * descriptor's /proc/self/fd link: a process's first look into
 * /proc/self costs about 13 us here (its directory made), and two such
 * real paths took 35 us in a new process against 15 this way (issue 31).
 * out holds PATH_MAX bytes, as the C library's callers pass (cap bytes
 * for dlt_nolibc_realpath), and is the only buffer: the path resolved so far
 * grows from its start, what is left to resolve sits at its end, and a link's
 * target is read into the gap between them (a buffer of its own on the stack
 * was a page fault at start, the audit callbacks running deep in the loader's
 * stack). */
char *realpath(const char *restrict path, char *restrict out)
{
	return dlt_nolibc_realpath(path, out, PATH_MAX);
}

/* The last real paths made: each of their directories is known to be no
 * link.  The libraries of a process share most of their directories
 * (/usr, /usr/lib, ...), whose readlink was asked again for each (five
 * of a short process's eighteen, issue 31). */
#define DLT_REAL_SEEN 4
DLT_HOT static struct {
	char path[184];
	size_t len;
} dlt_nolibc_real_seen[DLT_REAL_SEEN];
DLT_HOT static unsigned dlt_nolibc_real_next;

static int dlt_nolibc_known_real(const char *p, size_t len)
{
	for (unsigned k = 0; k < DLT_REAL_SEEN; k++) {
		const char *s = dlt_nolibc_real_seen[k].path;
		if (len <= dlt_nolibc_real_seen[k].len &&
		    memcmp(p, s, len) == 0 && (s[len] == '/' || s[len] == '\0'))
			return 1;
	}
	return 0;
}

static void dlt_nolibc_real_remember(const char *p, size_t len)
{
	unsigned k = dlt_nolibc_real_next++ % DLT_REAL_SEEN;
	if (len >= sizeof(dlt_nolibc_real_seen[k].path))
		return;
	memcpy(dlt_nolibc_real_seen[k].path, p, len + 1);
	dlt_nolibc_real_seen[k].len = len;
}

char *dlt_nolibc_realpath(const char *path, char *out, size_t cap)
{
	if (path == NULL || out == NULL || path[0] == '\0') {
		dlt_nolibc_errno = path && out ? ENOENT : EINVAL;
		return NULL;
	}
	size_t pl = strlen(path);
	if (pl + 2 >= cap) {
		dlt_nolibc_errno = ENAMETOOLONG;
		return NULL;
	}
	/* rest: out[at, cap - 1), ending in a NUL at out[cap - 1]. */
	size_t at = cap - 1 - pl;
	memmove(out + at, path, pl);
	out[cap - 1] = '\0';
	size_t len;
	if (path[0] == '/') {
		out[0] = '/';
		len = 1;
	} else {
		/* The working directory, then the name after it. */
		char *cwd = getcwd(out, at);
		if (cwd == NULL)
			return NULL;
		len = strlen(out);
	}
	int links = 0;
	while (out[at] != '\0') {
		while (out[at] == '/')
			at++;
		size_t cl = 0;
		while (out[at + cl] != '\0' && out[at + cl] != '/')
			cl++;
		size_t c = at;
		at += cl;
		if (cl == 0 || (cl == 1 && out[c] == '.'))
			continue;
		if (cl == 2 && out[c] == '.' && out[c + 1] == '.') {
			while (len > 1 && out[len - 1] != '/')
				len--;
			if (len > 1)
				len--;
			continue;
		}
		size_t before = len;
		size_t sep = out[len - 1] != '/';
		if (len + sep + cl + 2 > c) {
			dlt_nolibc_errno = ENAMETOOLONG;
			return NULL;
		}
		if (sep)
			out[len++] = '/';
		memmove(out + len, out + c, cl);
		len += cl;
		out[len] = '\0';
		if (dlt_nolibc_known_real(out, len))
			continue;
		/* The target into the gap after the NUL. */
		size_t gap = at - (len + 1);
		ssize_t tl = readlink(out, out + len + 1, gap);
		if (tl < 0) {
			if (dlt_nolibc_errno == EINVAL)
				continue; /* not a link */
			return NULL;
		}
		/* A target that filled the gap may have been cut. */
		if ((size_t)tl >= gap || ++links > 40) {
			dlt_nolibc_errno =
				(size_t)tl >= gap ? ENAMETOOLONG : ELOOP;
			return NULL;
		}
		/* The target, then a slash, in front of what is left: it
		 * ends where the gap did, so it moves right by the room. */
		if (at < len + 1 + (size_t)tl + 1) {
			dlt_nolibc_errno = ENAMETOOLONG;
			return NULL;
		}
		at -= (size_t)tl + 1;
		out[at + (size_t)tl] = '/';
		memmove(out + at, out + len + 1, (size_t)tl);
		len = out[at] == '/' ? 1 : before;
		if (len == 1)
			out[0] = '/';
	}
	out[len] = '\0';
	if (!dlt_nolibc_known_real(out, len))
		dlt_nolibc_real_remember(out, len);
	return out;
}

/* ---- memory ----------------------------------------------------------- */

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long r = dlt_sys6(SYS_mmap, (long)addr, (long)len, prot, flags, fd,
			  (long)off);
	if (r < 0 && r > -4096) {
		dlt_nolibc_errno = (int)-r;
		return MAP_FAILED;
	}
	return (void *)r;
}

int munmap(void *addr, size_t len)
{
	return (int)dlt_nolibc_ret(dlt_sys2(SYS_munmap, addr, len));
}

int madvise(void *addr, size_t len, int advice)
{
	return (int)dlt_nolibc_ret(dlt_sys3(SYS_madvise, addr, len, advice));
}

int mincore(void *addr, size_t len, unsigned char *vec)
{
	return (int)dlt_nolibc_ret(dlt_sys3(SYS_mincore, addr, len, vec));
}

/* ---- the process ------------------------------------------------------ */

pid_t getpid(void)
{
	return (pid_t)dlt_sys0(SYS_getpid);
}

pid_t getppid(void)
{
	return (pid_t)dlt_sys0(SYS_getppid);
}

int sched_yield(void)
{
	return (int)dlt_nolibc_ret(dlt_sys0(SYS_sched_yield));
}

long syscall(long n, ...)
{
	va_list ap;
	va_start(ap, n);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
	long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	return dlt_nolibc_ret(dlt_sys6(n, a, b, c, d, e, f));
}

ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
	return dlt_nolibc_ret(dlt_sys3(SYS_getrandom, buf, n, flags));
}

int getrlimit(__rlimit_resource_t res, struct rlimit *rl)
{
	return (int)dlt_nolibc_ret(dlt_sys4(SYS_prlimit64, 0, res, 0, rl));
}

int uname(struct utsname *u)
{
	return (int)dlt_nolibc_ret(dlt_sys1(SYS_uname, u));
}

int gethostname(char *name, size_t n)
{
	struct utsname u;
	if (uname(&u) != 0)
		return -1;
	size_t l = strlen(u.nodename);
	if (l >= n) {
		dlt_nolibc_errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(name, u.nodename, l + 1);
	return 0;
}

/* The kernel's own clock_gettime in the vDSO, as the C library calls it:
 * 24 ns where the system call costs 350 on a KVM guest, and a traced
 * process's start takes a dozen timestamps in the module.  Used only when
 * the vDSO is linked at address 0 (every kernel since 3.16 or so): its
 * dynamic section's addresses are then offsets from where it is mapped,
 * which is what dlt_elf_mapped_symbol reads. */
#if defined(__x86_64__)
#define DLT_NOLIBC_VDSO_CLOCK "__vdso_clock_gettime"
#else
#define DLT_NOLIBC_VDSO_CLOCK "__kernel_clock_gettime"
#endif
typedef int (*dlt_nolibc_clock_fn)(clockid_t, struct timespec *);
DLT_HOT static dlt_nolibc_clock_fn dlt_nolibc_vclock;
DLT_HOT static int dlt_nolibc_vclock_known;

static void dlt_nolibc_find_vclock(void)
{
	dlt_nolibc_vclock_known = 1;
	uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (vdso == 0)
		return;
	const ElfW(Ehdr) *eh = (const void *)vdso;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phnum > 16)
		return;
	const ElfW(Phdr) *ph = (const void *)(vdso + eh->e_phoff);
	const void *dyn = NULL;
	int linked_at_0 = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
			linked_at_0 = ph[i].p_vaddr == 0;
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(vdso + ph[i].p_vaddr);
	}
	uint64_t off;
	if (linked_at_0 && dyn &&
	    dlt_elf_mapped_symbol(vdso, dyn, DLT_NOLIBC_VDSO_CLOCK, &off,
				  NULL) == 0)
		dlt_nolibc_vclock = (dlt_nolibc_clock_fn)(vdso + off);
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (!dlt_nolibc_vclock_known)
		dlt_nolibc_find_vclock();
	if (dlt_nolibc_vclock)
		return dlt_nolibc_vclock(clk, ts);
	return (int)dlt_nolibc_ret(dlt_sys2(SYS_clock_gettime, clk, ts));
}

/* ---- signals ---------------------------------------------------------- */

int sigemptyset(sigset_t *s)
{
	memset(s, 0, sizeof(*s));
	return 0;
}

int sigfillset(sigset_t *s)
{
	memset(s, 0xff, sizeof(*s));
	return 0;
}

int sigaddset(sigset_t *s, int sig)
{
	unsigned long *w = (unsigned long *)s;
	size_t bits = 8 * sizeof(unsigned long);
	w[(unsigned)(sig - 1) / bits] |= 1ul << ((unsigned)(sig - 1) % bits);
	return 0;
}

int sigdelset(sigset_t *s, int sig)
{
	unsigned long *w = (unsigned long *)s;
	size_t bits = 8 * sizeof(unsigned long);
	w[(unsigned)(sig - 1) / bits] &= ~(1ul << ((unsigned)(sig - 1) % bits));
	return 0;
}

/* The two signals glibc keeps for itself (thread cancellation, set*id
 * across threads) are never blocked, as its pthread_sigmask does. */
int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;
	if (set && how != SIG_UNBLOCK) {
		copy = *set;
		sigdelset(&copy, 32);
		sigdelset(&copy, 33);
		set = &copy;
	}
	long r = dlt_sys4(SYS_rt_sigprocmask, how, set, old, 8);
	return r < 0 ? (int)-r : 0;
}

/* ---- errors ----------------------------------------------------------- */

/* The C library's texts, untranslated, for the errors making, growing and
 * cutting a trace can meet ("dltrace: tracing turned off: ..."). */
static const char *dlt_nolibc_errtext(int err)
{
	switch (err) {
	case EPERM:
		return "Operation not permitted";
	case ENOENT:
		return "No such file or directory";
	case EINTR:
		return "Interrupted system call";
	case EIO:
		return "Input/output error";
	case ENXIO:
		return "No such device or address";
	case EBADF:
		return "Bad file descriptor";
	case EAGAIN:
		return "Resource temporarily unavailable";
	case ENOMEM:
		return "Cannot allocate memory";
	case EACCES:
		return "Permission denied";
	case EFAULT:
		return "Bad address";
	case EBUSY:
		return "Device or resource busy";
	case EEXIST:
		return "File exists";
	case EXDEV:
		return "Invalid cross-device link";
	case ENODEV:
		return "No such device";
	case ENOTDIR:
		return "Not a directory";
	case EISDIR:
		return "Is a directory";
	case EINVAL:
		return "Invalid argument";
	case ENFILE:
		return "Too many open files in system";
	case EMFILE:
		return "Too many open files";
	case ETXTBSY:
		return "Text file busy";
	case EFBIG:
		return "File too large";
	case ENOSPC:
		return "No space left on device";
	case EROFS:
		return "Read-only file system";
	case EMLINK:
		return "Too many links";
	case ENAMETOOLONG:
		return "File name too long";
	case ENOSYS:
		return "Function not implemented";
	case ELOOP:
		return "Too many levels of symbolic links";
	case EOPNOTSUPP:
		return "Operation not supported";
	case ESTALE:
		return "Stale file handle";
	case EDQUOT:
		return "Disk quota exceeded";
	}
	return NULL;
}

locale_t newlocale(int mask, const char *name, locale_t base)
{
	(void)mask;
	(void)name;
	(void)base;
	return (locale_t)&dlt_nolibc_errno; /* any: only C texts here */
}

char *strerror_l(int err, locale_t loc)
{
	(void)loc;
	const char *t = dlt_nolibc_errtext(err);
	if (t)
		return (char *)t;
	/* "Unknown error N", as the C library says it. */
	static char unknown[32];
	char digits[12];
	int nd = 0;
	unsigned v = err < 0 ? (unsigned)-err : (unsigned)err;
	for (; nd == 0 || v; v /= 10)
		digits[nd++] = (char)('0' + v % 10);
	size_t l = 0;
	memcpy(unknown, "Unknown error ", 14);
	l = 14;
	if (err < 0)
		unknown[l++] = '-';
	while (nd)
		unknown[l++] = digits[--nd];
	unknown[l] = '\0';
	return unknown;
}
