/*
 * test_apps/unit/test_cs_test.c - the test kit's failure count is one for
 * the whole program: this test is made of two source files (this one and
 * test_cs_test/other.c, linked together by tests.mk), and the soft checks
 * of the other file must reach cs_test_done() here.
 *
 *   test_cs_test          every check holds: exit 0, "cs_test: OK" last;
 *   test_cs_test --fail   one CS_TEST_CHECK fails in other.c: the program
 *                         must print "cs_test: FAILED (1 checks)" and exit
 *                         non-zero (with a count per file it exits 0).
 *
 * Check 10_unit_cs_test runs both.  No MPI.
 */
#include <string.h>

#include "cs_test.h"

/* In test_cs_test/other.c: one soft check, failing iff fail. */
void cs_test_other_file(int fail);

int main(int argc, char **argv)
{
    int fail = argc > 1 && !strcmp(argv[1], "--fail");
    CS_TEST_CHECK(1, "never printed");
    cs_test_other_file(fail);
    printf("failures seen by main: %d\n", cs_test_failures);
    return cs_test_done();
}
