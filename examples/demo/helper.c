int helper_value(void);

int helper_value(void)
{
	return 41;
}
