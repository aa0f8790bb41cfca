/* System calls without a C library, for the LD_AUDIT module
 * (libdltrace-audit.so, shim/nolibc.c): one inline instruction per
 * architecture, the kernel's return value as it is (-errno on failure).
 * The ports are the two architectures the shim has (shim/dl_*.S). */
#ifndef DLTRACE_NOLIBC_SYS_H
#define DLTRACE_NOLIBC_SYS_H

#if defined(__x86_64__)
static inline long dlt_sys6(long n, long a, long b, long c, long d, long e,
			    long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static inline long dlt_sys6(long n, long a, long b, long c, long d, long e,
			    long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory", "cc");
	return x0;
}
#else
#error "dltrace: no system call entry for this architecture (x86_64, aarch64)"
#endif

#define dlt_sys0(n) dlt_sys6((n), 0, 0, 0, 0, 0, 0)
#define dlt_sys1(n, a) dlt_sys6((n), (long)(a), 0, 0, 0, 0, 0)
#define dlt_sys2(n, a, b) dlt_sys6((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define dlt_sys3(n, a, b, c) \
	dlt_sys6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define dlt_sys4(n, a, b, c, d) \
	dlt_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define dlt_sys5(n, a, b, c, d, e) \
	dlt_sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

#endif
