/*
 * test_apps/unit/test_kernels.c - the engine's copy and transform kernels
 * against element-by-element references, at sizes and alignments the
 * MPI sweeps do not reach: the streaming copies (used only for targets
 * above CS_ENG_STREAM_MIN_BYTES, so never by the small sweep matrices),
 * every head/tail alignment of the destination, strides that do and do not
 * keep columns 32-byte aligned, and transposed transforms larger than one
 * buffer piece of xform.c, and small packages written in streamed 8-byte
 * words.  Every case also checks that no byte around the target block
 * changed.  No MPI.  Usage: test_kernels [scale]
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "engine/engine_int.h"
#include "test_apps/lib/cs_rng.h"
#include "test_apps/lib/cs_test.h"

enum { GUARD = 64 };

/* x rounded up to a multiple of q */
static int64_t round_up(int64_t x, int64_t q)
{
    return (x + q - 1) / q * q;
}

/* Element (r, c) of a strided block, as a byte pointer. */
static char *at(char *base, size_t es, int64_t rs, int64_t cs, int64_t r,
                int64_t c)
{
    return base + (size_t)(r * rs + c * cs) * es;
}

/* One random block copy: src and dst strides, esize, destination byte
 * offset; stream or not. */
static void copy_case(rng_t *g, int stream)
{
    static const size_t sizes[] = {4, 8, 16, 3};
    size_t es = sizes[rnd(g, 4)];
    /* long columns now and then: streaming copies stream only pieces of
     * CS_ENG_STREAM_MIN_RUN bytes and more */
    int64_t rows = 1 + (int64_t)rnd(g, chance(g, 25) ? 400 : 90);
    /* and wide blocks now and then: the staged transpose takes 128
     * target columns at a time (kernels/copy.c) */
    int64_t cols = 1 + (int64_t)rnd(g, chance(g, 10) ? 300 : 40);
    int trans = (int)rnd(g, 2);
    /* source: column-major, or row-major (a transposed read) */
    int64_t sld = (trans ? cols : rows) + (int64_t)rnd(g, 9);
    if (trans && rnd(g, 3) == 0) {
        /* source rows a multiple of 2 KiB apart (the streamed transpose's
         * staged path, kernels/copy.c) */
        int64_t q = 2048 / (int64_t)es;
        sld = round_up(sld, q);
    }
    int64_t srs = trans ? sld : 1, scs = trans ? 1 : sld;
    /* destination: column-major, ld sometimes a multiple of 32/64 bytes,
     * or of 512 (the transposes' taller strips, cs_eng_strip_bytes) */
    int64_t dld = rows + (int64_t)rnd(g, 9);
    if (rnd(g, 2)) {
        /* a multiple of 32, 64 or 512 bytes (streamed transposes need 64) */
        static const int64_t mult[] = {32, 64, 512};
        int64_t q = mult[rnd(g, 3)] / (int64_t)es;
        q = q > 0 ? q : 1;
        dld = round_up(dld, q);
    }
    size_t sbytes = (size_t)(sld * (trans ? rows : cols)) * es;
    size_t dbytes = (size_t)(dld * cols) * es;
    /* destination offset: any multiple of the element size below 64 */
    size_t doff = (size_t)rnd(g, 64 / es + 1) * es;
    size_t total = GUARD + doff + dbytes + GUARD;
    char *src = malloc(sbytes + 1);
    char *raw = malloc(total + 64), *ref = malloc(total + 64);
    CS_TEST_ASSERT(src && raw && ref);
    for (size_t i = 0; i < sbytes; i++) {
        src[i] = (char)rnd(g, 256);
    }
    /* the same random bytes from a 64-byte aligned start in both */
    char *dbase = raw + (64 - (uintptr_t)raw % 64) % 64;
    char *rbase = ref + (64 - (uintptr_t)ref % 64) % 64;
    for (size_t i = 0; i < total; i++) {
        dbase[i] = rbase[i] = (char)rnd(g, 256);
    }
    char *dst = dbase + GUARD + doff, *rdst = rbase + GUARD + doff;
    for (int64_t c = 0; c < cols; c++) {
        for (int64_t r = 0; r < rows; r++) {
            memcpy(at(rdst, es, 1, dld, r, c), at(src, es, srs, scs, r, c),
                   es);
        }
    }
    if (stream) {
        cs_eng_copy2d_stream(es, rows, cols, src, srs, scs, dst, 1, dld);
    } else {
        cs_eng_copy2d(es, rows, cols, src, srs, scs, dst, 1, dld);
    }
    int same = memcmp(dbase, rbase, total) == 0;
    CS_TEST_CHECK(same,
                  "copy stream=%d es=%zu %lldx%lld trans=%d sld=%lld "
                  "dld=%lld doff=%zu",
                  stream, es, (long long)rows, (long long)cols, trans,
                  (long long)sld, (long long)dld, doff);
    free(src);
    free(raw);
    free(ref);
}

