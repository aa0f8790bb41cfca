/* vfork() entry of the shim, x86-64 (its C side is dlt_lc_vfork_enter in
 * lifecycle.c).
 *
 * The child of vfork runs on its parent's stack until it execs or exits,
 * and the parent then returns from vfork through whatever the child left
 * there.  A C wrapper that called the real vfork would have a frame the
 * child overwrites (its first call after the wrapper returned does) before
 * the parent returns through it.  So this entry only calls the prepare
 * step, which hands back the real vfork, and jumps to it with the
 * program's return address still on the stack: both processes return from
 * the real vfork straight to the program. */
	.text
	.globl	vfork
	.type	vfork, @function
	.p2align 4
vfork:
	.cfi_startproc
	subq	$8, %rsp		/* 16-byte alignment for the call */
	.cfi_adjust_cfa_offset 8
	call	dlt_lc_vfork_enter
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	jmp	*%rax
	.cfi_endproc
	.size	vfork, .-vfork

	.section .note.GNU-stack,"",@progbits
