/* dlopen(), dlsym() and dlvsym() entries of the shim, AArch64 (their C
 * side is dl.c; dl_x86_64.S is the same design for x86-64).
 *
 * glibc finds the caller of dlopen (whose RUNPATH and $ORIGIN a bare
 * soname is searched with) and of dlsym(RTLD_NEXT) from the return
 * address, which on AArch64 is x30 at the function's entry
 * (docs/design.md).  So each entry calls its C half, puts x30 back to the
 * program's return address and branches (never calls) to the real
 * function, which returns straight to the program.
 *
 * The final branch goes through x16: a "bti c" landing pad accepts a BR
 * only through x16 or x17, which (IP0/IP1) are free between a call and the
 * callee's first instruction.  The entries start with "bti c" (a NOP where
 * BTI is not in use) so that the library keeps BTI when it is built with
 * branch protection; x30 is returned untouched, which is all pointer
 * authentication asks of a function that signs nothing. */

#include "aarch64_asm.inc"

	.text

	.globl	dlopen
	.type	dlopen, %function
	.p2align 4
dlopen:
	.cfi_startproc
	DLT_BTI_C
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	stp	x0, x1, [sp, #16]	/* name, mode */
	mov	x2, x30			/* the caller's return address */
	bl	dlt_dlopen_enter	/* returns the real dlopen */
	mov	x16, x0
	ldp	x0, x1, [sp, #16]
	ldp	x29, x30, [sp], #32
	.cfi_def_cfa_offset 0
	.cfi_restore 29
	.cfi_restore 30
	br	x16
	.cfi_endproc
	.size	dlopen, .-dlopen

/* dlsym(handle, name): RTLD_DEFAULT (0) and RTLD_NEXT (-1) depend on the
 * caller, so they go to the real dlsym with x30 untouched; a real handle
 * goes to dlt_dlsym_impl(handle, name, return address), a tail call that
 * returns to the program itself. */
	.globl	dlsym
	.type	dlsym, %function
	.p2align 4
dlsym:
	.cfi_startproc
	DLT_BTI_C
	cbz	x0, 1f
	cmn	x0, #1
	b.eq	1f
	mov	x2, x30
	b	dlt_dlsym_impl
1:
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	bl	dlt_dlsym_real
	mov	x16, x0
	ldp	x0, x1, [sp, #16]
	ldp	x29, x30, [sp], #32
	.cfi_def_cfa_offset 0
	.cfi_restore 29
	.cfi_restore 30
	cbz	x16, 2f
	br	x16
2:
	mov	x0, #0			/* no real dlsym: NULL */
	ret
	.cfi_endproc
	.size	dlsym, .-dlsym

/* dlvsym(handle, name, version): the same; the version is in x2, so the
 * return address for dlt_dlvsym_impl goes in x3. */
	.globl	dlvsym
	.type	dlvsym, %function
	.p2align 4
dlvsym:
	.cfi_startproc
	DLT_BTI_C
	cbz	x0, 1f
	cmn	x0, #1
	b.eq	1f
	mov	x3, x30
	b	dlt_dlvsym_impl
1:
	stp	x29, x30, [sp, #-48]!
	.cfi_def_cfa_offset 48
	.cfi_offset 29, -48
	.cfi_offset 30, -40
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	str	x2, [sp, #32]
	bl	dlt_dlvsym_real
	mov	x16, x0
	ldp	x0, x1, [sp, #16]
	ldr	x2, [sp, #32]
	ldp	x29, x30, [sp], #48
	.cfi_def_cfa_offset 0
	.cfi_restore 29
	.cfi_restore 30
	cbz	x16, 2f
	br	x16
2:
	mov	x0, #0
	ret
	.cfi_endproc
	.size	dlvsym, .-dlvsym

	.section .note.GNU-stack,"",%progbits