/* d = alpha * op(s) + beta * d in type T, element by element (the
 * engine's real modes), with a transposed source bigger than the 64 x 64
 * pieces of xform.c and ragged edges for the register steps of
 * xform_transposed.c (4 x 4 doubles, 8 x 8 floats, strips of one cache line,
 * or four for targets whose columns are a multiple of 512 bytes apart).
 * Defines xform_case_<sfx>. */
#define XFORM_CASE(sfx, T, TYPE)                                              \
    static void xform_case_##sfx(rng_t *g, int stream)                        \
    {                                                                         \
        int64_t rows = 1 + (int64_t)rnd(g, 200);                              \
        int64_t cols = 1 + (int64_t)rnd(g, 200);                              \
        int64_t sld = cols + (int64_t)rnd(g, 5);                              \
        int64_t dld = rows + (int64_t)rnd(g, 5);                              \
        if (rnd(g, 3) == 0) { /* taller strips: cs_eng_strip_bytes */         \
            int64_t q = 512 / (int64_t)sizeof(T);                             \
            dld = round_up(dld, q);                                           \
        }                                                                     \
        /* alpha 1 or not, beta 0, 1 or not: every real mode */              \
        T alpha = (T)rnd(g, 4) - (T)0.5;                                      \
        alpha = alpha < 0 ? (T)1 : alpha;                                     \
        T beta = (T)rnd(g, 3);                                                \
        T *s = malloc((size_t)(sld * rows) * sizeof(T));                      \
        T *d = malloc((size_t)(dld * cols) * sizeof(T));                      \
        T *r = malloc((size_t)(dld * cols) * sizeof(T));                      \
        CS_TEST_ASSERT(s && d && r);                                          \
        for (int64_t i = 0; i < sld * rows; i++) {                            \
            s[i] = (T)rnd(g, 1 << 20) / (T)1024 - (T)512;                     \
        }                                                                     \
        for (int64_t i = 0; i < dld * cols; i++) {                            \
            d[i] = r[i] = (T)rnd(g, 1 << 20) / (T)4096;                       \
        }                                                                     \
        for (int64_t c = 0; c < cols; c++) {                                  \
            for (int64_t i = 0; i < rows; i++) {                              \
                T a = s[i * sld + c];                                         \
                T *t = &r[i + c * dld];                                       \
                if (beta == 0) {                                              \
                    *t = alpha == 1 ? a : alpha * a;                          \
                } else if (beta == 1) {                                       \
                    *t = alpha == 1 ? *t + a : *t + alpha * a;                \
                } else {                                                      \
                    *t = alpha == 1 ? a + beta * *t : alpha * a + beta * *t;  \
                }                                                             \
            }                                                                 \
        }                                                                     \
        cs_eng_op_t op = {.m = rows, .n = cols, .esize = sizeof(T),           \
                          .type = TYPE, .trans = 1, .axpby = 1,               \
                          .alpha = {alpha, 0}, .beta = {beta, 0}};            \
        cs_eng_xform_t x;                                                     \
        cs_eng_xform_init(&op, &x);                                           \
        x.stream = stream;                                                    \
        cs_eng_xform2d(&x, rows, cols, s, sld, 1, d, 1, dld, 0, 0);           \
        CS_TEST_CHECK(memcmp(d, r, (size_t)(dld * cols) * sizeof(T)) == 0,    \
                      "xform " #sfx " %lldx%lld a=%g b=%g stream=%d",         \
                      (long long)rows, (long long)cols, (double)alpha,        \
                      (double)beta, stream);                                  \
        free(s);                                                              \
        free(d);                                                              \
        free(r);                                                              \
    }

