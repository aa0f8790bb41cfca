#define _GNU_SOURCE
#include "stackscan.h"

#include <sys/uio.h>
#include <unistd.h>

ssize_t dlt_peek(void *dst, uint64_t addr, size_t n)
{
	struct iovec local = {dst, n};
	struct iovec remote = {(void *)(uintptr_t)addr, n};
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
}

/* On x86-64 e8 rel32, or ff /2 with one of its operand encodings (2 to 7
 * bytes long). */
int dlt_after_call(uint64_t ret)
{
#if defined(__aarch64__)
	/* BL imm26; BLR Xn; BLRAA/BLRAB/BLRAAZ/BLRABZ (pointer-authenticated
	 * calls): every instruction is 4 bytes, the call the one before. */
	uint32_t insn;
	if (ret < 4 || dlt_peek(&insn, ret - 4, 4) != 4)
		return 0;
	return (insn & 0xfc000000u) == 0x94000000u ||
	       (insn & 0xfffffc1fu) == 0xd63f0000u ||
	       (insn & 0xfefff800u) == 0xd63f0800u;
#else
	uint8_t b[8];
	if (ret < 8 || dlt_peek(b, ret - 8, 8) != 8)
		return 0;
	if (b[3] == 0xe8)
		return 1;
	for (int len = 2; len <= 7; len++) {
		uint8_t op = b[8 - len], modrm = b[8 - len + 1];
		if (op == 0xff && ((modrm >> 3) & 7) == 2)
			return 1;
	}
	return 0;
#endif
}
