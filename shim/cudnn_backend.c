/* cuDNN backend (graph) API: placeholder, filled in by the backend work. */
#include "api.h"

void dlt_bk_created(int status, int type, void *desc)
{
	(void)status, (void)type, (void)desc;
}

void dlt_bk_destroyed(int status, void *desc)
{
	(void)status, (void)desc;
}

void dlt_bk_set(int status, void *desc, int attr, int type, int64_t n,
		const void *el)
{
	(void)status, (void)desc, (void)attr, (void)type, (void)n, (void)el;
}

void dlt_bk_get(int status, void *desc, int attr, int type, int64_t req,
		const int64_t *n, const void *el)
{
	(void)status, (void)desc, (void)attr, (void)type, (void)req, (void)n,
		(void)el;
}

void dlt_bk_finalized(int status, void *desc)
{
	(void)status, (void)desc;
}