XFORM_CASE(d, double, CS_ENG_T_D)
XFORM_CASE(s, float, CS_ENG_T_S)

/* op.add_zero: a source of -0.0 copied (alpha 1, beta 0), straight or
 * transposed, under a lower trapezoid mask: the written elements must be
 * +0.0 (real and imaginary parts), those outside the mask untouched, and
 * without add_zero the zeros keep their sign. */
static void add_zero_case(rng_t *g, int cplx, int add_zero)
{
    int64_t rows = 1 + (int64_t)rnd(g, 40), cols = 1 + (int64_t)rnd(g, 40);
    int64_t k = (int64_t)rnd(g, 5) - 2, dld = rows + (int64_t)rnd(g, 3);
    int tr = (int)rnd(g, 2), parts = cplx ? 2 : 1;
    int64_t n = rows > cols ? rows : cols;
    double *s = malloc((size_t)(n * n * parts) * sizeof(double));
    double *d = malloc((size_t)(dld * cols * parts) * sizeof(double));
    CS_TEST_ASSERT(s && d);
    for (int64_t i = 0; i < n * n * parts; i++) {
        s[i] = -0.0;
    }
    for (int64_t i = 0; i < dld * cols * parts; i++) {
        d[i] = 7.0;
    }
    cs_eng_op_t op = {.m = rows, .n = cols, .esize = 8 * (size_t)parts,
                      .type = cplx ? CS_ENG_T_Z : CS_ENG_T_D, .trans = tr,
                      .axpby = 1, .alpha = {1, 0}, .beta = {0, 0},
                      .mask = CS_ENG_MASK_LOWER, .mask_k = k,
                      .add_zero = add_zero};
    cs_eng_xform_t x;
    cs_eng_xform_init(&op, &x);
    /* transposed: source element (r, c) at c + r * n */
    cs_eng_xform2d(&x, rows, cols, s, tr ? n : 1, tr ? 1 : n, d, 1, dld, 0,
                   0);
    int bad = 0;
    for (int64_t c = 0; c < cols; c++) {
        for (int64_t r = 0; r < dld; r++) {
            int inside = r < rows && r - c >= k;
            for (int p = 0; p < parts; p++) {
                double v = d[(r + c * dld) * parts + p];
                int ok = !inside      ? v == 7.0
                         : add_zero   ? v == 0.0 && !signbit(v)
                                      : v == 0.0 && signbit(v);
                bad += !ok;
            }
        }
    }
    CS_TEST_CHECK(bad == 0,
                  "add_zero=%d cplx=%d %lldx%lld k=%lld trans=%d: %d wrong",
                  add_zero, cplx, (long long)rows, (long long)cols,
                  (long long)k, tr, bad);
    free(s);
    free(d);
}

/* A conjugating transpose of float or double complex elements against
 * the bits it must give: each element copied with the sign bit of its
 * imaginary part flipped.  Targets sometimes a multiple of 64 or 512
 * bytes apart (streaming, taller strips). */
