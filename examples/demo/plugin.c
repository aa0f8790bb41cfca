int helper_value(void);
int plugin_value(void);

int plugin_value(void)
{
	return helper_value() + 1;
}
