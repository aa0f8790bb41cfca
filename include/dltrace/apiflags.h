/* The flags and roles of include/dltrace/apis.def, shared by the shim,
 * which acts on the flags, and the analyzer, which names what they made
 * and reasons with the roles. */
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

/* What a call is to the analyses.  The analyzer decides by role, never by
 * a function's name or id, so that a function added to the table with a
 * role is understood everywhere.  A role promises values (DLT_ROLE_VALUES
 * below). */
/* Communicators: made from a unique id (every rank enters it), for
 * several devices of one process, from another communicator (every rank of
 * that one enters it); ended (finalize, destroy, abort). */
#define DLT_ROLE_COMM_INIT 0x1u
#define DLT_ROLE_COMM_INIT_ALL 0x2u
#define DLT_ROLE_COMM_SPLIT 0x4u
#define DLT_ROLE_COMM_END 0x8u
/* Waits for every rank of a communicator; for one peer; runs what a group
 * queued. */
#define DLT_ROLE_COLLECTIVE 0x10u
#define DLT_ROLE_P2P 0x20u
#define DLT_ROLE_GROUP_END 0x40u
/* Makes the id the inits share. */
#define DLT_ROLE_UNIQUE_ID 0x80u
/* Waits for the GPU. */
#define DLT_ROLE_SYNC 0x100u
/* Hands back an earlier call's error. */
#define DLT_ROLE_LAST_ERROR 0x200u
/* Looks a driver function up: "not found" is an answer. */
#define DLT_ROLE_SYMBOL_QUERY 0x400u
/* Convolutions: selection by the pre-8.0 preference form, by heuristics
 * (_v7), by measuring (Find, FindEx); a run; and the direction. */
#define DLT_ROLE_CONV_PREF 0x800u
#define DLT_ROLE_CONV_HEUR 0x1000u
#define DLT_ROLE_CONV_FIND 0x2000u
#define DLT_ROLE_CONV_EXEC 0x4000u
#define DLT_ROLE_CONV_FWD 0x8000u
#define DLT_ROLE_CONV_BWD_DATA 0x10000u
#define DLT_ROLE_CONV_BWD_FILTER 0x20000u
/* The backend: a descriptor finalized (NOT_SUPPORTED is an answer), an
 * execution plan run. */
#define DLT_ROLE_BK_FINALIZE 0x40000u
#define DLT_ROLE_BK_EXECUTE 0x80000u

/* A rank that enters one of these waits there for the others. */
#define DLT_ROLE_INITS \
	(DLT_ROLE_COMM_INIT | DLT_ROLE_COMM_INIT_ALL | DLT_ROLE_COMM_SPLIT)
#define DLT_ROLE_CONV_SELECT \
	(DLT_ROLE_CONV_PREF | DLT_ROLE_CONV_HEUR | DLT_ROLE_CONV_FIND)

/* The values a role promises: X(role, value, required).  Every function
 * with the role has each required value among its values in apis.def
 * (the analyzer's unit test checks it); an optional one only some have.
 * The analyzer reads them as DLT_RV_<role>_<value> (dlt_role_val). */
#define DLT_ROLE_VALUES(X)          \
	X(COMM_INIT, nranks, 1)     \
	X(COMM_INIT, rank, 1)       \
	X(COMM_INIT, id_hash, 1)    \
	X(COMM_INIT, comm, 1)       \
	X(COMM_INIT_ALL, ndev, 1)   \
	X(COMM_SPLIT, comm, 1)      \
	X(COMM_SPLIT, color, 1)     \
	X(COMM_SPLIT, key, 1)       \
	X(COMM_SPLIT, newcomm, 1)   \
	X(UNIQUE_ID, id_hash, 1)    \
	X(CONV_PREF, preference, 1) \
	X(CONV_PREF, limit, 1)      \
	X(CONV_PREF, algo, 1)       \
	X(CONV_HEUR, requested, 1)  \
	X(CONV_HEUR, returned, 1)   \
	X(CONV_FIND, requested, 1)  \
	X(CONV_FIND, returned, 1)   \
	X(CONV_FIND, workspace, 0)  \
	X(CONV_EXEC, algo, 1)       \
	X(CONV_EXEC, workspace, 1)  \
	X(BK_EXECUTE, plan, 1)      \
	X(COLLECTIVE, comm, 1)      \
	X(COLLECTIVE, count, 1)     \
	X(COLLECTIVE, type, 1)      \
	X(COLLECTIVE, op, 0)        \
	X(COLLECTIVE, root, 0)      \
	X(P2P, comm, 1)             \
	X(P2P, peer, 1)

/* ---- iterating over a parenthesised list of values ------------------- */

