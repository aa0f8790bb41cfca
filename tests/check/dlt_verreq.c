/* libdlt_verreq.so: needs dlt_ver_new at version DLTVER_2.0, which only the
 * new build of libdlt_ver.so.1 (in its RUNPATH, $ORIGIN/vernew) defines, as
 * libtorch_python needs GLIBCXX_3.4.30. */
extern int dlt_ver_new(void);

int dlt_verreq_run(void);

__attribute__((visibility("default"))) int dlt_verreq_run(void)
{
	return dlt_ver_new();
}
