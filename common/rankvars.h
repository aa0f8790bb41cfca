/* The launchers' names for a process's rank, the job's size and the local
 * rank (torchrun and torch.distributed, Open MPI, MPICH/PMI, PMIx,
 * MVAPICH2, IBM's jsrun (JSM), Slurm), in the
 * order they are believed when several are set.  One list: the shim asks
 * them whether a process is one of a distributed job, the tracer reads the
 * rank and size from them and lets a trace show them. */
#ifndef DLTRACE_RANKVARS_H
#define DLTRACE_RANKVARS_H

#define DLT_RANK_VARS(X)          \
	X("RANK")                 \
	X("OMPI_COMM_WORLD_RANK") \
	X("PMI_RANK")             \
	X("PMIX_RANK")            \
	X("MV2_COMM_WORLD_RANK")  \
	X("JSM_NAMESPACE_RANK")   \
	X("SLURM_PROCID")
#define DLT_WORLD_SIZE_VARS(X)    \
	X("WORLD_SIZE")           \
	X("OMPI_COMM_WORLD_SIZE") \
	X("PMI_SIZE")             \
	X("MV2_COMM_WORLD_SIZE")  \
	X("JSM_NAMESPACE_SIZE")   \
	X("SLURM_NTASKS")
#define DLT_LOCAL_RANK_VARS(X)          \
	X("LOCAL_RANK")                 \
	X("OMPI_COMM_WORLD_LOCAL_RANK") \
	X("MV2_COMM_WORLD_LOCAL_RANK")  \
	X("JSM_NAMESPACE_LOCAL_RANK")   \
	X("SLURM_LOCALID")

/* Each name as an element of a string array. */
#define DLT_RANKVAR_STR(name) name,

#endif