/* DLT_EACH_VALUE(m, p, (a, b, c)) is m(p, a) m(p, b) m(p, c); () is
 * nothing.  Up to 16 elements: a value list has at most DLT_API_MAX_VALS
 * (8), a parameter list (shim/api.c) up to 13.  Counting an empty list as
 * 0 relies on GNU C's comma deletion in ", ##__VA_ARGS__" for a macro whose
 * only parameter is variadic (gnu11, as the build sets). */
#define DLT_PP_CAT_(a, b) a##b
#define DLT_PP_CAT(a, b) DLT_PP_CAT_(a, b)
#define DLT_PP_UNPAREN(...) __VA_ARGS__
#define DLT_PP_NARGS_(_, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, \
		      a13, a14, a15, a16, n, ...)                           \
	n
#define DLT_PP_NARGS(...)                                                    \
	DLT_PP_NARGS_(_, ##__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, \
		      6, 5, 4, 3, 2, 1, 0)
#define DLT_PP_EACH_0(m, p, ...)
#define DLT_PP_EACH_1(m, p, a) m(p, a)
#define DLT_PP_EACH_2(m, p, a, ...) m(p, a) DLT_PP_EACH_1(m, p, __VA_ARGS__)
#define DLT_PP_EACH_3(m, p, a, ...) m(p, a) DLT_PP_EACH_2(m, p, __VA_ARGS__)
#define DLT_PP_EACH_4(m, p, a, ...) m(p, a) DLT_PP_EACH_3(m, p, __VA_ARGS__)
#define DLT_PP_EACH_5(m, p, a, ...) m(p, a) DLT_PP_EACH_4(m, p, __VA_ARGS__)
#define DLT_PP_EACH_6(m, p, a, ...) m(p, a) DLT_PP_EACH_5(m, p, __VA_ARGS__)
#define DLT_PP_EACH_7(m, p, a, ...) m(p, a) DLT_PP_EACH_6(m, p, __VA_ARGS__)
#define DLT_PP_EACH_8(m, p, a, ...) m(p, a) DLT_PP_EACH_7(m, p, __VA_ARGS__)
#define DLT_PP_EACH_9(m, p, a, ...) m(p, a) DLT_PP_EACH_8(m, p, __VA_ARGS__)
#define DLT_PP_EACH_10(m, p, a, ...) m(p, a) DLT_PP_EACH_9(m, p, __VA_ARGS__)
#define DLT_PP_EACH_11(m, p, a, ...) m(p, a) DLT_PP_EACH_10(m, p, __VA_ARGS__)
#define DLT_PP_EACH_12(m, p, a, ...) m(p, a) DLT_PP_EACH_11(m, p, __VA_ARGS__)
#define DLT_PP_EACH_13(m, p, a, ...) m(p, a) DLT_PP_EACH_12(m, p, __VA_ARGS__)
#define DLT_PP_EACH_14(m, p, a, ...) m(p, a) DLT_PP_EACH_13(m, p, __VA_ARGS__)
#define DLT_PP_EACH_15(m, p, a, ...) m(p, a) DLT_PP_EACH_14(m, p, __VA_ARGS__)
#define DLT_PP_EACH_16(m, p, a, ...) m(p, a) DLT_PP_EACH_15(m, p, __VA_ARGS__)
#define DLT_PP_EACH(m, p, ...)                              \
	DLT_PP_CAT(DLT_PP_EACH_, DLT_PP_NARGS(__VA_ARGS__)) \
	(m, p, __VA_ARGS__)
#define DLT_PP_EACH_X(m, p, ...) DLT_PP_EACH(m, p, __VA_ARGS__)
/* DLT_PP_IS_EMPTY((a, b)) is 0, DLT_PP_IS_EMPTY(()) 1: the first element
 * pasted onto a probe that only an empty one completes.  For lists of
 * identifiers (apis.def's args). */
#define DLT_PP_PROBE_EMPTY_ ~, 1
#define DLT_PP_SECOND_(a, b, ...) b
#define DLT_PP_SECOND(...) DLT_PP_SECOND_(__VA_ARGS__, 0, 0)
#define DLT_PP_FIRST_(a, ...) a
#define DLT_PP_FIRST(...) DLT_PP_FIRST_(__VA_ARGS__, ~)
#define DLT_PP_IS_EMPTY_(first) DLT_PP_SECOND(DLT_PP_PROBE_EMPTY_##first, 0)
#define DLT_PP_IS_EMPTY_X(first) DLT_PP_IS_EMPTY_(first)
#define DLT_PP_IS_EMPTY(list) DLT_PP_IS_EMPTY_X(DLT_PP_FIRST list)
#define DLT_EACH_VALUE(m, p, values) DLT_PP_EACH_X(m, p, DLT_PP_UNPAREN values)

#endif
