#define _GNU_SOURCE
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

size_t dlt_io_pread_upto(int fd, void *buf, size_t len, uint64_t off, int *err)
{
	size_t got = 0;
	*err = 0;
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got,
				  (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			*err = errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

int dlt_io_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	int err;
	if (dlt_io_pread_upto(fd, buf, len, off, &err) == len)
		return 0;
	errno = err;
	return -1;
}

size_t dlt_io_read_small(const char *path, char *buf, size_t cap)
{
	if (cap == 0)
		return 0;
	buf[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t got = 0;
	while (got < cap - 1) {
		ssize_t n = read(fd, buf + got, cap - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}
