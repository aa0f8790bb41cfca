/* The memory cgroup's evidence (memcg.h).  The kernel's files are small
 * text files of "key value" lines, except /proc/vmstat (about 5 KiB),
 * which is read a window at a time so that the shim's stack holds 1 KiB
 * of it, not all. */
#include "memcg.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

const struct dlt_memcg_files dlt_memcg_system = {
	"/proc/self/cgroup", "/sys/fs/cgroup", "/proc/vmstat"};

/* Digits at s, up to a non-digit; DLT_MEMCG_UNKNOWN when there are none.
 * Not strtoull: the preload copy keeps to a short list of libc calls. */
static uint64_t dlt_memcg_num(const char *s)
{
	uint64_t v = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9') {
		uint64_t d = (uint64_t)(*p - '0');
		if (v > (UINT64_MAX - 2 - d) / 10)
			return DLT_MEMCG_UNKNOWN;
		v = v * 10 + d;
		p++;
	}
	return p == s ? DLT_MEMCG_UNKNOWN : v;
}

uint32_t dlt_memcg_parse_cgroup(const char *text, char *path, size_t cap)
{
	uint32_t found = 0;
	path[0] = '\0';
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		/* "ID:CONTROLLERS:PATH"; the path may hold ':'. */
		const char *c1 = memchr(l, ':', len);
		const char *c2 =
			c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - l))
			   : NULL;
		if (c2) {
			size_t clen = (size_t)(c2 - c1 - 1);
			uint32_t v = 0;
			/* memory, or memory among others: "cpu,memory". */
			for (const char *s = c1 + 1; s < c2;) {
				const char *e =
					memchr(s, ',', (size_t)(c2 - s));
				if (e == NULL)
					e = c2;
				if ((size_t)(e - s) == 6 &&
				    memcmp(s, "memory", 6) == 0)
					v = 1;
				s = e + 1;
			}
			if (v == 0 && clen == 0 && c1 - l == 1 && l[0] == '0')
				v = 2;
			if (v && (found == 0 || v == 1)) {
				size_t plen = len - (size_t)(c2 + 1 - l);
				if (plen >= cap)
					plen = cap - 1;
				memcpy(path, c2 + 1, plen);
				path[plen] = '\0';
				found = v;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return found;
}

uint64_t dlt_memcg_parse_key(const char *text, const char *key)
{
	size_t k = strlen(key);
	for (const char *l = text; l && *l;) {
		if (strncmp(l, key, k) == 0 && l[k] == ' ')
			return dlt_memcg_num(l + k + 1);
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	return DLT_MEMCG_UNKNOWN;
}

uint64_t dlt_memcg_parse_limit(const char *text)
{
	if (strncmp(text, "max", 3) == 0)
		return DLT_MEMCG_NO_LIMIT;
	uint64_t v = dlt_memcg_num(text);
	/* v1 writes its largest page count times the page size: 2^63 less
	 * a page.  No machine has memory near 2^62 bytes. */
	if (v != DLT_MEMCG_UNKNOWN && v >= (1ull << 62))
		return DLT_MEMCG_NO_LIMIT;
	return v;
}

/* "key N" in a file too large for a small buffer, a window at a time:
 * lines are carried over from one window to the next. */
static uint64_t dlt_memcg_key_in_file(const char *path, const char *key)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return DLT_MEMCG_UNKNOWN;
	char buf[1024];
	size_t have = 0;
	uint64_t v = DLT_MEMCG_UNKNOWN;
	for (;;) {
		/* read, not pread: /proc's files are made as they are read,
		 * and a read at an offset makes them again from the start
		 * (measured: 160 us a reading with pread, 50 with read). */
		ssize_t r = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (r < 0 && errno == EINTR)
			continue;
		size_t n = r > 0 ? (size_t)r : 0;
		have += n;
		buf[have] = '\0';
		char *last = strrchr(buf, '\n');
		if (n == 0 || last == NULL) {
			/* The end, or a line longer than the window. */
			if (n == 0)
				v = dlt_memcg_parse_key(buf, key);
			if (n == 0 || have == sizeof(buf) - 1)
				break;
			continue;
		}
		last[0] = '\0';
		v = dlt_memcg_parse_key(buf, key);
		if (v != DLT_MEMCG_UNKNOWN)
			break;
		size_t keep = have - (size_t)(last + 1 - buf);
		memmove(buf, last + 1, keep);
		have = keep;
	}
	close(fd);
	return v;
}

/* dir/name read whole (a small file), or "" */
static size_t dlt_memcg_file(const char *dir, const char *name, char *buf,
			     size_t cap)
{
	char path[1024];
	size_t d = strlen(dir), n = strlen(name);
	if (d + n + 2 > sizeof(path))
		return buf[0] = '\0', 0;
	memcpy(path, dir, d);
	path[d] = '/';
	memcpy(path + d + 1, name, n + 1);
	return dlt_io_read_small(path, buf, cap);
}

void dlt_memcg_read(const struct dlt_memcg_files *f, struct dlt_memcg *m)
{
	char text[1024];
	m->version = 0;
	m->path[0] = '\0';
	m->oom_kills = m->limit = DLT_MEMCG_UNKNOWN;
	m->sys_oom_kills = dlt_memcg_key_in_file(f->vmstat, "oom_kill");
	if (dlt_io_read_small(f->cgroup, text, sizeof(text)) == 0)
		return;
	m->version = dlt_memcg_parse_cgroup(text, m->path, sizeof(m->path));
	if (m->version == 0)
		return;
	/* The cgroup's directory: below the root, else the root itself. */
	char dir[1024];
	const char *sub = m->version == 1 ? "/memory" : "";
	size_t rl = strlen(f->sysfs), sl = strlen(sub), pl = strlen(m->path);
	if (rl + sl + pl + 1 > sizeof(dir))
		return;
	memcpy(dir, f->sysfs, rl);
	memcpy(dir + rl, sub, sl);
	memcpy(dir + rl + sl, m->path, pl + 1);
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		dir[rl + sl] = '\0';
	const char *events =
		m->version == 1 ? "memory.oom_control" : "memory.events";
	const char *limit =
		m->version == 1 ? "memory.limit_in_bytes" : "memory.max";
	if (dlt_memcg_file(dir, events, text, sizeof(text)))
		m->oom_kills = dlt_memcg_parse_key(text, "oom_kill");
	if (dlt_memcg_file(dir, limit, text, sizeof(text)))
		m->limit = dlt_memcg_parse_limit(text);
}
