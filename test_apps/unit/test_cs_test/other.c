/*
 * test_apps/unit/test_cs_test/other.c - the second source file of
 * test_cs_test (see test_cs_test.c): a soft check counted here must be
 * seen by cs_test_done() in the other file's main().
 */
#include "cs_test.h"

void cs_test_other_file(int fail)
{
    CS_TEST_CHECK(!fail, "failed on purpose in %s (--fail)", __FILE__);
}
