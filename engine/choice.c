/*
 * engine/choice.c - choosing between two ways of running a plan by timing
 * both on its own calls (cs_eng_choice_t, engine_int.h).
 *
 * RATIONALE: whether packing small packages with streaming stores pays
 * (exchange.c, pack_columns) depends on where the virtual machine's
 * cores sit, which no fixed rule sees: pdgemr2d 238 x 238 (MPICH, 2 x 1)
 * took 23-26 us per call packed plainly and 35-53 us streamed in two
 * runs, 53-58 us plainly and 38-43 us streamed in a later one.  So a plan
 * whose calls could go either way times both, and keeps the faster.
 *
 * How: the plan's first call runs the default way (it pays first-touch
 * costs that would spoil the comparison); the next 2 x
 * CS_ENG_CHOICE_TRIALS calls alternate in the order 0 1 1 0 0 1 1 0 ...
 * (each mode as often early as late, so a drift in the machine's speed
 * favours neither), and the mode whose median time is lower wins (the
 * default on a tie).  The trial is repeated every CS_ENG_CHOICE_RETRY
 * calls, as the placement may change during a run.  The ranks of a plan
 * call it the same number of times, so they try the same mode in the
 * same call and each rank's call time reflects both sides' choice; a
 * rank that decides otherwise than its peer only costs time, never
 * changes a result.
 */
#include "engine/engine_int.h"

/* The call number at which the next (or the running) trial starts: 1 for
 * the first, after call 0 the default way. */
static int64_t trial_start(const cs_eng_choice_t *c)
{
    return 1 + c->trials * (2 * CS_ENG_CHOICE_TRIALS + CS_ENG_CHOICE_RETRY);
}

/* Lower median of n values (n <= CS_ENG_CHOICE_TRIALS). */
static double median(const double *v, int n)
{
    double s[CS_ENG_CHOICE_TRIALS];
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && s[j - 1] > v[i]; j--) {
            s[j] = s[j - 1];
        }
        s[j] = v[i];
    }
    return s[(n - 1) / 2];
}

int cs_eng_choice_next(const cs_eng_choice_t *c, int dflt)
{
    int64_t i = c->calls - trial_start(c);
    if (i >= 0 && i < 2 * CS_ENG_CHOICE_TRIALS) {
        return (int)((i ^ (i >> 1)) & 1);
    }
    return c->trials > 0 ? c->mode : dflt;
}

void cs_eng_choice_record(cs_eng_choice_t *c, int mode, double seconds,
                          int dflt)
{
    int64_t i = c->calls - trial_start(c);
    c->calls++;
    if (i < 0 || i >= 2 * CS_ENG_CHOICE_TRIALS || mode < 0 || mode > 1 ||
        c->n[mode] >= CS_ENG_CHOICE_TRIALS) {
        return;
    }
    c->t[mode][c->n[mode]++] = seconds;
    if (i < 2 * CS_ENG_CHOICE_TRIALS - 1) {
        return;
    }
    /* the order gives each mode CS_ENG_CHOICE_TRIALS calls */
    double m[2] = {median(c->t[0], c->n[0]), median(c->t[1], c->n[1])};
    c->mode = m[!dflt] < m[dflt] ? !dflt : dflt;
    c->trials++;
    c->n[0] = c->n[1] = 0;
}
