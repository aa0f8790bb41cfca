/* libdlt_ver.so.1 in two builds whose symbol version definitions differ,
 * as libstdc++.so.6 of Debian 11 (GLIBCXX_3.4.28 at most) and of Debian 12
 * (GLIBCXX_3.4.30) do: the new build defines DLTVER_2.0 as well
 * (dlt_ver1.map, dlt_ver2.map). */
int dlt_ver_old(void);
int dlt_ver_new(void);

__attribute__((visibility("default"))) int dlt_ver_old(void)
{
	return 1;
}

#ifdef DLT_VER_NEW
__attribute__((visibility("default"))) int dlt_ver_new(void)
{
	return 2;
}
#endif
