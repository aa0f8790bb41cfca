#define _GNU_SOURCE
#include "stackscan.h"

#include "procmaps.h"

#include <sys/uio.h>
#include <unistd.h>

ssize_t dlt_peek(void *dst, uint64_t addr, size_t n)
{
	struct iovec local = {dst, n};
	struct iovec remote = {(void *)(uintptr_t)addr, n};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
}

/* The instruction before ret (common/procmaps.h decides). */
int dlt_after_call(uint64_t ret)
{
	uint8_t b[8];
	return ret >= 8 && dlt_peek(b, ret - 8, 8) == 8 && dlt_is_after_call(b);
}
