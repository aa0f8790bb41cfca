/* The helpers in common/ that every side shares: the /proc stat parser,
 * the read loops, the ELF reader's look-up in a mapped object; and the
 * shape of the LD_AUDIT module (issue 31). */
#define _GNU_SOURCE
#include "elfread.h"
#include "hash.h"
#include "io.h"
#include "procstat.h"
#include "strbuf.h"
#include "testutil.h"

#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A command name with spaces and ')' in it: only the last ')' ends it. */
static void test_procstat_parse(void)
{
	const char *line = "4242 (a) b) c) S 17 4242 4242 0 -1 4194560 1 2 3 4 "
			   "5 6 7 8 20 0 9 0 123456789 1000 200 18446744073709"
			   "551615\n";
	struct dlt_procstat st;
	CU_ASSERT_EQUAL_FATAL(dlt_procstat_parse(line, &st), 0);
	CU_ASSERT_EQUAL(st.state, 'S');
	CU_ASSERT_EQUAL(st.ppid, 17);
	CU_ASSERT_EQUAL(st.num_threads, 9);
	CU_ASSERT_EQUAL(st.starttime, 123456789u);

	/* Cut before field 22: what was read is kept, the call fails. */
	CU_ASSERT_EQUAL(dlt_procstat_parse("1 (x) Z 3 4 5", &st), -1);
	CU_ASSERT_EQUAL(st.state, 'Z');
	CU_ASSERT_EQUAL(st.ppid, 3);
	CU_ASSERT_EQUAL(dlt_procstat_parse("no paren", &st), -1);
	CU_ASSERT_EQUAL(st.state, 0);
	CU_ASSERT_EQUAL(dlt_procstat_parse("", &st), -1);
}

/* The parser against the kernel's own file: this process and a child
 * whose state and parent are known. */
static void test_procstat_read_live(void)
{
	struct dlt_procstat st;
	CU_ASSERT_EQUAL_FATAL(dlt_procstat_read("/proc/self/stat", &st), 0);
	CU_ASSERT_EQUAL(st.ppid, (int)getppid());
	CU_ASSERT(st.starttime > 0);
	/* qemu-user writes the program's own /proc/self/stat itself: its
	 * state and thread count read 0 there (Debian 12's qemu 7.2). */
	const char *emu = getenv("DLTRACE_TEST_EMULATED");
	if (emu && *emu) {
		tu_skip_part("state and thread count of /proc/self/stat: "
			     "%s does not emulate them",
			     emu);
	} else {
		CU_ASSERT_EQUAL(st.state, 'R');
		CU_ASSERT_EQUAL(st.num_threads, 1);
	}

	pid_t c = fork();
	CU_ASSERT_FATAL(c >= 0);
	if (c == 0)
		_exit(0);
	/* A zombie until reaped: waitid with WNOWAIT waits for the exit
	 * without reaping. */
	siginfo_t si;
	CU_ASSERT_FATAL(waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT) == 0);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)c);
	CU_ASSERT_EQUAL(dlt_procstat_read(path, &st), 0);
	CU_ASSERT_EQUAL(st.state, 'Z');
	CU_ASSERT_EQUAL(st.ppid, (int)getpid());
	CU_ASSERT_EQUAL(waitpid(c, NULL, 0), c);
	CU_ASSERT_EQUAL(dlt_procstat_read(path, &st), -1);
	CU_ASSERT_EQUAL(st.state, 0);
}

static void test_io_reads(void)
{
	char *dir = tu_tmpdir("common-io");
	char *path = tu_strfmt("%s/f", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(write(fd, "0123456789", 10), 10);

	char buf[16] = {0};
	CU_ASSERT_EQUAL(dlt_io_pread_all(fd, buf, 4, 3), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "3456", 4), 0);
	/* Past the end: -1, and errno 0 says the file ended. */
	errno = EBADF;
	CU_ASSERT_EQUAL(dlt_io_pread_all(fd, buf, 8, 5), -1);
	CU_ASSERT_EQUAL(errno, 0);
	int err = -1;
	CU_ASSERT_EQUAL(dlt_io_pread_upto(fd, buf, sizeof(buf), 6, &err), 4);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_EQUAL(dlt_io_pread_upto(-1, buf, 4, 0, &err), 0);
	CU_ASSERT_EQUAL(err, EBADF);
	close(fd);

	/* Whole small files, terminated, cut at the buffer. */
	char small[6];
	CU_ASSERT_EQUAL(dlt_io_read_small(path, small, sizeof(small)), 5);
	CU_ASSERT_STRING_EQUAL(small, "01234");
	CU_ASSERT_EQUAL(dlt_io_read_small("/nonexistent/x", small, 6), 0);
	CU_ASSERT_STRING_EQUAL(small, "");
	free(path);
	free(dir);
}

