/* What every assembly file of the shim for AArch64 shares (dl_aarch64.S,
 * vfork_aarch64.S): the BTI landing pad of an entry, and the GNU property
 * note, which each object must carry for the library to keep it. */
#ifndef DLTRACE_AARCH64_ASM_H
#define DLTRACE_AARCH64_ASM_H

#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define DLT_BTI_C hint 34
#else
#define DLT_BTI_C
#endif

/* The GNU property note that tells the linker these entries are fit for
 * BTI and pointer authentication, when the C code is built for them too
 * (the linker marks the library only if every object says so). */
#if (defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT) || \
	(defined(__ARM_FEATURE_PAC_DEFAULT) && __ARM_FEATURE_PAC_DEFAULT)
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define DLT_PROP_BTI 1
#else
#define DLT_PROP_BTI 0
#endif
#if defined(__ARM_FEATURE_PAC_DEFAULT) && __ARM_FEATURE_PAC_DEFAULT
#define DLT_PROP_PAC 2
#else
#define DLT_PROP_PAC 0
#endif
	.section .note.gnu.property, "a"
	.p2align 3
	.word	4			/* name size: "GNU\0" */
	.word	16			/* descriptor size */
	.word	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.word	0xc0000000		/* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
	.word	4
	.word	DLT_PROP_BTI | DLT_PROP_PAC
	.word	0
#endif

#endif