static void conj_case(rng_t *g, int stream)
{
    size_t es = rnd(g, 2) ? 16 : 8;
    int64_t rows = 1 + (int64_t)rnd(g, 120);
    int64_t cols = 1 + (int64_t)rnd(g, chance(g, 10) ? 300 : 120);
    int64_t sld = cols + (int64_t)rnd(g, 5), dld = rows + (int64_t)rnd(g, 5);
    if (rnd(g, 2)) {
        int64_t q = (int64_t)((rnd(g, 2) ? 512 : 64) / es);
        dld = round_up(dld, q);
    }
    if (rnd(g, 3) == 0) {
        /* source rows a multiple of 2 KiB apart (staged when streamed) */
        int64_t q = (int64_t)(2048 / es);
        sld = round_up(sld, q);
    }
    size_t sbytes = (size_t)(sld * rows) * es;
    size_t dbytes = (size_t)(dld * cols) * es;
    unsigned char *s = malloc(sbytes), *d = malloc(dbytes + 64);
    unsigned char *r = malloc(dbytes + 64);
    CS_TEST_ASSERT(s && d && r);
    for (size_t i = 0; i < sbytes; i++) {
        s[i] = (unsigned char)rnd(g, 256);
    }
    /* the target sometimes off a 64-byte boundary (streaming peels) */
    size_t off = (size_t)rnd(g, 4) * es % 64;
    memset(d, 0x5a, dbytes + 64);
    memcpy(r, d, dbytes + 64);
    for (int64_t c = 0; c < cols; c++) {
        for (int64_t i = 0; i < rows; i++) {
            unsigned char *t = r + off + (size_t)(i + c * dld) * es;
            memcpy(t, s + (size_t)(i * sld + c) * es, es);
            t[es - 1] ^= 0x80; /* little endian: the imaginary part's sign */
        }
    }
    if (cs_eng_transpose_conj(es, stream, rows, cols, s, sld, d + off,
                              dld)) {
        CS_TEST_CHECK(memcmp(d, r, dbytes + 64) == 0,
                      "conj transpose es=%zu %lldx%lld sld=%lld dld=%lld "
                      "off=%zu stream=%d",
                      es, (long long)rows, (long long)cols, (long long)sld,
                      (long long)dld, off, stream);
    }
    free(s);
    free(d);
    free(r);
}

/* A package written as packing writes small ones: pieces of whole 8-byte
 * words, front to back, with streaming stores, from sources of any
 * alignment; then the fence.  Also what cs_eng_words_stream_ok accepts. */
static void words_case(rng_t *g)
{
    size_t cap = 4096;
    unsigned char *s = malloc(cap + 8), *d = malloc(cap + 2 * GUARD);
    unsigned char *r = malloc(cap + 2 * GUARD);
    CS_TEST_ASSERT(s && d && r);
    for (size_t i = 0; i < cap + 8; i++) {
        s[i] = (unsigned char)rnd(g, 256);
    }
    memset(d, 0x5a, cap + 2 * GUARD);
    memcpy(r, d, cap + 2 * GUARD);
    size_t at0 = GUARD + 8 * (size_t)rnd(g, 8), o = at0;
    int ok = 1;
    while (1) {
        size_t n = 8 * (1 + (size_t)rnd(g, 75));
        if (o + n > GUARD + cap) {
            break;
        }
        size_t so = (size_t)rnd(g, (int)(cap + 8 - n));
        int can = cs_eng_words_stream_ok(d + o, n);
        ok = ok && can;
        if (can) {
            cs_eng_copy_words_stream(d + o, s + so, n);
        } else {
            memcpy(d + o, s + so, n);
        }
        memcpy(r + o, s + so, n);
        o += n;
    }
    cs_eng_store_fence();
    CS_TEST_CHECK(memcmp(d, r, cap + 2 * GUARD) == 0,
                  "streamed words from offset %zu to %zu", at0, o);
#if defined(__x86_64__) && defined(__GNUC__)
    CS_TEST_CHECK(ok, "8-byte aligned whole words refused for streaming");
#endif
    CS_TEST_CHECK(!cs_eng_words_stream_ok(d + at0 + 4, 8) &&
                      !cs_eng_words_stream_ok(d + at0, 12),
                  "unaligned or partial words accepted for streaming");
    free(s);
    free(d);
    free(r);
}

/* n doubles (dbl) or floats at p: random values with full mantissas,
 * of either sign, up to 2^29 / div. */
static void random_parts(rng_t *g, int dbl, char *p, size_t n, double div)
{
    for (size_t i = 0; i < n; i++) {
        double v = ((double)rnd(g, 1u << 30) - (double)(1u << 29)) / div;
        if (dbl) {
            ((double *)(void *)p)[i] = v;
        } else {
            ((float *)(void *)p)[i] = (float)v;
        }
    }
}