/* The ELF hashes against the published algorithms: DT_GNU_HASH of "" is
 * its seed, 5381; "printf" worked out by hand from each definition. */
static void test_elf_hashes(void)
{
	CU_ASSERT_EQUAL(dlt_gnu_hash(""), 5381u);
	CU_ASSERT_EQUAL(dlt_gnu_hash("printf"), 0x156b2bb8u);
	CU_ASSERT_EQUAL(dlt_sysv_hash("printf"), 0x077905a6u);
	/* High bytes are unsigned in both. */
	CU_ASSERT_EQUAL(dlt_gnu_hash("\xff"), 5381u * 33 + 255);
}

/* The builder against snprintf's output, and what it does when a string
 * does not fit. */
static void test_strbuf(void)
{
	char buf[64], want[64];
	struct dlt_strbuf b;
	dlt_sb_init(&b, buf, sizeof(buf));
	dlt_sb_str(&b, "DLTRACE_PARENT=");
	dlt_sb_char(&b, 'e');
	dlt_sb_char(&b, ':');
	dlt_sb_int(&b, -42);
	dlt_sb_char(&b, ':');
	dlt_sb_uint(&b, 0xfedcba9876543210ull, 16);
	dlt_sb_char(&b, ':');
	dlt_sb_uint(&b, 0, 10);
	dlt_sb_int(&b, INT64_MIN);
	CU_ASSERT_EQUAL(dlt_sb_done(&b), 0);
	snprintf(want, sizeof(want), "DLTRACE_PARENT=e:%d:%llx:%u%lld", -42,
		 0xfedcba9876543210ull, 0u, (long long)INT64_MIN);
	CU_ASSERT_STRING_EQUAL(buf, want);
	CU_ASSERT_EQUAL(b.len, strlen(want));

	/* Exactly full (7 characters and the NUL), then one more. */
	char small[8];
	dlt_sb_init(&b, small, sizeof(small));
	dlt_sb_str(&b, "1234567");
	CU_ASSERT_EQUAL(dlt_sb_done(&b), 0);
	CU_ASSERT_STRING_EQUAL(small, "1234567");
	dlt_sb_char(&b, '8');
	CU_ASSERT_EQUAL(dlt_sb_done(&b), -1);
	CU_ASSERT_STRING_EQUAL(small, "1234567");
	/* Once cut, nothing more is appended. */
	dlt_sb_init(&b, small, sizeof(small));
	dlt_sb_str(&b, "too long for it");
	dlt_sb_str(&b, "x");
	CU_ASSERT_EQUAL(dlt_sb_done(&b), -1);
	CU_ASSERT_STRING_EQUAL(small, "");
	dlt_sb_init(&b, small, 0);
	CU_ASSERT_EQUAL(dlt_sb_done(&b), -1);
}

/* The C library's object as the loader mapped it. */
struct libc_find {
	uintptr_t base;
	const void *dyn;
	char name[4096];
};

static int find_libc(struct dl_phdr_info *i, size_t size, void *data)
{
	(void)size;
	struct libc_find *f = data;
	if (i->dlpi_name == NULL || strstr(i->dlpi_name, "/libc.so.") == NULL)
		return 0;
	for (int k = 0; k < i->dlpi_phnum; k++)
		if (i->dlpi_phdr[k].p_type == PT_DYNAMIC)
			f->dyn = (const void *)(i->dlpi_addr +
						i->dlpi_phdr[k].p_vaddr);
	f->base = i->dlpi_addr;
	snprintf(f->name, sizeof(f->name), "%s", i->dlpi_name);
	return 1;
}

/* The audit module finds the preload copy's dlt_rendezvous through the
 * object's own GNU hash table: here the C library's functions, at the
 * addresses the loader bound, and a name it does not define. */
