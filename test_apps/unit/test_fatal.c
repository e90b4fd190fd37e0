/*
 * test_apps/unit/test_fatal.c - the engine's fatal errors (engine/fatal.c),
 * no MPI communication:
 * 1. with a hook set (cs_eng_set_fatal_hook), cs_eng_fatal() formats the
 *    message and hands it to the hook, once (the hook here leaves by
 *    longjmp, as a hook must not return); a message longer than the
 *    engine's buffer arrives cut, terminated;
 * 2. without a hook (set back to NULL), a child process calling
 *    cs_eng_fatal() logs the message on stderr ("costa_shim[-]: error:")
 *    and does not survive (MPI_Abort, or abort() after it).
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs_test.h"
#include "engine/engine_int.h"

static jmp_buf back;
static char seen[4096];
static int calls;

static void hook(const char *msg)
{
    snprintf(seen, sizeof(seen), "%s", msg);
    calls++;
    longjmp(back, 1);
}

/* The message a fatal error with this hook delivers. */
static const char *through_hook(const char *what, int n)
{
    calls = 0;
    seen[0] = '\0';
    if (setjmp(back) == 0) {
        cs_eng_fatal("%s %d of %d could not be executed (%s)", what, n,
                     n + 3, "out of memory");
    }
    CS_TEST_EQ(calls, 1);
    return seen;
}

int main(void)
{
    cs_eng_set_fatal_hook(hook);
    CS_TEST_ASSERT(strcmp(through_hook("panel", 2),
                          "panel 2 of 5 could not be executed "
                          "(out of memory)") == 0);
    char big[3000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    const char *cut = through_hook(big, 1);
    CS_TEST_ASSERT(strlen(cut) > 100 && strlen(cut) < sizeof(big) - 1 &&
                   strspn(cut, "x") == strlen(cut));

    /* no hook: logged, and the process ends */
    cs_eng_set_fatal_hook(NULL);
    int fd[2];
    CS_TEST_ASSERT(pipe(fd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CS_TEST_ASSERT(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        alarm(20); /* an MPI that hangs outside MPI_Init still ends */
        cs_eng_fatal("boom %d", 7);
        _exit(0); /* not reached */
    }
    close(fd[1]);
    char out[8192];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof(out) - 1 &&
           (r = read(fd[0], out + n, sizeof(out) - 1 - n)) > 0) {
        n += (size_t)r;
    }
    out[n] = '\0';
    close(fd[0]);
    int status = 0;
    CS_TEST_ASSERT(waitpid(pid, &status, 0) == pid);
    CS_TEST_CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0),
                  "the child survived a fatal error");
    CS_TEST_CHECK(strstr(out, "error: boom 7") != NULL,
                  "the child's stderr lacks the message: %s", out);
    return cs_test_done();
}