/* Complex arithmetic on a transposed source (p?tranu / p?tranc / p?geadd
 * 'T' and 'C' with alpha or beta not the plain copy's), through the fused
 * register kernels of xform_transposed.c, against the same transform on a
 * source transposed beforehand (xform_tmpl.h's element loop, the path the
 * MPI sweeps compare with PBLAS).  Random mantissas, so that any other
 * rounding order shows; random complex alpha and beta in every mode;
 * conjugated or not. */
static void cxform_case(rng_t *g)
{
    int z = (int)rnd(g, 2);
    size_t es = z ? 16 : 8, part = es / 2;
    int64_t rows = 1 + (int64_t)rnd(g, 150), cols = 1 + (int64_t)rnd(g, 150);
    int64_t sld = cols + (int64_t)rnd(g, 5), dld = rows + (int64_t)rnd(g, 5);
    if (rnd(g, 3) == 0) { /* taller strips: cs_eng_strip_bytes */
        int64_t q = 512 / (int64_t)es;
        dld = round_up(dld, q);
    }
    static const double scal[][2] = {{1, 0},    {0, 0},    {2, -1.5},
                                     {0.3, 0.7}, {-1.25, 0}, {0, 2.5}};
    const double *al = scal[rnd(g, 6)], *be = scal[rnd(g, 6)];
    if (al[0] == 0 && al[1] == 0) {
        al = scal[2]; /* alpha 0 never reads the source: nothing to test */
    }
    size_t sn = (size_t)(sld * rows) * 2, dn = (size_t)(dld * cols) * 2;
    size_t tn = (size_t)(rows * cols) * 2;
    char *s = malloc(sn * part), *t = malloc(tn * part);
    char *d = malloc(dn * part), *r = malloc(dn * part);
    CS_TEST_ASSERT(s && t && d && r);
    random_parts(g, z, s, sn, 7777.0);
    random_parts(g, z, d, dn, 3333.0);
    memcpy(r, d, dn * part);
    /* t: the source transposed, column-major rows x cols */
    for (int64_t c = 0; c < cols; c++) {
        for (int64_t i = 0; i < rows; i++) {
            memcpy(t + (size_t)(i + c * rows) * es,
                   s + (size_t)(i * sld + c) * es, es);
        }
    }
    cs_eng_op_t op = {.m = rows, .n = cols, .esize = es,
                      .type = z ? CS_ENG_T_Z : CS_ENG_T_C, .trans = 1,
                      .axpby = 1, .conj = (int)rnd(g, 2),
                      .alpha = {al[0], al[1]}, .beta = {be[0], be[1]}};
    cs_eng_xform_t x;
    cs_eng_xform_init(&op, &x);
    cs_eng_xform2d(&x, rows, cols, t, 1, rows, r, 1, dld, 0, 0);
    cs_eng_xform2d(&x, rows, cols, s, sld, 1, d, 1, dld, 0, 0);
    CS_TEST_CHECK(memcmp(d, r, dn * part) == 0,
                  "complex xform es=%zu %lldx%lld conj=%d a=(%g,%g) "
                  "b=(%g,%g) dld=%lld",
                  es, (long long)rows, (long long)cols, op.conj, al[0], al[1],
                  be[0], be[1], (long long)dld);
    free(s);
    free(t);
    free(d);
    free(r);
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    rng_t g = {20261201};
    int n = 0;
    for (int k = 0; k < 1500 * scale; k++) {
        copy_case(&g, k % 2);
        n++;
    }
    for (int k = 0; k < 150 * scale; k++) {
        xform_case_d(&g, k % 2);
        xform_case_s(&g, k % 2);
        n += 2;
    }
    for (int k = 0; k < 200 * scale; k++) {
        add_zero_case(&g, k % 2, k % 3 != 0);
        n++;
    }
    for (int k = 0; k < 300 * scale; k++) {
        conj_case(&g, k % 2);
        n++;
    }
    for (int k = 0; k < 300 * scale; k++) {
        cxform_case(&g);
        n++;
    }
    for (int k = 0; k < 300 * scale; k++) {
        words_case(&g);
        n++;
    }
    printf("test_kernels: %d cases\n", n);
    return cs_test_done();
}