static void test_elf_mapped_symbol(void)
{
	static struct libc_find f;
	dl_iterate_phdr(find_libc, &f);
	TU_CHECK_FATAL(f.base != 0 && f.dyn != NULL, "no C library mapped");
	/* The C library's own definitions: before glibc 2.34 libpthread,
	 * earlier in the program's scope, defines write too. */
	void *libc = dlopen(f.name, RTLD_NOW | RTLD_NOLOAD);
	TU_CHECK_FATAL(libc != NULL, "%s: not loaded", f.name);
	/* Functions: no copy relocation, no IFUNC. */
	static const char *const names[] = {"write", "getpid", "qsort"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t v = 0;
		void *want = dlsym(libc, names[i]);
		TU_CHECK(dlt_elf_mapped_symbol(f.base, f.dyn, names[i], &v,
					       NULL) == 0 &&
				 (void *)(f.base + v) == want,
			 "%s: %p, the loader's %p", names[i],
			 (void *)(f.base + v), want);
	}
	/* An object's size, as the symbol table gives it. */
	uint64_t v, size = 0;
	TU_CHECK(dlt_elf_mapped_symbol(f.base, f.dyn, "environ", &v, &size) ==
				 0 &&
			 size == sizeof(char **),
		 "environ: %llu bytes", (unsigned long long)size);
	CU_ASSERT_EQUAL(dlt_elf_mapped_symbol(f.base, f.dyn,
					      "dlt_no_such_thing", &v, NULL),
			-1);
	CU_ASSERT_EQUAL(dlt_elf_mapped_symbol(f.base, NULL, "write", &v, NULL),
			-1);
	dlclose(libc);
}

static int audit_dyn(void *ctx, int64_t tag, uint64_t val)
{
	(void)val;
	int *needed = ctx;
	if (tag == DT_NEEDED)
		(*needed)++;
	return 0;
}

/* libdltrace-audit.so brings nothing into the audit namespace: no
 * DT_NEEDED (the loader would map a C library), no thread-local storage,
 * no interpreter; it exports the auditing interface. */
static void test_audit_module_shape(void)
{
	struct dlt_elf e;
	TU_CHECK_FATAL(dlt_elf_open(&e, DLT_TEST_AUDIT) == 0, "cannot read %s",
		       DLT_TEST_AUDIT);
	int needed = 0;
	TU_CHECK(dlt_elf_each_dyn(&e, audit_dyn, &needed) == 0 && needed == 0,
		 "%s: %d DT_NEEDED entries", DLT_TEST_AUDIT, needed);
	for (int i = 0; i < e.nph; i++)
		TU_CHECK(e.ph[i].p_type != PT_TLS &&
				 e.ph[i].p_type != PT_INTERP,
			 "%s: program header %d of type %u", DLT_TEST_AUDIT, i,
			 (unsigned)e.ph[i].p_type);
	static const char *const la[] = {"la_version", "la_objsearch",
					 "la_objopen", "la_objclose",
					 "la_activity"};
	for (size_t i = 0; i < sizeof(la) / sizeof(la[0]); i++)
		TU_CHECK(dlt_elf_defines(&e, la[i]) == 1, "%s: no %s",
			 DLT_TEST_AUDIT, la[i]);
	CU_ASSERT_EQUAL(dlt_elf_defines(&e, "memcpy"), 0);
	CU_ASSERT_EQUAL(dlt_elf_defines(&e, "dlt_rendezvous"), 0);
	dlt_elf_close(&e);
}

static const struct tu_test common_tests[] = {
	{"procstat: fields counted from the last ')'", test_procstat_parse},
	{"procstat: this process and a zombie child", test_procstat_read_live},
	{"io: pread to the end, short files, small files", test_io_reads},
	{"hash: the ELF symbol hashes", test_elf_hashes},
	{"strbuf: as snprintf formats it, and cut", test_strbuf},
	{"elfread: a mapped object's symbol by its GNU hash table",
	 test_elf_mapped_symbol},
	{"the audit module: no DT_NEEDED, no TLS, the auditing interface",
	 test_audit_module_shape},
	{NULL, NULL}};

static const struct tu_suite suites[] = {{"common", common_tests, NULL},
					 {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
	return tu_main(argc, argv, suites);
}
