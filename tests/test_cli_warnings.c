/* The command line's warnings of one input (tools/gsio_cli_common.c): a
 * writer's warning raised again is kept once with its count, "TEXT (N
 * times)", after the scene's own warnings, which it never merges with; a
 * warning that only starts like another is a warning of its own. */
#include "test_util.h"

#include "gsio_cli_common.h"

#include <stdlib.h>
#include <string.h>

static void job_free(gsio_cli_job *j)
{
	for (size_t i = 0; i < j->warnings_count; i++) free(j->warnings[i]);
	free(j->warnings);
}

static void test_writer_warning_counted(void **state)
{
	(void)state;
	gsio_cli_job j;
	memset(&j, 0, sizeof(j));
	gsio_cli_job_warn(&j, "image 'a' is 3 x 5: stored without mip levels");
	gsio_cli_job_warn(&j, "image 'a' is 3 x 5: stored without mip levels");
	gsio_cli_job_warn(&j, "image 'a' is 3 x 5");
	gsio_cli_job_warn(&j, "image 'a' is 3 x 5: stored without mip levels");
	assert_int_equal(j.warnings_count, 2);
	assert_string_equal(j.warnings[0], "image 'a' is 3 x 5: stored without mip levels (3 times)");
	assert_string_equal(j.warnings[1], "image 'a' is 3 x 5");
	job_free(&j);
}

static void test_scene_warnings_kept_apart(void **state)
{
	(void)state;
	gsio_cli_job j;
	memset(&j, 0, sizeof(j));
	j.warnings = malloc(sizeof(char *));
	assert_non_null(j.warnings);
	j.warnings[0] = strdup("sprite beam.tga not found");
	j.warnings_count = j.scene_warnings = 1;
	gsio_cli_job_warn(&j, "sprite beam.tga not found");
	gsio_cli_job_warn(&j, "sprite beam.tga not found");
	assert_int_equal(j.warnings_count, 2);
	assert_string_equal(j.warnings[0], "sprite beam.tga not found");
	assert_string_equal(j.warnings[1], "sprite beam.tga not found (2 times)");
	job_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writer_warning_counted),
	    cmocka_unit_test(test_scene_warnings_kept_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
