/* Built twice: DEMO_VERSION 1 (the stale system copy) and 2 (bundled). */
int demo_version(void);

int demo_version(void)
{
	return DEMO_VERSION;
}
