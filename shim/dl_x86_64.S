/* dlopen(), dlsym() and dlvsym() entries of the shim, x86-64 (their C
 * side is dl.c).
 *
 * glibc's dlopen resolves a bare soname with the RUNPATH and $ORIGIN of the
 * object that called it, found from its return address.  A C wrapper that
 * calls the real dlopen makes this library the caller and changes what gets
 * loaded (docs/design.md).  So this entry records the call through
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

/* dlsym(handle, name) and dlvsym(handle, name, version).
 *
 * For RTLD_DEFAULT (0) and RTLD_NEXT (-1) the result depends on the
 * caller's address, so those go to the real function with the program's
 * return address, untouched (RTLD_DEFAULT finds the shim's exported
 * wrappers by itself).  A real handle's lookup does not depend on the
 * caller: those go to dlt_dlsym_impl / dlt_dlvsym_impl with the return
 * address as an extra argument, which may hand back a wrapper. */
	.text
	.globl	dlsym
	.type	dlsym, @function
	.p2align 4
dlsym:
	.cfi_startproc
	testq	%rdi, %rdi
	je	1f
	cmpq	$-1, %rdi
	je	1f
	movq	(%rsp), %rdx
	jmp	dlt_dlsym_impl
1:
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	call	dlt_dlsym_real
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	testq	%rax, %rax
	je	2f
	jmp	*%rax
2:
	ret			/* no real dlsym: NULL */
	.cfi_endproc
	.size	dlsym, .-dlsym

	.globl	dlvsym
	.type	dlvsym, @function
	.p2align 4
dlvsym:
	.cfi_startproc
	testq	%rdi, %rdi
	je	1f
	cmpq	$-1, %rdi
	je	1f
	movq	(%rsp), %rcx
	jmp	dlt_dlvsym_impl
1:
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	pushq	%rdx
	.cfi_adjust_cfa_offset 8
	call	dlt_dlvsym_real
	popq	%rdx
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	testq	%rax, %rax
	je	2f
	jmp	*%rax
2:
	ret
	.cfi_endproc
	.size	dlvsym, .-dlvsym

	.section .note.GNU-stack,"",@progbits
