/* Reading files whole or at an offset, for every side: the trace reader,
 * the compactor, the ELF reader, the launcher and the shim's watchdog.
 * One loop, so that a read cut short by a signal (EINTR: the traced
 * program's own timers and the launcher's SIGCHLD) is retried everywhere
 * the same way. */
#ifndef DLTRACE_IO_H
#define DLTRACE_IO_H

#include <stddef.h>
#include <stdint.h>

/* Reads [off, off + len) until it is all read, the file ends or a read
 * fails (EINTR is retried).  Returns the bytes read; *err is 0, or the
 * errno of the failed read. */
size_t dlt_io_pread_upto(int fd, void *buf, size_t len, uint64_t off, int *err);

/* All of [off, off + len): 0, or -1 with errno set (0 where the file
 * ended first). */
int dlt_io_pread_all(int fd, void *buf, size_t len, uint64_t off);

/* A small file (/proc) read whole into buf and terminated: the bytes read
 * (0 where it cannot be opened or is empty).  No allocation: the shim's
 * watchdog calls it. */
size_t dlt_io_read_small(const char *path, char *buf, size_t cap);

#endif
