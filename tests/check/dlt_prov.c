/* libdlt_prov.so in two builds: the old one lacks dlt_prov_new, as an
 * older libnccl.so.2 lacks ncclCommRegister (cugraph#4465). */
int dlt_prov_old(void);
int dlt_prov_new(void);

__attribute__((visibility("default"))) int dlt_prov_old(void)
{
	return 1;
}

#ifdef DLT_PROV_NEW
__attribute__((visibility("default"))) int dlt_prov_new(void)
{
	return 2;
}
#endif
