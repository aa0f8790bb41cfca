#include "apinames.h"

#include <string.h>

#include "dltrace/apiflags.h"
#include "dltrace/format.h"

/* Only the names and labels are used here; the parameter lists are not
 * expanded. */
static const struct dlt_api_desc dlt_api_table[] = {
#define DLT_API(id, fam, name, params, args, flags, labels, pre, post) \
	{id,                                                           \
	 DLT_FAM_##fam,                                                \
	 ((flags)&DLT_AF_ENTER) != 0,                                  \
	 DLT_API_ONCE(flags, pre, post),                               \
	 #name,                                                        \
	 labels},
#include "dltrace/apis.def"
#undef DLT_API
};

#define DLT_NAPIS (sizeof(dlt_api_table) / sizeof(dlt_api_table[0]))

const struct dlt_api_desc *dlt_api_by_id(uint16_t id)
{
	for (size_t i = 0; i < DLT_NAPIS; i++)
		if (dlt_api_table[i].id == id)
			return &dlt_api_table[i];
	return NULL;
}

const struct dlt_api_desc *dlt_api_by_name(const char *name)
{
	for (size_t i = 0; i < DLT_NAPIS; i++)
		if (strcmp(dlt_api_table[i].name, name) == 0)
			return &dlt_api_table[i];
	return NULL;
}

const char *dlt_family_name(int family)
{
	switch (family) {
	case DLT_FAM_CUDART:
		return "cudart";
	case DLT_FAM_CUDA:
		return "cuda-driver";
	case DLT_FAM_CUDNN:
		return "cudnn";
	case DLT_FAM_NCCL:
		return "nccl";
	case DLT_FAM_CUBLAS:
		return "cublas";
	case DLT_FAM_CUBLASLT:
		return "cublaslt";
	default:
		return "unknown";
	}
}

const char *dlt_api_label(const struct dlt_api_desc *a, size_t i, char *buf,
			  size_t cap)
{
	buf[0] = '\0';
	if (a == NULL || cap == 0)
		return buf;
	const char *p = a->labels;
	for (; i > 0 && p; i--) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (p == NULL || *p == '\0')
		return buf;
	size_t l = strcspn(p, ",");
	if (l >= cap)
		l = cap - 1;
	memcpy(buf, p, l);
	buf[l] = '\0';
	return buf;
}

uint64_t dlt_dur_ns(uint32_t dur)
{
	if (dur == 0xffffffffu)
		return UINT64_MAX;
	if (dur & DLT_DUR_US_FLAG)
		return (uint64_t)(dur & ~DLT_DUR_US_FLAG) * 1000u;
	return dur;
}

int dlt_label_is_handle(const char *label)
{
	static const char *const names[] = {"ptr",     "func",	 "comm",
					    "newcomm", "stream", "event",
					    "handle",  "plan",	 "desc"};
	if (strstr(label, "hash"))
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(label, names[i]) == 0)
			return 1;
	return 0;
}
