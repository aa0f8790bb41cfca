/* The flags of include/dltrace/apis.def, shared by the shim, which acts on
 * them, and the analyzer, which names what they made. */
#ifndef DLTRACE_APIFLAGS_H
#define DLTRACE_APIFLAGS_H

#define DLT_AF_ENTER 0x1u    /* a record on disk before the call starts */
#define DLT_AF_POST 0x2u     /* dlt_post_<name>() after the call */
#define DLT_AF_NORECORD 0x4u /* no API_CALL record (the hook writes) */

/* A DLT_AF_ENTER function whose values are all known before the call (its
 * pre and post lists are the same text) is written once, as an API_CALL
 * opened before the call and closed in place (format 1.2); the others get
 * an API_ENTER first.  A constant: the compiler folds the comparison. */
#define DLT_API_ONCE(flags, pre, post)                           \
	(((flags)&DLT_AF_ENTER) && !((flags)&DLT_AF_NORECORD) && \
	 __builtin_strcmp(#pre, #post) == 0)

#endif
