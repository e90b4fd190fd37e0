/*
 * test_apps/lib/cs_test.c - the one failure count of a test program; see
 * cs_test.h.  Linked into every program that includes cs_test.h.
 */
#include "cs_test.h"

int cs_test_failures;
