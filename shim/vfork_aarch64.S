/* vfork() entry of the shim, AArch64 (its C side is dlt_lc_vfork_enter in
 * lifecycle.c; vfork_x86_64.S is the same design for x86-64).
 *
 * The child of vfork runs on its parent's stack until it execs or exits,
 * and the parent then returns from vfork through whatever the child left
 * there: a C wrapper's saved x30 would be overwritten by the child's next
 * call before the parent returns through it.  So this entry calls the
 * prepare step, which hands back the real vfork, puts x29 and x30 back and
 * branches (never calls) to it: both processes return from the real vfork
 * straight to the program.  The branch goes through x16, which a "bti c"
 * landing pad accepts (dl_aarch64.S says why). */

#include "aarch64_asm.inc"

	.text
	.globl	vfork
	.type	vfork, %function
	.p2align 4
vfork:
	.cfi_startproc
	DLT_BTI_C
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	bl	dlt_lc_vfork_enter	/* returns the real vfork */
	mov	x16, x0
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa_offset 0
	.cfi_restore 29
	.cfi_restore 30
	br	x16
	.cfi_endproc
	.size	vfork, .-vfork

	.section .note.GNU-stack,"",%progbits
