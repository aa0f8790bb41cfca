/* libdlt_user_{new,old}.so: needs libdlt_prov.so, which its RUNPATH
 * ($ORIGIN/prov2) holds in the new build; the "new" variant needs a
 * function only that build has. */
#ifdef DLT_USER_NEW
extern int dlt_prov_new(void);
#define DLT_CALL dlt_prov_new
#else
extern int dlt_prov_old(void);
#define DLT_CALL dlt_prov_old
#endif

int dlt_user_run(void);

__attribute__((visibility("default"))) int dlt_user_run(void)
{
	return DLT_CALL();
}
