#include "procstat.h"

#include "io.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* The unsigned decimal at *p, moving *p past it; signs are read too
 * (ppid is never negative, but a field may be). */
static int64_t dlt_procstat_num(const char **p)
{
	const char *s = *p;
	int neg = *s == '-';
	if (neg)
		s++;
	uint64_t v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	*p = s;
	return neg ? -(int64_t)v : (int64_t)v;
}

int dlt_procstat_parse(const char *text, struct dlt_procstat *st)
{
	memset(st, 0, sizeof(*st));
	const char *p = strrchr(text, ')');
	if (p == NULL || p[1] != ' ' || p[2] == '\0')
		return -1;
	p += 2;
	st->state = *p++;
	/* Fields 4 to 22, each after one space. */
	for (int field = 4; field <= 22; field++) {
		if (*p != ' ')
			return -1;
		p++;
		int64_t v = dlt_procstat_num(&p);
		if (field == 4)
			st->ppid = (int)v;
		else if (field == 20)
			st->num_threads = (long)v;
		else if (field == 22)
			st->starttime = (uint64_t)v;
	}
	return 0;
}

int dlt_procstat_read(const char *path, struct dlt_procstat *st)
{
	char buf[1024];
	if (dlt_io_read_small(path, buf, sizeof(buf)) == 0) {
		memset(st, 0, sizeof(*st));
		return -1;
	}
	return dlt_procstat_parse(buf, st);
}

void dlt_proc_comm(int pid, char *out, size_t cap)
{
	char path[32] = "/proc/", digits[12];
	int nd = 0;
	for (unsigned v = (unsigned)pid; v && nd < 11; v /= 10)
		digits[nd++] = (char)('0' + v % 10);
	size_t l = 6;
	while (nd > 0)
		path[l++] = digits[--nd];
	memcpy(path + l, "/comm", 6);
	out[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t got = read(fd, out, cap - 1);
	close(fd);
	got = got > 0 ? got : 0;
	out[got] = '\0';
	if (got > 0 && out[got - 1] == '\n')
		out[got - 1] = '\0';
}
