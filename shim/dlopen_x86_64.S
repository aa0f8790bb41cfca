/* dlopen() entry of the shim, x86-64.
 *
 * glibc's dlopen resolves a bare soname with the RUNPATH and $ORIGIN of the
 * object that called it, found from its return address.  A C wrapper that
 * calls the real dlopen makes this library the caller and changes what gets
 * loaded (field-notes §1).  So this entry records the call through
 * dlt_dlopen_enter(name, mode, return address), which hands back the real
 * dlopen, and then jumps to it with the program's own return address still
 * on the stack: the real dlopen returns straight to the program. */
	.text
	.globl	dlopen
	.type	dlopen, @function
	.p2align 4
dlopen:
	.cfi_startproc
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp		/* 16-byte alignment for the call */
	.cfi_adjust_cfa_offset 8
	movq	24(%rsp), %rdx		/* the caller's return address */
	call	dlt_dlopen_enter
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	jmp	*%rax
	.cfi_endproc
	.size	dlopen, .-dlopen

	.section .note.GNU-stack,"",@progbits
