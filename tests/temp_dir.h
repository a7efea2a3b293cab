/* temp_dir.h: a cmocka group's temporary folder, made before the group and
 * removed with everything in it after (the tests that write their own bad
 * files). Include after cmocka.h and util.h; define TEMP_DIR_TEMPLATE, e.g.
 * "/tmp/attnview-st-XXXXXX", before including. */
#ifndef AV_TEST_TEMP_DIR_H
#define AV_TEST_TEMP_DIR_H

static char dir[] = TEMP_DIR_TEMPLATE;

static int temp_dir_setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int temp_dir_teardown(void **state)
{
	(void)state;
	char *cmd = av_printf("rm -rf '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

#endif
